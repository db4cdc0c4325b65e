/**
 * The cluster transition table, in upstream's order. Within RefreshStatus the order decides:
 * timeouts before progress, "pending user action" before "finalizing", the catch-all "stay" rules last.
 */
import type { ClusterFacts, ClusterStatus, ClusterTrigger } from './cluster-facts.js';
import { effectiveRole, hostsInStatus, NON_FAILING_FINALIZING_STAGES, type MonitoredOperatorSummary } from './cluster-hosts.js';
import { MINUTE_MS, STAY, type EventIntent, type StateRule } from '../core/state-rules.js';

export const CLUSTER_STATUS_INFO = {
  ready: 'Cluster ready to be installed',
  insufficient: 'Cluster is not ready for install',
  installing: 'Installation in progress',
  finalizing: 'Finalizing cluster installation',
  installed: 'Cluster is installed',
  degraded: 'Cluster is installed but degraded',
  notAllWorkersInstalled: 'Cluster is installed but some workers did not join',
  preparingForInstallation: 'Preparing cluster for installation',
  preparingForInstallationTimeout: 'Preparing cluster for installation timeout',
  finalizingTimeout: 'Cluster installation timeout while finalizing',
  pendingForInput: 'User input required',
  error: 'cluster has hosts in error',
  pendingUserActionTimeout: 'cluster installation timed out while pending user action (a manual booting from installation disk)',
  addingHosts: 'cluster is adding hosts to existing OCP cluster',
  disconnected: 'Cluster created for offline installation',
  installingPendingUserAction: 'Cluster has hosts pending user action',
  unpreparingHostExists: 'At least one host has stopped preparing for installation',
  failedToPrepare: 'Cluster failed to prepare for installation',
  cancelledByUser: 'Installation was cancelled by user',
  resetByUser: 'cluster was reset by user',
} as const;

/** Why a timed-out preparation failed, as recorded in last-installation-preparation and the event. */
export const PREPARATION_TIMEOUT_REASON = 'Installation failed. Try again, and contact support if the issue persists.';

/** Writes a transition asks for beyond status and status_info. */
export type ClusterEffect =
  | 'install-started' // install_started_at = now
  | 'preparation-reset' // last-installation-preparation back to not_started
  | 'preparation-failed' // last-installation-preparation failed, PREPARATION_TIMEOUT_REASON
  | 'logs-reset'
  | 'progress-reset' // all percentages and the finalizing stage cleared
  | 'preparation-complete' // preparing 100%, total 10%
  | 'installation-started' // the install begins: DNS records are created
  | 'finalizing-stage-clock-restarted' // finalizing_stage_started_at = now, timed_out = false
  | 'finalizing-stage-timed-out' // progress.finalizing_stage_timed_out = true
  | 'progress-complete' // finalizing and total 100%
  | 'install-completed' // install_completed_at = now (installed, error, cancelled)
  | 'ams-console-url-updated'
  | 'logs-timed-out';

export interface ClusterRule extends StateRule<ClusterStatus, ClusterTrigger, ClusterFacts> {
  /** The new status_info; absent keeps the current one. */
  readonly statusInfo?: (facts: ClusterFacts) => string;
  /** Catalogue events beyond cluster_status_updated. */
  readonly events?: (facts: ClusterFacts, statusInfo: string) => readonly EventIntent[];
  readonly effects?: (facts: ClusterFacts) => readonly ClusterEffect[];
}

const I = CLUSTER_STATUS_INFO;
const fixed = (text: string) => () => text;
const effects =
  (...list: ClusterEffect[]) =>
  () =>
    list;
const named = (name: string) => () => [{ name, props: {} }];
/** Every way into error tells why, as a critical event. */
const failed = (_facts: ClusterFacts, statusInfo: string) => [{ name: 'cluster_installation_failed', props: { failure_reason: statusInfo } }];

const installingOrFinalizing = (f: ClusterFacts) => f.installingViable || f.finalizingReached;
const minutes = (ms: number) => Math.floor(ms / MINUTE_MS);
const stageIsNonFailing = (f: ClusterFacts) => f.finalizingStage !== undefined && NON_FAILING_FINALIZING_STAGES.includes(f.finalizingStage);

