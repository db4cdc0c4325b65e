/**
 * Operator host validations (upstream internal/operators/<operator>: ValidateHost and
 * GetHostRequirements): what each OLM operator the cluster installs asks of one host, and what it
 * adds to the host's CPU and memory totals for its role. Base numbers come from
 * catalogues/operators.json; the per-role and per-disk rules are upstream's. Pure.
 */
import {
  findOperator,
  OPERATOR_VALIDATION_PARAMETERS,
  operatorFullName as fullName,
  operatorRequirements,
  type HostTypeRequirements,
} from '../../catalogues/catalogues.js';
import type { HostRole } from '../host-states.js';
import { HOST_VALIDATION_CATEGORIES, type HostValidationId } from '../../core/validation-ids.js';
import {
  failure,
  notApplicable,
  pending,
  success,
  type ClusterFacts,
  type Inventory,
  type InventoryDisk,
  type Outcome,
  type PeerHost,
} from './host-validations-model.js';

const SUFFIX = '-requirements-satisfied';
/** The validation id spells two operators differently from the catalogue. */
const CATALOGUE_NAME: Readonly<Record<string, string>> = { 'numa-resources': 'numaresources' };

export const OPERATOR_VALIDATION_IDS: readonly HostValidationId[] = HOST_VALIDATION_CATEGORIES.operators;

/** The catalogue name of the operator a validation id is about ("numa-resources-…" → numaresources). */
export function operatorOfValidation(id: string): string {
  const base = id.slice(0, -SUFFIX.length);
  return CATALOGUE_NAME[base] ?? base;
}

const { odf: ODF, mce: MCE, gpu_vendor_ids: GPU_VENDOR_IDS } = OPERATOR_VALIDATION_PARAMETERS;
const GIB = 1024 ** 3;
const MIB = 1024 ** 2;
const GB = 1000 ** 3;

/** What the operator checks read about the host and its cluster. */
export interface OperatorHostContext {
  cluster: ClusterFacts;
  host: PeerHost;
  inventory?: Inventory;
  clusterHosts: readonly PeerHost[];
  /** The disk the host installs to (selected, else the one upstream would pick): never counted as a data disk. */
  installationDisk?: InventoryDisk;
}

export interface CpuRam {
  cpuCores: number;
  ramMib: number;
}
const NONE: CpuRam = { cpuCores: 0, ramMib: 0 };

const normalRole = (role: HostRole): HostRole => (role === 'bootstrap' ? 'master' : role);

/** The catalogue's requirements for this cluster shape; an unreadable version falls back to the base ones. */
function catalogueRequirements(name: string, cluster: ClusterFacts): { master: CpuRam; worker: CpuRam } {
  const shape = (q: HostTypeRequirements): CpuRam => ({ cpuCores: q.quantitative.cpu_cores ?? 0, ramMib: q.quantitative.ram_mib ?? 0 });
  let requirements: ReturnType<typeof operatorRequirements>;
  try {
    requirements = operatorRequirements(name, { openshiftVersion: cluster.openshiftVersion, singleNode: cluster.singleNode });
  } catch {
    const operator = findOperator(name);
    if (!operator) return { master: NONE, worker: NONE };
    requirements = operator.requirements;
  }
  return { master: shape(requirements.master), worker: shape(requirements.worker) };
}

// ---------------------------------------------------------------- shared facts

/** Data disks: SSD or HDD, sized, not the installation disk (upstream's NonInstallationDiskCount). */
function dataDiskCounts(ctx: OperatorHostContext, minSizeGb: number): { eligible: number; tooSmall: number } {
  const installId = ctx.installationDisk?.id;
  let eligible = 0;
  let tooSmall = 0;
  for (const disk of ctx.inventory?.disks ?? []) {
    if (!['SSD', 'HDD'].includes(disk.drive_type ?? '') || !disk.size_bytes || (installId !== undefined && disk.id === installId)) continue;
    if (disk.size_bytes >= minSizeGb * GB) eligible++;
    else tooSmall++;
  }
  return { eligible, tooSmall };
}

