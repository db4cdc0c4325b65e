/**
 * What the on-host installer and the in-cluster controller report during an installation, and
 * the rules around the files it produces: host install stages and their percentage, finalizing
 * stages, monitored-operator reports, the ingress CA merged into the kubeconfig, and which files
 * may be downloaded when. Also the user's per-host installation settings (installer arguments,
 * ignition override). Pure: callers load, persist and emit.
 */
import { parseDocument, stringify as stringifyYaml } from 'yaml';
import type { ClusterTransitionContext } from '../cluster/cluster-facts.js';
import { monitoredOperatorWireView } from '../cluster/cluster-document.js';
import { FINALIZING_STAGES, type MonitoredOperatorSummary, type OperatorStatus } from '../cluster/cluster-hosts.js';
import { isX509Certificate, PEM_CERTIFICATE } from '../core/certificates.js';
import type { Cluster, ClusterAttributes, Host } from '../core/entities.js';
import { badRequest, conflict, errorMessage, notFound } from '../core/errors.js';
import { isJsonObject } from '../../../contracts/json-shapes.js';
import type { Schemas } from '../../../contracts/wire.js';
import { hostDisplayName } from '../host/host.js';
import { isNotAllowed, transitionHost, type EventIntent, type HostTransition } from '../host/host-state-machine.js';
import { checkHostProgress, HOST_STATUSES, type HostStage, type HostStatus } from '../host/host-states.js';

// ---------------------------------------------------------------- host install progress

/** `host.progress` as stored (the `host-progress-info` wire shape). */
export type StoredHostProgress = Schemas['host-progress-info'];

export interface HostProgressReport {
  stage: HostStage;
  info?: string;
}

/** What the host's cluster tells about the report: the machine's rules read its status. */
export interface ProgressCluster {
  status: string;
  singleNode: boolean;
}

export interface HostProgressOutcome {
  /** The host to store; the input itself when nothing changes. */
  host: Host;
  changed: boolean;
  /** A new stage (or Failed): the cluster's installing percentage moves. */
  stageChanged: boolean;
  /** Set when the state machine ran; its events come before the progress event, as upstream. */
  transition?: HostTransition;
  /** host_install_progress_updated, for every accepted change. */
  progressEvent?: EventIntent;
}

/** Statuses after which a host's installation is over: the monitors stop watching it. */
export const SETTLED_HOST_STATUSES: readonly string[] = ['installed', 'error', 'cancelled', 'added-to-existing-cluster'];

/**
 * Whether the monitors watch a host in this status: until it settles, and after an error or a
 * cancellation while its logs are still awaited (their collection times out).
 */
export function isWatchedHost(status: string, attributes: Readonly<Record<string, unknown>>): boolean {
  if (!SETTLED_HOST_STATUSES.includes(status)) return true;
  return (status === 'error' || status === 'cancelled') && !['completed', 'timeout'].includes(String(attributes.logs_info ?? ''));
}

/**
 * Upstream's host percentage is its float cut to an integer: its answers say 37 for 3 of 8 stages
 * (37.5), 87 for 7 of 8, 54 for 6 of 11 and 66 for 6 of 9 (test/fixtures/upstream-host-progress).
 */
export function storedPercentage(value: number): number {
  return Math.trunc(value);
}

const roleOf = (host: Host) => host.attributes.role;
const isDay2 = (host: Host) => host.attributes.kind === 'AddToExistingClusterHost';

/** Upstream's event text: "reached installation stage <stage>[: <info>]". */
export function progressEventText(report: HostProgressReport): string {
  return `reached installation stage ${report.stage}${report.info ? `: ${report.info}` : ''}`;
}

/**
 * Applies an installer or controller progress report to a host, as upstream's UpdateInstallProgress:
 *  - the same stage and info again changes nothing; the same stage with new info records the info;
 *  - otherwise the host must be installing (409), the stage must be one of its role's and not
 *    earlier than the current one (409), then the stage is recorded with its percentage and the
 *    host machine runs HostProgressChanged (Done → installed, a day-2 host's Rebooting → Done, …);
 *  - Failed keeps the last progress and moves the host to error with the reported reason.
 */
