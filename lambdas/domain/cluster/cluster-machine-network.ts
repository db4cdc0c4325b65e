/**
 * The machine networks upstream's cluster monitor derives before each judgement while the cluster
 * is pending-for-input or insufficient.
 * - A multi-node cluster whose networks are not user-managed: from each VIP family's API and
 *   ingress VIPs and the hosts' interfaces. The derived networks replace the stored ones whenever
 *   they differ, so a single-stack network given at creation gives way until hosts on it are
 *   discovered; only a dual-stack cluster keeps its networks while none can be derived.
 * - A single-node cluster (no VIPs): from the networks its host's interfaces are on, once and only
 *   while it has no machine network (see derivedSingleNodeMachineNetworks).
 * Pure.
 */
import { calculateMachineNetworkCidr, cidrNetworkText, ipInCidr, isIpv4Cidr, isIpv6Cidr, type MachineNetworkHost } from '../network/machine-network.js';
import { parseCidr } from '../../../contracts/input-checks.js';
import { isJsonObject } from '../../../contracts/json-shapes.js';
import type { ClusterAttributes } from '../core/entities.js';

const DERIVING_STATES: ReadonlySet<string> = new Set(['pending-for-input', 'insufficient']);

/** The CIDRs of a stored network list (machine, service or cluster networks), skipping entries without one. */
export const cidrsOf = (networks: unknown): string[] =>
  (Array.isArray(networks) ? networks : [])
    .map((network) => (network as { cidr?: unknown })?.cidr)
    .filter((cidr): cidr is string => typeof cidr === 'string' && cidr !== '');

/** Any of the machine, service or cluster networks holds both address families (upstream's CheckIfClusterIsDualStack). */
export function isDualStack(attributes: ClusterAttributes): boolean {
  return [attributes.machine_networks, attributes.service_networks, attributes.cluster_networks].some((networks) => {
    const cidrs = cidrsOf(networks);
    return cidrs.some(isIpv6Cidr) && cidrs.some(isIpv4Cidr);
  });
}

/** The machine networks to store instead of the current ones, or undefined to keep them. */
export function derivedMachineNetworks(status: string, attributes: ClusterAttributes, hosts: readonly MachineNetworkHost[]): string[] | undefined {
  if (!DERIVING_STATES.has(status)) return undefined;
  if (attributes.vip_dhcp_allocation === true) return undefined;
  if (attributes.control_plane_count === 1) return derivedSingleNodeMachineNetworks(attributes, hosts);
  if (attributes.user_managed_networking === true) return undefined;
  // With a user-managed load balancer the VIPs may lie outside the hosts' networks.
  if (attributes.load_balancer?.type === 'user-managed') return undefined;
  const vipOf = (vips: unknown, index: number): string | undefined =>
    (Array.isArray(vips) ? (vips[index] as { ip?: string } | undefined)?.ip : undefined) || undefined;
  const derive = (index: number) => calculateMachineNetworkCidr(hosts, vipOf(attributes.api_vips, index), vipOf(attributes.ingress_vips, index)) ?? '';
  const primary = derive(0);
  if (primary === '' && isDualStack(attributes)) return undefined;
  const secondary = derive(1);
  const [current0 = '', current1 = ''] = cidrsOf(attributes.machine_networks);
  if (primary === current0 && (secondary === '' || secondary === current1)) return undefined;
  return [primary, secondary].filter((cidr) => cidr !== '');
}

type Family = 4 | 6;
const familyOf = (cidr: string): Family => (cidr.includes(':') ? 6 : 4);

/** The parsed inventory of a host; undefined when absent or not a JSON object. */
function inventoryOf(host: MachineNetworkHost): Record<string, unknown> | undefined {
  if (!host.inventory) return undefined;
  try {
    const inventory: unknown = JSON.parse(host.inventory);
    return isJsonObject(inventory) ? inventory : undefined;
  } catch {
    return undefined;
  }
}

/** Every network any host has an interface address on, by family, first seen first. */
function inventoryNetworksByFamily(hosts: readonly MachineNetworkHost[]): Map<Family, string[]> {
  const byFamily = new Map<Family, string[]>();
  for (const host of hosts) {
    const interfaces = inventoryOf(host)?.interfaces;
    for (const nic of (Array.isArray(interfaces) ? interfaces : []).filter(isJsonObject)) {
      for (const address of [nic.ipv4_addresses, nic.ipv6_addresses].flatMap((list) => (Array.isArray(list) ? list : []))) {
        const cidr = typeof address === 'string' ? parseCidr(address) : undefined;
        if (!cidr) continue;
        const network = cidrNetworkText(cidr);
        const networks = byFamily.get(cidr.family) ?? [];
        if (!networks.includes(network)) networks.push(network);
        byFamily.set(cidr.family, networks);
      }
    }
  }
  return byFamily;
}

/**
 * The network of `family` holding the gateway of the host's lowest-metric default route of that
 * family (a route to 0.0.0.0 or :: through a real gateway); the first of equal metrics wins.
 */
function defaultRouteNetwork(host: MachineNetworkHost | undefined, family: Family, networks: readonly string[]): string | undefined {
  const routes = host ? inventoryOf(host)?.routes : undefined;
  let best: { gateway: string; metric: number } | undefined;
  for (const route of (Array.isArray(routes) ? routes : []).filter(isJsonObject)) {
    const { gateway, destination } = route;
    if (typeof gateway !== 'string' || typeof destination !== 'string') continue;
    const isDefault = (destination === '0.0.0.0' || destination === '::') && gateway !== '0.0.0.0' && gateway !== '::';
    if (!isDefault || familyOf(gateway) !== family) continue;
    const metric = typeof route.metric === 'number' ? route.metric : 0;
    if (!best || metric < best.metric) best = { gateway, metric };
  }
  return best ? networks.find((network) => ipInCidr(best.gateway, network)) : undefined;
}

/** The distinct address families of some CIDRs, IPv4 first. */
const distinctFamilies = (cidrs: readonly string[]): Family[] => [...new Set(cidrs.map(familyOf))].sort();

/**
 * A single-node cluster's machine networks, derived only while it has none (upstream's
 * tryAssignMachineCidrSNO): when its cluster and service networks have the same address families
 * (a family listed twice among the service networks counts as a mismatch, as upstream compares
 * them), one network per family, in IPv4-then-IPv6 order: the only network the hosts have
 * addresses on in that family, or, among several, the one holding the first host's default
 * route gateway. Nothing when some family has no network or no such gateway.
 */
export function derivedSingleNodeMachineNetworks(attributes: ClusterAttributes, hosts: readonly MachineNetworkHost[]): string[] | undefined {
  if (cidrsOf(attributes.machine_networks).length > 0) return undefined;
  const clusterFamilies = distinctFamilies(cidrsOf(attributes.cluster_networks));
  const serviceFamilies = cidrsOf(attributes.service_networks).map(familyOf).sort();
  if (clusterFamilies.join() !== serviceFamilies.join()) return undefined;
  const networksByFamily = inventoryNetworksByFamily(hosts);
  const derived: string[] = [];
  for (const family of clusterFamilies) {
    const networks = networksByFamily.get(family) ?? [];
    const network = networks.length === 1 ? networks[0] : defaultRouteNetwork(hosts[0], family, networks);
    if (!network) return undefined;
    derived.push(network);
  }
  return derived.length > 0 ? derived : undefined;
}
