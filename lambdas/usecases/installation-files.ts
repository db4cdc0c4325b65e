/**
 * The files an installation produces, as users, the on-host installer and the controller fetch
 * them (upstream's V2DownloadClusterFiles, V2DownloadClusterCredentials, V2GetCredentials, their
 * presigned variants and V2DownloadHostIgnition), and the per-host settings that shape a host's
 * installation (ignition override, installer arguments). The workflow writes the files; this
 * module only reads them. The kubeadmin password and kubeconfigs go to the caller and nowhere else.
 */
import { posix } from 'node:path';
import { roleAllows } from '../domain/auth/api-token.js';
import type { Cluster, Host } from '../domain/core/entities.js';
import { badRequest, conflict, forbidden, notFound } from '../domain/core/errors.js';
import { HOST_UPDATABLE_STATES, hostChangeAnswer, hostDisplayName } from '../domain/host/host.js';
import {
  AGENT_CREDENTIAL_FILES,
  CLUSTER_FILE_NAMES,
  consoleUrl,
  CREDENTIAL_FILE_NAMES,
  downloadRefusal,
  hostIgnitionDownloadName,
  hostIgnitionOverrideProblem,
  KUBECONFIG_CREATED_AT,
  PRESIGNED_URL_TTL_SECONDS,
  roleIgnitionFileName,
  storedOperators,
  type CredentialFileName,
} from '../domain/install/installation-progress.js';
import { installerArgsProblem } from '../../contracts/installer-args.js';
import { parseDownloadLogsType } from '../domain/install/logs.js';
import { installConfigYamlWithoutPullSecret } from '../domain/install/install-config-text.js';
import { contentDisposition, isManifestFolder } from '../domain/install/manifests.js';
import { clusterObjectPrefix, hostIgnitionObjectKey, INSTALLATION_BUCKET, installationObjectKey } from '../domain/core/object-keys.js';
import type { BlobStore } from '../ports/blobs.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { findCluster, findHost, stillThere } from './access.js';
import { mayReadPullSecret, maySeeSecrets, requireSecretAccess } from './secret-access.js';
import { recordEvent } from './events.js';
import { downloadClusterLogs } from './logs.js';
import type { Principal } from './principal.js';

export interface InstallationFilesDeps {
  store: Store;
  clock: Clock;
  blobs: BlobStore;
}

export interface DownloadedFile {
  fileName: string;
  content: Uint8Array;
}

export interface PresignedUrl {
  url: string;
  expires_at: string;
}

const notGenerated = (what: string, clusterId: string) => conflict(`${what} of cluster ${clusterId} is not available: the installation has not generated it`);

function requireFileName<T extends string>(fileName: string, allowed: readonly T[], kind: string): T {
  const known = allowed.find((name) => name === fileName);
  if (known === undefined) throw badRequest(`invalid ${kind} ${fileName}; use one of ${allowed.join(', ')}`);
  return known;
}

/**
 * The admin credentials are the cluster owner's: a user token that may change the cluster (the
 * openapi scopes them to `user`, not read-only), or an agent for the one file the installer and
 * controller need to reach the new API server.
 */
function requireCredentialAccess(principal: Principal, fileName: CredentialFileName): void {
  const allowed = principal.kind === 'agent' ? AGENT_CREDENTIAL_FILES.includes(fileName) : roleAllows(principal.role, 'write');
  if (!allowed) throw forbidden(`File '${fileName}' is accessible only for cluster owners`);
}

async function readInstallationFile(deps: InstallationFilesDeps, cluster: Cluster, fileName: string): Promise<Uint8Array | undefined> {
  return deps.blobs.get(INSTALLATION_BUCKET, installationObjectKey(cluster.orgId, cluster.clusterId, fileName));
}

/** GET /v2/clusters/{id}/downloads/files */
export async function downloadClusterFile(deps: InstallationFilesDeps, principal: Principal, clusterId: string, requested: string): Promise<DownloadedFile> {
  const fileName = requireFileName(requested, CLUSTER_FILE_NAMES, 'cluster file');
  if (fileName.endsWith('.ign')) requireSecretAccess(principal, fileName);
  const cluster = await findCluster(deps.store, principal, clusterId);
  const refusal = downloadRefusal(cluster, fileName);
  if (refusal) throw conflict(refusal);
  const content = await readInstallationFile(deps, cluster, fileName);
  if (!content) throw notGenerated(fileName, clusterId);
  if (fileName === 'install-config.yaml' && !mayReadPullSecret(principal)) {
    return {
      fileName,
      content: Buffer.from(installConfigYamlWithoutPullSecret(Buffer.from(content).toString('utf8'), { proxyCredentials: maySeeSecrets(principal) })),
    };
  }
  return { fileName, content };
}

