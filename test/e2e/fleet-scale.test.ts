/**
 * The fleet bench's scenario as a smoke check (issue #22): FLEET_SMOKE_CLUSTERS small clusters
 * (default 60; 90 % single-node, 10 % compact, half through REST and half through
 * `assisted ztp apply`) created by automation, their SIMULATED hosts booted with each
 * infra-env's own agent token, every install followed to `installed` and a kubeconfig download.
 * It asserts that nothing fails, not how fast: timing belongs to `npm run bench -- fleet`.
 * Polls and waits are FASTER than upstream's here (labelled so in the bench's output) so the
 * scenario fits in CI.
 */
import { describe, expect, it } from 'vitest';
import { fleet } from '../../bench/fleet.js';

const CLUSTERS = Number(process.env.FLEET_SMOKE_CLUSTERS ?? 60);

describe('a fleet of small clusters installing at once', () => {
  it(`installs ${CLUSTERS} clusters created by automation, with no failure`, async () => {
    const result = await fleet({
      clusters: CLUSTERS,
      inFlight: 40,
      rampMs: 10_000,
      pollSeconds: 5,
      watchSeconds: 3,
      controllerPollSeconds: 3,
      stageMs: 100,
      clusterTimeoutMs: 900_000,
      installPollSeconds: 3,
      out: false,
    });
    expect(result.failures).toEqual({});
    expect(result.failedInstalls).toBe(0);
    expect(result.installed).toBe(CLUSTERS);
    // Every cluster kind and both ways of creating them took part.
    expect(result.byKind).toMatchObject({ sno: expect.any(Number), compact: expect.any(Number) });
    expect(result.byChannel).toMatchObject({ rest: expect.any(Number), ztp: expect.any(Number) });
    expect(result.peakConnectedHosts).toBeGreaterThan(0);
    expect(Object.keys(result.serverErrors)).toEqual([]);
  }, 1_800_000);
});
