/**
 * The cluster's networks and network settings: cluster/service CIDRs defined, no overlaps, same
 * address families, host prefix, base domain, clocks in sync, network type and the manifests a
 * third-party CNI needs. Upstream's rules (internal/cluster/validator.go, internal/network) and
 * messages. Pure.
 */
import {
  effectiveNetworkType,
  error,
  failure,
  isMachineNetworkRequired,
  pending,
  success,
  type ValidationContext,
  type Verdict,
} from './cluster-validation-context.js';
import { featureSupportLevel } from '../../catalogues/feature-support.js';
import { isIpv6Cidr } from '../../network/machine-network.js';
import { isValidVersion } from '../../core/ocp-version.js';
import { overlaps, parseCidr } from '../../../../contracts/input-checks.js';

/** Every node gets a /hostPrefix of the cluster network; it must hold at least 2^7 = 128 addresses. */
const MIN_MASK_DELTA = 7;
/** Host prefixes assumed for CNIs that do not use one, to size-check their cluster network anyway. */
const DEFAULT_IPV4_HOST_PREFIX = 25;
const DEFAULT_IPV6_HOST_PREFIX = 64;
/** Hosts' clocks may differ by this many whole minutes (upstream's MaximumAllowedTimeDiffMinutes). */
export const MAX_CLOCK_DIFF_MINUTES = 4;

export const NETWORK_TYPES = ['OVNKubernetes', 'OpenShiftSDN', 'Cilium', 'Calico', 'CiscoACI', 'None'] as const;
/** CNIs OpenShift does not ship: their manifests must be uploaded. */
const THIRD_PARTY_CNIS = ['Cilium', 'Calico', 'CiscoACI', 'None'];
/** The CNIs that allocate each node a /hostPrefix. */
const CNIS_USING_HOST_PREFIX = ['OVNKubernetes', 'OpenShiftSDN'];

export function clusterCidrDefined(ctx: ValidationContext): Verdict {
  return ctx.clusterNetworks.length > 0 ? success('The Cluster Network CIDR is defined.') : failure('The Cluster Network CIDR is undefined.');
}

export function serviceCidrDefined(ctx: ValidationContext): Verdict {
  return ctx.serviceNetworks.length > 0 ? success('The Service Network CIDR is defined.') : failure('The Service Network CIDR is undefined.');
}

/** Whether the CIDRs every later check needs are there; machineCidrDefined is passed in to avoid a cycle. */
function cidrsDefined(ctx: ValidationContext, machineCidrDefined: boolean): boolean {
  return ctx.clusterNetworks.length > 0 && ctx.serviceNetworks.length > 0 && (!isMachineNetworkRequired(ctx) || machineCidrDefined);
}

const undefinedCidrsMessage = (ctx: ValidationContext) =>
  isMachineNetworkRequired(ctx)
    ? 'At least one of the CIDRs (Machine Network, Cluster Network, Service Network) is undefined.'
    : 'At least one of the CIDRs (Cluster Network, Service Network) is undefined.';

function overlapProblem(a: string, b: string): string | undefined {
  if (!a || !b) return undefined;
  const first = parseCidr(a);
  const second = parseCidr(b);
  if (!first) return `Failed to parse CIDR '${a}'`;
  if (!second) return `Failed to parse CIDR '${b}'`;
  return overlaps(first, second) ? `CIDRS ${a} and ${b} overlap` : undefined;
}