/** With fewer than two workers the control plane also runs workloads (upstream's ShouldMastersBeSchedulable). */
function mastersRunWorkloads(ctx: OperatorHostContext): boolean {
  if (ctx.cluster.singleNode) return true;
  return ctx.clusterHosts.filter((peer) => peer.role === 'worker').length < 2;
}

export type OdfMode = 'compact' | 'standard' | 'unknown';

/**
 * Compact (ODF on the control plane) or standard (on 3+ workers), from how many of the cluster's
 * hosts have each assigned role, as upstream decides it for both its host and cluster validations.
 */
export function odfDeploymentMode(roles: { masters: number; arbiters: number; workers: number; unassigned: number }): OdfMode {
  const { masters, arbiters, workers, unassigned } = roles;
  if (masters + unassigned === 3 && workers === 0) return 'compact';
  if (workers === 0 && unassigned === 0 && masters + arbiters >= ODF.min_hosts) return 'compact';
  if ((masters >= 3 || (masters >= 2 && arbiters !== 0)) && workers >= ODF.min_hosts) return 'standard';
  return 'unknown';
}

function odfMode(ctx: OperatorHostContext): OdfMode {
  const count = (role: HostRole) => ctx.clusterHosts.filter((peer) => normalRole(peer.assignedRole) === role).length;
  return odfDeploymentMode({ masters: count('master'), arbiters: count('arbiter'), workers: count('worker'), unassigned: count('auto-assign') });
}

/** Whether ODF runs on this host; a string when that cannot be told for an auto-assign host. */
function hostRunsOdf(ctx: OperatorHostContext, mode: OdfMode): boolean | undefined | string {
  const role = normalRole(ctx.host.assignedRole);
  if (ctx.clusterHosts.length !== 3 && role === 'auto-assign') {
    return 'Auto-assigning roles for hosts with ODF is allowed only for clusters with exactly three hosts. For other scenarios, please manually assign the host role as either a control plane node or a worker.';
  }
  if (mode === 'unknown') return undefined;
  return (mode === 'compact' && ['master', 'arbiter', 'auto-assign'].includes(role)) || (mode === 'standard' && role === 'worker');
}

// ---------------------------------------------------------------- requirements per role

/** What one operator adds to this host's CPU and memory needs (GetHostRequirements). */
export function operatorHostRequirements(name: string, ctx: OperatorHostContext): CpuRam {
  const role = normalRole(ctx.host.role);
  const assigned = normalRole(ctx.host.assignedRole);
  const base = catalogueRequirements(name, ctx.cluster);
  switch (name) {
    case 'cnv':
      if (ctx.cluster.singleNode || role === 'master') return base.master;
      return role === 'arbiter' ? NONE : base.worker;
    case 'mce':
      if (ctx.cluster.singleNode) return { cpuCores: MCE.single_node_cpu_cores, ramMib: MCE.single_node_ram_gib * 1024 };
      return assigned === 'arbiter' ? NONE : base.worker;
    case 'mtv':
      return assigned === 'arbiter' ? NONE : base.master;
    case 'lvm':
      return (role === 'master' && !mastersRunWorkloads(ctx)) || role === 'arbiter' ? NONE : base.master;
    case 'odf': {
      const mode = odfMode(ctx);
      if (hostRunsOdf(ctx, mode) !== true) return NONE;
      const disks = Math.max(1, dataDiskCounts(ctx, ODF.min_disk_size_gb).eligible);
      // Compact mode runs on the control plane (the catalogue's master figures), standard mode on workers.
      const perHost = mode === 'compact' ? base.master : base.worker;
      return { cpuCores: perHost.cpuCores + disks * ODF.per_disk_cpu_cores, ramMib: perHost.ramMib + disks * ODF.per_disk_ram_gib * 1024 };
    }
    case 'openshift-ai':
      return role === 'master' ? base.master : role === 'worker' ? base.worker : NONE;
    default:
      return role === 'master' ? base.master : role === 'arbiter' ? NONE : base.worker;
  }
}

