/**
 * Webhooks (docs/api.md, "Webhooks"): an organisation's endpoints for classes of events, and the
 * deliveries the table's stream makes to them. A change read from the stream becomes one delivery
 * per endpoint and class, whose id is derived from the stream record (a redelivered record makes
 * the same delivery, stored once; a resend carries the same id). Each endpoint's deliveries about
 * one resource are sent in order, one at a time (a lease on the queue); a failed one is retried
 * with backoff for the retry window (24 h), then dead-lettered with its last error, and the queue
 * moves on.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { v5 as nameBasedUuid } from 'uuid';
import { badRequest, forbidden, notFound } from '../domain/core/errors.js';
import {
  resourceOf,
  webhookClassesOf,
  isWebhookEventClass,
  WEBHOOK_EVENT_CLASSES,
  type LiveChange,
  type WebhookEventClass,
} from '../domain/events/live-changes.js';
import {
  isDelivered,
  nextWebhookAttempt,
  webhookSignature,
  webhookUrlProblem,
  type Webhook,
  type WebhookDelivery,
  type WebhookEndpointPolicy,
  type WebhookRetrySettings,
} from '../domain/events/webhooks.js';
import type { Clock } from '../ports/clock.js';
import type { EventBus } from '../ports/event-bus.js';
import type { WebhookSender } from '../ports/webhook-sender.js';
import type { Page, Store, WebhookQueue } from '../ports/store.js';
import { actorName, type Principal } from './principal.js';

/** The settings slice webhooks read (ServiceConfig.webhooks). */
export interface WebhookSettings {
  endpoints: WebhookEndpointPolicy;
  retries: WebhookRetrySettings;
  timeoutMs: number;
}

type WebhookDeps = { store: Store; clock: Clock; config: { webhooks: WebhookSettings }; webhookSender: WebhookSender; eventBus?: EventBus };

/** Namespace of delivery ids (UUID v5 of endpoint, stream record and class). */
const DELIVERY_NAMESPACE = '1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b';
/** How long a sender holds a queue: longer than a few attempts' timeouts. */
const LEASE_MS = 60_000;
/** Deliveries sent from one queue per turn; the rest wait for the next change or the sweep. */
const PER_TURN = 50;

function requireAdmin(principal: Principal, what: string): asserts principal is Extract<Principal, { kind: 'user' }> {
  if (principal.kind !== 'user' || principal.role !== 'admin') throw forbidden(`Only the organisation's admins may ${what}`);
}

export function webhookView(webhook: Webhook) {
  return { id: webhook.webhookId, url: webhook.url, events: webhook.events, created_at: webhook.createdAt, created_by: webhook.createdBy };
}

export function deliveryView(delivery: WebhookDelivery) {
  return {
    id: delivery.deliveryId,
    event: delivery.eventClass,
    resource: delivery.resource,
    state: delivery.state,
    attempts: delivery.attempts,
    created_at: delivery.createdAt,
    ...(delivery.lastAttemptAt ? { last_attempt_at: delivery.lastAttemptAt } : {}),
    ...(delivery.nextAttemptAt && delivery.state === 'pending' ? { next_attempt_at: delivery.nextAttemptAt } : {}),
    ...(delivery.deliveredAt ? { delivered_at: delivery.deliveredAt } : {}),
    ...(delivery.lastError ? { last_error: delivery.lastError } : {}),
  };
}

export async function createWebhook(deps: WebhookDeps, principal: Principal, request: { url: string; events: string[] }): Promise<{ webhook: Webhook }> {
  requireAdmin(principal, 'register webhooks');
  const problem = webhookUrlProblem(request.url, deps.config.webhooks.endpoints);
  if (problem) throw badRequest(problem);
  const events = [...new Set(request.events)];
  const unknown = events.filter((event) => !isWebhookEventClass(event));
  if (events.length === 0 || unknown.length > 0)
    throw badRequest(`events must name one or more of ${WEBHOOK_EVENT_CLASSES.join(', ')}${unknown.length ? `; unknown: ${unknown.join(', ')}` : ''}`);
  const webhook = await deps.store.webhooks.create({
    orgId: principal.orgId,
    webhookId: randomUUID(),
    url: request.url,
    events,
    secret: `whsec_${randomBytes(32).toString('base64url')}`,
    createdAt: deps.clock.now().toISOString(),
    createdBy: actorName(principal),
  });
  return { webhook };
}

