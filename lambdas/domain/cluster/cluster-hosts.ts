/**
 * What a cluster's state depends on in its hosts: the success rule ("enough masters and workers"),
 * the installation progress bar, and the finalizing-stage timeouts. Pure.
 */
import type { HostRole, HostStage } from '../host/host-states.js';
import type { Host, HostAttributes } from '../core/entities.js';
import { stagesFor } from '../host/host-states.js';
import { MINUTE_MS } from '../core/state-rules.js';

/** A host as the cluster machine sees it. */
export interface ClusterHostSummary {
  status: string;
  /** The role as assigned (auto-assign until the install action assigns one). */
  role?: HostRole;
  suggestedRole?: HostRole;
  bootstrap?: boolean;
  /** The host has fencing credentials (two-node-with-fencing clusters). */
  hasFencingCredentials?: boolean;
  currentStage?: HostStage;
}

export const MIN_MASTERS_HA = 3;
/** OpenShift 4.18 and later accept 4 or 5 control-plane nodes; the install validations enforce the cap. */
export const MAX_MASTERS_HA_OCP_418_OR_NEWER = 5;
export const MIN_MASTERS_HA_ARBITER = 2;
export const MASTERS_TWO_NODES_WITH_FENCING = 2;
/** With at least this many workers the masters are not schedulable, so the workers must install. */
export const MIN_WORKERS_FOR_NON_SCHEDULABLE_MASTERS = 2;

/** auto-assign shows its suggestion, as upstream's GetEffectiveRole. */
export function effectiveRole(host: Pick<ClusterHostSummary, 'role' | 'suggestedRole'>): HostRole | undefined {
  return host.role === 'auto-assign' && host.suggestedRole ? host.suggestedRole : host.role;
}

/** effectiveRole of a stored host's attributes. */
export function hostEffectiveRole(attributes: HostAttributes): HostRole | undefined {
  return effectiveRole({ role: attributes.role, suggestedRole: attributes.suggested_role });
}

const isMasterRole = (role: HostRole | undefined) => role === 'master' || role === 'bootstrap';

/** Counts, by effective role, the hosts whose status is in `statuses`. */
export function hostsInStatus(hosts: readonly ClusterHostSummary[], statuses: readonly string[]): { masters: number; arbiters: number; workers: number } {
  const counts = { masters: 0, arbiters: 0, workers: 0 };
  for (const host of hosts) {
    if (!statuses.includes(host.status)) continue;
    const role = effectiveRole(host);
    if (isMasterRole(role)) counts.masters++;
    else if (role === 'arbiter') counts.arbiters++;
    else if (role === 'worker') counts.workers++;
  }
  return counts;
}

/** Two masters with fencing credentials and no arbiter (OpenShift 4.20+ topology). */
export function isTwoNodesWithFencing(hosts: readonly ClusterHostSummary[], controlPlaneCount: number): boolean {
  if (controlPlaneCount !== MASTERS_TWO_NODES_WITH_FENCING) return false;
  if (hosts.some((host) => effectiveRole(host) === 'arbiter')) return false;
  const masters = hosts.filter((host) => effectiveRole(host) === 'master');
  return masters.length === MASTERS_TWO_NODES_WITH_FENCING && masters.every((host) => host.hasFencingCredentials === true);
}

/**
 * Whether the hosts in `statuses` make a working cluster (upstream's HasEnoughMastersAndWorkers):
 *  - single node (control plane count 1): exactly one master and no worker;
 *  - otherwise every assigned master (at least 3; 2 with an arbiter, which must be in the statuses
 *    too, or with two-node fencing), and — when 2 or more workers were assigned, i.e. the masters
 *    are not schedulable — at least 2 workers. Fewer assigned workers are not required at all.
 * Expected counts use the assigned role; counts in status use the effective role, as upstream.
 */
