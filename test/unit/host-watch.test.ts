/** What the monitor's quiet pass loads: a host only when time alone may have changed its verdict. */
import { describe, expect, it } from 'vitest';
import { clusterAsHostsRead, dueByTime, reconnectsOnPoll } from '../../lambdas/domain/host/host-watch.js';
import type { Cluster } from '../../lambdas/domain/core/entities.js';
import type { HostStatus } from '../../lambdas/domain/host/host-states.js';

const NOW = new Date('2026-11-22T12:00:00.000Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms).toISOString();
const host = (status: HostStatus, checkedInMsAgo?: number) => ({
  status,
  attributes: checkedInMsAgo === undefined ? {} : { checked_in_at: ago(checkedInMsAgo) },
});

describe('dueByTime', () => {
  it.each([
    ['known', 60_000, false],
    ['known', 3 * 60_000, false],
    ['known', 3 * 60_000 + 1, true],
    ['insufficient', 10 * 60_000, true],
    ['discovering-unbound', 4 * 60_000, true],
    ['preparing-successful', 4 * 60_000, true],
    ['disconnected', 4 * 60_000, false],
    ['disconnected', 10_000, true],
    ['disconnected-unbound', 10_000, true],
    ['installed', 60 * 60_000, false],
    ['added-to-existing-cluster', 60 * 60_000, false],
  ] satisfies [HostStatus, number, boolean][])('%s, last poll %d ms ago → %s', (status, msAgo, due) => {
    expect(dueByTime(host(status, msAgo), NOW)).toBe(due);
  });

  it('always loads hosts in statuses with deadlines of their own', () => {
    for (const status of [
      'preparing-for-installation',
      'installing',
      'installing-in-progress',
      'installing-pending-user-action',
      'reclaiming',
      'error',
      'cancelled',
    ] satisfies HostStatus[]) {
      expect(dueByTime(host(status, 1_000), NOW), status).toBe(true);
    }
  });

  it('never times out a host that has not polled yet', () => {
    expect(dueByTime(host('discovering'), NOW)).toBe(false);
  });

  it('honours a configured disconnection limit', () => {
    expect(dueByTime(host('known', 90_000), NOW, { maxDisconnectionMs: 60_000 })).toBe(true);
  });

  it('brings back only disconnected hosts on a poll', () => {
    expect(reconnectsOnPoll('disconnected')).toBe(true);
    expect(reconnectsOnPoll('disconnected-unbound')).toBe(true);
    expect(reconnectsOnPoll('known')).toBe(false);
  });
});

describe('clusterAsHostsRead', () => {
  const cluster = (attributes: Record<string, unknown>, overrides: Record<string, unknown> = {}) =>
    ({
      orgId: 'o',
      clusterId: 'c',
      name: 'n',
      status: 'insufficient',
      version: 1,
      createdAt: 'T0',
      updatedAt: 'T0',
      attributes,
      ...overrides,
    }) as unknown as Cluster;

  it("is the same for a write of the cluster's own verdict alone, in any key order", () => {
    const before = cluster({ api_vips: [{ ip: '10.0.0.5' }], validations_info: '{"a":1}', status_info: 'x', base_dns_domain: 'e.com' });
    const after = cluster(
      {
        base_dns_domain: 'e.com',
        status_info: 'y',
        validations_info: '{"a":2}',
        progress: { total_percentage: 0 },
        status_updated_at: 'T1',
        api_vips: [{ ip: '10.0.0.5' }],
      },
      { version: 2, updatedAt: 'T1' },
    );
    expect(clusterAsHostsRead(after)).toBe(clusterAsHostsRead(before));
  });

  it('differs when anything a host may read changed: a setting, the majority groups, the status', () => {
    const before = cluster({ api_vips: [{ ip: '10.0.0.5' }], connectivity_majority_groups: '{}' });
    expect(clusterAsHostsRead(cluster({ api_vips: [{ ip: '10.0.0.6' }], connectivity_majority_groups: '{}' }))).not.toBe(clusterAsHostsRead(before));
    expect(clusterAsHostsRead(cluster({ api_vips: [{ ip: '10.0.0.5' }], connectivity_majority_groups: '{"a":[]}' }))).not.toBe(clusterAsHostsRead(before));
    expect(clusterAsHostsRead(cluster(before.attributes, { status: 'ready' }))).not.toBe(clusterAsHostsRead(before));
  });
});
