/**
 * The periodic pass over watched hosts. Writes re-judge what they touch at once (a reply its host,
 * a status change its cluster), so what is left to the monitor is (1) what only time changes (a
 * host that stopped polling, a deadline passed) and (2) what a change to one host means for its
 * peers (majority groups, unique hostnames), or a change to a cluster for its hosts. A pass reads
 * the sparse active index (a small projection per host), then per cluster either judges every
 * watched host whole — when the cluster or one of its hosts changed since its last whole
 * judgement, or that is older than FULL_JUDGEMENT_EVERY_MS — or only those whose deadlines may
 * have passed (dueByTime). A whole judgement loads the cluster and its hosts once and shares the
 * peer work between them. So a quiet pass costs a small read per watched host, and a busy one
 * grows linearly with the cluster, never with its square (upstream: 72–101 s for 1,000 hosts).
 */
import type { Host, InfraEnv } from '../domain/core/entities.js';
import { clusterAsHostsRead, dueByTime } from '../domain/host/host-watch.js';
import type { Clock } from '../ports/clock.js';
import type { Store, WatchedHostRecord } from '../ports/store.js';
import { forEachBounded } from '../domain/core/bounded-concurrency.js';
import { refreshCluster } from './cluster-refresh.js';
import { refreshLoadedHost, type RefreshSurroundings } from './host-refresh.js';
import { LocalCache } from '../ports/local-caches.js';

const PAGE = 1_000;
const MAX_PAGES_PER_SHARD = 1_000;
/** Hosts of one cluster refreshed at a time: their reads and writes overlap, their CPU work is shared. */
const REFRESHES_IN_FLIGHT = 8;

export interface MonitorPass {
  /** Watched hosts the pass considered. */
  visited: number;
  /** Of those, how many it loaded and judged (all of a cluster judged whole, else the ones due by time). */
  judged: number;
  /** Clusters (or unbound infra-envs) judged whole. */
  judgedWhole: number;
  moved: number;
  /** Of those moved, how many to disconnected: with hosts polling on time this must stay 0. */
  disconnected: number;
  failed: number;
}

interface WatchedGroup {
  id: string;
  orgId: string;
  clusterId?: string;
  hosts: WatchedHostRecord[];
}

/**
 * When each group was last judged whole (the service time the judgement started), in this
 * instance. An instance that does not remember a group (a cold start) judges it whole; even a
 * quiet cluster is judged whole once the cache's bound has passed: a safety net for changes no
 * write announced.
 */
interface WholeJudgement {
  at: string;
  /** The versions this judgement itself wrote (hosts by key, and the cluster): its own writes are no news. */
  wrote: Map<string, number>;
  /** The version of each host this judgement read or wrote, by key: a later news version is news. */
  seen: Map<string, number>;
  /** The cluster as its hosts read it (clusterAsHostsRead) after this judgement, unless it derived the machine network. */
  clusterAsRead?: string;
}
const judgedWholeAt = new LocalCache<WholeJudgement>('monitor-whole-judgements');
/** Even a quiet cluster is judged whole this often. */
export const FULL_JUDGEMENT_EVERY_MS = judgedWholeAt.spec.maxAgeMs!;

export async function monitorHosts(deps: { store: Store; clock: Clock }): Promise<MonitorPass> {
  const pass: MonitorPass = { visited: 0, judged: 0, judgedWhole: 0, moved: 0, disconnected: 0, failed: 0 };
  const groups = await watchedGroups(deps.store);
  for (const group of groups.values()) {
    try {
      await visitGroup(deps, group, pass);
    } catch {
      // One cluster's trouble must not stop the pass; its hosts are visited again on the next one.
      pass.failed += group.hosts.length;
      judgedWholeAt.forget(group.id);
    }
  }
  return pass;
}

/** Every watched host, by cluster (or by infra-env when unbound), from all shards, read side by side. */
async function watchedGroups(store: Store): Promise<Map<string, WatchedGroup>> {
  const readShard = async (shard: number) => {
    const hosts: WatchedHostRecord[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES_PER_SHARD; page++) {
      const result = await store.hosts.listActive(shard, { limit: PAGE, cursor });
      hosts.push(...result.items);
      cursor = result.next;
      if (!cursor) break;
    }
    return hosts;
  };
  const shards = await Promise.all(Array.from({ length: store.activeShards }, (_, shard) => readShard(shard)));
  const groups = new Map<string, WatchedGroup>();
  for (const host of shards.flat()) {
    const id = `${host.orgId}/${host.clusterId ?? `infra-env:${host.infraEnvId}`}`;
    let group = groups.get(id);
    if (!group) groups.set(id, (group = { id, orgId: host.orgId, ...(host.clusterId ? { clusterId: host.clusterId } : {}), hosts: [] }));
    group.hosts.push(host);
  }
  return groups;
}

