/**
 * The connectivity facts upstream's cluster monitor stores on a cluster before each judgement
 * (connectivity_majority_groups, ip_collisions), only while the cluster is being configured: in
 * pending-for-input, insufficient and ready. The hosts' checks compute the same facts themselves
 * (host-validations-connectivity), for the topology the cluster was last judged in (the judgement
 * records it beside these, CONNECTIVITY_GROUPS_FOR_FENCING); these are the documents a client reads. Pure.
 */
import { connectivityMajorityGroups, ipCollisions, type ConnectivityHost } from '../host/validations/host-validations-connectivity.js';
import { isTwoNodesWithFencing } from './cluster-hosts.js';
import type { ClusterHostSummary } from './cluster-hosts.js';

const CONFIGURING_STATES: ReadonlySet<string> = new Set(['pending-for-input', 'insufficient', 'ready']);

/** Objects with their keys sorted, as Go's encoder writes maps. */
const sortedObject = <T>(record: Record<string, T>): Record<string, T> =>
  Object.fromEntries(
    Object.keys(record)
      .sort()
      .map((key) => [key, record[key]!]),
  );

export interface ConnectivityDocuments {
  connectivity_majority_groups: string;
  ip_collisions: string;
}

/**
 * The two documents for the cluster's current hosts, or undefined in a state upstream does not
 * compute them in (the stored ones are kept as they were).
 */
export function clusterConnectivityDocuments(
  cluster: { status: string; controlPlaneCount: number },
  hosts: readonly (ConnectivityHost & { summary: ClusterHostSummary })[],
): ConnectivityDocuments | undefined {
  if (!CONFIGURING_STATES.has(cluster.status)) return undefined;
  const minGroupSize = isTwoNodesWithFencing(
    hosts.map((host) => host.summary),
    cluster.controlPlaneCount,
  )
    ? 2
    : 3;
  const groups = connectivityMajorityGroups(hosts, minGroupSize);
  return {
    connectivity_majority_groups: JSON.stringify({
      majority_groups: sortedObject(groups.majority_groups),
      l3_connected_addresses: sortedObject(groups.l3_connected_addresses),
    }),
    ip_collisions: JSON.stringify(sortedObject(ipCollisions(hosts))),
  };
}
