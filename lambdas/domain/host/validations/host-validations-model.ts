/**
 * The vocabulary shared by the host validation modules: validation ids and their categories, the
 * result shape, the parts of the inventory and of the stored agent replies the checks read, the
 * normalised cluster facts, and small IP helpers. Pure.
 */
import { Address4, Address6 } from 'ip-address';
import { parseStoredJson } from '../../core/stored-json.js';
import type { Cluster, Host, HostAttributes, InfraEnv } from '../../core/entities.js';
import type { ValidationResult, ValidationStatus } from '../host-facts.js';
import type { HostRole, HostStage } from '../host-states.js';
import type { HostValidationCategory, HostValidationId } from '../../core/validation-ids.js';
import { storedInventory } from '../inventory.js';
import type { Inventory, InventoryDisk, InventoryInterface, InventoryRoute } from '../../../../contracts/step-replies.js';
import { textOrEmpty } from '../../../../contracts/json-shapes.js';

// ---------------------------------------------------------------- ids and results

/** What one check decides. */
export interface Outcome {
  status: ValidationStatus;
  message: string;
  /**
   * Upstream computes the check (its state-machine condition holds) but leaves it out of
   * validations_info: its internal "success-suppress-output" status, used where a check does not
   * apply to the host (an unbound host, a single-node cluster, a platform it is not about).
   */
  hidden?: boolean;
}

export interface HostValidationResult extends ValidationResult {
  id: HostValidationId;
  category: HostValidationCategory;
  /** Left out of validations_info: see Outcome.hidden, and checks skipped in the host's install stage. */
  hidden?: boolean;
}

export const success = (message: string): Outcome => ({ status: 'success', message });
export const failure = (message: string): Outcome => ({ status: 'failure', message });
export const pending = (message: string): Outcome => ({ status: 'pending', message });
export const error = (message: string): Outcome => ({ status: 'error', message });
/** Passes without being shown: the check does not apply to this host. */
export const notApplicable = (message = ''): Outcome => ({ status: 'success', message, hidden: true });
export const outcomeOf = (passed: boolean, ok: string, failed: string): Outcome => (passed ? success(ok) : failure(failed));

// ---------------------------------------------------------------- inventory (the `inventory` model, the parts read here)

export type { Inventory, InventoryDisk, InventoryInterface, InventoryRoute } from '../../../../contracts/step-replies.js';

/**
 * The host's inventory as upstream's loadInventory accepts it: readable, with memory and CPU.
 * Anything else counts as no inventory at all.
 */
export function readInventory(attributes: Readonly<Record<string, unknown>>): Inventory | undefined {
  const inventory = storedInventory(attributes);
  return inventory?.memory && inventory.cpu ? inventory : undefined;
}

/** A JSON reply stored on a host, shared and frozen; undefined when absent, `null` when present but unreadable. */
export function readStoredJson<T>(attributes: Readonly<Record<string, unknown>>, field: string): Readonly<T> | undefined | null {
  try {
    return parseStoredJson(attributes, field) as T | undefined;
  } catch {
    return null;
  }
}

/** A JSON text that is not a stored field (nested in one); undefined when absent, `null` when unreadable. */
export function readJson<T>(text: unknown): T | undefined | null {
  if (typeof text !== 'string' || text === '') return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}

export const interfacesOf = (inventory: Inventory | undefined): InventoryInterface[] => inventory?.interfaces ?? [];
export const disksOf = (inventory: Inventory | undefined): InventoryDisk[] => inventory?.disks ?? [];

// ---------------------------------------------------------------- stored agent replies

export interface ConnectivityReport {
  remote_hosts?:
    | {
        host_id: string;
        l2_connectivity?:
          | { outgoing_nic?: string; outgoing_ip_address?: string; remote_ip_address?: string; remote_mac?: string; successful?: boolean }[]
          | null;
        l3_connectivity?:
          | { outgoing_nic?: string; remote_ip_address?: string; successful?: boolean; average_rtt_ms?: number; packet_loss_percentage?: number }[]
          | null;
        mtu_report?: { outgoing_nic?: string; remote_ip_address?: string; mtu_successful?: boolean }[] | null;
      }[]
    | null;
}

export interface DomainResolution {
  domain_name?: string;
  ipv4_addresses?: string[] | null;
  ipv6_addresses?: string[] | null;
  cnames?: string[] | null;
}

// ---------------------------------------------------------------- cluster facts

/**
 * A cluster attribute of this service's own (never in the API): whether the cluster's last
 * judgement computed its connectivity groups for a two-node cluster with fencing (a majority of
 * 2) rather than for a majority of 3. Upstream's hosts read the groups its cluster monitor stored,
 * so between a change of that topology (the second master's fencing credentials) and the
 * monitor's next pass they are judged against groups of the former one.
 */
export const CONNECTIVITY_GROUPS_FOR_FENCING = 'connectivity_groups_for_fencing';