async function visitGroup(deps: { store: Store; clock: Clock }, group: WatchedGroup, pass: MonitorPass): Promise<void> {
  const { store } = deps;
  const startedAt = deps.clock.now();
  pass.visited += group.hosts.length;
  const cluster = group.clusterId ? await store.clusters.get({ orgId: group.orgId, clusterId: group.clusterId }) : undefined;
  const infraEnvs = new Map<string, Promise<InfraEnv | undefined>>();
  const infraEnvOf = (infraEnvId: string) => {
    let infraEnv = infraEnvs.get(infraEnvId);
    if (!infraEnv) infraEnvs.set(infraEnvId, (infraEnv = store.infraEnvs.get({ orgId: group.orgId, infraEnvId })));
    return infraEnv;
  };
  const lastWhole = judgedWholeAt.peek(group.id, { now: startedAt.getTime() });
  let whole = lastWhole === undefined;
  if (lastWhole) {
    const changedSince = (updatedAt: string | undefined, key?: string, version?: number) =>
      !!updatedAt && updatedAt >= lastWhole.at && (key === undefined || lastWhole.wrote.get(key) !== version);
    const infraEnvIds = [...new Set(group.hosts.map((host) => host.infraEnvId))];
    const infraEnvsChanged = (await Promise.all(infraEnvIds.map(infraEnvOf))).some((infraEnv) => changedSince(infraEnv?.updatedAt));
    // A cluster write that changed only the cluster's own verdict (its re-judgement by the stream
    // or the workflow) is no news to its hosts.
    const clusterChanged =
      cluster && lastWhole.clusterAsRead !== undefined
        ? clusterAsHostsRead(cluster) !== lastWhole.clusterAsRead
        : changedSince(cluster?.updatedAt, CLUSTER_KEY, cluster?.version);
    // A host write is news only when its stream follow-up recorded it so (a report peers read, a
    // status, a role...); a refreshed report whose round-trip times alone moved is not. Hosts
    // without a recorded news version go by their write time. A host gone or added is news.
    const hostChanged = (host: WatchedHostRecord) => {
      const key = `${host.infraEnvId}/${host.hostId}`;
      if (host.newsVersion === undefined) return changedSince(host.updatedAt, key, host.version);
      const seen = lastWhole.seen.get(key);
      return seen === undefined || host.newsVersion > seen;
    };
    whole = infraEnvsChanged || !!clusterChanged || group.hosts.length !== lastWhole.seen.size || group.hosts.some(hostChanged);
  }
  const targets = whole ? group.hosts : group.hosts.filter((host) => dueByTime(host, startedAt));
  if (targets.length === 0) return;

  const clusterHosts = cluster ? await store.hosts.listByCluster({ orgId: group.orgId, clusterId: cluster.clusterId }) : [];
  // The index copy is a projection: a cluster's hosts are judged as its listing read them, others read whole.
  const listed = new Map(clusterHosts.map((host) => [`${host.infraEnvId}/${host.hostId}`, host]));
  let statusMoved = false;
  let failures = 0;
  const wrote = new Map<string, number>();
  const seen = new Map<string, number>();
  const written = new Map<string, Host>();
  const visit = async (key: WatchedHostRecord) => {
    pass.judged += 1;
    try {
      const host = listed.get(`${key.infraEnvId}/${key.hostId}`) ?? (await store.hosts.get(key));
      if (!host) return;
      seen.set(`${key.infraEnvId}/${key.hostId}`, host.version);
      const surroundings: RefreshSurroundings = { cluster, clusterHosts, infraEnv: await infraEnvOf(host.infraEnvId) };
      const after = await refreshLoadedHost(deps, host, surroundings);
      if (after && after.version !== host.version) {
        wrote.set(`${key.infraEnvId}/${key.hostId}`, after.version);
        seen.set(`${key.infraEnvId}/${key.hostId}`, after.version);
        written.set(`${key.infraEnvId}/${key.hostId}`, after);
      }
      if (after && after.status !== host.status) {
        pass.moved += 1;
        statusMoved = true;
        if (after.status === 'disconnected') pass.disconnected += 1;
      }
    } catch {
      // One host's trouble must not stop the pass; it is visited again on the next one.
      failures += 1;
    }
  };
  await forEachBounded(targets, REFRESHES_IN_FLIGHT, visit);
  pass.failed += failures;
  // The cluster's verdict follows its hosts' statuses: re-judged once, after all of them (and
  // whenever it was judged whole, in case a refresh elsewhere read its hosts before the last change).
  let clusterAsRead: string | undefined;
  if (cluster && (statusMoved || whole)) {
    try {
      // Judged from the listing this pass read, with what the pass wrote: not a second listing.
      const hosts = clusterHosts.map((host) => written.get(`${host.infraEnvId}/${host.hostId}`) ?? host);
      await refreshCluster(deps, { orgId: cluster.orgId, clusterId: cluster.clusterId }, hosts);
      const judged = await store.clusters.get({ orgId: cluster.orgId, clusterId: cluster.clusterId });
      // The refresh's own write is no news to the hosts, unless it derived the machine network
      // they are judged against: then the next pass judges them whole again.
      const networkDerived = JSON.stringify(judged?.attributes.machine_networks ?? []) !== JSON.stringify(cluster.attributes.machine_networks ?? []);
      if (judged && judged.version !== cluster.version && !networkDerived) wrote.set(CLUSTER_KEY, judged.version);
      if (judged && !networkDerived) clusterAsRead = clusterAsHostsRead(judged);
    } catch {
      pass.failed += 1;
      failures += 1;
    }
  }
  if (whole) {
    pass.judgedWhole += 1;
    if (failures === 0 && seen.size === group.hosts.length)
      judgedWholeAt.set(group.id, { at: startedAt.toISOString(), wrote, seen, ...(clusterAsRead !== undefined ? { clusterAsRead } : {}) }, startedAt.getTime());
    else judgedWholeAt.forget(group.id);
  }
}

const CLUSTER_KEY = 'cluster';
