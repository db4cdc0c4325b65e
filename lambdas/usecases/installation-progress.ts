/**
 * What the on-host installer and the in-cluster controller report while a cluster installs
 * (upstream's V2UpdateHostInstallProgress, V2UpdateClusterFinalizingProgress, the monitored-operator
 * endpoints, V2UploadClusterIngressCert and V2CompleteInstallation). Each change is a conditional
 * write on the record as read; the host and cluster machines then follow from what was written.
 */
import { clusterProgress } from '../domain/cluster/cluster-hosts.js';
import type { Cluster } from '../domain/core/entities.js';
import { badRequest, conflict } from '../domain/core/errors.js';
import {
  applyFinalizingStage,
  applyHostProgress,
  applyOperatorReport,
  CONTROLLER_COMPLETION,
  failedOperatorNames,
  installationTransitionContext,
  KUBECONFIG_CREATED_AT,
  KubeconfigUnusable,
  mergeIngressCaIntoKubeconfig,
  monitoredOperatorsView,
  operatorSummaries,
  type HostProgressOutcome,
  type OperatorReport,
} from '../domain/install/installation-progress.js';
import type { HostStage } from '../domain/host/host-states.js';
import { INSTALLATION_BUCKET, installationObjectKey } from '../domain/core/object-keys.js';
import type { BlobStore } from '../ports/blobs.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { findCluster, findHost, stillThere } from './access.js';
import { summaryOf } from '../domain/cluster/cluster-hosts.js';
import { refreshCluster } from './cluster-refresh.js';
import { describeCluster, withCreationAsImageTime } from './cluster-view.js';
import { causedBy, hostWrite, recordEvent, recordEvents } from './events.js';
import { forgetPeers } from './cluster-peer-listings.js';
import type { Principal } from './principal.js';

export { installationTransitionContext };

export interface InstallationDeps {
  store: Store;
  clock: Clock;
  blobs: BlobStore;
}

type ClusterKey = { orgId: string; clusterId: string };

/** Upstream keeps at most this much of a controller's error text. */
const MAX_ERROR_INFO = 2_048;

// ---------------------------------------------------------------- host progress

export interface HostProgressRequest {
  current_stage?: HostStage;
  progress_info?: string;
}

/** PUT /v2/infra-envs/{id}/hosts/{host_id}/progress */
export async function updateHostInstallProgress(
  deps: InstallationDeps,
  principal: Principal,
  infraEnvId: string,
  hostId: string,
  request: HostProgressRequest,
): Promise<void> {
  if (!request.current_stage) throw badRequest('current_stage is required');
  const report = { stage: request.current_stage, info: request.progress_info ?? '' };
  const host = await findHost(deps.store, principal, infraEnvId, hostId);
  if (!host.clusterId) throw badRequest(`host ${hostId} is not bound to any cluster, cannot update progress`);
  const clusterKey = { orgId: principal.orgId, clusterId: host.clusterId };
  // A second-old copy: only the cluster's size is read here (its status moves no progress rule),
  // and the host's write is conditional on the host as read, whose own status cancel and reset write.
  const cluster = stillThere(await deps.store.clusters.getRecent(clusterKey), `Cluster ${host.clusterId} of host ${hostId}`);
  const progressCluster = { status: cluster.status, singleNode: cluster.attributes.control_plane_count === 1 };

  const now = deps.clock.now();
  let outcome: HostProgressOutcome | undefined;
  const stored = await deps.store.hosts.mutate(
    { orgId: principal.orgId, infraEnvId, hostId },
    (current) => {
      outcome = applyHostProgress(current, progressCluster, report, now);
      return outcome.changed ? outcome.host : undefined;
    },
    host,
  );
  stillThere(stored, `Host ${hostId}`);
  if (!outcome?.changed) return;

  const subject = { orgId: principal.orgId, infraEnvId, hostId, clusterId: host.clusterId };
  const events = [...(outcome.transition?.events ?? []), ...(outcome.progressEvent ? [outcome.progressEvent] : [])];
  await recordEvents(
    deps,
    causedBy(
      hostWrite(stored!),
      events.map((event) => ({ name: event.name, subject, props: event.props })),
    ),
  );
  forgetPeers(principal.orgId, host.clusterId);
  // The cluster's progress bar and status follow the host's stage and status: the change reaches
  // the cluster's judgement through the table's stream (host-changes), not inside this report.
}