export function noCidrsOverlapping(ctx: ValidationContext, machineCidrDefined: boolean): Verdict {
  if (!cidrsDefined(ctx, machineCidrDefined)) {
    return pending(
      ctx.userManagedNetworking
        ? 'At least one of the CIDRs (Cluster Network, Service Network) is undefined.'
        : 'At least one of the CIDRs (Machine Network, Cluster Network, Service Network) is undefined.',
    );
  }
  // Networks pair up by index, one per IP family; upstream assumes as many service as cluster networks.
  if (ctx.clusterNetworks.length !== ctx.serviceNetworks.length) return error('A mismatch between the number of Cluster and Service networks');
  const machineRequired = isMachineNetworkRequired(ctx);
  let machine = '';
  for (const [index, clusterNetwork] of ctx.clusterNetworks.entries()) {
    // As upstream, a missing machine network of this index keeps the previous one.
    machine = ctx.machineNetworks[index] ?? machine;
    const service = ctx.serviceNetworks[index]!.cidr;
    const machinePairs: [string, string, string][] = machineRequired
      ? [
          [machine, service, 'MachineNetworkCIDR and ServiceNetworkCIDR'],
          [machine, clusterNetwork.cidr, 'MachineNetworkCIDR and ClusterNetworkCidr'],
        ]
      : [];
    const pairs: [string, string, string][] = [...machinePairs, [service, clusterNetwork.cidr, 'ServiceNetworkCidr and ClusterNetworkCidr']];
    for (const [a, b, what] of pairs) {
      const problem = overlapProblem(a, b);
      if (problem) return failure(`CIDRS Overlapping: ${what}: ${problem}.`);
    }
  }
  return success('No CIDRS are overlapping.');
}

/** The families of a list of CIDRs, sorted (IPv4 first) and, if `collapse`, without repeats. */
function families(cidrs: readonly string[], collapse: boolean): number[] | undefined {
  if (cidrs.some((cidr) => !parseCidr(cidr))) return undefined;
  const sorted = cidrs.map((cidr) => (isIpv6Cidr(cidr) ? 6 : 4)).sort((a, b) => a - b);
  return collapse ? sorted.filter((family, index) => index === 0 || family !== sorted[index - 1]) : sorted;
}

const sameList = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((value, index) => value === b[index]);

export function networksSameAddressFamilies(ctx: ValidationContext, machineCidrDefined: boolean): Verdict {
  if (!cidrsDefined(ctx, machineCidrDefined)) return pending(undefinedCidrsMessage(ctx));
  // Several cluster networks may share a family; there is at most one service network per family.
  const service = families(
    ctx.serviceNetworks.map((network) => network.cidr),
    false,
  );
  const cluster = families(
    ctx.clusterNetworks.map((network) => network.cidr),
    true,
  );
  if (!service || !cluster) return error('Bad CIDR(s) appears in one of the networks');
  if (!sameList(service, cluster)) return failure('Address families of networks (ServiceNetworks, ClusterNetworks) are not the same.');
  if (isMachineNetworkRequired(ctx)) {
    const machine = families(ctx.machineNetworks, true);
    if (!machine) return error('Bad CIDR(s) appears in the machine networks');
    if (!sameList(service, machine)) return failure('Address families of networks (MachineNetworks, ServiceNetworks, ClusterNetworks) are not the same.');
  }
  return success('Same address families for all networks.');
}

/** Upstream's VerifyClusterCidrSize: each host gets a /hostPrefix of at least 128 addresses, and all hosts fit. */
function clusterCidrSizeProblem(hostPrefix: number, cidrText: string, hostCount: number): string | undefined {
  const cidr = parseCidr(cidrText);
  if (!cidr) return `Failed to parse CIDR '${cidrText}'`;
  const bits = cidr.family === 4 ? 32 : 128;
  if (hostPrefix > bits - MIN_MASK_DELTA) {
    return `Host prefix, now ${hostPrefix}, must be less than or equal to ${bits - MIN_MASK_DELTA} to allow at least 128 addresses`;
  }
  // Room for at least 4 nodes, so the cluster can grow past a compact one.
  const requested = hostCount === 1 ? 1 : Math.max(4, hostCount);
  const possible = 1n << BigInt(Math.min(63, Math.max(hostPrefix - cidr.prefix, 0)));
  if (BigInt(requested) > possible) {
    return `Cluster network CIDR prefix ${cidr.prefix} does not contain enough addresses for ${hostCount} hosts each one with ${hostPrefix} prefix (${1n << BigInt(Math.min(63, bits - hostPrefix))} addresses)`;
  }
  return undefined;
}

