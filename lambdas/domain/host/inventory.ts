/**
 * The agent's `inventory` as stored on a host, and the one way of reading it back: parsed once per
 * stored record and read into its wire type (contracts/step-replies.ts); an absent or unreadable
 * inventory reads as none. The validations ask more of it (readInventory in
 * validations/host-validations-model.ts).
 */
import type { Host } from '../core/entities.js';
import { parseStoredJson } from '../core/stored-json.js';
import { readInventory, type Inventory, type InventoryDisk } from '../../../contracts/step-replies.js';

export type { Inventory, InventoryDisk };

/** The stored inventory, undefined when absent or unreadable. */
export function storedInventory(attributes: Readonly<Record<string, unknown>>): Inventory | undefined {
  try {
    return readInventory(parseStoredJson(attributes, 'inventory'));
  } catch {
    return undefined;
  }
}

export function hostInventory(host: Host): Inventory | undefined {
  return storedInventory(host.attributes);
}

export interface StoredDiskSpeed {
  tested?: boolean;
  exit_code?: number;
  speed_ms?: number;
}

/**
 * The stored disk speed result of the host's installation disk, if it was measured. disks_info is
 * keyed by the path the check ran on; the disk is named as upstream's boot device names it: the
 * stored installation disk id, else its path, else (none stored) the first of `alsoUnder` given.
 * A measurement stored under another name of the same disk does not count, as upstream (asked
 * with curl: a reply for /dev/sda leaves a host installing to /dev/disk/by-id/… "not yet measured").
 */
export function storedDiskSpeed(attributes: Record<string, unknown>, alsoUnder: readonly (string | undefined)[] = []): StoredDiskSpeed | undefined {
  let disks: Record<string, { disk_speed?: StoredDiskSpeed }> | null | undefined;
  try {
    disks = parseStoredJson(attributes, 'disks_info') as typeof disks;
  } catch {
    return undefined;
  }
  const named = (key: unknown): key is string => typeof key === 'string' && key !== '';
  const key = [attributes.installation_disk_id, attributes.installation_disk_path, ...alsoUnder].find(named);
  return key === undefined ? undefined : (disks?.[key]?.disk_speed ?? undefined);
}

/**
 * A document as upstream's Go service re-serializes it: its models' scalar fields are `omitempty`
 * (only truncation.type is required, and never empty), so empty strings, false, zero and null are
 * not stored. Lists are not omitempty in its models: an empty list the agent sent stays `[]`.
 * Objects stay, even empty (Go keeps a non-nil struct).
 */
export function withoutGoEmptyValues(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => (item !== null && typeof item === 'object' ? withoutGoEmptyValues(item) : item));
  if (value === null || typeof value !== 'object') return value;
  const kept: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
    if (field === null || field === undefined || field === '' || field === false || field === 0) continue;
    kept[key] = withoutGoEmptyValues(field);
  }
  return kept;
}
