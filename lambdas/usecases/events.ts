import { randomUUID } from 'node:crypto';
import { v5 as nameBasedUuid } from 'uuid';
import type { EventSeverity, ServiceEvent } from '../domain/core/entities.js';
import { roleAllows } from '../domain/auth/api-token.js';
import { badRequest, forbidden, notFound } from '../domain/core/errors.js';
import { buildEvent, eventView, type EventProps, type EventSubject, type EventView } from '../domain/events/events.js';
import type { Clock } from '../ports/clock.js';
import type { EventFilter, Store } from '../ports/store.js';
import type { Principal } from './principal.js';
import { compareText } from '../domain/core/compare.js';

export interface RecordEventRequest {
  /** A catalogue event name, e.g. `cluster_status_updated`. */
  name: string;
  subject: EventSubject;
  props?: EventProps;
  /** When it happened; defaults to now (upstream's Send…EventAtTime lets callers back-date too). */
  at?: Date;
  /**
   * The write the event tells of. Events with a cause get ids derived from it, so recording them
   * again (a retried task, a stream record delivered twice, two instances judging one change) leaves
   * one event: the store keeps one item per id.
   */
  cause?: EventCause;
}

/** One version of one stored record: the write an event announces. */
export interface EventCause {
  /** Names the record, e.g. `cluster/<id>` or `host/<infra-env>/<id>`. */
  record: string;
  version: number;
}

/** The cause of events announcing the write that produced this version of a cluster. */
export function clusterWrite(written: { clusterId: string; version: number }): EventCause {
  return { record: `cluster/${written.clusterId}`, version: written.version };
}

/** The cause of events announcing the write that produced this version of a host. */
export function hostWrite(written: { infraEnvId: string; hostId: string; version: number }): EventCause {
  return { record: `host/${written.infraEnvId}/${written.hostId}`, version: written.version };
}

/** The requests, each caused by `cause` unless it names a cause of its own. */
export function causedBy(cause: EventCause | undefined, requests: readonly RecordEventRequest[]): RecordEventRequest[] {
  return cause ? requests.map((request) => ({ cause, ...request })) : [...requests];
}

/** Namespace of the name-based (v5) ids of caused events. */
const CAUSED_EVENT_NAMESPACE = '6f0c8a9e-2b7d-4c1e-9a52-3d8e1f4b7c60';

/**
 * Ids for events recorded together: derived from the cause where there is one (the same event of the
 * same cause, counting repeats of one name and props within the batch, always gets the same id),
 * random otherwise.
 */
function eventIds(requests: readonly RecordEventRequest[]): string[] {
  const seen = new Map<string, number>();
  return requests.map((request) => {
    if (!request.cause) return randomUUID();
    const identity = `${request.subject.orgId}|${request.cause.record}@${request.cause.version}|${request.name}|${JSON.stringify(request.props ?? {})}`;
    const repeat = seen.get(identity) ?? 0;
    seen.set(identity, repeat + 1);
    return nameBasedUuid(`${identity}|${repeat}`, CAUSED_EVENT_NAMESPACE);
  });
}

/** A state machine's event intents, about one subject, as requests to record. */
export function eventRequests(subject: EventSubject, intents: readonly { name: string; props: EventProps }[]): RecordEventRequest[] {
  return intents.map((intent) => ({ name: intent.name, subject, props: intent.props }));
}

/** Builds a catalogue event and appends it; throws InvalidEventError for anything the catalogue forbids. */
export async function recordEvent(deps: { store: Store; clock: Clock }, request: RecordEventRequest): Promise<ServiceEvent> {
  const event = buildEvent(request.name, request.props ?? {}, request.subject, request.at ?? deps.clock.now(), eventIds([request])[0]!);
  await deps.store.events.append(event);
  return event;
}

/**
 * Several events that happened together, appended in one store request where the store allows.
 * They share one time, and events are listed by time then id: the ids, sorted, are handed out in
 * the order given, so the list shows them in that order.
 */
export async function recordEvents(deps: { store: Store; clock: Clock }, requests: readonly RecordEventRequest[]): Promise<ServiceEvent[]> {
  if (requests.length === 0) return [];
  const now = deps.clock.now();
  // Sorted, and handed out in the order given: events listed by time then id keep that order.
  const ids = eventIds(requests).sort();
  const events = requests.map((request, index) => buildEvent(request.name, request.props ?? {}, request.subject, request.at ?? now, ids[index]!));
  await deps.store.events.appendAll(events);
  return events;
}

/** The v2ListEvents query, already parsed into types; names follow the upstream parameters. */
export interface EventQuery {
  clusterId?: string;
  /** Deprecated upstream; merged into hostIds. */
  hostId?: string;
  hostIds?: string[];
  infraEnvId?: string;
  limit?: number;
  offset?: number;
  order?: 'ascending' | 'descending';
  severities?: string[];
  /** Case-insensitive substring of the message. */
  message?: string;
  deletedHosts?: boolean;
  clusterLevel?: boolean;
  categories?: string[];
}

