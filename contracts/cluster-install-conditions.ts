/**
 * The AgentClusterInstall conditions that depend on the cluster alone, with upstream's reasons and
 * messages: Validated (from validations_info), and Completed, Failed and Stopped (from the status).
 * Read by the hub controller (hub/conditions.ts) and by `assisted ztp` (cli/ztp/conditions.ts),
 * which each add SpecSynced and RequirementsMet their own way. Pure: no I/O.
 */
import type { Cluster } from './wire.js';

export interface ClusterCondition {
  type: 'Validated' | 'Completed' | 'Failed' | 'Stopped';
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
}

/** A condition of a cluster the service does not know (yet). */
export const notAvailableCondition = <T extends string>(type: T) => ({
  type,
  status: 'Unknown' as const,
  reason: 'NotAvailable',
  message: 'Information not available',
});

/** Statuses before the installation; adding-hosts takes hosts as those do. */
export const CLUSTER_BEFORE_INSTALL: ReadonlySet<string> = new Set(['insufficient', 'ready', 'pending-for-input', 'adding-hosts']);
export const CLUSTER_INSTALLING: ReadonlySet<string> = new Set(['preparing-for-installation', 'installing', 'finalizing', 'installing-pending-user-action']);

type ValidationsInfo = Record<string, { id: string; status: string; message: string }[]>;

/** The messages (else ids) of the failing and the pending validations; known: any were reported. */
export function validationSummary(validationsInfo: string | null | undefined): { failing: string[]; pending: string[]; known: boolean } {
  let parsed: unknown;
  try {
    parsed = validationsInfo ? JSON.parse(validationsInfo) : {};
  } catch {
    return { failing: [], pending: [], known: false };
  }
  const all = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? Object.values(parsed as ValidationsInfo).flat() : [];
  return {
    failing: all.filter((v) => v.status === 'failure').map((v) => v.message || v.id),
    pending: all.filter((v) => v.status === 'pending').map((v) => v.message || v.id),
    known: all.length > 0,
  };
}

/** Validated: passing once the installation started, else as the validations say (upstream joins them with ","). */
export function validatedCondition(cluster: Pick<Cluster, 'status' | 'validations_info'>): ClusterCondition {
  const checks = validationSummary(cluster.validations_info);
  if (!CLUSTER_BEFORE_INSTALL.has(cluster.status) || (checks.known && checks.failing.length === 0 && checks.pending.length === 0)) {
    return { type: 'Validated', status: 'True', reason: 'ValidationsPassing', message: "The cluster's validations are passing" };
  }
  if (checks.failing.length > 0)
    return { type: 'Validated', status: 'False', reason: 'ValidationsFailing', message: `The cluster's validations are failing: ${checks.failing.join(',')}` };
  if (checks.pending.length > 0)
    return {
      type: 'Validated',
      status: 'False',
      reason: 'ValidationsUserPending',
      message: `The cluster's validations are pending for user: ${checks.pending.join(',')}`,
    };
  return { type: 'Validated', status: 'Unknown', reason: 'ValidationsUnknown', message: "The cluster's validations have not yet been calculated" };
}

/**
 * Completed, Failed and Stopped for a cluster status and its status_info. onHold: the requirements
 * are met but holdInstallation keeps the installation from starting.
 */
export function outcomeConditions(status: string, info: string, onHold = false): ClusterCondition[] {
  let completed: ClusterCondition;
  if (status === 'installed')
    completed = { type: 'Completed', status: 'True', reason: 'InstallationCompleted', message: `The installation has completed: ${info}` };
  else if (status === 'error')
    completed = { type: 'Completed', status: 'False', reason: 'InstallationFailed', message: `The installation has failed: ${info}` };
  else if (CLUSTER_INSTALLING.has(status))
    completed = { type: 'Completed', status: 'False', reason: 'InstallationInProgress', message: `The installation is in progress: ${info}` };
  else if (onHold)
    completed = {
      type: 'Completed',
      status: 'False',
      reason: 'InstallationOnHold',
      message: 'The installation is on hold. To unhold set holdInstallation to false',
    };
  else if (CLUSTER_BEFORE_INSTALL.has(status) || status === 'cancelled')
    completed = { type: 'Completed', status: 'False', reason: 'InstallationNotStarted', message: 'The installation has not yet started' };
  else completed = { type: 'Completed', status: 'False', reason: 'UnknownStatus', message: `The installation status is currently not recognized: ${status}` };

  const failed: ClusterCondition =
    status === 'error'
      ? { type: 'Failed', status: 'True', reason: 'InstallationFailed', message: `The installation failed: ${info}` }
      : { type: 'Failed', status: 'False', reason: 'InstallationNotFailed', message: 'The installation has not failed' };

  let stopped: ClusterCondition;
  if (status === 'installed')
    stopped = { type: 'Stopped', status: 'True', reason: 'InstallationCompleted', message: 'The installation has stopped because it completed successfully' };
  else if (status === 'error')
    stopped = { type: 'Stopped', status: 'True', reason: 'InstallationFailed', message: 'The installation has stopped due to error' };
  else if (status === 'cancelled')
    stopped = { type: 'Stopped', status: 'True', reason: 'InstallationCancelled', message: 'The installation has stopped because it was cancelled' };
  else stopped = { type: 'Stopped', status: 'False', reason: 'InstallationNotStopped', message: 'The installation is waiting to start or in progress' };
  return [completed, failed, stopped];
}
