/**
 * The verdict on a cluster, reached directly in the domain (domain/judgement/cluster-judgement.ts):
 * no store, no runtime. The fixture is host-validation-lab's healthy five-host cluster.
 */
import { describe, expect, it } from 'vitest';
import { CONNECTIVITY_DOCUMENTS_MARK } from '../../lambdas/domain/cluster/cluster-connectivity.js';
import { customManifestFeatureUsage } from '../../lambdas/domain/cluster/feature-usage.js';
import type { Cluster, Host } from '../../lambdas/domain/core/entities.js';
import { applyClusterJudgement, judgeCluster } from '../../lambdas/domain/judgement/cluster-judgement.js';
import { clusterView } from '../../lambdas/domain/cluster/cluster-document.js';
import { CONNECTIVITY_GROUPS_FOR_FENCING } from '../../lambdas/domain/host/validations/host-validations-model.js';
import { HEALTHY, hostRecord, NOW, world, type MachineName } from '../support/host-validation-lab.js';

/** The healthy cluster and its hosts, each host in the status given (known by default). */
function cluster(statuses: Partial<Record<MachineName, Host['status']>> = {}): { cluster: Cluster; hosts: Host[] } {
  const w = world();
  const hosts = HEALTHY.map((name, index): Host => ({ ...hostRecord(w, name, index), status: statuses[name] ?? 'known' }));
  // What the user gave and the agents verified: the pull secret, and VIPs found free.
  const record: Cluster = { ...w.cluster!, pullSecret: 'redacted' };
  record.attributes.api_vips = [{ ip: '192.168.111.5', verification: 'succeeded' }];
  record.attributes.ingress_vips = [{ ip: '192.168.111.4', verification: 'succeeded' }];
  return { cluster: record, hosts };
}

