/**
 * The host state machine, rule by rule: each case names the rule it expects to fire, and a final
 * test checks that every rule of the table is exercised. Texts are asserted literally: they are
 * upstream's status_info strings, which users and scripts match on.
 */
import { describe, expect, it } from 'vitest';
import { eventDefinition, type EventSubject } from '../../lambdas/domain/events/events.js';
import {
  checkHostProgress,
  HOST_RULE_IDS,
  HOST_STATUS_INFO,
  HOST_STATUSES,
  isHostConnected,
  isNotAllowed,
  summarizeHostValidations,
  transitionHost,
  type HostEffect,
  type HostStatus,
  type HostTransitionContext,
  type HostTrigger,
  type HostValidationSummary,
  type NotAllowed,
} from '../../lambdas/domain/host/host-state-machine.js';
import { goDuration } from '../../lambdas/domain/core/state-rules.js';
import { ago, expectRuleCase, NOW, openapiStatuses, type RuleCaseExpectation } from '../support/rule-cases.js';

const READY: HostValidationSummary = {
  hasInventory: true,
  inventoryNotFullyTruncated: true,
  minHardware: true,
  poolHardware: true,
  vsphereDiskUuidEnabled: true,
  machineCidrDefined: true,
  sufficientForInstall: true,
  installationDiskSpeedOk: true,
  containerImagesOk: true,
  failureMessages: [],
};
const DISK = { name: 'sda', path: '/dev/sda', identifier: '/dev/disk/by-id/wwn-0x5000c500a0b1c2d3', model: 'ST1000', serial: 'Z1D2' };

/** A connected, fully valid worker of a cluster that is still being defined. */
function context(overrides: Partial<HostTransitionContext> = {}): HostTransitionContext {
  return {
    now: NOW,
    hostName: 'worker-0',
    statusInfo: 'previous',
    statusUpdatedAt: ago(1),
    bound: true,
    role: 'worker',
    checkedInAt: ago(0.5),
    validations: READY,
    cluster: { status: 'insufficient' },
    installationDisk: DISK,
    ...overrides,
  };
}
const inStage = (stage: NonNullable<HostTransitionContext['progress']>['currentStage'], minutesAgo = 1, extra = {}) => ({
  progress: { currentStage: stage, stageUpdatedAt: ago(minutesAgo), ...extra },
});
const cluster = (status: string, extra = {}) => ({ cluster: { status, ...extra } });
const failing = (summary: Partial<HostValidationSummary>) => ({ validations: { ...READY, ...summary } });

interface Case extends RuleCaseExpectation<HostStatus, HostEffect> {
  name: string;
  from: HostStatus | '';
  trigger: HostTrigger;
  ctx?: Partial<HostTransitionContext>;
}

const I = HOST_STATUS_INFO;
const SLOW_DISK = 'While preparing the previous installation the installation disk speed measurement failed or was found to be insufficient';

