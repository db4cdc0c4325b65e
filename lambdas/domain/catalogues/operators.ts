/**
 * The OLM operator catalogue (operators.json): the operators we offer, their properties, what they
 * depend on and require for a cluster shape, the bundles that group them, and their feature
 * support. Pure: no I/O, no clock.
 */
import operatorsData from './operators.json' with { type: 'json' };
import { badRequest, notFound } from '../core/errors.js';
import {
  featureSupportLevel,
  incompatibleFeatureIds,
  isArchitectureSupported,
  isPlatformSupported,
  type SUPPORT_FILTER_PARAMETERS,
  supportFilters,
  listFeatureSupport,
  knownCatalogueValue,
  normalizeCpuArchitecture,
  type FeatureId,
  type FeatureSupport,
  type SupportFilters,
} from './feature-support.js';
import { isBelow, isValidVersion } from '../core/ocp-version.js';
import { compareText } from '../core/compare.js';

export interface HostTypeRequirements {
  quantitative: { cpu_cores?: number; ram_mib?: number; disk_size_gb?: number };
  qualitative?: string[];
}
export interface OperatorRequirements {
  master: HostTypeRequirements;
  worker: HostTypeRequirements;
}
interface RequirementCondition {
  below?: string;
  single_node?: boolean;
}
export interface OperatorProperty {
  name: string;
  data_type: 'boolean' | 'string' | 'integer' | 'float';
  mandatory?: boolean;
  options?: string[];
  description?: string;
  default_value?: string;
}
export interface OlmOperatorDefinition {
  name: string;
  full_name: string;
  feature_id: FeatureId;
  namespace: string;
  subscription_name: string;
  timeout_seconds: number;
  /** Operators installed along with this one. */
  dependencies: string[];
  /** Dependencies that apply only to some clusters (e.g. single-node). */
  conditional_dependencies?: { when: RequirementCondition; operators: string[] }[];
  /** Bundles the operator always belongs to. */
  bundles: string[];
  /** Replaces `bundles` when the client says the cluster is single-node (feature SNO). */
  single_node_bundles?: string[];
  /** Bundles the user may add the operator to (the bundle's optional operators). */
  optional_bundles?: string[];
  /** The first whose condition holds replaces subscription_name. */
  subscription_overrides?: { when: RequirementCondition; subscription_name: string }[];
  properties: OperatorProperty[];
  requirements: OperatorRequirements;
  requirements_overrides?: { when: RequirementCondition; requirements: OperatorRequirements }[];
}
export interface BuiltinOperatorDefinition {
  name: string;
  operator_type: 'builtin';
  timeout_seconds: number;
}

const PROPERTY_DATA_TYPES: readonly OperatorProperty['data_type'][] = ['boolean', 'string', 'integer', 'float'];

/** An operator property as operators.json writes it: its data type still a plain string. */
type CatalogueProperty = Omit<OperatorProperty, 'data_type'> & { data_type: string };

const checkedProperties = (operator: string, properties: readonly CatalogueProperty[]): OperatorProperty[] =>
  properties.map(({ data_type, ...property }) => ({
    ...property,
    data_type: knownCatalogueValue(PROPERTY_DATA_TYPES, data_type, `operators.json: ${operator}.${property.name}`),
  }));

const OLM_OPERATORS: OlmOperatorDefinition[] = operatorsData.olm.map(({ properties, ...operator }) => ({
  ...operator,
  properties: checkedProperties(operator.name, properties),
}));
const BUILTIN_OPERATORS: BuiltinOperatorDefinition[] = operatorsData.builtin.map(({ operator_type, ...operator }) => ({
  ...operator,
  operator_type: knownCatalogueValue(['builtin'], operator_type, `operators.json: ${operator.name}`),
}));

/** Upstream's defaults the operator validations read (operators.json: validation_parameters). */
export const OPERATOR_VALIDATION_PARAMETERS = operatorsData.validation_parameters;

/** GET /v2/supported-operators. */
export const supportedOperatorNames = (): string[] => OLM_OPERATORS.map((operator) => operator.name);

/** The feature ids of the OLM operators (features.json describes each operator under its id). */
export const olmOperatorFeatureIds = (): FeatureId[] => OLM_OPERATORS.map((operator) => operator.feature_id);

export const builtinOperators = (): BuiltinOperatorDefinition[] => BUILTIN_OPERATORS.map((operator) => ({ ...operator }));

export function findOperator(name: string): OlmOperatorDefinition | undefined {
  return OLM_OPERATORS.find((operator) => operator.name === name);
}

/** The operator's name as messages show it ("OpenShift Virtualization"), or the name itself for one not in the catalogue. */
export const operatorFullName = (name: string): string => findOperator(name)?.full_name ?? name;

