/**
 * What a cluster transition's effects write, beyond status and status_info. Pure: given the record
 * being written and the time, it changes the attributes in place.
 */
import type { Cluster, ClusterAttributes } from '../core/entities.js';
import { PREPARATION_TIMEOUT_REASON, type ClusterEffect } from './cluster-state-machine.js';

type Progress = NonNullable<ClusterAttributes['progress']>;

const progressOf = (cluster: Cluster): Progress => ({ ...(cluster.attributes.progress ?? {}) });

export function applyClusterEffects(cluster: Cluster, effects: readonly ClusterEffect[], now: string): void {
  const attributes = cluster.attributes;
  for (const effect of effects) {
    switch (effect) {
      case 'install-started':
        attributes.install_started_at = now;
        delete attributes.install_completed_at;
        break;
      case 'preparation-reset':
        attributes.last_installation_preparation = { status: 'not_started', reason: '' };
        break;
      case 'preparation-failed':
        attributes.last_installation_preparation = { status: 'failed', reason: PREPARATION_TIMEOUT_REASON };
        break;
      case 'logs-reset':
        delete attributes.logs_info;
        delete attributes.controller_logs_started_at;
        delete attributes.controller_logs_collected_at;
        break;
      case 'progress-reset':
        attributes.progress = {
          preparing_for_installation_stage_percentage: 0,
          installing_stage_percentage: 0,
          finalizing_stage_percentage: 0,
          total_percentage: 0,
        };
        break;
      case 'preparation-complete':
        attributes.progress = {
          ...progressOf(cluster),
          preparing_for_installation_stage_percentage: 100,
          total_percentage: Math.max(10, Number(progressOf(cluster).total_percentage ?? 0)),
        };
        break;
      case 'installation-started':
        attributes.installation_started_at = now;
        break;
      case 'finalizing-stage-clock-restarted':
        attributes.progress = { ...progressOf(cluster), finalizing_stage_started_at: now, finalizing_stage_timed_out: false };
        break;
      case 'finalizing-stage-timed-out':
        attributes.progress = { ...progressOf(cluster), finalizing_stage_timed_out: true };
        break;
      case 'progress-complete':
        attributes.progress = { ...progressOf(cluster), finalizing_stage_percentage: 100, total_percentage: 100 };
        break;
      case 'install-completed':
        attributes.install_completed_at = now;
        break;
      case 'logs-timed-out':
        attributes.logs_info = 'timeout';
        break;
      case 'ams-console-url-updated':
        // The SaaS subscription service (AMS) has no counterpart here: nothing to update.
        break;
    }
  }
}
