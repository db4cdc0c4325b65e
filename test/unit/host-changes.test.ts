/** What a stored host change asks of its cluster (domain/host/host-changes.ts): the stream's follow-ups. */
import { describe, expect, it } from 'vitest';
import type { Host } from '../../lambdas/domain/core/entities.js';
import { concernsCluster, followUps, isNewsToWatchers } from '../../lambdas/domain/host/host-changes.js';
import { CLOCK_NEWS_SECONDS } from '../../lambdas/domain/host/host-clock.js';

const T0 = Date.parse('2026-11-27T12:00:00Z');

function host(overrides: Partial<Host> = {}, attributes: Record<string, unknown> = {}): Host {
  return {
    orgId: 'org',
    infraEnvId: 'ie',
    hostId: 'h1',
    clusterId: 'c1',
    status: 'known',
    version: 1,
    createdAt: new Date(T0).toISOString(),
    updatedAt: new Date(T0).toISOString(),
    ...overrides,
    attributes: { role: 'master', timestamp: T0 / 1000, checked_in_at: new Date(T0).toISOString(), ...attributes },
  };
}

/** The host checking in `seconds` later, its clock `drift` seconds further off the service's. */
const checkIn = (from: Host, seconds: number, drift = 0) =>
  host(
    { version: from.version + 1 },
    {
      ...from.attributes,
      timestamp: (from.attributes.timestamp as number) + seconds + drift,
      checked_in_at: new Date(Date.parse(from.attributes.checked_in_at as string) + seconds * 1000).toISOString(),
    },
  );

