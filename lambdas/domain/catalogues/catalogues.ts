/**
 * The service's catalogues: OpenShift releases, component versions, OLM operators, feature
 * support and cluster defaults. The data lives in catalogues/*.json; these functions shape it
 * into upstream's API models. Pure: no I/O, no clock.
 */
import componentVersionsData from './component-versions.json' with { type: 'json' };
import operatorsData from './operators.json' with { type: 'json' };
import openshiftVersionsData from './openshift-versions.json' with { type: 'json' };
import { badRequest, notFound } from '../core/errors.js';
import {
  featureSupportLevel,
  incompatibleFeatureIds,
  isArchitectureSupported,
  isPlatformSupported,
  type SUPPORT_FILTER_PARAMETERS,
  supportFilters,
  listFeatureSupport,
  isCpuArchitecture,
  knownCatalogueValue,
  normalizeCpuArchitecture,
  type CpuArchitecture,
  type FeatureId,
  type FeatureSupport,
  type SupportFilters,
} from './feature-support.js';
import { compareBaseVersions, hasPatch, isBelow, isValidVersion, majorMinor, parseBaseVersion, stripMultiSuffix } from '../core/ocp-version.js';
import { compareText } from '../core/compare.js';

export * from './feature-support.js';

// ---------------------------------------------------------------- OpenShift releases

export type VersionSupportLevel = 'beta' | 'production' | 'maintenance' | 'end-of-life';
/** Architectures with their own (single-arch) release payload; `multi` is the heterogeneous one. */
const SINGLE_ARCHITECTURES = ['x86_64', 'arm64', 'ppc64le', 's390x'] as const;

export interface OpenshiftRelease {
  /** The minor stream, e.g. "4.18". */
  openshift_version: string;
  /** The release, e.g. "4.18.52" or "5.0.0-ec.5". */
  version: string;
  display_name: string;
  support_level: VersionSupportLevel;
  default?: boolean;
  rhcos_version: string;
  /** Payload pull spec per CPU architecture, `multi` included. */
  release_images: Partial<Record<string, string>>;
  multi_cpu_architectures: string[];
  /** RHCOS live ISO per single CPU architecture; an architecture without one is not offered. */
  os_images: Partial<Record<string, { url: string; version: string }>>;
}

/** The `openshift-version` model. */
export interface OpenshiftVersionView {
  display_name: string;
  support_level: VersionSupportLevel;
  /** Present (true) on the default release only. */
  default?: true;
  cpu_architectures: string[];
}

const VERSION_SUPPORT_LEVELS: readonly VersionSupportLevel[] = ['beta', 'production', 'maintenance', 'end-of-life'];

export const OPENSHIFT_RELEASES: OpenshiftRelease[] = openshiftVersionsData.releases.map(({ support_level, ...release }) => ({
  ...release,
  support_level: knownCatalogueValue(VERSION_SUPPORT_LEVELS, support_level, `openshift-versions.json: ${release.version}`),
}));

const isBeta = (release: OpenshiftRelease) => release.support_level === 'beta';

/** Single architectures a release can install: it needs both a payload and an RHCOS image. */
const singleArchitecturesOf = (release: OpenshiftRelease) => SINGLE_ARCHITECTURES.filter((arch) => release.release_images[arch] && release.os_images[arch]);

const multiArchitecturesOf = (release: OpenshiftRelease) =>
  release.release_images.multi ? release.multi_cpu_architectures.filter((arch) => release.os_images[arch]) : [];

/** Every architecture a release can install, `multi` last when its multi payload is usable. */
const offeredArchitectures = (release: OpenshiftRelease): string[] => [
  ...singleArchitecturesOf(release),
  ...(multiArchitecturesOf(release).length > 0 ? ['multi'] : []),
];

/**
 * The release upstream calls "latest" among candidates: the highest non-beta one, or the
 * highest beta when all are beta.
 */
function latestRelease(candidates: OpenshiftRelease[]): OpenshiftRelease | undefined {
  let latest: OpenshiftRelease | undefined;
  for (const candidate of candidates) {
    if (!latest) latest = candidate;
    else if (isBeta(latest) && !isBeta(candidate)) latest = candidate;
    else if (isBeta(latest) === isBeta(candidate) && compareBaseVersions(candidate.version, latest.version) > 0) latest = candidate;
  }
  return latest;
}

function latestPerMinor(releases: OpenshiftRelease[]): Set<OpenshiftRelease> {
  const byMinor = new Map<string, OpenshiftRelease[]>();
  for (const release of releases) byMinor.set(release.openshift_version, [...(byMinor.get(release.openshift_version) ?? []), release]);
  return new Set([...byMinor.values()].map((group) => latestRelease(group)!));
}

