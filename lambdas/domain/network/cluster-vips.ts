/**
 * Upstream's rules for a cluster's API and Ingress VIPs when it is created or updated
 * (internal/cluster/validations/validations.go `validateVIPAddresses`, internal/network
 * machine_network_cidr.go `VerifyVipsFor…LoadBalancer`, and bminventory's update of network
 * parameters), with upstream's reasons. Each function answers the reasons a request is refused for,
 * empty when it is not. Pure.
 *
 * Two of upstream's branches never fire here and are left out: the "Single stack IPv6 is not
 * supported in this setup" checks, because IPv6 support is on (upstream's default), and the
 * non-interactive (kube-api controller) path, because every caller here is interactive.
 */
import { featureSupportLevel } from '../catalogues/feature-support.js';
import {
  calculateMachineNetworkCidr,
  ipInCidr,
  isIpv4Cidr,
  isIpv6Cidr,
  verifyVipInMachineNetwork,
  type MachineNetworkHost,
  type VipCheck,
} from './machine-network.js';
import { isBelow } from '../core/ocp-version.js';
import { ipFamily } from '../../../contracts/input-checks.js';

/** The cluster as the VIP rules see it: the request's values, or the stored ones where upstream takes those. */
export interface VipConfiguration {
  apiVips: readonly string[];
  ingressVips: readonly string[];
  machineNetworks: readonly string[];
  serviceNetworks: readonly string[];
  clusterNetworks: readonly string[];
  /** As upstream's check takes it: only when the request says true. */
  userManagedNetworking: boolean;
  vipDhcpAllocation: boolean;
  userManagedLoadBalancer: boolean;
  openshiftVersion: string;
  cpuArchitecture: string;
}

/** OpenShift accepts IPv6-primary dual-stack from this version on (upstream's MinimalVersionForIPV6PrimaryWithDualStack). */
const IPV6_PRIMARY_DUAL_STACK_VERSION = '4.12';

const isIpv4 = (address: string) => ipFamily(address) === 4;
const isIpv6 = (address: string) => ipFamily(address) === 6;

/** More than one VIP of a kind is dual-stack, which some releases lack (feature DUAL_STACK_VIPS). */
export function dualStackVipsProblem(
  requestedApiVips: number,
  requestedIngressVips: number,
  openshiftVersion: string,
  cpuArchitecture: string,
): string | undefined {
  if (requestedApiVips <= 1 && requestedIngressVips <= 1) return undefined;
  const { level } = featureSupportLevel('DUAL_STACK_VIPS', { openshiftVersion, cpuArchitecture });
  return level === 'unavailable' ? `dual-stack VIPs are not supported in OpenShift ${openshiftVersion}` : undefined;
}

function vipAddressProblem(ip: string, kind: 'API' | 'Ingress', index: number): string | undefined {
  if (ip === '') return `${kind} VIP IP at index ${index} cannot be empty`;
  if (!ipFamily(ip)) return `Could not parse VIP ip ${ip}`;
  return undefined;
}

/** Every VIP given is an address (upstream's VerifyParsableVIPs). */
export function parsableVipProblems(apiVips: readonly string[], ingressVips: readonly string[]): string[] {
  return [
    ...apiVips.map((ip, index) => vipAddressProblem(ip, 'API', index)),
    ...ingressVips.map((ip, index) => vipAddressProblem(ip, 'Ingress', index)),
  ].filter((problem): problem is string => !!problem);
}

/** At most two of each kind, parsable, as many API VIPs as Ingress VIPs (upstream's validateIPAddressesInput). */
function vipInputProblems(apiVips: readonly string[], ingressVips: readonly string[]): string[] {
  const problems: string[] = [];
  if (apiVips.length > 2) problems.push(`apiVIPs supports 2 vips. got: ${apiVips.length}`);
  else problems.push(...parsableVipProblems(apiVips, []));
  if (ingressVips.length > 2) problems.push(`ingressVips supports 2 vips. got: ${ingressVips.length}`);
  else problems.push(...parsableVipProblems([], ingressVips));
  if (apiVips.length !== ingressVips.length) {
    problems.push(`configuration must include the same number of apiVIPs (got ${apiVips.length}) and ingressVIPs (got ${ingressVips.length})`);
  }
  return problems;
}

/**
 * No address twice in a list, nor in both lists unless the load balancer is the user's, which may
 * serve both on one address (upstream's ValidateNoVIPAddressesDuplicates).
 */
