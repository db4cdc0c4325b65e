/**
 * Feature and architecture support levels, evaluated from the rules in catalogues/features.json
 * (upstream's internal/featuresupport restated as data). Pure: no I/O.
 */
import featuresData from './features.json' with { type: 'json' };
import { badRequest } from '../core/errors.js';
import { isAtLeast, isBelow, isValidVersion, sameMinor } from '../core/ocp-version.js';

export type SupportLevel = 'supported' | 'unsupported' | 'tech-preview' | 'dev-preview' | 'unavailable';
export type IncompatibilityReason = 'cpuArchitecture' | 'platform' | 'openshiftVersion' | 'ociExternalIntegrationDisabled';
export type PlatformType = 'baremetal' | 'none' | 'nutanix' | 'vsphere' | 'external';
export type FeatureId = string;
export type ArchitectureId = 'X86_64_ARCHITECTURE' | 'ARM64_ARCHITECTURE' | 'PPC64LE_ARCHITECTURE' | 'S390X_ARCHITECTURE' | 'MULTIARCH_RELEASE_IMAGE';

export const PLATFORM_TYPES: readonly PlatformType[] = ['baremetal', 'none', 'nutanix', 'vsphere', 'external'];
/** The CPU architectures support levels are known for; `aarch64`/`amd64` are normalised first. */
export const CPU_ARCHITECTURES = ['x86_64', 'arm64', 'ppc64le', 's390x', 'multi'] as const;
export type CpuArchitecture = (typeof CPU_ARCHITECTURES)[number];

/** Clients send both spellings; upstream's catalogues use `arm64` and `x86_64`. */
export function normalizeCpuArchitecture(architecture: string | undefined): string {
  if (architecture === undefined || architecture === '') return 'x86_64';
  if (architecture === 'aarch64') return 'arm64';
  if (architecture === 'amd64') return 'x86_64';
  return architecture;
}

export const isCpuArchitecture = (value: string): value is CpuArchitecture => (CPU_ARCHITECTURES as readonly string[]).includes(value);

export interface SupportFilters {
  openshiftVersion: string;
  cpuArchitecture?: string;
  platformType?: PlatformType;
  externalPlatformName?: string;
}

/**
 * Support-level query parameters as the API takes them, checked: a parseable version, a known
 * architecture (default x86_64) and platform; the external platform name only counts for
 * platform `external`, as upstream documents.
 */
/** The query parameters both feature-support operations filter by. */
export const SUPPORT_FILTER_PARAMETERS = ['openshift_version', 'cpu_architecture', 'platform_type', 'external_platform_name'] as const;

export function supportFilters(
  query: Partial<Record<(typeof SUPPORT_FILTER_PARAMETERS)[number], string>>,
  malformedVersion: 'refused' | 'compared-with-nothing' = 'refused',
): SupportFilters {
  const openshiftVersion =
    malformedVersion === 'refused' ? requireOpenshiftVersion(query.openshift_version) : requireOpenshiftVersionGiven(query.openshift_version);
  const cpuArchitecture = normalizeCpuArchitecture(query.cpu_architecture);
  if (!isCpuArchitecture(cpuArchitecture)) {
    throw badRequest(`cpu_architecture "${query.cpu_architecture}" is not one of ${CPU_ARCHITECTURES.join(', ')}`);
  }
  const platformType = PLATFORM_TYPES.find((known) => known === query.platform_type);
  if (query.platform_type !== undefined && platformType === undefined) {
    throw badRequest(`platform_type "${query.platform_type}" is not one of ${PLATFORM_TYPES.join(', ')}`);
  }
  return {
    openshiftVersion,
    cpuArchitecture,
    ...(platformType ? { platformType } : {}),
    ...(platformType === 'external' && query.external_platform_name ? { externalPlatformName: query.external_platform_name } : {}),
  };
}

interface Condition {
  below?: string;
  at_least?: string;
  /** For a malformed version: whether the version part (below / at_least) holds. */
  if_malformed?: boolean;
  minor?: string;
  arch?: string[];
  platform?: string[];
  platform_not?: string[];
  external_platform?: string;
}
interface SupportRule {
  when?: Condition;
  level: SupportLevel;
  reason?: IncompatibilityReason;
}
interface FeatureDefinition {
  name: string;
  support: SupportRule[];
  incompatible_features?: { when?: Condition; ids: FeatureId[] }[];
  incompatible_architectures?: { when?: Condition; architectures: string[] }[];
  /** Platform features describe the platform choice itself; see features.json. */
  listed?: 'without-platform' | 'with-platform';
}
interface ArchitectureDefinition {
  cpu_architecture: CpuArchitecture;
  support: SupportRule[];
}

