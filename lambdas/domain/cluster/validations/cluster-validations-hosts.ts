/**
 * The hosts-data and configuration validations: all-hosts-are-ready-to-install,
 * sufficient-masters-count (with upstream's counting of hosts whose role is still to be chosen),
 * pull-secret-set and platform-requirements-satisfied. Pure.
 */
import { findOperator, operatorRequirements } from '../../catalogues/catalogues.js';
import { effectiveRole, isTwoNodesWithFencing, MIN_MASTERS_HA, MIN_MASTERS_HA_ARBITER } from '../cluster-hosts.js';
import { failure, success, type ValidationContext, type ValidationHost, type Verdict } from './cluster-validation-context.js';
import { hardwareMinimums } from '../../catalogues/preflight.js';

/** Statuses from which a host can be installed. */
export const READY_TO_INSTALL_HOST_STATUSES = ['known', 'preparing-for-installation', 'preparing-successful'];
/** Upstream's has-memory-for-role accepts this much less than required (firmware reservations). */
const MEMORY_TOLERANCE_MIB = 100;
const MIB = 1024 * 1024;

export function allHostsAreReadyToInstall(ctx: ValidationContext): Verdict {
  return ctx.hosts.every((host) => READY_TO_INSTALL_HOST_STATUSES.includes(host.status))
    ? success('All hosts in the cluster are ready to install.')
    : failure('The cluster has hosts that are not ready to install.');
}

type CandidateRole = 'master' | 'arbiter';

/** CPU cores and MiB of RAM the role needs; undefined when the release is not one the catalogues can judge. */
function roleRequirements(ctx: ValidationContext, role: CandidateRole): { cores: number; ramMib: number } | undefined {
  try {
    const minimums = hardwareMinimums(ctx.openshiftVersion);
    const base = role === 'arbiter' ? minimums.arbiter : ctx.singleNode ? minimums.sno : minimums.master;
    let cores = base.cpu_cores ?? 0;
    let ramMib = base.ram_mib ?? 0;
    const shape = { openshiftVersion: ctx.openshiftVersion, singleNode: ctx.singleNode };
    for (const name of ctx.olmOperators) {
      if (!findOperator(name)) continue;
      // An arbiter runs no control-plane workloads: operators ask of it what they ask of a worker.
      const requirements = operatorRequirements(name, shape)[role === 'master' ? 'master' : 'worker'].quantitative;
      cores += requirements.cpu_cores ?? 0;
      ramMib += requirements.ram_mib ?? 0;
    }
    return { cores, ramMib };
  } catch {
    return undefined;
  }
}

/**
 * Whether a host still to be assigned could take the role (upstream's IsValidCandidate): it has
 * the CPU cores and memory the role needs, OpenShift's minimums plus the selected operators'.
 * Operators whose needs depend on the host (per disk, per GPU) count with their base amounts.
 * Without an inventory nothing is known, so the host is no candidate.
 */
export function isValidRoleCandidate(ctx: ValidationContext, host: ValidationHost, role: CandidateRole): boolean {
  const inventory = host.parsedInventory;
  if (!inventory) return false;
  const needs = roleRequirements(ctx, role);
  if (!needs) return false;
  const hostCores = inventory.cpu?.count ?? 0;
  const hostBytes = inventory.memory?.physical_bytes ?? 0;
  return hostCores >= needs.cores && hostBytes >= (needs.ramMib - MEMORY_TOLERANCE_MIB) * MIB;
}

/**
 * The cluster will have exactly control_plane_count masters. Hosts with a role (or a suggested
 * one) count as it; the others become masters while masters are missing and they qualify, then
 * the one arbiter a two-node control plane needs, then workers. A two-node control plane needs
 * an arbiter unless both masters have fencing credentials; a single node allows no worker.
 */
export function sufficientMastersCount(ctx: ValidationContext): Verdict {
  const wanted = ctx.controlPlaneCount;
  let masters = 0;
  let arbiters = 0;
  let workers = 0;
  const unassigned: ValidationHost[] = [];
  for (const host of ctx.hosts) {
    const role = effectiveRole(host);
    if (role === 'master' || role === 'bootstrap') masters++;
    else if (role === 'arbiter') arbiters++;
    else if (role === 'worker') workers++;
    else if (role === 'auto-assign') unassigned.push(host);
  }
  const twoNodeControlPlane = wanted < MIN_MASTERS_HA && wanted >= MIN_MASTERS_HA_ARBITER;
  for (const host of unassigned) {
    if (masters < wanted && isValidRoleCandidate(ctx, host, 'master')) masters++;
    else if (twoNodeControlPlane && arbiters === 0 && isValidRoleCandidate(ctx, host, 'arbiter')) arbiters++;
    else workers++;
  }

  let ok = masters === wanted;
  let suffix = '';
  if (twoNodeControlPlane && arbiters === 0 && !isTwoNodesWithFencing(ctx.hosts, wanted)) {
    ok = false;
    suffix = ' and at least 1 arbiter node or the control plane nodes must have fencing credentials';
  }
  if (ctx.singleNode && workers !== 0) ok = false;

  if (ok) return success('The cluster has the exact amount of dedicated control plane nodes.');
  if (ctx.singleNode) return failure('Single-node clusters must have a single control plane node and no workers.');
  return failure(
    `The cluster must have exactly ${wanted} dedicated control plane nodes${suffix}. Add or remove hosts, or change their roles configurations to meet the requirement.`,
  );
}

export function pullSecretSet(ctx: ValidationContext): Verdict {
  return ctx.cluster.pull_secret_set ? success('The pull secret is set.') : failure('The pull secret is not set.');
}

/** Only Oracle Cloud (external platform "oci") has requirements: its integration comes as a custom manifest. */
export function platformRequirementsSatisfied(ctx: ValidationContext): Verdict {
  const platform = ctx.cluster.platform;
  const oci = platform?.type === 'external' && platform.external?.platform_name === 'oci';
  if (!oci || ctx.input.customManifestsUploaded) return success('Platform requirements satisfied');
  return failure('The custom manifest required for Oracle Cloud Infrastructure platform integration has not been added. Add a custom manifest to continue.');
}
