/**
 * An event sent by a caller (POST /v2/events) rather than built from the catalogue: upstream's
 * V2TriggerEvent, which the assisted-installer's controller calls. Upstream's rules, checked
 * against its service:
 * - the time is the service's, not the body's `event_time` (required, and ignored);
 * - `category` absent or `user` is a user event, `metrics` a metrics event (listed only when asked
 *   for); any other is refused. `audit` is ours alone: only the service writes it;
 * - `name` is kept as sent, and omitted from the listing when absent;
 * - `props`, a JSON text, is kept as an object: an object as it is; a one-element array holding an
 *   object, that object; an array of an even length, its key/value pairs. Anything else, or text
 *   that is not JSON, is dropped without failing the request. The listing writes keys sorted.
 * Beyond upstream: a message longer than upstream's column (4,096 characters; upstream answers 201
 * and drops the event) and an oversized name or props are refused, and property names that look
 * like secrets are dropped, as every event's are.
 */
import type { EventSeverity, ServiceEvent } from '../core/entities.js';
import { badRequest } from '../core/errors.js';
import { displayTextProblem } from '../../../contracts/input-checks.js';
import type { Schemas } from '../../../contracts/wire.js';
import { looksLikeSecret } from './events.js';
import { isJsonObject } from '../../../contracts/json-shapes.js';

export type TriggerEventParams = Schemas['event'];

/** Upstream's message column (varchar(4096)). */
export const MAX_TRIGGERED_MESSAGE_LENGTH = 4_096;
const MAX_TRIGGERED_NAME_LENGTH = 1_024;
/** The props' JSON text as stored: events are kept for months and listed by the thousand. */
const MAX_TRIGGERED_PROPS_LENGTH = 32_768;

/** The categories a caller may send: upstream's. */
const TRIGGERED_CATEGORIES = ['user', 'metrics'] as const;
type TriggeredCategory = (typeof TRIGGERED_CATEGORIES)[number];

function categoryOf(category: string | undefined): TriggeredCategory {
  if (category === undefined || category === '') return 'user';
  const known = TRIGGERED_CATEGORIES.find((candidate) => candidate === category);
  if (!known) throw badRequest(`category in body should be one of [${TRIGGERED_CATEGORIES.join(' ')}]`);
  return known;
}

/** The properties `props` carries, by upstream's reading of it; undefined when it carries none. */
export function triggeredEventProps(props: string | undefined): Record<string, unknown> | undefined {
  if (props === undefined || props === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(props);
  } catch {
    return undefined;
  }
  const items = Array.isArray(parsed) ? parsed : [parsed];
  let pairs: [string, unknown][] = [];
  if (items.length === 1 && isJsonObject(items[0])) {
    pairs = Object.entries(items[0]);
  } else if (items.length > 1 && items.length % 2 === 0) {
    for (let index = 0; index < items.length; index += 2) {
      const key: unknown = items[index];
      // Upstream's service fails the request without an answer here (a non-text key); the props are dropped instead.
      if (typeof key !== 'string') return undefined;
      pairs.push([key, items[index + 1]]);
    }
  }
  const kept = pairs.filter(([key]) => !looksLikeSecret(key));
  if (kept.length === 0) return undefined;
  return Object.fromEntries(kept);
}

/** The event a caller sent, about the subject the caller may name (checked by the caller of this). */
export function buildTriggeredEvent(
  params: TriggerEventParams,
  context: { orgId: string; eventId: string; at: Date; subject: { clusterId?: string; hostId?: string; infraEnvId?: string } },
): ServiceEvent {
  const category = categoryOf(params.category);
  if (params.message.length > MAX_TRIGGERED_MESSAGE_LENGTH) {
    throw badRequest(`message is ${params.message.length} characters long; an event's message may have at most ${MAX_TRIGGERED_MESSAGE_LENGTH}`);
  }
  const name = params.name ?? '';
  // A message may run over lines; otherwise what a name may not hold, a message may not either.
  const unshowable = displayTextProblem('message', params.message.replace(/[\n\t]/g, ' ')) ?? displayTextProblem('name', name);
  if (unshowable) throw badRequest(unshowable);
  if (name.length > MAX_TRIGGERED_NAME_LENGTH)
    throw badRequest(`name is ${name.length} characters long; an event's name may have at most ${MAX_TRIGGERED_NAME_LENGTH}`);
  const props = triggeredEventProps(params.props);
  if (props && JSON.stringify(props).length > MAX_TRIGGERED_PROPS_LENGTH) {
    throw badRequest(`props hold more than ${MAX_TRIGGERED_PROPS_LENGTH} characters of JSON; send fewer or shorter properties`);
  }
  const severity: EventSeverity = params.severity;
  const { clusterId, hostId, infraEnvId } = context.subject;
  return {
    orgId: context.orgId,
    eventId: context.eventId,
    name,
    severity,
    category,
    message: params.message,
    eventTime: context.at.toISOString(),
    ...(clusterId ? { clusterId } : {}),
    ...(hostId ? { hostId } : {}),
    ...(infraEnvId ? { infraEnvId } : {}),
    ...(props ? { props } : {}),
  };
}