export function duplicateVipProblems(apiVips: readonly string[], ingressVips: readonly string[], allowCommonVip: boolean): string[] {
  const problems: string[] = [];
  const seenApi = new Set<string>();
  for (const ip of apiVips) {
    if (ip === '') continue;
    if (seenApi.has(ip)) problems.push(`The IP address "${ip}" appears multiple times in apiVIPs`);
    seenApi.add(ip);
  }
  const seenIngress = new Set<string>();
  for (const ip of ingressVips) {
    if (ip === '') continue;
    if (seenIngress.has(ip)) problems.push(`The IP address "${ip}" appears multiple times in ingressVIPs`);
    seenIngress.add(ip);
    if (!allowCommonVip && seenApi.has(ip)) problems.push(`The IP address "${ip}" appears both in apiVIPs and ingressVIPs`);
  }
  return problems;
}

/**
 * Two items of a dual-stack list are one of each family; before OpenShift 4.12 IPv4 comes first
 * (upstream's ValidateDualStackOrder).
 */
export function dualStackOrderProblem(
  items: readonly string[],
  itemType: string,
  itemUnit: 'address' | 'subnet',
  openshiftVersion: string,
): string | undefined {
  const [v4, v6] = itemUnit === 'address' ? [isIpv4, isIpv6] : [isIpv4Cidr, isIpv6Cidr];
  if (items.length !== 2) return `Expected 2 ${itemType}, found ${items.length}`;
  if (!isBelow(openshiftVersion, IPV6_PRIMARY_DUAL_STACK_VERSION)) {
    if (!items.some(v4)) return `dual-stack ${itemType} must include exactly one IPv4 ${itemUnit}`;
    if (!items.some(v6)) return `dual-stack ${itemType} must include exactly one IPv6 ${itemUnit}`;
    return undefined;
  }
  if (!v4(items[0]!)) return `First ${itemType} has to be IPv4 ${itemUnit} (IPv6-primary dual-stack requires OpenShift 4.12+), got ${items[0]}`;
  if (!v6(items[1]!)) return `Second ${itemType} has to be IPv6 ${itemUnit}, got ${items[1]}`;
  return undefined;
}

const hasBothFamilies = (cidrs: readonly string[]) => cidrs.some(isIpv4Cidr) && cidrs.some(isIpv6Cidr);

/** Upstream's CheckIfClusterIsDualStack: any of the three network lists holds both families. */
export function isDualStack(configuration: Pick<VipConfiguration, 'machineNetworks' | 'serviceNetworks' | 'clusterNetworks'>): boolean {
  return [configuration.machineNetworks, configuration.serviceNetworks, configuration.clusterNetworks].some(hasBothFamilies);
}

/**
 * A dual-stack cluster names each of its network lists as one network of each family; a
 * single-stack cluster with a cluster-managed load balancer has one machine network (upstream's
 * ValidateDualStackNetworks). A list left empty is not checked.
 */
export function machineNetworkStackProblem(
  configuration: Pick<VipConfiguration, 'machineNetworks' | 'serviceNetworks' | 'clusterNetworks' | 'userManagedLoadBalancer' | 'openshiftVersion'>,
): string | undefined {
  if (isDualStack(configuration)) {
    const lists = [
      [configuration.machineNetworks, 'machine networks'],
      [configuration.serviceNetworks, 'service networks'],
      [configuration.clusterNetworks, 'cluster networks'],
    ] as const;
    for (const [networks, itemType] of lists) {
      if (networks.length === 0) continue;
      const problem = dualStackOrderProblem(networks, itemType, 'subnet', configuration.openshiftVersion);
      if (problem) return problem;
    }
    return undefined;
  }
  if (configuration.machineNetworks.length > 1 && !configuration.userManagedLoadBalancer)
    return 'Single-stack cluster cannot contain multiple Machine Networks';
  return undefined;
}

/** The refusals of a user-managed-networking cluster, in upstream's words (ValidateVIPsWereNotSetUserManagedNetworking). */
export function userManagedNetworkingVipProblem(apiVips: readonly string[], ingressVips: readonly string[], vipDhcpAllocation: boolean): string | undefined {
  if (vipDhcpAllocation) return 'VIP DHCP Allocation cannot be set with User Managed Networking';
  if (apiVips.length > 0) return 'API VIPs cannot be set with User Managed Networking';
  if (ingressVips.length > 0) return 'Ingress VIPs cannot be set with User Managed Networking';
  return undefined;
}

/** A cluster whose VIPs come from DHCP takes none from the user (ValidateVIPsWereNotSetDhcpMode). */
export function dhcpModeVipProblem(apiVips: readonly string[], ingressVips: readonly string[]): string | undefined {
  if (apiVips.length > 0) return 'Setting API VIPs is forbidden when cluster is in vip-dhcp-allocation mode';
  if (ingressVips.length > 0) return 'Setting Ingress VIPs is forbidden when cluster is in vip-dhcp-allocation mode';
  return undefined;
}

