/**
 * Logs: the agent's logs_sender and the installer controller upload archives and report how
 * collection goes; users download one host's archive, the controller's, or all of them in one tar
 * (upstream internal/bminventory V2UploadLogs, V2DownloadClusterLogs, V2Update*LogsProgress).
 *
 * Each upload is written to the logs bucket before the record is stamped, so a record saying logs
 * were collected always has an object behind it; an upload whose stamp fails leaves an object the
 * next upload of the same host replaces.
 */
import type { Cluster, Host } from '../domain/core/entities.js';
import { DomainError, notFound } from '../domain/core/errors.js';
import { hostDisplayName } from '../domain/host/host.js';
import {
  allLogsFileName,
  CLUSTER_LOGS_COLLECTED_AT,
  CLUSTER_LOGS_STARTED_AT,
  controllerLogsFileName,
  hasCollectedLogs,
  HOST_LOGS_COLLECTED_AT,
  HOST_LOGS_STARTED_AT,
  hostLogsFileName,
  logsBundleEntries,
  requireControllerLogs,
  requireDownloadHostId,
  requireHostLogs,
  requireUploadHostId,
  storedLogObject,
  withLogsProgress,
  withLogsUploaded,
  type DownloadLogsType,
  type HostLogsSubject,
  type LogsState,
  type StoredLogObject,
  type UploadLogsType,
} from '../domain/install/logs.js';
import { clusterLogsPrefix, CONTROLLER_LOGS_FOLDER, controllerLogsObjectKey, hostLogsObjectKey } from '../domain/core/object-keys.js';
import { tarArchive } from '../domain/image/tar-archive.js';
import type { BlobStore } from '../ports/blobs.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { findCluster, findHost, stillThere } from './access.js';
import { describeCluster } from './cluster-view.js';
import { listEvents, recordEvent } from './events.js';
import type { Principal } from './principal.js';

export interface LogsDeps {
  store: Store;
  blobs: BlobStore;
  clock: Clock;
}

const LOGS_CONTENT_TYPE = 'application/gzip';
/** Objects fetched at once while building the `all` bundle. */
const BUNDLE_READ_CONCURRENCY = 4;

export interface UploadLogsRequest {
  clusterId: string;
  logsType: UploadLogsType;
  hostId?: string;
  infraEnvId?: string;
  /**
   * Reads the uploaded file. Called only once the caller may upload there, so a refused request
   * never has its body parsed.
   */
  readContent: () => Promise<Uint8Array>;
}

/**
 * POST /v2/clusters/{id}/logs. A host's logs are accepted for a host of the caller's infra-env
 * that belongs to this cluster (404 otherwise, as for any resource the caller cannot see); the
 * controller's for a cluster the caller's infra-env belongs to.
 */
export async function uploadLogs(deps: LogsDeps, principal: Principal, request: UploadLogsRequest): Promise<void> {
  if (request.logsType === 'host') await uploadHostLogs(deps, principal, request, requireUploadHostId(request.hostId));
  else await uploadControllerLogs(deps, principal, request);
}

async function uploadHostLogs(deps: LogsDeps, principal: Principal, request: UploadLogsRequest, hostId: string): Promise<void> {
  const { orgId } = principal;
  const host = await findClusterHost(deps.store, principal, request.clusterId, hostId, request.infraEnvId);
  const content = await request.readContent();
  await deps.blobs.put('logs', hostLogsObjectKey(orgId, request.clusterId, hostId), content, LOGS_CONTENT_TYPE);
  const now = deps.clock.now().toISOString();
  const key = { orgId, infraEnvId: host.infraEnvId, hostId };
  const stamped = stillThere(
    await deps.store.hosts.mutate(key, (current) =>
      current.clusterId === request.clusterId
        ? { ...current, attributes: withLogsUploaded(current.attributes, HOST_LOGS_COLLECTED_AT, now), updatedAt: now }
        : undefined,
    ),
    `Host ${hostId}`,
  );
  // Unbound while the upload was on its way: the logs are kept, but the host is no longer the cluster's.
  if (stamped.clusterId !== request.clusterId) throw notFound(`Host ${hostId} not found in cluster ${request.clusterId}`);
  await recordEvent(deps, {
    name: 'host_logs_uploaded',
    subject: { orgId, infraEnvId: stamped.infraEnvId, hostId, clusterId: request.clusterId },
    props: { host_name: hostDisplayName(stamped) },
  });
}