/** features.json as written: its enum-like fields are plain strings until checked below. */
interface CatalogueRule {
  when?: Condition;
  level: string;
  reason?: string;
}
interface CatalogueFeature extends Omit<FeatureDefinition, 'support' | 'listed'> {
  support: readonly CatalogueRule[];
  listed?: string;
}
interface CatalogueArchitecture {
  cpu_architecture: string;
  support: readonly CatalogueRule[];
}

const SUPPORT_LEVELS: readonly SupportLevel[] = ['supported', 'unsupported', 'tech-preview', 'dev-preview', 'unavailable'];
const INCOMPATIBILITY_REASONS: readonly IncompatibilityReason[] = ['cpuArchitecture', 'platform', 'openshiftVersion', 'ociExternalIntegrationDisabled'];
const LISTINGS = ['without-platform', 'with-platform'] as const;
const ARCHITECTURE_IDS: readonly ArchitectureId[] = [
  'X86_64_ARCHITECTURE',
  'ARM64_ARCHITECTURE',
  'PPC64LE_ARCHITECTURE',
  'S390X_ARCHITECTURE',
  'MULTIARCH_RELEASE_IMAGE',
];

/**
 * A catalogue's value among the known ones: a catalogue naming another is a mistake in the build,
 * caught when the module loads rather than answered to a request.
 */
export function knownCatalogueValue<T extends string>(values: readonly T[], value: string, where: string): T {
  const found = values.find((candidate) => candidate === value);
  if (found === undefined) throw new Error(`${where}: "${value}" is not one of ${values.join(', ')}`);
  return found;
}
const known = <T extends string>(values: readonly T[], value: string, where: string): T => knownCatalogueValue(values, value, `features.json: ${where}`);

function checkedRules(rules: readonly CatalogueRule[], where: string): SupportRule[] {
  return rules.map(({ level, reason, ...rule }) => ({
    ...rule,
    level: known(SUPPORT_LEVELS, level, where),
    ...(reason !== undefined ? { reason: known(INCOMPATIBILITY_REASONS, reason, where) } : {}),
  }));
}

function checkedFeatures(features: Record<string, CatalogueFeature>): Record<FeatureId, FeatureDefinition> {
  const checked: Record<FeatureId, FeatureDefinition> = {};
  for (const [id, { support, listed, ...feature }] of Object.entries(features)) {
    checked[id] = {
      ...feature,
      support: checkedRules(support, id),
      ...(listed !== undefined ? { listed: known(LISTINGS, listed, id) } : {}),
    };
  }
  return checked;
}

function checkedArchitectures(architectures: Record<string, CatalogueArchitecture>): [ArchitectureId, ArchitectureDefinition][] {
  const checked = Object.entries(architectures).map(([id, { cpu_architecture, support }]): [ArchitectureId, ArchitectureDefinition] => [
    known(ARCHITECTURE_IDS, id, 'architectures'),
    { cpu_architecture: known(CPU_ARCHITECTURES, cpu_architecture, id), support: checkedRules(support, id) },
  ]);
  const missing = ARCHITECTURE_IDS.filter((id) => !checked.some(([checkedId]) => checkedId === id));
  if (missing.length > 0) throw new Error(`features.json: architectures lack ${missing.join(', ')}`);
  return checked;
}

const FEATURES = checkedFeatures(featuresData.features);
/** In the catalogue's order, which the architecture listing keeps. */
const ARCHITECTURE_ENTRIES = checkedArchitectures(featuresData.architectures);

export interface FeatureSupport {
  'feature-support-level-id': FeatureId;
  support_level: SupportLevel;
  reason?: IncompatibilityReason;
  incompatibilities: FeatureId[];
}

export const featureIds = (): FeatureId[] => Object.keys(FEATURES);
export const architectureIds = (): ArchitectureId[] => ARCHITECTURE_ENTRIES.map(([id]) => id);
export const featureName = (id: FeatureId): string | undefined => FEATURES[id]?.name;

/**
 * Throws a 400 unless a version is given at all. Upstream's plain support listings
 * (GetSupportedFeatures, GetSupportedArchitectures) take a malformed one: each comparison with it
 * fails and counts as false, so only rules that ask nothing of the version apply (see holds).
 */
export function requireOpenshiftVersionGiven(version: string | undefined): string {
  if (!version || version.trim() === '') throw badRequest('openshift_version in query is required');
  return version.trim();
}

/** Throws a 400 the caller can act on unless the version is `major.minor[.patch][-suffix]`. */
export function requireOpenshiftVersion(version: string | undefined): string {
  if (!version || !isValidVersion(version)) {
    throw badRequest(`openshift_version "${version ?? ''}" is not a valid OpenShift version; use major.minor or major.minor.patch, e.g. 4.18 or 4.18.12`);
  }
  return version.trim();
}

interface Evaluation {
  version: string;
  arch: string;
  platformType?: PlatformType;
  externalPlatformName?: string;
}

