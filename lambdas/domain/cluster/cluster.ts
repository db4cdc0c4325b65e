/**
 * The cluster as the upstream API shows it: defaults, derived fields and the rules for creating
 * and updating one. Pure: callers pass ids, time and the resolved release.
 */
import { CLUSTER_DEFAULTS } from '../catalogues/catalogues.js';
import clusterFieldsData from './cluster-fields.json' with { type: 'json' };
import { badRequest, conflict } from '../core/errors.js';
import type { Cluster, ClusterAttributes } from '../core/entities.js';
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
import type { MachineNetworkHost } from '../network/machine-network.js';
import {
  baseDomainProblem,
  cidrProblem,
  clusterNameProblem,
  hostPrefixProblem,
  noProxyProblem,
  ntpSourcesProblem,
  overlaps,
  parseCidr,
  proxyUrlProblem,
  pullSecretProblem,
  sshPublicKeyProblem,
  type Params,
} from '../core/validation.js';
import type { ResolvedRelease } from '../catalogues/catalogues.js';
import {
  builtinMonitoredOperators,
  operatorFeatureProblem,
  operatorPrerequisiteProblem,
  selectOlmOperators,
  withOlmOperators,
  type OperatorSelection,
} from './cluster-operators.js';


/** States in which upstream lets a user change a cluster (VerifyClusterUpdatability). */
export const UPDATABLE_STATES = new Set(['insufficient', 'ready', 'pending-for-input', 'adding-hosts']);
/** States during which a cluster cannot be deleted: the installation must be cancelled first. */
export const BUSY_STATES = new Set(['preparing-for-installation', 'installing', 'finalizing', 'installing-pending-user-action']);

interface Network {
  cidr: string;
  host_prefix?: number;
}

function check(reason: string | undefined): void {
  if (reason) throw badRequest(reason);
}

function list<T>(value: unknown): T[] | undefined {
  return Array.isArray(value) ? (value as T[]) : undefined;
}

/** control_plane_count wins; the deprecated high_availability_mode still works as upstream. */
function controlPlane(params: Params, current?: ClusterAttributes): { count: number; mode: 'Full' | 'None' } {
  const requested = params.control_plane_count as number | undefined;
  const mode = params.high_availability_mode as 'Full' | 'None' | undefined;
  if (requested !== undefined && mode !== undefined && (requested === 1) !== (mode === 'None')) {
    throw badRequest(`control_plane_count ${requested} contradicts high_availability_mode ${mode}; send only control_plane_count`);
  }
  const count = requested ?? (mode === 'None' ? 1 : mode === 'Full' ? 3 : ((current?.control_plane_count as number | undefined) ?? 3));
  if (![1, 2, 3, 4, 5].includes(count)) throw badRequest(`control_plane_count must be 1 (single node), 2, 3, 4 or 5, not ${count}`);
  return { count, mode: count === 1 ? 'None' : 'Full' };
}

