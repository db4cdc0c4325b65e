import { badRequest } from '../../../domain/core/errors.js';
import { json } from '../../../platform/http.js';
import { listEvents, type EventQuery } from '../../../usecases/events.js';
import type { Operation } from '../context.js';

type RawQuery = Record<string, string | string[] | undefined>;

/** A scalar parameter; validation has already refused repeated ones. */
function text(query: RawQuery, name: string): string | undefined {
  const value = query[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Upstream's array parameters are comma-separated (`style: form, explode: false`). A repeated one
 * arrives as its last value (handlers/api/index.ts, as upstream reads it); the router may hand the
 * value over split or as the one string, so accept both.
 */
function list(query: RawQuery, name: string): string[] | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  const items = (Array.isArray(value) ? value : [value]).flatMap((item) => item.split(',')).filter((item) => item !== '');
  return items.length > 0 ? items : undefined;
}

/** Query values are still strings here (the router validates with coercion but hands over the originals). */
function integer(query: RawQuery, name: string): number | undefined {
  const value = text(query, name);
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value.trim())) throw badRequest(`${name} must be an integer, got ${JSON.stringify(value)}`);
  return Number(value);
}

function boolean(query: RawQuery, name: string): boolean | undefined {
  const value = text(query, name);
  if (value === undefined) return undefined;
  if (value !== 'true' && value !== 'false') throw badRequest(`${name} must be true or false, got ${JSON.stringify(value)}`);
  return value === 'true';
}

/** The router has refused an order outside openapi.yaml's enum. */
function order(query: RawQuery): EventQuery['order'] {
  const value = text(query, 'order');
  return value === 'ascending' || value === 'descending' ? value : undefined;
}

export const v2ListEvents: Operation<'v2ListEvents'> = async ({ api, principal, ports }) => {
  const query: RawQuery = api.request.query;
  const eventQuery: EventQuery = {
    clusterId: text(query, 'cluster_id'),
    hostId: text(query, 'host_id'),
    hostIds: list(query, 'host_ids'),
    infraEnvId: text(query, 'infra_env_id'),
    limit: integer(query, 'limit'),
    offset: integer(query, 'offset'),
    order: order(query),
    severities: list(query, 'severities'),
    message: text(query, 'message'),
    deletedHosts: boolean(query, 'deleted_hosts'),
    clusterLevel: boolean(query, 'cluster_level'),
    categories: list(query, 'categories'),
  };
  const result = await listEvents(ports, principal, eventQuery);
  return json(200, result.events, {
    'Severity-Count-Info': String(result.severityCounts.info),
    'Severity-Count-Warning': String(result.severityCounts.warning),
    'Severity-Count-Error': String(result.severityCounts.error),
    'Severity-Count-Critical': String(result.severityCounts.critical),
    'Event-Count': String(result.eventCount),
  });
};
