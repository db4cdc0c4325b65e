/**
 * Every RefreshStatus transition of the cluster table, driven by the cluster refresh the install
 * workflow's follow step and the monitor run.
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
  clusterOf,
  eventNames,
  addHost,
  seedHost,
  seedCluster,
  judgeCluster,
  hostsIn,
  pairs,
  type Lab,
} from '../support/transition-lab.js';
import { KUBECONFIG_CREATED_AT } from '../../lambdas/domain/install/installation-progress.js';
import { describe, expect, it } from 'vitest';
import { readyCluster, type Json } from '../support/cluster-lab.js';

describe('cluster transitions driven by the cluster refresh', () => {
  const api = transitionSuiteRuntime();

  // ---------------------------------------------------------------- the cluster's own judgement

  describe('the cluster refresh (RefreshStatus) and the install action', () => {
    it('judges readiness from each pre-install status, with and without DHCP-allocated VIPs', async () => {
      const refreshable = ['pending-for-input', 'ready', 'insufficient'];
      const seen = await scene(async () => {
        const ready = asLab(await readyCluster(api, { hosts: ['master-0', 'master-1', 'master-2'], name: 'cov-ready' }));
        const noInput = await lab({});
        const notEnough = await lab();
        await addHost(notEnough, 'master-0');
        const dhcpNoInput = await lab({});
        const dhcpNotEnough = await lab({});
        for (const l of [dhcpNoInput, dhcpNotEnough]) await seedCluster(l, 'insufficient', { vip_dhcp_allocation: true, api_vips: [], ingress_vips: [] });
        await seedCluster(dhcpNotEnough, 'insufficient', { machine_networks: [{ cidr: '192.168.111.0/24' }], machine_network_cidr: '192.168.111.0/24' });
        await seedCluster(dhcpNoInput, 'insufficient', { base_dns_domain: undefined });
        const expected: [Lab, string][] = [
          [ready, 'ready'],
          [noInput, 'pending-for-input'],
          [notEnough, 'insufficient'],
          [dhcpNoInput, 'pending-for-input'],
          [dhcpNotEnough, 'insufficient'],
        ];
        for (const from of refreshable) {
          for (const [l, to] of expected) {
            await seedCluster(l, from);
            const judged = await judgeCluster(l);
            expect([from, judged?.status]).toEqual([from, to]);
          }
        }
      });
      expectAnswered(seen, [
        ...pairs('cluster:refresh-ready', refreshable),
        ...pairs('cluster:refresh-pending-input', refreshable),
        ...pairs('cluster:refresh-insufficient', refreshable),
        ...pairs('cluster:refresh-pending-input-dhcp', refreshable),
        ...pairs('cluster:refresh-insufficient-dhcp', refreshable),
      ]);
    }, 90_000);

    it('judges a preparation: all hosts prepared, a host stopped, a host failed, timed out', async () => {
      const seen = await scene(async () => {
        const prepared = async (hostStatuses: string[], preparation: string, statusAgo = 0) => {
          const l = await lab();
          const ids = await hostsIn(l, hostStatuses, 'master-0', () => ({ role: 'master' }));
          await seedCluster(l, 'preparing-for-installation', {
            last_installation_preparation: { status: preparation },
            status_updated_at: minutesAgo(statusAgo),
          });
          return { l, ids };
        };
        const allPrepared = await prepared(['preparing-successful'], 'success');
        expect((await judgeCluster(allPrepared.l))?.status).toBe('installing');
        const stopped = await prepared(['preparing-successful', 'insufficient'], 'not_started');
        expect((await judgeCluster(stopped.l))?.status).toBe('insufficient');
        const failed = await prepared(['preparing-successful', 'preparing-failed'], 'not_started');
        expect((await judgeCluster(failed.l))?.status).toBe('ready');
        const waiting = await prepared(['preparing-for-installation'], 'not_started');
        expect((await judgeCluster(waiting.l))?.status).toBe('preparing-for-installation');
        const timedOut = await prepared(['preparing-for-installation'], 'not_started', 11);
        const judged = await judgeCluster(timedOut.l);
        expect([judged?.status, judged?.attributes.status_info]).toEqual(['ready', 'Preparing cluster for installation timeout']);
        expect(await eventNames(timedOut.l)).toContain('installation_preparing_timed_out');
      });
      expectAnswered(seen, [
        'cluster:refresh-start-installing@preparing-for-installation',
        'cluster:refresh-host-stopped-preparing@preparing-for-installation',
        'cluster:refresh-preparation-failed@preparing-for-installation',
        'cluster:refresh-preparing-timeout@preparing-for-installation',
        'cluster:refresh-unchanged@preparing-for-installation',
      ]);
    }, 120_000);

    it('judges an installation: finalizing, waiting on the user and back, timeouts, failure and completion', async () => {
      const seen = await scene(async () => {
        /** A 3-master cluster whose hosts are in `hosts` (by master), the cluster in `status`. */
        const installation = async (status: string, hosts: string[], attributes: Json = {}) => {
          const l = await lab();
          const ids: string[] = [];
          for (const [i, hostStatus] of hosts.entries()) {
            const hostId = await addHost(l, `master-${i}`);
            await seedHost(l, hostId, hostStatus, { role: 'master' });
            ids.push(hostId);
          }
          await seedCluster(l, status, { install_started_at: minutesAgo(30), ...attributes });
          return { l, ids };
        };
        const verdict = async (status: string, hosts: string[], attributes: Json = {}) => {
          const { l } = await installation(status, hosts, attributes);
          return (await judgeCluster(l))!;
        };
        const installed = ['installed', 'installed', 'installed'];
        const installing = ['installing-in-progress', 'installing-in-progress', 'installing-in-progress'];
        const waiting = ['installed', 'installed', 'installing-pending-user-action'];

        expect((await verdict('installing', installing)).status).toBe('installing');
        expect((await verdict('installing', installed)).status).toBe('finalizing');
        expect((await verdict('installing', ['error', 'error', 'installing-in-progress'])).status).toBe('error');
        expect((await verdict('installing', ['installing-in-progress', 'installing-in-progress', 'installing-pending-user-action'])).status).toBe(
          'installing-pending-user-action',
        );
        expect((await verdict('finalizing', waiting)).status).toBe('installing-pending-user-action');
        expect((await verdict('installing-pending-user-action', waiting)).status).toBe('installing-pending-user-action');
        expect((await verdict('installing-pending-user-action', installing)).status).toBe('installing');
        const backToFinalizing = await verdict('installing-pending-user-action', installed, {
          progress: { finalizing_stage: 'Waiting for cluster operators', finalizing_stage_started_at: minutesAgo(60) },
        });
        expect(backToFinalizing.status).toBe('finalizing');
        expect(Date.parse((backToFinalizing.attributes.progress as Json).finalizing_stage_started_at)).toBeGreaterThan(Date.now() - 60_000);
        expect((await verdict('installing-pending-user-action', ['error', 'error', 'installing-pending-user-action'])).status).toBe('error');
        const overdue = await verdict('installing-pending-user-action', waiting, { install_started_at: minutesAgo(24 * 60 + 1) });
        expect([overdue.status, overdue.attributes.status_info]).toEqual(['error', expect.stringMatching(/pending user action/)]);

        // Finalizing: the operators' stage and the whole finalizing phase have deadlines.
        const stageOverdue = await verdict('finalizing', installed, {
          progress: { finalizing_stage: 'Waiting for cluster operators', finalizing_stage_started_at: minutesAgo(24 * 60) },
        });
        expect([stageOverdue.status, stageOverdue.attributes.status_info]).toEqual(['error', expect.stringMatching(/has been timed out/)]);
        const olmOverdue = await verdict('finalizing', installed, {
          progress: { finalizing_stage: 'Waiting for olm operators csv', finalizing_stage_started_at: minutesAgo(24 * 60) },
        });
        expect([olmOverdue.status, olmOverdue.attributes.status_info]).toEqual(['finalizing', expect.stringMatching(/taking longer than the expected/)]);
        const finalizingOverdue = await installation('finalizing', installed);
        await seedCluster(finalizingOverdue.l, 'finalizing', { status_updated_at: minutesAgo(5 * 60 + 1) });
        expect((await judgeCluster(finalizingOverdue.l))!.attributes.status_info).toBe('Cluster installation timeout while finalizing');
        const stillFinalizing = await verdict('finalizing', installed);
        expect(stillFinalizing.status).toBe('finalizing');

        // With soft timeouts the installation as a whole has a deadline instead.
        for (const status of ['installing', 'finalizing']) {
          const soft = await verdict(status, status === 'installing' ? installing : installed, {
            org_soft_timeouts_enabled: true,
            service_soft_timeouts: true,
            install_started_at: minutesAgo(24 * 60 + 1),
          });
          expect([status, soft.status, soft.attributes.status_info]).toEqual([status, 'error', expect.stringMatching(/installation timeout/)]);
        }

        // Complete: the kubeconfig is there and every operator is available.
        const done = await installation('finalizing', installed);
        const operators = ((await clusterOf(done.l)).monitored_operators as Json[]).map((operator) => ({ ...operator, status: 'available' }));
        await seedCluster(done.l, 'finalizing', { [KUBECONFIG_CREATED_AT]: new Date().toISOString(), monitored_operators: operators });
        const complete = (await judgeCluster(done.l))!;
        expect(complete.status).toBe('installed');
        expect(await eventNames(done.l)).toContain('cluster_installation_completed');
        expect((await judgeCluster(done.l))!.status).toBe('installed');
      });
      expectAnswered(seen, [
        'cluster:refresh-installing@installing',
        'cluster:refresh-finalizing@installing',
        'cluster:refresh-installing-failed@installing',
        ...pairs('cluster:refresh-host-pending-user-action', ['installing', 'finalizing']),
        'cluster:refresh-pending-user-action-waiting@installing-pending-user-action',
        'cluster:refresh-pending-user-action-resolved@installing-pending-user-action',
        'cluster:refresh-pending-user-action-finalizing@installing-pending-user-action',
        'cluster:refresh-pending-user-action-failed@installing-pending-user-action',
        'cluster:refresh-pending-user-action-timeout@installing-pending-user-action',
        'cluster:refresh-finalizing-stage-timeout@finalizing',
        'cluster:refresh-finalizing-stage-soft-timeout@finalizing',
        'cluster:refresh-finalizing-timeout@finalizing',
        ...pairs('cluster:refresh-installation-timeout', ['installing', 'finalizing']),
        'cluster:refresh-installed@finalizing',
        'cluster:refresh-unchanged@finalizing',
        'cluster:refresh-unchanged@installed',
      ]);
    }, 90_000);

    it('leaves settled clusters alone and times their logs out', async () => {
      const seen = await scene(async () => {
        for (const status of ['installed', 'error', 'cancelled', 'adding-hosts', 'unmonitored']) {
          const l = await lab();
          await seedCluster(l, status, { logs_info: 'completed' });
          expect((await judgeCluster(l))!.status).toBe(status);
        }
        for (const status of ['error', 'cancelled']) {
          const l = await lab();
          await seedCluster(l, status, { status_updated_at: minutesAgo(11), logs_info: undefined });
          const judged = (await judgeCluster(l))!;
          expect([judged.status, judged.attributes.logs_info]).toEqual([status, 'timeout']);
        }
      });
      expectAnswered(seen, [
        ...pairs('cluster:refresh-unchanged', ['installed', 'error', 'cancelled', 'adding-hosts', 'unmonitored']),
        ...pairs('cluster:refresh-logs-timeout', ['error', 'cancelled']),
      ]);
    });
  });

  it('drove every (rule, source status) pair it owns, except the few this service never raises', () => {
    expect(coverage('clusterRefresh')).toEqual({ missing: [], staleExclusions: [] });
  });
});