export function networkPrefixValid(ctx: ValidationContext): Verdict {
  if (ctx.clusterNetworks.length === 0) return pending('The Cluster Network CIDR is undefined.');
  const skipHostPrefix = !CNIS_USING_HOST_PREFIX.includes(effectiveNetworkType(ctx.cluster));
  const hostCount = ctx.hosts.length;
  for (const network of ctx.clusterNetworks) {
    const hostPrefix = network.host_prefix ?? 0;
    if (!skipHostPrefix && hostPrefix < 1) {
      return failure(`Invalid Cluster Network prefix: Host prefix, now ${hostPrefix}, must be a positive integer.`);
    }
    const prefixForSize = skipHostPrefix ? (isIpv6Cidr(network.cidr) ? DEFAULT_IPV6_HOST_PREFIX : DEFAULT_IPV4_HOST_PREFIX) : hostPrefix;
    const problem = clusterCidrSizeProblem(prefixForSize, network.cidr, hostCount);
    if (problem) return failure(problem);
  }
  return success('The Cluster Network prefix is valid.');
}

export function dnsDomainDefined(ctx: ValidationContext): Verdict {
  return ctx.cluster.base_dns_domain ? success('The base domain is defined.') : failure('The base domain is undefined and must be provided.');
}

/** Hosts that are not talking to the service have no meaningful clock reading. */
const CLOCKLESS_STATUSES = ['disconnected', 'resetting-pending-user-action', 'discovering'];

/** The hosts' clocks, as their agents last reported them, lie within a few minutes of each other. */
export function ntpServerConfigured(ctx: ValidationContext): Verdict {
  const stamps = ctx.hosts.filter((host) => !CLOCKLESS_STATUSES.includes(host.status) && !!host.timestamp).map((host) => host.timestamp!);
  const spreadMinutes = stamps.length === 0 ? 0 : Math.trunc((Math.max(...stamps) - Math.min(...stamps)) / 60);
  if (spreadMinutes <= MAX_CLOCK_DIFF_MINUTES) return success('No ntp problems found');
  return failure(
    `Hosts' clocks are not synchronized (there's more than a ${MAX_CLOCK_DIFF_MINUTES} minutes gap between clocks), please configure an NTP server via DHCP or set clocks manually.`,
  );
}

/** OpenShiftSDN was removed from OpenShift (4.15); the feature catalogue knows from which version. */
function sdnUnavailable(openshiftVersion: string): boolean {
  if (!isValidVersion(openshiftVersion)) return false;
  return featureSupportLevel('SDN_NETWORK_TYPE', { openshiftVersion }).level === 'unavailable';
}

export function networkTypeValid(ctx: ValidationContext): Verdict {
  const type = ctx.cluster.network_type;
  if (type !== undefined && !(NETWORK_TYPES as readonly string[]).includes(type)) {
    return failure('The network type is not valid; the valid network types are OpenShiftSDN, OVNKubernetes, Cilium, Calico, CiscoACI, or None');
  }
  const allCidrs = [...ctx.clusterNetworks.map((n) => n.cidr), ...ctx.serviceNetworks.map((n) => n.cidr), ...ctx.machineNetworks];
  if (type === 'OpenShiftSDN' && allCidrs.some(isIpv6Cidr)) {
    return failure('The cluster is configured with IPv6 which is not supported by OpenShiftSDN; use OVNKubernetes instead');
  }
  if (type === 'OpenShiftSDN' && ctx.singleNode) {
    return failure("Control Plane Count '1' (SNO) is not supported by OpenShiftSDN; use another network type instead");
  }
  // Upstream refuses this combination when the cluster is updated; a cluster created before the
  // catalogue said so must still not install a CNI its release no longer ships.
  if (type === 'OpenShiftSDN' && sdnUnavailable(ctx.openshiftVersion)) {
    return failure(`OpenShiftSDN is not available for OpenShift ${ctx.openshiftVersion}; use OVNKubernetes instead`);
  }
  if (ctx.dhcp && type === 'OVNKubernetes') return failure('VIP DHCP allocation is not supported when the cluster is configured to use OVNKubernetes.');
  return success('The cluster has a valid network type');
}

export function customManifestsRequirementsSatisfied(ctx: ValidationContext): Verdict {
  const type = effectiveNetworkType(ctx.cluster);
  if (!THIRD_PARTY_CNIS.includes(type)) return success('No custom manifests are required');
  if (ctx.input.customManifestsUploaded) return success('Custom manifests are uploaded');
  return failure(`Custom manifests are required for: ${type} network type. Please upload manifests via the custom manifests API.`);
}