/** The cluster fields the checks read, normalised from the stored attributes. */
export interface ClusterFacts {
  id: string;
  name: string;
  status: string;
  baseDnsDomain: string;
  openshiftVersion: string;
  releaseImage: string;
  controlPlaneCount: number;
  singleNode: boolean;
  /** kind AddHostsCluster. */
  day2: boolean;
  imported: boolean;
  userManagedNetworking: boolean;
  vipDhcpAllocation: boolean;
  loadBalancerUserManaged: boolean;
  platformType: string;
  /** platform external with the OCI integration. */
  ociPlatform: boolean;
  machineNetworks: string[];
  clusterNetworks: string[];
  serviceNetworks: string[];
  diskEncryption: { enableOn: string; mode: string };
  proxied: boolean;
  /** OLM operators the cluster monitors (dependencies included, as the API stores them). */
  olmOperators: string[];
  schedulableMasters: boolean;
  schedulableMastersForcedTrue: boolean;
  ignoredHostValidations?: string;
  /** CONNECTIVITY_GROUPS_FOR_FENCING as the cluster's last judgement stored it; absent before it. */
  connectivityGroupsForFencing?: boolean;
}

const cidrsOf = (networks: readonly { cidr?: string }[] | null | undefined): string[] =>
  (networks ?? []).map((network) => textOrEmpty(network.cidr)).filter((cidr) => cidr !== '');

export function clusterFacts(cluster: Cluster): ClusterFacts {
  const a = cluster.attributes;
  const controlPlaneCount = Number(a.control_plane_count ?? (a.high_availability_mode === 'None' ? 1 : 3));
  const platform = a.platform;
  const encryption = a.disk_encryption;
  const operators = a.monitored_operators ?? [];
  return {
    id: cluster.clusterId,
    name: cluster.name,
    status: cluster.status,
    baseDnsDomain: textOrEmpty(a.base_dns_domain),
    openshiftVersion: textOrEmpty(a.openshift_version),
    releaseImage: textOrEmpty(a.ocp_release_image),
    controlPlaneCount,
    singleNode: controlPlaneCount === 1,
    day2: a.kind === 'AddHostsCluster',
    imported: a.imported === true,
    userManagedNetworking: a.user_managed_networking === true,
    vipDhcpAllocation: a.vip_dhcp_allocation === true,
    loadBalancerUserManaged: a.load_balancer?.type === 'user-managed',
    platformType: textOrEmpty(platform?.type),
    ociPlatform: platform?.type === 'external' && platform.external?.platform_name === 'oci',
    machineNetworks: cidrsOf(a.machine_networks),
    clusterNetworks: cidrsOf(a.cluster_networks),
    serviceNetworks: cidrsOf(a.service_networks),
    diskEncryption: { enableOn: textOrEmpty(encryption?.enable_on) || 'none', mode: textOrEmpty(encryption?.mode) || 'tpmv2' },
    proxied: textOrEmpty(a.http_proxy) !== '' || textOrEmpty(a.https_proxy) !== '',
    // Stored names follow the API's enum, which spells one operator differently from the catalogue.
    olmOperators: operators.filter((o) => o.operator_type === 'olm' && o.name).map((o) => o.name!),
    schedulableMasters: a.schedulable_masters === true,
    schedulableMastersForcedTrue: a.schedulable_masters_forced_true === true,
    ...(typeof a.ignored_host_validations === 'string' ? { ignoredHostValidations: a.ignored_host_validations } : {}),
    ...(typeof a[CONNECTIVITY_GROUPS_FOR_FENCING] === 'boolean' ? { connectivityGroupsForFencing: a[CONNECTIVITY_GROUPS_FOR_FENCING] } : {}),
  };
}

// ---------------------------------------------------------------- what every check is given

/** A host of the cluster as the cross-host checks see it. */
export interface PeerHost {
  id: string;
  host: Host;
  inventory?: Inventory;
  /** The role as assigned by the user (auto-assign until the install action assigns one). */
  assignedRole: HostRole;
  /** The assigned role, or for auto-assign the suggestion (upstream's GetEffectiveRole). */
  role: HostRole;
  /** requested_hostname, else the reported one (upstream's getRealHostname). */
  hostname: string;
}

/** Totals a host must meet for its role: OpenShift's minimums plus its operators' additions. */
export interface RoleRequirements {
  cpuCores: number;
  ramMib: number;
  diskSizeGb: number;
  installationDiskSpeedThresholdMs: number;
  networkLatencyThresholdMs?: number;
  packetLossPercentage?: number;
}

export interface ResolvedValidationConfig {
  maxDisconnectionMs: number;
  bootstrapExtraDisconnectionMs: number;
  maxServiceAheadOfHostMs: number;
  maxHostAheadOfServiceMs: number;
  disabledValidations: readonly string[];
  enableUpgradeAgent: boolean;
  agentImage?: string;
  edgeWorkerProductNames: readonly string[];
  enableSingleNodeDnsmasq: boolean;
  imageDownloadRateThreshold: number;
}

