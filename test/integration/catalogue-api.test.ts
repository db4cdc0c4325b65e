import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultOpenshiftVersion } from '../../lambdas/domain/catalogues/catalogues.js';
import { expectMatchesSchema } from '../support/response-schema.js';
import { testRuntime } from '../support/runtime.js';
import { upstreamError } from '../support/upstream-errors.js';

const API = '/api/assisted-install/v2';

describe('catalogue API', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  const get = async (path: string, token: string | undefined = env.adminToken) => {
    const response = await fetch(`${env.runtime.url}${API}${path}`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
    return { status: response.status, body: await response.json() };
  };

  beforeAll(async () => {
    env = await testRuntime({ baseDomains: ['example.test', 'another.test'] });
  }, 180_000);
  afterAll(async () => env?.close());

  it.each([
    ['v2ListSupportedOpenshiftVersions', '/openshift-versions'],
    ['v2ListSupportedOpenshiftVersions', '/openshift-versions?only_latest=true&version=4.1'],
    ['v2ListComponentVersions', '/component-versions'],
    ['v2ListReleaseSources', '/release-sources'],
    ['V2ListOperatorProperties', '/supported-operators/odf'],
    ['GetSupportedFeatures', '/support-levels/features?openshift_version=4.18'],
    ['GetSupportedFeatures', '/support-levels/features?openshift_version=4.20&cpu_architecture=arm64&platform_type=external&external_platform_name=oci'],
    ['GetSupportedFeatures', '/support-levels/features?openshift_version=4.11&cpu_architecture=ppc64le'],
    ['GetDetailedSupportedFeatures', '/support-levels/features/detailed?openshift_version=4.18&cpu_architecture=x86_64'],
    ['GetDetailedSupportedFeatures', '/support-levels/features/detailed?openshift_version=4.22&cpu_architecture=multi&platform_type=none'],
    ['GetSupportedArchitectures', '/support-levels/architectures?openshift_version=4.18'],
    ['V2ListManagedDomains', '/domains'],
    ['V2GetClusterDefaultConfig', '/clusters/default-config'],
    ['V2ListBundles', '/operators/bundles'],
    ['V2ListBundles', '/operators/bundles?openshift_version=4.18&cpu_architecture=x86_64&platform_type=baremetal&feature_ids=SNO'],
    ['V2GetBundle', '/operators/bundles/openshift-ai?feature_ids=SNO'],
  ])('%s answers GET %s in the upstream shape', async (operationId, path) => {
    const { status, body } = await get(path);
    expect(status, JSON.stringify(body)).toBe(200);
    expectMatchesSchema(operationId, 200, body);
  });

  it('lists the supported operators in the upstream shape', async () => {
    const { status, body } = await get('/supported-operators');
    expect(status).toBe(200);
    const names = body as string[];
    expect(names).toEqual(expect.arrayContaining(['lso', 'odf', 'cnv', 'lvm', 'mce', 'mtv', 'nmstate', 'openshift-ai', 'numaresources']));
    // Upstream's server and UI say "numaresources"; its swagger enum says "numa-resources", which its service refuses.
    expectMatchesSchema('V2ListSupportedOperators', 200, names);
    expect((await get('/supported-operators/numa-resources')).status).toBe(404);
  });

  it("offers upstream's operator bundles, filtered by what the release and topology support", async () => {
    const all = (await get('/operators/bundles')).body as { id: string; operators: string[]; optional_operators?: string[] }[];
    expect(all.map((bundle) => bundle.id)).toEqual(['virtualization', 'openshift-ai']);
    expect(all[1]).toMatchObject({
      title: 'OpenShift AI',
      operators: ['authorino', 'odf', 'openshift-ai', 'pipelines', 'serverless', 'servicemesh'],
      optional_operators: ['amd-gpu', 'nvidia-gpu'],
    });
    const singleNode = (await get('/operators/bundles?openshift_version=4.18&feature_ids=SNO')).body as { id: string; operators: string[] }[];
    expect(singleNode).toMatchObject([{ id: 'openshift-ai', operators: ['lvm', 'openshift-ai'] }]);
    expect((await get('/operators/bundles?openshift_version=4.18&cpu_architecture=arm64')).body).toEqual([]);
    expect(((await get('/operators/bundles/virtualization')).body as { operators: string[] }).operators).toContain('cnv');
  });

  it('lists versions with the default flagged and honours the filters', async () => {
    const all = (await get('/openshift-versions')).body as Record<string, { default?: boolean; cpu_architectures: string[] }>;
    const latest = defaultOpenshiftVersion();
    expect(all[latest]).toMatchObject({ default: true });
    expect(all[`${latest}-multi`]?.cpu_architectures).toEqual(['x86_64', 'arm64', 'ppc64le', 's390x']);
    const filtered = (await get('/openshift-versions?version=4.18')).body as Record<string, unknown>;
    expect(Object.keys(filtered).every((key) => key.includes('4.18'))).toBe(true);
    expect((await get('/openshift-versions?only_latest=true')).status).toBe(200);
    // Upstream's release list: the old minors too, and only_latest keeps one z-stream per minor.
    const latestOnly = (await get('/openshift-versions?only_latest=true')).body as Record<string, unknown>;
    expect(Object.keys(latestOnly)).toEqual(expect.arrayContaining(['4.9.59', '4.10.67', '4.11.59', '4.13.69']));
    expect(Object.keys(latestOnly)).not.toContain('4.13.53-multi');
    expect(Object.keys(all)).toEqual(expect.arrayContaining(['4.11.0-multi', '4.13.53', '4.13.53-multi']));
  });

  it('lists component versions, without an empty release tag (as upstream omits it)', async () => {
    const listed = (await get('/component-versions')).body as { versions: Record<string, string>; release_tag?: string };
    expect(listed.versions['assisted-installer-service']).toMatch(/^assisted-cloud-/);
    expect(listed).not.toHaveProperty('release_tag');
  });

  it('gives support levels a person can read', async () => {
    const features = (await get('/support-levels/features?openshift_version=4.18&cpu_architecture=s390x')).body as { features: Record<string, string> };
    expect(features.features).toMatchObject({ SNO: 'supported', LVM: 'unavailable', MINIMAL_ISO: 'unavailable' });
    const architectures = (await get('/support-levels/architectures?openshift_version=4.12')).body as { architectures: Record<string, string> };
    expect(architectures.architectures).toMatchObject({ X86_64_ARCHITECTURE: 'supported', PPC64LE_ARCHITECTURE: 'tech-preview' });
  });

  it('lists the configured hosted zones as managed domains', async () => {
    expect((await get('/domains')).body).toEqual([
      { domain: 'another.test', provider: 'route53' },
      { domain: 'example.test', provider: 'route53' },
    ]);
  });

  it.each([
    ['/supported-operators/not-an-operator', 404, /not-an-operator is not supported/],
    ['/support-levels/features/detailed?openshift_version=banana&cpu_architecture=x86_64', 400, /openshift_version "banana"/],
    ['/support-levels/features/detailed?openshift_version=4.11&cpu_architecture=ppc64le', 400, /ppc64le is not supported for openshift version 4.11/],
    ['/support-levels/features/detailed?openshift_version=4.18&cpu_architecture=arm64&platform_type=nutanix', 400, /platform nutanix is not supported/],
    ['/support-levels/architectures', 400, /openshift_version/],
    ['/openshift-versions?only_latest=perhaps', 400, /only_latest/],
    ['/operators/bundles/nope', 404, /bundle 'nope' is not supported/],
    ['/operators/bundles?openshift_version=bad', 400, /invalid openshift version/],
    ['/operators/bundles?feature_ids=FOO', 400, /feature_ids/],
  ])('refuses GET %s with %i and a reason', async (path, status, reason) => {
    const response = await get(path);
    expect(response.status).toBe(status);
    expect(upstreamError(response.body)).toMatchObject({ code: String(status), reason: expect.stringMatching(reason) });
  });

  it('answers the plain support levels of a malformed version as upstream does (200: below every release)', async () => {
    for (const path of ['/support-levels/features?openshift_version=banana', '/support-levels/architectures?openshift_version=v']) {
      const response = await get(path);
      expect(response.status, path).toBe(200);
    }
  });

  it('requires a token', async () => {
    expect((await get('/openshift-versions', '')).status).toBe(401);
  });
});
