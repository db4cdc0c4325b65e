/**
 * RefreshHost: the monitor's periodic re-evaluation of a host, in upstream's order (bound hosts,
 * then the pool). Order matters only within this trigger, and it matters a lot: disconnection is
 * checked before readiness, cluster errors before stage timeouts, waived timeouts before enforced ones.
 */
import { hostStageTimeoutMs, type HostFacts } from './host-facts.js';
import type { HostEffect, HostRule } from './host-state-rules.js';
import { HOST_STATUS_INFO as INFO, preparationTimeoutInfo, renderHostStatusInfo } from './host-status-info.js';
import { elapsedMs, MINUTE_MS, STAY } from '../core/state-rules.js';

const info = (template: string) => (facts: HostFacts) => renderHostStatusInfo(template, facts);
const effects =
  (...list: HostEffect[]) =>
  () =>
    list;

const online = (f: HostFacts) => f.connected && f.mediaConnected;
const offline = (f: HostFacts) => !f.connected || !f.mediaConnected;
const validInventory = (f: HostFacts) => f.validations.hasInventory && f.validations.inventoryNotFullyTruncated;

// Preparation checks: "unknown" means not reported yet, as opposed to reported and failed.
const diskSpeedUnknown = (f: HostFacts) => !f.diskSpeedCheckSucceeded && f.validations.installationDiskSpeedOk;
const imagesUnknown = (f: HostFacts) => !f.containerImagesAvailable && f.validations.containerImagesOk;
const preparedOrUnknown = (f: HostFacts) => f.validations.installationDiskSpeedOk && f.validations.containerImagesOk;
const somePreparationUnknown = (f: HostFacts) => (diskSpeedUnknown(f) || imagesUnknown(f)) && preparedOrUnknown(f);

/** Stages whose stuck-ness has its own message: they report partial progress, so "not progressing". */
const DISK_WRITE_STAGES = ['Writing image to disk', 'Copying registry data to disk'];
const inStages = (f: HostFacts, stages: readonly string[]) => f.stage !== undefined && stages.includes(f.stage);
const genericStage = (f: HostFacts) => !inStages(f, [...DISK_WRITE_STAGES, 'Rebooting']);
/** A stage timeout that counts: the stage overran and no other host is blocking this one. */
const stageOverran = (f: HostFacts) => f.stageTimedOut && !f.ignoreStageTimeout;
const hardStageTimeout = (f: HostFacts) => !f.softTimeouts && stageOverran(f);
/** Soft timeouts warn once per stage: progress.stage_timed_out marks the warning as given. */
const softStageTimeout = (f: HostFacts) => f.softTimeouts && !(f.ctx.progress?.stageTimedOut ?? false) && stageOverran(f);

const stageTimedOutEvent = (f: HostFacts) => ({
  name: 'host_stage_timed_out',
  props: { host_name: f.ctx.hostName, stage: f.stage ?? '', minutes: Math.floor(hostStageTimeoutMs(f.stage) / MINUTE_MS) },
});

/** Ready for installation: upstream's conjunction for "known", vSphere disk UUID included. */
const readyToInstall = (f: HostFacts) =>
  online(f) &&
  validInventory(f) &&
  f.validations.minHardware &&
  f.validations.machineCidrDefined &&
  f.validations.sufficientForInstall &&
  f.validations.vsphereDiskUuidEnabled;

const POOL_PRE_BIND = ['discovering-unbound', 'disconnected-unbound', 'insufficient-unbound', 'known-unbound'] as const;