/**
 * A cluster-managed load balancer's VIP pair in one machine network (upstream's
 * VerifyVipsForClusterManagedLoadBalancer): inside it, not its broadcast address, free on the hosts
 * that scanned it, and not one address for both. Only a failed check refuses: a VIP nobody could
 * check yet (no machine network, no scan) is left to the cluster's api/ingress-vips-valid
 * validations, which require it to succeed.
 */
export function clusterManagedVipPairProblem(
  hosts: readonly MachineNetworkHost[],
  machineNetwork: string,
  apiVip: string,
  ingressVip: string,
): string | undefined {
  let { check, reason } = verifyVipInMachineNetwork(hosts, machineNetwork, apiVip, 'api-vip', undefined, true);
  if (check !== 'failed') ({ check, reason } = verifyVipInMachineNetwork(hosts, machineNetwork, ingressVip, 'ingress-vip', undefined, true));
  if (check !== 'failed') return duplicateVipProblems([apiVip], [ingressVip], false)[0];
  return reason;
}

/** One VIP against a list of machine networks: any one of them will do (upstream's VerifyVipWithMachineNetworkList). */
function verifyVipInAnyMachineNetwork(machineNetworks: readonly string[], vip: string, vipName: string): { check: VipCheck; reason?: string } {
  if (machineNetworks.length === 0) return { check: 'failed', reason: `no machine networks to verify VIP: ${vip} with` };
  let result: VipCheck = 'failed';
  const reasons: string[] = [];
  for (const network of machineNetworks) {
    const { check, reason } = verifyVipInMachineNetwork([], network, vip, vipName, undefined, false);
    if (check === 'succeeded') return { check };
    if (check === 'unverified') result = 'unverified';
    if (reason) reasons.push(`machine network CIDR <${network}> verification failed: ${reason}`);
  }
  return {
    check: result,
    reason: `${vipName} '${vip}' failed verification: none of the machine networks is satisfying the requirements, description: ${reasons.join('; ')}`,
  };
}

/**
 * A user-managed load balancer's VIPs: each inside one of the machine networks, whether free being
 * the load balancer's business, and one address may serve both (upstream's
 * VerifyVipsForUserManangedLoadBalancer).
 */
export function userManagedVipPairProblem(machineNetworks: readonly string[], apiVip: string, ingressVip: string): string | undefined {
  let { check, reason } = verifyVipInAnyMachineNetwork(machineNetworks, apiVip, 'api-vip');
  if (check !== 'failed') ({ check, reason } = verifyVipInAnyMachineNetwork(machineNetworks, ingressVip, 'ingress-vip'));
  if (check !== 'failed') return duplicateVipProblems([apiVip], [ingressVip], true)[0];
  return reason;
}

/**
 * The checks a create, and the first pass of an update, make of the VIPs and networks together
 * (upstream's validateVIPAddresses), without looking at hosts: a VIP is placed against the machine
 * network at its index, and whether it is free is not known yet.
 */
export function vipConfigurationProblems(configuration: VipConfiguration): string[] {
  const { apiVips, ingressVips, machineNetworks, openshiftVersion } = configuration;
  const input = vipInputProblems(apiVips, ingressVips);
  if (input.length > 0) return input;
  const duplicates = duplicateVipProblems(apiVips, ingressVips, configuration.userManagedLoadBalancer);
  if (duplicates.length > 0) return duplicates;
  for (const [vips, itemType] of [
    [apiVips, 'apiVIPs'],
    [ingressVips, 'ingressVips'],
  ] as const) {
    if (vips.length !== 2) continue;
    const order = dualStackOrderProblem(vips, itemType, 'address', openshiftVersion);
    if (order) return [order];
  }
  const stack = machineNetworkStackProblem(configuration);
  if (stack) return [stack];
  if (configuration.userManagedNetworking) {
    const umn = userManagedNetworkingVipProblem(apiVips, ingressVips, configuration.vipDhcpAllocation);
    if (umn) return [umn];
  }
  if (configuration.vipDhcpAllocation) {
    const dhcp = dhcpModeVipProblem(apiVips, ingressVips);
    return dhcp ? [dhcp] : [];
  }
  if (configuration.userManagedLoadBalancer) {
    if (machineNetworks.length === 0 || apiVips.length === 0 || ingressVips.length === 0) return [];
    const problem = userManagedVipPairProblem(machineNetworks, apiVips[0]!, ingressVips[0]!);
    return problem ? [problem] : [];
  }
  if (machineNetworks.length === 0) {
    return isDualStack(configuration) ? ['Dual-stack cluster cannot be created with empty Machine Networks'] : [];
  }
  return apiVips
    .map((apiVip, index) => clusterManagedVipPairProblem([], machineNetworks[index] ?? '', apiVip, ingressVips[index]!))
    .filter((problem): problem is string => !!problem);
}

