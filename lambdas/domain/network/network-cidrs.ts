/**
 * The checks upstream makes of a cluster's cluster, service and machine networks when a request
 * sets them, in its words (internal/network cidr_validations.go, dual_stack_validations.go and
 * bminventory's updateNetworks). A create only has the networks parsed and their dual-stack shape
 * checked; sizes, host prefixes and overlaps are left to the cluster's validations
 * (network-prefix-valid, no-cidrs-overlapping), which fail later. An update of a network checks
 * its size, host prefix and overlaps at once. Pure.
 */
import { parseCidr } from '../../../contracts/input-checks.js';

/** Addresses a cluster or service network must hold at least: 2^7 (upstream's MinMaskDelta). */
const MIN_CLUSTER_OR_SERVICE_MASK_DELTA = 7;
/** A machine network holds at least 16 addresses, 4 behind a user-managed load balancer, 2 for a single node. */
const MIN_MACHINE_MASK_DELTA = 4;
const MIN_USER_MANAGED_LOAD_BALANCER_MACHINE_MASK_DELTA = 2;
const MIN_SINGLE_NODE_MACHINE_MASK_DELTA = 1;

export interface NetworkEntry {
  cidr: string;
  host_prefix?: number;
}

const bitsOf = (family: 4 | 6): number => (family === 4 ? 32 : 128);

/** Every CIDR given parses (upstream's ValidateNetworkCIDRs); the request schema has already checked their form. */
export function unparsableNetworkProblems(networks: {
  machine: readonly NetworkEntry[];
  service: readonly NetworkEntry[];
  cluster: readonly NetworkEntry[];
}): string[] {
  const problems: string[] = [];
  for (const [label, list] of [
    ['Machine', networks.machine],
    ['Service', networks.service],
    ['Cluster', networks.cluster],
  ] as const) {
    list.forEach((network, index) => {
      if (network.cidr === '') problems.push(`${label} Network CIDR cannot be empty (index ${index})`);
      else if (!parseCidr(network.cidr))
        problems.push(`Could not parse ${label} Network CIDR ${network.cidr} (index ${index}): invalid CIDR address: ${network.cidr}`);
    });
  }
  return problems;
}

/** A subnet large enough, not the unspecified address, without host bits (upstream's verifySubnetCIDR). */
function subnetProblem(text: string, minMaskDelta: number): string | undefined {
  const cidr = parseCidr(text);
  if (!cidr) return `Failed to parse CIDR '${text}'`;
  const bits = bitsOf(cidr.family);
  if (cidr.prefix < 1 || cidr.prefix > bits - minMaskDelta) {
    return `Address mask size must be between 1 to ${bits - minMaskDelta} and must include at least ${2 ** minMaskDelta} addresses`;
  }
  if (cidr.start === 0n) return `The specified CIDR ${text} is invalid because its resulting routing prefix matches the unspecified address`;
  return undefined;
}

/** A cluster or service network holds at least 128 addresses (VerifyClusterOrServiceCIDR). */
export const clusterOrServiceCidrProblem = (cidr: string): string | undefined => subnetProblem(cidr, MIN_CLUSTER_OR_SERVICE_MASK_DELTA);

/** A machine network holds enough addresses for the topology (VerifyMachineCIDR). */
export function machineCidrProblem(cidr: string, singleNode: boolean, userManagedLoadBalancer: boolean): string | undefined {
  const delta = singleNode
    ? MIN_SINGLE_NODE_MACHINE_MASK_DELTA
    : userManagedLoadBalancer
      ? MIN_USER_MANAGED_LOAD_BALANCER_MACHINE_MASK_DELTA
      : MIN_MACHINE_MASK_DELTA;
  return subnetProblem(cidr, delta);
}

/**
 * Each node's slice of the cluster network holds 128 pod addresses, and the network holds a slice
 * for every host, at least four (VerifyClusterCidrSize).
 */
export function clusterCidrSizeProblem(hostPrefix: number, clusterNetwork: string, hostCount: number): string | undefined {
  const cidr = parseCidr(clusterNetwork);
  if (!cidr) return `Failed to parse CIDR '${clusterNetwork}'`;
  const bits = bitsOf(cidr.family);
  if (hostPrefix > bits - MIN_CLUSTER_OR_SERVICE_MASK_DELTA) {
    return `Host prefix, now ${hostPrefix}, must be less than or equal to ${bits - MIN_CLUSTER_OR_SERVICE_MASK_DELTA} to allow at least 128 addresses`;
  }
  const wanted = hostCount === 1 ? 1n : BigInt(Math.max(4, hostCount));
  const possible = 1n << BigInt(Math.min(63, Math.max(hostPrefix - cidr.prefix, 0)));
  if (wanted > possible) {
    const perHost = 1n << BigInt(Math.min(63, bits - hostPrefix));
    return `Cluster network CIDR prefix ${cidr.prefix} does not contain enough addresses for ${hostCount} hosts each one with ${hostPrefix} prefix (${perHost} addresses)`;
  }
  return undefined;
}

/** The host prefix is a positive number (VerifyNetworkHostPrefix). */
export const hostPrefixProblem = (prefix: number | undefined): string | undefined =>
  (prefix ?? 0) < 1 ? `Host prefix, now ${prefix ?? 0}, must be a positive integer` : undefined;

function overlapProblem(a: string, b: string): string | undefined {
  if (a === '' || b === '') return undefined;
  const first = parseCidr(a);
  const second = parseCidr(b);
  if (!first || !second) return `Failed to parse CIDR '${first ? b : a}'`;
  // Go's IPNet.Contains: one network holds the other's first address (never across families).
  const holds = (outer: typeof first, inner: typeof first) => outer.family === inner.family && inner.start >= outer.start && inner.start <= outer.end;
  return holds(first, second) || holds(second, first) ? `CIDRS ${a} and ${b} overlap` : undefined;
}

/**
 * The networks at one index do not overlap: service and cluster always, the machine network with
 * both when it is required (VerifyClusterCIDRsNotOverlap; upstream passes the user-managed
 * networking flag for "required").
 */
export function networksOverlapProblem(machine: string, cluster: string, service: string, machineNetworkRequired: boolean): string | undefined {
  if (machineNetworkRequired) {
    const withService = overlapProblem(machine, service);
    if (withService) return `MachineNetworkCIDR and ServiceNetworkCIDR: ${withService}`;
    const withCluster = overlapProblem(machine, cluster);
    if (withCluster) return `MachineNetworkCIDR and ClusterNetworkCidr: ${withCluster}`;
  }
  const serviceWithCluster = overlapProblem(service, cluster);
  return serviceWithCluster ? `ServiceNetworkCidr and ClusterNetworkCidr: ${serviceWithCluster}` : undefined;
}
