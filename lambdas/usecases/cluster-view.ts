/**
 * The cluster document as the API answers it: the record's wire view with its hosts (or only their
 * counts) and its host networks. Reads the store and nothing else, so every use case that answers
 * with a cluster (get, update, install, import, logs) can call it without calling the others.
 */
import { clusterWireView, isSingleNodeCluster } from '../domain/cluster/cluster-document.js';
import { operatorBundlesOf } from '../domain/cluster/cluster-operators.js';
import type { Cluster, Host } from '../domain/core/entities.js';
import { hostView, type ProgressStagesSource } from '../domain/host/host.js';
import { hostNetworks } from '../domain/network/host-networks.js';
import type { Store } from '../ports/store.js';

function hostCounts(hosts: Host[]) {
  return {
    total: hosts.length,
    enabled: hosts.length,
    ready: hosts.filter((h) => h.status === 'known').length,
  };
}

/**
 * The answers about one cluster (create, get, update, import) carry its operator bundles, derived from its
 * operators' source_bundles; upstream's listings and other answers do not.
 */
export const withOperatorBundles = (view: Record<string, unknown>, cluster: Cluster) => ({
  ...view,
  operator_bundles: operatorBundlesOf(cluster.attributes.monitored_operators),
});

/**
 * Upstream's answers to an update and an import carry the cluster's creation time as
 * image_info.created_at (seen on its service); its other answers carry Go's zero time there.
 */
export const withCreationAsImageTime = (view: Record<string, unknown>, cluster: Cluster) => ({
  ...view,
  image_info: { ...(view.image_info as object | undefined), created_at: cluster.createdAt },
});

/**
 * The cluster document. `hostStages`: its hosts list their progress_stages, as upstream's answers
 * about one cluster do (get, update, cancel, reset); its listings and its install answer do not.
 */
export async function describeCluster(store: Store, cluster: Cluster, options: { withHosts: boolean; hostStages: boolean }): Promise<Record<string, unknown>> {
  // The counts and networks read only statuses and inventories: liveness only shows in the hosts.
  const hosts = await store.hosts.listByCluster({ orgId: cluster.orgId, clusterId: cluster.clusterId }, { liveness: options.withHosts });
  const stages: ProgressStagesSource = options.hostStages ? { singleNode: isSingleNodeCluster(cluster) } : 'not-listed';
  return {
    ...clusterWireView(cluster, { counts: hostCounts(hosts), hosts: options.withHosts ? hosts.map((host) => hostView(host, stages)) : [] }),
    host_networks: hostNetworks(hosts),
  };
}
