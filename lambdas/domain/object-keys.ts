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

/**
 * What preparing an installation writes: install-config.yaml, the installer's outputs
 * (bootstrap/master/worker.ign, metadata.json, kubeconfig-noingress, kubeadmin-password) and,
 * once the ingress CA arrives, the final kubeconfig. Flat names: they are the names users download.
 */
export function installationObjectKey(orgId: string, clusterId: string, fileName: string): string {
  return `${clusterObjectPrefix(orgId, clusterId)}installation/${fileName}`;
}

/** The ignition one host boots with (its role's, plus the host's own overrides and hostname). */
export function hostIgnitionObjectKey(orgId: string, clusterId: string, hostId: string): string {
  return `${clusterObjectPrefix(orgId, clusterId)}installation/hosts/${hostId}.ign`;
}

/** Every log uploaded for a cluster sits under this prefix, so the `all` bundle is one listing. */
export function clusterLogsPrefix(orgId: string, clusterId: string): string {
  return `${clusterObjectPrefix(orgId, clusterId)}logs/`;
}

/** One object per host, replaced by each upload, as upstream keeps `<cluster>/logs/<host>/logs.tar.gz`. */
export function hostLogsObjectKey(orgId: string, clusterId: string, hostId: string): string {
  return `${clusterLogsPrefix(orgId, clusterId)}${hostId}/logs.tar.gz`;
}

export const CONTROLLER_LOGS_FOLDER = 'controller';

export function controllerLogsObjectKey(orgId: string, clusterId: string): string {
  return `${clusterLogsPrefix(orgId, clusterId)}${CONTROLLER_LOGS_FOLDER}/logs.tar.gz`;
}