export function hasEnoughMastersAndWorkers(hosts: readonly ClusterHostSummary[], controlPlaneCount: number, statuses: readonly string[]): boolean {
  const inStatus = hostsInStatus(hosts, statuses);
  if (controlPlaneCount === 1) return inStatus.masters === 1 && inStatus.workers === 0;

  const expectedMasters = hosts.filter((host) => isMasterRole(host.role)).length;
  const expectedArbiters = hosts.filter((host) => host.role === 'arbiter').length;
  const expectedWorkers = hosts.filter((host) => host.role === 'worker').length;

  let minMasters = MIN_MASTERS_HA;
  if (expectedArbiters > 0) {
    minMasters = MIN_MASTERS_HA_ARBITER;
    if (inStatus.arbiters === 0) return false;
  }
  if (isTwoNodesWithFencing(hosts, controlPlaneCount)) minMasters = MASTERS_TWO_NODES_WITH_FENCING;
  if (expectedMasters < minMasters || inStatus.masters < expectedMasters) return false;
  return expectedWorkers < MIN_WORKERS_FOR_NON_SCHEDULABLE_MASTERS || inStatus.workers >= MIN_WORKERS_FOR_NON_SCHEDULABLE_MASTERS;
}

// ---------------------------------------------------------------- operators and progress

export type OperatorStatus = 'available' | 'progressing' | 'failed';

export interface MonitoredOperatorSummary {
  name: string;
  type: 'builtin' | 'olm';
  /** Absent until the controller reports it. */
  status?: OperatorStatus;
  timeoutSeconds?: number;
}

/** A built-in operator must be available; an OLM operator is done when available or failed (degraded). */
const operatorDone = (operator: MonitoredOperatorSummary) => operator.status === 'available' || (operator.type === 'olm' && operator.status === 'failed');

/** All monitored operators finished (trivially true without any, for clusters predating monitoring). */
export function operatorsComplete(operators: readonly MonitoredOperatorSummary[]): boolean {
  return operators.every(operatorDone);
}

export const PROGRESS_WEIGHTS = { preparing: 0.1, installing: 0.7, finalizing: 0.15 } as const;

export interface ClusterProgressPercentages {
  preparing_for_installation_stage_percentage: number;
  installing_stage_percentage: number;
  finalizing_stage_percentage: number;
  total_percentage: number;
}

export interface ClusterProgressInput {
  status: string;
  /** Hosts with their assigned role and reported stage. */
  hosts: readonly ClusterHostSummary[];
  singleNode: boolean;
  monitoredOperators: readonly MonitoredOperatorSummary[];
  previous?: Partial<ClusterProgressPercentages>;
}

/** Statuses that come after a successful preparation: preparing is then 100%. */
const PAST_PREPARATION = ['installing', 'installing-pending-user-action', 'finalizing', 'installed'];

/**
 * The `cluster-progress-info` percentages: installing = stages done over stages to do across all
 * hosts; finalizing = finished operators over monitored ones; total weights them 0.1/0.7/0.15 and
 * never goes down (a host can be re-counted, the bar must not jump back); installed is always 100.
 */
export function clusterProgress(input: ClusterProgressInput): ClusterProgressPercentages {
  const previous = input.previous ?? {};
  const preparing = PAST_PREPARATION.includes(input.status) ? 100 : (previous.preparing_for_installation_stage_percentage ?? 0);

  let doneStages = 0;
  let allStages = 0;
  for (const host of input.hosts) {
    const stages = stagesFor({ role: host.role, bootstrap: host.bootstrap, singleNode: input.singleNode });
    doneStages += host.currentStage ? stages.indexOf(host.currentStage) + 1 : 0;
    allStages += stages.length;
  }
  const installing = allStages === 0 ? (previous.installing_stage_percentage ?? 0) : Math.trunc((doneStages / allStages) * 100);

  const operators = input.monitoredOperators;
  const finalizing =
    operators.length === 0 ? (previous.finalizing_stage_percentage ?? 0) : Math.trunc((operators.filter(operatorDone).length / operators.length) * 100);

  let total =
    Math.trunc(PROGRESS_WEIGHTS.installing * installing) + Math.trunc(PROGRESS_WEIGHTS.preparing * preparing + PROGRESS_WEIGHTS.finalizing * finalizing);
  if (input.status === 'installed') total = 100;
  total = Math.max(total, previous.total_percentage ?? 0);
  return {
    preparing_for_installation_stage_percentage: preparing,
    installing_stage_percentage: installing,
    finalizing_stage_percentage: input.status === 'installed' ? 100 : finalizing,
    total_percentage: total,
  };
}