export function applyHostProgress(host: Host, cluster: ProgressCluster, report: HostProgressReport, now: Date): HostProgressOutcome {
  if (!host.clusterId) throw badRequest(`host ${host.hostId} is not bound to any cluster, cannot update progress`);
  const status = knownStatus(host);
  const progress = host.attributes.progress ?? {};
  const selector = { role: roleOf(host), bootstrap: !!host.attributes.bootstrap, singleNode: cluster.singleNode, day2: isDay2(host), kubeApi: false };
  const accepted = checkHostProgress(status, { ...selector, currentStage: progress.current_stage, progressInfo: progress.progress_info }, report);
  if (isNotAllowed(accepted)) throw conflict(accepted.reason);
  if (!accepted.changed) return { host, changed: false, stageChanged: false };

  const at = now.toISOString();
  const info = report.info ?? '';
  const next = structuredClone(host);
  next.updatedAt = at;
  const progressEvent: EventIntent = { name: 'host_install_progress_updated', props: { host_name: hostDisplayName(host), event: progressEventText(report) } };
  if (!accepted.stageChanged) {
    next.attributes.progress = { ...progress, progress_info: info, stage_updated_at: at };
    return { host: next, changed: true, stageChanged: false, progressEvent };
  }

  let machineStage: HostStage = accepted.recordedStage;
  if (report.stage !== 'Failed') {
    const newStage = progress.current_stage !== accepted.recordedStage;
    // A new stage has its own clock: the previous stage's timed-out mark goes with it (upstream
    // never sends a false one, and the UI warns whenever the field is there).
    const { stage_timed_out: previousStageTimedOut, ...kept } = progress;
    next.attributes.progress = {
      ...kept,
      ...(!newStage && previousStageTimedOut ? { stage_timed_out: previousStageTimedOut } : {}),
      current_stage: accepted.recordedStage,
      progress_info: info,
      stage_updated_at: at,
      ...(newStage ? { stage_started_at: at } : {}),
      installation_percentage: storedPercentage(accepted.installationPercentage ?? 0),
    } satisfies StoredHostProgress;
  } else {
    machineStage = 'Failed';
  }
  const transition = transitionHost({ status }, 'HostProgressChanged', {
    now,
    hostName: hostDisplayName(host),
    statusInfo: host.attributes.status_info,
    statusUpdatedAt: host.attributes.status_updated_at,
    bound: true,
    day2: selector.day2,
    role: selector.role,
    bootstrap: selector.bootstrap,
    progress: { currentStage: machineStage, progressInfo: info, stageUpdatedAt: at },
    cluster: { status: cluster.status, singleNode: cluster.singleNode },
    kubeApi: false,
  });
  if (isNotAllowed(transition)) throw conflict(transition.reason);
  if (transition.changed) {
    next.status = transition.status;
    next.attributes.status_info = transition.statusInfo;
    if (transition.status !== host.status) next.attributes.status_updated_at = at;
    if (!isWatchedHost(transition.status, next.attributes)) delete next.monitorShard;
  }
  return { host: next, changed: true, stageChanged: true, transition, progressEvent };
}

/** The host's status, one of the `host` schema's: the store keeps no other. */
function knownStatus(host: Host): HostStatus {
  const status = HOST_STATUSES.find((known) => known === host.status);
  if (status === undefined) throw new Error(`host ${host.hostId} has status ${host.status}, which no host has`);
  return status;
}

// ---------------------------------------------------------------- finalizing and operators

/** `cluster.progress` as stored (the `cluster-progress-info` wire shape). */
export type StoredClusterProgress = Schemas['cluster-progress-info'];

/** Statuses in which the controller reports finalizing stages (upstream answers 400 otherwise). */
export const FINALIZING_REPORT_STATUSES: readonly string[] = ['installing', 'finalizing', 'installing-pending-user-action'];

/**
 * A finalizing-stage report: a new stage is recorded with a fresh clock (and its timed-out flag
 * cleared); the same stage again changes nothing. Returns undefined when nothing changes.
 */
export function applyFinalizingStage(cluster: Cluster, stage: string, now: Date): Cluster | undefined {
  const finalizingStage = FINALIZING_STAGES.find((known) => known === stage);
  if (finalizingStage === undefined) throw badRequest(`invalid finalizing stage '${stage}'`);
  if (!FINALIZING_REPORT_STATUSES.includes(cluster.status)) {
    throw badRequest(`cluster is ${cluster.status}, not in one of allowed statuses: [${FINALIZING_REPORT_STATUSES.join(' ')}]`);
  }
  const progress = cluster.attributes.progress ?? {};
  if (progress.finalizing_stage === finalizingStage) return undefined;
  const next = structuredClone(cluster);
  const at = now.toISOString();
  next.attributes.progress = {
    ...progress,
    finalizing_stage: finalizingStage,
    finalizing_stage_started_at: at,
    finalizing_stage_timed_out: false,
  } satisfies StoredClusterProgress;
  next.updatedAt = at;
  return next;
}