const CASES: Case[] = [
  // RegisterHost
  {
    name: 'a new bound host is discovered',
    from: '',
    trigger: 'RegisterHost',
    rule: 'register-new',
    to: 'discovering',
    info: I.discovering,
    events: ['host_registration_succeeded'],
  },
  {
    name: 'rebooting while preparing keeps the host known',
    from: 'preparing-for-installation',
    trigger: 'RegisterHost',
    rule: 'register-during-preparation',
    to: 'known',
    info: I.known,
    effects: ['cluster-preparation-reset'],
    events: ['host_status_updated'],
  },
  {
    name: 'a known host registering again is rediscovered',
    from: 'known',
    trigger: 'RegisterHost',
    rule: 'register-rediscover',
    to: 'discovering',
    info: I.discovering,
    effects: ['rediscover'],
  },
  { name: 'a binding host registering is discovered bound', from: 'binding', trigger: 'RegisterHost', rule: 'register-rediscover', to: 'discovering' },
  {
    name: 'a resetting host registering while rebooting is ignored',
    from: 'resetting',
    trigger: 'RegisterHost',
    ctx: inStage('Rebooting'),
    rule: 'register-resetting-rebooting',
    to: 'resetting',
    info: 'previous',
    changed: false,
    events: [],
  },
  {
    name: 'a resetting host registering is discovered',
    from: 'resetting',
    trigger: 'RegisterHost',
    rule: 'register-resetting',
    to: 'discovering',
    info: I.discovering,
  },
  {
    name: 'wrong boot order: the discovery image booted after the disk write',
    from: 'installing-in-progress',
    trigger: 'RegisterHost',
    ctx: inStage('Rebooting'),
    rule: 'register-wrong-boot-order',
    to: 'installing-pending-user-action',
    info: 'Expected the host to boot from disk, but it booted the installation image - please reboot and fix boot order to boot from disk ST1000 Z1D2 (sda, /dev/disk/by-id/wwn-0x5000c500a0b1c2d3)',
  },
  {
    name: 'wrong boot order of a day-2 host that reported Done',
    from: 'added-to-existing-cluster',
    trigger: 'RegisterHost',
    ctx: { day2: true, ...inStage('Done') },
    rule: 'register-wrong-boot-order',
    to: 'installing-pending-user-action',
  },
  {
    name: 'registering mid-installation is an error',
    from: 'installing-in-progress',
    trigger: 'RegisterHost',
    ctx: inStage('Installing'),
    rule: 'register-during-installation',
    to: 'error',
    info: I.unexpectedRestart,
  },
  { name: 'registering while installing is an error', from: 'installing', trigger: 'RegisterHost', rule: 'register-during-installation', to: 'error' },
  { name: 'a host in error registers without change', from: 'error', trigger: 'RegisterHost', rule: 'register-in-error', to: 'error', changed: false },
  {
    name: 'a new unbound host joins the pool',
    from: '',
    trigger: 'RegisterHost',
    ctx: { bound: false },
    rule: 'register-new-unbound',
    to: 'discovering-unbound',
    info: I.discovering,
    events: ['host_registration_succeeded'],
  },
  {
    name: 'a pool host registering again is rediscovered',
    from: 'known-unbound',
    trigger: 'RegisterHost',
    ctx: { bound: false },
    rule: 'register-unbound-rediscover',
    to: 'discovering-unbound',
    effects: ['rediscover'],
  },
  {
    name: 'an unbound host back from the discovery image',
    from: 'unbinding-pending-user-action',
    trigger: 'RegisterHost',
    ctx: { bound: false },
    rule: 'register-unbound-rediscover',
    to: 'discovering-unbound',
  },

  // HostProgressChanged (the context holds the stage just reported)
  {
    name: 'Failed puts the host in error with the reason',
    from: 'installing-in-progress',
    trigger: 'HostProgressChanged',
    ctx: inStage('Failed', 0, { progressInfo: 'coreos-installer exited' }),
    rule: 'progress-failed',
    to: 'error',
    info: 'Failed - coreos-installer exited',
  },
  {
    name: 'a day-2 host rebooting (kube-api)',
    from: 'installing',
    trigger: 'HostProgressChanged',
    ctx: { day2: true, ...inStage('Rebooting') },
    rule: 'progress-day2-rebooting',
    to: 'installing-in-progress',
    info: 'Rebooting',
  },
  {
    name: 'a day-2 host done is added (REST)',
    from: 'installing-in-progress',
    trigger: 'HostProgressChanged',
    ctx: { day2: true, ...inStage('Done') },
    rule: 'progress-day2-done',
    to: 'added-to-existing-cluster',
    info: I.rebootingDay2,
  },
  {
    name: 'a day-2 host done is added (kube-api)',
    from: 'installing-pending-user-action',
    trigger: 'HostProgressChanged',
    ctx: { day2: true, kubeApi: true, ...inStage('Done') },
    rule: 'progress-day2-done',
    to: 'added-to-existing-cluster',
    info: 'Done',
  },
  {
    name: 'Done installs the host',
    from: 'installing-in-progress',
    trigger: 'HostProgressChanged',
    ctx: inStage('Done'),
    rule: 'progress-done',
    to: 'installed',
    info: 'Done',
  },
  {
    name: 'the first stage starts the installation',
    from: 'installing',
    trigger: 'HostProgressChanged',
    ctx: inStage('Starting installation'),
    rule: 'progress-in-progress',
    to: 'installing-in-progress',
    info: 'Starting installation',
  },
  {
    name: 'a report after pending user action resumes',
    from: 'installing-pending-user-action',
    trigger: 'HostProgressChanged',
    ctx: inStage('Configuring'),
    rule: 'progress-in-progress',
    to: 'installing-in-progress',
    info: 'Configuring',
  },
  {
    name: 'late reports on an installed host change nothing',
    from: 'installed',
    trigger: 'HostProgressChanged',
    ctx: inStage('Joined'),
    rule: 'progress-ignored',
    to: 'installed',
    changed: false,
  },

  // install, cancel, reset
  {
    name: 'the install step failed',
    from: 'installing',
    trigger: 'HostInstallationFailed',
    rule: 'installation-failed',
    to: 'error',
    info: 'installation command failed',
  },
  {
    name: 'cancel while installing',
    from: 'installing-in-progress',
    trigger: 'CancelInstallation',
    rule: 'cancel-installation',
    to: 'cancelled',
    info: 'Installation was cancelled by user',
    events: ['host_status_updated', 'host_installation_cancelled'],
  },
  {
    name: 'cancel while preparing',
    from: 'preparing-successful',
    trigger: 'CancelInstallation',
    rule: 'cancel-preparation',
    to: 'known',
    info: 'Installation was cancelled by user',
  },
  {
    name: 'cancel on a known host',
    from: 'known',
    trigger: 'CancelInstallation',
    rule: 'cancel-known',
    to: 'known',
    changed: false,
    events: ['host_installation_cancelled'],
  },
  {
    name: 'install a day-2 host',
    from: 'known',
    trigger: 'InstallHost',
    ctx: { day2: true },
    rule: 'install-day2',
    to: 'installing',
    info: I.installing,
    events: ['host_status_updated', 'host_installation_started'],
  },
  {
    name: 'cluster reset asks for a reboot',
    from: 'installed',
    trigger: 'ResettingPendingUserAction',
    rule: 'reset-pending-user-action',
    to: 'resetting-pending-user-action',
    info: I.resettingPendingUserAction,
    events: ['host_status_updated', 'user_required_complete_installation_reset'],
  },
  {
    name: 'a user reset of a day-2 host',
    from: 'error',
    trigger: 'ResettingPendingUserAction',
    ctx: { resetByUser: true },
    rule: 'reset-pending-user-action',
    to: 'resetting-pending-user-action',
    events: ['host_status_updated', 'host_installation_reset'],
  },

  // media
  {
    name: 'media already reported disconnected',
    from: 'known',
    trigger: 'MediaDisconnect',
    ctx: { mediaConnected: false },
    rule: 'media-already-disconnected',
    to: 'known',
    changed: false,
    events: [],
  },
  {
    name: 'media lost before installing',
    from: 'known',
    trigger: 'MediaDisconnect',
    rule: 'media-disconnected',
    to: 'disconnected',
    info: I.mediaDisconnected,
    events: ['host_status_updated', 'host_media_disconnected'],
    effects: ['media-disconnected'],
  },
  {
    name: 'media lost while installing',
    from: 'installing-in-progress',
    trigger: 'MediaDisconnect',
    rule: 'media-disconnected-installing',
    to: 'error',
    info: I.mediaDisconnected,
  },
  {
    name: 'media lost in error adds its diagnosis',
    from: 'error',
    trigger: 'MediaDisconnect',
    ctx: { statusInfo: 'Failed - boom' },
    rule: 'media-disconnected-installing',
    to: 'error',
    info: `Failed - ${I.mediaDisconnected}. Failed - boom`,
    events: ['host_media_disconnected'],
  },
  { name: 'media lost in the pool', from: 'known-unbound', trigger: 'MediaDisconnect', rule: 'media-disconnected-unbound', to: 'disconnected-unbound' },

  // bind, unbind, reclaim
  {
    name: 'bind a known pool host',
    from: 'known-unbound',
    trigger: 'BindHost',
    rule: 'bind',
    to: 'binding',
    info: I.binding,
    events: ['host_status_updated', 'host_bind_succeeded'],
    effects: ['cluster-bound'],
  },
  {
    name: 'unbind before installation',
    from: 'insufficient',
    trigger: 'UnbindHost',
    rule: 'unbind-pre-install',
    to: 'unbinding',
    info: I.unbinding,
    events: ['host_status_updated', 'host_unbind_succeeded'],
  },
  {
    name: 'unbind an installed host',
    from: 'installed',
    trigger: 'UnbindHost',
    rule: 'unbind-after-install-started',
    to: 'unbinding-pending-user-action',
    info: I.unbinding,
  },
  { name: 'reclaim an installed host', from: 'added-to-existing-cluster', trigger: 'ReclaimHost', rule: 'reclaim-installed', to: 'reclaiming' },
  {
    name: 'the reclaimed host reboots',
    from: 'reclaiming',
    trigger: 'RebootingForReclaim',
    rule: 'reclaim-rebooting',
    to: 'reclaiming-rebooting',
    info: I.rebootingForReclaim,
  },
  { name: 'reclaim failed', from: 'reclaiming-rebooting', trigger: 'ReclaimHostFailed', rule: 'reclaim-failed', to: 'unbinding-pending-user-action' },
  { name: 'reclaim before installation unbinds', from: 'known', trigger: 'ReclaimHost', rule: 'reclaim-pre-install', to: 'unbinding' },
  { name: 'reclaim after a failure', from: 'cancelled', trigger: 'ReclaimHost', rule: 'reclaim-after-failure', to: 'unbinding-pending-user-action' },

  // RefreshHost: preparing
  {
    name: 'reclaim that never came back',
    from: 'reclaiming',
    trigger: 'RefreshHost',
    ctx: { statusUpdatedAt: ago(61) },
    rule: 'refresh-reclaim-timeout',
    to: 'unbinding-pending-user-action',
    info: I.unbinding,
  },
  {
    name: 'the cluster starts preparing',
    from: 'known',
    trigger: 'RefreshHost',
    ctx: cluster('preparing-for-installation'),
    rule: 'refresh-start-preparing',
    to: 'preparing-for-installation',
    info: I.preparing,
    effects: ['logs-reset'],
  },
  {
    name: 'preparing retries a failed image pull',
    from: 'known',
    trigger: 'RefreshHost',
    ctx: { ...cluster('preparing-for-installation'), ...failing({ containerImagesOk: false }) },
    rule: 'refresh-start-preparing',
    to: 'preparing-for-installation',
    effects: ['images-status-cleared', 'logs-reset'],
  },
  {
    name: 'both preparation checks passed',
    from: 'preparing-for-installation',
    trigger: 'RefreshHost',
    ctx: { ...cluster('preparing-for-installation'), preparation: { diskSpeedCheckSucceeded: true, containerImagesAvailable: true } },
    rule: 'refresh-prepared',
    to: 'preparing-successful',
    info: I.preparationSuccessful,
  },
  {
    name: 'prepared, waiting for the others',
    from: 'preparing-successful',
    trigger: 'RefreshHost',
    ctx: cluster('preparing-for-installation'),
    rule: 'refresh-prepared-waiting',
    to: 'preparing-successful',
    changed: false,
  },
  {
    name: 'the cluster installs',
    from: 'preparing-successful',
    trigger: 'RefreshHost',
    ctx: cluster('installing'),
    rule: 'refresh-cluster-installing',
    to: 'installing',
    info: 'Installation is in progress',
  },
  {
    name: 'the cluster stopped preparing',
    from: 'preparing-for-installation',
    trigger: 'RefreshHost',
    ctx: cluster('ready'),
    rule: 'refresh-preparation-stopped',
    to: 'known',
    info: I.known,
  },
  {
    name: 'the disk is too slow',
    from: 'preparing-for-installation',
    trigger: 'RefreshHost',
    ctx: { ...cluster('preparing-for-installation'), ...failing({ installationDiskSpeedOk: false, failureMessages: [SLOW_DISK] }) },
    rule: 'refresh-disk-too-slow',
    to: 'insufficient',
    info: `Host cannot be installed due to following failing validation(s): ${SLOW_DISK}`,
  },
  {
    name: 'a known host with a slow disk',
    from: 'known',
    trigger: 'RefreshHost',
    ctx: failing({ installationDiskSpeedOk: false }),
    rule: 'refresh-disk-too-slow',
    to: 'insufficient',
  },
  {
    name: 'the image check never reported',
    from: 'preparing-for-installation',
    trigger: 'RefreshHost',
    ctx: { ...cluster('preparing-for-installation'), statusUpdatedAt: ago(9), preparation: { diskSpeedCheckSucceeded: true } },
    rule: 'refresh-preparation-timeout',
    to: 'preparing-failed',
    info: 'The host has encountered a preparation timeout, the following conditions failed: container availability was not determined within the timeout.',
  },
  {
    name: 'images could not be pulled',
    from: 'preparing-for-installation',
    trigger: 'RefreshHost',
    ctx: { ...cluster('preparing-for-installation'), ...failing({ containerImagesOk: false, failureMessages: ['Failed to fetch container images'] }) },
    rule: 'refresh-images-unavailable',
    to: 'preparing-failed',
    info: 'Host failed to prepare for installation due to following failing validation(s): Failed to fetch container images',
  },
  {
    name: 'preparation checks still running',
    from: 'preparing-for-installation',
    trigger: 'RefreshHost',
    ctx: cluster('preparing-for-installation'),
    rule: 'refresh-preparing',
    to: 'preparing-for-installation',
    changed: false,
  },
  {
    name: 'a failed preparation is released',
    from: 'preparing-failed',
    trigger: 'RefreshHost',
    ctx: cluster('ready'),
    rule: 'refresh-preparation-failed-released',
    to: 'known',
  },
  {
    name: 'a prepared host is released',
    from: 'preparing-successful',
    trigger: 'RefreshHost',
    ctx: cluster('ready'),
    rule: 'refresh-prepared-released',
    to: 'known',
  },
  {
    name: 'silent for more than 3 minutes',
    from: 'known',
    trigger: 'RefreshHost',
    ctx: { checkedInAt: ago(3.5) },
    rule: 'refresh-disconnected',
    to: 'disconnected',
    info: I.disconnected,
    events: ['host_status_updated'],
  },
  {
    name: 'media disconnected is disconnected',
    from: 'insufficient',
    trigger: 'RefreshHost',
    ctx: { mediaConnected: false },
    rule: 'refresh-disconnected',
    to: 'disconnected',
  },

  // RefreshHost: installing
  {
    name: 'the cluster failed',
    from: 'installing-in-progress',
    trigger: 'RefreshHost',
    ctx: cluster('error'),
    rule: 'refresh-cluster-error',
    to: 'error',
    info: I.abortingDueClusterErrors,
  },
  {
    name: 'the install step was never picked up',
    from: 'installing',
    trigger: 'RefreshHost',
    ctx: { ...cluster('installing'), statusUpdatedAt: ago(21) },
    rule: 'refresh-installing-timeout',
    to: 'error',
    info: I.installationTimedOut,
  },
  {
    name: 'silent while preparing',
    from: 'preparing-successful',
    trigger: 'RefreshHost',
    ctx: { ...cluster('preparing-for-installation'), checkedInAt: ago(4) },
    rule: 'refresh-disconnected-preparing',
    to: 'disconnected',
    info: I.connectionTimedOutPreparing,
  },
  {
    name: 'silent while installing (hard timeouts)',
    from: 'installing',
    trigger: 'RefreshHost',
    ctx: { ...cluster('installing'), checkedInAt: ago(4) },
    rule: 'refresh-disconnected-installing',
    to: 'error',
    info: I.connectionTimedOutInstalling,
  },
  {
    name: 'silent while installing (soft timeouts)',
    from: 'installing-in-progress',
    trigger: 'RefreshHost',
    ctx: { ...cluster('installing', { softTimeoutsEnabled: true }), ...inStage('Installing'), checkedInAt: ago(4) },
    rule: 'refresh-soft-disconnected-installing',
    to: 'installing-in-progress',
    info: I.connectionSoftTimedOutInstalling,
    effects: ['connection-timed-out'],
  },
  {
    name: 'back after a soft disconnection',
    from: 'installing',
    trigger: 'RefreshHost',
    ctx: { ...cluster('installing', { softTimeoutsEnabled: true }), connectionTimedOut: true },
    rule: 'refresh-soft-reconnected-installing',
    to: 'installing',
    info: I.connectionSoftTimedOutReconnected,
    effects: ['connection-restored'],
  },
  {
    name: 'waiting on a host the user must fix: clock restarted',
    from: 'installing-in-progress',
    trigger: 'RefreshHost',
    ctx: { ...cluster('installing-pending-user-action'), ...inStage('Waiting for control plane', 120) },
    rule: 'refresh-stage-timeout-waived',
    to: 'installing-in-progress',
    effects: ['stage-updated-at-refreshed'],
  },
  {
    name: 'waived timeout refreshed under a minute ago',
    from: 'installing-in-progress',
    trigger: 'RefreshHost',
    ctx: { ...cluster('installing-pending-user-action'), ...inStage('Rebooting', 0.5) },
    rule: 'refresh-stage-timeout-waived',
    to: 'installing-in-progress',
    changed: false,
  },
  {
    name: 'a stage overran (hard)',
    from: 'installing-in-progress',
    trigger: 'RefreshHost',
    ctx: { ...cluster('installing'), ...inStage('Starting installation', 31) },
    rule: 'refresh-stage-timeout',
    to: 'error',
    info: 'Host failed to install because its installation stage Starting installation took longer than expected 30m0s',
  },
  {
    name: 'writing the image stalled (hard)',
    from: 'installing-in-progress',
    trigger: 'RefreshHost',
    ctx: { ...cluster('installing'), ...inStage('Writing image to disk', 31) },
    rule: 'refresh-writing-image-timeout',
    to: 'error',
    info: 'Host failed to install because its installation stage Writing image to disk did not sufficiently progress in the last 30m0s.',
  },
  {
    name: 'copying registry data stalled (hard)',
    from: 'installing-in-progress',
    trigger: 'RefreshHost',
    ctx: { ...cluster('installing'), ...inStage('Copying registry data to disk', 91) },
    rule: 'refresh-copying-registry-timeout',
    to: 'error',
    info: 'Host failed to install because its installation stage Copying registry data to disk did not sufficiently progress in the last 1h30m0s.',
  },
  {
    name: 'a stage overran (soft)',
    from: 'installing-in-progress',
    trigger: 'RefreshHost',
    ctx: { ...cluster('installing', { softTimeoutsEnabled: true }), ...inStage('Installing', 61) },
    rule: 'refresh-stage-soft-timeout',
    to: 'installing-in-progress',
    info: 'Host installation stage Installing is taking longer than expected 1h0m0s',
    events: ['host_stage_timed_out'],
    effects: ['stage-timed-out'],
  },
  {
    name: 'writing the image stalled (soft)',
    from: 'installing-in-progress',
    trigger: 'RefreshHost',
    ctx: { ...cluster('installing', { softTimeoutsEnabled: true }), ...inStage('Writing image to disk', 31) },
    rule: 'refresh-writing-image-soft-timeout',
    to: 'installing-in-progress',
    info: 'Host installation stage Writing image to disk is not progressing sufficiently in the last 30m0s. To troubleshoot use kubeconfig or connect to the node using ssh',
  },
  {
    name: 'copying registry data stalled (soft)',
    from: 'installing-in-progress',
    trigger: 'RefreshHost',
    ctx: { ...cluster('installing', { softTimeoutsEnabled: true }), ...inStage('Copying registry data to disk', 91) },
    rule: 'refresh-copying-registry-soft-timeout',
    to: 'installing-in-progress',
  },
  {
    name: 'rebooting too long: boot order',
    from: 'installing-in-progress',
    trigger: 'RefreshHost',
    ctx: { ...cluster('installing'), ...inStage('Rebooting', 41) },
    rule: 'refresh-reboot-timeout',
    to: 'installing-pending-user-action',
    info: 'Host timed out when pulling the configuration files. Verify in the host console that the host boots from the OpenShift installation disk (sda, /dev/disk/by-id/wwn-0x5000c500a0b1c2d3) and has network access to the cluster API. The installation will resume after the host successfully boots and can access the cluster API',
  },
  {
    name: 'a single node gets 80 minutes to reboot',
    from: 'installing-in-progress',
    trigger: 'RefreshHost',
    ctx: { ...cluster('installing', { singleNode: true }), ...inStage('Rebooting', 81) },
    rule: 'refresh-reboot-timeout',
    to: 'installing-pending-user-action',
  },
  {
    name: 'pending user action for an hour, cluster fine without it',
    from: 'installing-pending-user-action',
    trigger: 'RefreshHost',
    ctx: { ...cluster('finalizing', { wouldSucceedWithoutHost: true }), statusUpdatedAt: ago(61) },
    rule: 'refresh-pending-user-action-timeout',
    to: 'error',
    info: I.pendingUserActionTimeout,
  },
  {
    name: 'installing, nothing to do',
    from: 'installing-in-progress',
    trigger: 'RefreshHost',
    ctx: { ...cluster('installing'), ...inStage('Installing', 5) },
    rule: 'refresh-installing-unchanged',
    to: 'installing-in-progress',
    changed: false,
  },
  {
    name: 'a single node has not overrun 80 minutes',
    from: 'installing-in-progress',
    trigger: 'RefreshHost',
    ctx: { ...cluster('installing', { singleNode: true }), ...inStage('Rebooting', 41) },
    rule: 'refresh-installing-unchanged',
    to: 'installing-in-progress',
  },
  {
    name: 'pending user action, cluster already installed',
    from: 'installing-pending-user-action',
    trigger: 'RefreshHost',
    ctx: { ...cluster('installed', { wouldSucceedWithoutHost: true }), statusUpdatedAt: ago(61) },
    rule: 'refresh-installing-unchanged',
    to: 'installing-pending-user-action',
  },

  // RefreshHost: discovery
  {
    name: 'no inventory yet',
    from: 'discovering',
    trigger: 'RefreshHost',
    ctx: failing({ hasInventory: false }),
    rule: 'refresh-discovering',
    to: 'discovering',
    info: I.discovering,
  },
  {
    name: 'not enough hardware (messages sorted)',
    from: 'discovering',
    trigger: 'RefreshHost',
    ctx: failing({ minHardware: false, failureMessages: ['Insufficient memory', 'Insufficient CPU cores'] }),
    rule: 'refresh-insufficient-hardware',
    to: 'insufficient',
    info: 'Host does not meet the minimum hardware requirements: Insufficient CPU cores ; Insufficient memory',
  },
  {
    name: 'machine network missing',
    from: 'insufficient',
    trigger: 'RefreshHost',
    ctx: failing({ machineCidrDefined: false, failureMessages: ['Machine Network CIDR is undefined'] }),
    rule: 'refresh-pending-for-input',
    to: 'pending-for-input',
    info: 'Waiting for user input: Machine Network CIDR is undefined',
  },
  {
    name: 'a requirement fails',
    from: 'known',
    trigger: 'RefreshHost',
    ctx: failing({ sufficientForInstall: false, failureMessages: ['Hostname localhost is forbidden'] }),
    rule: 'refresh-not-ready',
    to: 'insufficient',
    info: 'Host cannot be installed due to following failing validation(s): Hostname localhost is forbidden',
  },
  {
    name: 'a requirement still without a result is named as waiting',
    from: 'known',
    trigger: 'RefreshHost',
    ctx: failing({ sufficientForInstall: false, failureMessages: [], undecidedMessages: ['Missing connectivity information'] }),
    rule: 'refresh-not-ready',
    to: 'insufficient',
    info: 'Host cannot be installed due to following failing validation(s): Missing connectivity information (waiting for a result)',
  },
  {
    name: 'vSphere disk UUID disabled',
    from: 'pending-for-input',
    trigger: 'RefreshHost',
    ctx: failing({ vsphereDiskUuidEnabled: false }),
    rule: 'refresh-not-ready',
    to: 'insufficient',
  },
  { name: 'everything passes', from: 'insufficient', trigger: 'RefreshHost', rule: 'refresh-ready', to: 'known', info: I.known },
  { name: 'a disconnected host reconnects ready', from: 'disconnected', trigger: 'RefreshHost', rule: 'refresh-ready', to: 'known' },
  { name: 'known stays known', from: 'known', trigger: 'RefreshHost', ctx: { statusInfo: I.known }, rule: 'refresh-still-ready', to: 'known', changed: false },
  {
    name: 'a bootstrap host may be silent 5 minutes',
    from: 'known',
    trigger: 'RefreshHost',
    ctx: { bootstrap: true, checkedInAt: ago(4), statusInfo: I.known },
    rule: 'refresh-still-ready',
    to: 'known',
  },
  {
    name: 'known without a valid role does not prepare',
    from: 'known',
    trigger: 'RefreshHost',
    ctx: { role: 'auto-assign', ...cluster('preparing-for-installation') },
    rule: 'refresh-still-ready',
    to: 'known',
  },

  // RefreshHost: final and transient states
  {
    name: 'nobody collected the logs',
    from: 'error',
    trigger: 'RefreshHost',
    ctx: { statusUpdatedAt: ago(3) },
    rule: 'refresh-logs-timeout',
    to: 'error',
    effects: ['logs-timed-out'],
  },
  {
    name: 'logs requested 11 minutes ago',
    from: 'cancelled',
    trigger: 'RefreshHost',
    ctx: { logs: { info: 'requested', startedAt: ago(11) } },
    rule: 'refresh-logs-timeout',
    to: 'cancelled',
  },
  {
    name: 'an error host stays',
    from: 'error',
    trigger: 'RefreshHost',
    ctx: { logs: { info: 'completed' } },
    rule: 'refresh-unchanged',
    to: 'error',
    changed: false,
  },
  { name: 'resetting stays', from: 'resetting', trigger: 'RefreshHost', rule: 'refresh-unchanged', to: 'resetting' },
  {
    name: 'an added day-2 host stays',
    from: 'added-to-existing-cluster',
    trigger: 'RefreshHost',
    ctx: { day2: true },
    rule: 'refresh-added-unchanged',
    to: 'added-to-existing-cluster',
  },
  {
    name: 'reclaiming within the hour',
    from: 'reclaiming-rebooting',
    trigger: 'RefreshHost',
    ctx: { statusUpdatedAt: ago(10) },
    rule: 'refresh-reclaiming',
    to: 'reclaiming-rebooting',
  },

  // RefreshHost: pool
  {
    name: 'a silent pool host',
    from: 'known-unbound',
    trigger: 'RefreshHost',
    ctx: { bound: false, checkedInAt: ago(4) },
    rule: 'refresh-unbound-disconnected',
    to: 'disconnected-unbound',
    info: I.disconnected,
  },
  {
    name: 'a pool host without inventory',
    from: 'discovering-unbound',
    trigger: 'RefreshHost',
    ctx: { bound: false, ...failing({ hasInventory: false }) },
    rule: 'refresh-unbound-discovering',
    to: 'discovering-unbound',
  },
  {
    name: 'a pool host short of hardware',
    from: 'known-unbound',
    trigger: 'RefreshHost',
    ctx: { bound: false, ...failing({ poolHardware: false, failureMessages: ['Insufficient memory'] }) },
    rule: 'refresh-unbound-insufficient',
    to: 'insufficient-unbound',
    info: 'Host does not meet the minimum hardware requirements: Insufficient memory',
  },
  { name: 'binding waits for the agent to exit', from: 'binding', trigger: 'RefreshHost', rule: 'refresh-binding-unbinding', to: 'binding', changed: false },
  {
    name: 'a pool host is ready to be bound (cluster checks do not apply)',
    from: 'discovering-unbound',
    trigger: 'RefreshHost',
    ctx: { bound: false, ...failing({ minHardware: false, sufficientForInstall: false, machineCidrDefined: false }) },
    rule: 'refresh-unbound-ready',
    to: 'known-unbound',
    info: I.readyToBeBound,
  },
];