async function uploadControllerLogs(deps: LogsDeps, principal: Principal, request: UploadLogsRequest): Promise<void> {
  const { orgId } = principal;
  await findCluster(deps.store, principal, request.clusterId);
  const content = await request.readContent();
  await deps.blobs.put('logs', controllerLogsObjectKey(orgId, request.clusterId), content, LOGS_CONTENT_TYPE);
  const now = deps.clock.now().toISOString();
  let first = false;
  stillThere(
    await deps.store.clusters.mutate({ orgId, clusterId: request.clusterId }, (current) => {
      first = !hasCollectedLogs(current.attributes, CLUSTER_LOGS_COLLECTED_AT);
      return { ...current, attributes: withLogsUploaded(current.attributes, CLUSTER_LOGS_COLLECTED_AT, now), updatedAt: now };
    }),
    `Cluster ${request.clusterId}`,
  );
  // The controller uploads every few minutes; upstream tells the story once, on the first upload.
  if (first) await recordEvent(deps, { name: 'cluster_logs_uploaded', subject: { orgId, clusterId: request.clusterId } });
}

/**
 * A host of the cluster, seen by the caller. An agent reaches only hosts of its own infra-env (and
 * names another infra-env in vain); a user without `infra_env_id` is looked up across the cluster.
 */
async function findClusterHost(store: Store, principal: Principal, clusterId: string, hostId: string, infraEnvId: string | undefined): Promise<Host> {
  const missing = () => notFound(`Host ${hostId} not found in cluster ${clusterId}`);
  if (!(await store.clusters.get({ orgId: principal.orgId, clusterId }))) throw notFound(`Cluster ${clusterId} not found`);
  let host: Host | undefined;
  const scope = infraEnvId ?? (principal.kind === 'agent' ? principal.infraEnvId : undefined);
  if (scope !== undefined) {
    host = await findHost(store, principal, scope, hostId).catch((error: unknown) => {
      if (error instanceof DomainError && error.kind === 'not-found') throw missing();
      throw error;
    });
  } else {
    host = (await store.hosts.listByCluster({ orgId: principal.orgId, clusterId })).find((candidate) => candidate.hostId === hostId);
  }
  if (!host || host.clusterId !== clusterId) throw missing();
  return host;
}

/** PUT /v2/infra-envs/{id}/hosts/{host_id}/logs-progress */
export async function updateHostLogsProgress(deps: LogsDeps, principal: Principal, infraEnvId: string, hostId: string, state: LogsState): Promise<void> {
  await findHost(deps.store, principal, infraEnvId, hostId);
  const now = deps.clock.now().toISOString();
  stillThere(
    await deps.store.hosts.mutate({ orgId: principal.orgId, infraEnvId, hostId }, (current) => ({
      ...current,
      attributes: withLogsProgress(current.attributes, state, HOST_LOGS_STARTED_AT, now),
      updatedAt: now,
    })),
    `Host ${hostId}`,
  );
}

/** PUT /v2/clusters/{id}/logs-progress: the controller's collection. */
export async function updateClusterLogsProgress(deps: LogsDeps, principal: Principal, clusterId: string, state: LogsState): Promise<void> {
  await findCluster(deps.store, principal, clusterId);
  const now = deps.clock.now().toISOString();
  stillThere(
    await deps.store.clusters.mutate({ orgId: principal.orgId, clusterId }, (current) => ({
      ...current,
      attributes: withLogsProgress(current.attributes, state, CLUSTER_LOGS_STARTED_AT, now),
      updatedAt: now,
    })),
    `Cluster ${clusterId}`,
  );
}

