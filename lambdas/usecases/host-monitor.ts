/**
 * The periodic pass over watched hosts: what only time can change (a host that stopped polling,
 * a stage that timed out). It visits the sparse active index shard by shard and loads each
 * cluster and its hosts once for all the cluster's watched hosts, so its cost grows with the
 * number of watched hosts, not with every host ever registered nor with the square of a cluster.
 */
import type { Host } from '../domain/entities.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { loadSurroundings, refreshLoadedHost } from './host-refresh.js';

const PAGE = 500;
const MAX_PAGES_PER_SHARD = 1_000;

export interface MonitorPass {
  visited: number;
  moved: number;
  failed: number;
}

export async function monitorHosts(deps: { store: Store; clock: Clock }): Promise<MonitorPass> {
  const pass: MonitorPass = { visited: 0, moved: 0, failed: 0 };
  for (let shard = 0; shard < deps.store.activeShards; shard++) {
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES_PER_SHARD; page++) {
      const result = await deps.store.hosts.listActive(shard, { limit: PAGE, cursor });
      const byCluster = new Map<string, Host[]>();
      for (const host of result.items) {
        const group = `${host.orgId}/${host.clusterId ?? `infra-env:${host.infraEnvId}`}`;
        (byCluster.get(group) ?? byCluster.set(group, []).get(group)!).push(host);
      }
      for (const hosts of byCluster.values()) {
        const surroundings = await loadSurroundings(deps.store, { ...hosts[0]!, attributes: { ...hosts[0]!.attributes, inventory: hosts[0]!.attributes.inventory ?? '{}' } }, { freshPeers: true });
        for (const indexed of hosts) {
          pass.visited += 1;
          // The index copy may lag the table; refresh from the host as the cluster listing read it.
          const host = surroundings.clusterHosts.find((h) => h.hostId === indexed.hostId && h.infraEnvId === indexed.infraEnvId) ?? indexed;
          try {
            const after = await refreshLoadedHost(deps, host, { ...surroundings, infraEnv: host.infraEnvId === surroundings.infraEnv?.infraEnvId ? surroundings.infraEnv : undefined });
            if (after && after.status !== host.status) pass.moved += 1;
          } catch {
            // One host's trouble must not stop the pass; it is visited again on the next one.
            pass.failed += 1;
          }
        }
      }
      cursor = result.next;
      if (!cursor) break;
    }
  }
  return pass;
}
