/**
 * What the host state machine's conditions are evaluated on. The caller supplies a context (the
 * host's own fields, its cluster's status, a summary of its validations, the clock); `hostFacts`
 * turns that into the booleans upstream's conditions test, once per transition. Validations are
 * computed elsewhere: this module only defines which of them each rule group needs and how a list
 * of results is summarised for it. Pure.
 */
import timeoutsData from '../catalogues/host-stage-timeouts.json' with { type: 'json' };
import type { HostRole, HostSourceStatus, HostStage } from './host-states.js';
import { BOOTSTRAP_STAGES, WRONG_BOOT_ORDER_IGNORE_TIMEOUT_STAGES } from './host-states.js';
import { validationPasses } from '../core/ignored-validations.js';
import { SUFFICIENT_FOR_INSTALL_VALIDATIONS } from '../core/validation-ids.js';
import { elapsedMs, hasTimedOut, isLogCollectionTimedOut, MINUTE_MS, type LogsProgress } from '../core/state-rules.js';

// ---------------------------------------------------------------- validation groups

/** Without these a bound host is "insufficient hardware", whatever else holds. */
export const MIN_HARDWARE_VALIDATIONS = [
  'has-min-valid-disks',
  'has-min-cpu-cores',
  'has-min-memory',
  'compatible-with-cluster-platform',
  'disk-encryption-requirements-satisfied',
] as const;

/** What an unbound (pool) host needs to be known-unbound: it has no cluster to be checked against yet. */
export const POOL_HARDWARE_VALIDATIONS = ['has-min-valid-disks', 'has-min-cpu-cores', 'has-min-memory', 'hostname-valid'] as const;

/** The validation results, reduced to what the transition rules ask. */
export interface HostValidationSummary {
  hasInventory: boolean;
  inventoryNotFullyTruncated: boolean;
  /** MIN_HARDWARE_VALIDATIONS all pass. */
  minHardware: boolean;
  /** POOL_HARDWARE_VALIDATIONS all pass. */
  poolHardware: boolean;
  vsphereDiskUuidEnabled: boolean;
  machineCidrDefined: boolean;
  /** SUFFICIENT_FOR_INSTALL_VALIDATIONS all pass. */
  sufficientForInstall: boolean;
  /** sufficient-installation-disk-speed passes; it does while the disk was never measured. */
  installationDiskSpeedOk: boolean;
  /** container-images-available passes; it does while no pull was attempted. */
  containerImagesOk: boolean;
  /** Messages of the validations whose status is failure (ignored ones included, as upstream lists them). */
  failureMessages: readonly string[];
  /** Messages of the validations still without a verdict (pending, or an error judging them). */
  undecidedMessages?: readonly string[];
}

export type ValidationStatus = 'success' | 'failure' | 'pending' | 'error' | 'disabled';

export interface ValidationResult {
  id: string;
  status: ValidationStatus;
  message: string;
}

/** Summarises a host's validation results (validationPasses says what passing is). */
export function summarizeHostValidations(results: readonly ValidationResult[], ignoredHostValidationsJson?: string): HostValidationSummary {
  const passes = validationPasses('host', results, ignoredHostValidationsJson);
  const all = (ids: readonly string[]) => ids.every(passes);
  return {
    hasInventory: passes('has-inventory'),
    inventoryNotFullyTruncated: passes('inventory-not-fully-truncated'),
    minHardware: all(MIN_HARDWARE_VALIDATIONS),
    poolHardware: all(POOL_HARDWARE_VALIDATIONS),
    vsphereDiskUuidEnabled: passes('vsphere-disk-uuid-enabled'),
    machineCidrDefined: passes('machine-cidr-defined'),
    sufficientForInstall: all(SUFFICIENT_FOR_INSTALL_VALIDATIONS),
    installationDiskSpeedOk: passes('sufficient-installation-disk-speed'),
    containerImagesOk: passes('container-images-available'),
    failureMessages: results.filter((result) => result.status === 'failure').map((result) => result.message),
    undecidedMessages: results.filter((result) => result.status === 'pending' || result.status === 'error').map((result) => result.message),
  };
}

/** A host about which nothing has been validated: fails everything that needs a result. */
export const NO_VALIDATIONS: HostValidationSummary = Object.freeze({
  hasInventory: false,
  inventoryNotFullyTruncated: false,
  minHardware: false,
  poolHardware: false,
  vsphereDiskUuidEnabled: false,
  machineCidrDefined: false,
  sufficientForInstall: false,
  installationDiskSpeedOk: true,
  containerImagesOk: true,
  failureMessages: [],
});

// ---------------------------------------------------------------- timeouts

