/**
 * The engine under the host and cluster state machines, in the manner of upstream's stateswitch
 * library: an ordered list of rules, each naming a trigger, the states it applies from, an optional
 * condition and a destination. The first rule whose trigger, source state and condition all match
 * wins; when none does, the trigger is not allowed in that state (upstream answers 409). Keeping the
 * rules as data lets the tests walk the table rule by rule. Pure: time comes in as an argument.
 */

/**
 * Destination of a rule that keeps the source status. Upstream writes such rules once per source
 * state (a loop of "stay in X" rules); one rule with several sources reads better and behaves the same.
 */
export const STAY = 'stay' as const;

export interface StateRule<State extends string, Trigger extends string, Facts> {
  /** Stable and unique within its table; tests assert every id is exercised. */
  readonly id: string;
  readonly trigger: Trigger;
  readonly from: readonly State[];
  /** Absent means the rule always applies to its trigger and source states. */
  readonly when?: (facts: Facts) => boolean;
  readonly to: State | typeof STAY;
}

/** The explicit "no" of a state machine: the caller turns it into a 409 (or `httpStatus`). */
export interface NotAllowed {
  readonly notAllowed: true;
  readonly trigger: string;
  readonly from: string;
  readonly reason: string;
  /** The rule that refused, when one matched but refuses (e.g. an installed host registering again). */
  readonly ruleId?: string;
  /** Upstream answers 409 for a refused transition; a few rules refuse with another code. */
  readonly httpStatus: 403 | 409;
}

/** A catalogue event (events/catalogue.json) the caller should emit, with its template props. */
export interface EventIntent {
  readonly name: string;
  readonly props: Readonly<Record<string, string | number | boolean>>;
}

/** What a state machine decided for one subject (a cluster or a host) and one trigger. */
export interface Transition<From extends string, Status extends string, Effect> {
  readonly notAllowed?: false;
  readonly ruleId: string;
  readonly from: From;
  readonly status: Status;
  readonly statusInfo: string;
  /** Anything to write: status, status_info or an effect. */
  readonly changed: boolean;
  /** The rule's first own catalogue event, if any. */
  readonly event?: EventIntent;
  /** Every event to emit, in order: the subject's status_updated event when the status changed, then the rule's. */
  readonly events: readonly EventIntent[];
  readonly effects: readonly Effect[];
}

export function isNotAllowed(result: object): result is NotAllowed {
  return 'notAllowed' in result && result.notAllowed === true;
}

export function notAllowed(trigger: string, from: string, reason: string, httpStatus: 403 | 409 = 409, ruleId?: string): NotAllowed {
  return { notAllowed: true, trigger, from, reason, httpStatus, ...(ruleId ? { ruleId } : {}) };
}

/** The first matching rule, as stateswitch picks it; undefined when the trigger is not allowed. */
export function findRule<R extends StateRule<string, string, F>, F>(rules: readonly R[], trigger: string, from: string, facts: F): R | undefined {
  return rules.find((rule) => rule.trigger === trigger && rule.from.includes(from) && (rule.when === undefined || rule.when(facts)));
}

/** Throws on a duplicated rule id: ids are how tests and logs name a rule, so they must be unique. */
export function assertUniqueRuleIds(rules: readonly { id: string }[]): readonly string[] {
  const ids = rules.map((rule) => rule.id);
  const duplicate = ids.find((id, index) => ids.indexOf(id) !== index);
  if (duplicate !== undefined) throw new Error(`State rule id ${duplicate} is used twice`);
  return Object.freeze(ids);
}

// ---------------------------------------------------------------- time

export const MINUTE_MS = 60_000;

/** Milliseconds from `since` to `now`; an absent or unreadable time counts as "just now" (0). */
export function elapsedMs(since: string | undefined, now: Date): number {
  if (!since) return 0;
  const at = Date.parse(since);
  return Number.isNaN(at) ? 0 : now.getTime() - at;
}

/**
 * Whether more than `limitMs` passed since `since` (strictly more, as upstream's time.Since(...) > timeout).
 * Upstream measures from Go's zero time when a timestamp was never set, which times out at once; here
 * an absent timestamp never times out, so a record missing a field is not failed for it.
 */
export function hasTimedOut(since: string | undefined, now: Date, limitMs: number): boolean {
  return since !== undefined && since !== '' && elapsedMs(since, now) > limitMs;
}

/**
 * A duration the way Go's time.Duration.String() writes it ("30m0s", "1h0m0s", "24h0m0s"): upstream puts
 * that text into host status_info, and users and scripts match on it.
 */
export function goDuration(ms: number): string {
  const totalSeconds = Math.round(ms / 1000);
  if (totalSeconds === 0) return '0s';
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${minutes}m${seconds}s`;
  return `${seconds}s`;
}

// ---------------------------------------------------------------- log collection

/** `logs_info` as the API shows it (the `logs_state` enum). */
export type LogsState = '' | 'requested' | 'collecting' | 'completed' | 'timeout';

export interface LogsProgress {
  info?: LogsState;
  startedAt?: string;
  collectedAt?: string;
}

export interface LogTimeouts {
  /** Waiting for logs that were asked for (or were last seen arriving). */
  collectionMs: number;
  /** Waiting for logs nobody asked for yet, counted from entering the state. */
  pendingMs: number;
  /** Waiting for an upload that started to finish: hosts use the pending timeout, clusters the collection one. */
  collectingMs: number;
}

/**
 * Whether log collection for an errored or cancelled host/cluster should be given up (`logs_info`
 * becomes `timeout`), following upstream's four cases so a stuck log sender never blocks the UI.
 */
export function isLogCollectionTimedOut(logs: LogsProgress | undefined, statusUpdatedAt: string | undefined, now: Date, limits: LogTimeouts): boolean {
  const info = logs?.info ?? '';
  const started = logs?.startedAt || undefined;
  const collected = logs?.collectedAt || undefined;
  if (info === '' && !started) return hasTimedOut(statusUpdatedAt, now, limits.pendingMs);
  if (info === 'requested' && !collected) return hasTimedOut(started, now, limits.collectionMs);
  if (info === 'requested') return hasTimedOut(collected, now, limits.collectionMs);
  if (info === 'collecting') return hasTimedOut(collected, now, limits.collectingMs);
  return false;
}
