/**
 * What the cluster validations look at: the input a caller gives
 * (the cluster as the API shows it, its hosts, the clock) and the context derived from it once per
 * evaluation (parsed inventories, networks, the selected operators). Pure.
 */
import type { ClusterHostSummary } from '../cluster-hosts.js';
import { isJsonObject } from '../../../../contracts/json-shapes.js';
import { readInventory } from '../../../../contracts/step-replies.js';
import type { ValidationStatus } from '../../host/host-facts.js';
import type { ClusterValidationCategory, ClusterValidationId } from '../../core/validation-ids.js';

/** One entry of a cluster's validations_info, with its category. */
export interface ClusterValidationResult {
  id: ClusterValidationId;
  category: ClusterValidationCategory;
  status: ValidationStatus;
  message: string;
}

/** What one check concludes. */
export interface Verdict {
  status: ValidationStatus;
  message: string;
}

// A verdict is made as a host validation's outcome is (never `hidden`: every cluster check is shown).
export { error, failure, pending, success } from '../../host/validations/host-validations-model.js';

// ---------------------------------------------------------------- input

export type VipVerification = 'unverified' | 'succeeded' | 'failed';
export interface VipInput {
  ip: string;
  /** Set from the agents' verify-vips replies; absent or unverified falls back to the free-address lists. */
  verification?: VipVerification;
}
export interface NetworkInput {
  cidr: string;
  host_prefix?: number;
}

/** The cluster fields the validations read, spelled as the `cluster` schema (clusterView's output fits). */
export interface ClusterValidationSubject {
  kind?: string;
  openshift_version?: string;
  cpu_architecture?: string;
  control_plane_count?: number;
  platform?: { type?: string; external?: { platform_name?: string } };
  base_dns_domain?: string;
  pull_secret_set?: boolean;
  cluster_networks?: readonly NetworkInput[];
  service_networks?: readonly NetworkInput[];
  machine_networks?: readonly NetworkInput[];
  api_vips?: readonly VipInput[];
  ingress_vips?: readonly VipInput[];
  user_managed_networking?: boolean;
  vip_dhcp_allocation?: boolean;
  /** When the machine network was last set: the DHCP lease allocation is timed from it. */
  machine_network_cidr_updated_at?: string;
  network_type?: string;
  load_balancer?: { type?: string };
  install_config_overrides?: string;
  monitored_operators?: readonly { name: string; operator_type?: string }[];
  schedulable_masters?: boolean;
  ignored_cluster_validations?: string;
}

/** A host of the cluster, as the validations need it. */
export interface ValidationHostInput extends ClusterHostSummary {
  id?: string;
  /** The agent's inventory, as stored (JSON text). */
  inventory?: string;
  /** The free-network-addresses reply, as stored (JSON text). */
  freeAddresses?: string;
  /** The agent's clock at its last poll, in Unix seconds. */
  timestamp?: number;
  installationDiskId?: string;
}

export interface ClusterValidationInput {
  cluster: ClusterValidationSubject;
  hosts: readonly ValidationHostInput[];
  now: Date;
  /** The user uploaded at least one custom manifest (upstream's "Custom manifest" feature usage). */
  customManifestsUploaded?: boolean;
  /**
   * Service configuration (upstream's DISABLED_CLUSTER_VALIDATIONS): ids reported as disabled
   * instead of evaluated, unless the cluster has its own ignored-validations list.
   */
  disabledValidations?: readonly string[];
}

// ---------------------------------------------------------------- inventory

/** The parts of the agent's `inventory` model the cluster validations read. */
export interface HostInventory {
  cpu?: { count?: number; architecture?: string };
  memory?: { physical_bytes?: number; usable_bytes?: number };
  interfaces?: { name?: string; ipv4_addresses?: string[]; ipv6_addresses?: string[] }[];
  disks?: { id?: string; drive_type?: string; size_bytes?: number }[];
  gpus?: { vendor_id?: string; device_id?: string; name?: string }[];
}

export interface ValidationHost extends ValidationHostInput {
  /** Undefined when the host has none or it does not parse. */
  parsedInventory?: HostInventory;
}

export function parseHostInventory(text: string | undefined): HostInventory | undefined {
  if (!text) return undefined;
  try {
    return readInventory(JSON.parse(text));
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------- context

export interface ValidationContext {
  readonly input: ClusterValidationInput;
  readonly cluster: ClusterValidationSubject;
  readonly hosts: readonly ValidationHost[];
  readonly now: Date;
  readonly controlPlaneCount: number;
  readonly singleNode: boolean;
  readonly userManagedNetworking: boolean;
  readonly dhcp: boolean;
  readonly userManagedLoadBalancer: boolean;
  /** Upstream's test: some host sent an inventory (even one that does not parse). */
  readonly hasHostsWithInventories: boolean;
  readonly clusterNetworks: readonly NetworkInput[];
  readonly serviceNetworks: readonly NetworkInput[];
  readonly machineNetworks: readonly string[];
  readonly apiVips: readonly VipInput[];
  readonly ingressVips: readonly VipInput[];
  /** Names of the selected OLM operators. */
  readonly olmOperators: ReadonlySet<string>;
  readonly openshiftVersion: string;
  readonly cpuArchitecture: string;
}

export function validationContext(input: ClusterValidationInput): ValidationContext {
  const cluster = input.cluster;
  const controlPlaneCount = cluster.control_plane_count ?? 3;
  return {
    input,
    cluster,
    // A host without a role is one whose role is still to be chosen, as upstream's default.
    hosts: input.hosts.map((host) => ({ ...host, role: host.role ?? 'auto-assign', parsedInventory: parseHostInventory(host.inventory) })),
    now: input.now,
    controlPlaneCount,
    singleNode: controlPlaneCount === 1,
    userManagedNetworking: cluster.user_managed_networking === true,
    dhcp: cluster.vip_dhcp_allocation === true,
    userManagedLoadBalancer: cluster.load_balancer?.type === 'user-managed',
    hasHostsWithInventories: input.hosts.some((host) => !!host.inventory),
    clusterNetworks: cluster.cluster_networks ?? [],
    serviceNetworks: cluster.service_networks ?? [],
    machineNetworks: (cluster.machine_networks ?? []).map((network) => network.cidr),
    apiVips: cluster.api_vips ?? [],
    ingressVips: cluster.ingress_vips ?? [],
    olmOperators: new Set((cluster.monitored_operators ?? []).filter((operator) => operator.operator_type === 'olm').map((operator) => operator.name)),
    openshiftVersion: cluster.openshift_version ?? '',
    cpuArchitecture: cluster.cpu_architecture ?? 'x86_64',
  };
}

/** Without user-managed networking, or on a single node, the machine network must be known (IsMachineNetworkRequired). */
export const isMachineNetworkRequired = (ctx: ValidationContext): boolean => !ctx.userManagedNetworking || ctx.singleNode;

/** The network type in force: install_config_overrides may replace the cluster's own. */
export function effectiveNetworkType(cluster: ClusterValidationSubject): string {
  if (cluster.install_config_overrides) {
    try {
      const overrides: unknown = JSON.parse(cluster.install_config_overrides);
      const networking = isJsonObject(overrides) ? overrides.networking : undefined;
      const fromOverrides = isJsonObject(networking) ? networking.networkType : undefined;
      if (typeof fromOverrides === 'string' && fromOverrides !== '') return fromOverrides;
    } catch {
      // Unreadable overrides change nothing here; the install-config module reports them.
    }
  }
  return cluster.network_type ?? '';
}