export interface HostTimeouts {
  /** HOST_MAX_DISCONNECTION_TIME: no instructions request for this long and the host is disconnected. */
  maxDisconnectionMs: number;
  /** The bootstrap host rewrites its resolv.conf mid-install, so it may be silent longer. */
  bootstrapExtraDisconnectionMs: number;
  /** PREPARE_FOR_INSTALLATION_HOST_TIMEOUT: disk-speed and image checks have this long to report. */
  prepareForInstallationMs: number;
  /** A host stays `installing` only until the agent picks the install step up. */
  installingMs: number;
  /** HOST_INSTALLING_PENDING_USER_ACTION_TIMEOUT. */
  installingPendingUserActionMs: number;
  /** A reclaimed host that never comes back is handed to the user. */
  reclaimMs: number;
  /** HOST_LOG_COLLECTION_TIMEOUT and HOST_LOG_PENDING_TIMEOUT. */
  logCollectionMs: number;
  logPendingMs: number;
}

export const HOST_TIMEOUTS: Readonly<HostTimeouts> = Object.freeze({
  maxDisconnectionMs: 3 * MINUTE_MS,
  bootstrapExtraDisconnectionMs: 2 * MINUTE_MS,
  prepareForInstallationMs: 8 * MINUTE_MS,
  installingMs: 20 * MINUTE_MS,
  installingPendingUserActionMs: 60 * MINUTE_MS,
  reclaimMs: 60 * MINUTE_MS,
  logCollectionMs: 10 * MINUTE_MS,
  logPendingMs: 2 * MINUTE_MS,
});

const STAGE_MINUTES: Readonly<Record<string, number>> = timeoutsData.stagesMinutes;

/** The configured timeout of an install stage (what status_info quotes). */
export function hostStageTimeoutMs(stage: HostStage | undefined): number {
  return (STAGE_MINUTES[stage ?? ''] ?? timeoutsData.defaultMinutes) * MINUTE_MS;
}

/** The timeout actually enforced: a single node's reboot out of bootstrap-in-place takes longer. */
export function enforcedStageTimeoutMs(stage: HostStage | undefined, singleNode: boolean): number {
  return stage === 'Rebooting' && singleNode ? timeoutsData.singleNodeRebootingMinutes * MINUTE_MS : hostStageTimeoutMs(stage);
}

// ---------------------------------------------------------------- context and facts

export interface InstallationDisk {
  name: string;
  /** installation_disk_path, e.g. /dev/sda. */
  path?: string;
  /** by-id path when known, else the device path (upstream's GetDeviceIdentifier). */
  identifier: string;
  model?: string;
  serial?: string;
}

export interface HostTransitionContext {
  now: Date;
  /** For events: the requested hostname, else the reported one, else the id. */
  hostName: string;
  /** Current status_info; a rule that yields the same status and text changes nothing. */
  statusInfo?: string;
  statusUpdatedAt?: string;
  /** The host has a cluster (cluster_id); unbound hosts follow the pool rules. */
  bound?: boolean;
  /** kind AddToExistingClusterHost. */
  day2?: boolean;
  /** The effective role (suggested role for auto-assign). */
  role?: HostRole;
  bootstrap?: boolean;
  /** Last instructions request by the agent. */
  checkedInAt?: string;
  /** media_status is not "disconnected". Defaults to true. */
  mediaConnected?: boolean;
  /** The host's connection_timed_out flag (soft timeouts). */
  connectionTimedOut?: boolean;
  progress?: { currentStage?: HostStage; progressInfo?: string; stageUpdatedAt?: string; stageTimedOut?: boolean };
  cluster?: {
    status?: string;
    singleNode?: boolean;
    /** The cluster's org_soft_timeouts_enabled: ENABLE_SOFT_TIMEOUTS as it was when the cluster was created. */
    softTimeoutsEnabled?: boolean;
    /** hasEnoughMastersAndWorkers(all hosts, …, ['installed']): the success rule is met without this host being installed. */
    wouldSucceedWithoutHost?: boolean;
  };
  validations?: HostValidationSummary;
  /** Results of the checks run while preparing (not validations): both succeeded, or not (yet). */
  preparation?: { diskSpeedCheckSucceeded?: boolean; containerImagesAvailable?: boolean };
  logs?: LogsProgress;
  installationDisk?: InstallationDisk;
  /** Why (CancelInstallation, HostInstallationFailed): becomes status_info. */
  reason?: string;
  /** ResettingPendingUserAction asked for by the user on a day-2 host, not by a cluster reset. */
  resetByUser?: boolean;
  /** kube-api (operator) mode; the REST service is not. */
  kubeApi?: boolean;
  timeouts?: Partial<HostTimeouts>;
}

