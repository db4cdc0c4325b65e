/**
 * The update that brings a registered cluster to the settings a declaration asks for, compared the
 * way the service stores them. Read by the hub controller (hub/translate.ts) and by `assisted ztp`
 * (cli/ztp/apply.ts), which declare a cluster from the same ZTP resources. Pure: no I/O.
 */
import { sameJson } from './json-shapes.js';
import type { Cluster, ClusterCreateParams, ClusterUpdateParams } from './wire.js';

/** A setting compared as it is: the same on both sides of the create and update parameters. */
type ScalarSetting = keyof ClusterUpdateParams & keyof ClusterCreateParams & keyof Cluster;

const SCALAR_SETTINGS = [
  'base_dns_domain',
  'ssh_public_key',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'network_type',
  'user_managed_networking',
  'schedulable_masters',
  'hyperthreading',
] as const satisfies readonly ScalarSetting[];

/** The host prefix the service gives a cluster network declared without one. */
const DEFAULT_HOST_PREFIX = 23;

const ips = (list: { ip?: string | null }[] | null | undefined) => (list ?? []).map((vip) => vip.ip ?? '');
const cidrs = (list: { cidr?: string | null }[] | null | undefined) => (list ?? []).map((net) => ({ cidr: net.cidr }));
const clusterNetworks = (list: { cidr?: string | null; host_prefix?: number | null }[] | null | undefined) =>
  (list ?? []).map((net) => ({ cidr: net.cidr, host_prefix: net.host_prefix ?? DEFAULT_HOST_PREFIX }));

/**
 * The settings of `want` that differ from `existing` (the scalar ones, and `alsoCompare`), its VIPs,
 * networks and platform; empty when nothing differs. Settings `want` leaves out are not compared.
 */
export function clusterSettingsUpdate(existing: Cluster, want: ClusterCreateParams, alsoCompare: readonly ScalarSetting[] = []): ClusterUpdateParams {
  const update: Record<string, unknown> = {};
  for (const field of [...SCALAR_SETTINGS, ...alsoCompare]) {
    if (want[field] === undefined) continue;
    if (!sameJson(existing[field] ?? undefined, want[field])) update[field] = want[field];
  }
  if (want.api_vips && !sameJson(ips(existing.api_vips), ips(want.api_vips))) update.api_vips = want.api_vips;
  if (want.ingress_vips && !sameJson(ips(existing.ingress_vips), ips(want.ingress_vips))) update.ingress_vips = want.ingress_vips;
  if (want.cluster_networks && !sameJson(clusterNetworks(existing.cluster_networks), clusterNetworks(want.cluster_networks)))
    update.cluster_networks = want.cluster_networks;
  if (want.service_networks && !sameJson(cidrs(existing.service_networks), cidrs(want.service_networks))) update.service_networks = want.service_networks;
  if (want.machine_networks && !sameJson(cidrs(existing.machine_networks), cidrs(want.machine_networks))) {
    // The service derives a single-stack cluster-managed load balancer's machine network from its
    // hosts' networks (none until a host on it is discovered) and refuses it set by hand, as upstream's
    // API does: there the difference is the service's to settle, and the VIPs are compared above.
    const userManagedNetworking = want.user_managed_networking ?? existing.user_managed_networking;
    const userManagedLoadBalancer = (want.load_balancer?.type ?? existing.load_balancer?.type) === 'user-managed';
    const dhcp = want.vip_dhcp_allocation ?? existing.vip_dhcp_allocation;
    if (userManagedNetworking || userManagedLoadBalancer || dhcp || want.machine_networks.length > 1) update.machine_networks = want.machine_networks;
  }
  if (want.platform && existing.platform?.type !== want.platform.type) update.platform = want.platform;
  return update as ClusterUpdateParams;
}

/** True when the stored install-config overrides already say what the declaration's say (as JSON, not as text). */
export function sameOverrides(stored: string | null | undefined, wanted: string | undefined): boolean {
  if (!wanted) return !stored;
  if (!stored) return false;
  try {
    return sameJson(JSON.parse(stored), JSON.parse(wanted));
  } catch {
    return false;
  }
}