export type SeverityCounts = Record<EventSeverity, number>;

export interface EventList {
  events: EventView[];
  /** Per severity, over every page; see listEvents for what they count. */
  severityCounts: SeverityCounts;
  /** Events matching every filter, over every page. */
  eventCount: number;
}

const SEVERITIES: readonly EventSeverity[] = ['info', 'warning', 'error', 'critical'];
/** Upstream's page size when `limit` is not given. */
const DEFAULT_LIMIT = 5_000;
/** Upstream lists only `user` events unless categories are asked for (the other one is `metrics`). */
const DEFAULT_CATEGORIES = ['user'];
/**
 * The store lists one cluster's, host's or infra-env's events in time order with a cursor, but has
 * no server-side filters or counts. We read every page up to this many events and filter, count
 * and page in memory; beyond it the oldest (or, for `descending`, the newest) events are the ones
 * kept, and the counts cover only what was read.
 */
export const MAX_EVENTS_READ = 10_000;
const STORE_PAGE_SIZE = 1_000;
/** Host look-ups for `deleted_hosts` in flight at once. */
const HOST_LOOKUP_CONCURRENCY = 16;

/**
 * GET /v2/events, with upstream's semantics (internal/events/event.go):
 * - scope: `cluster_id` wins; otherwise `host_ids` (with the deprecated `host_id` merged in), the
 *   union of those hosts' events; otherwise `infra_env_id`. With none of them upstream lists every
 *   event to service admins only and an empty list to everyone else; an organisation's admin here
 *   is not a service admin, so the answer is empty, except for the organisation's audit events
 *   (`categories=audit`, our extension), which its admins read so.
 * - with `cluster_id`, `message` filters by substring and `host_ids` / `cluster_level` /
 *   `deleted_hosts` select events of those hosts OR cluster-level events OR events of deleted
 *   hosts. Upstream applies `message` only in this scope, and so do we.
 * - severity counts are computed in the `cluster_id` scope only (zero otherwise), after every filter
 *   but `severities`; `eventCount` is after every filter; both are before paging.
 * - `limit`: absent → 5000, negative → no limit, 0 → no events (counts still given); a negative or
 *   absent `offset` is 0.
 * Another organisation's cluster or infra-env, like an unknown one, is a 404 (upstream answers an
 * empty 200 there; our rule is that a resource outside the caller's organisation is not found).
 * A deleted cluster or infra-env of the caller's own keeps its events, which are still listed.
 */
export async function listEvents(deps: { store: Store }, principal: Principal, query: EventQuery): Promise<EventList> {
  const { limit, offset, descending, severities } = validate(query);
  const orgId = principal.orgId;
  const categories = query.categories?.length ? query.categories : DEFAULT_CATEGORIES;
  const hostIds = [...new Set([...(query.hostIds ?? []), ...(query.hostId ? [query.hostId] : [])])];
  const inCategory = (event: ServiceEvent) => categories.includes(event.category);

  let scoped: ServiceEvent[];
  let severityCounts = zeroCounts();
  if (query.clusterId) {
    const all = await readEvents(deps.store, { orgId, clusterId: query.clusterId }, descending);
    if (all.length === 0 && !(await deps.store.clusters.get({ orgId, clusterId: query.clusterId }))) throw notFound(`Cluster ${query.clusterId} not found`);
    const events = all.filter(inCategory);
    scoped = await filterClusterEvents(deps.store, orgId, events, { ...query, hostIds });
    severityCounts = countBySeverity(scoped);
  } else if (hostIds.length > 0) {
    scoped = (await readEventsOfHosts(deps.store, orgId, hostIds, descending)).filter(inCategory);
  } else if (query.infraEnvId) {
    const all = await readEvents(deps.store, { orgId, infraEnvId: query.infraEnvId }, descending);
    if (all.length === 0 && !(await deps.store.infraEnvs.get({ orgId, infraEnvId: query.infraEnvId })))
      throw notFound(`Infra-env ${query.infraEnvId} not found`);
    scoped = all.filter(inCategory);
  } else if (categories.includes('audit')) {
    if (principal.kind !== 'user' || !roleAllows(principal.role, 'manage-tokens')) throw forbidden("Only the organisation's admins may read its audit events");
    scoped = (await readEvents(deps.store, { orgId, audit: true }, descending)).filter(inCategory);
  } else {
    scoped = [];
  }

  const matching = severities ? scoped.filter((event) => severities.includes(event.severity)) : scoped;
  matching.sort((a, b) => compareEvents(a, b) * (descending ? -1 : 1));
  const page = limit === undefined ? matching.slice(offset) : matching.slice(offset, offset + limit);
  return { events: page.map(eventView), severityCounts, eventCount: matching.length };
}