const PERCENTAGE_FIELDS = [
  'preparing_for_installation_stage_percentage',
  'installing_stage_percentage',
  'finalizing_stage_percentage',
  'total_percentage',
] as const;

/**
 * The cluster's progress bar after a host reached a stage or an operator reported (upstream's
 * UpdateInstallProgress / UpdateFinalizingProgress). A cluster adding hosts to an installed
 * cluster has no progress of its own.
 */
export async function updateClusterProgress(deps: InstallationDeps, key: ClusterKey): Promise<void> {
  const cluster = await deps.store.clusters.get(key);
  if (!cluster || cluster.attributes.kind === 'AddHostsCluster') return;
  // Stages and statuses only: when each agent last polled moves no progress bar.
  const hosts = (await deps.store.hosts.listByCluster(key, { liveness: false })).map(summaryOf);
  await deps.store.clusters.mutate(key, (current) => {
    const previous = current.attributes.progress ?? {};
    const percentages = clusterProgress({
      status: current.status,
      hosts,
      singleNode: current.attributes.control_plane_count === 1,
      monitoredOperators: operatorSummaries(current),
      previous,
    });
    if (PERCENTAGE_FIELDS.every((field) => previous[field] === percentages[field])) return undefined;
    return { ...current, attributes: { ...current.attributes, progress: { ...previous, ...percentages } } };
  });
}

// ---------------------------------------------------------------- controller reports

/** PUT /v2/clusters/{id}/progress */
export async function updateClusterFinalizingProgress(
  deps: InstallationDeps,
  principal: Principal,
  clusterId: string,
  stage: string | undefined,
): Promise<void> {
  await findCluster(deps.store, principal, clusterId);
  const now = deps.clock.now();
  let changed = false;
  stillThere(
    await deps.store.clusters.mutate({ orgId: principal.orgId, clusterId }, (current) => {
      const next = applyFinalizingStage(current, stage ?? '', now);
      changed = next !== undefined;
      return next;
    }),
    `Cluster ${clusterId}`,
  );
  if (changed) {
    await recordEvent(deps, {
      name: 'cluster_finalizing_stage_updated',
      subject: { orgId: principal.orgId, clusterId },
      props: { finalizing_stage: stage ?? '' },
    });
  }
}

/** GET /v2/clusters/{id}/monitored-operators */
export async function listMonitoredOperators(deps: InstallationDeps, principal: Principal, clusterId: string, operatorName?: string) {
  return monitoredOperatorsView(await findCluster(deps.store, principal, clusterId), operatorName);
}

/** PUT /v2/clusters/{id}/monitored-operators */
export async function reportMonitoredOperatorStatus(deps: InstallationDeps, principal: Principal, clusterId: string, report: OperatorReport): Promise<void> {
  await findCluster(deps.store, principal, clusterId);
  const now = deps.clock.now();
  const key = { orgId: principal.orgId, clusterId };
  let changed = false;
  stillThere(
    await deps.store.clusters.mutate(key, (current) => {
      const next = applyOperatorReport(current, report, now);
      changed = next !== undefined;
      return next;
    }),
    `Cluster ${clusterId}`,
  );
  if (!changed) return;
  await recordEvent(deps, {
    name: 'cluster_operator_status',
    subject: key,
    props: { operator_name: report.name ?? '', status: report.status ?? '', status_info: report.status_info ?? '' },
  });
  await updateClusterProgress(deps, key);
  // The last operator becoming available may be what the cluster waited for to be installed.
  await refreshCluster(deps, key);
}

const INGRESS_CERT_STATUSES = ['finalizing', 'installed'];

