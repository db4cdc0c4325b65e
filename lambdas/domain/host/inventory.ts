/**
 * The parts of the agent's `inventory` report that the protocol and user-side rules read, and the
 * one lenient way of reading it from a host: an absent or unreadable inventory reads as none.
 * (The validations read it stricter, in host-validations-model.ts: they need memory and CPU.)
 */
import type { Host } from '../core/entities.js';
import { parseStoredJson } from '../core/stored-json.js';

export interface InventoryDisk {
  id?: string;
  path?: string;
  name?: string;
  size_bytes?: number;
  drive_type?: string;
  removable?: boolean;
  is_installation_media?: boolean;
  installation_eligibility?: { eligible?: boolean; not_eligible_reasons?: string[] };
}

export interface Inventory {
  hostname?: string;
  interfaces?: { name: string; mac_address: string; ipv4_addresses?: string[]; ipv6_addresses?: string[] }[];
  disks?: InventoryDisk[];
  cpu?: { architecture?: string };
  boot?: { current_boot_mode?: string; device_type?: string };
}

export function hostInventory(host: Host): Inventory | undefined {
  try {
    const inventory = parseStoredJson(host.attributes, 'inventory');
    return inventory && typeof inventory === 'object' && !Array.isArray(inventory) ? (inventory as Inventory) : undefined;
  } catch {
    return undefined;
  }
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