/**
 * Which credential file answers a request: `kubeconfig` falls back to kubeconfig-noingress until
 * the final one exists (upstream: it lacks only the ingress CA, which plain logins do not need).
 */
function credentialSource(cluster: Cluster, fileName: CredentialFileName): CredentialFileName {
  if (fileName !== 'kubeconfig') return fileName;
  const finalExists = typeof cluster.attributes[KUBECONFIG_CREATED_AT] === 'string' && !downloadRefusal(cluster, 'kubeconfig');
  return finalExists ? 'kubeconfig' : 'kubeconfig-noingress';
}

/** The cluster and the credential file that answer a request for `requested`, once the caller may have it and the cluster is far enough. */
async function credentialToServe(
  deps: InstallationFilesDeps,
  principal: Principal,
  clusterId: string,
  requested: string,
): Promise<{ cluster: Cluster; fileName: CredentialFileName }> {
  const asked = requireFileName(requested, CREDENTIAL_FILE_NAMES, 'credentials file');
  requireCredentialAccess(principal, asked);
  const cluster = await findCluster(deps.store, principal, clusterId);
  const fileName = credentialSource(cluster, asked);
  const refusal = downloadRefusal(cluster, fileName);
  if (refusal) throw conflict(refusal);
  return { cluster, fileName };
}

/** GET /v2/clusters/{id}/downloads/credentials */
export async function downloadClusterCredential(
  deps: InstallationFilesDeps,
  principal: Principal,
  clusterId: string,
  requested: string,
): Promise<DownloadedFile> {
  const { cluster, fileName } = await credentialToServe(deps, principal, clusterId, requested);
  const content = await readInstallationFile(deps, cluster, fileName);
  if (!content) throw notGenerated(fileName, clusterId);
  return { fileName, content };
}

/** GET /v2/clusters/{id}/credentials */
export async function getCredentials(deps: InstallationFilesDeps, principal: Principal, clusterId: string) {
  requireCredentialAccess(principal, 'kubeadmin-password');
  const cluster = await findCluster(deps.store, principal, clusterId);
  const consoleOperator = storedOperators(cluster).find((operator) => operator.name === 'console');
  // The URL means something only once the console answers there (upstream waits for its operator).
  if (consoleOperator && consoleOperator.status !== 'available') {
    throw conflict("console-url isn't available yet, it will be once console operator is ready as part of cluster finalizing stage");
  }
  const password = await readInstallationFile(deps, cluster, 'kubeadmin-password');
  if (!password) throw notGenerated('kubeadmin-password', clusterId);
  return {
    username: 'kubeadmin',
    password: Buffer.from(password).toString('utf8'),
    console_url: consoleOperator ? consoleUrl(cluster.name, cluster.attributes.base_dns_domain) : '',
  };
}

async function presign(deps: InstallationFilesDeps, bucket: 'files' | 'logs', key: string, downloadName: string): Promise<PresignedUrl> {
  const expiresAt = new Date(deps.clock.now().getTime() + PRESIGNED_URL_TTL_SECONDS * 1000);
  const url = await deps.blobs.presignGet(bucket, key, PRESIGNED_URL_TTL_SECONDS, { contentDisposition: contentDisposition(downloadName) });
  return { url, expires_at: expiresAt.toISOString() };
}

export interface PresignedFileQuery {
  fileName: string;
  logsType?: string;
  hostId?: string;
  additionalName?: string;
}

/**
 * GET /v2/clusters/{id}/downloads/files-presigned: a 10-minute URL straight to the object store.
 * Generated files follow the download rules; `manifests` takes `additional_name`
 * (`<folder>/<file>`); `logs` is prepared as GET /logs would send it, then stored for the URL.
 */