export interface LogsDownload {
  fileName: string;
  content: Uint8Array;
}

/**
 * GET /v2/clusters/{id}/logs. `host` and `controller` give the archive as uploaded (409 when
 * none was); `all` gives a tar of every upload plus the cluster's description and events, as
 * upstream adds them (its `cluster_metadata.json` and `cluster_events.json`).
 */
export async function downloadClusterLogs(
  deps: LogsDeps,
  principal: Principal,
  clusterId: string,
  query: { logsType: DownloadLogsType; hostId?: string },
): Promise<LogsDownload> {
  const cluster = await findCluster(deps.store, principal, clusterId);
  const { orgId } = principal;
  const notUploaded = () => notFound(`Logs of type ${query.logsType} for cluster ${clusterId} were not found`);
  if (query.logsType === 'host') {
    const hostId = requireDownloadHostId(query.hostId);
    const host = (await deps.store.hosts.listByCluster({ orgId, clusterId })).find((candidate) => candidate.hostId === hostId);
    if (!host) throw notFound(`Host ${hostId} not found in cluster ${clusterId}`);
    requireHostLogs(host.attributes, hostId);
    const content = await deps.blobs.get('logs', hostLogsObjectKey(orgId, clusterId, hostId));
    if (!content) throw notUploaded();
    return { fileName: hostLogsFileName(cluster.name, logsSubject(host)), content };
  }
  if (query.logsType === 'controller') {
    requireControllerLogs(cluster.attributes, clusterId);
    const content = await deps.blobs.get('logs', controllerLogsObjectKey(orgId, clusterId));
    if (!content) throw notUploaded();
    return { fileName: controllerLogsFileName(cluster.name, clusterId), content };
  }
  return { fileName: allLogsFileName(cluster.name, clusterId), content: await logsBundle(deps, principal, cluster) };
}

function logsSubject(host: Host): HostLogsSubject {
  return { hostId: host.hostId, hostName: hostDisplayName(host), attributes: host.attributes };
}

async function logsBundle(deps: LogsDeps, principal: Principal, cluster: Cluster): Promise<Buffer> {
  const { orgId, clusterId } = cluster;
  const prefix = clusterLogsPrefix(orgId, clusterId);
  const objects = (await deps.blobs.list('logs', prefix))
    .map((key) => storedLogObject(prefix, key))
    .filter((object): object is StoredLogObject => object !== undefined);
  const hosts = await deps.store.hosts.listByCluster({ orgId, clusterId });
  const hostsById = new Map(hosts.map((host) => [host.hostId, logsSubject(host)]));
  const entries = logsBundleEntries(cluster.name, objects, hostsById, CONTROLLER_LOGS_FOLDER);

  const files: { path: string; contents: Buffer; mode: number }[] = [];
  for (let start = 0; start < entries.length; start += BUNDLE_READ_CONCURRENCY) {
    const batch = entries.slice(start, start + BUNDLE_READ_CONCURRENCY);
    const contents = await Promise.all(batch.map((entry) => deps.blobs.get('logs', entry.key)));
    batch.forEach((entry, index) => {
      const content = contents[index];
      // Listed a moment ago but gone now (replaced or purged): the bundle goes without it.
      if (content) files.push({ path: entry.path, contents: Buffer.from(content), mode: 0o644 });
    });
  }
  const metadata = await describeCluster(deps.store, cluster, { withHosts: true, hostStages: false });
  const { events } = await listEvents(deps, principal, { clusterId, limit: -1 });
  files.push(
    { path: 'cluster_metadata.json', contents: Buffer.from(JSON.stringify(metadata, null, 2)), mode: 0o644 },
    { path: 'cluster_events.json', contents: Buffer.from(JSON.stringify(events, null, 2)), mode: 0o644 },
  );
  return tarArchive(files, Math.floor(deps.clock.now().getTime() / 1000));
}
