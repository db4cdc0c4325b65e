/**
 * A host's status_info texts, word for word as upstream writes them: the UI shows them and users,
 * scripts and support articles match on them. `$…` markers are filled by the renderers below.
 */
import type { HostFacts, InstallationDisk } from './host-facts.js';
import { hostStageTimeoutMs } from './host-facts.js';
import { goDuration } from '../core/state-rules.js';

export const HOST_STATUS_INFO = {
  mediaDisconnected:
    'Unable to read from the discovery media. It was either disconnected or poor network conditions prevented it from being read. Try using the minimal ISO option and be sure to keep the media connected until the installation is completed',
  disconnected: 'Host has stopped communicating with the installation service',
  discovering: 'Waiting for host to send hardware details',
  insufficientHardware: 'Host does not meet the minimum hardware requirements: $FAILING_VALIDATIONS',
  pendingForInput: 'Waiting for user input: $FAILING_VALIDATIONS',
  notReadyForInstall: 'Host cannot be installed due to following failing validation(s): $FAILING_VALIDATIONS',
  preparationTimeout: 'The host has encountered a preparation timeout, the following conditions failed: $FAILING_CONDITIONS',
  preparationTimeoutDiskSpeed: 'the installation disk speed check did not complete within the timeout.',
  preparationTimeoutImageAvailability: 'container availability was not determined within the timeout.',
  known: 'Host is ready to be installed',
  installing: 'Installation is in progress',
  resettingPendingUserAction: 'Host requires booting into the discovery image to complete resetting the installation',
  // Upstream writes the "finished" text on entering preparation too (its PostPreparingForInstallationHost),
  // which tells a user waiting on a slow disk check that it is done; its own unused constant says what is true.
  preparing: 'Host is preparing for installation',
  preparationSuccessful: 'Host finished successfully to prepare for installation',
  preparationFailure: 'Host failed to prepare for installation due to following failing validation(s): $FAILING_VALIDATIONS',
  abortingDueClusterErrors: 'Host is part of a cluster that failed to install',
  installationTimedOut: 'Host failed to install due to timeout while starting installation',
  connectionTimedOutInstalling: 'Host failed to install due to timeout while connecting to host during the installation phase.',
  connectionSoftTimedOutInstalling: 'Host is failing to perform periodic health check during the installation phase.',
  connectionSoftTimedOutReconnected: 'Host recovered from failure to perform periodic health check during the installation phase.',
  connectionTimedOutPreparing: 'Host failed to install due to timeout while connecting to host during the preparation phase.',
  stageTimedOut: 'Host failed to install because its installation stage $STAGE took longer than expected $MAX_TIME',
  stageSoftTimedOut: 'Host installation stage $STAGE is taking longer than expected $MAX_TIME',
  stageNotProgressing: 'Host failed to install because its installation stage $STAGE did not sufficiently progress in the last $MAX_TIME.',
  stageNotProgressingSoft:
    'Host installation stage $STAGE is not progressing sufficiently in the last $MAX_TIME. To troubleshoot use kubeconfig or connect to the node using ssh',
  readyToBeBound: 'Host is ready to be bound to a cluster',
  binding: 'Host is waiting to be bound to the cluster',
  rebootTimeout:
    'Host timed out when pulling the configuration files. Verify in the host console that the host boots from the OpenShift installation disk $INSTALLATION_DISK and has network access to the cluster API. The installation will resume after the host successfully boots and can access the cluster API',
  pendingUserActionTimeout: 'Host failed to boot from the installation disk within the expected time.',
  unbinding: 'Host is waiting to be unbound from the cluster',
  rebootingDay2: 'Host has rebooted and no further updates will be posted. Please check console for progress and to possibly approve pending CSRs',
  rebootingForReclaim: 'Host is rebooting into the discovery image',
  unexpectedRestart: 'The host unexpectedly restarted during the installation',
  wrongBootOrder: 'Expected the host to boot from disk, but it booted the installation image - please reboot and fix boot order to boot from disk',
  registeredAfterInstallation:
    'Host is trying to register after the cluster has already been installed. That most probably means that the host is booting from the installation ISO, and therefore not effectively joining the cluster. The request will be ignored. Fix the boot order and reboot the host.',
  installationCommandFailed: 'installation command failed',
  cancelledByUser: 'Installation was cancelled by user',
} as const;

/** status_info is a varchar(2048) upstream; it keeps the first 2040 characters. */
export const STATUS_INFO_MAX_LENGTH = 2040;

export function truncateStatusInfo(text: string): string {
  return text.length > STATUS_INFO_MAX_LENGTH ? text.slice(0, STATUS_INFO_MAX_LENGTH) : text;
}

const diskText = (disk: InstallationDisk | undefined): string => (disk ? `(${disk.name}, ${disk.identifier})` : '');

/** Fills $FAILING_VALIDATIONS (sorted messages, " ; "-joined), $STAGE, $MAX_TIME and $INSTALLATION_DISK. */
export function renderHostStatusInfo(template: string, facts: HostFacts): string {
  let text = template;
  if (text.includes('$STAGE')) text = text.replace('$STAGE', facts.stage ?? '');
  // The configured stage timeout, in Go's duration notation, even where a single node gets longer.
  if (text.includes('$MAX_TIME')) text = text.replace('$MAX_TIME', goDuration(hostStageTimeoutMs(facts.stage)));
  if (text.includes('$INSTALLATION_DISK')) text = text.replace('$INSTALLATION_DISK', diskText(facts.ctx.installationDisk));
  if (text.includes('$FAILING_VALIDATIONS')) {
    // Upstream lists failures only, and a host held back by checks still waiting for an answer
    // read "…following failing validation(s): " and nothing. Those are named instead, as waiting.
    const failures = facts.validations.failureMessages;
    const undecided = (facts.validations.undecidedMessages ?? []).map((message) => `${message} (waiting for a result)`);
    text = text.replace('$FAILING_VALIDATIONS', [...(failures.length > 0 ? failures : undecided)].sort().join(' ; '));
  }
  return truncateStatusInfo(text);
}

/** The wrong-boot-order message names the disk the host should have booted from. */
export function wrongBootOrderInfo(facts: HostFacts): string {
  const disk = facts.ctx.installationDisk;
  const parts: string[] = [HOST_STATUS_INFO.wrongBootOrder];
  if (disk?.model) parts.push(disk.model);
  if (disk?.serial) parts.push(disk.serial);
  if (disk) parts.push(diskText(disk));
  return truncateStatusInfo(parts.join(' '));
}

/** Which preparation checks did not report within the timeout, one per line. */
export function preparationTimeoutInfo(facts: HostFacts): string {
  const failing: string[] = [];
  if (!facts.diskSpeedCheckSucceeded) failing.push(HOST_STATUS_INFO.preparationTimeoutDiskSpeed);
  if (!facts.containerImagesAvailable) failing.push(HOST_STATUS_INFO.preparationTimeoutImageAvailability);
  return truncateStatusInfo(HOST_STATUS_INFO.preparationTimeout.replace('$FAILING_CONDITIONS', failing.join('\n')));
}
