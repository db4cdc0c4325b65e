/**
 * The audit log: one record per request of a person or an API token that may change something
 * (docs/api.md, "Audit log"). What is recorded is decided here; the router writes it (ahead of the
 * change, then how the request ended), the store keeps it for the retention the deployment sets.
 */
import type { Role } from '../core/entities.js';

/** Who acted: an API token (its id) or a signed-in person (their user id and email), with the role they acted with. */
export interface AuditActor {
  kind: 'token' | 'user';
  id: string;
  role: Role;
  email?: string;
  /** The member whose token it is, for a member's own tokens. */
  ownerUserId?: string;
}

/** How a request ended: its HTTP status, and the reason of a refusal. `pending`: no answer was recorded (the function stopped). */
export interface AuditOutcome {
  result: 'succeeded' | 'refused' | 'failed' | 'pending';
  status?: number;
  reason?: string;
}

export interface AuditEvent {
  orgId: string;
  /** The request's id (API Gateway's): a retried write of one request's record leaves one record. */
  auditId: string;
  at: string;
  actor: AuditActor;
  operationId: string;
  method: string;
  /** What the request acted on, as `<kind>/<id>` (`clusters/…`, `infra-envs/…/hosts/…`), or the collection it created in. */
  resource: string;
  source: { ip?: string; userAgent?: string };
  outcome: AuditOutcome;
}

/** Requests that read only are not recorded; neither are the discovery agent's (they are its protocol, not a person's action). */
export function isAudited(method: string, callerKind: 'user' | 'agent'): boolean {
  return callerKind === 'user' && !['GET', 'HEAD', 'OPTIONS'].includes(method.toUpperCase());
}

/** Path parameters naming resources, most specific last, with the segment each is shown under. */
const RESOURCE_PARAMETERS: readonly [string, string][] = [
  ['organization_id', 'organizations'],
  ['cluster_id', 'clusters'],
  ['infra_env_id', 'infra-envs'],
  ['host_id', 'hosts'],
  ['token_id', 'api-tokens'],
  ['user_id', 'members'],
  ['invitation_id', 'invitations'],
  ['webhook_id', 'webhooks'],
];

/**
 * The resource a request acted on: the resources its path names, in order (`clusters/c`,
 * `infra-envs/i/hosts/h`); for a creation, the id of what it created (the answer's `id`) under the
 * path's collection.
 */
export function auditResource(path: string, params: Record<string, unknown>, createdId?: string): string {
  const named = RESOURCE_PARAMETERS.flatMap(([name, segment]) => (typeof params[name] === 'string' ? [`${segment}/${params[name]}`] : []));
  if (createdId !== undefined) {
    const collection =
      path
        .replace(/^\/v2\//, '')
        .split('/')
        .filter((part) => part !== '' && !part.startsWith('{'))
        .pop() ?? 'resources';
    return [...named, `${collection}/${createdId}`].join('/');
  }
  if (named.length > 0) return named.join('/');
  return path.replace(/^\/v2\//, '');
}

/** A request's outcome by the status it was answered with. */
export function auditOutcome(status: number, reason?: string): AuditOutcome {
  const result = status < 400 ? 'succeeded' : status < 500 ? 'refused' : 'failed';
  return { result, status, ...(reason !== undefined && status >= 400 ? { reason: reason.slice(0, 500) } : {}) };
}

/** The days audit records are kept unless the deployment says otherwise (AUDIT_RETENTION_DAYS). */
export const DEFAULT_AUDIT_RETENTION_DAYS = 400;

/** AUDIT_RETENTION_DAYS: a whole number of days, at least 1. */
export function auditRetentionDays(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_AUDIT_RETENTION_DAYS;
  const days = Number(raw);
  if (!Number.isInteger(days) || days < 1) throw new Error(`AUDIT_RETENTION_DAYS must be a whole number of days, at least 1, not ${JSON.stringify(raw)}`);
  return days;
}

/** What the audit log may be filtered by (all optional): the resource (its path prefix), the actor's id, a time window. */
export interface AuditFilter {
  orgId: string;
  resource?: string;
  actor?: string;
  since?: string;
  until?: string;
}

/** Whether a record passes the filter's resource and actor (the time window is the store's key range). */
export function matchesAuditFilter(event: AuditEvent, filter: AuditFilter): boolean {
  if (filter.actor !== undefined && event.actor.id !== filter.actor && event.actor.email !== filter.actor) return false;
  // Whole segments: `clusters/c` matches `clusters/c` and what is under it, `hosts/h` a host in any infra-env.
  if (filter.resource !== undefined && !`/${event.resource}/`.includes(`/${filter.resource.replace(/^\/+|\/+$/g, '')}/`)) return false;
  return true;
}
