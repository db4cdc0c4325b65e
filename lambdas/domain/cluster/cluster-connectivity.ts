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
 * The cluster attribute saying at which status, entered when, its stored documents were last
 * computed (`<status>@<status_updated_at>`). Internal: not part of the view.
 */
export const CONNECTIVITY_DOCUMENTS_MARK = 'connectivity_documents_mark';

type MarkedCluster = { status: string; createdAt: string; attributes: Record<string, unknown> };

/** The mark of documents written with this copy of the cluster (its status as the judgement leaves it). */
export function connectivityDocumentsMark(cluster: MarkedCluster): string {
  const since = cluster.attributes.status_updated_at;
  return `${cluster.status}@${typeof since === 'string' ? since : cluster.createdAt}`;
}

/** Whether upstream computes the documents in this cluster status (the configuring ones). */
export const computesConnectivityDocumentsIn = (status: string): boolean => CONFIGURING_STATES.has(status);

/**
 * Whether the documents stored on the cluster are those its hosts would give now, without reading
 * any host's report: no host change since the last judgement moved what they read
 * (`connectivityNews: false`, followUps' word), and they were computed at this very status. The
 * documents are computed in every judgement made in a configuring state and left as they were in
 * the others, so reports that moved in between (a cluster back from preparing) are read again:
 * the mark differs.
 */
export function storedConnectivityDocumentsHold(cluster: MarkedCluster, connectivityNews: boolean): boolean {
  return (
    !connectivityNews &&
    typeof cluster.attributes.connectivity_majority_groups === 'string' &&
    typeof cluster.attributes.ip_collisions === 'string' &&
    cluster.attributes[CONNECTIVITY_DOCUMENTS_MARK] === connectivityDocumentsMark(cluster)
  );
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