export async function listWebhooks(deps: WebhookDeps, principal: Principal): Promise<Webhook[]> {
  requireAdmin(principal, 'see webhooks');
  return deps.store.webhooks.listByOrg(principal.orgId);
}

async function callersWebhook(deps: WebhookDeps, principal: Principal, webhookId: string): Promise<Webhook> {
  const webhook = await deps.store.webhooks.get({ orgId: principal.orgId, webhookId });
  if (!webhook) throw notFound(`Webhook ${webhookId} not found`);
  return webhook;
}

export async function deleteWebhook(deps: WebhookDeps, principal: Principal, webhookId: string): Promise<void> {
  requireAdmin(principal, 'delete webhooks');
  await callersWebhook(deps, principal, webhookId);
  await deps.store.webhooks.remove({ orgId: principal.orgId, webhookId });
}

export async function listDeliveries(
  deps: WebhookDeps,
  principal: Principal,
  webhookId: string,
  page: { limit?: number; cursor?: string },
): Promise<Page<WebhookDelivery>> {
  requireAdmin(principal, 'see webhook deliveries');
  await callersWebhook(deps, principal, webhookId);
  return deps.store.webhookDeliveries.listByWebhook({ orgId: principal.orgId, webhookId }, page);
}

/** A change as the stream delivered it: its record's event id and sequence number. */
export interface StreamedChange {
  change: LiveChange;
  eventId: string;
  sequenceNumber: string;
  at: string;
}

/** The event's body, as every endpoint and the event bus get it. */
export function eventBody(deliveryId: string, eventClass: WebhookEventClass, streamed: StreamedChange): string {
  const { change } = streamed;
  return JSON.stringify({
    delivery_id: deliveryId,
    event: eventClass,
    occurred_at: streamed.at,
    resource: {
      kind: change.kind,
      id: change.id,
      ...(change.clusterId ? { cluster_id: change.clusterId } : {}),
      ...(change.infraEnvId ? { infra_env_id: change.infraEnvId } : {}),
    },
    ...(change.version !== undefined ? { version: change.version } : {}),
    ...(change.status ? { status: change.status } : {}),
    ...(change.previousStatus ? { previous_status: change.previousStatus } : {}),
    ...(change.statusInfo ? { status_info: change.statusInfo } : {}),
    ...(eventClass === 'validation-failing' ? { validations: change.newlyFailing } : {}),
  });
}

/**
 * The stream's changes to the organisations' endpoints and the event bus: deliveries queued (once
 * per stream record, endpoint and class), then each touched queue worked. Failures to send are the
 * deliveries' (retried by the sweep), not the stream's; a failure to queue throws (the record is
 * delivered again).
 */
export async function followForWebhooks(deps: WebhookDeps, streamed: readonly StreamedChange[]): Promise<{ queued: number; published: number }> {
  const raised = streamed.flatMap((item) => webhookClassesOf(item.change).map((eventClass) => ({ item, eventClass })));
  if (raised.length === 0) return { queued: 0, published: 0 };
  if (deps.eventBus) {
    await deps.eventBus.publish(
      raised.map(({ item, eventClass }) => ({
        detailType: `assisted.${eventClass}`,
        detail: eventBody(nameBasedUuid(`bus|${item.eventId}|${eventClass}`, DELIVERY_NAMESPACE), eventClass, item),
      })),
    );
  }
  const endpointsByOrg = new Map<string, Promise<Webhook[]>>();
  const endpointsOf = (orgId: string) => {
    let found = endpointsByOrg.get(orgId);
    if (!found) endpointsByOrg.set(orgId, (found = deps.store.webhooks.listByOrg(orgId)));
    return found;
  };
  const touched = new Map<string, WebhookQueue>();
  let queued = 0;
  for (const { item, eventClass } of raised) {
    for (const webhook of await endpointsOf(item.change.orgId)) {
      if (!webhook.events.includes(eventClass)) continue;
      const deliveryId = nameBasedUuid(`${webhook.webhookId}|${item.eventId}|${eventClass}`, DELIVERY_NAMESPACE);
      const resource = resourceOf(item.change);
      const delivery: WebhookDelivery = {
        orgId: webhook.orgId,
        webhookId: webhook.webhookId,
        deliveryId,
        resource,
        sequence: item.sequenceNumber.padStart(40, '0'),
        eventClass,
        body: eventBody(deliveryId, eventClass, item),
        state: 'pending',
        createdAt: deps.clock.now().toISOString(),
        attempts: 0,
      };
      if (await deps.store.webhookDeliveries.enqueue(delivery)) queued += 1;
      const queue = { orgId: webhook.orgId, webhookId: webhook.webhookId, resource };
      touched.set(JSON.stringify(queue), queue);
    }
  }
  await Promise.all([...touched.values()].map((queue) => workQueue(deps, queue)));
  return { queued, published: deps.eventBus ? raised.length : 0 };
}