/** A `monitored-operator` as kept in cluster.attributes.monitored_operators. */
export type StoredMonitoredOperator = Schemas['monitored-operator'];

export function storedOperators(cluster: Cluster): StoredMonitoredOperator[] {
  const operators = cluster.attributes.monitored_operators;
  return Array.isArray(operators) ? operators : [];
}

/** The `monitored-operators-list`, optionally one operator by name (404 when the cluster has none of that name). */
export function monitoredOperatorsView(cluster: Cluster, operatorName?: string): Record<string, unknown>[] {
  const all = storedOperators(cluster).map((operator) => monitoredOperatorWireView(operator as Record<string, unknown>, cluster.clusterId));
  if (operatorName === undefined) return all;
  if (operatorName === '') throw badRequest('empty operator name is not allowed');
  const found = all.filter((operator) => operator.name === operatorName);
  if (found.length === 0) throw operatorNotFound(cluster.clusterId, operatorName);
  return found;
}

function operatorNotFound(clusterId: string, name: string) {
  return notFound(`operator ${name} is not monitored for cluster ${clusterId}`);
}

export interface OperatorReport {
  name?: string;
  status?: OperatorStatus;
  status_info?: string;
  version?: string;
}

/**
 * A controller's operator report: status, info and version are taken when given (an empty one
 * keeps what was known), stamped with the time. A report that repeats what is stored changes
 * nothing, so a retried request neither rewrites nor repeats the event.
 */
export function applyOperatorReport(cluster: Cluster, report: OperatorReport, now: Date): Cluster | undefined {
  const name = report.name ?? '';
  if (name === '') throw badRequest('empty operator name is not allowed');
  const operators = storedOperators(cluster);
  const index = operators.findIndex((operator) => operator.name === name);
  if (index === -1) throw operatorNotFound(cluster.clusterId, name);
  const current = operators[index]!;
  const updated: StoredMonitoredOperator = {
    ...current,
    ...(report.status ? { status: report.status } : {}),
    ...(report.status_info ? { status_info: report.status_info } : {}),
    ...(report.version ? { version: report.version } : {}),
  };
  const same = updated.status === current.status && updated.status_info === current.status_info && updated.version === current.version;
  if (same && current.status_updated_at) return undefined;
  const next = structuredClone(cluster);
  const at = now.toISOString();
  next.attributes.monitored_operators = operators.map((operator, i) => (i === index ? { ...updated, status_updated_at: at } : operator));
  next.updatedAt = at;
  return next;
}

export function operatorSummaries(cluster: Cluster): MonitoredOperatorSummary[] {
  return storedOperators(cluster).map((operator) => ({
    name: operator.name ?? '',
    type: operator.operator_type === 'olm' ? 'olm' : 'builtin',
    ...(operator.status ? { status: operator.status } : {}),
    ...(operator.timeout_seconds !== undefined ? { timeoutSeconds: operator.timeout_seconds } : {}),
  }));
}

/** Set once the final kubeconfig (kubeconfig-noingress plus the ingress CA) is stored. */
export const KUBECONFIG_CREATED_AT = 'kubeconfig_created_at';
/** The controller's complete-installation call, as it reported it. */
export const CONTROLLER_COMPLETION = 'controller_completion';

/**
 * What the cluster machine needs from the installation's reports (finalizing stage, operators,
 * the final kubeconfig), read from the attributes this module writes, so no object store call is needed.
 */
export function installationTransitionContext(cluster: Cluster): Pick<ClusterTransitionContext, 'finalizing' | 'monitoredOperators' | 'kubeconfigExists'> {
  const progress = cluster.attributes.progress ?? {};
  return {
    ...(progress.finalizing_stage
      ? {
          finalizing: {
            stage: progress.finalizing_stage,
            ...(progress.finalizing_stage_started_at ? { stageStartedAt: progress.finalizing_stage_started_at } : {}),
            stageTimedOut: progress.finalizing_stage_timed_out ?? false,
          },
        }
      : {}),
    monitoredOperators: operatorSummaries(cluster),
    kubeconfigExists: typeof cluster.attributes[KUBECONFIG_CREATED_AT] === 'string',
  };
}

