/**
 * The cluster's `host_networks`: each network the hosts' interfaces are on, with the hosts on it
 * (upstream computes it on every read; the console offers these as machine networks).
 */
import { Address4, Address6 } from 'ip-address';
import type { Host } from '../core/entities.js';
import { hostInventory } from '../host/inventory.js';

function networkOf(cidr: string): string | undefined {
  try {
    if (cidr.includes(':')) {
      const address = new Address6(cidr);
      return `${address.startAddress().correctForm()}/${address.subnetMask}`;
    }
    const address = new Address4(cidr);
    return `${address.startAddress().correctForm()}/${address.subnetMask}`;
  } catch {
    return undefined;
  }
}

export function hostNetworks(hosts: readonly Host[]): { cidr: string; host_ids: string[] }[] {
  const byNetwork = new Map<string, Set<string>>();
  for (const host of hosts) {
    for (const nic of hostInventory(host)?.interfaces ?? []) {
      for (const cidr of [...(nic.ipv4_addresses ?? []), ...(nic.ipv6_addresses ?? [])]) {
        const network = networkOf(cidr);
        // Link-local networks are not machine networks.
        if (!network || network.startsWith('fe80:') || network.startsWith('169.254.')) continue;
        (byNetwork.get(network) ?? byNetwork.set(network, new Set()).get(network)!).add(host.hostId);
      }
    }
  }
  return [...byNetwork].sort(([a], [b]) => a.localeCompare(b)).map(([cidr, ids]) => ({ cidr, host_ids: [...ids].sort() }));
}