function requireOperator(name: string): OlmOperatorDefinition {
  const operator = findOperator(name);
  if (!operator) throw notFound(`Operator ${name} is not supported; GET /v2/supported-operators lists the supported ones`);
  return operator;
}

/** GET /v2/supported-operators/{operator_name}: the `operator-properties` model. */
export const operatorProperties = (name: string): OperatorProperty[] => requireOperator(name).properties.map((p) => ({ ...p }));

export interface ClusterShape {
  openshiftVersion: string;
  singleNode: boolean;
}

const conditionHolds = (when: RequirementCondition, cluster: ClusterShape) =>
  (when.below === undefined || isBelow(cluster.openshiftVersion, when.below)) && (when.single_node === undefined || when.single_node === cluster.singleNode);

/** Operators installed along with `name` for this cluster shape (direct dependencies only). */
export function operatorDependencies(name: string, cluster: ClusterShape): string[] {
  const operator = requireOperator(name);
  const conditional = (operator.conditional_dependencies ?? []).filter((d) => conditionHolds(d.when, cluster)).flatMap((d) => d.operators);
  return [...new Set([...operator.dependencies, ...conditional])];
}

/** Preflight hardware requirements an operator adds per role, for this cluster shape. */
export function operatorRequirements(name: string, cluster: ClusterShape): OperatorRequirements {
  const operator = requireOperator(name);
  const override = (operator.requirements_overrides ?? []).find((o) => conditionHolds(o.when, cluster));
  return structuredClone(override?.requirements ?? operator.requirements);
}

/** A `monitored-operator` of type olm, as a cluster records an operator it installs. */
export interface MonitoredOlmOperator {
  name: string;
  operator_type: 'olm';
  namespace: string;
  subscription_name: string;
  timeout_seconds: number;
  properties?: string;
  /** Installed only because another selected operator needs it. */
  dependency_only?: boolean;
  /** The bundles the user selected it through; absent for an operator selected on its own. */
  source_bundles?: string[];
}

/** The operator as a cluster of this shape monitors it (LVM's subscription depends on the release). */
export function monitoredOlmOperator(name: string, cluster: ClusterShape): MonitoredOlmOperator {
  const operator = requireOperator(name);
  const override = (operator.subscription_overrides ?? []).find((o) => conditionHolds(o.when, cluster));
  return {
    name: operator.name,
    operator_type: 'olm',
    namespace: operator.namespace,
    subscription_name: override?.subscription_name ?? operator.subscription_name,
    timeout_seconds: operator.timeout_seconds,
  };
}

// ---------------------------------------------------------------- operator bundles

/** The `bundle` model. */
export interface OperatorBundle {
  id: string;
  title: string;
  description: string;
  /** Operators always installed with the bundle, by name. */
  operators: string[];
  /** Operators the user may add to the bundle; absent when it has none. */
  optional_operators?: string[];
}

/** The only feature a client can name to change a bundle's operators. */
export type BundleFeature = 'SNO';
/** The bundle features among query values (openapi.yaml's enum has already refused any other). */
export const bundleFeatures = (values: readonly string[]): BundleFeature[] => values.filter((value): value is BundleFeature => value === 'SNO');

const BUNDLES: readonly { id: string; title: string; description: string }[] = operatorsData.bundles;

function bundleMembership(operator: OlmOperatorDefinition, features: readonly BundleFeature[]): string[] {
  return features.includes('SNO') && operator.single_node_bundles ? operator.single_node_bundles : operator.bundles;
}

/** GET /v2/operators/bundles/{id}: the bundle with its operators for the features the client names. */
export function getBundle(id: string, features: readonly BundleFeature[] = []): OperatorBundle {
  const bundle = BUNDLES.find((candidate) => candidate.id === id);
  if (!bundle) throw notFound(`bundle '${id}' is not supported`);
  const operators = OLM_OPERATORS.filter((operator) => bundleMembership(operator, features).includes(id))
    .map((o) => o.name)
    .sort(compareText);
  const optional = OLM_OPERATORS.filter((operator) => (operator.optional_bundles ?? []).includes(id))
    .map((o) => o.name)
    .sort(compareText);
  return { ...bundle, operators, ...(optional.length > 0 ? { optional_operators: optional } : {}) };
}

/** Whether an operator can be installed with these filters and alongside the features named. */
function operatorOffered(operator: OlmOperatorDefinition, filters: SupportFilters, features: readonly BundleFeature[]): boolean {
  const { level } = featureSupportLevel(operator.feature_id, filters);
  if (level === 'unavailable' || level === 'unsupported') return false;
  const incompatible = incompatibleFeatureIds(operator.feature_id, filters.openshiftVersion);
  return !features.some((feature) => incompatible.includes(feature));
}

