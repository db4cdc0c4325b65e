/**
 * All cluster validations (the `cluster-validation-id` enum), the cluster's `validations_info`
 * document, and the cluster_validation_failed / cluster_validation_fixed events between two
 * evaluations. The checks live in cluster-validations-{vips,networks,hosts,operators}.ts;
 * summarizeClusterValidations (cluster-facts.ts) turns the results into what the cluster state
 * machine needs. Pure: the caller supplies the cluster, its hosts and the clock.
 */
import { CLUSTER_VALIDATION_CATEGORIES, isClusterValidationId, type ClusterValidationCategory, type ClusterValidationId } from '../../core/validation-ids.js';
import { isJsonObject } from '../../../../contracts/json-shapes.js';
import {
  validationContext,
  type ClusterValidationInput,
  type ClusterValidationResult,
  type ValidationContext,
  type Verdict,
} from './cluster-validation-context.js';
import { allHostsAreReadyToInstall, platformRequirementsSatisfied, pullSecretSet, sufficientMastersCount } from './cluster-validations-hosts.js';
import {
  clusterCidrDefined,
  customManifestsRequirementsSatisfied,
  dnsDomainDefined,
  networkPrefixValid,
  networksSameAddressFamilies,
  networkTypeValid,
  noCidrsOverlapping,
  ntpServerConfigured,
  serviceCidrDefined,
} from './cluster-validations-networks.js';
import { operatorVerdicts } from './cluster-validations-operators.js';
import {
  apiVipsDefined,
  apiVipsValid,
  ingressVipsDefined,
  ingressVipsValid,
  machineCidrDefined,
  machineCidrEqualsToCalculatedCidr,
} from './cluster-validations-vips.js';
import type { ValidationStatus } from '../../host/host-facts.js';
import { isValidationIgnored } from '../../core/ignored-validations.js';

export { CLUSTER_VALIDATION_CATEGORIES, CLUSTER_VALIDATION_IDS, type ClusterValidationCategory, type ClusterValidationId } from '../../core/validation-ids.js';
export type {
  ClusterValidationInput,
  ClusterValidationResult,
  ClusterValidationSubject,
  NetworkInput,
  ValidationHostInput,
  VipInput,
} from './cluster-validation-context.js';
export { calculateMachineNetworkCidr, normalizeCidr } from '../../network/machine-network.js';

/** validations_info's keys in the order Go's JSON encoder writes a map: sorted. */
const CATEGORY_ORDER: readonly ClusterValidationCategory[] = ['configuration', 'hosts-data', 'network', 'operators'];
export const VALIDATION_DISABLED_BY_CONFIGURATION = 'Validation disabled by configuration';

type Check = (ctx: ValidationContext) => Verdict;

/** The non-operator checks, each by its id. */
const CHECKS: readonly [ClusterValidationId, Check][] = [
  ['machine-cidr-defined', machineCidrDefined],
  ['machine-cidr-equals-to-calculated-cidr', machineCidrEqualsToCalculatedCidr],
  ['api-vips-defined', apiVipsDefined],
  ['api-vips-valid', apiVipsValid],
  ['network-type-valid', networkTypeValid],
  ['custom-manifests-requirements-satisfied', customManifestsRequirementsSatisfied],
  ['ingress-vips-defined', ingressVipsDefined],
  ['ingress-vips-valid', ingressVipsValid],
  ['all-hosts-are-ready-to-install', allHostsAreReadyToInstall],
  ['sufficient-masters-count', sufficientMastersCount],
  ['dns-domain-defined', dnsDomainDefined],
  ['pull-secret-set', pullSecretSet],
  ['cluster-cidr-defined', clusterCidrDefined],
  ['service-cidr-defined', serviceCidrDefined],
  ['no-cidrs-overlapping', (ctx) => noCidrsOverlapping(ctx, machineCidrDefined(ctx).status === 'success')],
  ['network-prefix-valid', networkPrefixValid],
  ['ntp-server-configured', ntpServerConfigured],
  ['networks-same-address-families', (ctx) => networksSameAddressFamilies(ctx, machineCidrDefined(ctx).status === 'success')],
  ['platform-requirements-satisfied', platformRequirementsSatisfied],
];

const byCategoryThenId = (a: ClusterValidationResult, b: ClusterValidationResult) =>
  CATEGORY_ORDER.indexOf(a.category) - CATEGORY_ORDER.indexOf(b.category) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * The statuses in which upstream evaluates a cluster's validations and records them. Outside them
 * (installing, installed, adding hosts, …) validations_info keeps what was last recorded: the
 * verdict the installation started with, not "hosts not ready" while they install.
 */
export const CLUSTER_VALIDATION_STATUSES: readonly string[] = ['insufficient', 'ready', 'pending-for-input', 'preparing-for-installation'];

/** Whether a cluster in this status has its validations evaluated and recorded. */
export const validatesInStatus = (status: string): boolean => CLUSTER_VALIDATION_STATUSES.includes(status);

/**
 * Evaluates every cluster validation, one result per enum id, ordered as validations_info lists
 * them. Ids the service configuration disables are reported as disabled (which the state machine
 * counts as passing) unless the cluster has its own ignored-validations list, as upstream.
 * Upstream evaluates only while the cluster is insufficient, ready, pending-for-input or
 * preparing-for-installation; choosing when to call is the caller's part.
 */
