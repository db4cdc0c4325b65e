/**
 * Every transition of the host and cluster tables a request drives (agent registration, progress
 * and step replies; the user's install, cancel, reset, bind, unbind), through the REST API.
 * Each scene seeds hosts and clusters into the source statuses in the store (what the table starts
 * from is the subject, not how a host got there), ages the stored times where the rule is about
 * time, acts, and checks what the API then shows. The state machines are wrapped to record which
 * rule answered from which status; the last test proves every pair this suite owns was driven
 * (test/support/transition-lab.ts: OWNERS, and NEVER_RAISED with the reasons for the few left out).
 */
// First: importing the transition lab wraps the state machines before anything loads them.
import {
  transitionSuiteRuntime,
  coverage,
  minutesAgo,
  scene,
  expectAnswered,
  lab,
  asLab,
  hostRoute,
  register,
  reply,
  progress,
  hostOf,
  eventNames,
  addHost,
  hostKey,
  seedHost,
  seedCluster,
  monitor,
  pauseFollowUps,
  hostsIn,
  statusesOf,
  all,
  pairs,
} from '../support/transition-lab.js';
import { randomUUID } from 'node:crypto';
import { container } from '../../lambdas/platform/container.js';
import { describe, expect, it } from 'vitest';
import { API_VIP, INGRESS_VIP, readyCluster } from '../support/cluster-lab.js';
import { answered } from '../support/rule-recorder.js';

