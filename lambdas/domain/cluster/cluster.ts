/**
 * The cluster as the upstream API shows it: defaults, derived fields and the rules for creating
 * and updating one. Pure: callers pass ids, time and the resolved release.
 */
import { CLUSTER_DEFAULTS } from '../catalogues/catalogues.js';
import clusterFieldsData from './cluster-fields.json' with { type: 'json' };
import { badRequest, conflict, refuseIfProblem } from '../core/errors.js';
import { UNSET_TIME, type Cluster, type ClusterAttributes } from '../core/entities.js';
import { isJsonObject } from '../../../contracts/json-shapes.js';
import type { ClusterCreateParams, ClusterUpdateParams } from '../../../contracts/wire.js';
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
import {
  baseDomainProblem,
  clusterNameProblem,
  noProxyProblem,
  ntpSourcesProblem,
  parseCidr,
  proxyUrlProblem,
  pullSecretProblem,
  sshPublicKeyProblem,
  type Params,
} from '../../../contracts/input-checks.js';
import type { ResolvedRelease } from '../catalogues/catalogues.js';
import {
  builtinMonitoredOperators,
  operatorFeatureProblem,
  operatorPrerequisiteProblem,
  selectOlmOperators,
  withOlmOperators,
  type OperatorSelection,
} from './cluster-operators.js';
import { normalizeCpuArchitecture } from '../catalogues/feature-support.js';
import { isBelow, isValidVersion } from '../core/ocp-version.js';
import { activeClusterFeatures, clusterFeaturesProblem } from './cluster-features.js';
import { registrationFeatureUsage, updatedFeatureUsage } from './feature-usage.js';
import { ipFamilyOrderProblem } from './cluster-ip-family-order.js';
import { createdPlatform, singleNodePlatformProblem, updatedPlatform, type Platform, type PlatformOutcome } from './cluster-platform.js';
import { ADD_HOSTS_CLUSTER_KIND, emptyNetworkLists } from './imported-cluster.js';
import { CONNECTIVITY_GROUPS_FOR_FENCING } from '../host/validations/host-validations-model.js';

/** States in which upstream lets a user change a cluster (VerifyClusterUpdatability). */
export const UPDATABLE_STATES = new Set(['insufficient', 'ready', 'pending-for-input', 'adding-hosts']);
/** States during which a cluster cannot be deleted: the installation must be cancelled first. */
export const BUSY_STATES = new Set(['preparing-for-installation', 'installing', 'finalizing', 'installing-pending-user-action']);

interface Network {
  cidr: string;
  host_prefix?: number;
}

function list<T>(value: unknown): T[] | undefined {
  return Array.isArray(value) ? (value as T[]) : undefined;
}

/** Control plane counts from this OpenShift version on may be 4 or 5 (upstream's MinimumVersionForNonStandardHAOCPControlPlane). */
const NON_STANDARD_HA_CONTROL_PLANE_VERSION = '4.18';
/** Two control planes (an arbiter cluster) from this version on (MinimumVersionForArbiterClusters). */
const TWO_CONTROL_PLANES_VERSION = '4.19';
const MAX_CONTROL_PLANES = 5;

/** Upstream's rules tying the availability mode to the control plane count (validateHighAvailabilityWithControlPlaneCount). */
export function controlPlaneProblem(mode: string, count: number, openshiftVersion: string): string | undefined {
  if (mode === 'None' && count !== 1) return 'single-node clusters must have a single control plane node';
  if (mode !== 'Full') return undefined;
  if (count !== 3 && isBelow(openshiftVersion, NON_STANDARD_HA_CONTROL_PLANE_VERSION)) {
    return `there should be exactly 3 dedicated control plane nodes for high availability mode Full in openshift version older than ${NON_STANDARD_HA_CONTROL_PLANE_VERSION}`;
  }
  const twoSupported = !isBelow(openshiftVersion, TWO_CONTROL_PLANES_VERSION);
  const min = twoSupported ? 2 : 3;
  if (count < min || count > MAX_CONTROL_PLANES) {
    const since = twoSupported ? TWO_CONTROL_PLANES_VERSION : NON_STANDARD_HA_CONTROL_PLANE_VERSION;
    return `there should be ${min}-${MAX_CONTROL_PLANES} dedicated control plane nodes for high availability mode Full in openshift version ${since} or newer`;
  }
  return undefined;
}

/**
 * A new cluster's control plane: control_plane_count, else the deprecated high_availability_mode
 * (None: one, Full: three), else three; the mode follows the count unless both are sent
 * (upstream's GetDefaultHighAvailabilityAndMasterCountParams), and the two must agree.
 */
function createdControlPlane(params: Params, openshiftVersion: string): { count: number; mode: 'Full' | 'None' } {
  const requested = params.control_plane_count as number | undefined;
  const requestedMode = params.high_availability_mode as 'Full' | 'None' | undefined;
  const count = requested ?? (requestedMode === 'None' ? 1 : 3);
  const mode = requestedMode ?? (count === 1 ? 'None' : 'Full');
  refuseIfProblem(controlPlaneProblem(mode, count, openshiftVersion));
  return { count, mode };
}

