/**
 * Log collection, as upstream's agent (logs_sender) and installer controller drive it and users
 * download the result. Pure: the attribute changes each report makes, the names the downloads
 * carry, and how the `all` bundle names what it holds.
 *
 * Upstream accepts uploads and progress reports in every host and cluster status (logs are most
 * wanted from hosts in `error` or `cancelled`), so nothing here depends on the status; the one rule
 * is ownership: a host's logs are uploaded for the cluster the host belongs to.
 */
import { posix } from 'node:path';
import { badRequest, conflict } from '../core/errors.js';
import type { LogsState } from '../core/state-rules.js';

export type { LogsState } from '../core/state-rules.js';

export const LOGS_STATES: readonly LogsState[] = ['', 'requested', 'collecting', 'completed', 'timeout'];

/** What an upload is: one host's logs, or the installer controller's logs for the cluster. */
export type UploadLogsType = 'host' | 'controller';
/** What a download asks for; `all` (the default) is every upload of the cluster in one tar. */
export type DownloadLogsType = UploadLogsType | 'all';

export function parseLogsState(value: unknown): LogsState {
  const state = LOGS_STATES.find((known) => known === value);
  if (state !== undefined) return state;
  throw badRequest(`logs_state must be one of ${LOGS_STATES.filter(Boolean).join(', ')} or empty, got ${JSON.stringify(value)}`);
}

export function parseUploadLogsType(value: string | undefined): UploadLogsType {
  if (value === 'host' || value === 'controller') return value;
  throw badRequest(`logs_type must be host or controller, got ${JSON.stringify(value ?? '')}`);
}

/** Upstream treats anything but `host` and `controller` (an absent or empty type included) as `all`. */
export function parseDownloadLogsType(value: string | undefined): DownloadLogsType {
  return value === 'host' || value === 'controller' ? value : 'all';
}

/** Where a host and a cluster keep the moment their log collection was asked for. */
export const HOST_LOGS_STARTED_AT = 'logs_started_at';
export const HOST_LOGS_COLLECTED_AT = 'logs_collected_at';
export const CLUSTER_LOGS_STARTED_AT = 'controller_logs_started_at';
export const CLUSTER_LOGS_COLLECTED_AT = 'controller_logs_collected_at';

type Attributes = Record<string, unknown>;

/**
 * A logs-progress report: `logs_info` takes the reported state, and `requested` (a collection
 * starting) also restarts the clock the log-collection timeouts measure from.
 */
export function withLogsProgress(attributes: Attributes, state: LogsState, startedAtField: string, now: string): Attributes {
  return { ...attributes, logs_info: state, ...(state === 'requested' ? { [startedAtField]: now } : {}) };
}

/**
 * An upload arrived: it is stamped, and `logs_info` says `collecting` until the sender reports
 * `completed` (the host's sender uploads once; the controller uploads every few minutes).
 */
export function withLogsUploaded(attributes: Attributes, collectedAtField: string, now: string): Attributes {
  return { ...attributes, [collectedAtField]: now, logs_info: 'collecting' };
}

export function hasCollectedLogs(attributes: Attributes, collectedAtField: string): boolean {
  return typeof attributes[collectedAtField] === 'string' && attributes[collectedAtField] !== '';
}

/** Upstream answers 409 when the logs asked for were never uploaded. */
export function requireHostLogs(attributes: Attributes, hostId: string): void {
  if (!hasCollectedLogs(attributes, HOST_LOGS_COLLECTED_AT)) throw conflict(`Logs for host ${hostId} were not found`);
}

export function requireControllerLogs(attributes: Attributes, clusterId: string): void {
  if (!hasCollectedLogs(attributes, CLUSTER_LOGS_COLLECTED_AT)) throw conflict(`Controller Logs for cluster ${clusterId} were not found`);
}

/** A host upload names its host; upstream's own message for a missing one. */
export function requireUploadHostId(hostId: string | undefined): string {
  if (!hostId) throw badRequest('cluster_id and host_id are required for upload host logs');
  return hostId;
}