interface NetworkingContext {
  singleNode: boolean;
  openshiftVersion: string;
  cpuArchitecture: string;
  now: string;
  /** On update: the cluster's hosts, whose interfaces and free-address scans place the VIPs. */
  hosts?: readonly MachineNetworkHost[];
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

/** Upstream's registration checks of VIPs (ValidateClusterCreateIPAddresses), then its single-node rules. */
function createdVips(params: Params, networks: NetworkLists, context: NetworkingContext): VipOutcome {
  const apiVips = vipIps(params.api_vips) ?? [];
  const ingressVips = vipIps(params.ingress_vips) ?? [];
  const requestedUmn = params.user_managed_networking as boolean | undefined;
  const requestedDhcp = params.vip_dhcp_allocation as boolean | undefined;
  refuse([dualStackVipsProblem(apiVips.length, ingressVips.length, context.openshiftVersion, context.cpuArchitecture)]);
  refuse(vipConfigurationProblems(vipConfiguration({ apiVips, ingressVips }, networks, { userManagedNetworking: requestedUmn, vipDhcpAllocation: requestedDhcp, loadBalancer: params.load_balancer }, context)));
  if (context.singleNode) {
    if (requestedUmn === false) throw badRequest('User Managed Networking must be enabled on single node OpenShift');
    if (requestedDhcp === true) throw badRequest('VIP DHCP Allocation cannot be enabled on single node OpenShift');
    // A single node defaults to user-managed networking after upstream has checked the VIPs, so
    // upstream stores VIPs nothing will use. Refused here, in the words upstream uses when
    // user_managed_networking is sent.
    refuse([userManagedNetworkingVipProblem(apiVips, ingressVips, false)]);
  }
  return {
    apiVipIps: apiVips,
    ingressVipIps: ingressVips,
    machineNetworks: cidrsOf(networks.machineNetworks),
    machineNetworksChanged: networks.machineNetworks.length > 0,
    userManagedNetworking: requestedUmn ?? context.singleNode,
    vipDhcpAllocation: requestedDhcp ?? false,
  };
}

/**
 * Upstream's update of VIPs and networks: the request checked with the stored values it leaves
 * (ValidateClusterUpdateVIPAddresses), then applied by mode (updateNetworkParams): user-managed
 * networking drops the VIPs; a change of DHCP mode drops the VIPs and machine networks; DHCP takes
 * no VIPs; otherwise planVipUpdate places them with the hosts.
 */
function updatedVips(params: Params, current: ClusterAttributes, hosts: readonly MachineNetworkHost[], networks: NetworkLists, context: NetworkingContext): VipOutcome {
  const requestedApi = vipIps(params.api_vips);
  const requestedIngress = vipIps(params.ingress_vips);
  const requestedMachineNetworks = list<Network>(params.machine_networks) ?? (params.machine_network_cidr ? [{ cidr: params.machine_network_cidr as string }] : undefined);
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
  const target = vipConfiguration({ apiVips, ingressVips }, networks, { userManagedNetworking: requestedUmn, vipDhcpAllocation: requestedDhcp, loadBalancer }, context);
  refuse(vipConfigurationProblems(target));
  if (context.singleNode && requestedUmn === false) throw badRequest('disabling UserManagedNetworking is not allowed in single node mode');

  const userManagedNetworking = requestedUmn ?? storedUmn;
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

/**
 * Networking as upstream models it/**
 * Networking as upstream models it: the legacy singular fields mirror the first entry of the
 * plural lists. Validates CIDRs, host prefixes, overlaps and VIP placement.
 */
function networking(params: Params, clusterId: string, current: ClusterAttributes, context: NetworkingContext): ClusterAttributes {
  const clusterNetworks: Network[] =
    list<Network>(params.cluster_networks) ??
    (params.cluster_network_cidr !== undefined || params.cluster_network_host_prefix !== undefined
      ? [{
          cidr: (params.cluster_network_cidr as string | undefined) ?? (current.cluster_network_cidr as string | undefined) ?? CLUSTER_DEFAULTS.clusterNetworkCidr,
          host_prefix: (params.cluster_network_host_prefix as number | undefined) ?? (current.cluster_network_host_prefix as number | undefined) ?? CLUSTER_DEFAULTS.clusterNetworkHostPrefix,
        }]
      : undefined) ??
    list<Network>(current.cluster_networks) ?? [{ cidr: CLUSTER_DEFAULTS.clusterNetworkCidr, host_prefix: CLUSTER_DEFAULTS.clusterNetworkHostPrefix }];
  const serviceNetworks: Network[] =
    list<Network>(params.service_networks) ??
    (params.service_network_cidr !== undefined ? [{ cidr: params.service_network_cidr as string }] : undefined) ??
    list<Network>(current.service_networks) ?? [{ cidr: CLUSTER_DEFAULTS.serviceNetworkCidr }];
  const machineNetworks: Network[] =
    list<Network>(params.machine_networks) ??
    (params.machine_network_cidr ? [{ cidr: params.machine_network_cidr as string }] : undefined) ??
    list<Network>(current.machine_networks) ?? [];

  // The schema lets a network leave out its CIDR; upstream refuses it in these words.
  for (const [label, networks] of [['Cluster', clusterNetworks], ['Service', serviceNetworks], ['Machine', machineNetworks]] as const) {
    const index = networks.findIndex((network) => !network.cidr);
    if (index >= 0) throw badRequest(`${label} Network CIDR cannot be empty (index ${index})`);
  }
  const named: [string, Network][] = [
    ...clusterNetworks.map((n): [string, Network] => ['cluster network', n]),
    ...serviceNetworks.map((n): [string, Network] => ['service network', n]),
    ...machineNetworks.map((n): [string, Network] => ['machine network', n]),
  ];
  for (const [kind, network] of named) check(cidrProblem(kind, network.cidr));
  for (const network of clusterNetworks) {
    if (network.host_prefix === undefined) throw badRequest(`cluster network ${network.cidr} needs a host_prefix`);
    check(hostPrefixProblem(network.cidr, network.host_prefix));
  }
  for (let i = 0; i < named.length; i++) {
    for (let j = i + 1; j < named.length; j++) {
      const [kindA, a] = named[i]!;
      const [kindB, b] = named[j]!;
      if (overlaps(parseCidr(a.cidr)!, parseCidr(b.cidr)!)) throw badRequest(`${kindA} ${a.cidr} overlaps ${kindB} ${b.cidr}`);
    }
  }
  if (clusterNetworks.length > 2 || serviceNetworks.length > 2) {
    throw badRequest('at most two cluster and two service networks (one per IP family, for dual-stack)');
  }

  const vips = context.hosts
    ? updatedVips(params, current, context.hosts, { machineNetworks, serviceNetworks, clusterNetworks }, context)
    : createdVips(params, { machineNetworks, serviceNetworks, clusterNetworks }, context);

  return {
    cluster_networks: clusterNetworks.map((n) => ({ cluster_id: clusterId, cidr: n.cidr, host_prefix: n.host_prefix })),
    service_networks: serviceNetworks.map((n) => ({ cluster_id: clusterId, cidr: n.cidr })),
    cluster_network_cidr: clusterNetworks[0]?.cidr,
    cluster_network_host_prefix: clusterNetworks[0]?.host_prefix,
    service_network_cidr: serviceNetworks[0]?.cidr,
    machine_network_cidr: vips.machineNetworks[0],
    machine_networks: vips.machineNetworks.map((cidr) => ({ cluster_id: clusterId, cidr })),
    api_vips: vips.apiVips ?? vips.apiVipIps.map((ip) => ({ cluster_id: clusterId, ip, verification: 'unverified' as const })),
    ingress_vips: vips.ingressVips ?? vips.ingressVipIps.map((ip) => ({ cluster_id: clusterId, ip, verification: 'unverified' as const })),
    user_managed_networking: vips.userManagedNetworking,
    vip_dhcp_allocation: vips.vipDhcpAllocation,
    ...(vips.machineNetworksChanged ? { machine_network_cidr_updated_at: context.now } : {}),
  };
}

/** Soft timeouts were on for the cluster's organisation when it was created (org_soft_timeouts_enabled). */
export function softTimeoutsEnabled(cluster: Cluster | undefined): boolean {
  return cluster?.attributes.org_soft_timeouts_enabled === true;
}

/** Fields copied as given after their own checks. */
function simpleFields(request: ClusterCreateParams | ClusterUpdateParams): ClusterAttributes {
  const params: Params = request;
  const out: ClusterAttributes = {};
  if (typeof params.base_dns_domain === 'string' && params.base_dns_domain !== '') check(baseDomainProblem(params.base_dns_domain));
  if (typeof params.ssh_public_key === 'string' && params.ssh_public_key.trim() !== '') check(sshPublicKeyProblem(params.ssh_public_key));
  if (typeof params.http_proxy === 'string' && params.http_proxy !== '') check(proxyUrlProblem('http_proxy', params.http_proxy));
  if (typeof params.https_proxy === 'string' && params.https_proxy !== '') check(proxyUrlProblem('https_proxy', params.https_proxy));
  if (typeof params.no_proxy === 'string' && params.no_proxy !== '') check(noProxyProblem(params.no_proxy));
  if (typeof params.additional_ntp_source === 'string') check(ntpSourcesProblem('additional_ntp_source', params.additional_ntp_source));
  for (const field of [
    'base_dns_domain', 'ssh_public_key', 'http_proxy', 'https_proxy', 'no_proxy', 'additional_ntp_source', 'ntp_sources',
    'hyperthreading', 'network_type', 'schedulable_masters', 'disk_encryption', 'ignition_endpoint', 'tags', 'load_balancer',
    'api_vip_dns_name',
  ]) {
    if (params[field] !== undefined && params[field] !== null) out[field] = params[field];
  }
  return out;
}

export function createClusterRecord(
  params: ClusterCreateParams,
  context: { orgId: string; clusterId: string; now: string; release: ResolvedRelease; userName: string; softTimeouts?: boolean },
): Omit<Cluster, 'version'> {
  const name = params.name;
  check(clusterNameProblem(name));
  check(pullSecretProblem(params.pull_secret));
  const { count, mode } = controlPlane(params);
  const singleNode = count === 1;
  const attributes: ClusterAttributes = {
    kind: 'Cluster',
    openshift_version: context.release.openshiftVersion,
    ocp_release_image: context.release.releaseImage,
    cpu_architecture: context.release.cpuArchitecture,
    control_plane_count: count,
    high_availability_mode: mode,
    hyperthreading: 'all',
    network_type: 'OVNKubernetes',
    schedulable_masters: false,
    schedulable_masters_forced_true: !singleNode,
    disk_encryption: { enable_on: 'none', mode: 'tpmv2' },
    load_balancer: { type: 'cluster-managed' },
    monitored_operators: builtinMonitoredOperators(),
    image_info: { created_at: context.now },
    status_info: 'Cluster is not ready for install',
    user_name: context.userName,
    org_soft_timeouts_enabled: context.softTimeouts ?? false,
    ...simpleFields(params),
  };
  Object.assign(attributes, networking(params, context.clusterId, attributes, {
    singleNode,
    openshiftVersion: context.release.openshiftVersion,
    cpuArchitecture: context.release.cpuArchitecture,
    now: context.now,
  }));
  attributes.platform = params.platform ?? { type: attributes.user_managed_networking ? 'none' : 'baremetal' };
  checkPlatform(attributes);
  const namedArchitecture = params.cpu_architecture ? context.release.cpuArchitecture : undefined;
  checkOperators(attributes, params, { prerequisites: namedArchitecture, features: namedArchitecture });
  return {
    orgId: context.orgId,
    clusterId: context.clusterId,
    name,
    status: 'insufficient',
    createdAt: context.now,
    updatedAt: context.now,
    pullSecret: params.pull_secret as string,
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
    check(operatorPrerequisiteProblem(attributes.monitored_operators, { ...shape, cpuArchitecture: architecture.prerequisites }));
  }
  check(operatorFeatureProblem(attributes, architecture.features));
}

function checkPlatform(attributes: ClusterAttributes): void {
  const platform = attributes.platform?.type;
  if (platform === 'baremetal' && attributes.user_managed_networking) {
    throw badRequest('platform baremetal needs cluster-managed networking: use platform "none" with user-managed networking');
  }
}

export const DISCONNECTED_CLUSTER_KIND = 'DisconnectedCluster';
/** What a DisconnectedCluster is, as upstream's registrar says it. */
export const DISCONNECTED_STATUS_INFO = 'Cluster created for offline installation';

export const isDisconnectedCluster = (cluster: Pick<Cluster, 'attributes'> | undefined): boolean =>
  cluster?.attributes.kind === DISCONNECTED_CLUSTER_KIND;

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
  check(clusterNameProblem(name));
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
  return `Cluster ${cluster.clusterId} is a DisconnectedCluster: it only holds the settings of a disconnected ISO and cannot be ${action}. ` +
    'Change the ISO through its infra-env (PATCH /v2/infra-envs/{id}), boot the hosts from the ISO to install them with the agent-based installer, ' +
    'or create a cluster to install from here with POST /v2/clusters';
}

/** Applies a `v2-cluster-update-params` document; only in the states upstream allows. */
export function applyClusterUpdate(cluster: Cluster, params: ClusterUpdateParams, now: string, hosts: readonly MachineNetworkHost[] = []): Cluster {
  const disconnected = disconnectedClusterRefusal(cluster, 'updated');
  if (disconnected) throw conflict(disconnected);
  if (!UPDATABLE_STATES.has(cluster.status)) {
    throw conflict(`Cluster ${cluster.clusterId} is in status ${cluster.status} and cannot be updated; it can be updated only in ${[...UPDATABLE_STATES].join(', ')}`);
  }
  const next = structuredClone(cluster);
  if (typeof params.name === 'string') {
    check(clusterNameProblem(params.name));
    next.name = params.name;
  }
  if (typeof params.pull_secret === 'string') {
    check(pullSecretProblem(params.pull_secret));
    next.pullSecret = params.pull_secret;
  }
  const current = next.attributes;
  const singleNode = (current.control_plane_count as number) === 1;
  if (params.control_plane_count !== undefined && params.control_plane_count !== null) {
    const { count, mode } = controlPlane(params, current);
    if ((count === 1) !== singleNode) throw badRequest('a cluster cannot change between single-node and multi-node; create a new cluster');
    Object.assign(current, { control_plane_count: count, high_availability_mode: mode });
  }
  Object.assign(current, simpleFields(params));
  Object.assign(current, networking(params, cluster.clusterId, current, {
    singleNode,
    openshiftVersion: current.openshift_version as string,
    cpuArchitecture: (current.cpu_architecture as string | undefined) ?? 'x86_64',
    now,
    hosts,
  }));
  if (params.platform) current.platform = params.platform;
  checkPlatform(current);
  checkOperators(current, params, { prerequisites: (current.cpu_architecture as string | undefined) ?? 'x86_64' });
  next.updatedAt = now;
  return next;
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

export function clusterView(cluster: Cluster, extras: { hosts?: unknown[]; counts?: { total: number; enabled: number; ready: number } } = {}): Record<string, unknown> {
  const { [PEER_ADDRESS_BOOK]: _addressBook, ...attributes } = cluster.attributes;
  const view: Record<string, unknown> = {
    ...attributes,
    kind: (cluster.attributes.kind as string | undefined) ?? 'Cluster',
    id: cluster.clusterId,
    href: `/api/assisted-install/v2/clusters/${cluster.clusterId}`,
    name: cluster.name,
    org_id: cluster.orgId,
    status: cluster.status,
    status_info: (cluster.attributes.status_info as string | undefined) ?? '',
    status_updated_at: (cluster.attributes.status_updated_at as string | undefined) ?? cluster.createdAt,
    image_info: (cluster.attributes.image_info as object | undefined) ?? {},
    // Upstream reports feature usage to its telemetry from this field; nothing is tracked here.
    feature_usage: (cluster.attributes.feature_usage as string | undefined) ?? '{}',
    pull_secret_set: !!cluster.pullSecret,
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