interface NetworkingContext {
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
function withNormalizedNetworks<T extends ClusterCreateParams | ClusterUpdateParams>(params: T): T {
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
function networking(params: Params, clusterId: string, current: ClusterAttributes, context: NetworkingContext): ClusterAttributes {
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

/**
 * Where a cluster keeps the service's ENABLE_SOFT_TIMEOUTS as it was when the cluster was created.
 * Internal: not part of the view. The document's org_soft_timeouts_enabled is upstream's other
 * half, the organisation's capability, which every organisation here has (as every one has on
 * upstream's services without OCM).
 */
const SERVICE_SOFT_TIMEOUTS = 'service_soft_timeouts';

/** Soft timeouts apply: the service had them on when the cluster was created, and its organisation may use them. */
export function softTimeoutsEnabled(cluster: Cluster | undefined): boolean {
  const attributes = cluster?.attributes;
  // Clusters stored before the two were apart kept the service setting in org_soft_timeouts_enabled.
  const serviceSetting = attributes?.[SERVICE_SOFT_TIMEOUTS] ?? attributes?.org_soft_timeouts_enabled;
  return serviceSetting === true && attributes?.org_soft_timeouts_enabled === true;
}

/**
 * Whether an update changes the cluster's proxy settings (upstream's proxySettingsChanged): a proxy
 * field the update names differs from the stored one (absent reads as empty). Upstream then records
 * proxy_settings_changed.
 */
export function proxySettingsChanged(params: { http_proxy?: unknown; https_proxy?: unknown; no_proxy?: unknown }, stored: ClusterAttributes): boolean {
  return (['http_proxy', 'https_proxy', 'no_proxy'] as const).some((field) => typeof params[field] === 'string' && params[field] !== (stored[field] ?? ''));
}

/** Upstream's tag: words of letters, digits and underscores, separated by single spaces (Go's `\w`, ASCII). */
const TAG = /^[0-9A-Za-z_]+( [0-9A-Za-z_]+)*$/;

/** A cluster's tags: a comma-separated list of tags, or nothing (upstream's ValidateTags). */
export function tagsProblem(tags: string): string | undefined {
  if (tags === '' || tags.split(',').every((tag) => TAG.test(tag))) return undefined;
  return (
    `Invalid format for Tags: ${tags}. Tags should be a comma-separated list (e.g. tag1,tag2,tag3). ` +
    'Each tag can consist of the following characters: Alphanumeric (aA-zZ, 0-9), underscore (_) and white-spaces.'
  );
}

/**
 * The URL of a cluster's ignition endpoint, checked as upstream's ValidateHTTPFormat does: it must
 * name its scheme, http or https (any case), and a host made of URL host characters. Nothing more:
 * upstream takes "https:x" or "http:" as they are.
 */
/** The first release with the Nutanix integration: upstream refuses to register a Nutanix cluster on an older one. */
const NUTANIX_MINIMUM_VERSION = '4.11';

export function nutanixVersionProblem(platformType: unknown, openshiftVersion: string): string | undefined {
  if (platformType !== 'nutanix' || !isBelow(openshiftVersion, NUTANIX_MINIMUM_VERSION)) return undefined;
  return `Invalid OCP version (${openshiftVersion}) for Nutanix, Nutanix integration is supported for version ${NUTANIX_MINIMUM_VERSION} and above`;
}

export function ignitionEndpointUrlProblem(url: string): string | undefined {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(url)) return `URL '${url}' format is not valid: invalid control character in URL`;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url)?.[1]?.toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') return `The URL scheme must be http(s) and specified in the URL: '${url}'`;
  const host = /^[^:]+:\/\/([^/?#]*)/.exec(url)?.[1]?.replace(/^.*@/, '');
  if (host !== undefined && /[^A-Za-z0-9.\-_~!$&'()*+,;=:[\]%]/.test(host)) return `URL '${url}' format is not valid: invalid character in host name`;
  return undefined;
}

/** A cluster either replaces the image's NTP sources (ntp_sources) or adds to them (additional_ntp_source), judged on the result. */
export function ntpSourcesConflict(attributes: { additional_ntp_source?: unknown; ntp_sources?: unknown }): string | undefined {
  const given = (value: unknown) => typeof value === 'string' && value !== '';
  return given(attributes.additional_ntp_source) && given(attributes.ntp_sources) ? 'ntp_sources and additional_ntp_source are mutually exclusive' : undefined;
}

/** Fields copied as given after their own checks. */
function simpleFields(request: ClusterCreateParams | ClusterUpdateParams): ClusterAttributes {
  const params: Params = request;
  const out: ClusterAttributes = {};
  if (typeof params.base_dns_domain === 'string' && params.base_dns_domain !== '') refuseIfProblem(baseDomainProblem(params.base_dns_domain));
  if (typeof params.ssh_public_key === 'string' && params.ssh_public_key.trim() !== '') refuseIfProblem(sshPublicKeyProblem(params.ssh_public_key));
  if (typeof params.http_proxy === 'string' && params.http_proxy !== '') refuseIfProblem(proxyUrlProblem('http_proxy', params.http_proxy));
  if (typeof params.https_proxy === 'string' && params.https_proxy !== '') refuseIfProblem(proxyUrlProblem('https_proxy', params.https_proxy));
  if (typeof params.no_proxy === 'string' && params.no_proxy !== '') refuseIfProblem(noProxyProblem(params.no_proxy));
  if (typeof params.additional_ntp_source === 'string') refuseIfProblem(ntpSourcesProblem('additional_ntp_source', params.additional_ntp_source));
  if (typeof params.ntp_sources === 'string') refuseIfProblem(ntpSourcesProblem('ntp_sources', params.ntp_sources));
  if (typeof params.tags === 'string') refuseIfProblem(tagsProblem(params.tags));
  const ignitionEndpoint = params.ignition_endpoint as { url?: unknown } | undefined;
  if (typeof ignitionEndpoint?.url === 'string') refuseIfProblem(ignitionEndpointUrlProblem(ignitionEndpoint.url));
  for (const field of [
    'base_dns_domain',
    'ssh_public_key',
    'http_proxy',
    'https_proxy',
    'no_proxy',
    'additional_ntp_source',
    'ntp_sources',
    'hyperthreading',
    'network_type',
    'schedulable_masters',
    'disk_encryption',
    'ignition_endpoint',
    'tags',
    'load_balancer',
    'api_vip_dns_name',
  ]) {
    if (params[field] !== undefined && params[field] !== null) out[field] = params[field];
  }
  return out;
}

/**
 * Tang disk encryption names its servers, each a URL with a thumbprint (upstream's
 * ValidateDiskEncryptionParams).
 */
export function diskEncryptionProblem(encryption: unknown): string | undefined {
  if (!isJsonObject(encryption) || encryption.mode !== 'tang') return undefined;
  const servers = typeof encryption.tang_servers === 'string' ? encryption.tang_servers : '';
  if (servers === '') return "Setting Tang mode but tang_servers isn't set";
  let parsed: unknown;
  try {
    parsed = JSON.parse(servers);
  } catch (error) {
    return `Unable to unmarshal tang_servers: ${(error as Error).message}`;
  }
  if (parsed !== null && !Array.isArray(parsed)) return 'Unable to unmarshal tang_servers: tang_servers must be a JSON list of {"url", "thumbprint"}';
  for (const server of (parsed as unknown[] | null) ?? []) {
    const url = isJsonObject(server) && typeof server.url === 'string' ? server.url : '';
    if (!isRequestUri(url)) return `Tang URL isn't valid: parse "${url}": invalid URI for request`;
    if (!isJsonObject(server) || typeof server.thumbprint !== 'string' || server.thumbprint === '') return "Tang thumbprint isn't set";
  }
  return undefined;
}

/** Go's url.ParseRequestURI: an absolute URL or an absolute path. */
function isRequestUri(text: string): boolean {
  if (text.startsWith('/')) return true;
  return /^[A-Za-z][A-Za-z0-9+.-]*:/.test(text) && URL.canParse(text);
}

/** Disk encryption with upstream's defaults for what the request leaves out: off, with TPM v2. */
function withDiskEncryptionDefaults(encryption: unknown): ClusterAttributes['disk_encryption'] {
  const given = isJsonObject(encryption) ? encryption : {};
  return { ...given, enable_on: (given.enable_on as 'none' | undefined) ?? 'none', mode: (given.mode as 'tpmv2' | undefined) ?? 'tpmv2' };
}

/** The stored disk encryption with an update's settings over it: enable_on and mode given empty take their defaults, empty Tang servers leave the stored ones. */
function updatedDiskEncryption(stored: unknown, given: Record<string, unknown>): ClusterAttributes['disk_encryption'] {
  const next: Record<string, unknown> = { ...(isJsonObject(stored) ? stored : {}) };
  if (given.enable_on !== undefined && given.enable_on !== null) next.enable_on = given.enable_on || 'none';
  if (given.mode !== undefined && given.mode !== null) next.mode = given.mode || 'tpmv2';
  if (typeof given.tang_servers === 'string' && given.tang_servers !== '') next.tang_servers = given.tang_servers;
  return next as ClusterAttributes['disk_encryption'];
}

/** Upstream answers every platform with its external settings, empty unless the platform is external. */
function withEmptyExternal(platform: Platform): Platform {
  return { ...platform, external: platform.external ?? {} };
}

const platformOrRefusal = (outcome: PlatformOutcome): Exclude<PlatformOutcome, { problem: string }> => {
  if ('problem' in outcome) throw badRequest(outcome.problem);
  return outcome;
};

/**
 * The network type a registration that names none gets, from the version as requested (not the
 * release's, which a named payload decides): OVN-Kubernetes from 4.12 and for a single node,
 * OpenShift SDN before (then refused with the release if that is 4.15 or later, as upstream does).
 * Upstream reads the requested version even when a payload is named, so a malformed one is refused.
 */
export function defaultNetworkType(requestedVersion: unknown, controlPlaneCount: number): 'OVNKubernetes' | 'OpenShiftSDN' {
  const version = typeof requestedVersion === 'string' ? requestedVersion : '';
  if (!isValidVersion(version)) throw badRequest(`Malformed version: ${version}`);
  return controlPlaneCount === 1 || !isBelow(version, '4.12') ? 'OVNKubernetes' : 'OpenShiftSDN';
}

/**
 * A new cluster, checked and defaulted as upstream's registration does: control plane, VIPs and
 * networks as sent, then the platform and networking mode, the single-node rules, disk
 * encryption, and the features the result uses; the name and pull secret last.
 */
export function createClusterRecord(
  request: ClusterCreateParams,
  context: { orgId: string; clusterId: string; now: string; release: ResolvedRelease; userName: string; softTimeouts?: boolean; emailDomain?: string },
): Omit<Cluster, 'version'> {
  const params = withNormalizedNetworks(request);
  // Upstream checks the dual-stack family order before anything else of a registration.
  refuseIfProblem(ipFamilyOrderProblem(params));
  const name = params.name;
  const { count, mode } = createdControlPlane(params, context.release.openshiftVersion);
  refuseIfProblem(nutanixVersionProblem(params.platform?.type, params.openshift_version ?? context.release.openshiftVersion));
  const singleNode = count === 1;
  const networkType = defaultNetworkType(params.openshift_version, count);
  const attributes: ClusterAttributes = {
    kind: 'Cluster',
    openshift_version: context.release.openshiftVersion,
    ocp_release_image: context.release.releaseImage,
    cpu_architecture: context.release.cpuArchitecture,
    control_plane_count: count,
    high_availability_mode: mode,
    hyperthreading: 'all',
    network_type: networkType,
    schedulable_masters: false,
    // No host yet, so no worker: forced (schedulableMastersForcedTrue).
    schedulable_masters_forced_true: true,
    load_balancer: { type: 'cluster-managed' },
    monitored_operators: builtinMonitoredOperators(),
    status_info: 'Cluster is not ready for install',
    user_name: context.userName,
    org_soft_timeouts_enabled: true,
    [SERVICE_SOFT_TIMEOUTS]: context.softTimeouts ?? false,
    ...(context.emailDomain ? { email_domain: context.emailDomain } : {}),
    ...simpleFields(params),
    disk_encryption: withDiskEncryptionDefaults(params.disk_encryption),
  };
  refuseIfProblem(ntpSourcesConflict(attributes));
  // A load balancer given without a type gets the default one, as upstream registers it.
  if (!attributes.load_balancer?.type) attributes.load_balancer = { ...attributes.load_balancer, type: 'cluster-managed' };
  Object.assign(
    attributes,
    networking(params, context.clusterId, attributes, {
      singleNode,
      openshiftVersion: context.release.openshiftVersion,
      cpuArchitecture: context.release.cpuArchitecture,
      now: context.now,
    }),
  );
  const requestedArchitecture = normalizeCpuArchitecture(params.cpu_architecture);
  const settled = platformOrRefusal(
    createdPlatform({
      platform: params.platform,
      userManagedNetworking: params.user_managed_networking ?? undefined,
      controlPlaneCount: count,
      cpuArchitecture: requestedArchitecture,
    }),
  );
  attributes.platform = settled.platform && withEmptyExternal(settled.platform);
  if (settled.userManagedNetworking === undefined) delete attributes.user_managed_networking;
  else attributes.user_managed_networking = settled.userManagedNetworking;
  refuseIfProblem(diskEncryptionProblem(attributes.disk_encryption));
  if (singleNode) {
    if (attributes.vip_dhcp_allocation) throw badRequest('VIP DHCP Allocation cannot be enabled on single node OpenShift');
    if (attributes.network_type === 'OpenShiftSDN') throw badRequest('OpenShiftSDN network type is not allowed in single node mode');
  }
  refuseIfProblem(singleNodePlatformProblem(count, attributes.platform));
  // Upstream checks the features against the architecture only when the request names one (its
  // schema's default is not applied to the request it checks): VIP DHCP allocation on 4.18 is
  // refused with cpu_architecture x86_64 and accepted without.
  refuseIfProblem(
    clusterFeaturesProblem(activeClusterFeatures(attributes), context.release.openshiftVersion, params.cpu_architecture ? requestedArchitecture : undefined),
  );
  const namedArchitecture = params.cpu_architecture ? context.release.cpuArchitecture : undefined;
  checkOperators(attributes, params, { prerequisites: namedArchitecture, features: namedArchitecture });
  refuseIfProblem(pullSecretProblem(params.pull_secret));
  refuseIfProblem(clusterNameProblem(name));
  attributes.feature_usage = registrationFeatureUsage(attributes);
  return {
    orgId: context.orgId,
    clusterId: context.clusterId,
    name,
    status: 'insufficient',
    createdAt: context.now,
    updatedAt: context.now,
    pullSecret: params.pull_secret,
    attributes,
  };
}

/**
 * Replaces the cluster's OLM operators with the request's selection, if it makes one, and refuses
 * what upstream refuses: operator prerequisites and operators incompatible with the cluster's
 * features. `architecture` is the CPU architecture upstream checks them against: on create only
 * one the request names, on update the cluster's (its release's support is checked only on create).
 */
function checkOperators(attributes: ClusterAttributes, request: OperatorSelection, architecture: { prerequisites?: string; features?: string }): void {
  const shape = { openshiftVersion: String(attributes.openshift_version ?? ''), singleNode: attributes.control_plane_count === 1 };
  const olm = selectOlmOperators(request, shape);
  if (olm) {
    attributes.monitored_operators = withOlmOperators(attributes.monitored_operators, olm);
    refuseIfProblem(operatorPrerequisiteProblem(attributes.monitored_operators, { ...shape, cpuArchitecture: architecture.prerequisites }));
  }
  refuseIfProblem(operatorFeatureProblem(attributes, architecture.features));
}

export const DISCONNECTED_CLUSTER_KIND = 'DisconnectedCluster';
/** What a DisconnectedCluster is, as upstream's registrar says it. */
export const DISCONNECTED_STATUS_INFO = 'Cluster created for offline installation';

export const isDisconnectedCluster = (cluster: Pick<Cluster, 'attributes'> | undefined): boolean => cluster?.attributes.kind === DISCONNECTED_CLUSTER_KIND;

/**
 * A DisconnectedCluster (POST /v2/clusters/disconnected): only the name and release of a
 * disconnected ISO, the configuration its infra-env's image is made from. Never monitored, never
 * installed from here: the hosts booted from that ISO install themselves with the agent-based
 * installer. Upstream validates only the name's length; the name becomes the AgentConfig's
 * metadata.name, so it is held to the cluster-name rules here.
 */
export function createDisconnectedClusterRecord(
  params: Params,
  context: { orgId: string; clusterId: string; now: string; release: ResolvedRelease; userName: string },
): Omit<Cluster, 'version'> {
  const name = params.name as string;
  refuseIfProblem(clusterNameProblem(name));
  return {
    orgId: context.orgId,
    clusterId: context.clusterId,
    name,
    status: 'unmonitored',
    createdAt: context.now,
    updatedAt: context.now,
    pullSecret: '',
    attributes: {
      kind: DISCONNECTED_CLUSTER_KIND,
      openshift_version: context.release.openshiftVersion,
      // Kept for the infra-env and the installer's ClusterImageSet; upstream leaves both empty.
      ocp_release_image: context.release.releaseImage,
      cpu_architecture: context.release.cpuArchitecture,
      status_info: DISCONNECTED_STATUS_INFO,
      user_name: context.userName,
    },
  };
}

/**
 * The refusal of any change or action on a DisconnectedCluster (upstream's answer is the plain
 * "cannot be updated in state unmonitored"): what it is and what to do instead.
 */
export function disconnectedClusterRefusal(cluster: Pick<Cluster, 'clusterId' | 'attributes'>, action: string): string | undefined {
  if (!isDisconnectedCluster(cluster)) return undefined;
  return (
    `Cluster ${cluster.clusterId} is a DisconnectedCluster: it only holds the settings of a disconnected ISO and cannot be ${action}. ` +
    'Change the ISO through its infra-env (PATCH /v2/infra-envs/{id}), boot the hosts from the ISO to install them with the agent-based installer, ' +
    'or create a cluster to install from here with POST /v2/clusters'
  );
}

/**
 * Applies a `v2-cluster-update-params` document, only in the states upstream allows, with
 * upstream's checks of an update: the control plane count against the cluster's availability mode,
 * VIPs and networks, the platform and networking mode, the single-node rules, disk encryption and
 * the features the result uses.
 */
export function applyClusterUpdate(
  cluster: Cluster,
  request: ClusterUpdateParams,
  now: string,
  hosts: readonly MachineNetworkHost[] = [],
  virtualHostIds: readonly string[] = [],
): Cluster {
  const disconnected = disconnectedClusterRefusal(cluster, 'updated');
  if (disconnected) throw conflict(disconnected);
  const params = withNormalizedNetworks(request);
  const next = structuredClone(cluster);
  const current = next.attributes;
  const stored = cluster.attributes;
  const openshiftVersion = current.openshift_version as string;
  if (params.control_plane_count !== undefined && params.control_plane_count !== null) {
    refuseIfProblem(controlPlaneProblem((current.high_availability_mode as string | undefined) ?? 'Full', params.control_plane_count, openshiftVersion));
  }
  if (typeof params.pull_secret === 'string' && params.pull_secret !== '') refuseIfProblem(pullSecretProblem(params.pull_secret));
  if (typeof params.name === 'string' && params.name !== '') refuseIfProblem(clusterNameProblem(params.name));
  // The API's host name is the existing cluster's: only an imported (day-2) cluster takes it.
  if (typeof params.api_vip_dns_name === 'string' && stored.kind !== 'AddHostsCluster') {
    throw badRequest(`Can't update api vip to ${params.api_vip_dns_name} for day1 cluster ${cluster.clusterId}`);
  }
  if (!UPDATABLE_STATES.has(cluster.status)) {
    throw conflict(
      `Cluster ${cluster.clusterId} is in status ${cluster.status} and cannot be updated; it can be updated only in ${[...UPDATABLE_STATES].join(', ')}`,
    );
  }
  const singleNode = (current.control_plane_count as number) === 1;
  const cpuArchitecture = (current.cpu_architecture as string | undefined) ?? 'x86_64';
  const settled = platformOrRefusal(
    updatedPlatform(
      { platform: params.platform, userManagedNetworking: params.user_managed_networking ?? undefined },
      {
        platform: current.platform,
        userManagedNetworking: current.user_managed_networking === true,
        controlPlaneCount: current.control_plane_count as number,
        openshiftVersion,
        cpuArchitecture,
      },
    ),
  );
  if (singleNode) {
    if (params.user_managed_networking === false) throw badRequest('disabling UserManagedNetworking is not allowed in single node mode');
    if (params.network_type === 'OpenShiftSDN') throw badRequest('OpenShiftSDN network type is not allowed in single node mode');
  }
  refuseIfProblem(diskEncryptionProblem(params.disk_encryption));
  refuseIfProblem(singleNodePlatformProblem(current.control_plane_count as number, params.platform));
  // Upstream judges the features of the stored cluster with the request over it, before it applies
  // the networking changes (whose own refusals come after).
  const requested: ClusterAttributes = Object.fromEntries(Object.entries(params).filter(([, value]) => value !== undefined && value !== null));
  const preview: ClusterAttributes = {
    ...stored,
    ...requested,
    ...(settled.platform ? { platform: settled.platform } : {}),
    user_managed_networking: settled.userManagedNetworking ?? stored.user_managed_networking,
  };
  // Upstream does not judge an imported cluster's features: it knows no release to judge them by.
  if (stored.kind !== ADD_HOSTS_CLUSTER_KIND) refuseIfProblem(clusterFeaturesProblem(activeClusterFeatures(preview, stored), openshiftVersion));

  if (typeof params.name === 'string' && params.name !== '') next.name = params.name;
  if (typeof params.pull_secret === 'string' && params.pull_secret !== '') next.pullSecret = params.pull_secret;
  if (params.control_plane_count !== undefined && params.control_plane_count !== null) current.control_plane_count = params.control_plane_count;
  Object.assign(current, simpleFields(params));
  refuseIfProblem(ntpSourcesConflict(current));
  // Upstream changes only the disk encryption settings given (empty ones to their defaults) and keeps the others.
  if (isJsonObject(params.disk_encryption)) current.disk_encryption = updatedDiskEncryption(stored.disk_encryption, params.disk_encryption);
  Object.assign(
    current,
    networking(params, cluster.clusterId, current, {
      singleNode,
      openshiftVersion,
      cpuArchitecture,
      now,
      hosts,
      ...(settled.userManagedNetworking !== undefined ? { userManagedNetworking: settled.userManagedNetworking } : {}),
    }),
  );
  if (settled.userManagedNetworking === undefined && stored.user_managed_networking === undefined) delete current.user_managed_networking;
  if (settled.platform) current.platform = withEmptyExternal(settled.platform);
  checkOperators(current, params, { prerequisites: (current.cpu_architecture as string | undefined) ?? 'x86_64' });
  if (stored.kind === ADD_HOSTS_CLUSTER_KIND) {
    importedClusterUpdated(current, stored, params);
  } else {
    // Upstream tracks the platform and networking mode the update settled on, implied ones included
    // (platform none makes networking user-managed).
    const settledRequest = {
      ...params,
      ...(settled.platform ? { platform: settled.platform } : {}),
      ...(settled.userManagedNetworking !== undefined ? { user_managed_networking: settled.userManagedNetworking } : {}),
    };
    current.feature_usage = updatedFeatureUsage(stored, settledRequest, current, virtualHostIds);
  }
  next.updatedAt = now;
  return next;
}

/**
 * What upstream's update leaves on an imported cluster: the feature usage it records at every
 * update (none used: `{}`), and no VIP DHCP setting unless one is asked for (its import sets none).
 * schedulable_masters_forced_true stays unset: upstream's answers were seen both with and without
 * it (its monitor's timing), and its stored import has none.
 */
function importedClusterUpdated(current: ClusterAttributes, stored: ClusterAttributes, params: ClusterUpdateParams): void {
  if (current.feature_usage === undefined) current.feature_usage = '{}';
  if (stored.vip_dhcp_allocation === undefined && (params.vip_dhcp_allocation === undefined || params.vip_dhcp_allocation === null))
    delete current.vip_dhcp_allocation;
}

/** The properties of openapi.yaml's `cluster` definition (test/unit/cluster-view.test.ts keeps them equal). */
export const CLUSTER_FIELDS: readonly string[] = clusterFieldsData;

/**
 * The upstream `cluster` document: only the fields openapi.yaml's `cluster` declares; the service's
 * own attributes (install attempt, workflow, DNS records, UI settings...) stay out of it, and so do
 * secrets: `pull_secret_set` only tells whether there is a pull secret.
 */
/**
 * The cluster attribute where its judgement keeps the fingerprint of its hosts' address book
 * (agent-protocol's peerAddressBook) and when it saw it change. Internal: not part of the view.
 */
export const PEER_ADDRESS_BOOK = 'peer_address_book';
export interface StoredAddressBook {
  fingerprint: string;
  changed_at: string;
}
export function storedAddressBook(cluster: Cluster | undefined): StoredAddressBook | undefined {
  const stored = cluster?.attributes[PEER_ADDRESS_BOOK];
  if (!isJsonObject(stored)) return undefined;
  const { fingerprint, changed_at } = stored;
  return typeof fingerprint === 'string' && typeof changed_at === 'string' ? { fingerprint, changed_at } : undefined;
}

export function clusterView(
  cluster: Cluster,
  extras: { hosts?: unknown[]; counts?: { total: number; enabled: number; ready: number } } = {},
): Record<string, unknown> {
  // The deprecated singular network fields: upstream never fills them; clusters stored before
  // this service stopped writing them still hold them.
  const {
    [PEER_ADDRESS_BOOK]: _addressBook,
    [CONNECTIVITY_GROUPS_FOR_FENCING]: _connectivityGroupsForFencing,
    [SERVICE_SOFT_TIMEOUTS]: _serviceSoftTimeouts,
    cluster_network_cidr: _clusterNetworkCidr,
    cluster_network_host_prefix: _clusterNetworkHostPrefix,
    service_network_cidr: _serviceNetworkCidr,
    machine_network_cidr: _machineNetworkCidr,
    ...attributes
  } = cluster.attributes;
  const view: Record<string, unknown> = {
    ...attributes,
    kind: (cluster.attributes.kind as string | undefined) ?? 'Cluster',
    id: cluster.clusterId,
    href: `/api/assisted-install/v2/clusters/${cluster.clusterId}`,
    name: cluster.name,
    org_id: cluster.orgId,
    status: cluster.status,
    status_info: cluster.attributes.status_info ?? '',
    status_updated_at: cluster.attributes.status_updated_at ?? cluster.createdAt,
    image_info: (cluster.attributes.image_info as object | undefined) ?? {},
    // Upstream leaves it out of clusters it never recorded usage for (imported ones).
    feature_usage: cluster.attributes.feature_usage,
    // Go's omitempty: upstream leaves it out while false (imported and disconnected clusters).
    ...(cluster.pullSecret ? { pull_secret_set: true } : {}),
    created_at: cluster.createdAt,
    updated_at: cluster.updatedAt,
    hosts: extras.hosts ?? [],
    total_host_count: extras.counts?.total ?? 0,
    enabled_host_count: extras.counts?.enabled ?? 0,
    ready_host_count: extras.counts?.ready ?? 0,
  };
  // Filtering to CLUSTER_FIELDS (the schema's fields) slowed the HA fleet install to more than twice
  // its time: some reader needs an attribute the schema does not declare. Until that reader is
  // found, the view keeps the stored attributes.
  return view;
}

/** Cluster fields upstream's document leaves out while empty (Go's omitempty): an empty string given is not echoed. */
const OMITTED_WHEN_EMPTY = [
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'tags',
  'additional_ntp_source',
  'ntp_sources',
  'ssh_public_key',
  'base_dns_domain',
  'name',
] as const;

/**
 * A monitored operator as upstream's API answers it, in the cluster document and the
 * monitored-operators list alike: it names its cluster, and a status never reported carries Go's
 * zero time.
 */
export function monitoredOperatorWireView(operator: Record<string, unknown>, clusterId: string): Record<string, unknown> {
  const reportedAt = operator.status_updated_at;
  return { ...operator, cluster_id: clusterId, status_updated_at: typeof reportedAt === 'string' && reportedAt !== '' ? reportedAt : UNSET_TIME };
}

/** A single-node cluster, as upstream's answers judge it when they list its hosts' stages (one control plane node). */
export const isSingleNodeCluster = (cluster: Cluster): boolean => cluster.attributes.control_plane_count === 1;

/**
 * A cluster's progress as upstream's document has it: Go's omitempty leaves out a percentage of 0
 * and a stage that did not time out, while the stage's start is always there (Go's zero time).
 */
function progressWireView(progress: unknown): Record<string, unknown> {
  const view: Record<string, unknown> = { finalizing_stage_started_at: UNSET_TIME, ...(isJsonObject(progress) ? progress : {}) };
  for (const [field, value] of Object.entries(view)) {
    if ((field.endsWith('_percentage') && value === 0) || (field === 'finalizing_stage_timed_out' && value === false)) delete view[field];
  }
  return view;
}

/**
 * The cluster document as upstream's API answers it: clusterView with the fields upstream always
 * carries, even unset (Go's zero values: empty objects, zero times, a null deletion time), host
 * counts left out while zero as its omitempty does, and the preparation outcome under its wire
 * name, last-installation-preparation.
 */
export function clusterWireView(cluster: Cluster, extras: Parameters<typeof clusterView>[1] = {}): Record<string, unknown> {
  const { last_installation_preparation: preparation, ...view } = clusterView(cluster, extras);
  const a = cluster.attributes;
  const time = (value: unknown) => (typeof value === 'string' && value !== '' ? value : UNSET_TIME);
  const wire: Record<string, unknown> = {
    ...view,
    'last-installation-preparation': preparation ?? {},
    ignition_endpoint: a.ignition_endpoint ?? {},
    deleted_at: null,
    email_domain: a.email_domain ?? 'Unknown',
    install_started_at: time(a.install_started_at),
    install_completed_at: time(a.install_completed_at),
    controller_logs_started_at: time(a.controller_logs_started_at),
    controller_logs_collected_at: time(a.controller_logs_collected_at),
    // The cluster's own image_info is a remnant of the v1 API: images belong to infra-envs.
    image_info: { created_at: '0001-01-01T00:00:00Z', expires_at: UNSET_TIME, ...(isJsonObject(a.image_info) ? a.image_info : {}) },
    progress: progressWireView(a.progress),
  };
  if (Array.isArray(view.monitored_operators)) {
    wire.monitored_operators = view.monitored_operators.map((operator) => monitoredOperatorWireView(operator as Record<string, unknown>, cluster.clusterId));
  }
  for (const count of ['total_host_count', 'enabled_host_count', 'ready_host_count']) {
    if (wire[count] === 0) delete wire[count];
  }
  for (const field of OMITTED_WHEN_EMPTY) {
    if (wire[field] === '') delete wire[field];
  }
  // When the machine networks last changed is this service's own bookkeeping, not a field of upstream's.
  delete wire.machine_network_cidr_updated_at;
  // So is the controller's complete-installation report (installation-progress's CONTROLLER_COMPLETION).
  delete wire.controller_completion;
  // Go's omitempty: a cluster without a pull secret (an imported one) does not say so.
  if (wire.pull_secret_set === false) delete wire.pull_secret_set;
  // Upstream's import records no feature usage (its cluster document then has none).
  if (a.kind === ADD_HOSTS_CLUSTER_KIND && a.feature_usage === undefined) delete wire.feature_usage;
  return a.kind === DISCONNECTED_CLUSTER_KIND ? disconnectedClusterWireView(wire) : wire;
}

/**
 * A DisconnectedCluster as upstream's document reads: the Go zero values of a cluster nobody
 * configured (empty networks and operators, a cluster-managed load balancer, no platform type), and
 * neither the payload nor the architecture we keep for its infra-env and ISO (upstream records none).
 */
function disconnectedClusterWireView(wire: Record<string, unknown>): Record<string, unknown> {
  const { ocp_release_image: _payload, cpu_architecture: _architecture, ...view } = wire;
  return {
    ...emptyNetworkLists(),
    disk_encryption: {},
    platform: { type: null, external: {} },
    load_balancer: { type: 'cluster-managed' },
    ...view,
  };
}

/** The fields of upstream's answer to a DisconnectedCluster's registration: the row as inserted, before any association is read. */
const DISCONNECTED_REGISTRATION_FIELDS = [
  'id',
  'href',
  'kind',
  'name',
  'openshift_version',
  'org_id',
  'status',
  'status_info',
  'status_updated_at',
  'created_at',
  'updated_at',
  'deleted_at',
  'user_name',
  'email_domain',
  'image_info',
  'install_started_at',
  'install_completed_at',
  'controller_logs_started_at',
  'controller_logs_collected_at',
  'last-installation-preparation',
  'load_balancer',
] as const;

/** The answer to POST /v2/clusters/disconnected, as upstream's (its image_info carries the creation time, as its update answers do). */
export function disconnectedClusterRegistrationView(cluster: Cluster): Record<string, unknown> {
  const wire = clusterWireView(cluster);
  const view: Record<string, unknown> = {};
  for (const field of DISCONNECTED_REGISTRATION_FIELDS) if (wire[field] !== undefined) view[field] = wire[field];
  return { ...view, image_info: { ...(wire.image_info as object), created_at: cluster.createdAt } };
}

/** Workers from which a cluster's control plane need not run workloads (upstream's MinimumNumberOfWorkersForNonSchedulableMastersClusterInHaMode). */
const WORKERS_TO_UNFORCE_SCHEDULABLE_MASTERS = 2;

/**
 * schedulable_masters_forced_true as upstream refreshes it (a host registering, leaving, binding or
 * unbinding, and each monitor pass): a single-node cluster's control plane always runs workloads;
 * another's does while fewer than two of its hosts are workers, by their effective role (an
 * auto-assign host counts as the role suggested for it). Five control planes and no worker: forced.
 */
export function schedulableMastersForcedTrue(controlPlaneCount: number, hosts: readonly { role?: unknown; suggested_role?: unknown }[]): boolean {
  if (controlPlaneCount === 1) return true;
  const effectiveRole = (host: { role?: unknown; suggested_role?: unknown }) =>
    host.role === 'auto-assign' && typeof host.suggested_role === 'string' && host.suggested_role !== '' ? host.suggested_role : host.role;
  return hosts.filter((host) => effectiveRole(host) === 'worker').length < WORKERS_TO_UNFORCE_SCHEDULABLE_MASTERS;
}
