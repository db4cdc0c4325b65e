/**
 * A cluster's networking as a create or update leaves it: the network lists, the VIPs and the
 * networking modes, with upstream's checks of each (what it refuses at once; sizes, prefixes and
 * overlaps fail the cluster's validations later). Pure.
 */
import { CLUSTER_DEFAULTS } from '../catalogues/catalogues.js';
import { badRequest, refuseIfProblem } from '../core/errors.js';
import type { ClusterAttributes } from '../core/entities.js';
import { isJsonObject } from '../../../contracts/json-shapes.js';
import type { ClusterCreateParams, ClusterUpdateParams } from '../../../contracts/wire.js';
import { parseCidr, type Params } from '../../../contracts/input-checks.js';
import {
  dhcpModeVipProblem,
  dualStackVipsProblem,
  planVipUpdate,
  userManagedNetworkingVipProblem,
  vipConfigurationProblems,
  type VipConfiguration,
} from '../network/cluster-vips.js';
import { normalizeCidr, type MachineNetworkHost } from '../network/machine-network.js';
import {
  clusterCidrSizeProblem,
  clusterOrServiceCidrProblem,
  hostPrefixProblem,
  machineCidrProblem,
  networksOverlapProblem,
  unparsableNetworkProblems,
} from '../network/network-cidrs.js';

interface Network {
  cidr: string;
  host_prefix?: number;
}

function list<T>(value: unknown): T[] | undefined {
  return Array.isArray(value) ? (value as T[]) : undefined;
}

export interface NetworkingContext {
  singleNode: boolean;
  openshiftVersion: string;
  cpuArchitecture: string;
  now: string;
  /** On update: the cluster's hosts, whose interfaces and free-address scans place the VIPs. */
  hosts?: readonly MachineNetworkHost[];
  /** On update: the networking mode the platform rules settled, if the request changes it. */
  userManagedNetworking?: boolean;
}

interface NetworkLists {
  machineNetworks: Network[];
  serviceNetworks: Network[];
  clusterNetworks: Network[];
}

/** The VIPs, machine networks and modes a create or update leads to; stored VIP records are kept as they are when untouched. */
interface VipOutcome {
  apiVipIps: readonly string[];
  ingressVipIps: readonly string[];
  apiVips?: ClusterAttributes['api_vips'];
  ingressVips?: ClusterAttributes['ingress_vips'];
  machineNetworks: readonly string[];
  machineNetworksChanged: boolean;
  userManagedNetworking: boolean;
  vipDhcpAllocation: boolean;
}

const vipIps = (value: unknown): string[] | undefined => list<{ ip?: unknown }>(value)?.map((vip) => (typeof vip?.ip === 'string' ? vip.ip : ''));
const cidrsOf = (networks: readonly Network[]): string[] => networks.map((network) => network.cidr);
const isUserManagedLoadBalancer = (value: unknown): boolean => isJsonObject(value) && value.type === 'user-managed';

/** The configuration upstream's VIP checks look at: the VIPs and networks as they will be, the modes as the request sets them. */
function vipConfiguration(
  vips: { apiVips: readonly string[]; ingressVips: readonly string[] },
  networks: NetworkLists,
  requested: { userManagedNetworking?: boolean; vipDhcpAllocation?: boolean; loadBalancer: unknown },
  context: NetworkingContext,
): VipConfiguration {
  return {
    ...vips,
    machineNetworks: cidrsOf(networks.machineNetworks),
    serviceNetworks: cidrsOf(networks.serviceNetworks),
    clusterNetworks: cidrsOf(networks.clusterNetworks),
    userManagedNetworking: requested.userManagedNetworking === true,
    vipDhcpAllocation: requested.vipDhcpAllocation === true,
    userManagedLoadBalancer: isUserManagedLoadBalancer(requested.loadBalancer),
    openshiftVersion: context.openshiftVersion,
    cpuArchitecture: context.cpuArchitecture,
  };
}

function refuse(problems: readonly (string | undefined)[]): void {
  const reasons = problems.filter((problem): problem is string => !!problem);
  if (reasons.length > 0) throw badRequest(reasons.join('; '));
}

/**
 * Upstream's registration checks of VIPs (ValidateClusterCreateIPAddresses), made with the
 * networking modes as the request sends them: a single node's user-managed networking is set
 * after them, so upstream stores the VIPs a single node sends (and never uses them).
 */
