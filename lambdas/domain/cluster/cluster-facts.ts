/**
 * The cluster state machine's vocabulary and inputs: statuses (the `cluster` status enum), upstream's
 * transition types, the validation summary the readiness rules need, the context a caller supplies
 * and the facts derived from it once per transition. Pure.
 */
import {
  finalizingStageTimeoutMs,
  hasEnoughMastersAndWorkers,
  operatorsComplete,
  type ClusterHostSummary,
  type FinalizingStage,
  type MonitoredOperatorSummary,
} from './cluster-hosts.js';
import type { ValidationResult } from '../host/host-facts.js';
import { validationPasses } from '../core/ignored-validations.js';
import { PENDING_INPUT_VALIDATIONS, REQUIRED_FOR_INSTALL_VALIDATIONS, VIPS_DEFINED_VALIDATIONS } from '../core/validation-ids.js';
import { hasTimedOut, isLogCollectionTimedOut, MINUTE_MS, type LogsProgress } from '../core/state-rules.js';

/** In the order of the `cluster` schema's status enum. */
export const CLUSTER_STATUSES = [
  'insufficient',
  'ready',
  'error',
  'preparing-for-installation',
  'pending-for-input',
  'installing',
  'finalizing',
  'installed',
  'adding-hosts',
  'cancelled',
  'installing-pending-user-action',
  'unmonitored',
] as const;
export type ClusterStatus = (typeof CLUSTER_STATUSES)[number];

export const CLUSTER_TRIGGERS = ['CancelInstallation', 'ResetCluster', 'PrepareForInstallation', 'RefreshStatus'] as const;
export type ClusterTrigger = (typeof CLUSTER_TRIGGERS)[number];

// ---------------------------------------------------------------- validations

export interface ClusterValidationSummary {
  /** PENDING_INPUT_VALIDATIONS all pass. */
  inputProvided: boolean;
  /** VIPS_DEFINED_VALIDATIONS all pass. */
  vipsDefined: boolean;
  /** REQUIRED_FOR_INSTALL_VALIDATIONS all pass. */
  requiredForInstall: boolean;
}

/** Which groups of a cluster's validations pass (validationPasses says what passing is). */
export function summarizeClusterValidations(results: readonly ValidationResult[], ignoredClusterValidationsJson?: string): ClusterValidationSummary {
  const passes = validationPasses('cluster', results, ignoredClusterValidationsJson);
  return {
    inputProvided: PENDING_INPUT_VALIDATIONS.every(passes),
    vipsDefined: VIPS_DEFINED_VALIDATIONS.every(passes),
    requiredForInstall: REQUIRED_FOR_INSTALL_VALIDATIONS.every(passes),
  };
}

// ---------------------------------------------------------------- timeouts

export interface ClusterTimeouts {
  /** PREPARE_FOR_INSTALLATION_TIMEOUT: the install action's async preparation died if it takes longer. */
  prepareForInstallationMs: number;
  /** INSTALLATION_TIMEOUT, from install_started_at. */
  installationMs: number;
  /** FINALIZING_TIMEOUT, from entering finalizing. */
  finalizingMs: number;
  /** LOG_COLLECTION_TIMEOUT and LOG_PENDING_TIMEOUT. */
  logCollectionMs: number;
  logPendingMs: number;
}

export const CLUSTER_TIMEOUTS: Readonly<ClusterTimeouts> = Object.freeze({
  prepareForInstallationMs: 10 * MINUTE_MS,
  installationMs: 24 * 60 * MINUTE_MS,
  finalizingMs: 5 * 60 * MINUTE_MS,
  logCollectionMs: 60 * MINUTE_MS,
  logPendingMs: 10 * MINUTE_MS,
});

// ---------------------------------------------------------------- context and facts

export type InstallationPreparationStatus = 'not_started' | 'failed' | 'success';

export interface ClusterTransitionContext {
  now: Date;
  statusInfo?: string;
  statusUpdatedAt?: string;
  installStartedAt?: string;
  controlPlaneCount: number;
  hosts: readonly ClusterHostSummary[];
  /** Needed by RefreshStatus from pending-for-input, insufficient and ready. */
  validations?: ClusterValidationSummary;
  vipDhcpAllocation?: boolean;
  /** last-installation-preparation.status: the async manifests/ignition generation. */
  lastInstallationPreparation?: InstallationPreparationStatus;
  finalizing?: { stage?: FinalizingStage; stageStartedAt?: string; stageTimedOut?: boolean };
  monitoredOperators?: readonly MonitoredOperatorSummary[];
  /** The kubeconfig object exists: written once the controller uploaded the ingress CA. */
  kubeconfigExists?: boolean;
  /** The cluster's org_soft_timeouts_enabled: ENABLE_SOFT_TIMEOUTS as it was when the cluster was created. */
  softTimeoutsEnabled?: boolean;
  logs?: LogsProgress;
  /** Why (CancelInstallation, ResetCluster): becomes status_info. */
  reason?: string;
  /** SaaS only: the AMS subscription still lacks the console URL and the console operator is up. */
  amsConsoleUrlPending?: boolean;
  timeouts?: Partial<ClusterTimeouts>;
}