describe('host changes and their cluster', () => {
  it('a check-in of a steady clock asks nothing of the cluster: its reading moves, its offset does not', () => {
    const before = host();
    const after = checkIn(before, 60);
    expect(concernsCluster(before, after)).toBe(false);
    expect(followUps([{ id: '1', before, after }])).toEqual([]);
  });

  it('a clock that moved against the service by the threshold or more is news for the cluster (its clock spread)', () => {
    const before = host();
    expect(concernsCluster(before, checkIn(before, 60, CLOCK_NEWS_SECONDS - 1))).toBe(false);
    expect(concernsCluster(before, checkIn(before, 60, CLOCK_NEWS_SECONDS))).toBe(true);
    expect(concernsCluster(before, checkIn(before, 60, -CLOCK_NEWS_SECONDS))).toBe(true);
  });

  it('a first clock reading, or one without its check-in time, is news', () => {
    const unread = host({}, { timestamp: undefined });
    expect(concernsCluster(unread, host())).toBe(true);
    const untimed = host({}, { checked_in_at: undefined });
    expect(concernsCluster(untimed, host({}, { checked_in_at: undefined, timestamp: T0 / 1000 + 60 }))).toBe(true);
  });

  it('a status, stage, role or cluster change is news as before', () => {
    const before = host();
    expect(concernsCluster(before, host({ status: 'insufficient' }))).toBe(true);
    expect(concernsCluster(before, host({}, { role: 'worker' }))).toBe(true);
    expect(concernsCluster(before, host({}, { progress: { current_stage: 'Rebooting' } }))).toBe(true);
    const moved = followUps([{ id: '1', before, after: host({ clusterId: 'c2' }) }]);
    expect(moved.map((f) => f.cluster.clusterId).sort()).toEqual(['c1', 'c2']);
  });

  it('new fencing credentials are news for the cluster and the peers: two masters with them make a two-node fencing cluster', () => {
    const before = host();
    const after = host({}, { fencing_credentials: '{"address":"https://bmc0.example.com"}' });
    expect(concernsCluster(before, after)).toBe(true);
    expect(followUps([{ id: '1', before, after }])).toEqual([
      { cluster: { orgId: 'org', clusterId: 'c1' }, firstChangeId: '1', peerNews: true, lostPeerVerdicts: [], connectivityNews: true },
    ]);
  });

  it('a changed connectivity report is peer news even when the cluster reads nothing else of it', () => {
    const before = host({}, { connectivity: '{"remote_hosts":[]}' });
    const after = host({}, { connectivity: '{"remote_hosts":[{"host_id":"h2"}]}' });
    expect(followUps([{ id: '1', before, after }])).toEqual([
      { cluster: { orgId: 'org', clusterId: 'c1' }, firstChangeId: '1', peerNews: true, lostPeerVerdicts: [], connectivityNews: true },
    ]);
  });

  it('says whether a change moved what the connectivity documents read: a host come or gone, its addresses, who answered, its role or fencing', () => {
    const before = host({}, { inventory: '{"interfaces":[]}', connectivity: '{"remote_hosts":[]}' });
    const newsOf = (after: Host | undefined, was: Host | undefined = before) =>
      followUps([{ id: '1', ...(was ? { before: was } : {}), ...(after ? { after } : {}) }])[0]?.connectivityNews;
    // A status moved: the cluster is judged, its documents are not recomputed.
    expect(newsOf(host({ status: 'insufficient', version: 2 }, before.attributes))).toBe(false);
    expect(newsOf(host({ version: 2 }, { ...before.attributes, inventory: '{"interfaces":[{"name":"eth1"}]}' }))).toBe(true);
    expect(newsOf(host({ version: 2 }, { ...before.attributes, connectivity: '{"remote_hosts":[{"host_id":"h2"}]}' }))).toBe(true);
    expect(newsOf(host({ version: 2 }, { ...before.attributes, role: 'worker' }))).toBe(true);
    expect(newsOf(host({ version: 2 }, { ...before.attributes, fencing_credentials: '{"address":"https://bmc0.example.com"}' }))).toBe(true);
    // Registered, or gone.
    expect(followUps([{ id: '1', after: before }])[0]?.connectivityNews).toBe(true);
    expect(newsOf(undefined)).toBe(true);
  });

  describe('connectivity reports: only who answered is news to peers', () => {
    const report = (rtt: number, peer: { l2?: boolean; l3?: boolean; mac?: string } = {}) =>
      JSON.stringify({
        remote_hosts: [
          {
            host_id: 'h2',
            l2_connectivity: [
              { outgoing_nic: 'eth0', remote_ip_address: '10.0.0.2', remote_mac: peer.mac ?? 'aa:bb:cc:dd:ee:02', successful: peer.l2 ?? true },
            ],
            l3_connectivity: [
              { outgoing_nic: 'eth0', remote_ip_address: '10.0.0.2', successful: peer.l3 ?? true, average_rtt_ms: rtt, packet_loss_percentage: 0 },
            ],
            mtu_report: [{ outgoing_nic: 'eth0', remote_ip_address: '10.0.0.2', mtu_successful: true }],
          },
        ],
      });
    const followUpsOf = (before: string, after: string) =>
      followUps([{ id: '1', before: host({}, { connectivity: before }), after: host({ version: 2 }, { connectivity: after }) }]);

    it('a report whose round-trip times alone moved asks nothing: its peers read no latency', () => {
      expect(followUpsOf(report(0.4), report(1.7))).toEqual([]);
    });

    it('a peer that stopped answering over L2 or L3, or answered from another MAC, is news', () => {
      for (const after of [report(0.4, { l2: false }), report(0.4, { l3: false }), report(0.4, { mac: 'aa:bb:cc:dd:ee:99' })]) {
        expect(followUpsOf(report(0.4), after)).toEqual([
          { cluster: { orgId: 'org', clusterId: 'c1' }, firstChangeId: '1', peerNews: true, lostPeerVerdicts: [], connectivityNews: true },
        ]);
      }
    });

    it('the same answers listed in another order are no news; an unreadable report always is', () => {
      const twoPeers = (order: string[]) =>
        JSON.stringify({
          remote_hosts: order.map((id) => ({ host_id: id, l3_connectivity: [{ remote_ip_address: `10.0.0.${id.slice(1)}`, successful: true }] })),
        });
      expect(followUpsOf(twoPeers(['h2', 'h3']), twoPeers(['h3', 'h2']))).toEqual([]);
      expect(followUpsOf(report(0.4), '{not json')).toHaveLength(1);
    });
  });
});

describe('isNewsToWatchers: what the monitor of a large cluster must judge whole for', () => {
  it("a host's own verdict text, or a report peers do not read, is no news; what peers or the cluster read is", () => {
    const before = host({}, { validations_info: '{"hardware":[]}', ntp_sources: '[]' });
    expect(isNewsToWatchers(before, host({ version: 2 }, { ...before.attributes, validations_info: '{"hardware":[{"id":"x"}]}' }))).toBe(false);
    expect(isNewsToWatchers(before, host({ version: 2 }, { ...before.attributes, ntp_sources: '[{"source_name":"a"}]' }))).toBe(false);
    expect(isNewsToWatchers(before, host({ version: 2 }, { ...before.attributes, inventory: '{"hostname":"n"}' }))).toBe(true);
    expect(isNewsToWatchers(before, host({ version: 2 }, { ...before.attributes, requested_hostname: 'n' }))).toBe(true);
    expect(isNewsToWatchers(before, host({ version: 2, status: 'insufficient' }, before.attributes))).toBe(true);
    expect(isNewsToWatchers(undefined, before)).toBe(true);
  });
});