/** Works the queues with a delivery due now (the scheduled sweep). */
export async function retryDueDeliveries(deps: WebhookDeps): Promise<{ queues: number }> {
  const queues = await deps.store.webhookDeliveries.due(deps.clock.now().toISOString(), 100);
  await Promise.all(queues.map((queue) => workQueue(deps, queue)));
  return { queues: queues.length };
}

/**
 * Sends the queue's pending deliveries in order while they succeed. The head that fails is
 * scheduled again (or dead-lettered once the window is over, and the queue moves on); nothing
 * behind it is sent before it. Another sender holding the queue: nothing to do here.
 */
async function workQueue(deps: WebhookDeps, queue: WebhookQueue): Promise<void> {
  const holder = randomUUID();
  const leased = () =>
    deps.store.webhookDeliveries.lease(queue, holder, new Date(deps.clock.now().getTime() + LEASE_MS).toISOString(), deps.clock.now().toISOString());
  if (!(await leased())) return;
  try {
    const webhook = await deps.store.webhooks.get({ orgId: queue.orgId, webhookId: queue.webhookId });
    for (const delivery of await deps.store.webhookDeliveries.pending(queue, PER_TURN)) {
      const now = deps.clock.now();
      if (!webhook) {
        await deps.store.webhookDeliveries.record({ ...delivery, state: 'dead', lastError: 'the webhook was deleted' });
        continue;
      }
      if (delivery.nextAttemptAt && Date.parse(delivery.nextAttemptAt) > now.getTime()) return;
      const error = await attempt(deps, webhook, delivery);
      const at = deps.clock.now();
      const attempted = {
        ...delivery,
        attempts: delivery.attempts + 1,
        firstAttemptAt: delivery.firstAttemptAt ?? now.toISOString(),
        lastAttemptAt: at.toISOString(),
      };
      if (error === undefined) {
        const { nextAttemptAt: _, ...delivered } = attempted;
        await deps.store.webhookDeliveries.record({ ...delivered, state: 'delivered', deliveredAt: at.toISOString() });
        continue;
      }
      const next = nextWebhookAttempt(deps.config.webhooks.retries, Date.parse(attempted.firstAttemptAt), attempted.attempts, at.getTime());
      if (next === undefined) {
        await deps.store.webhookDeliveries.record({ ...attempted, state: 'dead', lastError: error });
        continue;
      }
      await deps.store.webhookDeliveries.record({ ...attempted, lastError: error, nextAttemptAt: new Date(next).toISOString() });
      return;
    }
  } finally {
    await deps.store.webhookDeliveries.release(queue, holder);
  }
}

/** One POST of the delivery, signed; undefined when it was received, else why not. */
async function attempt(deps: WebhookDeps, webhook: Webhook, delivery: WebhookDelivery): Promise<string | undefined> {
  const timestamp = String(Math.floor(deps.clock.now().getTime() / 1000));
  try {
    const { status } = await deps.webhookSender.post({
      url: webhook.url,
      body: delivery.body,
      timeoutMs: deps.config.webhooks.timeoutMs,
      policy: deps.config.webhooks.endpoints,
      headers: {
        'X-Assisted-Delivery': delivery.deliveryId,
        'X-Assisted-Event': delivery.eventClass,
        'X-Assisted-Timestamp': timestamp,
        'X-Assisted-Signature': webhookSignature(webhook.secret, timestamp, delivery.body),
      },
    });
    return isDelivered(status) ? undefined : `the endpoint answered ${status}`;
  } catch (error) {
    return `no answer: ${error instanceof Error ? error.message : String(error)}`.slice(0, 500);
  }
}