// ---------------------------------------------------------------- finalizing stages

export const FINALIZING_STAGES = [
  'Waiting for cluster operators',
  'Adding router ca',
  'Applying olm manifests',
  'Waiting for olm operators csv initialization',
  'Waiting for olm operators csv',
  'Waiting for OLM operator setup jobs',
  'Done',
] as const;
export type FinalizingStage = (typeof FINALIZING_STAGES)[number];

/** Stages that only warn when overdue: OLM operators failing leave a degraded but working cluster. */
export const NON_FAILING_FINALIZING_STAGES: readonly FinalizingStage[] = [
  'Applying olm manifests',
  'Waiting for olm operators csv initialization',
  'Waiting for olm operators csv',
];
const OLM_FINALIZING_STAGES: readonly FinalizingStage[] = [
  'Waiting for olm operators csv initialization',
  'Waiting for olm operators csv',
  'Waiting for OLM operator setup jobs',
];

const GENERAL_WAIT = 70 * MINUTE_MS;
const SHORT_WAIT = 10 * MINUTE_MS;
const LONG_WAIT = 10 * 60 * MINUTE_MS;

/** Upstream's defaults (env FINALIZING_STAGE_<STAGE>_TIMEOUT overrides them there); others wait GENERAL_WAIT. */
const FINALIZING_STAGE_TIMEOUTS: Readonly<Record<'hard' | 'soft', Partial<Record<FinalizingStage, number>>>> = {
  // Cluster operators may legitimately take hours; with hard timeouts that is where a cluster fails.
  hard: { 'Waiting for cluster operators': LONG_WAIT, 'Applying olm manifests': SHORT_WAIT, 'Waiting for OLM operator setup jobs': SHORT_WAIT },
  soft: { 'Waiting for cluster operators': GENERAL_WAIT, 'Applying olm manifests': SHORT_WAIT, 'Waiting for OLM operator setup jobs': SHORT_WAIT },
};

/** How long a finalizing stage may take; OLM stages wait at least as long as the slowest OLM operator asks. */
export function finalizingStageTimeoutMs(stage: FinalizingStage, operators: readonly MonitoredOperatorSummary[], softTimeouts: boolean): number {
  const base = FINALIZING_STAGE_TIMEOUTS[softTimeouts ? 'soft' : 'hard'][stage] ?? GENERAL_WAIT;
  if (!OLM_FINALIZING_STAGES.includes(stage)) return base;
  const olmTimeoutsMs = operators.filter((operator) => operator.type === 'olm').map((operator) => (operator.timeoutSeconds ?? 0) * 1000);
  return Math.max(base, ...olmTimeoutsMs);
}

/** What the cluster's judgement reads of one of its hosts. */
export function summaryOf(host: Host): ClusterHostSummary {
  const progress = host.attributes.progress;
  return {
    status: host.status,
    role: host.attributes.role ?? 'auto-assign',
    suggestedRole: host.attributes.suggested_role,
    bootstrap: !!host.attributes.bootstrap,
    // Read by isTwoNodesWithFencing: without it no cluster was ever judged a two-node fencing one.
    hasFencingCredentials: !!host.attributes.fencing_credentials,
    ...(progress?.current_stage ? { currentStage: progress.current_stage } : {}),
  };
}