describe('host and cluster transitions driven by requests, through the REST API', () => {
  const api = transitionSuiteRuntime();

  // ---------------------------------------------------------------- RegisterHost

  describe('registration (POST /v2/infra-envs/{id}/hosts)', () => {
    it('registers new hosts in a cluster and in the pool', async () => {
      const seen = await scene(async () => {
        const bound = await lab();
        const hostId = randomUUID();
        const created = await register(bound, hostId);
        expect([created.status, created.body.status]).toEqual([201, 'discovering']);
        expect(await eventNames(bound, hostId)).toContain('host_registration_succeeded');
        const pool = await lab(null);
        const pooled = await register(pool, randomUUID());
        expect([pooled.status, pooled.body.status]).toEqual([201, 'discovering-unbound']);
      });
      expectAnswered(seen, ['host:register-new@', 'host:register-new-unbound@']);
    });

    it('discovers a registered host anew from every pre-install status, and from resetting unless it is rebooting', async () => {
      // Hosts waiting on their peers register first: each registration forgets an inventory, and the
      // peers still waiting are judged again on that news (through the table's stream).
      const froms = ['pending-for-input', 'insufficient', 'discovering', 'known', 'disconnected', 'resetting-pending-user-action', 'binding'];
      const seen = await scene(async () => {
        const l = await lab();
        const ids = await hostsIn(l, froms, 'master-0');
        for (const hostId of ids.values()) expect((await register(l, hostId)).status).toBe(201);
        expect(await statusesOf(l, ids)).toEqual(all(ids, 'discovering'));
        // Rediscovery forgets the inventory: the agent sends it again.
        expect((await hostOf(l, ids.get('known')!)).inventory ?? '').toBe('');

        const resetting = await hostsIn(l, ['resetting'], 'master-1');
        const rebooting = await addHost(l, 'master-2');
        await seedHost(l, rebooting, 'resetting', { progress: { current_stage: 'Rebooting' } });
        expect((await register(l, resetting.get('resetting')!)).status).toBe(201);
        expect((await register(l, rebooting)).status).toBe(201);
        expect((await hostOf(l, resetting.get('resetting')!)).status).toBe('discovering');
        expect((await hostOf(l, rebooting)).status).toBe('resetting');
      });
      expectAnswered(seen, [...pairs('host:register-rediscover', froms), 'host:register-resetting@resetting', 'host:register-resetting-rebooting@resetting']);
    });

    it('answers a registration during preparation, installation, after it and in error as upstream does', async () => {
      const seen = await scene(async () => {
        const l = await lab();
        const preparing = await hostsIn(l, ['preparing-for-installation', 'preparing-successful'], 'master-0');
        for (const hostId of preparing.values()) expect((await register(l, hostId)).status).toBe(201);
        // Known by the table, then judged at once on the inventory it kept: this lone host lacks peers.
        expect(await statusesOf(l, preparing)).toEqual(all(preparing, 'insufficient'));
        for (const hostId of preparing.values()) expect((await hostOf(l, hostId)).inventory).toBeTruthy();

        const installing = await hostsIn(l, ['installing', 'installing-in-progress'], 'master-1', () => ({ progress: { current_stage: 'Installing' } }));
        for (const hostId of installing.values()) expect((await register(l, hostId)).status).toBe(201);
        expect(await statusesOf(l, installing)).toEqual(all(installing, 'error'));

        // Back from the discovery image after writing the disk: the boot order is wrong.
        const rebooted = await hostsIn(l, ['installing-in-progress'], 'master-2', () => ({ progress: { current_stage: 'Rebooting' } }));
        const wrongBoot = rebooted.get('installing-in-progress')!;
        expect((await register(l, wrongBoot)).status).toBe(201);
        expect((await hostOf(l, wrongBoot)).status).toBe('installing-pending-user-action');
        const again = await register(l, wrongBoot);
        expect(again.status).toBe(403);
        expect(again.text).toMatch(/booted from disk/);

        const done = await hostsIn(l, ['installed', 'error'], 'worker-0');
        const installed = await register(l, done.get('installed')!);
        expect(installed.status).toBe(409);
        expect((await register(l, done.get('error')!)).status).toBe(201);
        expect(await statusesOf(l, done)).toEqual({ installed: 'installed', error: 'error' });
      });
      expectAnswered(seen, [
        ...pairs('host:register-during-preparation', ['preparing-for-installation', 'preparing-successful']),
        ...pairs('host:register-during-installation', ['installing', 'installing-in-progress']),
        'host:register-wrong-boot-order@installing-in-progress',
        'host:register-wrong-boot-order-again@installing-pending-user-action',
        'host:register-after-installation@installed',
        'host:register-in-error@error',
      ]);
    });

    it('takes a day-2 host that booted the discovery image after joining back to waiting for the user', async () => {
      const seen = await scene(async () => {
        const l = await lab();
        await seedCluster(l, 'adding-hosts', { kind: 'AddHostsCluster' });
        const hostId = await addHost(l, 'worker-0');
        expect((await hostOf(l, hostId)).kind).toBe('AddToExistingClusterHost');
        await seedHost(l, hostId, 'added-to-existing-cluster', { progress: { current_stage: 'Done' } });
        expect((await register(l, hostId)).status).toBe(201);
        expect((await hostOf(l, hostId)).status).toBe('installing-pending-user-action');
      });
      expectAnswered(seen, ['host:register-wrong-boot-order@added-to-existing-cluster']);
    });

    it('discovers a pool host anew from every pool status', async () => {
      const froms = [
        'discovering-unbound',
        'disconnected-unbound',
        'insufficient-unbound',
        'known-unbound',
        'unbinding',
        'unbinding-pending-user-action',
        'reclaiming-rebooting',
      ];
      const seen = await scene(async () => {
        const pool = await lab(null);
        const ids = await hostsIn(pool, froms, 'master-0');
        for (const hostId of ids.values()) expect((await register(pool, hostId)).status).toBe(201);
        // Rediscovery forgets the inventory (the agent sends it again): discovering, whatever the host was.
        expect(await statusesOf(pool, ids)).toEqual(all(ids, 'discovering-unbound'));
      });
      expectAnswered(seen, pairs('host:register-unbound-rediscover', froms));
    });
  });

  // ---------------------------------------------------------------- installer progress and failures

  describe('installer progress (PUT .../progress) and install step failures', () => {
    it('moves installing hosts by the stage they report', async () => {
      const seen = await scene(async () => {
        const l = await lab();
        const master = { role: 'master' };
        const failing = await hostsIn(l, ['installing', 'installing-in-progress', 'installing-pending-user-action'], 'master-0', () => ({
          ...master,
          progress: { current_stage: 'Installing' },
        }));
        await seedCluster(l, 'installing');
        for (const hostId of failing.values()) expect((await progress(l, hostId, 'Failed', 'disk went away')).status).toBe(200);
        expect(await statusesOf(l, failing)).toEqual(all(failing, 'error'));
        expect((await hostOf(l, failing.get('installing')!)).status_info).toBe('Failed - disk went away');

        await seedCluster(l, 'insufficient');
        const moving = await hostsIn(l, ['installing', 'installing-in-progress', 'installing-pending-user-action'], 'master-1', () => ({
          ...master,
          progress: { current_stage: 'Installing' },
        }));
        const finishing = await hostsIn(l, ['installing', 'installing-in-progress'], 'master-2', () => ({ ...master, progress: { current_stage: 'Joined' } }));
        await seedCluster(l, 'installing');
        for (const hostId of moving.values()) expect((await progress(l, hostId, 'Writing image to disk', '40%')).status).toBe(200);
        expect(await statusesOf(l, moving)).toEqual(all(moving, 'installing-in-progress'));

        for (const hostId of finishing.values()) expect((await progress(l, hostId, 'Done')).status).toBe(200);
        expect(await statusesOf(l, finishing)).toEqual(all(finishing, 'installed'));
      });
      expectAnswered(seen, [
        ...pairs('host:progress-failed', ['installing', 'installing-in-progress', 'installing-pending-user-action']),
        ...pairs('host:progress-in-progress', ['installing', 'installing-in-progress', 'installing-pending-user-action']),
        ...pairs('host:progress-done', ['installing', 'installing-in-progress']),
      ]);
    });

    it('adds a day-2 host to the existing cluster once it is done', async () => {
      const seen = await scene(async () => {
        const l = await lab();
        await seedCluster(l, 'adding-hosts', { kind: 'AddHostsCluster' });
        const day2 = { role: 'worker', progress: { current_stage: 'Writing image to disk' } };
        // The service hears nothing after a day-2 host reboots: its Rebooting is recorded as Done.
        const rebooting = await hostsIn(l, ['installing', 'installing-in-progress'], 'worker-0', () => day2);
        for (const hostId of rebooting.values()) expect((await progress(l, hostId, 'Rebooting')).status).toBe(200);
        expect(await statusesOf(l, rebooting)).toEqual(all(rebooting, 'added-to-existing-cluster'));
        expect((await hostOf(l, rebooting.get('installing')!)).progress.current_stage).toBe('Done');

        const waiting = await hostsIn(l, ['installing-pending-user-action'], 'worker-1', () => day2);
        for (const hostId of waiting.values()) expect((await progress(l, hostId, 'Rebooting')).status).toBe(200);
        expect(await statusesOf(l, waiting)).toEqual(all(waiting, 'added-to-existing-cluster'));
      });
      expectAnswered(seen, [...pairs('host:progress-day2-done', ['installing', 'installing-in-progress', 'installing-pending-user-action'])]);
    });

    it('fails a host whose install step failed, or whose discovery media went away', async () => {
      const mediaBound = ['known', 'discovering', 'disconnected', 'insufficient', 'pending-for-input', 'binding'];
      const mediaInstalling = ['preparing-for-installation', 'preparing-failed', 'preparing-successful', 'installing', 'installing-in-progress', 'error'];
      const mediaPool = ['discovering-unbound', 'disconnected-unbound', 'insufficient-unbound', 'known-unbound', 'unbinding'];
      const seen = await scene(async () => {
        const l = await lab();
        const failed = await hostsIn(l, ['installing', 'installing-in-progress'], 'master-0');
        for (const hostId of failed.values())
          expect((await reply(l, hostId, 'install', { exit_code: 1, error: 'installer could not start' })).status).toBe(204);
        expect(await statusesOf(l, failed)).toEqual(all(failed, 'error'));

        const lostMedia = { exit_code: 256, error: 'media disconnected' };
        const bound = await hostsIn(l, mediaBound, 'master-1');
        for (const hostId of bound.values()) expect((await reply(l, hostId, 'free-network-addresses', lostMedia)).status).toBe(204);
        expect(await statusesOf(l, bound)).toEqual(all(bound, 'disconnected'));
        expect(await eventNames(l, bound.get('known'))).toContain('host_media_disconnected');

        const installing = await hostsIn(l, mediaInstalling, 'master-2', () => ({ progress: { current_stage: 'Installing' } }));
        for (const hostId of installing.values()) expect((await reply(l, hostId, 'free-network-addresses', lostMedia)).status).toBe(204);
        expect(await statusesOf(l, installing)).toEqual(all(installing, 'error'));

        const pool = await lab(null);
        const pooled = await hostsIn(pool, mediaPool, 'worker-0');
        for (const hostId of pooled.values()) expect((await reply(pool, hostId, 'free-network-addresses', lostMedia)).status).toBe(204);
        expect(await statusesOf(pool, pooled)).toEqual(all(pooled, 'disconnected-unbound'));

        // A host whose media is already known to be gone is not written again.
        const already = await hostsIn(l, [...mediaBound, ...mediaInstalling], 'worker-1', () => ({ media_status: 'disconnected' }));
        const alreadyPool = await hostsIn(pool, mediaPool, 'worker-1', () => ({ media_status: 'disconnected' }));
        for (const hostId of already.values()) expect((await reply(l, hostId, 'free-network-addresses', lostMedia)).status).toBe(204);
        for (const hostId of alreadyPool.values()) expect((await reply(pool, hostId, 'free-network-addresses', lostMedia)).status).toBe(204);
        for (const hostId of already.values()) expect(await eventNames(l, hostId)).not.toContain('host_media_disconnected');
        for (const hostId of alreadyPool.values()) expect(await eventNames(pool, hostId)).not.toContain('host_media_disconnected');
        // Installing hosts stay as they were; the others were already judged offline by their lost media.
        for (const status of mediaInstalling) expect((await hostOf(l, already.get(status)!)).status).toBe(status);
      });
      expectAnswered(seen, [
        ...pairs('host:installation-failed', ['installing', 'installing-in-progress']),
        ...pairs('host:media-disconnected', mediaBound),
        ...pairs('host:media-disconnected-installing', mediaInstalling),
        ...pairs('host:media-disconnected-unbound', mediaPool),
        ...pairs('host:media-already-disconnected', [...mediaBound, ...mediaInstalling, ...mediaPool]),
      ]);
    });
  });

  // ---------------------------------------------------------------- user actions

  describe('user actions: cancel, reset, bind, unbind, install a day-2 host', () => {
    it('cancels an installation (hosts cancelled) and a preparation (hosts known again), from every cluster status that has one', async () => {
      const installingHosts = ['installing-pending-user-action', 'installing', 'installing-in-progress', 'installed', 'error'];
      const seen = await scene(async () => {
        const l = await lab();
        const ids = await hostsIn(l, installingHosts, 'master-0');
        await seedCluster(l, 'installing', { install_started_at: minutesAgo(5) });
        const cancelled = await api.call('POST', `/clusters/${l.clusterId}/actions/cancel`, undefined, api.user());
        expect([cancelled.status, cancelled.body.status]).toEqual([202, 'cancelled']);
        expect(await statusesOf(l, ids)).toEqual(all(ids, 'cancelled'));
        expect(await eventNames(l, ids.get('installing'))).toContain('host_installation_cancelled');
        expect(await eventNames(l)).toContain('cluster_installation_canceled');

        for (const status of ['installing-pending-user-action', 'error', 'finalizing']) {
          const other = await lab();
          await addHost(other, 'master-1');
          await seedCluster(other, status);
          const response = await api.call('POST', `/clusters/${other.clusterId}/actions/cancel`, undefined, api.user());
          expect([status, response.status, response.body.status]).toEqual([status, 202, 'cancelled']);
        }

        const preparing = await lab();
        const prepIds = await hostsIn(preparing, ['preparing-for-installation', 'preparing-successful', 'known'], 'master-2');
        await seedCluster(preparing, 'preparing-for-installation');
        const stopped = await api.call('POST', `/clusters/${preparing.clusterId}/actions/cancel`, undefined, api.user());
        // The cancel leaves the cluster ready (cancel-preparation, below); its next judgement, once
        // its hosts are known again, reads these seeded hosts (one inventory thrice) and may differ.
        expect(stopped.status).toBe(202);
        expect(await eventNames(preparing)).toContain('cluster_installation_canceled');
        // Released to known by the cancel (cancel-preparation, cancel-known, below); a verdict that lost a
        // peer validation on these seeded hosts is judged again at once (the stream), and they may go on to insufficient.
        for (const status of Object.values(await statusesOf(preparing, prepIds))) expect(['known', 'insufficient']).toContain(status);
      });
      expectAnswered(seen, [
        ...pairs('host:cancel-installation', installingHosts),
        ...pairs('host:cancel-preparation', ['preparing-for-installation', 'preparing-successful']),
        'host:cancel-known@known',
        ...pairs('cluster:cancel-installation', ['installing', 'installing-pending-user-action', 'error', 'finalizing']),
        'cluster:cancel-preparation@preparing-for-installation',
      ]);
    });

    it('resets an installation from every cluster status that has one; every host then waits to be booted into discovery', async () => {
      const hostStatuses = [
        'resetting',
        'discovering',
        'known',
        'installing-pending-user-action',
        'installing',
        'preparing-for-installation',
        'preparing-successful',
        'preparing-failed',
        'pending-for-input',
        'resetting-pending-user-action',
        'installing-in-progress',
        'installed',
        'error',
        'cancelled',
        'added-to-existing-cluster',
      ];
      const clusterStatuses = ['preparing-for-installation', 'installing', 'installing-pending-user-action', 'error', 'cancelled', 'finalizing'];
      const seen = await scene(async () => {
        const l = await lab();
        const ids = await hostsIn(l, hostStatuses, 'master-0');
        await seedCluster(l, 'error');
        const reset = await api.call('POST', `/clusters/${l.clusterId}/actions/reset`, undefined, api.user());
        expect([reset.status, reset.body.status]).toEqual([202, 'insufficient']);
        expect(await statusesOf(l, ids)).toEqual(all(ids, 'resetting-pending-user-action'));
        expect(await eventNames(l, ids.get('installed'))).toContain('host_installation_reset');
        expect(await eventNames(l)).toContain('cluster_installation_reset');

        for (const status of clusterStatuses.filter((s) => s !== 'error')) {
          const other = await lab();
          await addHost(other, 'master-1');
          await seedCluster(other, status);
          const response = await api.call('POST', `/clusters/${other.clusterId}/actions/reset`, undefined, api.user());
          expect([status, response.status, response.body.status]).toEqual([status, 202, 'insufficient']);
        }
      });
      expectAnswered(seen, [...pairs('host:reset-pending-user-action', hostStatuses), ...pairs('cluster:reset', clusterStatuses)]);
    });

    it('binds a known pool host, and unbinds hosts before and after an installation', async () => {
      // Hosts waiting on their peers go first: a host leaving the cluster is news their judgement reads.
      const preInstall = ['pending-for-input', 'insufficient', 'known', 'discovering', 'disconnected'];
      const afterInstall = ['installed', 'added-to-existing-cluster', 'error', 'cancelled'];
      const seen = await scene(async () => {
        const pool = await lab(null);
        const target = await lab();
        const hostId = await addHost(pool, 'master-0');
        expect((await hostOf(pool, hostId)).status).toBe('known-unbound');
        const bound = await api.call('POST', `${hostRoute(pool, hostId)}/actions/bind`, { cluster_id: target.clusterId }, api.user());
        expect([bound.status, bound.body.status]).toEqual([200, 'binding']);
        expect(await eventNames(pool, hostId)).toContain('host_bind_succeeded');

        // Hosts of an infra-env without a cluster, later bound: unbinding returns them to that pool.
        const unbindable = await hostsIn(pool, [...preInstall, ...afterInstall], 'master-1');
        await pauseFollowUps();
        for (const id of unbindable.values()) {
          await container().store.hosts.mutate(hostKey(pool, id), (h) => ({
            ...h,
            clusterId: target.clusterId!,
            attributes: { ...h.attributes, cluster_id: target.clusterId },
          }));
        }
        for (const id of unbindable.values()) expect((await api.call('POST', `${hostRoute(pool, id)}/actions/unbind`, undefined, api.user())).status).toBe(200);
        const expected = [...preInstall.map((from) => [from, 'unbinding']), ...afterInstall.map((from) => [from, 'unbinding-pending-user-action'])];
        expect(await statusesOf(pool, unbindable)).toEqual(Object.fromEntries(expected));
      });
      expectAnswered(seen, [
        'host:bind@known-unbound',
        ...pairs('host:unbind-pre-install', preInstall),
        ...pairs('host:unbind-after-install-started', afterInstall),
      ]);
    });

    it('prepares a ready cluster for installation on install', async () => {
      const seen = await scene(async () => {
        const ready = await readyCluster(api, { hosts: ['master-0', 'master-1', 'master-2'], name: 'cov-install' });
        const install = await api.call('POST', `/clusters/${ready.clusterId}/actions/install`, undefined, api.user());
        expect([install.status, install.body.status]).toEqual([202, 'preparing-for-installation']);
      });
      expectAnswered(seen, ['cluster:prepare@ready']);
    }, 120_000);

    it('starts installing a known day-2 host on its own', async () => {
      const seen = await scene(async () => {
        const ready = await readyCluster(api, { hosts: ['master-0', 'master-1', 'master-2'], name: 'cov-day2' });
        const l = asLab(ready);
        await seedCluster(l, 'installed');
        expect((await api.call('POST', `/clusters/${l.clusterId}/actions/allow-add-workers`, undefined, api.user())).status).toBe(202);
        const hostId = await addHost(l, 'worker-0');
        await reply(l, hostId, 'api-vip-connectivity-check', {
          output: JSON.stringify({
            is_success: true,
            url: 'http://api.cov-day2.example.com:22624/config/worker',
            ignition: '{"ignition":{"version":"3.2.0"}}',
          }),
        });
        await reply(l, hostId, 'ntp-synchronizer', { output: JSON.stringify({ ntp_sources: [{ source_name: 'clock.example.com', source_state: 'synced' }] }) });
        const base = 'cov-day2.example.com';
        await reply(l, hostId, 'domain-resolution', {
          output: JSON.stringify({
            resolutions: [
              { domain_name: 'quay.io', ipv4_addresses: ['203.0.113.10'], ipv6_addresses: [], cnames: [] },
              { domain_name: `api.${base}`, ipv4_addresses: [API_VIP], ipv6_addresses: [], cnames: [] },
              { domain_name: `api-int.${base}`, ipv4_addresses: [API_VIP], ipv6_addresses: [], cnames: [] },
              { domain_name: `console-openshift-console.apps.${base}`, ipv4_addresses: [INGRESS_VIP], ipv6_addresses: [], cnames: [] },
              { domain_name: `validateNoWildcardDNS.${base}`, ipv4_addresses: [], ipv6_addresses: [], cnames: [] },
              { domain_name: `validateNoWildcardDNS.${base}.`, ipv4_addresses: [], ipv6_addresses: [], cnames: [] },
            ],
          }),
        });
        expect((await hostOf(l, hostId)).status).toBe('known');
        const install = await api.call('POST', `${hostRoute(l, hostId)}/actions/install`, undefined, api.user());
        expect([install.status, install.body.status]).toEqual([202, 'installing']);
        expect(await eventNames(l, hostId)).toContain('host_installation_started');
      });
      expectAnswered(seen, ['host:install-day2@known']);
    }, 120_000);
  });

  it('cannot raise what it lists as never raised: progress from a settled host is refused first; and the monitor leaves added hosts alone', async () => {
    const l = await lab();
    const ids = await hostsIn(l, ['installed', 'resetting-pending-user-action', 'added-to-existing-cluster'], 'master-0', () => ({
      role: 'master',
      progress: { current_stage: 'Joined' },
    }));
    for (const status of ['installed', 'resetting-pending-user-action']) {
      const report = await progress(l, ids.get(status)!, 'Done');
      expect([status, report.status]).toEqual([status, 409]);
    }
    const start = answered.length;
    await monitor();
    expect(answered.slice(start).filter((pair) => pair.endsWith('@added-to-existing-cluster'))).toEqual([]);
  });

  it('drove every (rule, source status) pair it owns, except the few this service never raises', () => {
    expect(coverage('requests')).toEqual({ missing: [], staleExclusions: [] });
  });
});