describe('the verdict on a cluster', () => {
  it('is ready once every host is known and every cluster validation passes', () => {
    const { cluster: record, hosts } = cluster();
    const judgement = judgeCluster(record, hosts, { now: NOW });
    expect(judgement.results.filter((result) => result.status === 'failure')).toEqual([]);
    expect(judgement.move?.status).toBe('ready');
    expect(judgement.unchanged).toBe(false);
    const written = applyClusterJudgement(record, judgement, NOW.toISOString());
    expect(written).toMatchObject({ status: 'ready', attributes: { status_info: judgement.move!.statusInfo, status_updated_at: NOW.toISOString() } });
    expect(JSON.parse(written.attributes.validations_info as string)).toHaveProperty('hosts-data');
    expect(judgement.events.map((event) => event.name)).toContain('cluster_status_updated');
    // Judged again as written, nothing is left to change.
    expect(judgeCluster(written, hosts, { now: NOW }).unchanged).toBe(true);
  });

  it("takes a third-party CNI's manifests as uploaded once the feature usage records the user's manifests, as upstream's validation reads it", () => {
    const { cluster: record, hosts } = cluster();
    record.attributes.network_type = 'Cilium';
    const verdict = (featureUsage?: string) =>
      judgeCluster({ ...record, attributes: { ...record.attributes, feature_usage: featureUsage } }, hosts, { now: NOW }).results.find(
        (result) => result.id === 'custom-manifests-requirements-satisfied',
      )?.status;
    expect(verdict()).toBe('failure');
    expect(verdict(JSON.stringify({ 'Custom manifest': { id: 'CUSTOM_MANIFEST', name: 'Custom manifest' } }))).toBe('success');
  });

  it('stays insufficient while a host is insufficient, and says why', () => {
    const { cluster: record, hosts } = cluster({ 'worker-1': 'insufficient' });
    const judgement = judgeCluster(record, hosts, { now: NOW });
    expect(judgement.move?.status ?? record.status).toBe('insufficient');
    const allHostsReady = judgement.results.find((result) => result.id === 'all-hosts-are-ready-to-install');
    expect(allHostsReady).toMatchObject({ status: 'failure' });
    expect(allHostsReady!.message).toMatch(/^[^\n]+$/);
  });

  it('stays insufficient without enough masters', () => {
    const { cluster: record, hosts } = cluster();
    const judgement = judgeCluster(
      record,
      hosts.filter((host) => host.attributes.role !== 'master' || host.hostId.endsWith('0')),
      { now: NOW },
    );
    expect(judgement.move?.status ?? record.status).toBe('insufficient');
    expect(judgement.results.find((result) => result.id === 'sufficient-masters-count')).toMatchObject({ status: 'failure' });
  });

  it("gives a cluster its connectivity documents from its first judgement, hosts or none (upstream's first monitor pass)", () => {
    const { cluster: record, hosts } = cluster();
    expect(judgeCluster(record, hosts, { now: NOW }).connectivity).toBeDefined();
    expect(judgeCluster(record, [], { now: NOW }).connectivity).toMatchObject({ ip_collisions: '{}' });
  });

  it('reads no host report without connectivity news while the stored documents were computed at the status the cluster is in', () => {
    const { cluster: record, hosts } = cluster();
    const written = applyClusterJudgement(record, judgeCluster(record, hosts, { now: NOW }), NOW.toISOString());
    expect(written.attributes[CONNECTIVITY_DOCUMENTS_MARK]).toBe(`ready@${NOW.toISOString()}`);
    // Judged again as written, with news or without, nothing is left to change.
    expect(judgeCluster(written, hosts, { now: NOW, connectivityNews: false }).unchanged).toBe(true);
    expect(judgeCluster(written, hosts, { now: NOW }).unchanged).toBe(true);
    // Reports that went silent (the stream would call it news): without news they are not read at all.
    const silent = hosts.map((host) => ({ ...host, attributes: { ...host.attributes, connectivity: '{"remote_hosts":[]}' } }));
    expect(judgeCluster(written, silent, { now: NOW, connectivityNews: false }).connectivity).toBeUndefined();
    const recomputed = judgeCluster(written, silent, { now: NOW, connectivityNews: true }).connectivity;
    expect(recomputed).toBeDefined();
    expect(recomputed!.connectivity_majority_groups).not.toBe(written.attributes.connectivity_majority_groups);
    // Back in a configuring state since another time (reports may have moved meanwhile, unread), or
    // stored before the mark existed: computed, news or not.
    const back: Cluster = { ...written, status: 'insufficient', attributes: { ...written.attributes, status_updated_at: '2030-01-01T00:00:00.000Z' } };
    expect(judgeCluster(back, silent, { now: NOW, connectivityNews: false }).connectivity).toEqual(recomputed);
    const { [CONNECTIVITY_DOCUMENTS_MARK]: _mark, ...unmarked } = written.attributes;
    expect(judgeCluster({ ...written, attributes: unmarked }, silent, { now: NOW, connectivityNews: false }).connectivity).toEqual(recomputed);
  });

  it("moves the held documents' mark with the judgement's own move between configuring statuses, so judging again writes nothing", () => {
    const { cluster: record, hosts } = cluster();
    const written = applyClusterJudgement(record, judgeCluster(record, hosts, { now: NOW }), NOW.toISOString());
    const since = '2029-12-31T00:00:00.000Z';
    // The same documents, computed while the cluster was insufficient: held without news, and the judgement moves it to ready.
    const insufficient: Cluster = {
      ...written,
      status: 'insufficient',
      attributes: { ...written.attributes, status_updated_at: since, [CONNECTIVITY_DOCUMENTS_MARK]: `insufficient@${since}` },
    };
    const judged = judgeCluster(insufficient, hosts, { now: NOW, connectivityNews: false });
    expect(judged.move?.status).toBe('ready');
    expect(judged.connectivity).toBeUndefined();
    expect(judged.markFollowsMove).toBe(true);
    const later = '2030-01-02T00:00:00.000Z';
    const moved = applyClusterJudgement(insufficient, judged, later);
    expect(moved.attributes[CONNECTIVITY_DOCUMENTS_MARK]).toBe(`ready@${later}`);
    expect(judgeCluster(moved, hosts, { now: new Date(later), connectivityNews: false }).unchanged).toBe(true);
  });

  it('records the topology its connectivity groups were computed for (two-node fencing or not), and its change alone is one to write', () => {
    const w = world(['master-0', 'master-1']);
    const record: Cluster = { ...w.cluster!, pullSecret: 'redacted' };
    record.attributes.control_plane_count = 2;
    const hosts = (['master-0', 'master-1'] as const).map((name, index): Host => ({ ...hostRecord(w, name, index), status: 'insufficient' }));
    const judged = judgeCluster(record, hosts, { now: NOW });
    expect(judged.connectivityForFencing).toBe(false);
    const written = applyClusterJudgement(record, judged, NOW.toISOString());
    expect(written.attributes[CONNECTIVITY_GROUPS_FOR_FENCING]).toBe(false);
    // Not in the API.
    expect(clusterView(written)).not.toHaveProperty(CONNECTIVITY_GROUPS_FOR_FENCING);
    // Both masters get fencing credentials: the groups are those of a majority of 2 from the next judgement.
    for (const host of hosts)
      host.attributes.fencing_credentials = JSON.stringify({ address: 'https://bmc.example.com', username: 'admin', password: 'secret' });
    const next = judgeCluster(written, hosts, { now: NOW });
    expect(next.connectivityForFencing).toBe(true);
    const rewritten = applyClusterJudgement(written, next, NOW.toISOString());
    expect(rewritten.attributes[CONNECTIVITY_GROUPS_FOR_FENCING]).toBe(true);
    expect(judgeCluster(rewritten, hosts, { now: NOW }).unchanged).toBe(true);
    // The same documents recorded for the other topology: the record alone is written again.
    const recordedForThree = { ...rewritten, attributes: { ...rewritten.attributes, [CONNECTIVITY_GROUPS_FOR_FENCING]: false } };
    const again = judgeCluster(recordedForThree, hosts, { now: NOW });
    expect(again.unchanged).toBe(false);
    expect(again.connectivityForFencing).toBe(true);
  });

  it("reads the user's manifests from the cluster's feature usage for a CNI that needs them (upstream's 'Custom manifest' usage)", () => {
    const { cluster: record, hosts } = cluster();
    record.attributes.network_type = 'Cilium';
    const verdict = (featureUsage?: string) => {
      record.attributes.feature_usage = featureUsage;
      return judgeCluster(record, hosts, { now: NOW }).results.find((result) => result.id === 'custom-manifests-requirements-satisfied')?.status;
    };
    expect(verdict()).toBe('failure');
    expect(verdict(customManifestFeatureUsage(undefined, true))).toBe('success');
    expect(verdict(customManifestFeatureUsage(customManifestFeatureUsage(undefined, true), false))).toBe('failure');
  });

  it('asks for the prepared hosts to be judged again when the cluster starts installing', () => {
    const { cluster: record, hosts } = cluster(Object.fromEntries(HEALTHY.map((name) => [name, 'preparing-successful' as const])));
    record.status = 'preparing-for-installation';
    record.attributes.install_started_at = NOW.toISOString();
    record.attributes.last_installation_preparation = { status: 'success', reason: '' };
    const judgement = judgeCluster(record, hosts, { now: NOW });
    expect(judgement.move?.status).toBe('installing');
    expect(judgement.rejudgeHosts).toBe('judged');
    expect(applyClusterJudgement(record, judgement, NOW.toISOString()).attributes.progress).toBeDefined();
  });
});
