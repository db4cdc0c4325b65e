/**
 * Validations a user chose to ignore for a cluster. Both lists travel in JSON text (the
 * `ignored-validations` model and the cluster's ignored_cluster_validations /
 * ignored_host_validations), each a list of validation ids or ["all"]. Pure.
 */
import { CLUSTER_VALIDATION_IDS, HOST_VALIDATION_IDS } from './validation-ids.js';

/**
 * Validations whose failure no one may wave through (upstream's lists): without them the
 * cluster cannot install at all, so ignoring them would only defer the failure.
 */
export const NON_IGNORABLE_HOST_VALIDATIONS: readonly string[] = [
  'connected',
  'has-inventory',
  'inventory-not-fully-truncated',
  'machine-cidr-defined',
  'hostname-unique',
  'hostname-valid',
];
export const NON_IGNORABLE_CLUSTER_VALIDATIONS: readonly string[] = [
  'api-vips-defined',
  'ingress-vips-defined',
  'all-hosts-are-ready-to-install',
  'sufficient-masters-count',
  'pull-secret-set',
];

export type ValidationKind = 'cluster' | 'host';

const KNOWN: Record<ValidationKind, ReadonlySet<string>> = { cluster: new Set(CLUSTER_VALIDATION_IDS), host: new Set(HOST_VALIDATION_IDS) };
const NON_IGNORABLE: Record<ValidationKind, readonly string[]> = { cluster: NON_IGNORABLE_CLUSTER_VALIDATIONS, host: NON_IGNORABLE_HOST_VALIDATIONS };
const MAX_ID_SHOWN = 80;
/** Every id, each once, fits many times over; the cap keeps the cluster record within the store's limit. */
const MAX_LIST_LENGTH = 16 * 1024;

const shown = (id: string) => JSON.stringify(id.length > MAX_ID_SHOWN ? `${id.slice(0, MAX_ID_SHOWN)}…` : id);

/**
 * Problems with one list as upstream judges it: "" means none ignored; otherwise a JSON list of
 * strings, each a known id or "all" (any case). Ignoring a non-ignorable id is refused unless
 * the list also holds "all" (exactly), which upstream lets through.
 */
export function ignoredListProblems(kind: ValidationKind, json: string): string[] {
  if (json === '') return [];
  if (json.length > MAX_LIST_LENGTH) return [`${kind}-validation-ids is longer than ${MAX_LIST_LENGTH} characters`];
  let ids: unknown;
  try {
    ids = JSON.parse(json);
  } catch {
    return [`${kind}-validation-ids is not valid JSON: send a JSON list such as ["has-min-cpu-cores"] or ["all"]`];
  }
  // JSON null decodes to an empty list upstream.
  if (ids === null) return [];
  if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string')) {
    return [`${kind}-validation-ids must be a JSON list of strings, such as ["has-min-cpu-cores"] or ["all"]`];
  }
  const problems: string[] = [];
  for (const id of ids as string[]) {
    if (id.toLowerCase() !== 'all' && !KNOWN[kind].has(id)) problems.push(`${shown(id)} is not a known ${kind} validation id`);
  }
  const refused = (ids as string[]).includes('all') ? [] : (ids as string[]).filter((id) => NON_IGNORABLE[kind].includes(id));
  if (refused.length > 0) problems.push(`these ${kind} validations cannot be ignored: ${refused.join(', ')}`);
  return problems;
}

export interface IgnoredValidations {
  'cluster-validation-ids'?: string;
  'host-validation-ids'?: string;
}

/** Checks a PUT body; both lists are replaced, an absent one by "" (nothing ignored), as upstream. */
export function ignoredValidationsProblem(body: IgnoredValidations): string | undefined {
  const problems = [...ignoredListProblems('cluster', body['cluster-validation-ids'] ?? ''), ...ignoredListProblems('host', body['host-validation-ids'] ?? '')];
  return problems.length > 0 ? `The ignored validations were not changed: ${problems.join('; ')}` : undefined;
}

/** The `ignored-validations` model from the cluster's attributes; empty lists are left out, as upstream. */
export function ignoredValidationsView(attributes: Record<string, unknown>): IgnoredValidations {
  const view: IgnoredValidations = {};
  const cluster = attributes.ignored_cluster_validations;
  const host = attributes.ignored_host_validations;
  if (typeof cluster === 'string' && cluster !== '') view['cluster-validation-ids'] = cluster;
  if (typeof host === 'string' && host !== '') view['host-validation-ids'] = host;
  return view;
}

/**
 * Whether a failing validation should count as passed, for the validation engines: never for a
 * non-ignorable one; otherwise when the stored list holds the id or "all". An unreadable list
 * ignores nothing.
 */
export function isValidationIgnored(kind: ValidationKind, storedJson: unknown, validationId: string): boolean {
  if (NON_IGNORABLE[kind].includes(validationId) || typeof storedJson !== 'string' || storedJson === '') return false;
  try {
    const ids = JSON.parse(storedJson) as unknown;
    return Array.isArray(ids) && (ids.includes('all') || ids.includes(validationId));
  } catch {
    return false;
  }
}

/**
 * Whether each validation passes, for a summary of a host's or a cluster's results: it succeeded,
 * was disabled, or failed but is ignored (never a non-ignorable one). One missing from the results
 * does not pass: an engine that skipped it must not make a host or a cluster ready.
 */
export function validationPasses(kind: ValidationKind, results: readonly { id: string; status: string }[], ignoredJson: unknown): (id: string) => boolean {
  const byId = new Map(results.map((result) => [result.id, result]));
  return (id) => {
    const result = byId.get(id);
    if (!result) return false;
    return result.status === 'success' || result.status === 'disabled' || isValidationIgnored(kind, ignoredJson, id);
  };
}
