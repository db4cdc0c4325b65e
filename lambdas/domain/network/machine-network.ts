/**
 * The machine network as the hosts see it: the CIDR calculated from a VIP and the hosts'
 * interfaces, CIDR normal forms, and whether a VIP is usable in a machine network (inside it, not
 * its broadcast address, free on every host that scanned it). Pure: hosts come with their stored
 * inventory and free-network-addresses reply (JSON text).
 */
import { Address4, Address6 } from 'ip-address';
import { contains, parseCidr, type Cidr } from '../../../contracts/input-checks.js';
import { isJsonObject } from '../../../contracts/json-shapes.js';

/** What the machine-network functions read of a host. */
export interface MachineNetworkHost {
  inventory?: string;
  /** The free-network-addresses reply: [{ network, free_addresses: [ip, …] }]. */
  freeAddresses?: string;
}

/** A host's stored reply, parsed; each field is still to be checked. Undefined when absent or not JSON. */
function parseJson(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The strings of a parsed JSON list; none when it is not one. */
function stringsIn(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function ipToBigInt(address: string): { family: 4 | 6; value: bigint } | undefined {
  if (address.includes('/')) return undefined;
  if (Address4.isValid(address)) return { family: 4, value: new Address4(address).bigInt() };
  if (Address6.isValid(address)) return { family: 6, value: new Address6(address).bigInt() };
  return undefined;
}

/** The network of a parsed CIDR in canonical form ("192.168.1.0/24", "fd00:1::/64"), as Go prints an IPNet. */
export function cidrNetworkText(cidr: Cidr): string {
  const address = cidr.family === 4 ? Address4.fromBigInt(cidr.start).correctForm() : Address6.fromBigInt(cidr.start).correctForm();
  return `${address}/${cidr.prefix}`;
}

/** A CIDR with its host bits cleared ("192.168.1.10/24" → "192.168.1.0/24"); undefined if it is not a CIDR. */
export function normalizeCidr(text: string): string | undefined {
  const cidr = parseCidr(text);
  return cidr ? cidrNetworkText(cidr) : undefined;
}

export const isIpv4Cidr = (text: string): boolean => parseCidr(text)?.family === 4;
export const isIpv6Cidr = (text: string): boolean => parseCidr(text)?.family === 6;

/**
 * The machine network CIDR implied by a VIP (the API VIP, else the ingress VIP): the network of
 * the host interface addresses that contain it. Upstream takes the first host's match; when the
 * hosts disagree (a mistyped prefix on one of them) the network most hosts report wins here, the
 * first seen among equals, so one odd host cannot decide the cluster's network. Undefined when
 * no VIP is given or no interface contains it.
 */
export function calculateMachineNetworkCidr(hosts: readonly MachineNetworkHost[], apiVip: string | undefined, ingressVip?: string): string | undefined {
  const vip = apiVip || ingressVip;
  if (!vip) return undefined;
  const family = ipToBigInt(vip)?.family;
  if (!family) return undefined;
  const votes = new Map<string, number>();
  for (const host of hosts) {
    const inventory = parseJson(host.inventory);
    const interfaces: unknown[] = isJsonObject(inventory) && Array.isArray(inventory.interfaces) ? inventory.interfaces : [];
    const networks = new Set<string>();
    for (const nic of interfaces.filter(isJsonObject)) {
      const addresses = family === 4 ? nic.ipv4_addresses : nic.ipv6_addresses;
      for (const address of stringsIn(addresses)) {
        const cidr = parseCidr(address);
        if (cidr && contains(cidr, vip)) networks.add(cidrNetworkText(cidr));
      }
    }
    // Each host votes once per network, however many of its interfaces sit in it.
    for (const network of networks) votes.set(network, (votes.get(network) ?? 0) + 1);
  }
  let best: string | undefined;
  for (const [network, count] of votes) if (best === undefined || count > votes.get(best)!) best = network;
  return best;
}

/** Whether the address is in the CIDR (false for anything unparsable). */
export function ipInCidr(address: string, cidrText: string): boolean {
  const cidr = parseCidr(cidrText);
  return !!cidr && contains(cidr, address);
}

/** IPv4 only: IPv6 has no broadcast address. */
export function isBroadcastAddress(address: string, cidrText: string): boolean {
  const cidr = parseCidr(cidrText);
  const ip = ipToBigInt(address);
  return !!cidr && !!ip && ip.family === 4 && cidr.family === 4 && ip.value === cidr.end;
}

/**
 * Whether the machine network holds every host plus the network, broadcast and two VIP
 * addresses (a single node needs 2 addresses). Used only to explain a VIP that is in use.
 */
export function isMachineNetworkBigEnough(hostCount: number, cidrText: string): boolean {
  const cidr = parseCidr(cidrText);
  if (!cidr) return true;
  const bits = cidr.family === 4 ? 32 : 128;
  if (hostCount === 1) return cidr.prefix <= bits - 1;
  return (1n << BigInt(bits - cidr.prefix)) - BigInt(hostCount) - 4n >= 0n;
}

/**
 * The addresses of `network` that every host which scanned it reported free. Empty when no host
 * scanned it yet.
 */
export function freeAddressesIn(hosts: readonly MachineNetworkHost[], network: string): Set<string> {
  const sets: Set<string>[] = [];
  for (const host of hosts) {
    const reply = parseJson(host.freeAddresses);
    if (!Array.isArray(reply)) continue;
    const entries: unknown[] = reply;
    const entry = entries.filter(isJsonObject).find((candidate) => candidate.network === network);
    if (entry) sets.push(new Set(stringsIn(entry.free_addresses)));
  }
  const [first, ...rest] = sets;
  if (!first) return new Set();
  return new Set([...first].filter((address) => rest.every((set) => set.has(address))));
}

export type VipCheck = 'succeeded' | 'failed' | 'unverified';

/**
 * Whether a VIP is free (upstream's VerifyVipFree): an agent's verify-vips verdict wins; otherwise
 * the free-address scans decide, and without any scan of the network it stays unverified.
 */
export function vipFreeCheck(hosts: readonly MachineNetworkHost[], vip: string, machineNetwork: string, verification: string | undefined): VipCheck {
  if (verification === 'succeeded' || verification === 'failed') return verification;
  const free = freeAddressesIn(hosts, machineNetwork);
  if (free.size === 0) return 'unverified';
  return free.has(vip) ? 'succeeded' : 'failed';
}

/**
 * One VIP against one machine network (upstream's VerifyVipWithSingleMachineNetwork): the verdict
 * and, unless it succeeded, why.
 */
export function verifyVipInMachineNetwork(
  hosts: readonly MachineNetworkHost[],
  machineNetwork: string,
  vip: string,
  vipName: string,
  verification: string | undefined,
  checkFree: boolean,
): { check: VipCheck; reason?: string } {
  if (!machineNetwork) return { check: 'unverified', reason: `${vipName} <${vip}> cannot be set if Machine Network CIDR is empty` };
  if (!ipInCidr(vip, machineNetwork)) return { check: 'failed', reason: `${vipName} <${vip}> does not belong to machine-network-cidr <${machineNetwork}>` };
  if (isBroadcastAddress(vip, machineNetwork)) {
    return { check: 'failed', reason: `${vipName} <${vip}> is the broadcast address of machine-network-cidr <${machineNetwork}>` };
  }
  if (!checkFree) return { check: 'succeeded' };
  const check = vipFreeCheck(hosts, vip, machineNetwork, verification);
  if (check === 'succeeded') return { check };
  if (check === 'unverified') return { check, reason: `${vipName} <${vip}> are not verified yet.` };
  let reason = `${vipName} <${vip}> is already in use in cidr ${machineNetwork}`;
  if (!isMachineNetworkBigEnough(hosts.length, machineNetwork))
    reason += '. The machine network range is too small for the cluster. Please redefine the network.';
  return { check, reason };
}
