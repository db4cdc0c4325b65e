/**
 * Every RefreshHost transition of the host table, driven by the host monitor's pass (and by requests
 * that judge a host, for hosts the monitor no longer watches).
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
  poll,
  hostOf,
  clusterOf,
  eventNames,
  addHost,
  seedHost,
  seedCluster,
  monitor,
  judgeCluster,
  hostsIn,
  statusesOf,
  all,
  pairs,
} from '../support/transition-lab.js';
import { describe, expect, it } from 'vitest';
import { readyCluster, type Json } from '../support/cluster-lab.js';

describe('host transitions driven by the host monitor', () => {
  const api = transitionSuiteRuntime();

  // ---------------------------------------------------------------- the host monitor

  describe('the host monitor (RefreshHost)', () => {
    it('judges discovery: no inventory, too small, waiting for input, not ready, ready, silent', async () => {
      const seen = await scene(async () => {
        // A healthy cluster: every host known; hosts seeded out of known come back to it.
        const ready = asLab(await readyCluster(api, { hosts: ['master-0', 'master-1', 'master-2'], name: 'cov-discovery' }));
        const hosts = (await api.call('GET', `/clusters/${ready.clusterId}/hosts`, undefined, api.user())).body as Json[];
        const [first, second] = [hosts[0]!.id as string, hosts[1]!.id as string];
        for (const from of ['disconnected', 'insufficient', 'pending-for-input', 'discovering']) {
          await seedHost(ready, first, from);
          await monitor();
          expect([from, (await hostOf(ready, first)).status]).toEqual([from, 'known']);
        }
        // The other known hosts stay known on the monitor's whole judgement.
        expect((await hostOf(ready, second)).status).toBe('known');

        const l = await lab();
        const fromsWithInventory = ['disconnected', 'discovering', 'insufficient', 'known', 'pending-for-input'];
        const undersized = await hostsIn(l, fromsWithInventory, 'undersized');
        const lonely = await hostsIn(l, fromsWithInventory, 'master-0');
        const bare = await hostsIn(l, ['disconnected', 'discovering'], undefined);
        const silent = await hostsIn(l, ['discovering', 'insufficient', 'known', 'pending-for-input', 'disconnected', 'preparing-failed'], 'worker-0', () => ({
          checked_in_at: minutesAgo(4),
        }));
        await monitor();
        expect(await statusesOf(l, undersized)).toEqual(all(undersized, 'insufficient'));
        expect(await statusesOf(l, lonely)).toEqual(all(lonely, 'insufficient'));
        expect(await statusesOf(l, bare)).toEqual(all(bare, 'discovering'));
        expect(await statusesOf(l, silent)).toEqual(all(silent, 'disconnected'));

        // No machine network yet (no VIPs): the host waits for the user's input.
        const waiting = await lab({});
        const forInput = await hostsIn(waiting, fromsWithInventory, 'master-1');
        await monitor();
        expect(await statusesOf(waiting, forInput)).toEqual(all(forInput, 'pending-for-input'));
      });
      const withInventory = ['disconnected', 'discovering', 'insufficient', 'known', 'pending-for-input'];
      expectAnswered(seen, [
        ...pairs('host:refresh-ready', ['disconnected', 'insufficient', 'pending-for-input', 'discovering']),
        'host:refresh-still-ready@known',
        ...pairs('host:refresh-insufficient-hardware', withInventory),
        ...pairs('host:refresh-not-ready', withInventory),
        ...pairs('host:refresh-discovering', ['disconnected', 'discovering']),
        ...pairs('host:refresh-disconnected', ['discovering', 'insufficient', 'known', 'pending-for-input', 'disconnected', 'preparing-failed']),
        ...pairs('host:refresh-pending-for-input', withInventory),
      ]);
    }, 90_000);

    it('judges preparation for installation: starts, succeeds, waits, fails, times out, stops and lets go', async () => {
      const seen = await scene(async () => {
        const ready = await readyCluster(api, { hosts: ['master-0', 'master-1', 'master-2'], name: 'cov-prepare' });
        const l = asLab(ready);
        // The install action assigned the roles and installation disks before the cluster started preparing.
        const diskPath = '/dev/sda';
        for (const hostId of ready.hostIds) await seedHost(l, hostId, 'known', { role: 'master', installation_disk_path: diskPath });
        const cluster = await seedCluster(l, 'preparing-for-installation');
        const image = cluster.attributes.ocp_release_image as string;
        const [a, b, c] = ready.hostIds as [string, string, string];
        // The agent measures the disk under the name its boot device has: the installation disk's id (as upstream).
        const measuredDisk = new Map<string, string>();
        for (const hostId of ready.hostIds) measuredDisk.set(hostId, ((await hostOf(l, hostId)).installation_disk_id as string | undefined) || diskPath);
        const measured = (hostId: string, exitCode: number, ms = 2) =>
          JSON.stringify({ [measuredDisk.get(hostId)!]: { disk_speed: { tested: true, exit_code: exitCode, speed_ms: ms } } });
        const pulled = (result: string) => JSON.stringify({ [image]: { name: image, result } });

        // known hosts with a role start preparing.
        await monitor();
        expect((await hostOf(l, a)).status).toBe('preparing-for-installation');
        // Checks came back good: prepared, then waiting for the others.
        await seedHost(l, a, 'preparing-for-installation', { disks_info: measured(a, 0), images_status: pulled('success') });
        await seedHost(l, b, 'preparing-successful');
        await seedCluster(l, 'preparing-for-installation');
        await monitor();
        expect((await hostOf(l, a)).status).toBe('preparing-successful');
        expect((await hostOf(l, b)).status).toBe('preparing-successful');
        // The release image could not be pulled: preparation failed.
        await seedHost(l, c, 'preparing-for-installation', { images_status: pulled('failure') });
        await seedCluster(l, 'preparing-for-installation');
        await monitor();
        expect((await hostOf(l, c)).status).toBe('preparing-failed');
        // A disk whose measurement failed, from preparing, from preparing-failed: insufficient.
        await seedHost(l, a, 'preparing-for-installation', { disks_info: measured(a, -1), images_status: undefined });
        await seedHost(l, c, 'preparing-failed', { disks_info: measured(c, -1) });
        await seedCluster(l, 'preparing-for-installation');
        await monitor();
        expect([(await hostOf(l, a)).status, (await hostOf(l, c)).status]).toEqual(['insufficient', 'insufficient']);
        // Nothing reported yet: still preparing; after 8 minutes: failed, saying what is missing.
        await seedHost(l, a, 'preparing-for-installation', { disks_info: undefined, images_status: undefined });
        await seedCluster(l, 'preparing-for-installation');
        await monitor();
        expect((await hostOf(l, a)).status).toBe('preparing-for-installation');
        await seedHost(l, a, 'preparing-for-installation', { disks_info: undefined, images_status: undefined, status_updated_at: minutesAgo(9) });
        await seedCluster(l, 'preparing-for-installation');
        await monitor();
        expect((await hostOf(l, a)).status).toBe('preparing-failed');
        // Silent while preparing: disconnected.
        await seedHost(l, a, 'preparing-for-installation', { checked_in_at: minutesAgo(4) });
        await seedHost(l, b, 'preparing-successful', { checked_in_at: minutesAgo(4) });
        await seedCluster(l, 'preparing-for-installation');
        await monitor();
        expect([(await hostOf(l, a)).status, (await hostOf(l, b)).status]).toEqual(['disconnected', 'disconnected']);

        // The cluster stopped preparing (cancelled meanwhile): every preparing host is known again.
        await seedCluster(l, 'ready');
        await seedHost(l, a, 'preparing-for-installation', { disks_info: measured(a, 0), images_status: pulled('success') });
        await seedHost(l, b, 'preparing-successful');
        await seedHost(l, c, 'preparing-failed', { disks_info: measured(c, 0), images_status: pulled('success') });
        await monitor();
        expect([(await hostOf(l, a)).status, (await hostOf(l, b)).status, (await hostOf(l, c)).status]).toEqual(['known', 'known', 'known']);
        // A known host whose last disk speed measurement failed, outside preparation.
        await seedHost(l, a, 'known', { disks_info: measured(a, -1) });
        await monitor();
        expect((await hostOf(l, a)).status).toBe('insufficient');

        // The cluster started installing: its prepared hosts follow.
        await seedCluster(l, 'installing');
        await seedHost(l, b, 'preparing-successful');
        await monitor();
        expect((await hostOf(l, b)).status).toBe('installing');
      });
      expectAnswered(seen, [
        'host:refresh-start-preparing@known',
        'host:refresh-prepared@preparing-for-installation',
        'host:refresh-prepared-waiting@preparing-successful',
        'host:refresh-images-unavailable@preparing-for-installation',
        ...pairs('host:refresh-disk-too-slow', ['preparing-for-installation', 'preparing-failed', 'known']),
        'host:refresh-preparing@preparing-for-installation',
        'host:refresh-preparation-timeout@preparing-for-installation',
        ...pairs('host:refresh-disconnected-preparing', ['preparing-for-installation', 'preparing-successful']),
        'host:refresh-preparation-stopped@preparing-for-installation',
        'host:refresh-prepared-released@preparing-successful',
        'host:refresh-preparation-failed-released@preparing-failed',
        'host:refresh-cluster-installing@preparing-successful',
      ]);
    }, 90_000);

    it('judges installing hosts: hard timeouts fail them, a reboot overrun waits for the user, a failed cluster takes them down', async () => {
      const seen = await scene(async () => {
        const l = await lab();
        const master = { role: 'master' };
        const stage = (current_stage: string, minutes: number) => ({
          ...master,
          progress: { current_stage, stage_started_at: minutesAgo(minutes), stage_updated_at: minutesAgo(minutes) },
        });
        const neverStarted = await addHost(l, 'master-0');
        await seedHost(l, neverStarted, 'installing', { ...master, status_updated_at: minutesAgo(21) });
        const silent = await hostsIn(l, ['installing', 'installing-in-progress'], 'master-1', () => ({
          ...stage('Installing', 1),
          checked_in_at: minutesAgo(4),
        }));
        const stuck = await addHost(l, 'master-2');
        await seedHost(l, stuck, 'installing-in-progress', stage('Starting installation', 61));
        const writing = await addHost(l, 'worker-0');
        await seedHost(l, writing, 'installing-in-progress', stage('Writing image to disk', 31));
        const copying = await addHost(l, 'worker-1');
        await seedHost(l, copying, 'installing-in-progress', stage('Copying registry data to disk', 91));
        const rebooting = await addHost(l, 'master-0');
        await seedHost(l, rebooting, 'installing-in-progress', stage('Rebooting', 41));
        const steady = await hostsIn(
          l,
          ['installing', 'installing-in-progress', 'installing-pending-user-action', 'resetting-pending-user-action'],
          'worker-0',
          () => stage('Installing', 1),
        );
        const doomedStatuses = ['installing', 'installing-in-progress', 'resetting-pending-user-action', 'installing-pending-user-action'];
        const doomed = await hostsIn(l, doomedStatuses, 'worker-1', () => stage('Installing', 1));
        await seedCluster(l, 'installing', { install_started_at: minutesAgo(30) });
        await monitor();
        expect((await hostOf(l, neverStarted)).status_info).toBe('Host failed to install due to timeout while starting installation');
        expect(await statusesOf(l, silent)).toEqual(all(silent, 'error'));
        expect((await hostOf(l, stuck)).status).toBe('error');
        expect((await hostOf(l, writing)).status_info).toMatch(/did not sufficiently progress/);
        expect((await hostOf(l, copying)).status_info).toMatch(/did not sufficiently progress/);
        expect((await hostOf(l, rebooting)).status).toBe('installing-pending-user-action');
        // resetting-pending-user-action hosts are judged whole, on the cluster's own changes.
        await seedCluster(l, 'installing', { install_started_at: minutesAgo(30) });
        await monitor();
        expect(await statusesOf(l, steady)).toEqual(Object.fromEntries([...steady.keys()].map((from) => [from, from])));

        // The cluster failed: a day-1 host cannot finish.
        for (const [status, hostId] of doomed) await seedHost(l, hostId, status, stage('Installing', 1));
        await seedCluster(l, 'error');
        await monitor();
        expect(await statusesOf(l, doomed)).toEqual(all(doomed, 'error'));

        // Installed hosts are no longer watched: the cluster's own move judges them again.
        const masters = async (statuses: string[]) => {
          const cluster = await lab();
          const ids: string[] = [];
          for (const [i] of statuses.entries()) ids.push(await addHost(cluster, `master-${i}`));
          for (const [i, hostId] of ids.entries()) await seedHost(cluster, hostId, statuses[i]!, { role: 'master' });
          await seedCluster(cluster, 'installing', { install_started_at: minutesAgo(30) });
          return { cluster, ids };
        };
        const finishing = await masters(['installed', 'installed', 'installed']);
        expect((await judgeCluster(finishing.cluster))?.status).toBe('finalizing');
        expect((await hostOf(finishing.cluster, finishing.ids[0]!)).status).toBe('installed');
        // Through the monitor's coalesced cluster refresh: the hosts it fails must not wait on a refresh of their cluster.
        const failing = await masters(['installed', 'installed', 'error']);
        await monitor();
        expect((await clusterOf(failing.cluster)).status).toBe('error');
        const aborted = await hostOf(failing.cluster, failing.ids[0]!);
        expect([aborted.status, aborted.status_info]).toEqual(['error', expect.stringMatching(/cluster/i)]);
      });
      expectAnswered(seen, [
        'host:refresh-installing-timeout@installing',
        ...pairs('host:refresh-disconnected-installing', ['installing', 'installing-in-progress']),
        'host:refresh-stage-timeout@installing-in-progress',
        'host:refresh-writing-image-timeout@installing-in-progress',
        'host:refresh-copying-registry-timeout@installing-in-progress',
        'host:refresh-reboot-timeout@installing-in-progress',
        ...pairs('host:refresh-installing-unchanged', [
          'installing',
          'installing-in-progress',
          'installing-pending-user-action',
          'resetting-pending-user-action',
        ]),
        ...pairs('host:refresh-cluster-error', [
          'installing',
          'installing-in-progress',
          'installed',
          'resetting-pending-user-action',
          'installing-pending-user-action',
        ]),
      ]);
    }, 90_000);

    it('with soft timeouts (ENABLE_SOFT_TIMEOUTS when the cluster was created, and org_soft_timeouts_enabled), warns about silent hosts and overdue stages once instead of failing them', async () => {
      const seen = await scene(async () => {
        const l = await lab();
        const stage = (current_stage: string, minutes: number) => ({
          role: 'master',
          progress: { current_stage, stage_started_at: minutesAgo(minutes), stage_updated_at: minutesAgo(minutes) },
        });
        const silent = await hostsIn(l, ['installing', 'installing-in-progress'], 'master-0', () => ({
          ...stage('Installing', 1),
          checked_in_at: minutesAgo(4),
        }));
        const overdue = new Map<string, string>();
        for (const current of ['Starting installation', 'Writing image to disk', 'Copying registry data to disk']) {
          const hostId = await addHost(l, 'master-1');
          await seedHost(l, hostId, 'installing-in-progress', stage(current, 91));
          overdue.set(current, hostId);
        }
        await seedCluster(l, 'installing', { install_started_at: minutesAgo(30), org_soft_timeouts_enabled: true, service_soft_timeouts: true });
        await monitor();
        expect(await statusesOf(l, silent)).toEqual(Object.fromEntries([...silent.keys()].map((from) => [from, from])));
        expect((await hostOf(l, silent.get('installing')!)).status_info).toBe(
          'Host is failing to perform periodic health check during the installation phase.',
        );
        expect(await statusesOf(l, overdue)).toEqual(all(overdue, 'installing-in-progress'));
        for (const hostId of overdue.values()) expect(await eventNames(l, hostId)).toContain('host_stage_timed_out');
        // Warned once: the next pass changes nothing; a poll brings the silent hosts back.
        await monitor();
        for (const hostId of overdue.values()) expect((await eventNames(l, hostId)).filter((name) => name === 'host_stage_timed_out')).toHaveLength(1);
        for (const hostId of silent.values()) expect((await poll(l, hostId)).status).toBe(200);
        await monitor();
        for (const hostId of silent.values())
          expect((await hostOf(l, hostId)).status_info).toBe('Host recovered from failure to perform periodic health check during the installation phase.');
      });
      expectAnswered(seen, [
        ...pairs('host:refresh-soft-disconnected-installing', ['installing', 'installing-in-progress']),
        ...pairs('host:refresh-soft-reconnected-installing', ['installing', 'installing-in-progress']),
        'host:refresh-stage-soft-timeout@installing-in-progress',
        'host:refresh-writing-image-soft-timeout@installing-in-progress',
        'host:refresh-copying-registry-soft-timeout@installing-in-progress',
      ]);
    }, 120_000);

    it('waits on a host pending the user: the clock restarts for hosts blocked by it, and it is given up on after an hour if the cluster can do without it', async () => {
      const seen = await scene(async () => {
        /** A cluster waiting on its user, with hosts (fixture, role, status, extra) seeded. */
        const waitingCluster = async (hosts: [string, string, string, Json?][]) => {
          const l = await lab();
          const ids: string[] = [];
          for (const [fixture] of hosts) ids.push(await addHost(l, fixture));
          for (const [i, [, role, status, extra]] of hosts.entries()) await seedHost(l, ids[i]!, status, { role, ...extra });
          await seedCluster(l, 'installing-pending-user-action', { install_started_at: minutesAgo(90) });
          return { l, ids };
        };
        const anHourAgo = { status_updated_at: minutesAgo(61) };
        // Without this master the control plane is short: it keeps waiting; its peers' clocks restart.
        const short = await waitingCluster([
          ['master-0', 'master', 'installed'],
          ['master-1', 'master', 'installed'],
          ['master-2', 'master', 'installing-pending-user-action', anHourAgo],
          [
            'worker-0',
            'worker',
            'installing-in-progress',
            { progress: { current_stage: 'Waiting for control plane', stage_updated_at: minutesAgo(2), stage_started_at: minutesAgo(2) } },
          ],
        ]);
        // With 2 workers expected and 1 installed, the cluster still needs this one: it keeps waiting.
        const needed = await waitingCluster([
          ['master-0', 'master', 'installed'],
          ['master-1', 'master', 'installed'],
          ['master-2', 'master', 'installed'],
          ['worker-0', 'worker', 'installed'],
          ['worker-1', 'worker', 'installing-pending-user-action', anHourAgo],
        ]);
        // A third worker the cluster can do without (2 of 3 installed) is given up on.
        const spare = await waitingCluster([
          ['master-0', 'master', 'installed'],
          ['master-1', 'master', 'installed'],
          ['master-2', 'master', 'installed'],
          ['worker-0', 'worker', 'installed'],
          ['worker-1', 'worker', 'installed'],
          ['undersized', 'worker', 'installing-pending-user-action', anHourAgo],
        ]);
        await monitor();
        expect((await hostOf(short.l, short.ids[2]!)).status).toBe('installing-pending-user-action');
        expect((await hostOf(needed.l, needed.ids[4]!)).status).toBe('installing-pending-user-action');
        expect(Date.parse((await hostOf(short.l, short.ids[3]!)).progress.stage_updated_at)).toBeGreaterThan(Date.now() - 60_000);
        const givenUp = await hostOf(spare.l, spare.ids[5]!);
        expect([givenUp.status, givenUp.status_info]).toEqual(['error', 'Host failed to boot from the installation disk within the expected time.']);
      });
      expectAnswered(seen, [
        'host:refresh-pending-user-action-timeout@installing-pending-user-action',
        'host:refresh-stage-timeout-waived@installing-in-progress',
      ]);
    });

    it('leaves settled hosts alone, times their logs out, and reclaims nothing it was not asked to', async () => {
      const seen = await scene(async () => {
        const l = await lab();
        const quiet = await hostsIn(l, ['error', 'cancelled', 'resetting'], 'master-0', () => ({
          logs_info: 'requested',
          logs_started_at: new Date().toISOString(),
        }));
        const late = await hostsIn(l, ['error', 'cancelled'], 'master-1', () => ({ status_updated_at: minutesAgo(11) }));
        const reclaiming = await hostsIn(l, ['reclaiming', 'reclaiming-rebooting'], 'master-2');
        const reclaimTimedOut = await hostsIn(l, ['reclaiming', 'reclaiming-rebooting'], 'worker-0', () => ({ status_updated_at: minutesAgo(61) }));
        await seedCluster(l, 'error');
        await monitor();
        expect(await statusesOf(l, quiet)).toEqual({ error: 'error', cancelled: 'cancelled', resetting: 'resetting' });
        for (const hostId of late.values()) expect((await hostOf(l, hostId)).logs_info).toBe('timeout');
        expect(await statusesOf(l, reclaiming)).toEqual({ reclaiming: 'reclaiming', 'reclaiming-rebooting': 'reclaiming-rebooting' });
        expect(await statusesOf(l, reclaimTimedOut)).toEqual(all(reclaimTimedOut, 'unbinding-pending-user-action'));

        // Hosts the monitor no longer watches are judged when a request asks, here a validation reset.
        const finishing = await lab();
        const installed = await addHost(finishing, 'master-0');
        await seedHost(finishing, installed, 'installed', { role: 'master' });
        await seedCluster(finishing, 'installing');
        const day2 = await lab();
        await seedCluster(day2, 'adding-hosts', { kind: 'AddHostsCluster' });
        const joined = await addHost(day2, 'worker-0');
        await seedHost(day2, joined, 'added-to-existing-cluster');
        for (const [at, hostId, status] of [
          [finishing, installed, 'installed'],
          [day2, joined, 'added-to-existing-cluster'],
        ] as const) {
          const reset = await api.call('PATCH', `${hostRoute(at, hostId)}/actions/reset-validation/container-images-available`, undefined, api.user());
          expect([reset.status, reset.body.status]).toEqual([200, status]);
        }
      });
      expectAnswered(seen, [
        ...pairs('host:refresh-unchanged', ['error', 'cancelled', 'resetting']),
        ...pairs('host:refresh-logs-timeout', ['error', 'cancelled']),
        ...pairs('host:refresh-reclaiming', ['reclaiming', 'reclaiming-rebooting']),
        ...pairs('host:refresh-reclaim-timeout', ['reclaiming', 'reclaiming-rebooting']),
        'host:refresh-installing-unchanged@installed',
        'host:refresh-added-unchanged@added-to-existing-cluster',
      ]);
    });

    it('judges pool hosts: discovering, too small, ready to be bound, silent; binding and unbinding wait for the agent', async () => {
      const poolStatuses = ['discovering-unbound', 'disconnected-unbound', 'insufficient-unbound', 'known-unbound'];
      const seen = await scene(async () => {
        const pool = await lab(null);
        const bare = await hostsIn(pool, ['disconnected-unbound', 'discovering-unbound'], undefined);
        const small = await hostsIn(pool, poolStatuses, 'undersized');
        const fit = await hostsIn(pool, poolStatuses, 'master-0');
        const silent = await hostsIn(pool, [...poolStatuses, 'unbinding'], 'master-1', () => ({ checked_in_at: minutesAgo(4) }));
        const moving = await hostsIn(pool, ['binding', 'unbinding'], 'master-2');
        await monitor();
        expect(await statusesOf(pool, bare)).toEqual(all(bare, 'discovering-unbound'));
        expect(await statusesOf(pool, small)).toEqual(all(small, 'insufficient-unbound'));
        expect(await statusesOf(pool, fit)).toEqual(all(fit, 'known-unbound'));
        expect(await statusesOf(pool, silent)).toEqual(all(silent, 'disconnected-unbound'));
        expect(await statusesOf(pool, moving)).toEqual({ binding: 'binding', unbinding: 'unbinding' });
      });
      expectAnswered(seen, [
        ...pairs('host:refresh-unbound-discovering', ['disconnected-unbound', 'discovering-unbound']),
        ...pairs('host:refresh-unbound-insufficient', poolStatuses),
        ...pairs('host:refresh-unbound-ready', poolStatuses),
        ...pairs('host:refresh-unbound-disconnected', [...poolStatuses, 'unbinding']),
        ...pairs('host:refresh-binding-unbinding', ['binding', 'unbinding']),
      ]);
    });
  });

  it('drove every (rule, source status) pair it owns, except the few this service never raises', () => {
    expect(coverage('hostMonitor')).toEqual({ missing: [], staleExclusions: [] });
  });
});
