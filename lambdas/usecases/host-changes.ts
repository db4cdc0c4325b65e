/**
 * Follows stored host changes (the table's stream): re-judges hosts waiting on their peers when a
 * report they read changed, confirms verdicts that lost a peer-dependent validation on a fresh
 * listing, and re-judges each changed cluster. Requests that change hosts return without waiting
 * for any of this; it runs once per batch and cluster, however many of its hosts changed.
 */
import { followUps, isNewsToWatchers, type ClusterFollowUp, type HostChange } from '../domain/host/host-changes.js';
import type { Host, InfraEnv } from '../domain/core/entities.js';
import { waitsOnPeers } from '../domain/host/host-watch.js';
import { forEachBounded } from '../domain/core/bounded-concurrency.js';
import { refreshCluster } from './cluster-refresh.js';
import { FRESH_PEER_LISTINGS_UP_TO } from './cluster-peer-listings.js';
import { refreshLoadedHost, type RefreshDeps } from './host-refresh.js';

/** Host judgements in flight at once for one cluster. */
const PEER_REJUDGEMENTS_IN_FLIGHT = 8;

export interface HostChangesOutcome {
  clusters: number;
  hostsRejudged: number;
  /** For each cluster whose follow-up failed, the first change that asked for it: retried from there. */
  failedChangeIds: string[];
}

export async function followHostChanges(
  deps: RefreshDeps,
  changes: readonly HostChange[],
  onFailure: (cluster: ClusterFollowUp['cluster'], error: unknown) => void = () => undefined,
): Promise<HostChangesOutcome> {
  const outcome: HostChangesOutcome = { clusters: 0, hostsRejudged: 0, failedChangeIds: [] };
  await recordNews(deps, changes, outcome);
  for (const followUp of followUps(changes)) {
    try {
      outcome.hostsRejudged += await followCluster(deps, followUp);
      outcome.clusters += 1;
    } catch (error) {
      outcome.failedChangeIds.push(followUp.firstChangeId);
      onFailure(followUp.cluster, error);
    }
  }
  return outcome;
}

/**
 * Each host whose change was news to its watchers gets its news version recorded (the latest of
 * the batch per host), so that the monitor can tell a cluster whose hosts changed what peers read
 * from one whose hosts only refreshed their own reports: only the former is judged whole (clusters
 * above FRESH_PEER_LISTINGS_UP_TO hosts converge there). A record delivered again records nothing new.
 */
async function recordNews(deps: RefreshDeps, changes: readonly HostChange[], outcome: HostChangesOutcome): Promise<void> {
  const latest = new Map<string, { change: HostChange; host: Host }>();
  for (const change of changes) {
    const host = change.after;
    if (!host?.clusterId || !isNewsToWatchers(change.before, host)) continue;
    const id = `${host.orgId}/${host.infraEnvId}/${host.hostId}`;
    if ((latest.get(id)?.host.version ?? -1) < host.version) latest.set(id, { change, host });
  }
  await forEachBounded([...latest.values()], PEER_REJUDGEMENTS_IN_FLIGHT, async ({ change, host }) => {
    try {
      await deps.store.hosts.recordNews({ orgId: host.orgId, infraEnvId: host.infraEnvId, hostId: host.hostId }, host.version);
    } catch {
      outcome.failedChangeIds.push(change.id);
    }
  });
}

/**
 * The cluster's own settings changed (networks, VIPs, platform, operators: what host validations
 * read): its hosts are judged again now, as upstream's cluster update refreshes them, so the next
 * poll of the UI shows their verdicts on what the user just set. Above FRESH_PEER_LISTINGS_UP_TO
 * hosts, the monitor's whole judgement does it within its minute.
 */
export async function rejudgeClusterHosts(deps: RefreshDeps, cluster: ClusterFollowUp['cluster']): Promise<number> {
  return followCluster(deps, { cluster, firstChangeId: 'cluster-update', peerNews: false, lostPeerVerdicts: [], connectivityNews: true }, { everyHost: true });
}

async function followCluster(deps: RefreshDeps, followUp: ClusterFollowUp, options: { everyHost?: boolean } = {}): Promise<number> {
  // Listed after the changes were written: it shows every one of them, and whatever came since.
  let hosts = await deps.store.hosts.listByCluster(followUp.cluster);
  // The cluster first: its judgement may derive the machine network its hosts are judged against.
  const cluster = await refreshCluster(deps, followUp.cluster, hosts, { connectivityNews: followUp.connectivityNews });
  if (!cluster) return 0;
  const isLost = (host: Host) => followUp.lostPeerVerdicts.some((ref) => ref.hostId === host.hostId && ref.infraEnvId === host.infraEnvId);
  // In larger clusters a judgement per waiting host per batch would grow with the square of the
  // cluster; there the monitor's whole judgement converges peer verdicts.
  const targets =
    hosts.length > FRESH_PEER_LISTINGS_UP_TO
      ? []
      : hosts.filter((host) => options.everyHost || (followUp.peerNews && waitsOnPeers(host.status)) || isLost(host));
  if (targets.length === 0) return 0;
  const infraEnvs = new Map<string, Promise<InfraEnv | undefined>>();
  const infraEnvOf = (host: Host) => {
    let found = infraEnvs.get(host.infraEnvId);
    if (!found) infraEnvs.set(host.infraEnvId, (found = deps.store.infraEnvs.get({ orgId: host.orgId, infraEnvId: host.infraEnvId })));
    return found;
  };
  const listing = hosts;
  const written = new Map<Host, Host>();
  await forEachBounded(targets, PEER_REJUDGEMENTS_IN_FLIGHT, async (host) => {
    const judged = await refreshLoadedHost(deps, host, { cluster, clusterHosts: listing, infraEnv: await infraEnvOf(host) });
    if (judged && judged.version !== host.version) written.set(host, judged);
  });
  // Hosts that moved now move their cluster now, rather than one stream delivery later (their
  // changes still arrive, and find nothing more to do).
  if ([...written].some(([before, after]) => before.status !== after.status)) {
    hosts = hosts.map((host) => written.get(host) ?? host);
    await refreshCluster(deps, followUp.cluster, hosts, { connectivityNews: followUp.connectivityNews });
  }
  return targets.length;
}