function createdVips(params: Params, networks: NetworkLists, context: NetworkingContext): VipOutcome {
  const apiVips = vipIps(params.api_vips) ?? [];
  const ingressVips = vipIps(params.ingress_vips) ?? [];
  const requestedUmn = params.user_managed_networking as boolean | undefined;
  const requestedDhcp = params.vip_dhcp_allocation as boolean | undefined;
  refuse([dualStackVipsProblem(apiVips.length, ingressVips.length, context.openshiftVersion, context.cpuArchitecture)]);
  refuse(
    vipConfigurationProblems(
      vipConfiguration(
        { apiVips, ingressVips },
        networks,
        { userManagedNetworking: requestedUmn, vipDhcpAllocation: requestedDhcp, loadBalancer: params.load_balancer },
        context,
      ),
    ),
  );
  return {
    apiVipIps: apiVips,
    ingressVipIps: ingressVips,
    machineNetworks: cidrsOf(networks.machineNetworks),
    machineNetworksChanged: networks.machineNetworks.length > 0,
    userManagedNetworking: requestedUmn === true,
    vipDhcpAllocation: requestedDhcp ?? false,
  };
}

/**
 * Upstream's update of VIPs and networks: the request checked with the stored values it leaves
 * (ValidateClusterUpdateVIPAddresses), then applied by mode (updateNetworkParams): user-managed
 * networking drops the VIPs; a change of DHCP mode drops the VIPs and machine networks; DHCP takes
 * no VIPs; otherwise planVipUpdate places them with the hosts.
 */
function updatedVips(
  params: Params,
  current: ClusterAttributes,
  hosts: readonly MachineNetworkHost[],
  networks: NetworkLists,
  context: NetworkingContext,
): VipOutcome {
  const requestedApi = vipIps(params.api_vips);
  const requestedIngress = vipIps(params.ingress_vips);
  const requestedMachineNetworks = list<Network>(params.machine_networks);
  const requestedUmn = params.user_managed_networking as boolean | undefined;
  const requestedDhcp = params.vip_dhcp_allocation as boolean | undefined;
  const storedApi = vipIps(current.api_vips) ?? [];
  const storedIngress = vipIps(current.ingress_vips) ?? [];
  const storedMachineNetworks = cidrsOf(list<Network>(current.machine_networks) ?? []);
  const storedUmn = current.user_managed_networking === true;
  const storedDhcp = current.vip_dhcp_allocation === true;
  const loadBalancer = params.load_balancer ?? current.load_balancer;

  const dhcpModeChanging = requestedDhcp !== undefined && requestedDhcp !== storedDhcp;
  const clearedByDhcpChange = dhcpModeChanging && !requestedApi && !requestedIngress;
  const apiVips = requestedApi ?? (clearedByDhcpChange ? [] : storedApi);
  const ingressVips = requestedIngress ?? (clearedByDhcpChange ? [] : storedIngress);
  refuse([dualStackVipsProblem(requestedApi?.length ?? 0, requestedIngress?.length ?? 0, context.openshiftVersion, context.cpuArchitecture)]);
  if (requestedUmn === true) {
    const dhcp = requestedDhcp ?? storedDhcp;
    const problem = storedDhcp ? userManagedNetworkingVipProblem([], [], dhcp) : userManagedNetworkingVipProblem(apiVips, ingressVips, dhcp);
    // Said the other way round, as upstream does: the request turns user-managed networking on.
    if (problem) {
      const [subject, object] = problem.split(' cannot be set with ');
      throw badRequest(`${object} cannot be set with ${subject}`);
    }
  }
  const target = vipConfiguration(
    { apiVips, ingressVips },
    networks,
    { userManagedNetworking: requestedUmn, vipDhcpAllocation: requestedDhcp, loadBalancer },
    context,
  );
  refuse(vipConfigurationProblems(target));
  if (context.singleNode && requestedUmn === false) throw badRequest('disabling UserManagedNetworking is not allowed in single node mode');

  // As the platform rules settled it (cluster-platform.ts): a platform change may carry it along.
  const userManagedNetworking = context.userManagedNetworking ?? storedUmn;
  // A change of networking mode starts from no machine network, unless the request names one.
  const machineNetworksBase = userManagedNetworking !== storedUmn || (!userManagedNetworking && dhcpModeChanging) ? [] : storedMachineNetworks;
  const machineNetworks = requestedMachineNetworks ? cidrsOf(requestedMachineNetworks) : machineNetworksBase;
  const kept = { apiVips: current.api_vips, ingressVips: current.ingress_vips };
  const outcome = (fields: Partial<VipOutcome> & Pick<VipOutcome, 'vipDhcpAllocation' | 'machineNetworks'>): VipOutcome => ({
    apiVipIps: [],
    ingressVipIps: [],
    userManagedNetworking,
    machineNetworksChanged: fields.machineNetworks.join() !== storedMachineNetworks.join(),
    ...fields,
  });

  if (userManagedNetworking) {
    refuse([userManagedNetworkingVipProblem(requestedApi ?? [], requestedIngress ?? [], requestedDhcp === true)]);
    return outcome({ vipDhcpAllocation: false, machineNetworks });
  }
  const vipDhcpAllocation = requestedDhcp ?? storedDhcp;
  if (vipDhcpAllocation) {
    refuse([dhcpModeVipProblem(requestedApi ?? [], requestedIngress ?? [])]);
    // The VIPs come from the DHCP lease; a change of mode drops the old ones.
    return dhcpModeChanging ? outcome({ vipDhcpAllocation, machineNetworks }) : outcome({ vipDhcpAllocation, machineNetworks, ...kept });
  }
  const plan = planVipUpdate({
    target: { ...target, machineNetworks },
    setsVips: !!requestedApi || !!requestedIngress,
    requestedMachineNetworks: requestedMachineNetworks && cidrsOf(requestedMachineNetworks),
    storedMachineNetworks,
    hosts,
  });
  if ('problem' in plan) throw badRequest(plan.problem);
  const vipsRequested = !!requestedApi || !!requestedIngress || clearedByDhcpChange;
  return outcome({
    vipDhcpAllocation,
    machineNetworks: plan.machineNetworks,
    ...(vipsRequested ? { apiVipIps: apiVips, ingressVipIps: ingressVips } : kept),
  });
}