const HOST_ID = '0f9a1c52-3333-4e7a-9d3c-5b8e2f6a7c01';
const INFRA_ENV_ID = '0f9a1c52-4444-4e7a-9d3c-5b8e2f6a7c01';
const CLUSTER_ID = '0f9a1c52-1111-4e7a-9d3c-5b8e2f6a7c01';

/** The subject an event needs: the host's ids, the cluster's only if the event carries it. */
function subjectFor(name: string): EventSubject {
  const carriesCluster = Object.hasOwn(eventDefinition(name).properties, 'cluster_id');
  return { orgId: 'org', hostId: HOST_ID, infraEnvId: INFRA_ENV_ID, ...(carriesCluster ? { clusterId: CLUSTER_ID } : {}) };
}

describe('host state machine: every rule', () => {
  const hits = new Set<string>();

  it.each(CASES)('$from --$trigger--> $to: $name', (c) => {
    expectRuleCase(transitionHost({ status: c.from }, c.trigger, context(c.ctx)), c, hits, subjectFor);
  });

  it('refusing rules answer with their code and leave the host alone', () => {
    const again = transitionHost({ status: 'installing-pending-user-action' }, 'RegisterHost', context(inStage('Rebooting')));
    expect(again).toMatchObject({
      notAllowed: true,
      httpStatus: 403,
      ruleId: 'register-wrong-boot-order-again',
      reason: 'Host is required to be booted from disk /dev/sda',
    });
    hits.add('register-wrong-boot-order-again');
    const installed = transitionHost({ status: 'installed' }, 'RegisterHost', context());
    expect(installed).toMatchObject({ notAllowed: true, httpStatus: 409, ruleId: 'register-after-installation' });
    expect((installed as NotAllowed).reason).toMatch(/^Host is trying to register after the cluster has already been installed/);
    hits.add('register-after-installation');
  });

  it('exercises every rule of the table', () => {
    expect(HOST_RULE_IDS.filter((id) => !hits.has(id))).toEqual([]);
  });
});