/** Upstream's lenient paging (negative values mean "no limit" / "from the start"); anything not an integer is a 400. */
function validate(query: EventQuery) {
  for (const [name, value] of [
    ['limit', query.limit],
    ['offset', query.offset],
  ] as const) {
    if (value !== undefined && !Number.isSafeInteger(value)) throw badRequest(`${name} must be an integer, got ${value}`);
  }
  if (query.order !== undefined && query.order !== 'ascending' && query.order !== 'descending') {
    throw badRequest(`order must be ascending or descending, got ${String(query.order)}`);
  }
  const severities = (query.severities ?? []).map((requested) => ({ requested, known: SEVERITIES.find((severity) => severity === requested) }));
  const unknown = severities.find(({ known }) => known === undefined)?.requested;
  if (unknown !== undefined) throw badRequest(`severities must be among ${SEVERITIES.join(', ')}, got ${unknown}`);
  const requested = query.limit ?? DEFAULT_LIMIT;
  return {
    limit: requested < 0 ? undefined : requested,
    offset: Math.max(query.offset ?? 0, 0),
    descending: query.order === 'descending',
    severities: severities.length ? severities.flatMap(({ known }) => (known === undefined ? [] : [known])) : undefined,
  };
}

async function filterClusterEvents(store: Store, orgId: string, events: ServiceEvent[], query: EventQuery & { hostIds: string[] }): Promise<ServiceEvent[]> {
  const needle = query.message?.toLowerCase();
  let selected = needle === undefined ? events : events.filter((event) => event.message.toLowerCase().includes(needle));
  if (query.hostIds.length === 0 && !query.clusterLevel && !query.deletedHosts) return selected;

  const wanted = new Set(query.hostIds);
  const deleted = query.deletedHosts ? await deletedHostsOf(store, orgId, selected) : new Set<string>();
  selected = selected.filter((event) => (event.hostId === undefined ? !!query.clusterLevel : wanted.has(event.hostId) || deleted.has(event.hostId)));
  return selected;
}

/**
 * Upstream keeps deleted hosts as soft-deleted rows; our hosts are removed, so a host that has
 * events but no record any more (looked up in the infra-env its events name) counts as deleted.
 */
async function deletedHostsOf(store: Store, orgId: string, events: ServiceEvent[]): Promise<Set<string>> {
  const infraEnvOfHost = new Map<string, string>();
  for (const event of events) {
    if (event.hostId && event.infraEnvId && !infraEnvOfHost.has(event.hostId)) infraEnvOfHost.set(event.hostId, event.infraEnvId);
  }
  const deleted = new Set<string>();
  const hosts = [...infraEnvOfHost];
  for (let start = 0; start < hosts.length; start += HOST_LOOKUP_CONCURRENCY) {
    await Promise.all(
      hosts.slice(start, start + HOST_LOOKUP_CONCURRENCY).map(async ([hostId, infraEnvId]) => {
        if (!(await store.hosts.get({ orgId, infraEnvId, hostId }))) deleted.add(hostId);
      }),
    );
  }
  return deleted;
}

/** Every page of one listing, up to `budget` events, read from the end the caller will show first. */
async function readEvents(store: Store, filter: EventFilter, newestFirst: boolean, budget = MAX_EVENTS_READ): Promise<ServiceEvent[]> {
  const events: ServiceEvent[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.events.list(filter, { limit: Math.min(STORE_PAGE_SIZE, budget - events.length), cursor, newestFirst });
    events.push(...page.items);
    cursor = page.next;
  } while (cursor && events.length < budget);
  return events.slice(0, budget);
}

/** The union of several hosts' events; the read budget is shared so many hosts cannot multiply it. */
async function readEventsOfHosts(store: Store, orgId: string, hostIds: string[], newestFirst: boolean): Promise<ServiceEvent[]> {
  const events: ServiceEvent[] = [];
  for (const hostId of hostIds) {
    const budget = MAX_EVENTS_READ - events.length;
    if (budget <= 0) break;
    events.push(...(await readEvents(store, { orgId, hostId }, newestFirst, budget)));
  }
  return events;
}

/** Time order (ISO 8601 UTC strings sort as times); the event id breaks ties so equal times list the same way every time. */
function compareEvents(a: ServiceEvent, b: ServiceEvent): number {
  return compareText(a.eventTime, b.eventTime) || compareText(a.eventId, b.eventId);
}

function zeroCounts(): SeverityCounts {
  return { info: 0, warning: 0, error: 0, critical: 0 };
}

function countBySeverity(events: ServiceEvent[]): SeverityCounts {
  const counts = zeroCounts();
  for (const event of events) counts[event.severity] += 1;
  return counts;
}
