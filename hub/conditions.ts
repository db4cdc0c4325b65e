/**
 * The conditions upstream's controllers set on AgentClusterInstall, InfraEnv and Agent, with its
 * reasons and messages, derived from what the REST API reports. Pure.
 */
import {
  CLUSTER_INSTALLING,
  notAvailableCondition,
  outcomeConditions,
  validatedCondition,
  validationSummary,
} from '../contracts/cluster-install-conditions.js';
import type { Cluster, Host } from '../contracts/wire.js';

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime?: string;
  lastProbeTime?: string;
}

/** Why a spec could not reach the service: the caller's input (4xx, a bad field) or the service (5xx, unreachable). */
export interface SyncProblem {
  kind: 'input' | 'backend';
  message: string;
}

export function specSynced(problem: SyncProblem | undefined, subject: 'cluster' | 'agent' = 'cluster'): Condition {
  void subject;
  if (!problem) return { type: 'SpecSynced', status: 'True', reason: 'SyncOK', message: 'The Spec has been successfully applied' };
  return problem.kind === 'input'
    ? { type: 'SpecSynced', status: 'False', reason: 'InputError', message: `The Spec could not be synced due to an input error: ${problem.message}` }
    : { type: 'SpecSynced', status: 'False', reason: 'BackendError', message: `The Spec could not be synced due to backend error: ${problem.message}` };
}

export interface AgentCounts {
  /** Agents bound to the cluster. */
  registered: number;
  /** Of those, the ones not approved. */
  unapproved: number;
}

/** The six AgentClusterInstall conditions for a cluster (undefined: not registered yet). */
export function clusterInstallConditions(
  cluster: Pick<Cluster, 'status' | 'status_info' | 'validations_info'> | undefined,
  expected: { controlPlane: number; workers: number },
  agents: AgentCounts,
  problem: SyncProblem | undefined,
  holdInstallation = false,
): Condition[] {
  if (!cluster) {
    return [
      specSynced(problem),
      notAvailableCondition('Validated'),
      notAvailableCondition('RequirementsMet'),
      notAvailableCondition('Completed'),
      notAvailableCondition('Failed'),
      notAvailableCondition('Stopped'),
    ];
  }
  // A cluster opened for day-2 workers after its installation is still an installed one.
  const status = cluster.status === 'adding-hosts' ? 'installed' : cluster.status;
  const info = cluster.status === 'adding-hosts' ? 'Cluster is installed' : (cluster.status_info ?? '');
  const conditions: Condition[] = [specSynced(problem)];

  conditions.push(validatedCondition({ status, validations_info: cluster.validations_info }));

  const required = expected.controlPlane + expected.workers;
  if (CLUSTER_INSTALLING.has(status)) {
    conditions.push({ type: 'RequirementsMet', status: 'True', reason: 'ClusterAlreadyInstalling', message: 'The cluster requirements are met' });
  } else if (status === 'installed' || status === 'error' || status === 'cancelled') {
    conditions.push({ type: 'RequirementsMet', status: 'True', reason: 'ClusterInstallationStopped', message: 'The cluster installation stopped' });
  } else if (agents.registered < required) {
    conditions.push({
      type: 'RequirementsMet',
      status: 'False',
      reason: 'InsufficientAgents',
      message: `The cluster currently requires ${required} agents but only ${agents.registered} have registered`,
    });
  } else if (agents.unapproved > 0) {
    conditions.push({
      type: 'RequirementsMet',
      status: 'False',
      reason: 'UnapprovedAgents',
      message: `The installation is pending on the approval of ${agents.unapproved} agents`,
    });
  } else if (expected.workers === 0 && agents.registered > required) {
    conditions.push({
      type: 'RequirementsMet',
      status: 'False',
      reason: 'AdditionalAgents',
      message: `The cluster currently requires exactly ${required} agents but have ${agents.registered} registered`,
    });
  } else if (status === 'ready') {
    conditions.push({ type: 'RequirementsMet', status: 'True', reason: 'ClusterIsReady', message: 'The cluster is ready to begin the installation' });
  } else {
    conditions.push({ type: 'RequirementsMet', status: 'False', reason: 'ClusterNotReady', message: 'The cluster is not ready to begin the installation' });
  }
  const requirementsMet = conditions[conditions.length - 1]!.status === 'True';

  conditions.push(...outcomeConditions(status, info, holdInstallation && requirementsMet));
  return conditions;
}

/** The install starts by itself when the cluster is ready, enough agents are bound, all are approved and nothing holds it. */
export function shouldStartInstall(
  cluster: Pick<Cluster, 'status'>,
  expected: { controlPlane: number; workers: number },
  agents: AgentCounts,
  holdInstallation: boolean,
): boolean {
  if (cluster.status !== 'ready' || holdInstallation) return false;
  if (agents.unapproved > 0) return false;
  const required = expected.controlPlane + expected.workers;
  if (agents.registered < required) return false;
  if (expected.workers === 0 && agents.registered > required) return false;
  return true;
}

export function imageCreatedCondition(problem: SyncProblem | undefined, created: boolean): Condition {
  if (problem) return { type: 'ImageCreated', status: 'False', reason: 'ImageCreationError', message: `Failed to create image: ${problem.message}` };
  if (!created)
    return {
      type: 'ImageCreated',
      status: 'False',
      reason: 'ImageCreationError',
      message: 'Failed to create image: the cluster the InfraEnv refers to is not registered yet',
    };
  return { type: 'ImageCreated', status: 'True', reason: 'ImageCreated', message: 'Image has been created' };
}