export async function presignedClusterFileUrl(
  deps: InstallationFilesDeps,
  principal: Principal,
  clusterId: string,
  query: PresignedFileQuery,
): Promise<PresignedUrl> {
  if (query.fileName === 'manifests') return presignedManifestUrl(deps, principal, clusterId, query.additionalName);
  if (query.fileName === 'logs') {
    const logsType = parseDownloadLogsType(query.logsType || (query.hostId ? 'host' : undefined));
    const logs = await downloadClusterLogs(deps, principal, clusterId, { logsType, ...(query.hostId ? { hostId: query.hostId } : {}) });
    const key = `${clusterObjectPrefix(principal.orgId, clusterId)}downloads/${logs.fileName}`;
    await deps.blobs.put('logs', key, logs.content, 'application/octet-stream');
    return presign(deps, 'logs', key, logs.fileName);
  }
  const fileName = requireFileName(query.fileName, CLUSTER_FILE_NAMES, 'cluster file');
  if (fileName.endsWith('.ign')) requireSecretAccess(principal, fileName);
  // A presigned URL serves the stored file as it is, so the pull secret can't be taken out of it.
  if (fileName === 'install-config.yaml' && !mayReadPullSecret(principal)) {
    throw forbidden('A presigned install-config.yaml URL carries the pull secret, which only the cluster owner may read; download the file instead');
  }
  const cluster = await findCluster(deps.store, principal, clusterId);
  const refusal = downloadRefusal(cluster, fileName);
  if (refusal) throw conflict(refusal);
  const key = installationObjectKey(cluster.orgId, clusterId, fileName);
  if ((await deps.blobs.size(INSTALLATION_BUCKET, key)) === undefined) throw notGenerated(fileName, clusterId);
  return presign(deps, INSTALLATION_BUCKET, key, fileName);
}

async function presignedManifestUrl(
  deps: InstallationFilesDeps,
  principal: Principal,
  clusterId: string,
  additionalName: string | undefined,
): Promise<PresignedUrl> {
  if (!additionalName) {
    throw badRequest("Additional name must be provided for 'manifests' file name, prefaced with folder name, e.g.: openshift/99-openshift-xyz.yaml");
  }
  const normalized = posix.normalize(additionalName);
  const [folder, fileName, ...rest] = normalized.split('/');
  if (normalized !== additionalName || rest.length > 0 || !folder || !fileName || !isManifestFolder(folder)) {
    throw badRequest('additional_name must be <folder>/<file name> with folder manifests or openshift, local to the manifest directory');
  }
  const cluster = await findCluster(deps.store, principal, clusterId);
  const manifest = await deps.store.manifests.get({ orgId: cluster.orgId, clusterId, folder, fileName });
  if (!manifest) throw notFound(`Manifest ${additionalName} of cluster ${clusterId} not found`);
  return presign(deps, INSTALLATION_BUCKET, manifest.objectKey, fileName);
}

/**
 * GET /v2/clusters/{id}/downloads/credentials-presigned. Unlike upstream, the status and the
 * file are checked first: a URL that would only answer 404 is no use to anyone.
 */
export async function presignedClusterCredentialUrl(
  deps: InstallationFilesDeps,
  principal: Principal,
  clusterId: string,
  requested: string,
): Promise<PresignedUrl> {
  const { cluster, fileName } = await credentialToServe(deps, principal, clusterId, requested);
  const key = installationObjectKey(cluster.orgId, clusterId, fileName);
  if ((await deps.blobs.size(INSTALLATION_BUCKET, key)) === undefined) throw notGenerated(fileName, clusterId);
  return presign(deps, INSTALLATION_BUCKET, key, fileName);
}

// ---------------------------------------------------------------- host ignition

async function boundCluster(store: Store, host: Host): Promise<Cluster> {
  const missing = () => notFound(`Cluster not found for host ${host.hostId} in infra env ${host.infraEnvId}`);
  if (!host.clusterId) throw missing();
  const cluster = await store.clusters.get({ orgId: host.orgId, clusterId: host.clusterId });
  if (!cluster) throw missing();
  return cluster;
}

/**
 * GET /v2/infra-env/{id}/hosts/{host_id}/downloads/ignition: the ignition the host installs with,
 * its own when the workflow wrote one (role file plus its overrides), else its role's file.
 */
