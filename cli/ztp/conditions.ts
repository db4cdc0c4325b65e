/**
 * A cluster's state told in the AgentClusterInstall's terms: the six conditions upstream's
 * controller sets (SpecSynced, Validated, RequirementsMet, Completed, Failed, Stopped) with its
 * reasons and messages, derived from what the REST API reports. Pure.
 */
import { CLUSTER_INSTALLING, notAvailableCondition, outcomeConditions, validatedCondition } from '../../contracts/cluster-install-conditions.js';
import type { Cluster } from '../api.js';

export interface Condition {
  type: 'SpecSynced' | 'Validated' | 'RequirementsMet' | 'Completed' | 'Failed' | 'Stopped';
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
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
    return [
      syncProblem
        ? { type: 'SpecSynced', status: 'False', reason: 'InputError', message: `The Spec could not be synced due to an input error: ${syncProblem}` }
        : { type: 'SpecSynced', status: 'False', reason: 'NotAvailable', message: 'The cluster is not registered: run `assisted ztp apply`' },
      notAvailableCondition('Validated'),
      notAvailableCondition('RequirementsMet'),
      notAvailableCondition('Completed'),
      notAvailableCondition('Failed'),
      notAvailableCondition('Stopped'),
    ];
  }
  const status = cluster.status;
  const info = cluster.status_info ?? '';
  const conditions: Condition[] = [{ type: 'SpecSynced', status: 'True', reason: 'SyncOK', message: 'The Spec has been successfully applied' }];

  conditions.push(validatedCondition(cluster));

  const required = expected.controlPlane + expected.workers;
  const registered = cluster.hosts?.length ?? cluster.total_host_count ?? 0;
  if (status === 'ready') {
    conditions.push({ type: 'RequirementsMet', status: 'True', reason: 'ClusterIsReady', message: 'The cluster is ready to begin the installation' });
  } else if (CLUSTER_INSTALLING.has(status)) {
    conditions.push({ type: 'RequirementsMet', status: 'True', reason: 'ClusterAlreadyInstalling', message: 'The cluster requirements are met' });
  } else if (status === 'installed' || status === 'error' || status === 'cancelled') {
    conditions.push({ type: 'RequirementsMet', status: 'True', reason: 'ClusterInstallationStopped', message: 'The cluster installation stopped' });
  } else if (registered < required) {
    conditions.push({
      type: 'RequirementsMet',
      status: 'False',
      reason: 'InsufficientAgents',
      message: `The cluster currently requires ${required} agents but only ${registered} have registered`,
    });
  } else {
    conditions.push({ type: 'RequirementsMet', status: 'False', reason: 'ClusterNotReady', message: 'The cluster is not ready to begin the installation' });
  }

  conditions.push(...outcomeConditions(status, info));
  return conditions;
}
