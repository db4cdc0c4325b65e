import type { AuditEvent } from '../../../domain/auth/audit.js';
import { json } from '../../../platform/http.js';
import { listAuditEvents } from '../../../usecases/audit.js';
import type { Operation } from '../context.js';
import { queryString, queryStrings } from '../params.js';

/** A record as the wire carries it (openapi.yaml's audit-event). */
function auditEventView(event: AuditEvent) {
  const { actor, source } = event;
  return {
    id: event.auditId,
    at: event.at,
    actor: {
      kind: actor.kind,
      id: actor.id,
      role: actor.role,
      ...(actor.email ? { email: actor.email } : {}),
      ...(actor.ownerUserId ? { owner_user_id: actor.ownerUserId } : {}),
    },
    operation_id: event.operationId,
    method: event.method,
    resource: event.resource,
    source: { ...(source.ip ? { ip: source.ip } : {}), ...(source.userAgent ? { user_agent: source.userAgent } : {}) },
    outcome: event.outcome,
  };
}

export const ListAuditEvents: Operation<'ListAuditEvents'> = async ({ api, principal, ports }) => {
  const limit = queryString(api, 'limit');
  const cursor = queryString(api, 'cursor');
  const page = await listAuditEvents(ports, principal, queryStrings(api, ['resource', 'actor', 'since', 'until'] as const), {
    ...(limit !== undefined ? { limit: Number(limit) } : {}),
    ...(cursor !== undefined ? { cursor } : {}),
  });
  return json(200, { audit_events: page.items.map(auditEventView), ...(page.next ? { next_cursor: page.next } : {}) });
};