function holds(condition: Condition | undefined, e: Evaluation): boolean {
  if (!condition) return true;
  const c = condition;
  if (c.below !== undefined || c.at_least !== undefined) {
    if (isValidVersion(e.version)) {
      if (c.below !== undefined && !isBelow(e.version, c.below)) return false;
      if (c.at_least !== undefined && !isAtLeast(e.version, c.at_least)) return false;
    } else {
      // A malformed version (taken only by the plain listings): upstream reads most failed
      // comparisons as "not offered yet" (below every release); a rule says where it does not.
      const holdsForMalformed = c.if_malformed ?? c.at_least === undefined;
      if (!holdsForMalformed) return false;
    }
  }
  if (c.minor !== undefined && !sameMinor(e.version, c.minor)) return false;
  if (c.arch !== undefined && !c.arch.includes(e.arch)) return false;
  if (c.platform !== undefined && !(e.platformType !== undefined && c.platform.includes(e.platformType))) return false;
  if (c.platform_not !== undefined && !(e.platformType !== undefined && !c.platform_not.includes(e.platformType))) return false;
  if (c.external_platform !== undefined && !(e.platformType === 'external' && e.externalPlatformName === c.external_platform)) {
    return false;
  }
  return true;
}

function firstMatchingRule(rules: SupportRule[], e: Evaluation): SupportRule {
  const rule = rules.find((candidate) => holds(candidate.when, e));
  // features.json ends every rule list with an unconditional rule; the unit tests check it.
  if (!rule) throw new Error('feature rules must end with an unconditional rule');
  return rule;
}

function evaluation(filters: SupportFilters): Evaluation {
  return {
    version: requireOpenshiftVersionGiven(filters.openshiftVersion),
    arch: normalizeCpuArchitecture(filters.cpuArchitecture),
    platformType: filters.platformType,
    externalPlatformName: filters.externalPlatformName,
  };
}

function incompatibleArchitectures(feature: FeatureDefinition, e: Evaluation): string[] {
  return (feature.incompatible_architectures ?? []).filter((entry) => holds(entry.when, e)).flatMap((entry) => entry.architectures);
}

function incompatibleFeatures(feature: FeatureDefinition, e: Evaluation): FeatureId[] {
  return (feature.incompatible_features ?? []).filter((entry) => holds(entry.when, e)).flatMap((entry) => entry.ids);
}

/** Features that cannot be active with this one on the version (upstream's getIncompatibleFeatures). */
export function incompatibleFeatureIds(id: FeatureId, openshiftVersion: string): FeatureId[] {
  const feature = FEATURES[id];
  return feature ? incompatibleFeatures(feature, { version: openshiftVersion, arch: '' }) : [];
}

/** Architectures on which the feature cannot be used with the version. */
export function incompatibleArchitecturesOf(id: FeatureId, openshiftVersion: string): string[] {
  const feature = FEATURES[id];
  return feature ? incompatibleArchitectures(feature, { version: openshiftVersion, arch: '' }) : [];
}

function levelOf(feature: FeatureDefinition, e: Evaluation): { level: SupportLevel; reason?: IncompatibilityReason } {
  // Upstream lets architecture incompatibility override whatever a feature's own rules say.
  if (incompatibleArchitectures(feature, e).includes(e.arch)) return { level: 'unavailable', reason: 'cpuArchitecture' };
  const rule = firstMatchingRule(feature.support, e);
  return rule.reason ? { level: rule.level, reason: rule.reason } : { level: rule.level };
}

/** Whether a feature appears in a listing, given whether a platform was chosen. */
function listedFor(feature: FeatureDefinition, platformChosen: boolean): boolean {
  if (feature.listed === 'without-platform') return !platformChosen;
  if (feature.listed === 'with-platform') return platformChosen;
  return true;
}

export function featureSupportLevel(id: FeatureId, filters: SupportFilters): { level: SupportLevel; reason?: IncompatibilityReason } {
  const feature = FEATURES[id];
  if (!feature) throw badRequest(`Unknown feature ${id}`);
  return levelOf(feature, evaluation(filters));
}

export function architectureSupportLevel(architecture: string, openshiftVersion: string): SupportLevel {
  const arch = normalizeCpuArchitecture(architecture);
  const definition = ARCHITECTURE_ENTRIES.map(([, candidate]) => candidate).find((candidate) => candidate.cpu_architecture === arch);
  if (!definition) return 'unavailable';
  const e = { version: requireOpenshiftVersionGiven(openshiftVersion), arch };
  return firstMatchingRule(definition.support, e).level;
}

export function isArchitectureSupported(architecture: string, openshiftVersion: string): boolean {
  const level = architectureSupportLevel(architecture, openshiftVersion);
  return level !== 'unsupported' && level !== 'unavailable';
}

