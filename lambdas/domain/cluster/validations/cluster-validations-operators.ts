/**
 * The operators' cluster validations (upstream's internal/operators/<name> ValidateCluster): one
 * per OLM operator, success ("<name> is disabled") when the operator is not selected, and OpenShift
 * AI's GPU check only when it is. The retired ocs operator has none: a request naming it gets odf.
 * Selected operators check what upstream checks — versions, CPU architecture, GPUs, ODF's disks and
 * topology, OpenShift AI's workers — and that the operators they depend on are there too (clusters
 * stored before dependencies were added at selection may lack them). Pure.
 */
import { findOperator, OPERATOR_VALIDATION_PARAMETERS, operatorDependencies, operatorFullName as fullName } from '../../catalogues/catalogues.js';
import { effectiveRole } from '../cluster-hosts.js';
import { error, failure, pending, success, type ValidationContext, type ValidationHost, type Verdict } from './cluster-validation-context.js';
import type { ClusterValidationId } from '../../core/validation-ids.js';
import { featureSupportLevel } from '../../catalogues/feature-support.js';
import { odfDeploymentMode, type OdfMode } from '../../host/validations/host-validations-operators.js';
import { isBelow, isValidVersion } from '../../core/ocp-version.js';

const { odf: ODF, gpu_vendor_ids: GPU_VENDOR_IDS } = OPERATOR_VALIDATION_PARAMETERS;

interface OperatorValidation {
  id: ClusterValidationId;
  /** The operator's catalogue name; "ocs" is the retired name of ODF. */
  operator: string;
  /** What a selected operator must satisfy beyond its dependencies; none means nothing. */
  check?: (ctx: ValidationContext) => Verdict | undefined;
  /** The dependency check belongs to the operator's main validation only. */
  skipDependencies?: boolean;
  /** Reported only for a cluster that installs the operator (not as "disabled" otherwise). */
  onlyWhenSelected?: boolean;
}

/** Fails when the cluster's release is older than the operator supports (upstream's BaseVersionLessThan). */
function minimumVersion(minimum: string, message: (minimum: string) => string) {
  return (ctx: ValidationContext): Verdict | undefined => {
    if (!isValidVersion(ctx.openshiftVersion)) return error(`The OpenShift version "${ctx.openshiftVersion}" cannot be compared with ${minimum}`);
    return isBelow(ctx.openshiftVersion, minimum) ? failure(message(minimum)) : undefined;
  };
}

/** Fails when the feature catalogue marks the operator unavailable on the cluster's CPU architecture. */
function architecture(featureId: string, operator: string) {
  return (ctx: ValidationContext): Verdict | undefined => {
    if (!isValidVersion(ctx.openshiftVersion)) return undefined;
    const { level, reason } = featureSupportLevel(featureId, { openshiftVersion: ctx.openshiftVersion, cpuArchitecture: ctx.cpuArchitecture });
    return level === 'unavailable' && reason === 'cpuArchitecture'
      ? failure(`${fullName(operator)} is not supported for ${ctx.cpuArchitecture} CPU architecture.`)
      : undefined;
  };
}

const all =
  (...checks: ((ctx: ValidationContext) => Verdict | undefined)[]) =>
  (ctx: ValidationContext): Verdict | undefined => {
    for (const check of checks) {
      const verdict = check(ctx);
      if (verdict) return verdict;
    }
    return undefined;
  };

// ---------------------------------------------------------------- GPUs

/**
 * Masters run workloads (and so can use a GPU) on a single node, when the user asks, or when
 * fewer than 2 workers exist — the value upstream keeps in schedulable_masters_forced_true.
 */
function mastersSchedulable(ctx: ValidationContext): boolean {
  const workers = ctx.hosts.filter((host) => effectiveRole(host) === 'worker').length;
  return ctx.singleNode || ctx.cluster.schedulable_masters === true || workers < 2;
}

function clusterHasGpu(ctx: ValidationContext, vendorId: string): boolean {
  const schedulable = mastersSchedulable(ctx);
  return ctx.hosts.some((host) => {
    const controlPlane = host.role === 'master' || host.role === 'bootstrap';
    if ((controlPlane && !schedulable) || host.role === 'arbiter') return false;
    return (host.parsedInventory?.gpus ?? []).some((gpu) => (gpu.vendor_id ?? '').toLowerCase() === vendorId);
  });
}

/** An operator for one vendor's GPUs needs at least one such GPU on a host that runs workloads. */
const gpuRequired = (vendorId: string, vendorName: string) => (ctx: ValidationContext) =>
  clusterHasGpu(ctx, vendorId)
    ? undefined
    : failure(`The ${vendorName} GPU operator requires at least one supported ${vendorName} GPU, but there is none in the discovered hosts.`);

