/**
 * The machine networks upstream's cluster monitor derives for a multi-node cluster whose networks
 * are not user-managed, before each judgement while the cluster is pending-for-input or
 * insufficient: from each VIP family's API and ingress VIPs and the hosts' interfaces. The
 * derived networks replace the stored ones whenever they differ, so a single-stack network given
 * at creation gives way until hosts on it are discovered; only a dual-stack cluster keeps its
 * networks while none can be derived. Pure.
 */
import { calculateMachineNetworkCidr, type MachineNetworkHost } from '../network/machine-network.js';
import type { ClusterAttributes } from '../core/entities.js';

const DERIVING_STATES: ReadonlySet<string> = new Set(['pending-for-input', 'insufficient']);

const cidrsOf = (networks: unknown): string[] =>
  (Array.isArray(networks) ? networks : []).map((network) => (network as { cidr?: unknown })?.cidr).filter((cidr): cidr is string => typeof cidr === 'string' && cidr !== '');

/** Any of the machine, service or cluster networks holds both address families. */
function isDualStack(attributes: ClusterAttributes): boolean {
  return [attributes.machine_networks, attributes.service_networks, attributes.cluster_networks].some((networks) => {
    const cidrs = cidrsOf(networks);
    return cidrs.some((cidr) => cidr.includes(':')) && cidrs.some((cidr) => !cidr.includes(':'));
  });
}

/** The machine networks to store instead of the current ones, or undefined to keep them. */
export function derivedMachineNetworks(status: string, attributes: ClusterAttributes, hosts: readonly MachineNetworkHost[]): string[] | undefined {
  if (!DERIVING_STATES.has(status)) return undefined;
  if (attributes.vip_dhcp_allocation === true || attributes.control_plane_count === 1 || attributes.user_managed_networking === true) return undefined;
  // With a user-managed load balancer the VIPs may lie outside the hosts' networks.
  if (attributes.load_balancer?.type === 'user-managed') return undefined;
  const vipOf = (vips: unknown, index: number): string | undefined => (Array.isArray(vips) ? (vips[index] as { ip?: string } | undefined)?.ip : undefined) || undefined;
  const derive = (index: number) => calculateMachineNetworkCidr(hosts, vipOf(attributes.api_vips, index), vipOf(attributes.ingress_vips, index)) ?? '';
  const primary = derive(0);
  if (primary === '' && isDualStack(attributes)) return undefined;
  const secondary = derive(1);
  const [current0 = '', current1 = ''] = cidrsOf(attributes.machine_networks);
  if (primary === current0 && (secondary === '' || secondary === current1)) return undefined;
  return [primary, secondary].filter((cidr) => cidr !== '');
}