describe('host state machine: not allowed', () => {
  const refused: [HostStatus | '', HostTrigger, Partial<HostTransitionContext>][] = [
    ['insufficient', 'InstallHost', { day2: true }],
    ['known', 'InstallHost', {}], // a day-1 host installs with its cluster
    ['insufficient-unbound', 'BindHost', { bound: false }], // only known-unbound hosts may be bound
    ['known', 'HostProgressChanged', inStage('Installing')],
    ['insufficient', 'CancelInstallation', {}],
    ['binding', 'UnbindHost', {}],
    ['disabled', 'RefreshHost', {}],
    ['known', 'BindHost', {}], // already bound
    ['insufficient', 'ResettingPendingUserAction', {}], // nothing was installed: no reset needed
    ['installing-pending-user-action', 'RegisterHost', inStage('Configuring')],
  ];
  it.each(refused)('%s --%s--> not allowed', (from, trigger, ctx) => {
    const result = transitionHost({ status: from }, trigger, context(ctx));
    expect(isNotAllowed(result)).toBe(true);
    expect(result).toMatchObject({ httpStatus: 409, trigger, from });
    expect((result as NotAllowed).reason).toBe(`${trigger} is not allowed for a host in status ${from} (host worker-0)`);
  });
});

describe('host vocabulary', () => {
  it('has exactly the statuses of the openapi host schema', () => {
    expect([...HOST_STATUSES]).toEqual(openapiStatuses('host'));
  });

  it('writes durations as Go does', () => {
    expect([30, 60, 90, 1440, 0.5].map((m) => goDuration(m * 60_000))).toEqual(['30m0s', '1h0m0s', '1h30m0s', '24h0m0s', '30s']);
  });

  it('judges connectivity only before the reboot', () => {
    expect(isHostConnected({ now: NOW, checkedInAt: ago(3) })).toBe(true);
    expect(isHostConnected({ now: NOW, checkedInAt: ago(3.1) })).toBe(false);
    expect(isHostConnected({ now: NOW, checkedInAt: ago(4.9), bootstrap: true })).toBe(true);
    expect(isHostConnected({ now: NOW, checkedInAt: ago(60), progress: { currentStage: 'Configuring' } })).toBe(true);
    expect(isHostConnected({ now: NOW })).toBe(true);
  });
});

