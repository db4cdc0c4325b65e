/**
 * A cluster's operators as upstream decides them when a cluster is created or updated: the OLM
 * operators the user selected on their own (olm_operators) or through bundles (operator_bundles),
 * with everything they depend on, and the combinations upstream refuses. Pure.
 */
import {
  builtinOperators,
  expandBundle,
  featureIds,
  featureName,
  featureSupportLevel,
  findOperator,
  getBundle,
  incompatibleArchitecturesOf,
  incompatibleFeatureIds,
  monitoredOlmOperator,
  normalizeCpuArchitecture,
  olmOperatorFeatureIds,
  operatorDependencies,
  operatorFullName as fullName,
  type ClusterShape,
  type FeatureId,
  type MonitoredOlmOperator,
} from '../catalogues/catalogues.js';
import { badRequest } from '../core/errors.js';
import { isAtLeast, isBelow } from '../core/ocp-version.js';
import type { ClusterAttributes } from '../core/entities.js';
import type { Schemas } from '../../../contracts/wire.js';

/** The parts of a create or update request that choose operators. */
export interface OperatorSelection {
  olm_operators?: readonly Schemas['operator-create-params'][] | null;
  operator_bundles?: readonly Schemas['bundle-create-params'][] | null;
}

type MonitoredOperator = Schemas['monitored-operator'];

/** The operators every cluster monitors, whatever it installs. */
export const builtinMonitoredOperators = (): MonitoredOperator[] => builtinOperators().map((operator) => ({ ...operator }));

/** The retired name of ODF: upstream still takes it and installs ODF. */
const RETIRED_NAMES: Readonly<Record<string, string>> = { ocs: 'odf' };

interface Chosen {
  name: string;
  properties?: string;
}

/**
 * The OLM operators a request selects, or undefined when it names neither olm_operators nor
 * operator_bundles (the cluster keeps what it has). Bundles are expanded first, in the order
 * given, then the operators selected on their own; an operator selected on its own is not
 * counted as coming from a bundle. Dependencies follow, marked dependency_only. A 400 names an
 * unknown operator or bundle, or an optional operator its bundle does not offer.
 */
export function selectOlmOperators(request: OperatorSelection, cluster: ClusterShape): MonitoredOlmOperator[] | undefined {
  if (!request.olm_operators && !request.operator_bundles) return undefined;
  const sourceBundles = new Map<string, string[]>();
  const chosen: Chosen[] = [];
  const choose = (candidate: Chosen) => {
    if (!chosen.some((c) => c.name === candidate.name)) chosen.push(candidate);
  };
  for (const bundle of request.operator_bundles ?? []) {
    for (const name of expandBundle(bundle.id, bundle.optional_operators ?? [])) {
      sourceBundles.set(name, [...(sourceBundles.get(name) ?? []), bundle.id]);
      choose({ name });
    }
  }
  for (const operator of request.olm_operators ?? []) {
    const name = operator.name ?? '';
    sourceBundles.delete(name);
    choose({ name, ...(operator.properties ? { properties: operator.properties } : {}) });
  }
  const selected: MonitoredOlmOperator[] = [];
  for (const { name, properties } of chosen) {
    const canonical = RETIRED_NAMES[name] ?? name;
    if (!findOperator(canonical)) throw badRequest(`operator ${name} isn't supported`);
    if (selected.some((operator) => operator.name === canonical)) continue;
    const bundles = sourceBundles.get(name);
    selected.push({ ...monitoredOlmOperator(canonical, cluster), ...(properties ? { properties } : {}), ...(bundles ? { source_bundles: bundles } : {}) });
  }
  return [...selected, ...dependenciesOf(selected, cluster)];
}

/** What the selected operators need and the user did not select, breadth first. */
function dependenciesOf(selected: readonly MonitoredOlmOperator[], cluster: ClusterShape): MonitoredOlmOperator[] {
  const present = new Set(selected.map((operator) => operator.name));
  const added: MonitoredOlmOperator[] = [];
  const queue = selected.flatMap((operator) => operatorDependencies(operator.name, cluster));
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    if (present.has(next)) continue;
    present.add(next);
    added.push({ ...monitoredOlmOperator(next, cluster), dependency_only: true });
    queue.push(...operatorDependencies(next, cluster));
  }
  return added;
}

/** The cluster's monitored operators once the request's selection replaces its OLM operators. */
export function withOlmOperators(current: readonly MonitoredOperator[] | undefined, olm: readonly MonitoredOlmOperator[]): MonitoredOperator[] {
  const kept = (current ?? builtinMonitoredOperators()).filter((operator) => operator.operator_type !== 'olm');
  return [...kept, ...olm];
}

const olmNames = (operators: readonly MonitoredOperator[] | undefined): string[] =>
  (operators ?? []).filter((operator) => operator.operator_type === 'olm' && operator.name).map((operator) => operator.name!);

/**
 * Upstream's operator prerequisites: LVM and OpenShift Virtualization together need 4.15, or a
 * single node from 4.12; and no operator may be incompatible with the CPU architecture. The
 * architecture is checked only when known: a create request that names none is not checked.
 */