/** What an update of a cluster-managed, non-DHCP cluster's VIPs leads to: the machine networks to store. */
export interface VipUpdatePlan {
  machineNetworks: readonly string[];
}

export interface VipUpdateRequest {
  /** The cluster after the request: VIPs, networks and load balancer as they will be. */
  target: VipConfiguration;
  /** Whether the request carries api_vips or ingress_vips (an empty list counts: it clears them). */
  setsVips: boolean;
  /** The machine networks the request carries, if any. */
  requestedMachineNetworks: readonly string[] | undefined;
  /** The stored machine networks, before the request. */
  storedMachineNetworks: readonly string[];
  hosts: readonly MachineNetworkHost[];
}

/**
 * The second pass of an update of a cluster with cluster-managed networking and no DHCP (upstream's
 * updateNonDhcpNetworkParams): the machine network of a single-stack cluster-managed load balancer
 * is calculated from the VIP and the hosts' interfaces, never set by hand; a dual-stack cluster
 * names its machine networks; the VIPs are then checked against the hosts' free-address scans.
 * Answers the machine networks to store, or the reason the update is refused.
 */
export function planVipUpdate(request: VipUpdateRequest): VipUpdatePlan | { problem: string } {
  const { target, hosts } = request;
  const dualStack = isDualStack(target);
  const requested = request.requestedMachineNetworks;
  if (requested && requested.length > 0 && !dualStack && !target.userManagedLoadBalancer) {
    return {
      problem: 'Setting the Machine Network CIDR is forbidden when the cluster is neither in VIP DHCP allocation mode nor using a user-managed load balancer',
    };
  }
  const parsable = parsableVipProblems(target.apiVips, target.ingressVips);
  if (parsable.length > 0) return { problem: parsable.join('; ') };
  const duplicates = duplicateVipProblems(target.apiVips, target.ingressVips, target.userManagedLoadBalancer);
  if (duplicates.length > 0) return { problem: duplicates.join('; ') };
  if (!request.setsVips) return { machineNetworks: target.machineNetworks };

  const apiVip = target.apiVips[0] ?? '';
  const ingressVip = target.ingressVips[0] ?? '';
  if (dualStack) {
    const primary = requested?.[0] ?? request.storedMachineNetworks[0] ?? '';
    const order = dualStackOrderProblem(target.machineNetworks, 'machine networks', 'subnet', target.openshiftVersion);
    if (order) return { problem: order };
    // The order check above has made sure there are two.
    const secondary = target.machineNetworks[1]!;
    const first = clusterManagedVipPairProblem(hosts, primary, apiVip, ingressVip);
    if (first) return { problem: first };
    if (target.apiVips.length === 2 && target.ingressVips.length === 2) {
      const second = clusterManagedVipPairProblem(hosts, secondary, target.apiVips[1]!, target.ingressVips[1]!);
      if (second) return { problem: second };
    }
    return { machineNetworks: target.machineNetworks };
  }
  if (target.userManagedLoadBalancer) {
    const problem = userManagedVipPairProblem(target.machineNetworks, apiVip, ingressVip);
    return problem ? { problem } : { machineNetworks: target.machineNetworks };
  }
  let machineNetworks = target.machineNetworks;
  const vip = apiVip || ingressVip;
  let calculated = '';
  if (vip) {
    if (!ipFamily(vip)) return { problem: `Calculate machine network CIDR: Could not parse VIP ip ${vip}` };
    calculated = calculateMachineNetworkCidr(hosts, apiVip || undefined, ingressVip || undefined) ?? '';
    // Before any host has reported, there is nothing to calculate from. Upstream's ZTP controllers
    // update without this calculation (its non-interactive path) and keep the machine network the
    // cluster was created with; ZTP manifests reach this service through this API, so a VIP inside
    // that stored network is kept the same way, and the cluster validations check it once hosts come.
    const stored = target.machineNetworks[0];
    if (!calculated && stored && !hosts.some((host) => host.inventory) && ipInCidr(vip, stored)) calculated = stored;
    if (!calculated) return { problem: `Calculate machine network CIDR: No suitable matching CIDR found for VIP ${vip}` };
    machineNetworks = [calculated];
  }
  const problem = clusterManagedVipPairProblem(hosts, calculated, apiVip, ingressVip);
  return problem ? { problem } : { machineNetworks };
}