/** Booleans the rules test, derived once from the context. */
export interface HostFacts {
  readonly ctx: HostTransitionContext;
  /** The status the transition starts from. */
  readonly from: HostSourceStatus;
  readonly timeouts: HostTimeouts;
  readonly validations: HostValidationSummary;
  readonly connected: boolean;
  readonly mediaConnected: boolean;
  readonly bound: boolean;
  readonly day2: boolean;
  readonly validRole: boolean;
  readonly softTimeouts: boolean;
  readonly clusterPreparing: boolean;
  readonly clusterInstalling: boolean;
  readonly clusterInError: boolean;
  readonly clusterPendingUserAction: boolean;
  /** The cluster is installed or adding hosts: a stuck host no longer threatens it. */
  readonly clusterPostInstallation: boolean;
  readonly stage: HostStage | undefined;
  /** The current stage ran longer than its (enforced) timeout. */
  readonly stageTimedOut: boolean;
  /** Timeouts are waived: the host waits on another host the user must fix. */
  readonly ignoreStageTimeout: boolean;
  readonly diskSpeedCheckSucceeded: boolean;
  readonly containerImagesAvailable: boolean;
  readonly logsTimedOut: boolean;
  /** The host's status is older than `ms`. */
  readonly statusOlderThan: (ms: number) => boolean;
}

const REBOOT_INDEX = BOOTSTRAP_STAGES.indexOf('Rebooting');

/**
 * Connectivity as upstream judges it: only before the host reboots into its installed OS (after
 * that the agent is gone by design), and a host that never checked in counts as connected.
 */
export function isHostConnected(ctx: Pick<HostTransitionContext, 'checkedInAt' | 'bootstrap' | 'progress' | 'now' | 'timeouts'>): boolean {
  const limits = { ...HOST_TIMEOUTS, ...ctx.timeouts };
  const stage = ctx.progress?.currentStage;
  const preReboot = !stage || BOOTSTRAP_STAGES.slice(0, REBOOT_INDEX).includes(stage);
  if (!preReboot || !ctx.checkedInAt) return true;
  const limit = limits.maxDisconnectionMs + (ctx.bootstrap ? limits.bootstrapExtraDisconnectionMs : 0);
  return elapsedMs(ctx.checkedInAt, ctx.now) <= limit;
}

export function hostFacts(from: HostSourceStatus, ctx: HostTransitionContext): HostFacts {
  const timeouts = { ...HOST_TIMEOUTS, ...ctx.timeouts };
  const clusterStatus = ctx.cluster?.status;
  const stage = ctx.progress?.currentStage;
  const stageLimit = enforcedStageTimeoutMs(stage, ctx.cluster?.singleNode ?? false);
  const clusterPendingUserAction = clusterStatus === 'installing-pending-user-action';
  return {
    ctx,
    from,
    timeouts,
    validations: ctx.validations ?? NO_VALIDATIONS,
    connected: isHostConnected(ctx),
    mediaConnected: ctx.mediaConnected ?? true,
    bound: ctx.bound ?? false,
    day2: ctx.day2 ?? false,
    validRole: ctx.role === 'master' || ctx.role === 'arbiter' || ctx.role === 'worker',
    softTimeouts: ctx.cluster?.softTimeoutsEnabled ?? false,
    clusterPreparing: clusterStatus === 'preparing-for-installation',
    clusterInstalling: clusterStatus === 'installing',
    clusterInError: clusterStatus === 'error',
    clusterPendingUserAction,
    clusterPostInstallation: clusterStatus === 'installed' || clusterStatus === 'adding-hosts',
    stage,
    stageTimedOut: hasTimedOut(ctx.progress?.stageUpdatedAt, ctx.now, stageLimit),
    ignoreStageTimeout: stage !== undefined && WRONG_BOOT_ORDER_IGNORE_TIMEOUT_STAGES.includes(stage) && clusterPendingUserAction,
    diskSpeedCheckSucceeded: ctx.preparation?.diskSpeedCheckSucceeded ?? false,
    containerImagesAvailable: ctx.preparation?.containerImagesAvailable ?? false,
    logsTimedOut: isLogCollectionTimedOut(ctx.logs, ctx.statusUpdatedAt, ctx.now, {
      collectionMs: timeouts.logCollectionMs,
      pendingMs: timeouts.logPendingMs,
      collectingMs: timeouts.logPendingMs,
    }),
    statusOlderThan: (ms) => hasTimedOut(ctx.statusUpdatedAt, ctx.now, ms),
  };
}