/**
 * GET /v2/openshift-versions. Keys are release versions; a release's multi-arch payload is a
 * separate `<version>-multi` entry. `version` keeps keys containing that substring,
 * `onlyLatest` keeps the latest release of each minor; both may apply.
 */
export function listOpenshiftVersions(
  query: { version?: string; onlyLatest?: boolean } = {},
  releases: OpenshiftRelease[] = OPENSHIFT_RELEASES,
): Record<string, OpenshiftVersionView> {
  const kept = query.onlyLatest ? latestPerMinor(releases) : new Set(releases);
  const versions: Record<string, OpenshiftVersionView> = {};
  const add = (key: string, view: OpenshiftVersionView) => {
    if (query.version !== undefined && !key.includes(query.version)) return;
    if (view.cpu_architectures.length > 0) versions[key] = view;
  };
  for (const release of releases.filter((r) => kept.has(r))) {
    add(release.version, {
      display_name: release.display_name,
      support_level: release.support_level,
      // Upstream names only the default release (default: true) and leaves the flag out of the others.
      ...(release.default === true ? { default: true } : {}),
      cpu_architectures: singleArchitecturesOf(release),
    });
    add(`${release.version}-multi`, {
      display_name: `${release.display_name}-multi`,
      support_level: release.support_level,
      cpu_architectures: multiArchitecturesOf(release),
    });
  }
  return versions;
}

export interface ResolvedRelease {
  /** What the cluster records as openshift_version: the release, `-multi` for the multi payload. */
  openshiftVersion: string;
  releaseImage: string;
  /** `multi` when the multi payload was chosen, else the normalised requested architecture. */
  cpuArchitecture: CpuArchitecture;
}

/**
 * The release a cluster gets for a requested version and CPU architecture. "4.18" means the
 * latest 4.18 release (non-beta preferred); "4.18.52" means exactly that one. A `-multi`
 * suffix selects the multi-arch payload, for architecture `multi` or any it covers. Undefined
 * when nothing fits, architecture `multi` with a version without the suffix included: upstream
 * names multi payloads `4.18-multi` / `4.18.52-multi` and looks a version up by that name, so
 * ("4.18", multi) finds no payload there (a 400).
 */
export function resolveOpenshiftVersion(
  version: string,
  cpuArchitecture: string,
  releases: OpenshiftRelease[] = OPENSHIFT_RELEASES,
): ResolvedRelease | undefined {
  const requested = version.trim();
  const arch = normalizeCpuArchitecture(cpuArchitecture);
  const wantsMulti = requested.endsWith('-multi');
  if (arch === 'multi' && !wantsMulti) return undefined;
  const base = stripMultiSuffix(requested);
  if (!parseBaseVersion(base)) return undefined;
  const fits = (release: OpenshiftRelease) =>
    wantsMulti
      ? multiArchitecturesOf(release).length > 0 && (arch === 'multi' || multiArchitecturesOf(release).includes(arch))
      : (singleArchitecturesOf(release) as string[]).includes(arch);
  const release = hasPatch(base)
    ? releases.find((r) => r.version === base && fits(r))
    : latestRelease(releases.filter((r) => r.openshift_version === base && fits(r)));
  if (!release) return undefined;
  const chosenArch = wantsMulti ? 'multi' : arch;
  if (!isCpuArchitecture(chosenArch)) return undefined;
  return {
    openshiftVersion: wantsMulti ? `${release.version}-multi` : release.version,
    releaseImage: release.release_images[chosenArch]!,
    cpuArchitecture: chosenArch,
  };
}

/**
 * The release a new cluster names by its payload (`ocp_release_image`), as upstream's registration
 * takes it over the version asked for: one of the catalogue's payloads, fitting the architecture
 * the cluster asks for (x86_64 by default; a multi payload fits each architecture it covers, and
 * only a multi payload fits multi).
 */