// ---------------------------------------------------------------- ODF

/** The cluster's ODF deployment mode, from its hosts' assigned roles (a bootstrap host is a master). */
function odfMode(ctx: ValidationContext): OdfMode {
  const count = (roles: string[]) => ctx.hosts.filter((host) => roles.includes(host.role ?? 'auto-assign')).length;
  return odfDeploymentMode({
    masters: count(['master', 'bootstrap']),
    arbiters: count(['arbiter']),
    workers: count(['worker']),
    unassigned: count(['auto-assign']),
  });
}

function runsOdf(ctx: ValidationContext, mode: OdfMode, host: ValidationHost): boolean {
  const role = effectiveRole(host) ?? 'auto-assign';
  // Which role an unassigned host gets is known only for exactly three hosts; others are not counted.
  if (role === 'auto-assign' && ctx.hosts.length !== 3) return false;
  if (mode === 'compact') return ['master', 'bootstrap', 'arbiter', 'auto-assign'].includes(role);
  return mode === 'standard' && role === 'worker';
}

function odfRequirements(ctx: ValidationContext): Verdict {
  const mode = odfMode(ctx);
  if (mode === 'unknown') {
    return failure(
      'The cluster must either have no dedicated worker nodes or at least three. Add or remove hosts, or change their roles configurations to meet the requirement.',
    );
  }
  const insufficient = `Insufficient resources to deploy ODF in ${mode} mode. ODF requires a minimum of ${ODF.min_hosts} hosts. Each host must have at least 1 additional disk of ${ODF.min_disk_size_gb} GB minimum and an installation disk.`;
  let disks = 0;
  let hostsWithDisks = 0;
  for (const host of ctx.hosts.filter((candidate) => runsOdf(ctx, mode, candidate))) {
    if (!host.inventory) return pending('Missing Inventory in some of the hosts');
    if (!host.parsedInventory) return failure('Failed to parse the inventory of some of the hosts');
    let eligible = 0;
    let tooSmall = 0;
    for (const disk of host.parsedInventory.disks ?? []) {
      if (!['SSD', 'HDD'].includes(disk.drive_type ?? '') || disk.id === host.installationDiskId || !disk.size_bytes) continue;
      if (disk.size_bytes >= ODF.min_disk_size_gb * 1e9) eligible++;
      else tooSmall++;
    }
    if (eligible === 0 && tooSmall > 0) return failure(insufficient);
    if (eligible > 0) {
      disks += eligible;
      hostsWithDisks++;
    }
  }
  if (disks >= ODF.min_disks && hostsWithDisks >= ODF.min_hosts)
    return success(`ODF Requirements for ${mode === 'compact' ? 'Compact' : 'Standard'} Deployment are satisfied.`);
  return failure(insufficient);
}

// ---------------------------------------------------------------- OpenShift AI

const OPENSHIFT_AI_MIN_WORKERS = 2;

function openshiftAiWorkers(ctx: ValidationContext): Verdict | undefined {
  if (ctx.singleNode) return undefined;
  const workers = ctx.hosts.filter((host) => effectiveRole(host) === 'worker').length;
  return workers < OPENSHIFT_AI_MIN_WORKERS
    ? failure(`OpenShift AI requires at least ${OPENSHIFT_AI_MIN_WORKERS} worker nodes, but the cluster has ${workers}.`)
    : undefined;
}

/** Informational only: OpenShift AI installs without GPU support when no GPU operator is selected. */
function openshiftAiGpu(ctx: ValidationContext): Verdict {
  return ctx.olmOperators.has('nvidia-gpu') || ctx.olmOperators.has('amd-gpu')
    ? success('')
    : success('No GPU vendor selected - OpenShift AI will be installed without GPU support');
}

// ---------------------------------------------------------------- the table

const versionMessage = (name: string) => (minimum: string) => `${name} is only supported for openshift versions ${minimum} and above`;

