/**
 * Live subscriptions (docs/api.md, "Live changes"): what a WebSocket subscriber may ask to follow,
 * which changes reach it, the message it gets, and the caps on connections and messages.
 */
import type { LiveChange } from './live-changes.js';
import { isUuid } from '../../../contracts/input-checks.js';

/** `org`: the organisation's clusters and infra-envs; `cluster:<id>`: a cluster, its hosts and events; `infra-env:<id>`: likewise. */
export type Subscription = 'org' | `cluster:${string}` | `infra-env:${string}`;

/** The subscription a client message asks for, or why it is not one. */
export function subscriptionOf(message: unknown): { subscription: Subscription; id?: string; kind?: 'cluster' | 'infra-env' } | { problem: string } {
  if (!message || typeof message !== 'object')
    return { problem: 'a message is a JSON object: {"action":"subscribe","cluster_id":…} or "infra_env_id" or "org":true' };
  const body = message as Record<string, unknown>;
  if (body.org === true) return { subscription: 'org' };
  for (const [field, kind] of [
    ['cluster_id', 'cluster'],
    ['infra_env_id', 'infra-env'],
  ] as const) {
    const id = body[field];
    if (id === undefined) continue;
    if (typeof id !== 'string' || !isUuid(id)) return { problem: `${field} must be a UUID` };
    return { subscription: `${kind}:${id.toLowerCase()}`, id: id.toLowerCase(), kind };
  }
  return { problem: 'subscribe names a cluster_id, an infra_env_id, or org: true' };
}

/** Whether a change reaches a subscription. */
export function reaches(change: LiveChange, subscription: string): boolean {
  if (subscription === 'org') return change.kind === 'cluster' || change.kind === 'infra-env';
  const [kind, id] = subscription.split(':') as [string, string];
  if (kind === 'cluster')
    return (change.kind === 'cluster' && change.id === id) || ((change.kind === 'host' || change.kind === 'event') && change.clusterId === id);
  if (kind === 'infra-env')
    return (change.kind === 'infra-env' && change.id === id) || ((change.kind === 'host' || change.kind === 'event') && change.infraEnvId === id);
  return false;
}

/** What a subscriber is sent: kind, id, version and the fields that changed (never the record: a client reads it with its own credentials). */
export function changeMessage(change: LiveChange): Record<string, unknown> {
  return {
    type: 'change',
    kind: change.kind,
    id: change.id,
    ...(change.version !== undefined ? { version: change.version } : {}),
    changed: change.changed,
    ...(change.clusterId ? { cluster_id: change.clusterId } : {}),
    ...(change.infraEnvId ? { infra_env_id: change.infraEnvId } : {}),
    ...(change.status ? { status: change.status } : {}),
  };
}

export interface LiveCaps {
  connectionsPerOrg: number;
  messagesPerSecond: number;
}

export const DEFAULT_LIVE_CAPS: LiveCaps = { connectionsPerOrg: 100, messagesPerSecond: 10 };

/** WebSocket close codes: 1008 policy violation (a cap), 4401/4404 the service's own. */
export const CLOSE_CODES = { overLimit: 1008 } as const;
