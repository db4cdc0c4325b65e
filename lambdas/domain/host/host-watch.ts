/**
 * What the periodic monitor must look at. A host's verdict changes when something is written to
 * it, to its cluster or to its peers (those writes re-judge it at once, or mark its cluster for a
 * full re-judgement on the next pass), or when time alone passes a deadline: a host that stopped
 * polling, an install stage or a status held too long, logs that never came. This module decides
 * the time part from a few stored fields, so a quiet pass reads a small projection of each
 * watched host and loads a whole host only when one of its deadlines may have passed. It errs on
 * the side of "due": a host judged due needlessly costs one refresh, a host missed would stay wrong.
 */
import type { Cluster, Host } from '../core/entities.js';
import { HOST_TIMEOUTS, type HostTimeouts } from './host-facts.js';
import { elapsedMs } from '../core/state-rules.js';

/** The host attributes (besides keys, status, version and updatedAt) this judgement reads. */
export const WATCH_ATTRIBUTES = ['checked_in_at'] as const;

/** Statuses judged offline once their agent stops polling (the refresh rules' disconnection rules). */
const LIVENESS_WATCHED: ReadonlySet<string> = new Set([
  'discovering',
  'insufficient',
  'known',
  'pending-for-input',
  'preparing-failed',
  'preparing-for-installation',
  'preparing-successful',
  'discovering-unbound',
  'insufficient-unbound',
  'known-unbound',
  'unbinding',
]);

/**
 * Statuses a host's judgement may reach because its agent fell silent (disconnected; an
 * installation that lost its host fails): a store writes them only if no later check-in was
 * recorded meanwhile.
 */
export const SILENCE_VERDICTS: ReadonlySet<string> = new Set(['disconnected', 'disconnected-unbound', 'error']);

/** Statuses judged online again by a poll after a silence. */
const RECONNECTABLE: ReadonlySet<string> = new Set(['disconnected', 'disconnected-unbound']);

/**
 * Statuses with deadlines of their own (preparation, installation and stage timeouts, reclaiming,
 * log collection, soft connection timeouts while installing): few hosts at a time are in them,
 * and each pass re-judges them whole.
 */
const TIMED: ReadonlySet<string> = new Set([
  'preparing-for-installation',
  'installing',
  'installing-in-progress',
  'installing-pending-user-action',
  'reclaiming',
  'reclaiming-rebooting',
  'error',
  'cancelled',
]);

export type WatchAttribute = (typeof WATCH_ATTRIBUTES)[number];

export type WatchedHost = Pick<Host, 'status'> & { attributes: Partial<Record<(typeof WATCH_ATTRIBUTES)[number], unknown>> };

/** A poll from a host in this status brings it back online: it is judged at once, not on the next pass. */
export const reconnectsOnPoll = (status: string): boolean => RECONNECTABLE.has(status);

/** Statuses a peer's change can lift a host out of (a majority group joined, a hostname made unique). */
const WAITING_ON_PEERS: ReadonlySet<string> = new Set(['insufficient', 'pending-for-input']);
export const waitsOnPeers = (status: string): boolean => WAITING_ON_PEERS.has(status);

/** Whether time alone may have changed this host's verdict by `now`. */
export function dueByTime(host: WatchedHost, now: Date, timeouts: Partial<HostTimeouts> = {}): boolean {
  if (TIMED.has(host.status)) return true;
  const checkedInAt = host.attributes.checked_in_at as string | undefined;
  // A host that never polled counts as connected: nothing to time out.
  if (!checkedInAt) return false;
  const silentFor = elapsedMs(checkedInAt, now);
  const limit = timeouts.maxDisconnectionMs ?? HOST_TIMEOUTS.maxDisconnectionMs;
  if (LIVENESS_WATCHED.has(host.status)) return silentFor > limit;
  if (RECONNECTABLE.has(host.status)) return silentFor <= limit;
  return false;
}

/**
 * Cluster attributes that record the cluster's own verdict and progress. No host judgement reads
 * them, so a cluster write that changed only these (the stream's or the workflow's re-judgement of
 * the cluster) is no news to its hosts.
 */
const CLUSTER_OWN_VERDICT: ReadonlySet<string> = new Set(['validations_info', 'status_info', 'status_updated_at', 'progress']);

/** JSON with object keys sorted: the same value reads the same whichever order a store returned its maps in. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * What of a cluster its hosts' judgements may read, as one text: two copies with the same text are
 * the same cluster to its hosts. Everything but the version, the write time and the cluster's own
 * verdict (CLUSTER_OWN_VERDICT) counts, so it errs on the side of news.
 */
export function clusterAsHostsRead(cluster: Cluster): string {
  const { version: _version, updatedAt: _updatedAt, attributes, ...rest } = cluster;
  const read = Object.fromEntries(Object.entries(attributes ?? {}).filter(([name]) => !CLUSTER_OWN_VERDICT.has(name)));
  return canonicalJson({ ...rest, attributes: read });
}