export function requireDownloadHostId(hostId: string | undefined): string {
  if (!hostId) throw badRequest('Host ID must be provided for downloading host logs');
  return hostId;
}

/**
 * Download names are built as upstream builds them (kennygrant/sanitize's `Name`): the last path
 * element, lower-cased, accents flattened, `space & _ = + :` turned into dashes, anything but ASCII
 * letters, digits, dashes and dots dropped, runs of dashes collapsed. Accents are flattened by
 * Unicode decomposition rather than upstream's short transliteration table, which agrees on the
 * common Latin letters.
 */
export function sanitizeFileName(name: string): string {
  const base = posix.basename(name.toLowerCase()) || '.';
  return base
    .trim()
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[ &_=+:]/g, '-')
    .replace(/[^A-Za-z0-9.-]/g, '')
    .replace(/-+/g, '-');
}

/** The role a host's logs are filed under: the bootstrap host is `bootstrap`, others their role. */
export function logsRole(attributes: Attributes): string {
  if (attributes.bootstrap === true) return 'bootstrap';
  return typeof attributes.role === 'string' && attributes.role ? attributes.role : 'auto-assign';
}

export interface HostLogsSubject {
  hostId: string;
  hostName: string;
  attributes: Attributes;
}

export function hostLogsFileName(clusterName: string, host: HostLogsSubject): string {
  return `${sanitizeFileName(clusterName)}_${logsRole(host.attributes)}_${sanitizeFileName(host.hostName)}.tar.gz`;
}

export function controllerLogsFileName(clusterName: string, clusterId: string): string {
  return `${sanitizeFileName(clusterName)}_${clusterId}_controller.tar.gz`;
}

export function allLogsFileName(clusterName: string, clusterId: string): string {
  return `${sanitizeFileName(clusterName)}_${clusterId}.tar`;
}

/** An object found under the cluster's logs prefix, by the folder it sits in. */
export interface StoredLogObject {
  key: string;
  /** The folder right under the logs prefix: a host id or `controller`. */
  folder: string;
  /** The object's name inside that folder. */
  name: string;
}

export interface BundleEntry {
  key: string;
  /** The file's name inside the bundle. */
  path: string;
}

/**
 * Names each uploaded object inside the `all` bundle as upstream does: a host's logs as
 * `<cluster>_<role>_<hostname>.tar.gz`, the controller's as `controller_logs.tar.gz`. A host no
 * longer in the cluster keeps its logs under its id (upstream keeps deleted hosts' rows; we do not).
 * Upstream wraps each host's archive in a per-host tar; here it goes in as uploaded, one level less
 * to unpack. Two hosts reporting the same name get their ids appended so neither hides the other.
 */
export function logsBundleEntries(
  clusterName: string,
  objects: StoredLogObject[],
  hostsById: ReadonlyMap<string, HostLogsSubject>,
  controllerFolder: string,
): BundleEntry[] {
  const entries: BundleEntry[] = [];
  const taken = new Set<string>();
  const sorted = [...objects].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (const object of sorted) {
    const host = hostsById.get(object.folder);
    let path: string;
    if (object.folder === controllerFolder) path = `controller_${object.name}`;
    else if (host) path = hostLogsFileName(clusterName, host);
    else path = `${sanitizeFileName(clusterName)}_host_${sanitizeFileName(object.folder)}_${sanitizeFileName(object.name)}`;
    if (taken.has(path)) path = path.replace(/(\.tar\.gz|\.[^.]*)?$/, (extension) => `_${sanitizeFileName(object.folder)}${extension}`);
    taken.add(path);
    entries.push({ key: object.key, path });
  }
  return entries;
}

/** Splits a key under `prefix` into its folder and name; keys deeper or shallower than that are not uploads. */
export function storedLogObject(prefix: string, key: string): StoredLogObject | undefined {
  if (!key.startsWith(prefix)) return undefined;
  const parts = key.slice(prefix.length).split('/');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined;
  return { key, folder: parts[0], name: parts[1] };
}