export function operatorPrerequisiteProblem(
  operators: readonly MonitoredOperator[] | undefined,
  cluster: { openshiftVersion: string; singleNode: boolean; cpuArchitecture?: string },
): string | undefined {
  const names = olmNames(operators);
  if (names.includes('lvm') && names.includes('cnv') && !isAtLeast(cluster.openshiftVersion, '4.15.0')) {
    if (isBelow(cluster.openshiftVersion, '4.12.0'))
      return 'Currently, you can not install Logical Volume Manager operator at the same time as Virtualization operator.';
    if (!cluster.singleNode) return 'Logical Volume Manager is only supported for highly available openshift with version 4.15.0 or above';
  }
  if (cluster.cpuArchitecture === undefined) return undefined;
  const arch = normalizeCpuArchitecture(cluster.cpuArchitecture);
  const refused = names
    .filter((name) => {
      const operator = findOperator(name);
      return operator !== undefined && incompatibleArchitecturesOf(operator.feature_id, cluster.openshiftVersion).includes(arch);
    })
    .map(fullName)
    .sort();
  return refused.length > 0 ? `${refused.join(', ')} is not available when ${cluster.cpuArchitecture} CPU architecture is selected` : undefined;
}

/** The features a cluster uses that operator incompatibilities can name (upstream's active features). */
function activeFeatures(attributes: ClusterAttributes): FeatureId[] {
  const active = new Set<FeatureId>();
  if (attributes.control_plane_count === 1) active.add('SNO');
  const platform = attributes.platform;
  switch (platform?.type) {
    case 'baremetal':
      active.add('BAREMETAL_PLATFORM');
      break;
    case 'none':
      active.add('NONE_PLATFORM');
      break;
    case 'nutanix':
      active.add('NUTANIX_INTEGRATION');
      break;
    case 'vsphere':
      active.add('VSPHERE_INTEGRATION');
      break;
    case 'external':
      active.add('EXTERNAL_PLATFORM');
      if (platform.external?.platform_name === 'oci') active.add('EXTERNAL_PLATFORM_OCI');
      break;
  }
  active.add(attributes.user_managed_networking ? 'USER_MANAGED_NETWORKING' : 'CLUSTER_MANAGED_NETWORKING');
  if (attributes.vip_dhcp_allocation) active.add('VIP_AUTO_ALLOC');
  if (attributes.load_balancer?.type === 'user-managed') active.add('USER_MANAGED_LOAD_BALANCER');
  const names = olmNames(attributes.monitored_operators);
  for (const name of names) {
    const operator = findOperator(name);
    // Upstream counts MTV as used only together with OpenShift Virtualization, which it needs.
    if (operator && (name !== 'mtv' || names.includes('cnv'))) active.add(operator.feature_id);
  }
  // In the feature catalogue's order, so that the same request always gets the same reason.
  return featureIds().filter((id) => active.has(id));
}

/** The features that stand for installing an OLM operator. */
const OPERATOR_FEATURES: ReadonlySet<FeatureId> = new Set(olmOperatorFeatureIds());

/**
 * Upstream's feature check of a created or updated cluster, for the features of its operators:
 * with the CPU architecture the create request names, an operator unavailable for it on the
 * release is refused; and no operator may be used with a feature it is incompatible with (or
 * that is incompatible with it). Combinations without an operator are the create rules' business.
 */
export function operatorFeatureProblem(attributes: ClusterAttributes, requestedArchitecture?: string): string | undefined {
  const version = String(attributes.openshift_version ?? '');
  const active = activeFeatures(attributes);
  const operatorFeatures = active.filter((id) => OPERATOR_FEATURES.has(id));
  if (requestedArchitecture !== undefined) {
    const arch = normalizeCpuArchitecture(requestedArchitecture);
    for (const id of operatorFeatures) {
      const unavailable = featureSupportLevel(id, { openshiftVersion: version, cpuArchitecture: arch }).level === 'unavailable';
      if (unavailable || incompatibleArchitecturesOf(id, version).includes(arch)) {
        return `cannot use ${featureName(id)} because it's not compatible with the ${requestedArchitecture} architecture on version ${version} of OpenShift`;
      }
    }
  }
  for (const id of active) {
    const incompatible = incompatibleFeatureIds(id, version);
    const other = active.find((candidate) => incompatible.includes(candidate) && (OPERATOR_FEATURES.has(id) || OPERATOR_FEATURES.has(candidate)));
    if (other) return `cannot use ${featureName(id)} because it's not compatible with ${featureName(other)}`;
  }
  return undefined;
}

/**
 * The cluster's `operator_bundles`: the bundles its operators were selected through, each with
 * the optional operators chosen in it. Derived from the operators' source_bundles, never stored.
 */
export function operatorBundlesOf(operators: readonly MonitoredOperator[] | undefined): Schemas['bundle-create-params'][] {
  const members = new Map<string, string[]>();
  for (const operator of operators ?? []) {
    for (const id of operator.source_bundles ?? []) members.set(id, [...(members.get(id) ?? []), operator.name ?? '']);
  }
  return [...members].map(([id, names]) => {
    const optional = (getBundle(id).optional_operators ?? []).filter((name) => names.includes(name));
    return { id, ...(optional.length > 0 ? { optional_operators: optional } : {}) };
  });
}
