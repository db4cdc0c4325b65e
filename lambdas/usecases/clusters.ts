import type { Cluster } from '../domain/entities.js';
import type { Store } from '../ports/store.js';
import type { Principal } from './principal.js';

/** The upstream `cluster` document as the API returns it. */
export function clusterView(cluster: Cluster): Record<string, unknown> {
  return {
    ...cluster.attributes,
    kind: (cluster.attributes.kind as string | undefined) ?? 'Cluster',
    id: cluster.clusterId,
    href: `/api/assisted-install/v2/clusters/${cluster.clusterId}`,
    name: cluster.name,
    org_id: cluster.orgId,
    status: cluster.status,
    status_info: (cluster.attributes.status_info as string | undefined) ?? '',
    image_info: (cluster.attributes.image_info as object | undefined) ?? {},
    created_at: cluster.createdAt,
    updated_at: cluster.updatedAt,
  };
}

export async function listClusters(deps: { store: Store }, principal: Principal): Promise<Record<string, unknown>[]> {
  const clusters = await deps.store.clusters.listByOrg(principal.orgId);
  return clusters.sort((a, b) => a.createdAt.localeCompare(b.createdAt)).map(clusterView);
}
