/**
 * Scenarios as data. A scenario is a list of steps run in order against both services at once; each
 * side keeps its own variables (the ids each service chose), substituted into paths and bodies where
 * they say `{{name}}`. Host ids are chosen by the scenario (hosts choose their ids), the same on
 * both sides: `{{host0}}`, `{{host1}}`…
 */
export interface RequestStep {
  kind?: 'request';
  /** The operationId: what the report and docs/compatibility.md rows name. */
  op: string;
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Below /api/assisted-install/v2; `{{var}}` substituted. */
  path: string;
  /** JSON body; every string in it has `{{var}}` substituted. */
  body?: unknown;
  /** A body sent as text (malformed JSON). */
  raw?: string;
  /** Sent as this infra-env's agent ({{infraEnv}}). */
  agentOf?: string;
  headers?: Record<string, string>;
  /**
   * What is compared besides the status code:
   * - `body` (default): the whole normalized answer when both accept, the error's code and kind when both refuse;
   * - `install-config`: the answer parsed as YAML;
   * - `event-names`: the set of event names of the answer (a list of events);
   * - `status`: the status code only (answers that carry nothing comparable, e.g. files);
   * - `host-progress`: a host's `progress` and `progress_stages` only (the installation's progress, stage by stage).
   */
  compare?: 'body' | 'install-config' | 'event-names' | 'status' | 'host-progress';
  /** Fields of the answer saved as variables, e.g. { cluster: 'id' }. */
  save?: Record<string, string>;
  /** A setup step: run on both sides, but its answer is not compared (the scenario compares later steps). */
  setup?: boolean;
}

export interface SettleStep {
  kind: 'settle';
  /** The cluster whose judgements are compared once both services stopped changing them. */
  cluster?: string;
  /** An infra-env whose hosts (unbound, day-2 pools) are compared instead. */
  infraEnv?: string;
}

/**
 * Waits, on each side on its own, until a GET answers with `field` holding one of `values` (or the
 * deadline passes); nothing is compared. For flows that move on each service's own schedule (an
 * installation's preparation, a cluster's first judgement) before the next request makes sense.
 */
export interface WaitStep {
  kind: 'wait';
  /** Below /api/assisted-install/v2; `{{var}}` substituted. */
  path: string;
  field: string;
  /** The values awaited; without them, any non-empty text (the field has been written at all). */
  values?: string[];
  timeoutMs?: number;
}

export type Step = RequestStep | SettleStep | WaitStep;

export interface Scenario {
  id: string;
  /** The report's area (clusters, networking, hosts, operators, …). */
  area: string;
  /** How many host ids to choose: {{host0}}…{{hostN-1}}. */
  hosts?: number;
  steps: Step[];
}

const TEMPLATE = /\{\{([A-Za-z0-9_]+)\}\}/g;

export class MissingVariable extends Error {
  constructor(readonly variable: string) {
    super(`variable ${variable} is not set`);
  }
}

/** `value` with `{{var}}` substituted in every string; throws MissingVariable when one is not set. */
export function substitute<T>(value: T, vars: Readonly<Record<string, string>>): T {
  if (typeof value === 'string') {
    return value.replace(TEMPLATE, (_, name: string) => {
      const found = vars[name];
      if (found === undefined) throw new MissingVariable(name);
      return found;
    }) as T;
  }
  if (Array.isArray(value)) return value.map((item) => substitute(item, vars)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substitute(item, vars)])) as T;
  }
  return value;
}

/** Reads `a.b.c` from a body. */
export function pick(body: unknown, field: string): unknown {
  let value: unknown = body;
  for (const part of field.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

// Small builders, so that the scenario files read as data.
export const get = (op: string, path: string, extra: Partial<RequestStep> = {}): RequestStep => ({ op, method: 'GET', path, ...extra });
export const post = (op: string, path: string, body?: unknown, extra: Partial<RequestStep> = {}): RequestStep => ({
  op,
  method: 'POST',
  path,
  ...(body === undefined ? {} : { body }),
  ...extra,
});
export const patch = (op: string, path: string, body?: unknown, extra: Partial<RequestStep> = {}): RequestStep => ({
  op,
  method: 'PATCH',
  path,
  ...(body === undefined ? {} : { body }),
  ...extra,
});
export const put = (op: string, path: string, body?: unknown, extra: Partial<RequestStep> = {}): RequestStep => ({
  op,
  method: 'PUT',
  path,
  ...(body === undefined ? {} : { body }),
  ...extra,
});
export const del = (op: string, path: string, extra: Partial<RequestStep> = {}): RequestStep => ({ op, method: 'DELETE', path, ...extra });
export const settle = (cluster = '{{cluster}}'): SettleStep => ({ kind: 'settle', cluster });
export const waitFor = (path: string, field: string, values: string[], timeoutMs?: number): WaitStep => ({
  kind: 'wait',
  path,
  field,
  values,
  ...(timeoutMs ? { timeoutMs } : {}),
});
/**
 * Waits until each side has judged the cluster once (its validations_info is written). Upstream
 * judges a new cluster only at its monitor's next pass, and compares each later judgement with the
 * one before it: a host registered before that first pass is in the first judgement, so the
 * validations it fails are never announced (cluster_validation_failed), whereas one registered
 * after is. A user boots hosts minutes after creating the cluster, long after that pass; the
 * corpus, quicker than the monitor under load, must wait for it too (ours judges at creation).
 */
export const clusterJudged = (cluster = '{{cluster}}'): WaitStep => ({ kind: 'wait', path: `/clusters/${cluster}`, field: 'validations_info' });
export const settleInfraEnv = (infraEnv = '{{infraEnv}}'): SettleStep => ({ kind: 'settle', infraEnv });
