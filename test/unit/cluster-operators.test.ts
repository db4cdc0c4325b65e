import { describe, expect, it } from 'vitest';
import { applyClusterUpdate, createClusterRecord } from '../../lambdas/domain/cluster/cluster.js';
import { operatorBundlesOf } from '../../lambdas/domain/cluster/cluster-operators.js';
import type { Cluster } from '../../lambdas/domain/core/entities.js';
import { DomainError } from '../../lambdas/domain/core/errors.js';
import type { ClusterCreateParams } from '../../contracts/wire.js';
import type { ResolvedRelease } from '../../lambdas/domain/catalogues/catalogues.js';

const PULL_SECRET = '{"auths":{"cloud.openshift.com":{"auth":"dXNlcjpwYXNz","email":"a@b.c"}}}';
const NOW = '2026-08-01T00:00:00.000Z';

const RELEASE_418: ResolvedRelease = { openshiftVersion: '4.18.52', releaseImage: 'quay.io/x:4.18.52', cpuArchitecture: 'x86_64' };

function create(params: Partial<ClusterCreateParams> = {}, release: ResolvedRelease = RELEASE_418) {
  const record = createClusterRecord(
    { name: 'ops', openshift_version: '4.18', pull_secret: PULL_SECRET, base_dns_domain: 'example.com', ...params } as ClusterCreateParams,
    { orgId: 'org', clusterId: 'c1', now: NOW, release, userName: 'u' },
  );
  return { ...record, version: 1 } as Cluster;
}

const olm = (cluster: Cluster) =>
  (cluster.attributes.monitored_operators ?? [])
    .filter((o) => o.operator_type === 'olm')
    .map((o) => [o.name, o.dependency_only === true, o.source_bundles ?? []]);

function refusal(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'bad-request') return error.message;
    throw error;
  }
  throw new Error('not refused');
}

