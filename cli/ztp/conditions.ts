/**
 * A cluster's state told in the AgentClusterInstall's terms: the six conditions upstream's
 * controller sets (SpecSynced, Validated, RequirementsMet, Completed, Failed, Stopped) with its
 * reasons and messages, derived from what the REST API reports. Pure.
 */
import type { Cluster } from '../api.js';

export interface Condition {
  type: 'SpecSynced' | 'Validated' | 'RequirementsMet' | 'Completed' | 'Failed' | 'Stopped';
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
}

type ValidationsInfo = Record<string, { id: string; status: string; message: string }[]>;

const BEFORE_INSTALL = new Set(['insufficient', 'ready', 'pending-for-input', 'adding-hosts']);
const INSTALLING = new Set(['preparing-for-installation', 'installing', 'finalizing', 'installing-pending-user-action']);

function validations(cluster: Pick<Cluster, 'validations_info'>): { failing: string[]; pending: string[]; known: boolean } {
  let info: ValidationsInfo = {};
  try {
    info = cluster.validations_info ? (JSON.parse(cluster.validations_info) as ValidationsInfo) : {};
  } catch {
    return { failing: [], pending: [], known: false };
  }
  const all = Object.values(info).flat();
  return {
    failing: all.filter((v) => v.status === 'failure').map((v) => v.message || v.id),
    pending: all.filter((v) => v.status === 'pending').map((v) => v.message || v.id),
    known: all.length > 0,
  };
}

/**
 * Conditions for a cluster registered from the manifests, or for one that could not be (then only
 * SpecSynced says why, the rest are Unknown as upstream leaves them before the first sync).
 */
export function clusterConditions(
  cluster: Pick<Cluster, 'status' | 'status_info' | 'validations_info' | 'hosts' | 'total_host_count'> | undefined,
  expected: { controlPlane: number; workers: number },
  syncProblem?: string,
): Condition[] {
  if (!cluster) {
    const notAvailable = (type: Condition['type']): Condition => ({ type, status: 'Unknown', reason: 'NotAvailable', message: 'Information not available' });
    return [
      syncProblem
        ? { type: 'SpecSynced', status: 'False', reason: 'InputError', message: `The Spec could not be synced due to an input error: ${syncProblem}` }
        : { type: 'SpecSynced', status: 'False', reason: 'NotAvailable', message: 'The cluster is not registered: run `assisted ztp apply`' },
      notAvailable('Validated'),
      notAvailable('RequirementsMet'),
      notAvailable('Completed'),
      notAvailable('Failed'),
      notAvailable('Stopped'),
    ];
  }
  const status = cluster.status;
  const info = cluster.status_info ?? '';
  const conditions: Condition[] = [{ type: 'SpecSynced', status: 'True', reason: 'SyncOK', message: 'The Spec has been successfully applied' }];

  const checks = validations(cluster);
  if (!BEFORE_INSTALL.has(status)) {
    conditions.push({ type: 'Validated', status: 'True', reason: 'ValidationsPassing', message: "The cluster's validations are passing" });
  } else if (checks.failing.length > 0) {
    conditions.push({ type: 'Validated', status: 'False', reason: 'ValidationsFailing', message: `The cluster's validations are failing: ${checks.failing.join(', ')}` });
  } else if (checks.pending.length > 0) {
    conditions.push({ type: 'Validated', status: 'False', reason: 'ValidationsUserPending', message: `The cluster's validations are pending for user: ${checks.pending.join(', ')}` });
  } else if (!checks.known) {
    conditions.push({ type: 'Validated', status: 'Unknown', reason: 'ValidationsUnknown', message: "The cluster's validations have not yet been calculated" });
  } else {
    conditions.push({ type: 'Validated', status: 'True', reason: 'ValidationsPassing', message: "The cluster's validations are passing" });
  }

  const required = expected.controlPlane + expected.workers;
  const registered = cluster.hosts?.length ?? cluster.total_host_count ?? 0;
  if (status === 'ready') {
    conditions.push({ type: 'RequirementsMet', status: 'True', reason: 'ClusterIsReady', message: 'The cluster is ready to begin the installation' });
  } else if (INSTALLING.has(status)) {
    conditions.push({ type: 'RequirementsMet', status: 'True', reason: 'ClusterAlreadyInstalling', message: 'The cluster requirements are met' });
  } else if (status === 'installed' || status === 'error' || status === 'cancelled') {
    conditions.push({ type: 'RequirementsMet', status: 'True', reason: 'ClusterInstallationStopped', message: 'The cluster installation stopped' });
  } else if (registered < required) {
    conditions.push({ type: 'RequirementsMet', status: 'False', reason: 'InsufficientAgents', message: `The cluster currently requires ${required} agents but only ${registered} have registered` });
  } else {
    conditions.push({ type: 'RequirementsMet', status: 'False', reason: 'ClusterNotReady', message: 'The cluster is not ready to begin the installation' });
  }

  if (status === 'installed') {
    conditions.push({ type: 'Completed', status: 'True', reason: 'InstallationCompleted', message: `The installation has completed: ${info}` });
  } else if (status === 'error') {
    conditions.push({ type: 'Completed', status: 'False', reason: 'InstallationFailed', message: `The installation has failed: ${info}` });
  } else if (INSTALLING.has(status)) {
    conditions.push({ type: 'Completed', status: 'False', reason: 'InstallationInProgress', message: `The installation is in progress: ${info}` });
  } else {
    conditions.push({ type: 'Completed', status: 'False', reason: 'InstallationNotStarted', message: 'The installation has not yet started' });
  }

  conditions.push(
    status === 'error'
      ? { type: 'Failed', status: 'True', reason: 'InstallationFailed', message: `The installation failed: ${info}` }
      : { type: 'Failed', status: 'False', reason: 'InstallationNotFailed', message: 'The installation has not failed' },
  );

  if (status === 'installed') {
    conditions.push({ type: 'Stopped', status: 'True', reason: 'InstallationCompleted', message: 'The installation has stopped because it completed successfully' });
  } else if (status === 'error') {
    conditions.push({ type: 'Stopped', status: 'True', reason: 'InstallationFailed', message: 'The installation has stopped due to error' });
  } else if (status === 'cancelled') {
    conditions.push({ type: 'Stopped', status: 'True', reason: 'InstallationCancelled', message: 'The installation has stopped because it was cancelled' });
  } else {
    conditions.push({ type: 'Stopped', status: 'False', reason: 'InstallationNotStopped', message: 'The installation is waiting to start or in progress' });
  }
  return conditions;
}