describe('summarizeHostValidations', () => {
  const ok = (id: string) => ({ id, status: 'success' as const, message: `${id} ok` });
  const ids = [
    'has-inventory',
    'inventory-not-fully-truncated',
    'has-min-valid-disks',
    'has-min-cpu-cores',
    'has-min-memory',
    'compatible-with-cluster-platform',
    'disk-encryption-requirements-satisfied',
    'hostname-valid',
    'vsphere-disk-uuid-enabled',
    'machine-cidr-defined',
    'sufficient-installation-disk-speed',
    'container-images-available',
  ];

  it('passes success and disabled, fails missing and failing ones, and lists failure messages', () => {
    const summary = summarizeHostValidations([
      ...ids.filter((id) => id !== 'has-min-memory').map(ok),
      { id: 'has-min-memory', status: 'failure', message: 'Insufficient memory' },
      { id: 'ntp-synced', status: 'disabled', message: 'Validation disabled by configuration' },
    ]);
    expect(summary).toMatchObject({ hasInventory: true, minHardware: false, poolHardware: false, sufficientForInstall: false, machineCidrDefined: true });
    expect(summary.failureMessages).toEqual(['Insufficient memory']);
  });

  it('lets the cluster ignore an ignorable validation, never a non-ignorable one', () => {
    const results = [
      ...ids.map(ok).filter((r) => r.id !== 'machine-cidr-defined' && r.id !== 'has-min-memory'),
      { id: 'has-min-memory', status: 'failure' as const, message: 'Insufficient memory' },
      { id: 'machine-cidr-defined', status: 'failure' as const, message: 'Machine Network CIDR is undefined' },
    ];
    const summary = summarizeHostValidations(results, '["all"]');
    expect(summary.minHardware).toBe(true);
    expect(summary.machineCidrDefined).toBe(false);
  });
});

