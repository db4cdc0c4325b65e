/**
 * What a stored change of a host means for the rest of its cluster, decided from the record as it
 * was and as it is (a DynamoDB stream record's old and new images). The cluster's verdict follows
 * its hosts; hosts waiting on their peers follow the reports their peers' validations read. These
 * follow-ups run after the write that caused them, never inside the request that made it.
 */
import type { Host } from '../core/entities.js';
import { peerValidationLost } from './validations/host-validations.js';
import { reachabilityChanged } from './validations/host-validations-connectivity.js';
import { clockMoved } from './host-clock.js';

export interface HostChange {
  /** Where the change stands in its stream (the record's sequence number): failures are reported by it. */
  id: string;
  before?: Host;
  after?: Host;
}

export interface ClusterRef {
  orgId: string;
  clusterId: string;
}

export interface HostRef {
  orgId: string;
  infraEnvId: string;
  hostId: string;
}

export interface ClusterFollowUp {
  cluster: ClusterRef;
  /** The first change that asked for it: a follow-up that fails is retried from there. */
  firstChangeId: string;
  /** A report its peers' validations read changed: hosts waiting on their peers are judged again. */
  peerNews: boolean;
  /** Hosts whose verdict lost a peer-dependent validation: judged again on a fresh listing of their peers. */
  lostPeerVerdicts: HostRef[];
  /**
   * A change moved what the cluster's connectivity documents read (a host came or went, its
   * addresses, who its report says answered, its role or fencing): without one, its judgement
   * reads no host's report (judgeCluster's connectivityNews).
   */
  connectivityNews: boolean;
}

/**
 * What the cluster's judgement reads of each host (cluster-refresh's summaryOf and validation input),
 * but for the host's clock reading (`timestamp`), which every check-in moves: see clockMoved.
 */
const READ_BY_CLUSTER = ['role', 'suggested_role', 'bootstrap', 'inventory', 'free_addresses', 'installation_disk_id', 'fencing_credentials'] as const;
/**
 * What hosts' peer-dependent validations read of their peers (fencing credentials make two masters
 * a two-node fencing cluster, whose majority is 2); of the connectivity report, only
 * who answered (reachabilityChanged): a report whose round-trip times alone moved is no news.
 */
const READ_BY_PEERS = ['inventory', 'api_vip_connectivity', 'requested_hostname', 'fencing_credentials'] as const;

/**
 * What the cluster's connectivity documents read of a host besides its report's reachability
 * (clusterConnectivityDocuments): its addresses, and the roles and fencing that make a two-node
 * fencing cluster, whose majority is 2.
 */
const READ_BY_CONNECTIVITY_DOCUMENTS = ['inventory', 'role', 'suggested_role', 'fencing_credentials'] as const;

const currentStage = (host: Host | undefined) => host?.attributes.progress?.current_stage;
const changed = (before: Host | undefined, after: Host | undefined, names: readonly string[]) =>
  names.some((name) => before?.attributes[name] !== after?.attributes[name]);

/** Whether the change can move the verdict of the host's cluster. */
export function concernsCluster(before: Host | undefined, after: Host | undefined): boolean {
  if (!before || !after) return true;
  return (
    before.clusterId !== after.clusterId ||
    before.status !== after.status ||
    currentStage(before) !== currentStage(after) ||
    changed(before, after, READ_BY_CLUSTER) ||
    clockMoved(before, after)
  );
}

const refOf = (host: Host): HostRef => ({ orgId: host.orgId, infraEnvId: host.infraEnvId, hostId: host.hostId });

/**
 * The follow-ups a batch of changes asks for, one per cluster, in the order their first change
 * came. Replaying a change, or any number of them, asks for the same follow-ups: each re-judges
 * what is stored now, so a duplicate or late record changes nothing that a fresh judgement would not.
 */
const isPeerNews = (before: Host | undefined, after: Host | undefined) =>
  changed(before, after, READ_BY_PEERS) || reachabilityChanged(before?.attributes.connectivity, after?.attributes.connectivity);
const isConnectivityNews = (before: Host | undefined, after: Host | undefined) =>
  !before ||
  !after ||
  changed(before, after, READ_BY_CONNECTIVITY_DOCUMENTS) ||
  reachabilityChanged(before.attributes.connectivity, after.attributes.connectivity);
const lostPeerVerdict = (before: Host | undefined, after: Host | undefined) =>
  !!before && !!after && peerValidationLost(before.attributes.validations_info, after.attributes.validations_info);

/**
 * Whether a stored change of a host is news to the judgements that watch its cluster: it can move
 * the cluster's verdict, its peers' verdicts, or its own peer-dependent verdict. Other changes (its
 * own verdict's text, a connectivity report whose round-trip times alone moved, a steady clock's
 * reading) were judged by the write that made them and ask nothing more. The same rule as followUps.
 */
export function isNewsToWatchers(before: Host | undefined, after: Host | undefined): boolean {
  return concernsCluster(before, after) || isPeerNews(before, after) || lostPeerVerdict(before, after);
}

export function followUps(changes: readonly HostChange[]): ClusterFollowUp[] {
  const byCluster = new Map<string, ClusterFollowUp>();
  const consider = (change: HostChange, clusterId: string, before: Host | undefined, after: Host | undefined) => {
    const host = (after ?? before)!;
    const peerNews = isPeerNews(before, after);
    const lost = lostPeerVerdict(before, after);
    if (!concernsCluster(before, after) && !peerNews && !lost) return;
    const key = `${host.orgId}/${clusterId}`;
    let followUp = byCluster.get(key);
    if (!followUp) {
      followUp = { cluster: { orgId: host.orgId, clusterId }, firstChangeId: change.id, peerNews: false, lostPeerVerdicts: [], connectivityNews: false };
      byCluster.set(key, followUp);
    }
    followUp.peerNews ||= peerNews;
    followUp.connectivityNews ||= isConnectivityNews(before, after);
    if (lost && !followUp.lostPeerVerdicts.some((ref) => ref.hostId === host.hostId && ref.infraEnvId === host.infraEnvId))
      followUp.lostPeerVerdicts.push(refOf(host));
  };
  for (const change of changes) {
    const { before, after } = change;
    if (after?.clusterId) consider(change, after.clusterId, before?.clusterId === after.clusterId ? before : undefined, after);
    // A host that left its cluster (unbound, deleted) changes the cluster it left.
    if (before?.clusterId && before.clusterId !== after?.clusterId) consider(change, before.clusterId, before, undefined);
  }
  return [...byCluster.values()];
}