/**
 * The attributes without what an installation attempt recorded here: for a reset, which deletes
 * the generated files, so the next attempt starts from no kubeconfig, stage or operator status.
 */
export function withoutInstallationReports(attributes: ClusterAttributes): ClusterAttributes {
  const next = structuredClone(attributes);
  delete next[KUBECONFIG_CREATED_AT];
  delete next[CONTROLLER_COMPLETION];
  const progress = next.progress;
  if (progress) {
    delete progress.finalizing_stage;
    delete progress.finalizing_stage_started_at;
    delete progress.finalizing_stage_timed_out;
  }
  if (Array.isArray(next.monitored_operators)) {
    next.monitored_operators = next.monitored_operators.map((operator) => {
      const { status: _status, status_info: _info, status_updated_at: _at, version: _version, ...rest } = operator;
      return rest;
    });
  }
  return next;
}

/** complete-installation's `data.CLUSTER_OPERATORS_REPORT`: the names of the operators reported failed. */
export function failedOperatorNames(data: unknown): string[] | undefined {
  const report = isJsonObject(data) ? data.CLUSTER_OPERATORS_REPORT : undefined;
  if (!Array.isArray(report)) return undefined;
  return report.filter((entry) => isJsonObject(entry) && entry.status === 'failed').map((entry) => String(entry.name ?? ''));
}

// ---------------------------------------------------------------- ingress CA and kubeconfig

/** Whether the text holds at least one parsable certificate (Go's AppendCertsFromPEM succeeding). */
function holdsCertificate(pem: string): boolean {
  return (pem.match(PEM_CERTIFICATE) ?? []).some(isX509Certificate);
}

/** The kubeconfig the installer wrote is unusable: ours to fix, not the caller's. */
export class KubeconfigUnusable extends Error {
  constructor(reason: string) {
    super(`kubeconfig-noingress is unusable: ${reason}`);
    this.name = 'KubeconfigUnusable';
  }
}

/**
 * Adds the ingress CA in front of every cluster's certificate-authority-data (as upstream does), so
 * clients trust the OAuth route too. A bad ingress PEM is the caller's 400; a broken kubeconfig is ours.
 */
export function mergeIngressCaIntoKubeconfig(kubeconfigText: string, ingressCaPem: string): string {
  if (!holdsCertificate(ingressCaPem)) throw badRequest('given ingress-ca is not valid PEM format');
  // Errors are checked, not thrown or logged: the parser's messages quote the document, which holds the admin client key.
  const document = parseDocument(kubeconfigText, { logLevel: 'silent' });
  if (document.errors.length > 0) throw new KubeconfigUnusable('it is not YAML');
  // Only the clusters' CAs are read and changed; everything else is carried through as parsed.
  const kubeconfig: unknown = document.toJS();
  const clusters = isJsonObject(kubeconfig) ? kubeconfig.clusters : undefined;
  if (!Array.isArray(clusters) || clusters.length === 0) throw new KubeconfigUnusable('it names no cluster');
  const ingress = ingressCaPem.endsWith('\n') ? ingressCaPem : `${ingressCaPem}\n`;
  for (const entry of clusters) {
    const cluster: unknown = isJsonObject(entry) ? entry.cluster : undefined;
    const data = isJsonObject(cluster) ? cluster['certificate-authority-data'] : undefined;
    if (!isJsonObject(cluster) || typeof data !== 'string' || data === '') throw new KubeconfigUnusable('certificate-authority-data not found');
    const clusterCa = Buffer.from(data, 'base64').toString('utf8');
    if (!holdsCertificate(clusterCa)) throw new KubeconfigUnusable('the cluster CA is not valid PEM');
    cluster['certificate-authority-data'] = Buffer.from(ingress + clusterCa, 'utf8').toString('base64');
  }
  return stringifyYaml(kubeconfig, { lineWidth: 0 });
}

// ---------------------------------------------------------------- downloads

export const CLUSTER_FILE_NAMES = [
  'bootstrap.ign',
  'master.ign',
  'arbiter.ign',
  'worker.ign',
  'metadata.json',
  'install-config.yaml',
  'custom_manifests.json',
  'custom_manifests.yaml',
] as const;
export const CREDENTIAL_FILE_NAMES = ['kubeadmin-password', 'kubeconfig', 'kubeconfig-noingress'] as const;
export type CredentialFileName = (typeof CREDENTIAL_FILE_NAMES)[number];

