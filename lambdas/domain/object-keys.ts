/**
 * Where a resource's objects live in the buckets. Every key starts with the organisation, like
 * every table key, so one organisation's objects can be listed, purged or audited on their own.
 */
export function clusterObjectPrefix(orgId: string, clusterId: string): string {
  return `orgs/${orgId}/clusters/${clusterId}/`;
}

export function manifestObjectKey(orgId: string, clusterId: string, folder: string, fileName: string): string {
  return `${clusterObjectPrefix(orgId, clusterId)}manifests/${folder}/${fileName}`;
}