describe('operators chosen at creation', () => {
  it('monitors the builtins and each operator as upstream records it, dependencies marked', () => {
    const cluster = create({ olm_operators: [{ name: 'odf' }] });
    expect(cluster.attributes.monitored_operators).toEqual([
      { name: 'console', operator_type: 'builtin', timeout_seconds: 3600 },
      { name: 'cvo', operator_type: 'builtin', timeout_seconds: 3600 },
      { name: 'odf', operator_type: 'olm', namespace: 'openshift-storage', subscription_name: 'odf-operator', timeout_seconds: 1800 },
      {
        name: 'lso',
        operator_type: 'olm',
        namespace: 'openshift-local-storage',
        subscription_name: 'local-storage-operator',
        timeout_seconds: 4200,
        dependency_only: true,
      },
    ]);
  });

  it('resolves dependencies of dependencies, once, and single-node ones', () => {
    expect(olm(create({ olm_operators: [{ name: 'amd-gpu' }, { name: 'osc' }] }))).toEqual([
      ['amd-gpu', false, []],
      ['osc', false, []],
      ['node-feature-discovery', true, []],
      ['kmm', true, []],
    ]);
    expect(olm(create({ control_plane_count: 1, user_managed_networking: true, olm_operators: [{ name: 'openshift-ai' }] }))).toEqual([
      ['openshift-ai', false, []],
      ['lvm', true, []],
    ]);
  });

  it('takes the retired ocs name as odf, drops repeats and keeps properties', () => {
    const cluster = create({ olm_operators: [{ name: 'ocs' }, { name: 'cnv', properties: '{"a":1}' }, { name: 'cnv' }] });
    expect(olm(cluster)).toEqual([
      ['odf', false, []],
      ['cnv', false, []],
      ['lso', true, []],
    ]);
    expect(cluster.attributes.monitored_operators?.find((o) => o.name === 'cnv')?.properties).toBe('{"a":1}');
  });

  it('expands bundles with the optional operators chosen; an operator also selected alone is not counted as from the bundle', () => {
    const cluster = create({ operator_bundles: [{ id: 'openshift-ai', optional_operators: ['nvidia-gpu'] }], olm_operators: [{ name: 'odf' }] });
    expect(olm(cluster)).toEqual([
      ['authorino', false, ['openshift-ai']],
      ['odf', false, []],
      ['openshift-ai', false, ['openshift-ai']],
      ['pipelines', false, ['openshift-ai']],
      ['serverless', false, ['openshift-ai']],
      ['servicemesh', false, ['openshift-ai']],
      ['nvidia-gpu', false, ['openshift-ai']],
      ['lso', true, []],
      ['node-feature-discovery', true, []],
    ]);
    expect(operatorBundlesOf(cluster.attributes.monitored_operators)).toEqual([{ id: 'openshift-ai', optional_operators: ['nvidia-gpu'] }]);
  });

  it.each([
    ['an unknown operator', { olm_operators: [{ name: 'foo' }] }, "operator foo isn't supported"],
    ['the enum spelling of NUMA Resources', { olm_operators: [{ name: 'numa-resources' }] }, "operator numa-resources isn't supported"],
    ['an unknown bundle', { operator_bundles: [{ id: 'nope' }] }, "bundle 'nope' is not supported"],
    [
      'an optional operator the bundle does not offer',
      { operator_bundles: [{ id: 'openshift-ai', optional_operators: ['cnv'] }] },
      "operator 'cnv' is not a valid optional operator for bundle 'openshift-ai'",
    ],
    [
      'ODF on a single node',
      { control_plane_count: 1, user_managed_networking: true, olm_operators: [{ name: 'odf' }] },
      "cannot use Single Node OpenShift because it's not compatible with OpenShift Data Foundation",
    ],
    [
      'LVM with ODF',
      { olm_operators: [{ name: 'lvm' }, { name: 'odf' }] },
      "cannot use Logical Volume Management because it's not compatible with OpenShift Data Foundation",
    ],
    [
      'OpenShift Virtualization on vSphere',
      { platform: { type: 'vsphere' }, olm_operators: [{ name: 'cnv' }] },
      /OpenShift Virtualization.*vSphere Platform Integration/,
    ],
    [
      'ODF and LSO on arm64',
      { cpu_architecture: 'arm64', olm_operators: [{ name: 'odf' }] },
      'Local Storage Operator, OpenShift Data Foundation is not available when arm64 CPU architecture is selected',
    ],
  ] as [string, Partial<ClusterCreateParams>, string | RegExp][])('refuses %s', (_name, params, reason) => {
    const release: ResolvedRelease = { ...RELEASE_418, cpuArchitecture: params.cpu_architecture === 'arm64' ? 'arm64' : 'x86_64' };
    const message = refusal(() => create(params, release));
    if (typeof reason === 'string') expect(message).toBe(reason);
    else expect(message).toMatch(reason);
  });

  it('checks LVM with OpenShift Virtualization by release and topology', () => {
    const release414: ResolvedRelease = { ...RELEASE_418, openshiftVersion: '4.14.71' };
    const both = { olm_operators: [{ name: 'lvm' }, { name: 'cnv' }] };
    expect(refusal(() => create(both, release414))).toBe(
      'Logical Volume Manager is only supported for highly available openshift with version 4.15.0 or above',
    );
    expect(olm(create({ ...both, control_plane_count: 1, user_managed_networking: true }, release414)).map(([name]) => name)).toEqual(['lvm', 'cnv']);
  });

  it('checks an operator against the release only when the request names the architecture, as upstream', () => {
    const release416: ResolvedRelease = { ...RELEASE_418, openshiftVersion: '4.16.68' };
    expect(olm(create({ olm_operators: [{ name: 'loki' }] }, release416))).toEqual([['loki', false, []]]);
    expect(refusal(() => create({ cpu_architecture: 'x86_64', olm_operators: [{ name: 'loki' }] }, release416))).toBe(
      "cannot use Loki Operator because it's not compatible with the x86_64 architecture on version 4.16.68 of OpenShift",
    );
  });
});

describe('operators changed by an update', () => {
  it("replaces the OLM operators with the request's selection, keeping the builtins", () => {
    const cluster = create({ operator_bundles: [{ id: 'virtualization' }] });
    const updated = applyClusterUpdate(cluster, { olm_operators: [{ name: 'mtv' }] }, NOW);
    expect(olm(updated)).toEqual([
      ['mtv', false, []],
      ['cnv', true, []],
    ]);
    expect(updated.attributes.monitored_operators?.filter((o) => o.operator_type === 'builtin').map((o) => o.name)).toEqual(['console', 'cvo']);
    expect(operatorBundlesOf(updated.attributes.monitored_operators)).toEqual([]);
    expect(olm(applyClusterUpdate(updated, { olm_operators: [] }, NOW))).toEqual([]);
  });

  it('keeps the operators when the request selects none, and still refuses an incompatible platform', () => {
    const cluster = create({ olm_operators: [{ name: 'cnv' }] });
    expect(olm(applyClusterUpdate(cluster, { name: 'renamed' }, NOW))).toEqual([['cnv', false, []]]);
    expect(refusal(() => applyClusterUpdate(cluster, { platform: { type: 'vsphere' } }, NOW))).toMatch(/OpenShift Virtualization.*vSphere/);
  });
});
