/**
 * The audit log (docs/api.md, "Audit log"): every request of a person or an API token that may
 * change something is recorded before it acts (who, what, when, from where), and how it ended once
 * it has. Recording first means no change is ever made without its record: a function that stops
 * mid-request leaves the record `pending`, never a change nobody is on record for. The record's id
 * is the request's, so a repeated write of it leaves one record.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { auditOutcome, auditResource, isAudited, type AuditActor, type AuditEvent, type AuditFilter } from '../domain/auth/audit.js';
import { badRequest, forbidden } from '../domain/core/errors.js';
import type { Clock } from '../ports/clock.js';
import type { Page, Store } from '../ports/store.js';
import type { Principal, UserPrincipal } from './principal.js';

interface AuditDeps {
  store: Store;
  clock: Clock;
}

/** The request as the router has it. */
export interface AuditedRequest {
  requestId: string;
  operationId: string;
  method: string;
  /** The operation's path template (`/v2/clusters/{cluster_id}`). */
  path: string;
  params: Record<string, unknown>;
  sourceIp?: string;
  userAgent?: string;
}

export function auditActorOf(principal: UserPrincipal): AuditActor {
  if (principal.tokenId !== undefined) {
    return { kind: 'token', id: principal.tokenId, role: principal.role, ...(principal.ownerUserId ? { ownerUserId: principal.ownerUserId } : {}) };
  }
  return { kind: 'user', id: principal.userId, role: principal.role, ...(principal.email ? { email: principal.email } : {}) };
}

/** The id of what a creation made, from its JSON answer (never any other field of it). */
function createdIdOf(result: APIGatewayProxyResult): string | undefined {
  if (result.statusCode !== 201 || typeof result.body !== 'string' || result.body.length > 1_000_000 || result.isBase64Encoded) return undefined;
  try {
    const parsed: unknown = JSON.parse(result.body);
    return parsed && typeof parsed === 'object' && 'id' in parsed && typeof parsed.id === 'string' ? parsed.id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Runs the operation, recorded in the audit log when it is a person's or a token's change. The
 * answer (or the failure, rethrown) is the operation's; `statusOf` says what a failure is answered with.
 */
export async function audited(
  deps: AuditDeps,
  principal: Principal,
  request: AuditedRequest,
  statusOf: (error: unknown) => { statusCode: number; reason: string },
  run: () => Promise<APIGatewayProxyResult>,
): Promise<APIGatewayProxyResult> {
  if (!isAudited(request.method, principal.kind) || principal.kind !== 'user') return run();
  const key = { orgId: principal.orgId, auditId: request.requestId };
  const record: AuditEvent = {
    ...key,
    at: deps.clock.now().toISOString(),
    actor: auditActorOf(principal),
    operationId: request.operationId,
    method: request.method.toUpperCase(),
    resource: auditResource(request.path, request.params),
    source: { ...(request.sourceIp ? { ip: request.sourceIp } : {}), ...(request.userAgent ? { userAgent: request.userAgent.slice(0, 300) } : {}) },
    outcome: { result: 'pending' },
  };
  await deps.store.auditLog.begin(record);
  let result: APIGatewayProxyResult;
  try {
    result = await run();
  } catch (error) {
    const { statusCode, reason } = statusOf(error);
    await deps.store.auditLog.finish(key, { outcome: auditOutcome(statusCode, reason), resource: record.resource });
    throw error;
  }
  const createdId = createdIdOf(result);
  await deps.store.auditLog.finish(key, { outcome: auditOutcome(result.statusCode), resource: auditResource(request.path, request.params, createdId) });
  return result;
}

/** The organisation's audit log, for its admins. */
export async function listAuditEvents(
  deps: AuditDeps,
  principal: Principal,
  filter: Omit<AuditFilter, 'orgId'>,
  page: { limit?: number; cursor?: string },
): Promise<Page<AuditEvent>> {
  if (principal.kind !== 'user' || principal.role !== 'admin') throw forbidden("Only the organisation's admins may read its audit log");
  for (const [name, value] of [
    ['since', filter.since],
    ['until', filter.until],
  ] as const) {
    if (value !== undefined && Number.isNaN(Date.parse(value))) throw badRequest(`${name} must be an ISO 8601 time, not ${JSON.stringify(value)}`);
  }
  const normalised = {
    ...filter,
    ...(filter.since !== undefined ? { since: new Date(filter.since).toISOString() } : {}),
    ...(filter.until !== undefined ? { until: new Date(filter.until).toISOString() } : {}),
  };
  // DynamoDB refuses a key range whose start is after its end: a 400 that says so, not its 500.
  if (normalised.since !== undefined && normalised.until !== undefined && normalised.since > normalised.until) {
    throw badRequest(`since (${normalised.since}) is after until (${normalised.until}): no time is in that range`);
  }
  return deps.store.auditLog.list({ ...normalised, orgId: principal.orgId }, page);
}
