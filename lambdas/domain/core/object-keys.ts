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

/** The bucket the installation's objects (the keys below) live in: the workflow writes them there. */
export const INSTALLATION_BUCKET = 'files';

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

/**
 * Base images are the same for every organisation, so they sit outside `orgs/`: per OpenShift
 * minor version and CPU architecture, the live ISO of each type with its description (`.json`:
 * embed-area layout, provenance, whether it is SYNTHETIC), and the PXE boot artifacts.
 */
export function baseImagePrefix(version: string, arch: string): string {
  return `base-images/${version}/${arch}/`;
}

export function baseIsoObjectKey(version: string, arch: string, type: string): string {
  return `${baseImagePrefix(version, arch)}${type}.iso`;
}

export function baseIsoInfoObjectKey(version: string, arch: string, type: string): string {
  return `${baseImagePrefix(version, arch)}${type}.json`;
}

/** `kernel`, `initrd` or `rootfs` of the version's live image, as iPXE and minimal ISOs fetch them. */
export function bootArtifactObjectKey(version: string, arch: string, artifact: string): string {
  return `${baseImagePrefix(version, arch)}pxe/${artifact}`;
}

export function infraEnvObjectPrefix(orgId: string, infraEnvId: string): string {
  return `orgs/${orgId}/infra-envs/${infraEnvId}/`;
}

/** Discovery images composed for an infra-env, named by a hash of what went into them. */
export function infraEnvImagesPrefix(orgId: string, infraEnvId: string): string {
  return `${infraEnvObjectPrefix(orgId, infraEnvId)}images/`;
}

/**
 * A deleted disconnected-iso infra-env's record, kept next to its images for as long as image URLs
 * issued for it are valid (the image service alone reads it, for a token its key signed).
 */
export function retainedInfraEnvObjectKey(orgId: string, infraEnvId: string): string {
  return `${infraEnvImagesPrefix(orgId, infraEnvId)}retained-infra-env.json`;
}

export function discoveryImageObjectKey(orgId: string, infraEnvId: string, fileName: string): string {
  return `${infraEnvImagesPrefix(orgId, infraEnvId)}${fileName}`;
}