/**
 * GET /v2/operators/bundles. Without filters every bundle; with them (an OpenShift version at
 * least), only bundles whose every operator is offered for them, with the optional operators
 * that are. A bundle that would hold no operator is never listed.
 */
export function listBundles(filters: SupportFilters | undefined, features: readonly BundleFeature[] = []): OperatorBundle[] {
  const listed: OperatorBundle[] = [];
  for (const { id } of BUNDLES) {
    const bundle = getBundle(id, features);
    if (bundle.operators.length === 0) continue;
    if (!filters) {
      listed.push(bundle);
      continue;
    }
    const offered = (name: string) => operatorOffered(requireOperator(name), filters, features);
    if (!bundle.operators.every(offered)) continue;
    // Filtered, the list is always there, even empty, as upstream answers.
    listed.push({ ...bundle, optional_operators: (bundle.optional_operators ?? []).filter(offered) });
  }
  return listed;
}

/**
 * The operators a cluster gets for a bundle the user selected, with the optional operators they
 * chose: the bundle's own first, then the chosen ones. A 400 for an unknown bundle or an operator
 * the bundle does not offer.
 */
export function expandBundle(id: string, optionalOperators: readonly string[] = []): string[] {
  if (!BUNDLES.some((bundle) => bundle.id === id)) throw badRequest(`bundle '${id}' is not supported`);
  const bundle = getBundle(id);
  for (const name of optionalOperators) {
    if (!(bundle.optional_operators ?? []).includes(name)) throw badRequest(`operator '${name}' is not a valid optional operator for bundle '${id}'`);
  }
  return [...bundle.operators, ...optionalOperators];
}

/**
 * The bundle filters of GET /v2/operators/bundles, checked as upstream checks them: none without
 * an OpenShift version; with one, a parseable version, an architecture offered for it (x86_64
 * unless named) and a platform supported for both.
 */
export function bundleFilters(query: Partial<Record<(typeof SUPPORT_FILTER_PARAMETERS)[number], string>>): SupportFilters | undefined {
  const version = query.openshift_version;
  if (version === undefined || version === '') return undefined;
  if (!isValidVersion(version)) throw badRequest(`invalid openshift version: Malformed version: ${version}`);
  const filters = supportFilters(query);
  const arch = filters.cpuArchitecture ?? 'x86_64';
  if (!isArchitectureSupported(arch, version)) throw badRequest(`cpu architecture ${arch} is not supported for openshift version ${version}`);
  if (filters.platformType && !isPlatformSupported(filters.platformType, filters.externalPlatformName, version, arch)) {
    throw badRequest(`platform ${filters.platformType} is not supported for openshift version ${version} and cpu architecture ${arch}`);
  }
  return filters;
}

/** Every feature id an operator may need, whatever the cluster shape (upstream's dependency feature ids). */
function dependencyFeatureIds(operator: OlmOperatorDefinition): FeatureId[] {
  const names = [...operator.dependencies, ...(operator.conditional_dependencies ?? []).flatMap((d) => d.operators)];
  return [...new Set(names.map((name) => requireOperator(name).feature_id))];
}

export interface OperatorSupport extends FeatureSupport {
  name: string;
  dependencies: FeatureId[];
}

/**
 * GET /v2/support-levels/features/detailed: the feature list split into plain features and
 * operators (features that install an OLM operator, with the operator name and dependencies).
 */
export function detailedFeatureSupport(filters: SupportFilters): { features: FeatureSupport[]; operators: OperatorSupport[] } {
  // Unlike the plain listing, upstream refuses combinations that cannot be installed at all.
  const version = filters.openshiftVersion;
  const arch = normalizeCpuArchitecture(filters.cpuArchitecture);
  if (!isArchitectureSupported(arch, version)) {
    throw badRequest(
      `cpu architecture ${arch} is not supported for openshift version ${version}; GET /v2/support-levels/architectures?openshift_version=${version} lists the supported ones`,
    );
  }
  if (filters.platformType && !isPlatformSupported(filters.platformType, filters.externalPlatformName, version, arch)) {
    throw badRequest(`platform ${filters.platformType} is not supported for openshift version ${version} and cpu architecture ${arch}`);
  }
  const byFeature = new Map(OLM_OPERATORS.map((operator) => [operator.feature_id, operator]));
  const features: FeatureSupport[] = [];
  const operators: OperatorSupport[] = [];
  for (const support of listFeatureSupport(filters)) {
    const operator = byFeature.get(support['feature-support-level-id']);
    if (operator) operators.push({ ...support, name: operator.name, dependencies: dependencyFeatureIds(operator) });
    else features.push(support);
  }
  return { features, operators };
}
