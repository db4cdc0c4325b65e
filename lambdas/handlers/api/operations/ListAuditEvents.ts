import type { AuditEvent } from '../../../domain/auth/audit.js';
import { json } from '../../../platform/http.js';
import { listAuditEvents } from '../../../usecases/audit.js';
import type { Operation } from '../context.js';

type RawQuery = Record<string, string | string[] | undefined>;

/** A scalar parameter; validation has already refused repeated ones and values outside openapi.yaml's schema. */
const text = (query: RawQuery, name: string): string | undefined => {
  const value = query[name];
  return Array.isArray(value) ? value[0] : value;
};

/** A record as the wire carries it (openapi.yaml's audit-event). */
function auditEventView(event: AuditEvent) {
  const { actor, source } = event;
  return {
    id: event.auditId,
    at: event.at,
    actor: { kind: actor.kind, id: actor.id, role: actor.role, ...(actor.email ? { email: actor.email } : {}), ...(actor.ownerUserId ? { owner_user_id: actor.ownerUserId } : {}) },
    operation_id: event.operationId,
    method: event.method,
    resource: event.resource,
    source: { ...(source.ip ? { ip: source.ip } : {}), ...(source.userAgent ? { user_agent: source.userAgent } : {}) },
    outcome: event.outcome,
  };
}

export const ListAuditEvents: Operation<'ListAuditEvents'> = async ({ api, principal, ports }) => {
  const query: RawQuery = api.request.query;
  const optional = (name: string, key: string) => {
    const value = text(query, name);
    return value === undefined ? {} : { [key]: value };
  };
  const limit = text(query, 'limit');
  const page = await listAuditEvents(
    ports,
    principal,
    { ...optional('resource', 'resource'), ...optional('actor', 'actor'), ...optional('since', 'since'), ...optional('until', 'until') },
    { ...(limit !== undefined ? { limit: Number(limit) } : {}), ...(text(query, 'cursor') !== undefined ? { cursor: text(query, 'cursor') } : {}) },
  );
  return json(200, { audit_events: page.items.map(auditEventView), ...(page.next ? { next_cursor: page.next } : {}) });
};