export async function downloadHostIgnition(deps: InstallationFilesDeps, principal: Principal, infraEnvId: string, hostId: string): Promise<DownloadedFile> {
  requireSecretAccess(principal, "A host's ignition");
  const host = await findHost(deps.store, principal, infraEnvId, hostId);
  const cluster = await boundCluster(deps.store, host);
  const refusal = downloadRefusal(cluster, 'files');
  if (refusal) throw conflict(refusal);
  const own = await deps.blobs.get(INSTALLATION_BUCKET, hostIgnitionObjectKey(cluster.orgId, cluster.clusterId, hostId));
  const roleFile = roleIgnitionFileName(host);
  const content = own ?? (roleFile ? await readInstallationFile(deps, cluster, roleFile) : undefined);
  if (!content) throw conflict(`The ignition of host ${hostId} is not available: the installation has not generated it`);
  return { fileName: hostIgnitionDownloadName(host), content };
}

/** GET /v2/infra-envs/{id}/hosts/{host_id}/ignition: the same ignition, as a string in JSON (upstream). */
export async function getHostIgnition(deps: InstallationFilesDeps, principal: Principal, infraEnvId: string, hostId: string): Promise<{ config: string }> {
  const file = await downloadHostIgnition(deps, principal, infraEnvId, hostId);
  return { config: Buffer.from(file.content).toString('utf8') };
}

function requireNotInstalling(host: Host): void {
  if (!HOST_UPDATABLE_STATES.has(host.status)) {
    throw conflict(`Host ${host.hostId} is in status ${host.status}; its installation settings can be changed only before it installs`);
  }
}

/** Changes a host's attributes, refused (409) once its installation has started; the host as written. */
async function changeHostBeforeInstall(
  deps: InstallationFilesDeps,
  principal: Principal,
  infraEnvId: string,
  hostId: string,
  change: (attributes: Record<string, unknown>) => Record<string, unknown>,
): Promise<Host> {
  await findHost(deps.store, principal, infraEnvId, hostId);
  const now = deps.clock.now().toISOString();
  return stillThere(
    await deps.store.hosts.mutate({ orgId: principal.orgId, infraEnvId, hostId }, (current) => {
      requireNotInstalling(current);
      return { ...current, attributes: change({ ...current.attributes }), updatedAt: now };
    }),
    `Host ${hostId}`,
  );
}

/**
 * PATCH /v2/infra-envs/{id}/hosts/{host_id}/ignition: an Ignition config merged over the host's
 * installation ignition when it is generated; an empty config removes it.
 */
export async function updateHostIgnition(
  deps: InstallationFilesDeps,
  principal: Principal,
  infraEnvId: string,
  hostId: string,
  config: string | undefined,
): Promise<void> {
  const override = config ?? '';
  const problem = hostIgnitionOverrideProblem(override);
  if (problem) throw badRequest(problem);
  const updated = await changeHostBeforeInstall(deps, principal, infraEnvId, hostId, (attributes) => {
    if (override === '') delete attributes.ignition_config_overrides;
    else attributes.ignition_config_overrides = override;
    return attributes;
  });
  await recordEvent(deps, {
    name: 'host_discovery_ignition_config_applied',
    subject: { orgId: principal.orgId, infraEnvId, hostId },
    props: { host_name: hostDisplayName(updated) },
  });
}

/** PATCH /v2/infra-envs/{id}/hosts/{host_id}/installer-args: extra coreos-installer arguments (allow-listed). */
export async function updateHostInstallerArgs(
  deps: InstallationFilesDeps,
  principal: Principal,
  infraEnvId: string,
  hostId: string,
  args: string[] | undefined,
) {
  const list = args ?? [];
  const problem = installerArgsProblem(list);
  if (problem) throw badRequest(problem);
  const updated = await changeHostBeforeInstall(deps, principal, infraEnvId, hostId, (attributes) => ({ ...attributes, installer_args: JSON.stringify(list) }));
  await recordEvent(deps, {
    name: 'host_installer_args_applied',
    subject: { orgId: principal.orgId, infraEnvId, hostId, ...(updated.clusterId ? { clusterId: updated.clusterId } : {}) },
    props: { host_name: hostDisplayName(updated) },
  });
  return hostChangeAnswer(updated, 'not-listed');
}