export function resolveReleaseImage(
  url: string,
  cpuArchitecture: string,
  releases: OpenshiftRelease[] = OPENSHIFT_RELEASES,
): ResolvedRelease | { problem: string } {
  const release = releases.find((r) => Object.values(r.release_images).includes(url));
  if (!release)
    return {
      problem: `failed to get release image by URL ${url} during cluster registration: it is none of the releases this service offers (GET /v2/openshift-versions lists them)`,
    };
  const imageArch = Object.entries(release.release_images).find(([, image]) => image === url)![0] as CpuArchitecture;
  const payloadArchitectures = imageArch === 'multi' ? release.multi_cpu_architectures : [imageArch];
  const requested = normalizeCpuArchitecture(cpuArchitecture || 'x86_64');
  if (requested === 'multi' ? imageArch !== 'multi' : !payloadArchitectures.includes(requested)) {
    return {
      problem:
        requested === 'multi'
          ? `release image URL ${url} does not support requested CPU architecture multi`
          : `Requested CPU architecture ${requested} is not supported for release image URL ${url}. Supported architectures in release image: [${payloadArchitectures.join(' ')}]`,
    };
  }
  return { openshiftVersion: imageArch === 'multi' ? `${release.version}-multi` : release.version, releaseImage: url, cpuArchitecture: imageArch };
}

/**
 * The RHCOS image an infra-env boots, named by its minor ("4.18"), as upstream picks it: the image
 * of the requested version's minor for the architecture, or, with no version asked for, the highest
 * minor with an image for it (a beta one included: upstream's OS image list knows no support
 * levels). The cluster an infra-env belongs to plays no part. Throws upstream's 400 when none fits.
 */
export function osImageVersionFor(requestedVersion: string | undefined, cpuArchitecture: string, releases: OpenshiftRelease[] = OPENSHIFT_RELEASES): string {
  const arch = normalizeCpuArchitecture(cpuArchitecture || 'x86_64');
  const minors = [...new Set(releases.filter((release) => release.os_images[arch]).map((release) => release.openshift_version))];
  if (minors.length === 0) throw badRequest(`The requested CPU architecture (${arch}) isn't specified in OS images list`);
  const requested = requestedVersion?.trim();
  if (!requested) return minors.reduce((latest, minor) => (compareBaseVersions(minor, latest) > 0 ? minor : latest));
  const minor = majorMinor(stripMultiSuffix(requested));
  if (minor && minors.includes(minor)) return minor;
  throw badRequest(
    `No OS image for Openshift version ${requested} and architecture ${arch}: The requested OS image for version (${requested}) and CPU architecture (${arch}) isn't specified in OS images list`,
  );
}

/** The release resolveOpenshiftVersion finds, or a 400 saying where the offered ones are listed. */
export function resolveRelease(version: string, cpuArchitecture = 'x86_64'): ResolvedRelease {
  const release = resolveOpenshiftVersion(version, cpuArchitecture);
  if (!release) {
    throw badRequest(`OpenShift ${version} for ${cpuArchitecture} is not offered; GET /v2/openshift-versions lists what is`);
  }
  return release;
}

/** CPU architectures offered for a version ("4.18", "4.18.52"), `multi` included when offered. */
export function cpuArchitecturesOf(version: string, releases: OpenshiftRelease[] = OPENSHIFT_RELEASES): string[] {
  const base = stripMultiSuffix(version.trim());
  const matching = releases.filter((r) => (hasPatch(base) ? r.version === base : r.openshift_version === majorMinor(base)));
  return [...new Set(matching.flatMap(offeredArchitectures))];
}

/**
 * Upstream's check of the architecture a new cluster names: x86_64 (or none) and multi always
 * pass, any other must be one its OS images offer for the version, by their own name (so the
 * alias aarch64, which the infra-env accepts, is refused for a cluster).
 */
export function clusterCpuArchitectureProblem(version: string, requested: string | undefined): string | undefined {
  if (requested === undefined || requested === '' || requested === 'x86_64' || requested === 'multi') return undefined;
  return cpuArchitecturesOf(version).includes(requested) ? undefined : `Requested CPU architecture ${requested} is not available`;
}

/** The `release-source` model: which minors and architectures we offer, and from which channel. */
export interface ReleaseSource {
  openshift_version: string;
  multi_cpu_architectures: string[];
  upgrade_channels: { cpu_architecture: string; channels: ('stable' | 'candidate')[] }[];
}

/**
 * GET /v2/release-sources, derived from the release catalogue so the two never disagree:
 * beta minors come from the candidate channel, the rest from stable.
 */
