import { describe, expect, it } from 'vitest';
import featuresData from '../../lambdas/domain/catalogues/features.json' with { type: 'json' };
import {
  architectureSupportLevels,
  clusterDefaultConfig,
  componentVersions,
  cpuArchitecturesOf,
  defaultOpenshiftVersion,
  defaultRelease,
  detailedFeatureSupport,
  featureIds,
  featureSupportLevels,
  findOperator,
  listFeatureSupport,
  listManagedDomains,
  listOpenshiftVersions,
  listReleaseSources,
  bundleFilters,
  expandBundle,
  getBundle,
  listBundles,
  monitoredOlmOperator,
  OPENSHIFT_RELEASES,
  operatorDependencies,
  operatorProperties,
  operatorRequirements,
  resolveOpenshiftVersion,
  supportedOperatorNames,
  supportFilters,
  type OpenshiftRelease,
  type SupportFilters,
} from '../../lambdas/domain/catalogues/catalogues.js';
import { DomainError } from '../../lambdas/domain/core/errors.js';
import { compareBaseVersions, hasPatch, isPrerelease, majorMinor, parseBaseVersion } from '../../lambdas/domain/core/ocp-version.js';
import { loadOpenApiDocument } from '../../lambdas/handlers/api/openapi-document.js';

const schemas = (loadOpenApiDocument() as { components: { schemas: Record<string, { enum?: string[] }> } }).components.schemas;
const enumOf = (name: string) => schemas[name]!.enum!;