export function validateCluster(input: ClusterValidationInput): ClusterValidationResult[] {
  const ctx = validationContext(input);
  const perClusterOverride = !!input.cluster.ignored_cluster_validations;
  const disabled = new Set(perClusterOverride ? [] : (input.disabledValidations ?? []));
  const verdicts: [ClusterValidationId, Verdict][] = [
    ...CHECKS.map(([id, check]): [ClusterValidationId, Verdict] => [
      id,
      disabled.has(id) ? { status: 'disabled', message: VALIDATION_DISABLED_BY_CONFIGURATION } : check(ctx),
    ]),
    ...operatorVerdicts(ctx).map(([id, verdict]): [ClusterValidationId, Verdict] => [
      id,
      disabled.has(id) ? { status: 'disabled', message: VALIDATION_DISABLED_BY_CONFIGURATION } : verdict,
    ]),
  ];
  return verdicts
    .map(([id, verdict]) => ({ id, category: CLUSTER_VALIDATION_CATEGORIES[id], status: verdict.status, message: verdict.message }))
    .sort(byCategoryThenId);
}

// ---------------------------------------------------------------- validations_info

export interface ValidationInfoEntry {
  id: string;
  status: ValidationStatus;
  message: string;
}
export type ClusterValidationsInfo = Partial<Record<ClusterValidationCategory, ValidationInfoEntry[]>>;

/** Marks a non-passing result the cluster ignores, so a ready cluster with a red entry explains itself. */
export const IGNORED_SUFFIX = ' (ignored)';

/**
 * The cluster's `validations_info` JSON text: {category: [{id, status, message}]}, categories and
 * ids sorted as upstream writes them. Statuses are the evaluated ones even for ignored
 * validations (the state machine learns of the ignoring separately); an ignored failing,
 * pending or erroring validation gets IGNORED_SUFFIX on its message.
 */
export function clusterValidationsInfo(results: readonly ClusterValidationResult[], ignoredClusterValidationsJson?: string): string {
  const info: ClusterValidationsInfo = {};
  for (const result of [...results].sort(byCategoryThenId)) {
    const passing = result.status === 'success' || result.status === 'disabled';
    const ignored = !passing && isValidationIgnored('cluster', ignoredClusterValidationsJson, result.id);
    (info[result.category] ??= []).push({ id: result.id, status: result.status, message: ignored ? `${result.message}${IGNORED_SUFFIX}` : result.message });
  }
  return JSON.stringify(info);
}

const VALIDATION_STATUSES: ReadonlySet<string> = new Set<ValidationStatus>(['success', 'failure', 'pending', 'error', 'disabled']);
const isValidationStatus = (status: string): status is ValidationStatus => VALIDATION_STATUSES.has(status);

/** Reads a stored validations_info back into results; empty for none or unreadable text. */
export function parseClusterValidationsInfo(text: string | undefined): ClusterValidationResult[] {
  if (!text) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  if (!isJsonObject(parsed)) return [];
  const results: ClusterValidationResult[] = [];
  for (const entries of Object.values(parsed)) {
    if (!Array.isArray(entries)) continue;
    for (const entry of entries) {
      if (!isJsonObject(entry)) continue;
      const { id, status, message } = entry;
      if (typeof id !== 'string' || !isClusterValidationId(id) || typeof status !== 'string' || !isValidationStatus(status)) continue;
      results.push({
        id,
        category: CLUSTER_VALIDATION_CATEGORIES[id],
        status,
        message: typeof message === 'string' ? message : '',
      });
    }
  }
  return results;
}

// ---------------------------------------------------------------- events

/** An event to emit, ready for buildEvent (the cluster id comes from the event's subject). */
export type ClusterValidationEvent =
  | { name: 'cluster_validation_failed'; props: { validation_id: string; validation_msg: string; failure_message: string } }
  | { name: 'cluster_validation_fixed'; props: { validation_id: string; validation_msg: string } };

type Evaluation = string | undefined | readonly ClusterValidationResult[];
const resultsOf = (evaluation: Evaluation) =>
  typeof evaluation === 'string' || evaluation === undefined ? parseClusterValidationsInfo(evaluation) : evaluation;

/**
 * The events upstream emits when a re-evaluation changes a validation: failed when it turns to
 * failure ("that used to succeed is now failing" if it succeeded before, else "failed"), fixed
 * when a failure turns to success. Only validations present in both evaluations count, so the
 * first evaluation of a cluster emits nothing. Either side may be results or validations_info text.
 */
export function validationChanges(before: Evaluation, after: Evaluation): ClusterValidationEvent[] {
  const previous = new Map(resultsOf(before).map((result) => [result.id, result.status]));
  const events: ClusterValidationEvent[] = [];
  for (const result of [...resultsOf(after)].sort(byCategoryThenId)) {
    const was = previous.get(result.id);
    if (was === undefined) continue;
    if (result.status === 'failure' && was !== 'failure') {
      const failureMessage = was === 'success' ? 'that used to succeed is now failing' : 'failed';
      events.push({ name: 'cluster_validation_failed', props: { validation_id: result.id, validation_msg: result.message, failure_message: failureMessage } });
    } else if (result.status === 'success' && was === 'failure') {
      events.push({ name: 'cluster_validation_fixed', props: { validation_id: result.id, validation_msg: result.message } });
    }
  }
  return events;
}