const HOST_INSTALLING = new Set([
  'preparing-for-installation',
  'preparing-successful',
  'installing',
  'installing-in-progress',
  'installing-pending-user-action',
]);
/** A host's statuses after discovery and before its installation, in which the controller may bind, unbind or update it. */
export const HOST_DISCOVERED_BEFORE_INSTALL: ReadonlySet<string> = new Set([
  'discovering',
  'known',
  'insufficient',
  'disconnected',
  'pending-for-input',
  'known-unbound',
  'insufficient-unbound',
  'discovering-unbound',
  'disconnected-unbound',
]);
/** Those, 'binding' and 'preparing-failed': every status in which the host's installation has not started. */
const HOST_BEFORE_INSTALL = new Set([...HOST_DISCOVERED_BEFORE_INSTALL, 'binding', 'preparing-failed']);

/** The Agent conditions for its host: SpecSynced, Connected, RequirementsMet, Validated, Installed, Bound. */
export function agentConditions(
  host: Pick<Host, 'status' | 'status_info' | 'validations_info' | 'cluster_id'>,
  approved: boolean,
  problem: SyncProblem | undefined,
): Condition[] {
  const status = host.status;
  const info = host.status_info ?? '';
  const conditions: Condition[] = [specSynced(problem, 'agent')];
  conditions.push(
    status === 'disconnected' || status === 'disconnected-unbound'
      ? {
          type: 'Connected',
          status: 'False',
          reason: 'AgentIsDisconnected',
          message: 'The agent has not contacted the installation service in some time, user action should be taken',
        }
      : { type: 'Connected', status: 'True', reason: 'AgentIsConnected', message: "The agent's connection to the installation service is unimpaired" },
  );
  if (HOST_INSTALLING.has(status)) {
    conditions.push({ type: 'RequirementsMet', status: 'True', reason: 'AgentAlreadyInstalling', message: 'Installation already started and is in progress' });
  } else if (status === 'installed' || status === 'error' || status === 'cancelled' || status === 'added-to-existing-cluster') {
    conditions.push({ type: 'RequirementsMet', status: 'True', reason: 'AgentInstallationStopped', message: 'The agent installation stopped' });
  } else if ((status === 'known' || status === 'known-unbound') && !approved) {
    conditions.push({ type: 'RequirementsMet', status: 'False', reason: 'AgentIsNotApproved', message: 'The agent is not approved' });
  } else if (status === 'known') {
    conditions.push({ type: 'RequirementsMet', status: 'True', reason: 'AgentIsReady', message: 'The agent is ready to begin the installation' });
  } else {
    conditions.push({ type: 'RequirementsMet', status: 'False', reason: 'AgentNotReady', message: 'The agent is not ready to begin the installation' });
  }
  const checks = validationSummary(host.validations_info);
  if (!HOST_BEFORE_INSTALL.has(status) || (checks.known && checks.failing.length === 0 && checks.pending.length === 0)) {
    conditions.push({ type: 'Validated', status: 'True', reason: 'ValidationsPassing', message: "The agent's validations are passing" });
  } else if (checks.failing.length > 0) {
    conditions.push({
      type: 'Validated',
      status: 'False',
      reason: 'ValidationsFailing',
      message: `The agent's validations are failing: ${checks.failing.join(',')}`,
    });
  } else if (checks.pending.length > 0) {
    conditions.push({
      type: 'Validated',
      status: 'False',
      reason: 'ValidationsUserPending',
      message: `The agent's validations are pending for user: ${checks.pending.join(',')}`,
    });
  } else {
    conditions.push({ type: 'Validated', status: 'Unknown', reason: 'ValidationsUnknown', message: "The agent's validations have not yet been calculated" });
  }
  if (status === 'installed' || status === 'added-to-existing-cluster') {
    conditions.push({ type: 'Installed', status: 'True', reason: 'InstallationCompleted', message: `The installation has completed: ${info}` });
  } else if (status === 'error') {
    conditions.push({ type: 'Installed', status: 'False', reason: 'InstallationFailed', message: `The installation has failed: ${info}` });
  } else if (HOST_INSTALLING.has(status)) {
    conditions.push({ type: 'Installed', status: 'False', reason: 'InstallationInProgress', message: `The installation is in progress: ${info}` });
  } else if (HOST_BEFORE_INSTALL.has(status)) {
    conditions.push({ type: 'Installed', status: 'False', reason: 'InstallationNotStarted', message: 'The installation has not yet started' });
  } else {
    conditions.push({ type: 'Installed', status: 'False', reason: 'UnknownStatus', message: `The installation status is currently not recognized: ${status}` });
  }
  conditions.push(
    host.cluster_id
      ? { type: 'Bound', status: 'True', reason: 'Bound', message: 'The agent is bound to a cluster deployment' }
      : { type: 'Bound', status: 'False', reason: 'Unbound', message: 'The agent is not bound to any cluster deployment' },
  );
  return conditions;
}

/** Carries lastTransitionTime over from the previous conditions when a condition's status did not change. */
export function withTransitionTimes(next: Condition[], previous: Condition[] | undefined, now: string): Condition[] {
  return next.map((condition) => {
    const before = previous?.find((c) => c.type === condition.type);
    const lastTransitionTime = before && before.status === condition.status && before.lastTransitionTime ? before.lastTransitionTime : now;
    return { ...condition, lastTransitionTime };
  });
}