function failure(action: () => unknown): DomainError {
  try {
    action();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError');
}

describe('catalogue data', () => {
  it('covers exactly the feature and architecture ids of the API', () => {
    expect(featureIds().sort()).toEqual([...enumOf('feature-support-level-id')].sort());
    expect(Object.keys(featuresData.architectures).sort()).toEqual([...enumOf('architecture-support-level-id')].sort());
  });

  it('ends every rule list with an unconditional rule and names only known ids', () => {
    const ids = new Set(featureIds());
    const levels = new Set(enumOf('support-level'));
    const reasons = new Set(enumOf('incompatibility-reason'));
    type Rule = { when?: unknown; level: string; reason?: string };
    const definitions = [...Object.values(featuresData.features), ...Object.values(featuresData.architectures)] as {
      support: Rule[];
      incompatible_features?: { ids: string[] }[];
      incompatible_architectures?: { architectures: string[] }[];
    }[];
    for (const definition of definitions) {
      expect(definition.support.at(-1)!.when).toBeUndefined();
      for (const rule of definition.support) {
        expect(levels).toContain(rule.level);
        if (rule.reason) expect(reasons).toContain(rule.reason);
      }
      for (const entry of definition.incompatible_features ?? []) for (const id of entry.ids) expect(ids).toContain(id);
      for (const entry of definition.incompatible_architectures ?? []) {
        for (const arch of entry.architectures) expect(['arm64', 'ppc64le', 's390x', 'multi']).toContain(arch);
      }
    }
  });

  it('defines operators whose names, feature ids and dependencies all resolve', () => {
    const names = supportedOperatorNames();
    expect(new Set(names).size).toBe(names.length);
    // Every name we offer is in the API enum; the enum also keeps upstream's "numa-resources" spelling.
    const enumNames = (
      loadOpenApiDocument() as {
        paths: Record<string, { get: { responses: { 200: { content: { 'application/json': { schema: { items: { enum: string[] } } } } } } } }>;
      }
    ).paths['/v2/supported-operators']!.get.responses[200].content['application/json'].schema.items.enum;
    expect([...names].sort()).toEqual(enumNames.filter((name) => name !== 'numa-resources').sort());
    for (const name of names) {
      const operator = findOperator(name)!;
      expect(featureIds()).toContain(operator.feature_id);
      for (const dependency of operatorDependencies(name, { openshiftVersion: '4.18', singleNode: true })) expect(names).toContain(dependency);
    }
  });

  it('marks exactly one default release: the latest production one', () => {
    const defaults = OPENSHIFT_RELEASES.filter((r) => r.default);
    expect(defaults).toHaveLength(1);
    const production = OPENSHIFT_RELEASES.filter((r) => r.support_level === 'production');
    const latest = production.sort((a, b) => compareBaseVersions(b.version, a.version))[0]!;
    expect(defaultRelease().version).toBe(latest.version);
    expect(defaultOpenshiftVersion()).toBe(latest.version);
  });

  it.each(OPENSHIFT_RELEASES.map((r) => [r.version, r] as const))('gives %s a payload per architecture and an RHCOS build', (version, release) => {
    const suffix: Record<string, string> = { x86_64: 'x86_64', arm64: 'aarch64', ppc64le: 'ppc64le', s390x: 's390x', multi: 'multi' };
    // From 4.14 every architecture has its payload; older minors have the ones upstream ships.
    const architectures = compareBaseVersions(version, '4.14') >= 0 ? Object.keys(suffix) : Object.keys(release.release_images);
    expect(architectures.length).toBeGreaterThan(0);
    for (const arch of architectures) {
      expect(release.release_images[arch]).toBe(`quay.io/openshift-release-dev/ocp-release:${version}-${suffix[arch]}`);
      if (arch !== 'multi') expect(release.os_images[arch]).toBeDefined();
    }
    expect(release.rhcos_version).toMatch(/^\d/);
    expect(majorMinor(version)).toBe(release.openshift_version);
  });

  it('reports component versions under upstream keys', () => {
    expect(Object.keys(componentVersions().versions).sort()).toEqual([
      'assisted-installer',
      'assisted-installer-controller',
      'assisted-installer-service',
      'discovery-agent',
    ]);
  });
});

describe('OpenShift version strings', () => {
  it.each([
    ['4.18', { major: 4, minor: 18, patch: 0 }, false, false],
    ['4.18.52', { major: 4, minor: 18, patch: 52 }, true, false],
    ['5.0.0-ec.5', { major: 5, minor: 0, patch: 0 }, true, true],
    ['4.18.52-multi', { major: 4, minor: 18, patch: 52 }, true, false],
    ['4', undefined, false, false],
    ['latest', undefined, false, false],
  ])('%s', (version, parsed, patch, prerelease) => {
    expect(parseBaseVersion(version)).toEqual(parsed);
    expect(hasPatch(version)).toBe(patch);
    expect(isPrerelease(version)).toBe(prerelease);
  });
});

describe('listOpenshiftVersions', () => {
  it('lists each release and its multi payload, with the default flagged', () => {
    const versions = listOpenshiftVersions();
    const latest = defaultOpenshiftVersion();
    expect(versions[latest]).toEqual({
      display_name: latest,
      support_level: 'production',
      default: true,
      cpu_architectures: ['x86_64', 'arm64', 'ppc64le', 's390x'],
    });
    // Upstream leaves the flag out of every release but the default.
    expect(versions[`${latest}-multi`]).toEqual({
      display_name: `${latest}-multi`,
      support_level: 'production',
      cpu_architectures: ['x86_64', 'arm64', 'ppc64le', 's390x'],
    });
    expect(Object.values(versions).filter((v) => v.default)).toHaveLength(1);
    expect(versions['5.0.0-ec.5']?.support_level).toBe('beta');
  });

  it.each([
    ['4.18', ['4.18.52', '4.18.52-multi']],
    ['4.18.52-multi', ['4.18.52-multi']],
    ['9.9', []],
  ])('keeps versions containing %j', (filter, keys) => {
    expect(Object.keys(listOpenshiftVersions({ version: filter }))).toEqual(keys);
  });

  const release = (version: string, support_level: OpenshiftRelease['support_level']): OpenshiftRelease => ({
    ...defaultRelease(),
    openshift_version: majorMinor(version)!,
    version,
    display_name: version,
    support_level,
    default: false,
  });
  const sample = [
    release('4.18.1', 'production'),
    release('4.18.7', 'production'),
    release('4.19.0-rc.1', 'beta'),
    release('4.19.0-ec.2', 'beta'),
    release('4.20.1', 'production'),
    release('4.20.2-rc.0', 'beta'),
  ];

  it.each([
    [{ onlyLatest: true }, ['4.18.7', '4.18.7-multi', '4.19.0-rc.1', '4.19.0-rc.1-multi', '4.20.1', '4.20.1-multi']],
    [{ onlyLatest: true, version: 'multi' }, ['4.18.7-multi', '4.19.0-rc.1-multi', '4.20.1-multi']],
    [{ onlyLatest: false, version: '4.18' }, ['4.18.1', '4.18.1-multi', '4.18.7', '4.18.7-multi']],
  ])('applies %j like upstream (latest non-beta per minor)', (query, keys) => {
    expect(Object.keys(listOpenshiftVersions(query, sample)).sort()).toEqual(keys.sort());
  });

  it('leaves out architectures without an RHCOS image', () => {
    const noS390x = { ...defaultRelease(), os_images: { ...defaultRelease().os_images, s390x: undefined } };
    const versions = listOpenshiftVersions({}, [noS390x]);
    expect(versions[noS390x.version]!.cpu_architectures).not.toContain('s390x');
    expect(versions[`${noS390x.version}-multi`]!.cpu_architectures).not.toContain('s390x');
  });
});

describe('resolveOpenshiftVersion', () => {
  const image = (tag: string) => `quay.io/openshift-release-dev/ocp-release:${tag}`;
  it.each([
    ['4.18', 'x86_64', { openshiftVersion: '4.18.52', releaseImage: image('4.18.52-x86_64'), cpuArchitecture: 'x86_64' }],
    ['4.18.52', 'aarch64', { openshiftVersion: '4.18.52', releaseImage: image('4.18.52-aarch64'), cpuArchitecture: 'arm64' }],
    ['4.16', 'ppc64le', { openshiftVersion: '4.16.68', releaseImage: image('4.16.68-ppc64le'), cpuArchitecture: 'ppc64le' }],
    // Upstream names multi payloads by their -multi version: architecture multi alone finds none.
    ['4.18', 'multi', undefined],
    ['4.18.52', 'multi', undefined],
    ['4.9', 'x86_64', { openshiftVersion: '4.9.59', releaseImage: image('4.9.59-x86_64'), cpuArchitecture: 'x86_64' }],
    // 4.13's payloads are of two z-streams, as upstream ships them.
    ['4.13', 'x86_64', { openshiftVersion: '4.13.69', releaseImage: image('4.13.69-x86_64'), cpuArchitecture: 'x86_64' }],
    ['4.13', 'arm64', { openshiftVersion: '4.13.53', releaseImage: image('4.13.53-aarch64'), cpuArchitecture: 'arm64' }],
    ['4.13-multi', 'multi', { openshiftVersion: '4.13.53-multi', releaseImage: image('4.13.53-multi'), cpuArchitecture: 'multi' }],
    ['4.13.53', 'x86_64', undefined],
    ['4.18-multi', 'multi', { openshiftVersion: '4.18.52-multi', releaseImage: image('4.18.52-multi'), cpuArchitecture: 'multi' }],
    ['4.18.52-multi', 'x86_64', { openshiftVersion: '4.18.52-multi', releaseImage: image('4.18.52-multi'), cpuArchitecture: 'multi' }],
    ['5.0', 'x86_64', { openshiftVersion: '5.0.0-ec.5', releaseImage: image('5.0.0-ec.5-x86_64'), cpuArchitecture: 'x86_64' }],
    [' 4.20 ', '', { openshiftVersion: '4.20.33', releaseImage: image('4.20.33-x86_64'), cpuArchitecture: 'x86_64' }],
    ['4.15', 'x86_64', undefined],
    ['4.18.1', 'x86_64', undefined],
    ['4.18', 'sparc', undefined],
    ['latest', 'x86_64', undefined],
    ['', 'x86_64', undefined],
  ])('(%j, %j)', (version, arch, expected) => {
    expect(resolveOpenshiftVersion(version, arch)).toEqual(expected);
  });

  it('prefers the latest non-beta release of a minor', () => {
    const base = OPENSHIFT_RELEASES.find((r) => r.openshift_version === '4.20')!;
    const releases = [
      { ...base, version: '4.20.1', support_level: 'production' as const },
      { ...base, version: '4.20.9', support_level: 'production' as const },
      { ...base, version: '4.20.10-rc.0', support_level: 'beta' as const },
    ];
    expect(resolveOpenshiftVersion('4.20', 'x86_64', releases)?.openshiftVersion).toBe('4.20.9');
  });

  it('lists the architectures a version offers', () => {
    expect(cpuArchitecturesOf('4.18')).toEqual(['x86_64', 'arm64', 'ppc64le', 's390x', 'multi']);
    expect(cpuArchitecturesOf('4.18.52-multi')).toEqual(['x86_64', 'arm64', 'ppc64le', 's390x', 'multi']);
    expect(cpuArchitecturesOf('4.15')).toEqual([]);
  });
});

describe('listReleaseSources', () => {
  it('offers every minor from its channel, beta ones from candidate', () => {
    const sources = listReleaseSources();
    expect(sources.map((s) => s.openshift_version)).toEqual([...new Set(OPENSHIFT_RELEASES.map((r) => r.openshift_version))]);
    const channel = (minor: string) => sources.find((s) => s.openshift_version === minor)!.upgrade_channels[0]!.channels;
    expect(channel('4.18')).toEqual(['stable']);
    expect(channel('5.0')).toEqual(['candidate']);
    const architectures = (minor: string) => sources.find((s) => s.openshift_version === minor)!.upgrade_channels.map((c) => c.cpu_architecture);
    expect(architectures('4.14')).toEqual(['x86_64', 'arm64', 'ppc64le', 's390x', 'multi']);
    // A minor whose payloads are of several z-streams offers what they all do.
    expect(architectures('4.13')).toEqual(['x86_64', 'arm64', 'multi']);
    expect(architectures('4.9')).toEqual(['x86_64']);
  });
});

describe('feature support levels', () => {
  const filters = (
    openshiftVersion: string,
    cpuArchitecture = 'x86_64',
    platformType?: SupportFilters['platformType'],
    externalPlatformName?: string,
  ): SupportFilters => ({
    openshiftVersion,
    cpuArchitecture,
    ...(platformType ? { platformType } : {}),
    ...(externalPlatformName ? { externalPlatformName } : {}),
  });

  it.each([
    ['SNO', filters('4.18'), 'supported'],
    ['SNO', filters('4.18', 'x86_64', 'vsphere'), 'unavailable'],
    ['SNO', filters('4.13', 's390x'), 'dev-preview'],
    ['TNA', filters('4.18'), 'unavailable'],
    ['TNA', filters('4.19'), 'tech-preview'],
    ['TNA', filters('4.20', 'x86_64', 'baremetal'), 'supported'],
    ['TNA', filters('4.20', 'x86_64', 'none'), 'unavailable'],
    ['TNA', filters('4.22', 'x86_64', 'none'), 'supported'],
    ['TNF', filters('4.20'), 'tech-preview'],
    ['TNF', filters('4.22'), 'supported'],
    ['SDN_NETWORK_TYPE', filters('4.14'), 'supported'],
    ['SDN_NETWORK_TYPE', filters('4.16'), 'unavailable'],
    ['VIP_AUTO_ALLOC', filters('4.14'), 'dev-preview'],
    ['VIP_AUTO_ALLOC', filters('4.18'), 'unavailable'],
    ['USER_MANAGED_LOAD_BALANCER', filters('4.16'), 'supported'],
    ['LVM', filters('4.18', 's390x'), 'unavailable'],
    ['LSO', filters('4.18', 'arm64'), 'unavailable'],
    ['CNV', filters('4.18', 'aarch64'), 'dev-preview'],
    ['CNV', filters('4.18', 'x86_64', 'nutanix'), 'unavailable'],
    ['MINIMAL_ISO', filters('4.18', 's390x'), 'unavailable'],
    ['FULL_ISO', filters('4.18', 'x86_64', 'external', 'oci'), 'unavailable'],
    ['NON_STANDARD_HA_CONTROL_PLANE', filters('4.18', 'multi'), 'unavailable'],
    ['NON_STANDARD_HA_CONTROL_PLANE', filters('4.18'), 'supported'],
    ['LOKI', filters('4.16'), 'unavailable'],
    ['LOKI', filters('4.17'), 'supported'],
    ['SELF_NODE_REMEDIATION', filters('4.18'), 'tech-preview'],
    ['NUTANIX_INTEGRATION', filters('4.18', 'arm64'), 'unavailable'],
    ['EXTERNAL_PLATFORM_OCI', filters('4.14'), 'supported'],
    ['PLATFORM_MANAGED_NETWORKING', filters('4.18', 'x86_64', 'none'), 'supported'],
    ['PLATFORM_MANAGED_NETWORKING', filters('4.18', 'x86_64', 'baremetal'), 'unsupported'],
  ])('%s for %j is %s', (id, query, level) => {
    expect(featureSupportLevels(query)[id]).toBe(level);
  });

  it('lists platform features only without a platform, platform-managed networking only with one', () => {
    const without = featureSupportLevels(filters('4.18'));
    expect(without).toHaveProperty('VSPHERE_INTEGRATION');
    expect(without).not.toHaveProperty('PLATFORM_MANAGED_NETWORKING');
    const withPlatform = featureSupportLevels(filters('4.18', 'x86_64', 'baremetal'));
    expect(withPlatform).not.toHaveProperty('VSPHERE_INTEGRATION');
    expect(withPlatform).toHaveProperty('PLATFORM_MANAGED_NETWORKING');
    expect(Object.keys(without)).toHaveLength(featureIds().length - 1);
  });

  it('makes everything unavailable when the architecture is not offered for the version', () => {
    const features = listFeatureSupport(filters('4.11', 'ppc64le'));
    expect(features).toHaveLength(featureIds().length);
    expect(new Set(features.map((f) => f.support_level))).toEqual(new Set(['unavailable']));
  });

  it('gives reasons and version-dependent incompatibilities', () => {
    const find = (query: SupportFilters, id: string) => listFeatureSupport(query).find((f) => f['feature-support-level-id'] === id)!;
    expect(find(filters('4.18', 'x86_64', 'nutanix'), 'CNV')).toMatchObject({ support_level: 'unavailable', reason: 'platform' });
    expect(find(filters('4.18', 'arm64'), 'LSO')).toMatchObject({ reason: 'cpuArchitecture' });
    expect(find(filters('4.16'), 'LOKI')).toMatchObject({ reason: 'openshiftVersion' });
    expect(find(filters('4.18'), 'SNO').incompatibilities).toContain('DUAL_STACK_PRIMARY_IPV6');
    expect(find(filters('4.19'), 'SNO').incompatibilities).not.toContain('DUAL_STACK_PRIMARY_IPV6');
    expect(find(filters('4.18'), 'SNO').incompatibilities).toContain('NUTANIX_INTEGRATION');
    expect(find(filters('4.18', 'x86_64', 'baremetal'), 'SNO').incompatibilities).not.toContain('NUTANIX_INTEGRATION');
    expect(find(filters('4.18'), 'CUSTOM_MANIFEST')).not.toHaveProperty('reason');
  });

  it.each([
    [
      '4.9',
      {
        X86_64_ARCHITECTURE: 'supported',
        ARM64_ARCHITECTURE: 'unavailable',
        PPC64LE_ARCHITECTURE: 'unavailable',
        S390X_ARCHITECTURE: 'unavailable',
        MULTIARCH_RELEASE_IMAGE: 'unavailable',
      },
    ],
    [
      '4.12',
      {
        X86_64_ARCHITECTURE: 'supported',
        ARM64_ARCHITECTURE: 'supported',
        PPC64LE_ARCHITECTURE: 'tech-preview',
        S390X_ARCHITECTURE: 'tech-preview',
        MULTIARCH_RELEASE_IMAGE: 'tech-preview',
      },
    ],
    [
      '4.18.3',
      {
        X86_64_ARCHITECTURE: 'supported',
        ARM64_ARCHITECTURE: 'supported',
        PPC64LE_ARCHITECTURE: 'supported',
        S390X_ARCHITECTURE: 'supported',
        MULTIARCH_RELEASE_IMAGE: 'tech-preview',
      },
    ],
  ])('architectures for %s', (version, levels) => {
    expect(architectureSupportLevels(version)).toEqual(levels);
  });

  it('splits detailed support into features and operators with their dependencies', () => {
    const { features, operators } = detailedFeatureSupport(filters('4.18'));
    expect(features.length + operators.length).toBe(featureIds().length - 1);
    expect(operators.map((o) => o.name).sort()).toEqual(supportedOperatorNames().sort());
    expect(operators.find((o) => o.name === 'odf')).toMatchObject({ 'feature-support-level-id': 'ODF', dependencies: ['LSO'] });
    expect(operators.find((o) => o.name === 'openshift-ai')!.dependencies).toEqual(['LVM']);
    expect(features.some((f) => f['feature-support-level-id'] === 'SNO')).toBe(true);
  });

  it.each([
    [filters('4.11', 'ppc64le'), /cpu architecture ppc64le is not supported for openshift version 4.11/],
    [filters('4.18', 'arm64', 'nutanix'), /platform nutanix is not supported/],
  ])('refuses detailed support for %j', (query, reason) => {
    const error = failure(() => detailedFeatureSupport(query));
    expect(error.kind).toBe('bad-request');
    expect(error.message).toMatch(reason);
  });

  it.each([
    [
      { openshift_version: '4.18', cpu_architecture: 'aarch64' },
      { openshiftVersion: '4.18', cpuArchitecture: 'arm64' },
    ],
    [{ openshift_version: '4.18' }, { openshiftVersion: '4.18', cpuArchitecture: 'x86_64' }],
    [
      { openshift_version: '4.18', platform_type: 'vsphere', external_platform_name: 'oci' },
      { openshiftVersion: '4.18', cpuArchitecture: 'x86_64', platformType: 'vsphere' },
    ],
    [
      { openshift_version: '4.18', platform_type: 'external', external_platform_name: 'oci' },
      { openshiftVersion: '4.18', cpuArchitecture: 'x86_64', platformType: 'external', externalPlatformName: 'oci' },
    ],
  ])('reads query %j', (query, expected) => {
    expect(supportFilters(query)).toEqual(expected);
  });

  it.each([
    [{}, /openshift_version "" is not a valid OpenShift version/],
    [{ openshift_version: 'four' }, /openshift_version "four"/],
    [{ openshift_version: '4.18', cpu_architecture: 'sparc' }, /cpu_architecture "sparc"/],
    [{ openshift_version: '4.18', platform_type: 'aws' }, /platform_type "aws"/],
  ])('refuses query %j', (query, reason) => {
    const error = failure(() => supportFilters(query));
    expect(error.kind).toBe('bad-request');
    expect(error.message).toMatch(reason);
  });

  it('answers a malformed version in the plain listings as upstream does (its service, by curl)', () => {
    const levels = (cpu_architecture: string) =>
      featureSupportLevels(supportFilters({ openshift_version: 'garbage', cpu_architecture }, 'compared-with-nothing'));
    // Failed comparisons read as "not offered yet", except where upstream's check goes the other way.
    expect(levels('x86_64')).toMatchObject({
      SNO: 'supported',
      LVM: 'unavailable',
      SDN_NETWORK_TYPE: 'unavailable',
      VIP_AUTO_ALLOC: 'unavailable',
      EXTERNAL_PLATFORM_OCI: 'supported',
    });
    expect(Object.values(levels('arm64')).every((level) => level === 'unavailable')).toBe(true);
    expect(architectureSupportLevels('garbage')).toEqual({
      X86_64_ARCHITECTURE: 'supported',
      ARM64_ARCHITECTURE: 'unavailable',
      PPC64LE_ARCHITECTURE: 'unavailable',
      S390X_ARCHITECTURE: 'unavailable',
      MULTIARCH_RELEASE_IMAGE: 'unavailable',
    });
    expect(failure(() => supportFilters({}, 'compared-with-nothing')).message).toMatch(/openshift_version in query is required/);
  });
});

describe('operators', () => {
  it.each([['lso'], ['odf'], ['numaresources']])('has properties for %s', (name) => {
    expect(operatorProperties(name)).toEqual([]);
  });

  it('answers not-found for an unknown operator, naming where to look', () => {
    const error = failure(() => operatorProperties('nope'));
    expect(error.kind).toBe('not-found');
    expect(error.message).toMatch(/supported-operators/);
  });

  it("knows NUMA Resources only as numaresources, as upstream's service does", () => {
    expect(failure(() => operatorProperties('numa-resources')).kind).toBe('not-found');
  });

  it.each([
    ['4.11', 'odf-lvm-operator'],
    ['4.12', 'lvms-operator'],
    ['4.18', 'lvms-operator'],
  ])('monitors LVM on %s with the subscription %s', (openshiftVersion, subscription) => {
    expect(monitoredOlmOperator('lvm', { openshiftVersion, singleNode: true })).toEqual({
      name: 'lvm',
      operator_type: 'olm',
      namespace: 'openshift-storage',
      subscription_name: subscription,
      timeout_seconds: 1800,
    });
  });

  it.each([
    ['lvm', { openshiftVersion: '4.12', singleNode: false }, 1200],
    ['lvm', { openshiftVersion: '4.14', singleNode: false }, 400],
    ['lvm', { openshiftVersion: '4.18', singleNode: false }, 100],
    ['cnv', { openshiftVersion: '4.18', singleNode: false }, 150],
    ['cnv', { openshiftVersion: '4.18', singleNode: true }, 510],
    ['odf', { openshiftVersion: '4.18', singleNode: false }, 19456],
  ])('%s on %j needs %i MiB more on masters', (name, cluster, ramMib) => {
    expect(operatorRequirements(name, cluster).master.quantitative.ram_mib).toBe(ramMib);
  });

  it.each([
    ['openshift-ai', true, ['lvm']],
    ['openshift-ai', false, []],
    ['odf', false, ['lso']],
    ['amd-gpu', false, ['node-feature-discovery', 'kmm']],
  ])('%s (single node: %s) depends on %j', (name, singleNode, dependencies) => {
    expect(operatorDependencies(name, { openshiftVersion: '4.18', singleNode })).toEqual(dependencies);
  });
});

describe('cluster defaults and managed domains', () => {
  it('uses upstream defaults', () => {
    expect(clusterDefaultConfig()).toMatchObject({
      cluster_network_cidr: '10.128.0.0/14',
      cluster_network_host_prefix: 23,
      service_network_cidr: '172.30.0.0/16',
      inactive_deletion_hours: 480,
      cluster_networks_dualstack: [
        { cidr: '10.128.0.0/14', host_prefix: 23 },
        { cidr: 'fd01::/48', host_prefix: 64 },
      ],
      service_networks_dualstack: [{ cidr: '172.30.0.0/16' }, { cidr: 'fd02::/112' }],
    });
    expect(clusterDefaultConfig().forbidden_hostnames).toContain('localhost');
  });

  it.each([
    [{}, []],
    [
      { 'b.example': 'Z2', 'a.example': 'Z1' },
      [
        { domain: 'a.example', provider: 'route53' },
        { domain: 'b.example', provider: 'route53' },
      ],
    ],
  ])('lists hosted zones %j as managed domains', (zones, domains) => {
    expect(listManagedDomains(zones)).toEqual(domains);
  });
});

describe('operator bundles', () => {
  const VIRTUALIZATION = [
    'cluster-observability',
    'cnv',
    'fence-agents-remediation',
    'kube-descheduler',
    'loki',
    'metallb',
    'mtv',
    'nmstate',
    'node-healthcheck',
    'node-maintenance',
    'numaresources',
    'oadp',
    'openshift-logging',
  ];
  const OPENSHIFT_AI = ['authorino', 'odf', 'openshift-ai', 'pipelines', 'serverless', 'servicemesh'];

  it("lists upstream's two bundles, unfiltered, with their operators sorted", () => {
    expect(listBundles(undefined)).toEqual([
      { id: 'virtualization', title: 'Virtualization', description: 'Run virtual machines alongside containers on one platform.', operators: VIRTUALIZATION },
      {
        id: 'openshift-ai',
        title: 'OpenShift AI',
        description: 'Train, serve, monitor and manage AI/ML models and applications using GPUs.',
        operators: OPENSHIFT_AI,
        optional_operators: ['amd-gpu', 'nvidia-gpu'],
      },
    ]);
  });

  it('gives single-node OpenShift AI LVM storage instead of ODF and the multi-node services', () => {
    expect(getBundle('openshift-ai', ['SNO']).operators).toEqual(['lvm', 'openshift-ai']);
    expect(getBundle('virtualization', ['SNO']).operators).toEqual(VIRTUALIZATION);
  });

  it('answers not-found for an unknown bundle', () => {
    expect(failure(() => getBundle('nope'))).toMatchObject({ kind: 'not-found', message: "bundle 'nope' is not supported" });
  });

  it.each([
    ['4.18 x86_64', { openshift_version: '4.18' }, [], ['virtualization', 'openshift-ai']],
    ['4.16: no Loki or logging yet', { openshift_version: '4.16' }, [], ['openshift-ai']],
    ['arm64: neither', { openshift_version: '4.18', cpu_architecture: 'arm64' }, [], []],
    ['vSphere: no virtualization', { openshift_version: '4.18', platform_type: 'vsphere' }, [], ['openshift-ai']],
    ['single node: its remediation operators are refused', { openshift_version: '4.18' }, ['SNO'], ['openshift-ai']],
  ] as const)('lists only bundles whose every operator is offered: %s', (_name, query, features, ids) => {
    const listed = listBundles(bundleFilters(query), [...features]);
    expect(listed.map((bundle) => bundle.id)).toEqual(ids);
    // Filtered, the optional operators are always listed (those offered).
    for (const bundle of listed) expect(bundle.optional_operators).toBeDefined();
  });

  it('checks the filters as upstream: none without a version, else a valid version, architecture and platform', () => {
    expect(bundleFilters({})).toBeUndefined();
    expect(failure(() => bundleFilters({ openshift_version: 'bad' })).message).toBe('invalid openshift version: Malformed version: bad');
    expect(failure(() => bundleFilters({ openshift_version: '4.9', cpu_architecture: 's390x' })).message).toBe(
      'cpu architecture s390x is not supported for openshift version 4.9',
    );
  });

  it('expands a bundle with the optional operators the user chose, refusing others', () => {
    expect(expandBundle('openshift-ai', ['nvidia-gpu'])).toEqual([...OPENSHIFT_AI, 'nvidia-gpu']);
    expect(failure(() => expandBundle('openshift-ai', ['cnv'])).message).toBe("operator 'cnv' is not a valid optional operator for bundle 'openshift-ai'");
    expect(failure(() => expandBundle('nope'))).toMatchObject({ kind: 'bad-request', message: "bundle 'nope' is not supported" });
  });
});