export interface ClusterFacts {
  readonly ctx: ClusterTransitionContext;
  readonly from: ClusterStatus;
  readonly timeouts: ClusterTimeouts;
  readonly validations: ClusterValidationSummary;
  readonly dhcp: boolean;
  readonly softTimeouts: boolean;
  /** Enough hosts installed to finalize. */
  readonly finalizingReached: boolean;
  /** Enough hosts still installing or installed to succeed. */
  readonly installingViable: boolean;
  readonly hostPendingUserAction: boolean;
  readonly allHostsPrepared: boolean;
  /** A host left the preparing statuses (and known): it re-registered, disconnected, … */
  readonly unpreparedHostExists: boolean;
  readonly failedPreparingHostExists: boolean;
  readonly preparationSucceeded: boolean;
  readonly preparationFailed: boolean;
  readonly preparingTimedOut: boolean;
  readonly installationTimedOut: boolean;
  readonly finalizingTimedOut: boolean;
  readonly finalizingStage: FinalizingStage | undefined;
  readonly finalizingStageTimeoutMs: number;
  readonly finalizingStageTimedOut: boolean;
  /** Every host installed or in error: nothing more will report. */
  readonly allHostsDone: boolean;
  readonly installationComplete: boolean;
  readonly logsTimedOut: boolean;
}

const NO_VALIDATIONS: ClusterValidationSummary = Object.freeze({ inputProvided: false, vipsDefined: false, requiredForInstall: false });

/** Host statuses that still lead to an installed host. */
export const HOST_INSTALLING_OR_INSTALLED = ['installing', 'installing-in-progress', 'installed', 'installing-pending-user-action', 'preparing-successful'];
const PREPARING_OR_KNOWN = ['preparing-for-installation', 'preparing-successful', 'preparing-failed', 'known'];

export function clusterFacts(from: ClusterStatus, ctx: ClusterTransitionContext): ClusterFacts {
  const timeouts = { ...CLUSTER_TIMEOUTS, ...ctx.timeouts };
  const hosts = ctx.hosts;
  const softTimeouts = ctx.softTimeoutsEnabled ?? false;
  const operators = ctx.monitoredOperators ?? [];
  const stage = ctx.finalizing?.stage || undefined;
  const stageTimeout = stage ? finalizingStageTimeoutMs(stage, operators, softTimeouts) : 0;
  return {
    ctx,
    from,
    timeouts,
    validations: ctx.validations ?? NO_VALIDATIONS,
    dhcp: ctx.vipDhcpAllocation ?? false,
    softTimeouts,
    finalizingReached: hasEnoughMastersAndWorkers(hosts, ctx.controlPlaneCount, ['installed']),
    installingViable: hasEnoughMastersAndWorkers(hosts, ctx.controlPlaneCount, HOST_INSTALLING_OR_INSTALLED),
    hostPendingUserAction: hosts.some((host) => host.status === 'installing-pending-user-action'),
    allHostsPrepared: hosts.every((host) => host.status === 'preparing-successful'),
    unpreparedHostExists: hosts.some((host) => !PREPARING_OR_KNOWN.includes(host.status)),
    failedPreparingHostExists: hosts.some((host) => host.status === 'preparing-failed'),
    preparationSucceeded: ctx.lastInstallationPreparation === 'success',
    preparationFailed: ctx.lastInstallationPreparation === 'failed',
    preparingTimedOut: hasTimedOut(ctx.statusUpdatedAt, ctx.now, timeouts.prepareForInstallationMs),
    installationTimedOut: hasTimedOut(ctx.installStartedAt, ctx.now, timeouts.installationMs),
    finalizingTimedOut: hasTimedOut(ctx.statusUpdatedAt, ctx.now, timeouts.finalizingMs),
    finalizingStage: stage,
    finalizingStageTimeoutMs: stageTimeout,
    finalizingStageTimedOut: stage !== undefined && hasTimedOut(ctx.finalizing?.stageStartedAt, ctx.now, stageTimeout),
    allHostsDone: hosts.every((host) => host.status === 'installed' || host.status === 'error'),
    installationComplete: (ctx.kubeconfigExists ?? false) && operatorsComplete(operators),
    logsTimedOut: isLogCollectionTimedOut(ctx.logs, ctx.statusUpdatedAt, ctx.now, {
      collectionMs: timeouts.logCollectionMs,
      pendingMs: timeouts.logPendingMs,
      collectingMs: timeouts.logCollectionMs,
    }),
  };
}
