/**
 * The vocabulary of the host state machine: statuses (exactly the `host` status enum of
 * openapi.yaml), transition types (upstream's names), install stages and the stage sequence each
 * kind of host goes through. Also the check upstream makes before accepting a progress report.
 * Pure data and functions.
 */
import { notAllowed, type NotAllowed } from '../core/state-rules.js';

/** In the order of the `host` schema's status enum. */
export const HOST_STATUSES = [
  'discovering',
  'known',
  'disconnected',
  'insufficient',
  'disabled',
  'preparing-for-installation',
  'preparing-failed',
  'preparing-successful',
  'pending-for-input',
  'installing',
  'installing-in-progress',
  'installing-pending-user-action',
  'resetting-pending-user-action',
  'installed',
  'error',
  'resetting',
  'added-to-existing-cluster',
  'cancelled',
  'binding',
  'unbinding',
  'unbinding-pending-user-action',
  'known-unbound',
  'disconnected-unbound',
  'insufficient-unbound',
  'disabled-unbound',
  'discovering-unbound',
  'reclaiming',
  'reclaiming-rebooting',
] as const;
export type HostStatus = (typeof HOST_STATUSES)[number];

/** Upstream's state for a host that is not stored yet (stateswitch's empty state). */
export const UNREGISTERED = '' as const;
export type HostSourceStatus = HostStatus | typeof UNREGISTERED;

/**
 * Upstream's transition types. RefreshHost is the monitor's periodic re-evaluation (the "refresh
 * status"); ResettingPendingUserAction is what a cluster reset (or a day-2 host reset) runs.
 */
export const HOST_TRIGGERS = [
  'RegisterHost',
  'HostInstallationFailed',
  'CancelInstallation',
  'InstallHost',
  'ResettingPendingUserAction',
  'RefreshHost',
  'HostProgressChanged',
  'MediaDisconnect',
  'BindHost',
  'UnbindHost',
  'ReclaimHost',
  'RebootingForReclaim',
  'ReclaimHostFailed',
] as const;
export type HostTrigger = (typeof HOST_TRIGGERS)[number];

/** The `host-stage` enum. */
export const HOST_STAGES = [
  'Starting installation',
  'Waiting for control plane',
  'Waiting for bootkube',
  'Waiting for controller',
  'Installing',
  'Writing image to disk',
  'Copying registry data to disk',
  'Rebooting',
  'Waiting for ignition',
  'Configuring',
  'Joined',
  'Done',
  'Failed',
] as const;
export type HostStage = (typeof HOST_STAGES)[number];

export type HostRole = 'auto-assign' | 'master' | 'arbiter' | 'worker' | 'bootstrap';

// ---------------------------------------------------------------- stage sequences

export const BOOTSTRAP_STAGES: readonly HostStage[] = [
  'Starting installation',
  'Installing',
  'Writing image to disk',
  'Copying registry data to disk',
  'Waiting for control plane',
  'Waiting for bootkube',
  'Waiting for controller',
  'Rebooting',
  'Configuring',
  'Joined',
  'Done',
];
/** Masters and arbiters: an arbiter joins etcd's quorum, so it installs like a master. */
export const MASTER_STAGES: readonly HostStage[] = [
  'Starting installation',
  'Installing',
  'Writing image to disk',
  'Copying registry data to disk',
  'Rebooting',
  'Configuring',
  'Joined',
  'Done',
];
export const WORKER_STAGES: readonly HostStage[] = [
  'Starting installation',
  'Installing',
  'Writing image to disk',
  'Waiting for control plane',
  'Rebooting',
  'Waiting for ignition',
  'Configuring',
  'Joined',
  'Done',
];
/** The single node bootstraps in place, before writing itself to disk. */
export const SNO_STAGES: readonly HostStage[] = [
  'Starting installation',
  'Installing',
  'Waiting for bootkube',
  'Writing image to disk',
  'Copying registry data to disk',
  'Rebooting',
  'Joined',
  'Done',
];

/** Stages after the host wrote its OS to disk and rebooted: it must be rebooted by hand to reset. */
export const MANUAL_REBOOT_STAGES: readonly HostStage[] = ['Rebooting', 'Waiting for ignition', 'Configuring', 'Joined', 'Done'];

/**
 * Stages whose timeout is not enforced while the cluster is installing-pending-user-action: the
 * host is waiting on another host whose boot order the user has to fix.
 */
export const WRONG_BOOT_ORDER_IGNORE_TIMEOUT_STAGES: readonly HostStage[] = [
  'Waiting for control plane',
  'Waiting for controller',
  'Waiting for bootkube',
  'Rebooting',
];