const failedOlmOperators = (operators: readonly MonitoredOperatorSummary[]) =>
  operators.filter((operator) => operator.type === 'olm' && operator.status === 'failed').map((operator) => operator.name);

/** Installed, degraded (an OLM operator failed) or installed without all workers. */
function completionInfo(f: ClusterFacts): string {
  const failedOlm = failedOlmOperators(f.ctx.monitoredOperators ?? []);
  if (failedOlm.length > 0) return `${I.degraded}. Failed OLM operators: ${failedOlm.join(', ')}`;
  const expectedWorkers = f.ctx.hosts.filter((host) => effectiveRole(host) === 'worker').length;
  return hostsInStatus(f.ctx.hosts, ['installed']).workers < expectedWorkers ? I.notAllWorkersInstalled : I.installed;
}

function completionEvents(f: ClusterFacts): EventIntent[] {
  const failedOlm = failedOlmOperators(f.ctx.monitoredOperators ?? []);
  // Upstream's props start with ". Failed OLM operators: " and its message template adds them after
  // "failed OLM operators ": kept verbatim so the text matches upstream's.
  const degraded =
    failedOlm.length > 0
      ? [{ name: 'cluster_degraded_OLM_operators_failed', props: { failed_operators: `. Failed OLM operators: ${failedOlm.join(', ')}` } }]
      : [];
  return [...degraded, { name: 'cluster_installation_completed', props: {} }];
}

const REFRESHABLE: readonly ClusterStatus[] = ['pending-for-input', 'ready', 'insufficient'];

