/**
 * What a host must have for its role (upstream's GetClusterHostRequirements: OpenShift's minimums
 * for the role plus what the cluster's operators add), and which role an auto-assign host would
 * get (upstream's selectRole). Pure.
 */
import type { HostRole } from '../host-states.js';
import { MEMORY_TOLERANCE_MIB } from './host-validations-hardware.js';
import type { ClusterFacts, Inventory, InventoryDisk, PeerHost, RoleRequirements } from './host-validations-model.js';
import { operatorsHostRequirements, validateOperator, type CpuRam } from './host-validations-operators.js';
import type { HardwareRole, RoleMinimums } from '../../catalogues/preflight.js';
import { isValidationIgnored } from '../../core/ignored-validations.js';

type Minimums = Record<HardwareRole, RoleMinimums>;

/** Edge-worker products by default (upstream's EDGE_WORKERS_PRODUCT_NAMES); the service configuration may name others. */
export const DEFAULT_EDGE_WORKER_PRODUCTS: readonly string[] = ['BlueField SoC'];

/** A BlueField-style SoC runs as a worker with smaller minimums. */
export function isEdgeWorker(inventory: Inventory | undefined, productNames: readonly string[]): boolean {
  const arch = inventory?.cpu?.architecture;
  if (arch !== 'aarch64' && arch !== 'arm64') return false;
  const normalise = (name: string) => name.replaceAll(' ', '').toLowerCase();
  const product = normalise(inventory?.system_vendor?.product_name ?? '');
  return productNames.some((name) => normalise(name) === product);
}

const fromMinimums = (m: RoleMinimums): RoleRequirements => ({
  cpuCores: m.cpu_cores ?? 0,
  ramMib: m.ram_mib ?? 0,
  diskSizeGb: m.disk_size_gb ?? 0,
  installationDiskSpeedThresholdMs: m.installation_disk_speed_threshold_ms ?? 0,
  ...(m.network_latency_threshold_ms !== undefined ? { networkLatencyThresholdMs: m.network_latency_threshold_ms } : {}),
  ...(m.packet_loss_percentage !== undefined ? { packetLossPercentage: m.packet_loss_percentage } : {}),
});

/**
 * OpenShift's minimums for a bound host's effective role: a single-node cluster's master gets the
 * sno ones; auto-assign (no suggestion yet) is held to the worker's, as upstream.
 */
export function ocpRoleRequirements(minimums: Minimums, role: HostRole, singleNode: boolean, edgeWorker: boolean): RoleRequirements {
  if (role === 'master' || role === 'bootstrap') return fromMinimums(singleNode ? minimums.sno : minimums.master);
  if (role === 'arbiter') return fromMinimums(minimums.arbiter);
  return fromMinimums(edgeWorker ? minimums['edge-worker'] : minimums.worker);
}

export const withOperators = (ocp: RoleRequirements, extra: CpuRam): RoleRequirements => ({
  ...ocp,
  cpuCores: ocp.cpuCores + extra.cpuCores,
  ramMib: ocp.ramMib + extra.ramMib,
});

/** An unbound host may get any role: it is held to the role with the smallest disk, as upstream. */
export function unboundRequirements(minimums: Minimums): RoleRequirements {
  let chosen = minimums.worker;
  if ((minimums.worker.disk_size_gb ?? 0) > (minimums.master.disk_size_gb ?? 0)) chosen = minimums.master;
  if ((chosen.disk_size_gb ?? 0) > (minimums.arbiter.disk_size_gb ?? 0)) chosen = minimums.arbiter;
  return fromMinimums(chosen);
}

/** What any role needs at least: min(master, worker), the master being sno for a single-node cluster. */
export function anyRoleMinimum(minimums: Minimums, singleNode: boolean): { cpuCores: number; ramMib: number } {
  const master = singleNode ? minimums.sno : minimums.master;
  return {
    cpuCores: Math.min(master.cpu_cores ?? 0, minimums.worker.cpu_cores ?? 0),
    ramMib: Math.min(master.ram_mib ?? 0, minimums.worker.ram_mib ?? 0),
  };
}

// ---------------------------------------------------------------- role suggestion

export interface RoleSuggestionInput {
  cluster: ClusterFacts;
  /** Every host of the cluster; `role` is ignored, `assignedRole` and the inventory are used. */
  hosts: readonly PeerHost[];
  minimums: Minimums;
  edgeWorkerProductNames: readonly string[];
  /** The disk each host installs to, for the operators that count data disks. */
  installationDiskOf: (host: PeerHost) => InventoryDisk | undefined;
}

/** Operators whose host checks decide whether a host can be a control-plane node (upstream's list). */
const MASTER_GATING_OPERATORS = ['lso', 'odf', 'cnv', 'lvm'];