/** Statuses a host is in between "install" and the end of its installation. */
export const HOST_INSTALLING_STATUSES: readonly HostStatus[] = [
  'preparing-for-installation',
  'preparing-failed',
  'preparing-successful',
  'installing',
  'installing-in-progress',
  'installing-pending-user-action',
];

/** Statuses in which a host accepts progress reports. */
export const HOST_PROGRESS_STATUSES: readonly HostStatus[] = ['installing', 'installing-in-progress', 'installing-pending-user-action'];

export interface StageSelector {
  role?: HostRole;
  bootstrap?: boolean;
  singleNode?: boolean;
  /** A host added to an installed cluster (kind AddToExistingClusterHost). */
  day2?: boolean;
  /** kube-api (operator) mode follows a day-2 host past Rebooting; the REST service does not. */
  kubeApi?: boolean;
}

/** The stages a host reports, by role; empty for a host without an installable role. */
export function stagesFor(host: StageSelector): readonly HostStage[] {
  let stages: readonly HostStage[];
  // The single node bootstraps itself whether or not it is marked bootstrap (the installation
  // plan names no bootstrap host when there is one control plane node): its stages are SNO's.
  // A host without a role yet (auto-assign, as a pool host bound to a single-node cluster is) has no
  // stages, as upstream's.
  if (host.singleNode && host.role !== 'worker' && host.role !== 'auto-assign' && (host.role || host.bootstrap)) stages = SNO_STAGES;
  else if (host.bootstrap || host.role === 'bootstrap') stages = BOOTSTRAP_STAGES;
  else if (host.role === 'master' || host.role === 'arbiter') stages = MASTER_STAGES;
  else if (host.role === 'worker') stages = WORKER_STAGES;
  else stages = [];
  // A day-2 host is not followed after it reboots (the new cluster, not this service, sees it
  // join), so Rebooting is its last stage.
  if (host.day2 && !host.kubeApi && stages.length > 0) stages = stages.slice(0, stages.indexOf('Rebooting') + 1);
  return stages;
}

/** installation_percentage for a stage: (index + 1) / count, as upstream. */
export function stagePercentage(stage: HostStage, stages: readonly HostStage[]): number {
  return stages.length === 0 ? 0 : ((stages.indexOf(stage) + 1) / stages.length) * 100;
}

export interface ProgressReport {
  stage: HostStage;
  info?: string;
}

export interface AcceptedProgress {
  /** False when the report repeats the current stage and info: nothing to store, no transition. */
  changed: boolean;
  /** False when only progress_info changed: store it, but run no transition. */
  stageChanged: boolean;
  /** Absent for Failed, which keeps the last percentage. */
  installationPercentage?: number;
  /** What upstream records as the stage: a day-2 host reporting Rebooting is recorded as Done in REST mode. */
  recordedStage: HostStage;
}

/**
 * Whether a progress report may be accepted (before running HostProgressChanged): only while
 * installing, only stages of the host's role, never backwards. Refusals are 409s with upstream's reasons.
 */
export function checkHostProgress(
  status: HostStatus,
  host: StageSelector & { currentStage?: HostStage; progressInfo?: string },
  report: ProgressReport,
): AcceptedProgress | NotAllowed {
  if (host.currentStage === report.stage) {
    const changed = (host.progressInfo ?? '') !== (report.info ?? '');
    return { changed, stageChanged: false, recordedStage: report.stage };
  }
  if (!HOST_PROGRESS_STATUSES.includes(status)) {
    return notAllowed('HostProgressChanged', status, `Can't set progress <${report.stage}> to host in status <${status}>`);
  }
  if (report.stage === 'Failed') return { changed: true, stageChanged: true, recordedStage: 'Failed' };
  const stages = stagesFor(host);
  if (host.currentStage) {
    const index = stages.indexOf(report.stage);
    if (index === -1) {
      return notAllowed(
        'HostProgressChanged',
        status,
        `Stages ${report.stage} isn't available for host role ${host.role ?? ''} bootstrap ${String(host.bootstrap ?? false)}`,
      );
    }
    if (index < stages.indexOf(host.currentStage)) {
      return notAllowed('HostProgressChanged', status, `Can't assign lower stage "${report.stage}" after host has been in stage "${host.currentStage}"`);
    }
  }
  const recordedStage = report.stage === 'Rebooting' && host.day2 && !host.kubeApi ? 'Done' : report.stage;
  return { changed: true, stageChanged: true, installationPercentage: stagePercentage(report.stage, stages), recordedStage };
}