export const CLUSTER_RULES: readonly ClusterRule[] = [
  // ---------------------------------------------------------------- user actions
  {
    id: 'cancel-installation',
    trigger: 'CancelInstallation',
    from: ['installing', 'installing-pending-user-action', 'error', 'finalizing'],
    to: 'cancelled',
    statusInfo: (f) => f.ctx.reason ?? I.cancelledByUser,
    events: named('cluster_installation_canceled'),
  },
  {
    id: 'cancel-preparation',
    trigger: 'CancelInstallation',
    from: ['preparing-for-installation'],
    to: 'ready',
    statusInfo: (f) => f.ctx.reason ?? I.cancelledByUser,
    events: named('cluster_installation_canceled'),
  },
  // Hosts are reset separately (resetting-pending-user-action); the cluster's generated files go.
  {
    id: 'reset',
    trigger: 'ResetCluster',
    from: ['preparing-for-installation', 'installing', 'installing-pending-user-action', 'error', 'cancelled', 'finalizing'],
    to: 'insufficient',
    statusInfo: (f) => f.ctx.reason ?? I.resetByUser,
    events: named('cluster_installation_reset'),
    effects: effects('progress-reset', 'logs-reset', 'preparation-reset'),
  },
  {
    id: 'prepare',
    trigger: 'PrepareForInstallation',
    from: ['ready'],
    to: 'preparing-for-installation',
    statusInfo: fixed(I.preparingForInstallation),
    effects: effects('install-started', 'logs-reset', 'preparation-reset'),
  },

  // ---------------------------------------------------------------- readiness
  // Without DHCP the VIPs are input the user owes; with DHCP they are awaited like other requirements.
  {
    id: 'refresh-pending-input',
    trigger: 'RefreshStatus',
    from: REFRESHABLE,
    when: (f) => !f.dhcp && !(f.validations.vipsDefined && f.validations.inputProvided),
    to: 'pending-for-input',
    statusInfo: fixed(I.pendingForInput),
  },
  {
    id: 'refresh-insufficient',
    trigger: 'RefreshStatus',
    from: REFRESHABLE,
    when: (f) => !f.dhcp && f.validations.vipsDefined && f.validations.inputProvided && !f.validations.requiredForInstall,
    to: 'insufficient',
    statusInfo: fixed(I.insufficient),
  },
  {
    id: 'refresh-pending-input-dhcp',
    trigger: 'RefreshStatus',
    from: REFRESHABLE,
    when: (f) => f.dhcp && !f.validations.inputProvided,
    to: 'pending-for-input',
    statusInfo: fixed(I.pendingForInput),
  },
  {
    id: 'refresh-insufficient-dhcp',
    trigger: 'RefreshStatus',
    from: REFRESHABLE,
    when: (f) => f.dhcp && f.validations.inputProvided && !(f.validations.requiredForInstall && f.validations.vipsDefined),
    to: 'insufficient',
    statusInfo: fixed(I.insufficient),
  },
  {
    id: 'refresh-ready',
    trigger: 'RefreshStatus',
    from: REFRESHABLE,
    when: (f) => f.validations.inputProvided && f.validations.vipsDefined && f.validations.requiredForInstall,
    to: 'ready',
    statusInfo: fixed(I.ready),
  },

  // ---------------------------------------------------------------- preparing
  // The async preparation died (service restarted mid-way): let the user try again.
  {
    id: 'refresh-preparing-timeout',
    trigger: 'RefreshStatus',
    from: ['preparing-for-installation'],
    when: (f) => f.preparingTimedOut && !f.failedPreparingHostExists,
    to: 'ready',
    statusInfo: fixed(I.preparingForInstallationTimeout),
    events: () => [{ name: 'installation_preparing_timed_out', props: { reason: PREPARATION_TIMEOUT_REASON } }],
    effects: effects('preparation-failed'),
  },
  {
    id: 'refresh-start-installing',
    trigger: 'RefreshStatus',
    from: ['preparing-for-installation'],
    when: (f) => f.allHostsPrepared && f.preparationSucceeded,
    to: 'installing',
    statusInfo: fixed(I.installing),
    effects: effects('installation-started', 'preparation-complete'),
  },
  {
    id: 'refresh-host-stopped-preparing',
    trigger: 'RefreshStatus',
    from: ['preparing-for-installation'],
    when: (f) => f.unpreparedHostExists,
    to: 'insufficient',
    statusInfo: fixed(I.unpreparingHostExists),
  },
  {
    id: 'refresh-preparation-failed',
    trigger: 'RefreshStatus',
    from: ['preparing-for-installation'],
    when: (f) => f.failedPreparingHostExists || (!f.unpreparedHostExists && f.preparationFailed),
    to: 'ready',
    statusInfo: fixed(I.failedToPrepare),
  },

  // ---------------------------------------------------------------- installing and finalizing
  {
    id: 'refresh-pending-user-action-failed',
    trigger: 'RefreshStatus',
    from: ['installing-pending-user-action'],
    when: (f) => !installingOrFinalizing(f),
    to: 'error',
    statusInfo: fixed(I.error),
    events: failed,
  },
  {
    id: 'refresh-pending-user-action-timeout',
    trigger: 'RefreshStatus',
    from: ['installing-pending-user-action'],
    when: (f) => f.installationTimedOut,
    to: 'error',
    statusInfo: fixed(I.pendingUserActionTimeout),
    events: failed,
  },
  // The whole installation has a deadline only with soft timeouts (hard ones fail earlier, per stage).
  {
    id: 'refresh-installation-timeout',
    trigger: 'RefreshStatus',
    from: ['installing', 'finalizing'],
    when: (f) => f.installationTimedOut && f.softTimeouts,
    to: 'error',
    statusInfo: (f) => `cluster installation timeout (${minutes(f.timeouts.installationMs)} minutes) has expired`,
    events: failed,
  },
  {
    id: 'refresh-finalizing-timeout',
    trigger: 'RefreshStatus',
    from: ['finalizing'],
    when: (f) => f.finalizingTimedOut && !f.softTimeouts,
    to: 'error',
    statusInfo: fixed(I.finalizingTimeout),
    events: failed,
  },
  {
    id: 'refresh-finalizing-stage-timeout',
    trigger: 'RefreshStatus',
    from: ['finalizing'],
    when: (f) => !f.softTimeouts && f.finalizingStageTimedOut && !stageIsNonFailing(f),
    to: 'error',
    statusInfo: (f) =>
      `Cluster finalizing stage '${f.finalizingStage ?? ''}' has been timed out after timeout duration of ${minutes(f.finalizingStageTimeoutMs)} minutes`,
    events: failed,
  },
  // Overdue but not fatal: warn once per stage.
  {
    id: 'refresh-finalizing-stage-soft-timeout',
    trigger: 'RefreshStatus',
    from: ['finalizing'],
    when: (f) => !(f.ctx.finalizing?.stageTimedOut ?? false) && (f.softTimeouts || stageIsNonFailing(f)) && f.finalizingStageTimedOut,
    to: STAY,
    statusInfo: (f) =>
      `Cluster finalizing stage '${f.finalizingStage ?? ''}' is taking longer than the expected duration (${minutes(f.finalizingStageTimeoutMs)} minutes). To troubleshoot use kubeconfig or connect to any node using ssh`,
    events: (f) => [{ name: 'finalizing_stage_timed_out', props: { stage: f.finalizingStage ?? '', minutes: minutes(f.finalizingStageTimeoutMs) } }],
    effects: effects('finalizing-stage-timed-out'),
  },
  {
    id: 'refresh-pending-user-action-waiting',
    trigger: 'RefreshStatus',
    from: ['installing-pending-user-action'],
    when: (f) => f.hostPendingUserAction && installingOrFinalizing(f),
    to: STAY,
  },
  {
    id: 'refresh-pending-user-action-resolved',
    trigger: 'RefreshStatus',
    from: ['installing-pending-user-action'],
    when: (f) => !f.hostPendingUserAction && f.installingViable && !f.finalizingReached,
    to: 'installing',
    statusInfo: fixed(I.installing),
  },
  // Back to finalizing after the user fixed a host: the stage gets a fresh timeout window.
  {
    id: 'refresh-pending-user-action-finalizing',
    trigger: 'RefreshStatus',
    from: ['installing-pending-user-action'],
    when: (f) => !f.hostPendingUserAction && f.finalizingReached,
    to: 'finalizing',
    statusInfo: fixed(I.finalizing),
    effects: effects('finalizing-stage-clock-restarted'),
  },
  {
    id: 'refresh-host-pending-user-action',
    trigger: 'RefreshStatus',
    from: ['installing', 'finalizing'],
    when: (f) => installingOrFinalizing(f) && f.hostPendingUserAction,
    to: 'installing-pending-user-action',
    statusInfo: fixed(I.installingPendingUserAction),
  },
  {
    id: 'refresh-finalizing',
    trigger: 'RefreshStatus',
    from: ['installing'],
    when: (f) => f.finalizingReached && !f.hostPendingUserAction,
    to: 'finalizing',
    statusInfo: fixed(I.finalizing),
  },
  {
    id: 'refresh-installing',
    trigger: 'RefreshStatus',
    from: ['installing'],
    when: (f) => !f.finalizingReached && !f.hostPendingUserAction && f.installingViable,
    to: STAY,
    statusInfo: fixed(I.installing),
  },
  {
    id: 'refresh-ams-console-url',
    trigger: 'RefreshStatus',
    from: ['finalizing'],
    when: (f) => f.ctx.amsConsoleUrlPending ?? false,
    to: STAY,
    effects: effects('ams-console-url-updated'),
  },
  {
    id: 'refresh-installed',
    trigger: 'RefreshStatus',
    from: ['finalizing'],
    when: (f) => f.allHostsDone && f.installationComplete,
    to: 'installed',
    statusInfo: completionInfo,
    events: completionEvents,
    effects: effects('progress-complete'),
  },
  {
    id: 'refresh-installing-failed',
    trigger: 'RefreshStatus',
    from: ['installing'],
    when: (f) => !f.finalizingReached && !f.installingViable,
    to: 'error',
    statusInfo: fixed(I.error),
    events: failed,
  },

  // ---------------------------------------------------------------- final and other states
  {
    id: 'refresh-logs-timeout',
    trigger: 'RefreshStatus',
    from: ['error', 'cancelled'],
    when: (f) => f.logsTimedOut,
    to: STAY,
    effects: effects('logs-timed-out'),
  },
  {
    id: 'refresh-unchanged',
    trigger: 'RefreshStatus',
    from: ['preparing-for-installation', 'finalizing', 'installed', 'error', 'cancelled', 'adding-hosts', 'unmonitored'],
    to: STAY,
  },
];
