import { describe, expect, it } from 'vitest';
import { isTwoNodesWithFencing, summaryOf } from '../../lambdas/domain/cluster/cluster-hosts.js';
import type { Host } from '../../lambdas/domain/core/entities.js';

const master = (attributes: Record<string, unknown>): Host =>
  ({
    orgId: 'o',
    infraEnvId: 'ie',
    hostId: String(Math.random()),
    clusterId: 'c',
    status: 'known',
    attributes: { role: 'master', ...attributes },
    createdAt: '2026-11-22T10:00:00.000Z',
    updatedAt: '2026-11-22T10:00:00.000Z',
    version: 1,
  }) as Host;

describe('the hosts a cluster judgement reads', () => {
  it("makes a two-node fencing cluster of two masters whose stored hosts carry fencing credentials (upstream's IsClusterTopologyTwoNodesWithFencing)", () => {
    const fencing = { fencing_credentials: '{"address":"https://bmc.example.com","username":"admin","password":"secret"}' };
    expect(isTwoNodesWithFencing([summaryOf(master(fencing)), summaryOf(master(fencing))], 2)).toBe(true);
    expect(isTwoNodesWithFencing([summaryOf(master(fencing)), summaryOf(master({}))], 2)).toBe(false);
    expect(isTwoNodesWithFencing([summaryOf(master(fencing)), summaryOf(master(fencing))], 3)).toBe(false);
  });
});