/** Generated files exist from installing on, and stay for the user to inspect after a failure. */
export const FILES_DOWNLOAD_STATUSES: readonly string[] = [
  'installing',
  'finalizing',
  'installed',
  'error',
  'adding-hosts',
  'cancelled',
  'installing-pending-user-action',
];
/** The final kubeconfig exists only once finalizing (the ingress CA arrives then). */
export const KUBECONFIG_DOWNLOAD_STATUSES: readonly string[] = FILES_DOWNLOAD_STATUSES.filter((status) => status !== 'installing');

/** Upstream's 409 text when a cluster's status does not allow a download yet. */
export function downloadRefusal(cluster: Pick<Cluster, 'clusterId' | 'status'>, fileName: string): string | undefined {
  const allowed = fileName === 'kubeconfig' ? KUBECONFIG_DOWNLOAD_STATUSES : FILES_DOWNLOAD_STATUSES;
  if (allowed.includes(cluster.status)) return undefined;
  const what = fileName === 'kubeconfig' ? 'kubeconfig' : (CREDENTIAL_FILE_NAMES as readonly string[]).includes(fileName) ? fileName : 'files';
  return `cluster ${cluster.clusterId} is in ${cluster.status} state, ${what} can be downloaded only when status is one of: [${allowed.join(' ')}]`;
}

/** Agents (installer, controller) need kubeconfig-noingress to reach the new API; the admin credentials are for people only. */
export const AGENT_CREDENTIAL_FILES: readonly CredentialFileName[] = ['kubeconfig-noingress'];

/** The role whose ignition a host boots: the bootstrap host boots master.ign here (it ran bootkube from bootstrap.ign already). */
export function roleIgnitionFileName(host: Host): string | undefined {
  const role = host.attributes.role === 'auto-assign' ? host.attributes.suggested_role : host.attributes.role;
  if (role === 'master' || role === 'bootstrap') return 'master.ign';
  if (role === 'worker' || role === 'arbiter') return `${role}.ign`;
  return undefined;
}

/** Upstream's attachment name for a host's ignition: `<effective role>-<host id>.ign`. */
export function hostIgnitionDownloadName(host: Host): string {
  const role = host.attributes.role === 'auto-assign' ? host.attributes.suggested_role : host.attributes.role;
  return `${typeof role === 'string' && role ? role : 'auto-assign'}-${host.hostId}.ign`;
}

const CONSOLE_URL_PREFIX = 'https://console-openshift-console.apps';

export function consoleUrl(clusterName: string, baseDnsDomain: string | undefined): string {
  return `${CONSOLE_URL_PREFIX}.${clusterName}.${baseDnsDomain ?? ''}`;
}

/** How long a presigned download stays valid (upstream: 10 minutes). */
export const PRESIGNED_URL_TTL_SECONDS = 600;

// ---------------------------------------------------------------- per-host installation settings

/** Ignition versions the host's pointer ignition merges an override of (upstream parses 3.2.0, else 3.1.0). */
export const HOST_IGNITION_OVERRIDE_VERSIONS = ['3.1.0', '3.2.0'];

/** Top-level sections of an Ignition 3.x config; each is an object when present. */
const IGNITION_SECTIONS = ['ignition', 'storage', 'systemd', 'passwd', 'kernelArguments'];

/** An Ignition config a host's installation ignition can take as an override; '' removes the override. */
export function hostIgnitionOverrideProblem(config: string): string | undefined {
  if (config === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(config);
  } catch (error) {
    return `error parsing ignition: ${errorMessage(error)}`;
  }
  if (!isJsonObject(parsed)) return 'error parsing ignition: the config must be a JSON object';
  for (const section of IGNITION_SECTIONS) {
    const value = parsed[section];
    if (value === undefined || value === null) continue;
    if (!isJsonObject(value)) return `error parsing ignition: ${section} must be an object`;
  }
  const version = isJsonObject(parsed.ignition) ? parsed.ignition.version : undefined;
  if (typeof version !== 'string' || !HOST_IGNITION_OVERRIDE_VERSIONS.includes(version)) {
    return `error parsing ignition: unsupported config version ${JSON.stringify(version ?? null)}; use ${HOST_IGNITION_OVERRIDE_VERSIONS.join(' or ')}`;
  }
  return undefined;
}