describe('checkHostProgress', () => {
  const worker = { role: 'worker' as const };
  it('accepts a forward stage and computes the percentage', () => {
    expect(checkHostProgress('installing-in-progress', { ...worker, currentStage: 'Installing' }, { stage: 'Writing image to disk' })).toEqual({
      changed: true,
      stageChanged: true,
      installationPercentage: (3 / 9) * 100,
      recordedStage: 'Writing image to disk',
    });
  });
  it('treats a repeated stage as an info update only', () => {
    expect(
      checkHostProgress('installing-in-progress', { ...worker, currentStage: 'Installing', progressInfo: '10%' }, { stage: 'Installing', info: '20%' }),
    ).toMatchObject({ changed: true, stageChanged: false });
    expect(checkHostProgress('installed', { ...worker, currentStage: 'Done' }, { stage: 'Done' })).toMatchObject({ changed: false });
  });
  it('refuses reports outside installation, backwards, or foreign to the role', () => {
    expect(checkHostProgress('known', worker, { stage: 'Installing' })).toMatchObject({
      notAllowed: true,
      reason: "Can't set progress <Installing> to host in status <known>",
    });
    expect(checkHostProgress('installing-in-progress', { ...worker, currentStage: 'Rebooting' }, { stage: 'Installing' })).toMatchObject({
      notAllowed: true,
      reason: 'Can\'t assign lower stage "Installing" after host has been in stage "Rebooting"',
    });
    expect(checkHostProgress('installing-in-progress', { ...worker, currentStage: 'Installing' }, { stage: 'Waiting for bootkube' })).toMatchObject({
      notAllowed: true,
      reason: "Stages Waiting for bootkube isn't available for host role worker bootstrap false",
    });
  });
  it('accepts Failed at any stage and records a REST day-2 reboot as Done', () => {
    expect(checkHostProgress('installing-in-progress', { ...worker, currentStage: 'Joined' }, { stage: 'Failed' })).toMatchObject({ recordedStage: 'Failed' });
    expect(checkHostProgress('installing-in-progress', { ...worker, day2: true, currentStage: 'Writing image to disk' }, { stage: 'Rebooting' })).toMatchObject(
      { recordedStage: 'Done', installationPercentage: 100 },
    );
  });
});