/** The sum over the cluster's OLM operators; day-2 clusters install none. */
export function operatorsHostRequirements(ctx: OperatorHostContext): CpuRam {
  if (ctx.cluster.day2) return NONE;
  return ctx.cluster.olmOperators.reduce<CpuRam>((total, name) => {
    if (!findOperator(name)) return total;
    const extra = operatorHostRequirements(name, ctx);
    return { cpuCores: total.cpuCores + extra.cpuCores, ramMib: total.ramMib + extra.ramMib };
  }, NONE);
}

// ---------------------------------------------------------------- validations

/** Upstream's operators give no reason when a host satisfies them: the message is empty. */
const satisfied = (_name: string) => success('');
const secureBootEnabled = (inventory: Inventory) => inventory.boot?.secure_boot_state === 'Enabled';
const hasGpu = (inventory: Inventory, vendorId: string) => (inventory.gpus ?? []).some((gpu) => gpu.vendor_id === vendorId);
/** Upstream compares operator memory against usable memory, not physical. */
const usableMib = (inventory: Inventory) => Math.floor((inventory.memory?.usable_bytes ?? 0) / MIB);
const cpuCount = (inventory: Inventory) => inventory.cpu?.count ?? 0;

function cpuAndMemory(name: string, ctx: OperatorHostContext, what: string): Outcome {
  const inventory = ctx.inventory;
  if (!inventory) return pending('Missing Inventory in the host');
  const needs = operatorHostRequirements(name, ctx);
  if (cpuCount(inventory) < needs.cpuCores) {
    return failure(`Insufficient CPU to deploy ${what}. Required CPU count is ${needs.cpuCores} but found ${cpuCount(inventory)}`);
  }
  if ((inventory.memory?.usable_bytes ?? 0) < needs.ramMib * MIB) {
    return failure(`Insufficient memory to deploy ${what}. Required memory is ${needs.ramMib} MiB but found ${usableMib(inventory)} MiB`);
  }
  return satisfied(name);
}

function validateOdf(ctx: OperatorHostContext): Outcome {
  const mode = odfMode(ctx);
  const runs = hostRunsOdf(ctx, mode);
  if (typeof runs === 'string') return pending(runs);
  if (runs !== true) return success('');
  if (!ctx.inventory) return pending('Missing Inventory in the host.');
  const disks = dataDiskCounts(ctx, ODF.min_disk_size_gb);
  if (disks.eligible === 0 && disks.tooSmall > 0) {
    return failure(
      `Insufficient resources to deploy ODF in ${mode} mode. ODF requires a minimum of 3 hosts. Each host must have at least 1 additional disk of ${ODF.min_disk_size_gb} GB minimum and an installation disk.`,
    );
  }
  if (disks.eligible === 0) {
    return failure(`Insufficient disks, ODF requires at least one non-installation SSD or HDD disk on each host in ${mode} mode.`);
  }
  return satisfied('odf');
}

function validateCnv(ctx: OperatorHostContext): Outcome {
  const inventory = ctx.inventory;
  if (!inventory) return pending('Missing Inventory in some of the hosts');
  const flags = inventory.cpu?.flags ?? [];
  const arch = inventory.cpu?.architecture;
  if (!flags.includes('vmx') && !flags.includes('svm') && arch !== 'aarch64' && arch !== 'arm64') {
    return failure('CPU does not have virtualization support: enable virtualization (VT-x or AMD-V) in the BIOS');
  }
  if (ctx.host.role === 'auto-assign') return failure('All host roles must be assigned to enable OpenShift Virtualization');
  return cpuAndMemory('cnv', ctx, 'OpenShift Virtualization');
}

function validateLvm(ctx: OperatorHostContext): Outcome {
  if (!ctx.inventory) return pending('Missing Inventory in the host');
  const role = normalRole(ctx.host.role);
  if (role === 'worker' || (mastersRunWorkloads(ctx) && role !== 'arbiter')) {
    if (dataDiskCounts(ctx, 0).eligible === 0) return failure('Logical Volume Manager requires at least one non-installation HDD/SSD disk on the host');
  } else if (role === 'auto-assign') {
    return failure('For Logical Volume Manager Standard Mode, host role must be assigned to master or worker.');
  }
  return satisfied('lvm');
}