/** Every operator validation id, in the enum's order. */
export const OPERATOR_VALIDATIONS: readonly OperatorValidation[] = [
  { id: 'lso-requirements-satisfied', operator: 'lso' },
  { id: 'odf-requirements-satisfied', operator: 'odf', check: odfRequirements },
  { id: 'cnv-requirements-satisfied', operator: 'cnv', check: architecture('CNV', 'cnv') },
  {
    id: 'lvm-requirements-satisfied',
    operator: 'lvm',
    check: all(minimumVersion('4.11.0', versionMessage('Logical Volume Manager')), (ctx) =>
      ctx.singleNode
        ? undefined
        : minimumVersion(
            '4.15.0',
            (minimum) => `Logical Volume Manager is only supported for highly available openshift with version ${minimum} or above`,
          )(ctx),
    ),
  },
  { id: 'mce-requirements-satisfied', operator: 'mce', check: minimumVersion('4.10.0', versionMessage('multicluster engine')) },
  { id: 'mtv-requirements-satisfied', operator: 'mtv', check: all(architecture('MTV', 'mtv'), minimumVersion('4.14.0', versionMessage(fullName('mtv')))) },
  { id: 'osc-requirements-satisfied', operator: 'osc', check: all(architecture('OSC', 'osc'), minimumVersion('4.10.0', versionMessage(fullName('osc')))) },
  { id: 'node-feature-discovery-requirements-satisfied', operator: 'node-feature-discovery' },
  { id: 'nvidia-gpu-requirements-satisfied', operator: 'nvidia-gpu', check: gpuRequired(GPU_VENDOR_IDS.nvidia, 'NVIDIA') },
  { id: 'pipelines-requirements-satisfied', operator: 'pipelines' },
  { id: 'servicemesh-requirements-satisfied', operator: 'servicemesh' },
  { id: 'serverless-requirements-satisfied', operator: 'serverless' },
  { id: 'openshift-ai-requirements-satisfied', operator: 'openshift-ai', check: openshiftAiWorkers },
  { id: 'openshift-ai-gpu-requirements-satisfied', operator: 'openshift-ai', check: openshiftAiGpu, skipDependencies: true, onlyWhenSelected: true },
  { id: 'authorino-requirements-satisfied', operator: 'authorino' },
  {
    id: 'nmstate-requirements-satisfied',
    operator: 'nmstate',
    check: all(architecture('NMSTATE', 'nmstate'), minimumVersion('4.12.0', versionMessage(fullName('nmstate')))),
  },
  { id: 'amd-gpu-requirements-satisfied', operator: 'amd-gpu', check: gpuRequired(GPU_VENDOR_IDS.amd, 'AMD') },
  { id: 'kmm-requirements-satisfied', operator: 'kmm' },
  { id: 'node-healthcheck-requirements-satisfied', operator: 'node-healthcheck' },
  { id: 'self-node-remediation-requirements-satisfied', operator: 'self-node-remediation' },
  { id: 'fence-agents-remediation-requirements-satisfied', operator: 'fence-agents-remediation' },
  { id: 'node-maintenance-requirements-satisfied', operator: 'node-maintenance' },
  { id: 'kube-descheduler-requirements-satisfied', operator: 'kube-descheduler' },
  { id: 'cluster-observability-requirements-satisfied', operator: 'cluster-observability' },
  { id: 'numa-resources-requirements-satisfied', operator: 'numaresources' },
  { id: 'oadp-requirements-satisfied', operator: 'oadp' },
  { id: 'metallb-requirements-satisfied', operator: 'metallb' },
  {
    id: 'loki-requirements-satisfied',
    operator: 'loki',
    check: minimumVersion('4.17.0', (minimum) => `Loki Operator is only supported for OpenShift versions ${minimum} and above`),
  },
  {
    id: 'openshift-logging-requirements-satisfied',
    operator: 'openshift-logging',
    check: minimumVersion('4.17.0', (minimum) => `OpenShift Logging Operator is only supported for OpenShift versions ${minimum} and above`),
  },
];

function selectedOperators(ctx: ValidationContext): Set<string> {
  return new Set(ctx.olmOperators);
}

function missingDependencies(ctx: ValidationContext, operator: string, selected: ReadonlySet<string>): Verdict | undefined {
  if (!findOperator(operator)) return undefined;
  const missing = operatorDependencies(operator, { openshiftVersion: ctx.openshiftVersion, singleNode: ctx.singleNode }).filter((name) => !selected.has(name));
  if (missing.length === 0) return undefined;
  return failure(`${fullName(operator)} needs ${missing.map(fullName).join(' and ')}: add ${missing.join(', ')} to the cluster's olm_operators.`);
}

export function operatorVerdicts(ctx: ValidationContext): [ClusterValidationId, Verdict][] {
  const selected = selectedOperators(ctx);
  // Operators of an existing cluster are already installed; adding hosts does not re-check them.
  const day2 = ctx.cluster.kind === 'AddHostsCluster';
  const reported = OPERATOR_VALIDATIONS.filter(({ operator, onlyWhenSelected }) => !onlyWhenSelected || selected.has(operator));
  return reported.map(({ id, operator, check, skipDependencies }) => {
    if (!selected.has(operator)) return [id, success(`${operator} is disabled`)];
    if (day2) return [id, success(`${operator} validation is disabled when adding hosts to an existing cluster.`)];
    const verdict =
      (skipDependencies ? undefined : missingDependencies(ctx, operator, selected)) ??
      check?.(ctx) ??
      // Upstream's operators give no reason when a cluster satisfies them.
      success('');
    return [id, verdict];
  });
}