/**
 * POST /v2/clusters/{id}/uploads/ingress-cert: the final kubeconfig is kubeconfig-noingress with
 * the ingress CA added. Written once; a later upload is accepted and changes nothing. Neither
 * kubeconfig ever reaches a log, an event or an error message.
 */
export async function uploadIngressCert(deps: InstallationDeps, principal: Principal, clusterId: string, ingressCaPem: unknown): Promise<void> {
  if (typeof ingressCaPem !== 'string' || ingressCaPem.trim() === '') throw badRequest('the body must be the ingress CA certificate in PEM, as a JSON string');
  const cluster = await findCluster(deps.store, principal, clusterId);
  if (!INGRESS_CERT_STATUSES.includes(cluster.status)) {
    throw badRequest(`Cluster ${clusterId} is in ${cluster.status} state, upload ingress ca can be done only in finalizing or installed state`);
  }
  if (typeof cluster.attributes[KUBECONFIG_CREATED_AT] === 'string') return;

  const noIngress = await deps.blobs.get(INSTALLATION_BUCKET, installationObjectKey(principal.orgId, clusterId, 'kubeconfig-noingress'));
  if (!noIngress) throw conflict(`kubeconfig-noingress of cluster ${clusterId} was not generated; the installation did not produce its credentials`);
  let merged: string;
  try {
    merged = mergeIngressCaIntoKubeconfig(Buffer.from(noIngress).toString('utf8'), ingressCaPem);
  } catch (error) {
    // Our generated file is broken: an internal error, reported without its content.
    if (error instanceof KubeconfigUnusable) throw new Error(`cluster ${clusterId}: ${error.message}`);
    throw error;
  }
  await deps.blobs.put(INSTALLATION_BUCKET, installationObjectKey(principal.orgId, clusterId, 'kubeconfig'), merged, 'application/yaml');
  const now = deps.clock.now().toISOString();
  const key = { orgId: principal.orgId, clusterId };
  stillThere(
    await deps.store.clusters.mutate(key, (current) =>
      typeof current.attributes[KUBECONFIG_CREATED_AT] === 'string'
        ? undefined
        : { ...current, attributes: { ...current.attributes, [KUBECONFIG_CREATED_AT]: now }, updatedAt: now },
    ),
    `Cluster ${clusterId}`,
  );
  await refreshCluster(deps, key);
}

export interface CompletionParams {
  is_success?: boolean;
  error_info?: string;
  data?: Record<string, unknown>;
}

/**
 * POST /v2/clusters/{id}/actions/complete-installation. Upstream no longer lets the controller
 * decide: the cluster is installed when its hosts, operators and kubeconfig say so. The call is
 * recorded, and a failure's operator report is told as an event, as upstream does.
 */
export async function completeInstallation(
  deps: InstallationDeps,
  principal: Principal,
  clusterId: string,
  params: CompletionParams,
): Promise<Record<string, unknown>> {
  await findCluster(deps.store, principal, clusterId);
  const key = { orgId: principal.orgId, clusterId };
  const success = params.is_success === true;
  if (!success) {
    const failed = failedOperatorNames(params.data);
    if (failed) await recordEvent(deps, { name: 'cluster_operator_report', subject: key, props: { report: failed.join(', ') } });
  }
  const now = deps.clock.now().toISOString();
  const completion = {
    is_success: success,
    ...(params.error_info ? { error_info: params.error_info.slice(0, MAX_ERROR_INFO) } : {}),
    reported_at: now,
  };
  const cluster: Cluster = stillThere(
    await deps.store.clusters.mutate(key, (current) => ({
      ...current,
      attributes: { ...current.attributes, [CONTROLLER_COMPLETION]: completion },
      updatedAt: now,
    })),
    `Cluster ${clusterId}`,
  );
  // Upstream answers the cluster as its update left it: the creation time as image_info.created_at, no host_networks.
  const { host_networks: _notAnswered, ...view } = await describeCluster(deps.store, cluster, { withHosts: true, hostStages: false });
  return withCreationAsImageTime(view, cluster);
}
