/**
 * One simulated host's identity (host id, MACs, address, hostname, serials) and the inventory it
 * reports: the profile's hardware with this identity, and a system vendor that says "Simulated" so
 * the service and its users can tell.
 */
import { createHash } from 'node:crypto';
import { md5Uuid } from '../host-id.js';
import type { FleetNetwork } from './network.js';
import type { SimulationProfile } from './profile.js';
import { readInventory, type Inventory } from '../../../contracts/step-replies.js';

export interface SimulatedIdentity {
  readonly index: number;
  readonly hostId: string;
  readonly hostname: string;
  readonly macs: readonly string[];
  readonly address: string;
  readonly profile: SimulationProfile;
}

const hex = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Deterministic from the fleet seed and the host's index: the same fleet started again is the same
 * machines (the service sees them re-register, not new hosts).
 */
export function simulatedIdentity(options: {
  seed: string;
  index: number;
  hostname: string;
  profile: SimulationProfile;
  network: FleetNetwork;
  hostId?: string;
}): SimulatedIdentity {
  const { seed, index, profile, network } = options;
  const seedByte = hex(seed).slice(0, 2);
  const indexBytes = [(index >> 16) & 255, (index >> 8) & 255, index & 255].map((b) => b.toString(16).padStart(2, '0'));
  // 02: locally administered, unicast; byte 3 numbers the host's NICs.
  const macs = profile.inventory.interfaces.map((_, nic) => ['02', seedByte, nic.toString(16).padStart(2, '0'), ...indexBytes].join(':'));
  return {
    index,
    hostId: options.hostId ?? md5Uuid(`${seed}/simulated-host/${index}`),
    hostname: options.hostname,
    macs,
    address: network.addressOf(index),
    profile,
  };
}

export function simulatedInventory(identity: SimulatedIdentity, network: FleetNetwork): Inventory {
  const { profile } = identity;
  // The profile's inventory, read as the service reads one: what it says of the hardware keeps its type.
  const source = { interfaces: [], disks: [], ...readInventory(profile.inventory) };
  const interfaces = source.interfaces.map((nic, i) => ({
    ...nic,
    mac_address: identity.macs[i],
    ipv4_addresses: i === 0 ? [`${identity.address}/${network.prefixLength}`] : [],
    ipv6_addresses: [],
  }));
  const primary = profile.inventory.interfaces[0]!.name;
  const disks = source.disks.map((disk, i) => {
    const digest = hex(`${identity.hostId}/disk/${i}`);
    const optical = disk.drive_type === 'ODD';
    const wwn = optical ? undefined : `0x5000c500${digest.slice(0, 8)}`;
    const byId = wwn ? `/dev/disk/by-id/wwn-${wwn}` : '';
    const byPath = disk.by_path ?? '';
    return {
      ...disk,
      id: byId || byPath || `/dev/${disk.name}`,
      path: `/dev/${disk.name}`,
      by_id: byId,
      by_path: byPath,
      serial: `SIM${digest.slice(8, 20).toUpperCase()}`,
      ...(wwn ? { wwn } : {}),
    };
  });
  const [networkAddress] = network.cidr.split('/');
  return {
    ...source,
    hostname: identity.hostname,
    interfaces,
    disks,
    routes: [
      { interface: primary, gateway: network.gateway, destination: '0.0.0.0', family: 2, metric: 100 },
      { interface: primary, destination: networkAddress, family: 2, metric: 100 },
    ],
    system_vendor: {
      manufacturer: 'Simulated',
      product_name: `Simulated host (profile ${profile.name})`,
      serial_number: `SIM-${identity.hostId.slice(0, 8)}`,
      virtual: true,
    },
  };
}