function validateOpenshiftAi(ctx: OperatorHostContext): Outcome {
  const inventory = ctx.inventory;
  if (!inventory) return pending('Missing inventory in the host');
  const needs = operatorHostRequirements('openshift-ai', ctx);
  const problems: string[] = [];
  if (cpuCount(inventory) < needs.cpuCores)
    problems.push(`Insufficient CPU to deploy OpenShift AI, requires ${needs.cpuCores} CPU cores but found ${cpuCount(inventory)}`);
  if ((inventory.memory?.usable_bytes ?? 0) < needs.ramMib * MIB) {
    problems.push(
      `Insufficient memory to deploy OpenShift AI, requires ${Math.floor(needs.ramMib / 1024)} GiB but found ${Math.floor((inventory.memory?.usable_bytes ?? 0) / GIB)} GiB`,
    );
  }
  return problems.length > 0 ? failure(problems.join('\n')) : satisfied('openshift-ai');
}

/** GPU and kernel-module operators load out-of-tree drivers, which secure boot refuses. */
function validateSecureBoot(name: string, ctx: OperatorHostContext, gpuVendor: string | undefined, what: string): Outcome {
  const inventory = ctx.inventory;
  if (!inventory) return pending('Missing inventory in the host');
  if ((gpuVendor === undefined || hasGpu(inventory, gpuVendor)) && secureBootEnabled(inventory)) {
    return failure(`Secure boot is enabled, but it needs to be disabled in order to load ${what}`);
  }
  return satisfied(name);
}

/** ValidateHost of one operator the cluster installs. */
export function validateOperator(name: string, ctx: OperatorHostContext): Outcome {
  switch (name) {
    case 'odf':
      return validateOdf(ctx);
    case 'cnv':
      return validateCnv(ctx);
    case 'lvm':
      return validateLvm(ctx);
    case 'mce':
      return cpuAndMemory(name, ctx, 'multicluster engine');
    case 'mtv':
    case 'osc':
      return cpuAndMemory(name, ctx, fullName(name));
    case 'openshift-ai':
      return validateOpenshiftAi(ctx);
    case 'nvidia-gpu':
      return validateSecureBoot(name, ctx, GPU_VENDOR_IDS.nvidia, 'NVIDIA GPU drivers');
    case 'amd-gpu':
      return validateSecureBoot(name, ctx, GPU_VENDOR_IDS.amd, 'AMD GPU drivers');
    case 'kmm':
      return validateSecureBoot(name, ctx, undefined, 'modules');
    default:
      // The other operators ask nothing of a host.
      return satisfied(name);
  }
}

/**
 * Every operator validation for the host, as upstream's operator manager reports them: the
 * cluster's operators are checked, the others pass as disabled; a day-2 cluster installs none.
 * Unbound hosts get no operator results upstream, so here they pass without being shown.
 */
export function operatorOutcomes(ctx: OperatorHostContext | undefined): Map<HostValidationId, Outcome> {
  const outcomes = new Map<HostValidationId, Outcome>();
  for (const id of OPERATOR_VALIDATION_IDS) {
    const name = operatorOfValidation(id);
    if (!ctx) {
      outcomes.set(id, notApplicable('Host is not bound to a cluster'));
    } else if (!findOperator(name)) {
      // The retired ocs operator: upstream installs odf for it and reports no validation of its own.
      outcomes.set(id, notApplicable());
    } else if (!ctx.cluster.olmOperators.includes(name)) {
      outcomes.set(id, success(`${name} is disabled`));
    } else if (ctx.cluster.day2) {
      outcomes.set(id, success(`${name} validation is disabled when adding hosts to an existing cluster.`));
    } else {
      outcomes.set(id, validateOperator(name, ctx));
    }
  }
  return outcomes;
}
