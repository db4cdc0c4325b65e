/**
 * Live changes over WebSocket (docs/api.md, "Live changes"): a connection authenticates at
 * connect (an API token or a sign-in session), subscribes to a cluster, an infra-env or the
 * organisation's lists, and is sent each change the table's stream carries for them. Another
 * organisation's resource is refused as a 404 is. Caps: connections per organisation (at connect)
 * and messages per second (the connection is closed, saying why).
 */
import { DomainError } from '../domain/core/errors.js';
import { changeMessage, reaches, subscriptionOf, type LiveCaps } from '../domain/events/live-subscriptions.js';
import type { Clock } from '../ports/clock.js';
import type { LiveConnections } from '../ports/live-connections.js';
import type { Store } from '../ports/store.js';
import { findCluster, findInfraEnv } from './access.js';
import type { StreamedChange } from './webhooks.js';
import type { Principal } from './principal.js';

type LiveDeps = { store: Store; clock: Clock } & { connections: LiveConnections; caps: LiveCaps };

/** API Gateway closes a WebSocket connection after 2 hours: the item outlives it by a little. */
const CONNECTION_TTL_SECONDS = 2 * 3600 + 300;

export type ConnectOutcome = { accepted: true } | { accepted: false; status: number; reason: string };

export async function connect(deps: LiveDeps, principal: Principal, connectionId: string): Promise<ConnectOutcome> {
  if (principal.kind !== 'user') return { accepted: false, status: 403, reason: 'Live changes are for people and their API tokens' };
  const added = await deps.store.liveConnections.add(
    {
      connectionId,
      orgId: principal.orgId,
      role: principal.role,
      actor: principal.tokenId ?? principal.userId,
      subscriptions: [],
      connectedAt: deps.clock.now().toISOString(),
    },
    deps.caps.connectionsPerOrg,
    CONNECTION_TTL_SECONDS,
  );
  if (!added)
    return {
      accepted: false,
      status: 429,
      reason: `The organisation has ${deps.caps.connectionsPerOrg} live connections open, the most it may: close one first`,
    };
  return { accepted: true };
}

export async function disconnect(deps: LiveDeps, connectionId: string): Promise<void> {
  await deps.store.liveConnections.remove(connectionId);
}

/** A client's message: answered on the connection; over the rate cap the connection is closed, saying why. */
export async function receive(
  deps: LiveDeps,
  connectionId: string,
  message: unknown,
): Promise<{ reply: Record<string, unknown>; close?: { code: number; reason: string } }> {
  const second = Math.floor(deps.clock.now().getTime() / 1000);
  const count = await deps.store.liveConnections.countMessage(connectionId, second);
  const connection = count === undefined ? undefined : await deps.store.liveConnections.get(connectionId);
  if (count === undefined || !connection)
    return {
      reply: { type: 'error', status: 401, reason: 'This connection is not known: connect again' },
      close: { code: 4401, reason: 'unknown connection' },
    };
  if (count > deps.caps.messagesPerSecond) {
    const reason = `more than ${deps.caps.messagesPerSecond} messages per second`;
    await deps.store.liveConnections.remove(connectionId);
    return { reply: { type: 'error', status: 429, reason }, close: { code: 1008, reason } };
  }
  const asked = subscriptionOf(message);
  if ('problem' in asked) {
    await deps.store.liveConnections.extend(connectionId, CONNECTION_TTL_SECONDS);
    return { reply: { type: 'error', status: 400, reason: asked.problem } };
  }
  // Found as the caller's requests find it: another organisation's resource is not found.
  const principal: Principal = { kind: 'user', orgId: connection.orgId, role: connection.role, tokenId: connection.actor };
  try {
    if (asked.kind === 'cluster') await findCluster(deps.store, principal, asked.id!);
    if (asked.kind === 'infra-env') await findInfraEnv(deps.store, principal, asked.id!);
  } catch (error) {
    await deps.store.liveConnections.extend(connectionId, CONNECTION_TTL_SECONDS);
    if (error instanceof DomainError && error.kind === 'not-found') return { reply: { type: 'error', status: 404, reason: error.message } };
    throw error;
  }
  // One update, not a read and a put: the console sends a page's subscriptions at once.
  await deps.store.liveConnections.addSubscription(connectionId, asked.subscription, CONNECTION_TTL_SECONDS);
  return { reply: { type: 'subscribed', subscription: asked.subscription } };
}

/** Each change to the organisation's subscribers that follow it; connections found gone (410) are dropped. */
export async function fanOut(deps: LiveDeps, streamed: readonly StreamedChange[]): Promise<{ sent: number; dropped: number }> {
  const byOrg = new Map<string, StreamedChange[]>();
  for (const item of streamed) byOrg.set(item.change.orgId, [...(byOrg.get(item.change.orgId) ?? []), item]);
  let sent = 0;
  let dropped = 0;
  for (const [orgId, items] of byOrg) {
    const connections = (await deps.store.liveConnections.listByOrg(orgId)).filter((connection) => connection.subscriptions.length > 0);
    await Promise.all(
      connections.map(async (connection) => {
        for (const { change } of items) {
          if (!connection.subscriptions.some((subscription) => reaches(change, subscription))) continue;
          if ((await deps.connections.post(connection.connectionId, JSON.stringify(changeMessage(change)))) === 'gone') {
            await deps.store.liveConnections.remove(connection.connectionId);
            dropped += 1;
            return;
          }
          sent += 1;
        }
      }),
    );
  }
  return { sent, dropped };
}