export function listReleaseSources(releases: OpenshiftRelease[] = OPENSHIFT_RELEASES): ReleaseSource[] {
  const latest = [...latestPerMinor(releases)].sort((a, b) => compareBaseVersions(a.version, b.version));
  return latest.map((release) => {
    const channels: ('stable' | 'candidate')[] = [isBeta(release) ? 'candidate' : 'stable'];
    // A minor's payloads may be of several z-streams (4.13's arm64 and multi trail its x86_64): the minor offers them all.
    const ofMinor = releases.filter((r) => r.openshift_version === release.openshift_version);
    const order: readonly string[] = [...SINGLE_ARCHITECTURES, 'multi'];
    const architectures = [...new Set(ofMinor.flatMap(offeredArchitectures))].sort((a, b) => order.indexOf(a) - order.indexOf(b));
    return {
      openshift_version: release.openshift_version,
      multi_cpu_architectures: [...new Set(ofMinor.flatMap(multiArchitecturesOf))],
      upgrade_channels: architectures.map((cpu_architecture) => ({ cpu_architecture, channels })),
    };
  });
}

/** The release marked default (the latest production one); the unit tests check there is one. */
export function defaultRelease(releases: OpenshiftRelease[] = OPENSHIFT_RELEASES): OpenshiftRelease {
  const release = releases.find((r) => r.default === true);
  if (!release) throw new Error('openshift-versions.json marks no release as default');
  return release;
}

/** The version a request that names none gets, e.g. "4.22.9". */
export const defaultOpenshiftVersion = (releases: OpenshiftRelease[] = OPENSHIFT_RELEASES): string => defaultRelease(releases).version;

// ---------------------------------------------------------------- component versions

/** GET /v2/component-versions: the `list-versions` model. */
export function componentVersions(): { versions: Record<string, string>; release_tag: string } {
  return { versions: { ...componentVersionsData.versions }, release_tag: componentVersionsData.release_tag };
}

// ---------------------------------------------------------------- operators

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

// ---------------------------------------------------------------- cluster defaults and domains

/**
 * GET /v2/clusters/default-config, with upstream's shipped defaults (CLUSTER_NETWORK_CIDR,
 * CLUSTER_NETWORK_HOST_PREFIX, SERVICE_NETWORK_CIDR and their IPv6 twins, DELETED_INACTIVE_AFTER
 * 480h, NTP_DEFAULT_SERVER unset) and the host names no host may take.
 */
export const CLUSTER_DEFAULTS = Object.freeze({
  clusterNetworkCidr: '10.128.0.0/14',
  clusterNetworkHostPrefix: 23,
  clusterNetworkCidrIpv6: 'fd01::/48',
  clusterNetworkHostPrefixIpv6: 64,
  serviceNetworkCidr: '172.30.0.0/16',
  serviceNetworkCidrIpv6: 'fd02::/112',
  inactiveDeletionHours: 480,
  ntpSource: '',
  forbiddenHostnames: ['localhost', 'localhost.localdomain', 'localhost4', 'localhost4.localdomain4', 'localhost6', 'localhost6.localdomain6'],
});

export function clusterDefaultConfig() {
  const d = CLUSTER_DEFAULTS;
  const ipv4Cluster = { cidr: d.clusterNetworkCidr, host_prefix: d.clusterNetworkHostPrefix };
  const ipv6Cluster = { cidr: d.clusterNetworkCidrIpv6, host_prefix: d.clusterNetworkHostPrefixIpv6 };
  return {
    cluster_network_cidr: d.clusterNetworkCidr,
    cluster_network_host_prefix: d.clusterNetworkHostPrefix,
    service_network_cidr: d.serviceNetworkCidr,
    inactive_deletion_hours: d.inactiveDeletionHours,
    ntp_source: d.ntpSource,
    cluster_networks_ipv4: [ipv4Cluster],
    cluster_networks_dualstack: [ipv4Cluster, ipv6Cluster],
    service_networks_ipv4: [{ cidr: d.serviceNetworkCidr }],
    service_networks_dualstack: [{ cidr: d.serviceNetworkCidr }, { cidr: d.serviceNetworkCidrIpv6 }],
    forbidden_hostnames: [...d.forbiddenHostnames],
  };
}

/** GET /v2/domains: the managed base domains (keys of the configured hosted-zone map), all Route53. */
export function listManagedDomains(hostedZones: Record<string, string>): { domain: string; provider: 'route53' }[] {
  return Object.keys(hostedZones)
    .sort()
    .map((domain) => ({ domain, provider: 'route53' as const }));
}

/** What the service's own catalogue and settings say the hosts run. */
export interface AgentImages {
  /** The agent image hosts must run (upstream's AGENT_DOCKER_IMAGE). */
  agent: string;
  installer: string;
  controller: string;
}

export function catalogueAgentImages(): AgentImages {
  const versions = componentVersions().versions;
  return {
    agent: versions['discovery-agent'] ?? '',
    installer: versions['assisted-installer'] ?? '',
    controller: versions['assisted-installer-controller'] ?? '',
  };
}
