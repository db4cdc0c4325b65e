/**
 * `npm run bench -- versus-upstream` at a tiny scale (1 cluster of 5 hosts, 2 of 3, one round): the
 * bench starts both services, drives all three workloads and prints its closing lines. It asserts
 * that every request was answered as expected and that each figure was measured, never how fast:
 * timing belongs to the bench.
 */
import { describe, expect, it } from 'vitest';
import { summaryLine, versusUpstream, WORKLOADS } from '../../bench/versus-upstream.js';

describe('the versus-upstream bench at a tiny scale', () => {
  it('drives registrations, inventory replies and polls on both sides, and summarises each', async () => {
    const { runs, summaries } = await versusUpstream({
      shapes: [
        { clusters: 1, hostsPerCluster: 5 },
        { clusters: 2, hostsPerCluster: 3 },
      ],
      rounds: 1,
      settleMs: 500,
      judgeTimeoutMs: 60_000,
      verbose: false,
      floorCalls: 40,
    });
    expect(runs.map((run) => `${run.side} ${run.shape}`).sort()).toEqual(['ours 1x5', 'ours 2x3', 'upstream 1x5', 'upstream 2x3']);
    for (const run of runs) {
      const hosts = run.shape === '1x5' ? 5 : 6;
      expect(run.phases.registrations).toMatchObject({ requests: hosts, errors: 0 });
      expect(run.phases['inventory-replies']).toMatchObject({ requests: hosts, errors: 0 });
      expect(run.phases.polls).toMatchObject({ requests: 2 * hosts, errors: 0 });
      // Every host judged before the polls: none left discovering.
      expect(Object.values(run.statusMix).reduce((a, b) => a + b, 0)).toBe(hosts);
      expect(run.statusMix.discovering).toBeUndefined();
      for (const workload of WORKLOADS) {
        expect(run.phases[workload].serviceCpuMsPerRequest).toBeGreaterThanOrEqual(0);
        // Both sides' DB calls are counted (the proxy before DynamoDB Local; pg_stat_database).
        expect(run.phases[workload].dbCallsPerRequest).toBeGreaterThanOrEqual(0);
      }
      // Ours: the floor of DynamoDB Local's own CPU for the calls each path made, measured in this run.
      if (run.side === 'ours') {
        expect(run.phases.registrations.databaseFloorMsPerRequest).toBeGreaterThan(0);
        expect(run.phases['inventory-replies'].databaseFloorMsPerRequest).toBeGreaterThan(0);
      }
    }
    expect(summaries.map(summaryLine)).toHaveLength(6);
    for (const line of summaries.map(summaryLine))
      expect(line).toMatch(
        /^versus-upstream (registrations|inventory-replies|polls) (1x5|2x3): ours\/upstream = \d+\.\d\d \(ours [\d.]+\/s, upstream [\d.]+\/s\)$/,
      );
  }, 600_000);
});
