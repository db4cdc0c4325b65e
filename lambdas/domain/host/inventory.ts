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

/** The stored disk speed result of the host's installation disk, if it was measured. */
export function storedDiskSpeed(attributes: Record<string, unknown>, alsoUnder: readonly (string | undefined)[] = []): StoredDiskSpeed | undefined {
  let disks: Record<string, { disk_speed?: StoredDiskSpeed }> | null | undefined;
  try {
    disks = parseStoredJson(attributes, 'disks_info') as typeof disks;
  } catch {
    return undefined;
  }
  for (const key of [attributes.installation_disk_id, attributes.installation_disk_path, ...alsoUnder]) {
    if (typeof key === 'string' && disks?.[key]?.disk_speed) return disks[key]!.disk_speed;
  }
  return undefined;
}
