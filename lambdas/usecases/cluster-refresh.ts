/**
 * Re-validates a cluster and moves it through its state machine: after a host changed status or
 * validations, after a user's update, and on the monitor's pass. Reads the cluster and its hosts,
 * has the domain judge them (domain/judgement/cluster-judgement.ts: validations, status, the
 * machine network derived from the API VIP and the hosts' interfaces when the user has set none,
 * as upstream does), and writes the judgement with its events.
 */
import type { Cluster, Host } from '../domain/core/entities.js';
import { applyClusterJudgement, judgeCluster } from '../domain/judgement/cluster-judgement.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { causedBy, clusterWrite, recordEvents } from './events.js';
import { refreshHost } from './host-refresh.js';

export interface ClusterRefreshDeps {
  store: Store;
  clock: Clock;
}

/** Judgements of one cluster made again when others keep writing it between a read and the write. */
const JUDGEMENTS_PER_REFRESH = 4;

/** `connectivityNews: false`: the stream saw no host change its connectivity documents read (judgeCluster's option). */
export async function refreshCluster(
  deps: ClusterRefreshDeps,
  key: { orgId: string; clusterId: string },
  preloadedHosts?: Host[],
  options: { connectivityNews?: boolean } = {},
): Promise<Cluster | undefined> {
  const hosts = preloadedHosts ?? (await deps.store.hosts.listByCluster(key));
  for (let judgement = 1; ; judgement++) {
    const cluster = await deps.store.clusters.get(key);
    if (!cluster) return undefined;
    const outcome = await judgeAndWrite(deps, key, cluster, hosts, options);
    // Written, unchanged, or moved by someone else (their status stands): done. Otherwise the
    // cluster changed between the read and the write, and this verdict and its announcements were
    // made on a copy that is no longer the one written: judged again on the current record.
    if (outcome !== STALE) return outcome;
    if (judgement >= JUDGEMENTS_PER_REFRESH) return deps.store.clusters.get(key);
  }
}

const STALE = Symbol('stale');

/** Judges this copy of the cluster and writes the verdict over that very copy, or says it is stale. */
async function judgeAndWrite(
  deps: ClusterRefreshDeps,
  key: { orgId: string; clusterId: string },
  cluster: Cluster,
  hosts: Host[],
  options: { connectivityNews?: boolean },
): Promise<Cluster | undefined | typeof STALE> {
  const now = deps.clock.now();
  const judged = judgeCluster(cluster, hosts, { now, ...(options.connectivityNews === undefined ? {} : { connectivityNews: options.connectivityNews }) });
  if (judged.unchanged) return cluster;
  // Whether this judgement is the one written: judgements of one cluster run at once in several
  // instances (the stream's follow-up, the install workflow, the monitor), and only the one whose
  // conditional write won may announce the move, or "installed" would be announced twice.
  let wrote = false;
  let stale = false;
  const updated = await deps.store.clusters.mutate(key, (current) => {
    wrote = false;
    stale = false;
    // Another refresh or a user's action changed the status meanwhile: theirs stands.
    if (current.status !== judged.status) return undefined;
    if (current.version !== judged.version) {
      stale = true;
      return undefined;
    }
    wrote = true;
    return applyClusterJudgement(current, judged, now.toISOString());
  });
  if (stale) return STALE;
  if (!updated || !wrote) return updated;

  const eventSubject = { orgId: key.orgId, clusterId: key.clusterId };
  await recordEvents(
    deps,
    causedBy(
      clusterWrite(updated),
      judged.events.map((event) => ({ name: event.name, subject: eventSubject, props: event.props })),
    ),
  );
  // Upstream's InstallCluster step: the prepared hosts start installing with the cluster. A failed
  // cluster fails its installed hosts too, as upstream's monitor does: the monitor here no longer
  // watches them, so they are judged now (listed after the write, so a host that finished meanwhile
  // is not missed). Their moves reach the cluster's next judgement through the table's stream.
  if (judged.rejudgeHosts) {
    const targets = judged.rejudgeHosts === 'judged' ? hosts : (await deps.store.hosts.listByCluster(key)).filter((host) => host.status === 'installed');
    for (const host of targets) {
      await refreshHost(deps, { orgId: host.orgId, infraEnvId: host.infraEnvId, hostId: host.hostId }, undefined, { cluster: updated });
    }
  }
  return updated;
}