function fitsRole(input: RoleSuggestionInput, working: PeerHost[], host: PeerHost, role: HostRole, checkOperators: boolean): boolean {
  const inventory = host.inventory!;
  const candidate: PeerHost = { ...host, assignedRole: role, role };
  // Only operators read the other hosts: without any, no copy of the cluster per host asked about
  // (in a cluster of hosts too small for the control plane, every host is asked).
  const peers = input.cluster.olmOperators.length > 0 ? working.map((peer) => (peer.id === host.id ? candidate : peer)) : working;
  const operatorContext = { cluster: input.cluster, host: candidate, inventory, clusterHosts: peers, installationDisk: input.installationDiskOf(host) };
  const ocp = ocpRoleRequirements(input.minimums, role, input.cluster.singleNode, isEdgeWorker(inventory, input.edgeWorkerProductNames));
  const needs = withOperators(ocp, operatorsHostRequirements(operatorContext));
  // A check the cluster ignores counts as passed, as in upstream's role conditions.
  const ignored = (id: string) => isValidationIgnored('host', input.cluster.ignoredHostValidations, id);
  const enough =
    ((inventory.cpu?.count ?? 0) >= needs.cpuCores || ignored('has-cpu-cores-for-role')) &&
    ((inventory.memory?.physical_bytes ?? 0) >= (needs.ramMib - MEMORY_TOLERANCE_MIB) * 1024 ** 2 || ignored('has-memory-for-role'));
  if (!enough || !checkOperators) return enough;
  return MASTER_GATING_OPERATORS.filter((name) => input.cluster.olmOperators.includes(name)).every(
    (name) => validateOperator(name, operatorContext).status === 'success',
  );
}

const registrationOrder = (a: PeerHost, b: PeerHost) => a.host.createdAt.localeCompare(b.host.createdAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

const GIB = 1024 ** 3;

/**
 * A host's hardware weight, as upstream's SortHosts measures it: CPU cores above 4, plus a tenth
 * of usable RAM (whole GiB) above 16 GiB, plus 0.004 per GiB of eligible disks above 100 GiB.
 */
export function hostWeight(inventory: Inventory): number {
  const eligibleDiskGib = (inventory.disks ?? []).reduce(
    (sum, disk) => sum + (disk.installation_eligibility?.eligible ? Math.floor((disk.size_bytes ?? 0) / GIB) : 0),
    0,
  );
  return (inventory.cpu?.count ?? 0) - 4 + 0.1 * (Math.floor((inventory.memory?.usable_bytes ?? 0) / GIB) - 16) + 0.004 * (eligibleDiskGib - 100);
}

/**
 * The order upstream's monitor refreshes a cluster's roles in (its SortHosts): hosts without a GPU
 * before hosts with one, each group lightest first (hostWeight), so the smallest hosts that fit
 * become control-plane nodes. Hosts of equal weight keep
 * registration order (upstream keeps its database's row order, which moves as rows are updated).
 */
export function inRoleRefreshOrder(hosts: readonly PeerHost[]): PeerHost[] {
  const keys = new Map(
    hosts.map((host) => [host, { gpu: (host.inventory?.gpus ?? []).length > 0 ? 1 : 0, weight: host.inventory ? hostWeight(host.inventory) : 0 }]),
  );
  return [...hosts].sort((a, b) => {
    const ka = keys.get(a)!;
    const kb = keys.get(b)!;
    return ka.gpu - kb.gpu || ka.weight - kb.weight || registrationOrder(a, b);
  });
}

/**
 * The role each auto-assign host would get, as upstream's selectRole decides it one host at a
 * time: a control-plane node while fewer than control_plane_count hosts are (if the host meets a
 * master's requirements, operators included), then one arbiter for a two-node control plane, the
 * rest workers; day-2 hosts are always workers. Hosts are taken in upstream's monitor order
 * (inRoleRefreshOrder: lightest first), ties in registration order so the answer never flips.
 * Hosts without an inventory keep auto-assign.
 */
export function suggestRoles(input: RoleSuggestionInput): Map<string, HostRole> {
  const working: PeerHost[] = input.hosts.map((host) => ({ ...host, role: host.assignedRole }));
  // Role counts kept as roles are decided, so each host's question costs O(1), not a scan of the cluster.
  const roleCounts = new Map<HostRole, number>();
  const positions = new Map<string, number[]>();
  working.forEach((peer, position) => {
    roleCounts.set(peer.role, (roleCounts.get(peer.role) ?? 0) + 1);
    const same = positions.get(peer.id);
    if (same) same.push(position);
    else positions.set(peer.id, [position]);
  });
  const countOthers = (host: PeerHost, roles: HostRole[]) => {
    let count = roles.reduce((sum, role) => sum + (roleCounts.get(role) ?? 0), 0);
    for (const position of positions.get(host.id) ?? []) if (roles.includes(working[position]!.role)) count -= 1;
    return count;
  };
  const suggestions = new Map<string, HostRole>();
  for (const host of inRoleRefreshOrder(working.filter((peer) => peer.inventory))) {
    if (host.assignedRole !== 'auto-assign') continue;
    let role: HostRole = 'worker';
    const controlPlane = input.cluster.controlPlaneCount;
    if (input.cluster.day2 || host.host.attributes.kind === 'AddToExistingClusterHost') {
      role = 'worker';
    } else if (countOthers(host, ['master', 'bootstrap']) < controlPlane && fitsRole(input, working, host, 'master', true)) {
      role = 'master';
    } else if (controlPlane === 2 && countOthers(host, ['arbiter']) === 0 && fitsRole(input, working, host, 'arbiter', false)) {
      role = 'arbiter';
    }
    suggestions.set(host.id, role);
    const position = positions.get(host.id)![0]!;
    roleCounts.set(working[position]!.role, roleCounts.get(working[position]!.role)! - 1);
    roleCounts.set(role, (roleCounts.get(role) ?? 0) + 1);
    working[position] = { ...host, role };
  }
  return suggestions;
}