export const HOST_REFRESH_RULES: readonly HostRule[] = [
  {
    id: 'refresh-reclaim-timeout',
    trigger: 'RefreshHost',
    from: ['reclaiming', 'reclaiming-rebooting'],
    when: (f) => f.statusOlderThan(f.timeouts.reclaimMs),
    to: 'unbinding-pending-user-action',
    statusInfo: info(INFO.unbinding),
    effects: effects('cluster-unbound', 'logs-reset'),
  },

  // ---------------------------------------------------------------- preparing for installation
  {
    id: 'refresh-start-preparing',
    trigger: 'RefreshHost',
    from: ['known'],
    when: (f) => f.validRole && online(f) && f.clusterPreparing,
    to: 'preparing-for-installation',
    statusInfo: info(INFO.preparing),
    effects: (f) => (f.validations.containerImagesOk ? ['logs-reset'] : ['images-status-cleared', 'logs-reset']),
  },
  {
    id: 'refresh-prepared',
    trigger: 'RefreshHost',
    from: ['preparing-for-installation'],
    when: (f) => online(f) && f.diskSpeedCheckSucceeded && f.containerImagesAvailable && f.clusterPreparing,
    to: 'preparing-successful',
    statusInfo: info(INFO.preparationSuccessful),
  },
  { id: 'refresh-prepared-waiting', trigger: 'RefreshHost', from: ['preparing-successful'], when: (f) => online(f) && f.clusterPreparing, to: STAY },
  {
    id: 'refresh-cluster-installing',
    trigger: 'RefreshHost',
    from: ['preparing-successful'],
    when: (f) => online(f) && f.clusterInstalling,
    to: 'installing',
    statusInfo: info(INFO.installing),
  },
  {
    id: 'refresh-preparation-stopped',
    trigger: 'RefreshHost',
    from: ['preparing-for-installation'],
    when: (f) => online(f) && preparedOrUnknown(f) && !f.clusterPreparing,
    to: 'known',
    statusInfo: info(INFO.known),
  },
  // A disk measured too slow makes the host insufficient until the user picks another disk.
  {
    id: 'refresh-disk-too-slow',
    trigger: 'RefreshHost',
    from: ['preparing-for-installation', 'preparing-failed', 'known'],
    when: (f) => online(f) && !f.validations.installationDiskSpeedOk,
    to: 'insufficient',
    statusInfo: info(INFO.notReadyForInstall),
  },
  {
    id: 'refresh-preparation-timeout',
    trigger: 'RefreshHost',
    from: ['preparing-for-installation'],
    when: (f) => online(f) && f.statusOlderThan(f.timeouts.prepareForInstallationMs) && somePreparationUnknown(f),
    to: 'preparing-failed',
    statusInfo: preparationTimeoutInfo,
  },
  {
    id: 'refresh-images-unavailable',
    trigger: 'RefreshHost',
    from: ['preparing-for-installation'],
    when: (f) => online(f) && !f.validations.containerImagesOk,
    to: 'preparing-failed',
    statusInfo: info(INFO.preparationFailure),
  },
  {
    id: 'refresh-preparing',
    trigger: 'RefreshHost',
    from: ['preparing-for-installation'],
    when: (f) => online(f) && somePreparationUnknown(f) && f.clusterPreparing,
    to: STAY,
  },
  {
    id: 'refresh-preparation-failed-released',
    trigger: 'RefreshHost',
    from: ['preparing-failed'],
    when: (f) => online(f) && !f.clusterPreparing,
    to: 'known',
    statusInfo: info(INFO.known),
  },
  {
    id: 'refresh-prepared-released',
    trigger: 'RefreshHost',
    from: ['preparing-successful'],
    when: (f) => online(f) && !f.clusterPreparing && !f.clusterInstalling,
    to: 'known',
    statusInfo: info(INFO.known),
  },
  {
    id: 'refresh-disconnected',
    trigger: 'RefreshHost',
    from: ['discovering', 'insufficient', 'known', 'pending-for-input', 'disconnected', 'preparing-failed'],
    when: offline,
    to: 'disconnected',
    statusInfo: info(INFO.disconnected),
  },

  // ---------------------------------------------------------------- installing
  // A day-1 host cannot finish once its cluster failed; a day-2 host joins an existing cluster.
  {
    id: 'refresh-cluster-error',
    trigger: 'RefreshHost',
    from: ['installing', 'installing-in-progress', 'installed', 'resetting-pending-user-action', 'installing-pending-user-action'],
    when: (f) => f.clusterInError && !f.day2,
    to: 'error',
    statusInfo: info(INFO.abortingDueClusterErrors),
  },
  {
    id: 'refresh-installing-timeout',
    trigger: 'RefreshHost',
    from: ['installing'],
    when: (f) => f.statusOlderThan(f.timeouts.installingMs),
    to: 'error',
    statusInfo: info(INFO.installationTimedOut),
  },
  {
    id: 'refresh-disconnected-preparing',
    trigger: 'RefreshHost',
    from: ['preparing-for-installation', 'preparing-successful'],
    when: offline,
    to: 'disconnected',
    statusInfo: info(INFO.connectionTimedOutPreparing),
  },
  {
    id: 'refresh-disconnected-installing',
    trigger: 'RefreshHost',
    from: ['installing', 'installing-in-progress'],
    when: (f) => !f.connected && !f.softTimeouts,
    to: 'error',
    statusInfo: info(INFO.connectionTimedOutInstalling),
  },
  {
    id: 'refresh-soft-disconnected-installing',
    trigger: 'RefreshHost',
    from: ['installing', 'installing-in-progress'],
    when: (f) => !f.connected && f.softTimeouts && !(f.ctx.connectionTimedOut ?? false),
    to: STAY,
    statusInfo: info(INFO.connectionSoftTimedOutInstalling),
    effects: effects('connection-timed-out'),
  },
  {
    id: 'refresh-soft-reconnected-installing',
    trigger: 'RefreshHost',
    from: ['installing', 'installing-in-progress'],
    when: (f) => f.connected && f.softTimeouts && (f.ctx.connectionTimedOut ?? false),
    to: STAY,
    statusInfo: info(INFO.connectionSoftTimedOutReconnected),
    effects: effects('connection-restored'),
  },
  // Waiting on a host whose boot order the user must fix: restart the clock instead of failing.
  {
    id: 'refresh-stage-timeout-waived',
    trigger: 'RefreshHost',
    from: ['installing-in-progress'],
    when: (f) => f.ignoreStageTimeout,
    to: STAY,
    effects: (f) => (elapsedMs(f.ctx.progress?.stageUpdatedAt, f.ctx.now) >= MINUTE_MS ? ['stage-updated-at-refreshed'] : []),
  },
  {
    id: 'refresh-stage-timeout',
    trigger: 'RefreshHost',
    from: ['installing-in-progress'],
    when: (f) => hardStageTimeout(f) && genericStage(f),
    to: 'error',
    statusInfo: info(INFO.stageTimedOut),
  },
  {
    id: 'refresh-writing-image-timeout',
    trigger: 'RefreshHost',
    from: ['installing-in-progress'],
    when: (f) => hardStageTimeout(f) && inStages(f, ['Writing image to disk']),
    to: 'error',
    statusInfo: info(INFO.stageNotProgressing),
  },
  {
    id: 'refresh-copying-registry-timeout',
    trigger: 'RefreshHost',
    from: ['installing-in-progress'],
    when: (f) => hardStageTimeout(f) && inStages(f, ['Copying registry data to disk']),
    to: 'error',
    statusInfo: info(INFO.stageNotProgressing),
  },
  {
    id: 'refresh-stage-soft-timeout',
    trigger: 'RefreshHost',
    from: ['installing-in-progress'],
    when: (f) => softStageTimeout(f) && genericStage(f),
    to: STAY,
    statusInfo: info(INFO.stageSoftTimedOut),
    event: stageTimedOutEvent,
    effects: effects('stage-timed-out'),
  },
  {
    id: 'refresh-writing-image-soft-timeout',
    trigger: 'RefreshHost',
    from: ['installing-in-progress'],
    when: (f) => softStageTimeout(f) && inStages(f, ['Writing image to disk']),
    to: STAY,
    statusInfo: info(INFO.stageNotProgressingSoft),
    event: stageTimedOutEvent,
    effects: effects('stage-timed-out'),
  },
  {
    id: 'refresh-copying-registry-soft-timeout',
    trigger: 'RefreshHost',
    from: ['installing-in-progress'],
    when: (f) => softStageTimeout(f) && inStages(f, ['Copying registry data to disk']),
    to: STAY,
    statusInfo: info(INFO.stageNotProgressingSoft),
    event: stageTimedOutEvent,
    effects: effects('stage-timed-out'),
  },
  // Rebooting too long: most likely it booted the discovery image again (boot order).
  {
    id: 'refresh-reboot-timeout',
    trigger: 'RefreshHost',
    from: ['installing-in-progress'],
    when: (f) => f.stageTimedOut && f.stage === 'Rebooting',
    to: 'installing-pending-user-action',
    statusInfo: info(INFO.rebootTimeout),
  },
  // Give up on the host only when the cluster can succeed without it and is not done already.
  {
    id: 'refresh-pending-user-action-timeout',
    trigger: 'RefreshHost',
    from: ['installing-pending-user-action'],
    when: (f) => f.statusOlderThan(f.timeouts.installingPendingUserActionMs) && (f.ctx.cluster?.wouldSucceedWithoutHost ?? false) && !f.clusterPostInstallation,
    to: 'error',
    statusInfo: info(INFO.pendingUserActionTimeout),
  },
  {
    id: 'refresh-installing-unchanged',
    trigger: 'RefreshHost',
    from: ['installing', 'installing-in-progress', 'installed', 'installing-pending-user-action', 'resetting-pending-user-action'],
    when: (f) => !f.clusterInError,
    to: STAY,
  },

  // ---------------------------------------------------------------- discovery (bound)
  {
    id: 'refresh-discovering',
    trigger: 'RefreshHost',
    from: ['disconnected', 'discovering'],
    when: (f) => online(f) && !validInventory(f),
    to: 'discovering',
    statusInfo: info(INFO.discovering),
  },
  {
    id: 'refresh-insufficient-hardware',
    trigger: 'RefreshHost',
    from: ['disconnected', 'discovering', 'insufficient', 'known', 'pending-for-input'],
    when: (f) => online(f) && validInventory(f) && !f.validations.minHardware,
    to: 'insufficient',
    statusInfo: info(INFO.insufficientHardware),
  },
  {
    id: 'refresh-pending-for-input',
    trigger: 'RefreshHost',
    from: ['disconnected', 'discovering', 'insufficient', 'known', 'pending-for-input'],
    when: (f) => online(f) && validInventory(f) && f.validations.vsphereDiskUuidEnabled && f.validations.minHardware && !f.validations.machineCidrDefined,
    to: 'pending-for-input',
    statusInfo: info(INFO.pendingForInput),
  },
  // Upstream's exact condition: a fully truncated inventory also lands here rather than in "discovering".
  {
    id: 'refresh-not-ready',
    trigger: 'RefreshHost',
    from: ['disconnected', 'insufficient', 'pending-for-input', 'discovering', 'known'],
    when: (f) =>
      online(f) &&
      f.validations.hasInventory &&
      (f.validations.minHardware || !f.validations.inventoryNotFullyTruncated) &&
      (!f.validations.vsphereDiskUuidEnabled || (f.validations.machineCidrDefined && !f.validations.sufficientForInstall)),
    to: 'insufficient',
    statusInfo: info(INFO.notReadyForInstall),
  },
  {
    id: 'refresh-ready',
    trigger: 'RefreshHost',
    from: ['disconnected', 'insufficient', 'pending-for-input', 'discovering'],
    when: readyToInstall,
    to: 'known',
    statusInfo: info(INFO.known),
  },
  {
    id: 'refresh-still-ready',
    trigger: 'RefreshHost',
    from: ['known'],
    when: (f) => readyToInstall(f) && !(f.clusterPreparing && f.validRole),
    to: 'known',
    statusInfo: info(INFO.known),
  },

  // ---------------------------------------------------------------- final and transient states
  {
    id: 'refresh-logs-timeout',
    trigger: 'RefreshHost',
    from: ['error', 'cancelled'],
    when: (f) => f.logsTimedOut,
    to: STAY,
    effects: effects('logs-timed-out'),
  },
  { id: 'refresh-unchanged', trigger: 'RefreshHost', from: ['error', 'cancelled', 'resetting'], to: STAY },
  { id: 'refresh-added-unchanged', trigger: 'RefreshHost', from: ['added-to-existing-cluster'], when: (f) => f.day2, to: STAY },
  {
    id: 'refresh-reclaiming',
    trigger: 'RefreshHost',
    from: ['reclaiming', 'reclaiming-rebooting'],
    when: (f) => !f.statusOlderThan(f.timeouts.reclaimMs),
    to: STAY,
  },

  // ---------------------------------------------------------------- pool (unbound) hosts
  {
    id: 'refresh-unbound-disconnected',
    trigger: 'RefreshHost',
    from: [...POOL_PRE_BIND, 'unbinding'],
    when: (f) => !f.connected,
    to: 'disconnected-unbound',
    statusInfo: info(INFO.disconnected),
  },
  {
    id: 'refresh-unbound-discovering',
    trigger: 'RefreshHost',
    from: ['disconnected-unbound', 'discovering-unbound'],
    when: (f) => online(f) && !validInventory(f),
    to: 'discovering-unbound',
    statusInfo: info(INFO.discovering),
  },
  {
    id: 'refresh-unbound-insufficient',
    trigger: 'RefreshHost',
    from: POOL_PRE_BIND,
    when: (f) => online(f) && validInventory(f) && !f.validations.poolHardware,
    to: 'insufficient-unbound',
    statusInfo: info(INFO.insufficientHardware),
  },
  // The agent is told to exit and re-register; until then nothing to evaluate.
  { id: 'refresh-binding-unbinding', trigger: 'RefreshHost', from: ['binding', 'unbinding'], to: STAY },
  {
    id: 'refresh-unbound-ready',
    trigger: 'RefreshHost',
    from: POOL_PRE_BIND,
    when: (f) => online(f) && validInventory(f) && f.validations.poolHardware,
    to: 'known-unbound',
    statusInfo: info(INFO.readyToBeBound),
  },
];
