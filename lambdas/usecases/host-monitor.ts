/**
 * The periodic pass over watched hosts: what only time can change (a host that stopped polling,
 * a stage that timed out). It reads the sparse active index shard by shard, then visits it cluster
 * by cluster: each cluster and its hosts are loaded once per pass, the peer work of the
 * validations is shared by all the hosts of that listing, and the cluster is re-judged once after
 * its hosts. So its cost grows linearly with the number of watched hosts, not with every host
 * ever registered nor with the square of a cluster (upstream's 72–101 s for 1,000 hosts).
 */
import type { Host, InfraEnv } from '../domain/entities.js';
import type { Clock } from '../ports/clock.js';
import type { HostKey, Store } from '../ports/store.js';
import { refreshClusterCoalesced } from './cluster-refresh.js';
import { refreshLoadedHost, type RefreshSurroundings } from './host-refresh.js';

const PAGE = 500;
const MAX_PAGES_PER_SHARD = 1_000;
/** Hosts of one cluster refreshed at a time: their reads and writes overlap, their CPU work is shared. */
const REFRESHES_IN_FLIGHT = 8;

export interface MonitorPass {
  visited: number;
  moved: number;
  /** Of those moved, how many to disconnected: with hosts polling on time this must stay 0. */
  disconnected: number;
  failed: number;
}

interface WatchedGroup {
  orgId: string;
  clusterId?: string;
  infraEnvId: string;
  /** Unbound hosts are refreshed from their index copy; a cluster's from the cluster's listing. */
  hosts: (HostKey & { indexed?: Host })[];
}

export async function monitorHosts(deps: { store: Store; clock: Clock }): Promise<MonitorPass> {
  const pass: MonitorPass = { visited: 0, moved: 0, disconnected: 0, failed: 0 };
  const groups = await watchedGroups(deps.store);
  for (const group of groups.values()) {
    try {
      await visitGroup(deps, group, pass);
    } catch {
      // One cluster's trouble must not stop the pass; its hosts are visited again on the next one.
      pass.failed += group.hosts.length;
    }
  }
  return pass;
}

/** Every watched host's key, by cluster (or by infra-env when unbound), from all shards. */
async function watchedGroups(store: Store): Promise<Map<string, WatchedGroup>> {
  const groups = new Map<string, WatchedGroup>();
  for (let shard = 0; shard < store.activeShards; shard++) {
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES_PER_SHARD; page++) {
      const result = await store.hosts.listActive(shard, { limit: PAGE, cursor });
      for (const host of result.items) {
        const id = `${host.orgId}/${host.clusterId ?? `infra-env:${host.infraEnvId}`}`;
        let group = groups.get(id);
        if (!group) groups.set(id, (group = { orgId: host.orgId, ...(host.clusterId ? { clusterId: host.clusterId } : {}), infraEnvId: host.infraEnvId, hosts: [] }));
        group.hosts.push({ orgId: host.orgId, infraEnvId: host.infraEnvId, hostId: host.hostId, ...(host.clusterId ? {} : { indexed: host }) });
      }
      cursor = result.next;
      if (!cursor) break;
    }
  }
  return groups;
}

async function visitGroup(deps: { store: Store; clock: Clock }, group: WatchedGroup, pass: MonitorPass): Promise<void> {
  const { store } = deps;
  const cluster = group.clusterId ? await store.clusters.get({ orgId: group.orgId, clusterId: group.clusterId }) : undefined;
  const clusterHosts = cluster ? await store.hosts.listByCluster({ orgId: group.orgId, clusterId: cluster.clusterId }) : [];
  // The index copy may lag the table: a cluster's hosts are refreshed as its listing read them.
  const listed = new Map(clusterHosts.map((host) => [`${host.infraEnvId}/${host.hostId}`, host]));
  const infraEnvs = new Map<string, Promise<InfraEnv | undefined>>();
  const infraEnvOf = (infraEnvId: string) => {
    let infraEnv = infraEnvs.get(infraEnvId);
    if (!infraEnv) infraEnvs.set(infraEnvId, (infraEnv = store.infraEnvs.get({ orgId: group.orgId, infraEnvId })));
    return infraEnv;
  };
  let statusMoved = false;
  let next = 0;
  const visit = async (key: WatchedGroup['hosts'][number]) => {
    pass.visited += 1;
    try {
      const host = listed.get(`${key.infraEnvId}/${key.hostId}`) ?? key.indexed ?? (await store.hosts.get(key));
      if (!host) return;
      const surroundings: RefreshSurroundings = { cluster, clusterHosts, infraEnv: await infraEnvOf(host.infraEnvId) };
      const after = await refreshLoadedHost(deps, host, surroundings, { refreshCluster: false });
      if (after && after.status !== host.status) {
        pass.moved += 1;
        statusMoved = true;
        if (after.status === 'disconnected') pass.disconnected += 1;
      }
    } catch {
      // One host's trouble must not stop the pass; it is visited again on the next one.
      pass.failed += 1;
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(REFRESHES_IN_FLIGHT, group.hosts.length) }, async () => {
      while (next < group.hosts.length) await visit(group.hosts[next++]!);
    }),
  );
  // The cluster's verdict follows its hosts' statuses: re-judged once, after all of them.
  if (cluster && statusMoved) {
    await refreshClusterCoalesced(deps, { orgId: cluster.orgId, clusterId: cluster.clusterId }).catch(() => {
      pass.failed += 1;
    });
  }
}