/** A request's network list with each CIDR in network form, as upstream stores it ("10.128.0.1/14" becomes "10.128.0.0/14"). */
function normalizedNetworks(value: unknown): Network[] | undefined {
  return list<Network>(value)?.map((network) => ({ ...network, cidr: normalizeCidr(network.cidr) ?? network.cidr }));
}

/** The request with its network lists in network form; the deprecated singular network fields dropped, as upstream ignores them. */
export function withNormalizedNetworks<T extends ClusterCreateParams | ClusterUpdateParams>(params: T): T {
  const { cluster_network_cidr: _c, cluster_network_host_prefix: _h, service_network_cidr: _s, machine_network_cidr: _m, ...rest } = params as Params;
  const normalized: Params = { ...rest };
  // The schema lets a network leave out its CIDR; upstream refuses it in these words.
  for (const [label, field] of [
    ['Cluster', 'cluster_networks'],
    ['Service', 'service_networks'],
    ['Machine', 'machine_networks'],
  ] as const) {
    const index = list<Network>(params[field as keyof T])?.findIndex((network) => !network.cidr) ?? -1;
    if (index >= 0) throw badRequest(`${label} Network CIDR cannot be empty (index ${index})`);
  }
  for (const field of ['cluster_networks', 'service_networks', 'machine_networks']) {
    const networks = normalizedNetworks(params[field as keyof T]);
    if (networks) normalized[field] = networks;
  }
  return normalized as T;
}

/**
 * The checks upstream makes of networks an update changes (updateNetworks): sizes, host prefixes,
 * and the networks at each index not overlapping. A create leaves all of these to the cluster's
 * validations.
 */
function changedNetworksProblem(
  requested: { cluster?: Network[]; service?: Network[]; machine?: Network[] },
  stored: NetworkLists,
  result: NetworkLists,
  context: { singleNode: boolean; userManagedLoadBalancer: boolean; userManagedNetworking: boolean; vipDhcpAllocation: boolean; hostCount: number },
): string | undefined {
  const differs = (a: readonly Network[], b: readonly Network[]) =>
    JSON.stringify(a.map((n) => [n.cidr, n.host_prefix ?? null])) !== JSON.stringify(b.map((n) => [n.cidr, n.host_prefix ?? null]));
  if (requested.cluster && differs(requested.cluster, stored.clusterNetworks)) {
    for (const network of requested.cluster) {
      const cidr = clusterOrServiceCidrProblem(network.cidr);
      if (cidr) return `Cluster network CIDR ${network.cidr}: ${cidr}`;
      const prefix = hostPrefixProblem(network.host_prefix);
      if (prefix) return `Cluster network host prefix ${network.host_prefix ?? 0}: ${prefix}`;
      const size = clusterCidrSizeProblem(network.host_prefix!, network.cidr, context.hostCount);
      if (size) return `Cluster CIDR size: ${size}`;
    }
  }
  if (requested.service && differs(requested.service, stored.serviceNetworks)) {
    for (const network of requested.service) {
      const cidr = clusterOrServiceCidrProblem(network.cidr);
      if (cidr) return `Service network CIDR ${network.cidr}: ${cidr}`;
    }
  }
  if (requested.machine && differs(requested.machine, stored.machineNetworks)) {
    for (const network of requested.machine) {
      const cidr = machineCidrProblem(network.cidr, context.singleNode, context.userManagedLoadBalancer);
      if (cidr) return `Machine network CIDR '${network.cidr}': ${cidr}`;
    }
  }
  const firstMachine = requested.machine?.[0]?.cidr;
  if (firstMachine && context.vipDhcpAllocation && parseCidr(firstMachine)?.family === 6) {
    return `VIP DHCP allocation is unsupported with IPv6 network ${result.machineNetworks[0]?.cidr ?? firstMachine}`;
  }
  if (!requested.cluster && !requested.service && !requested.machine) return undefined;
  for (const [index, clusterNetwork] of result.clusterNetworks.entries()) {
    const problem = networksOverlapProblem(
      result.machineNetworks[index]?.cidr ?? '',
      clusterNetwork.cidr,
      result.serviceNetworks[index]?.cidr ?? '',
      context.userManagedNetworking,
    );
    if (problem) return problem;
  }
  return undefined;
}