/** GET /v2/support-levels/architectures: every architecture id → its level for the version. */
export function architectureSupportLevels(openshiftVersion: string): Record<ArchitectureId, SupportLevel> {
  const levels = {} as Record<ArchitectureId, SupportLevel>;
  for (const [id, definition] of ARCHITECTURE_ENTRIES) {
    levels[id] = architectureSupportLevel(definition.cpu_architecture, openshiftVersion);
  }
  return levels;
}

/**
 * Every feature's support for the filters, as upstream lists them: platform features only when
 * no platform is given, platform-managed networking only when one is, and everything
 * unavailable when the architecture itself is not offered for the version.
 */
export function listFeatureSupport(filters: SupportFilters): FeatureSupport[] {
  const e = evaluation(filters);
  if (!isCpuArchitecture(e.arch)) throw badRequest(`cpu_architecture "${filters.cpuArchitecture}" is not one of ${CPU_ARCHITECTURES.join(', ')}`);
  if (!isArchitectureSupported(e.arch, e.version)) {
    return featureIds().map((id) => ({ 'feature-support-level-id': id, support_level: 'unavailable', incompatibilities: [] }));
  }
  const platformChosen = e.platformType !== undefined;
  const listed = new Set(featureIds().filter((id) => listedFor(FEATURES[id]!, platformChosen)));
  return [...listed].map((id) => {
    const feature = FEATURES[id]!;
    const { level, reason } = levelOf(feature, e);
    return {
      'feature-support-level-id': id,
      support_level: level,
      ...(reason ? { reason } : {}),
      // Incompatibilities with features that are not listed for these filters would only confuse.
      incompatibilities: incompatibleFeatures(feature, e).filter((other) => listed.has(other)),
    };
  });
}

/** GET /v2/support-levels/features: feature id → level. */
export function featureSupportLevels(filters: SupportFilters): Record<FeatureId, SupportLevel> {
  return Object.fromEntries(listFeatureSupport(filters).map((f) => [f['feature-support-level-id'], f.support_level]));
}

/** The feature that stands for choosing a platform (OCI has its own). */
function platformFeature(platformType: PlatformType, externalPlatformName: string | undefined): FeatureId {
  switch (platformType) {
    case 'baremetal':
      return 'BAREMETAL_PLATFORM';
    case 'none':
      return 'NONE_PLATFORM';
    case 'nutanix':
      return 'NUTANIX_INTEGRATION';
    case 'vsphere':
      return 'VSPHERE_INTEGRATION';
    case 'external':
      return externalPlatformName === 'oci' ? 'EXTERNAL_PLATFORM_OCI' : 'EXTERNAL_PLATFORM';
  }
}

export function isPlatformSupported(
  platformType: PlatformType,
  externalPlatformName: string | undefined,
  openshiftVersion: string,
  cpuArchitecture: string,
): boolean {
  const { level } = featureSupportLevel(platformFeature(platformType, externalPlatformName), { openshiftVersion, cpuArchitecture });
  return level !== 'unsupported' && level !== 'unavailable';
}

/**
 * The features a cluster uses that cannot go together, as upstream refuses a create or an update
 * (featuresupport ValidateIncompatibleFeatures): the first feature, in the catalogue's order, whose
 * incompatibilities for the version include another used feature. Upstream walks its features in
 * Go map order, so which of the two it names first varies from one request to the next.
 */
export function incompatibleFeaturePair(active: readonly FeatureId[], openshiftVersion: string): [FeatureId, FeatureId] | undefined {
  const e: Evaluation = { version: requireOpenshiftVersion(openshiftVersion), arch: 'x86_64' };
  const used = new Set(active);
  for (const id of featureIds()) {
    if (!used.has(id)) continue;
    const other = incompatibleFeatures(FEATURES[id]!, e).find((candidate) => used.has(candidate));
    if (other !== undefined) return [id, other];
  }
  return undefined;
}

/**
 * The first used feature (catalogue order) that the CPU architecture cannot have on the version:
 * either incompatible with the architecture or unavailable for it (upstream's isFeaturesCompatible).
 * Evaluated without a platform, as upstream's check is.
 */
export function featureUnavailableForArchitecture(active: readonly FeatureId[], openshiftVersion: string, cpuArchitecture: string): FeatureId | undefined {
  const used = new Set(active);
  return featureIds().find((id) => used.has(id) && featureSupportLevel(id, { openshiftVersion, cpuArchitecture }).level === 'unavailable');
}

/** Whether a feature is offered at all for the version and architecture (upstream's IsFeatureAvailable). */
export function isFeatureAvailableForArchitecture(id: FeatureId, openshiftVersion: string, cpuArchitecture: string): boolean {
  return featureSupportLevel(id, { openshiftVersion, cpuArchitecture }).level !== 'unavailable';
}
