/**
 * The host id the agent registers with, derived as upstream does (assisted-agent.md §1.4) so a host
 * keeps its id across reboots and agent versions: motherboard serial → DMI system UUID → lowest MAC
 * of a physical, bond or VLAN interface → a fixed fallback. Each hardware value is hashed (md5) or,
 * for the system UUID, used as is, because the service only accepts UUIDs.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { AgentLog } from './contracts.js';
import { isUuid } from '../../contracts/input-checks.js';

export const FAILURE_HOST_ID = 'deaddead-dead-dead-dead-deaddeaddead';

/** Serials vendors ship when nobody filled one in; they are shared by many machines. */
const PLACEHOLDER_SERIALS = new Set([
  '',
  'unknown',
  'none',
  '(none)',
  '-',
  'unspecified base board serial number',
  'unspecified system serial number',
  'default string',
  'not specified',
  'pca_number.acc',
  'to be filled by o.e.m.',
]);
const PLACEHOLDER_UUIDS = new Set(['00000000-0000-0000-0000-000000000000', '03000200-0400-0500-0006-000700080009']);

export type HostIdSource = 'override' | 'board-serial' | 'system-uuid' | 'mac' | 'fallback';

export interface DerivedHostId {
  readonly hostId: string;
  readonly source: HostIdSource;
  /** The value the id came from (a serial, UUID or MAC and its interface), for the log. */
  readonly from?: string;
}

/** md5 of the text, written in UUID form (no version bits set), as upstream formats it. */
export function md5Uuid(text: string): string {
  const hex = createHash('md5').update(text).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function readTrimmed(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** Interfaces upstream's inventory lists: physical ones, bonds and VLANs (not lo, bridges, veths, tunnels). */
function isListedInterface(netDir: string, name: string): boolean {
  const dir = path.join(netDir, name);
  let resolved: string;
  try {
    resolved = realpathSync(dir);
  } catch {
    return false;
  }
  if (!resolved.includes(`${path.sep}virtual${path.sep}`)) return true;
  if (existsSync(path.join(dir, 'bonding'))) return true;
  return /^DEVTYPE=vlan$/m.test(readTrimmed(path.join(dir, 'uevent')) ?? '');
}

export function interfaceMacs(root: string): { name: string; mac: string }[] {
  const netDir = path.join(root, 'sys/class/net');
  let names: string[];
  try {
    names = readdirSync(netDir);
  } catch {
    return [];
  }
  return names
    .filter((name) => isListedInterface(netDir, name))
    .map((name) => ({ name, mac: (readTrimmed(path.join(netDir, name, 'address')) ?? '').toLowerCase() }))
    .filter(({ mac }) => mac !== '' && !/^(00:)*00$/.test(mac));
}

export function deriveHostId(options: { root?: string; override?: string; log?: AgentLog } = {}): DerivedHostId {
  const root = options.root ?? '/';
  if (options.override) {
    if (!isUuid(options.override)) throw new Error(`--host-id must be a UUID, got ${JSON.stringify(options.override)}`);
    return { hostId: options.override.toLowerCase(), source: 'override', from: options.override };
  }
  const dmi = path.join(root, 'sys/class/dmi/id');
  const serial = readTrimmed(path.join(dmi, 'board_serial'));
  if (serial !== undefined && !PLACEHOLDER_SERIALS.has(serial.toLowerCase())) {
    return { hostId: md5Uuid(serial), source: 'board-serial', from: serial };
  }
  options.log?.warn('no usable motherboard serial; trying the system UUID', { board_serial: serial ?? '(unreadable)' });

  const uuid = readTrimmed(path.join(dmi, 'product_uuid'))?.toLowerCase();
  if (uuid && isUuid(uuid) && !PLACEHOLDER_UUIDS.has(uuid)) return { hostId: uuid, source: 'system-uuid', from: uuid };
  options.log?.warn('no usable system UUID; using the lowest MAC address', { product_uuid: uuid ?? '(unreadable)' });

  const lowest = interfaceMacs(root).sort((a, b) => (a.mac < b.mac ? -1 : a.mac > b.mac ? 1 : 0))[0];
  if (lowest) return { hostId: md5Uuid(lowest.mac), source: 'mac', from: `${lowest.mac} (${lowest.name})` };
  options.log?.error('no serial, system UUID or MAC address to derive a host id from; using the fallback id shared by all such hosts');
  return { hostId: FAILURE_HOST_ID, source: 'fallback' };
}