/**
 * Networking as upstream models it: the plural lists only (upstream's v2 API ignores the
 * deprecated cluster_network_cidr, cluster_network_host_prefix, service_network_cidr and
 * machine_network_cidr of a request, and never fills them). A create parses the networks and
 * checks the VIPs; sizes, host prefixes and overlaps fail the cluster's validations later. An
 * update checks the networks it changes at once.
 */
export function networking(params: Params, clusterId: string, current: ClusterAttributes, context: NetworkingContext): ClusterAttributes {
  const requested = {
    cluster: list<Network>(params.cluster_networks),
    service: list<Network>(params.service_networks),
    machine: list<Network>(params.machine_networks),
  };
  refuse(unparsableNetworkProblems({ machine: requested.machine ?? [], service: requested.service ?? [], cluster: requested.cluster ?? [] }));
  const stored: NetworkLists = {
    clusterNetworks: list<Network>(current.cluster_networks) ?? [
      { cidr: CLUSTER_DEFAULTS.clusterNetworkCidr, host_prefix: CLUSTER_DEFAULTS.clusterNetworkHostPrefix },
    ],
    serviceNetworks: list<Network>(current.service_networks) ?? [{ cidr: CLUSTER_DEFAULTS.serviceNetworkCidr }],
    machineNetworks: list<Network>(current.machine_networks) ?? [],
  };
  const target: NetworkLists = {
    clusterNetworks: requested.cluster ?? stored.clusterNetworks,
    serviceNetworks: requested.service ?? stored.serviceNetworks,
    machineNetworks: requested.machine ?? stored.machineNetworks,
  };

  // Upstream checks a create's VIPs and network shapes before it fills in the default networks:
  // only the lists the request names count there.
  const asRequested: NetworkLists = {
    clusterNetworks: requested.cluster ?? [],
    serviceNetworks: requested.service ?? [],
    machineNetworks: target.machineNetworks,
  };
  const vips = context.hosts ? updatedVips(params, current, context.hosts, target, context) : createdVips(params, asRequested, context);
  const result: NetworkLists = { ...target, machineNetworks: vips.machineNetworks.map((cidr) => ({ cidr })) };
  if (context.hosts) {
    const loadBalancer = params.load_balancer ?? current.load_balancer;
    refuseIfProblem(
      changedNetworksProblem(requested, stored, result, {
        singleNode: context.singleNode,
        userManagedLoadBalancer: isUserManagedLoadBalancer(loadBalancer),
        userManagedNetworking: vips.userManagedNetworking,
        vipDhcpAllocation: vips.vipDhcpAllocation,
        hostCount: context.hosts.length,
      }),
    );
  }

  return {
    cluster_networks: result.clusterNetworks.map((n) => ({ cluster_id: clusterId, cidr: n.cidr, ...(n.host_prefix ? { host_prefix: n.host_prefix } : {}) })),
    service_networks: result.serviceNetworks.map((n) => ({ cluster_id: clusterId, cidr: n.cidr })),
    machine_networks: result.machineNetworks.map((n) => ({ cluster_id: clusterId, cidr: n.cidr })),
    // Upstream stores a VIP's verification once a check with the hosts has set it, never at registration.
    api_vips: vips.apiVips ?? vips.apiVipIps.map((ip) => ({ cluster_id: clusterId, ip, ...(context.hosts ? { verification: 'unverified' as const } : {}) })),
    ingress_vips:
      vips.ingressVips ?? vips.ingressVipIps.map((ip) => ({ cluster_id: clusterId, ip, ...(context.hosts ? { verification: 'unverified' as const } : {}) })),
    user_managed_networking: vips.userManagedNetworking,
    vip_dhcp_allocation: vips.vipDhcpAllocation,
    ...(vips.machineNetworksChanged ? { machine_network_cidr_updated_at: context.now } : {}),
  };
}