export interface ValidationContext {
  readonly self: PeerHost;
  readonly attributes: HostAttributes;
  readonly inventory?: Inventory;
  /** Absent for an unbound host: upstream's checks then run against the infra-env. */
  readonly cluster?: ClusterFacts;
  readonly infraEnv?: InfraEnv;
  /** kind AddToExistingClusterHost. */
  readonly day2Host: boolean;
  /** Every host of the cluster, this one included (upstream's cluster.Hosts). */
  readonly clusterHosts: readonly PeerHost[];
  readonly requirements: RoleRequirements;
  /** Disks the host could install to, for its role's disk size (recomputed, not the stored flags). */
  readonly eligibleDisks: readonly InventoryDisk[];
  /** The selected installation disk, else the one upstream would select (the preferred eligible disk). */
  readonly installationDisk?: InventoryDisk;
  /** min(master, worker) minimums: what any role needs at least. */
  readonly minCpuCores: number;
  readonly minRamMib: number;
  readonly stage?: HostStage;
  /** The cluster's release, else the infra-env's (for an unbound host); may be empty. */
  readonly openshiftVersion: string;
  readonly now: Date;
  readonly config: ResolvedValidationConfig;
}

export type Check = (ctx: ValidationContext) => Outcome;

// ---------------------------------------------------------------- IP helpers

export interface ParsedIp {
  family: 4 | 6;
  value: bigint;
  /** Canonical text, as Go's net.IP.String() writes it. */
  text: string;
}

export interface ParsedCidr {
  family: 4 | 6;
  network: bigint;
  prefix: number;
  /** The network in canonical form ("192.168.1.0/24"), as Go's IPNet.String() writes it. */
  text: string;
  /** The address the CIDR was written with ("192.168.1.5" for "192.168.1.5/24"). */
  address: ParsedIp;
}

function parseAddress(text: string): Address4 | Address6 | undefined {
  const trimmed = text.trim();
  try {
    return trimmed.includes(':') ? new Address6(trimmed) : new Address4(trimmed);
  } catch {
    return undefined;
  }
}

export function parseIp(text: string | undefined): ParsedIp | undefined {
  if (!text || text.includes('/')) return undefined;
  const address = parseAddress(text);
  if (!address) return undefined;
  return { family: address instanceof Address4 ? 4 : 6, value: address.bigInt(), text: address.correctForm() };
}

export function parseCidr(text: string | undefined): ParsedCidr | undefined {
  if (!text?.includes('/')) return undefined;
  const address = parseAddress(text);
  if (!address) return undefined;
  const family = address instanceof Address4 ? 4 : 6;
  const start = address.startAddress();
  const plain = parseIp(address.addressMinusSuffix ?? text.split('/')[0]!);
  if (!plain) return undefined;
  return { family, network: start.bigInt(), prefix: address.subnetMask, text: `${start.correctForm()}/${address.subnetMask}`, address: plain };
}

export function cidrContains(cidr: ParsedCidr, ip: ParsedIp): boolean {
  if (cidr.family !== ip.family) return false;
  const bits = cidr.family === 4 ? 32 : 128;
  const shift = BigInt(bits - cidr.prefix);
  return ip.value >> shift === cidr.network >> shift;
}

/** Like Go's NetworksOverlap: one network holds the other's first address. */
export function cidrsOverlap(a: ParsedCidr, b: ParsedCidr): boolean {
  if (a.family !== b.family) return false;
  const first = (cidr: ParsedCidr): ParsedIp => ({ family: cidr.family, value: cidr.network, text: '' });
  return cidrContains(a, first(b)) || cidrContains(b, first(a));
}

export const isUnspecified = (ip: ParsedIp): boolean => ip.value === 0n;

/** The addresses (without prefix) of one family on an interface. */
export function interfaceIps(nic: InventoryInterface, family: 4 | 6): ParsedIp[] {
  const cidrs = (family === 4 ? nic.ipv4_addresses : nic.ipv6_addresses) ?? [];
  return cidrs
    .map(parseCidr)
    .filter((cidr): cidr is ParsedCidr => cidr !== undefined)
    .map((cidr) => cidr.address);
}

/** Whether an interface has an address of the network's family inside it (upstream's findMatchingIP). */
export const interfaceInNetwork = (nic: InventoryInterface, network: ParsedCidr): boolean =>
  interfaceIps(nic, network.family).some((ip) => cidrContains(network, ip));

export const parsedNetworks = (cidrs: readonly string[]): ParsedCidr[] => cidrs.map(parseCidr).filter((cidr): cidr is ParsedCidr => cidr !== undefined);

/** A route to everywhere through a real gateway (upstream's IsDefaultRoute). */
function isDefaultRouteTo(route: { gateway?: string; destination?: string }): boolean {
  const gateway = parseIp(route.gateway);
  const destination = parseIp(route.destination);
  return !!gateway && !!destination && destination.value === 0n && gateway.value !== 0n;
}

/** The lowest-metric default route of a family (upstream's GetDefaultRouteByFamily). */
export function defaultRoute(inventory: Inventory, family: 4 | 6): InventoryRoute | undefined {
  const families = family === 4 ? [2, 4] : [10, 6];
  const routes = (inventory.routes ?? []).filter((route) => families.includes(route.family ?? -1) && isDefaultRouteTo(route));
  return routes.reduce<(typeof routes)[number] | undefined>((best, route) => (!best || (route.metric ?? 0) <= (best.metric ?? 0) ? route : best), undefined);
}
