/** Cluster rules where upstream's service answered otherwise than we did (issue 43's conformance runs). */
import { describe, expect, it } from 'vitest';
import { applyClusterUpdate, createClusterRecord, schedulableMastersForcedTrue } from '../../lambdas/domain/cluster/cluster.js';
import { clusterWireView } from '../../lambdas/domain/cluster/cluster-document.js';
import type { Cluster } from '../../lambdas/domain/core/entities.js';
import { DomainError } from '../../lambdas/domain/core/errors.js';
import { noProxyProblem } from '../../contracts/input-checks.js';
import type { ClusterCreateParams, ClusterUpdateParams } from '../../contracts/wire.js';
import type { ResolvedRelease } from '../../lambdas/domain/catalogues/catalogues.js';

const PULL_SECRET = '{"auths":{"cloud.openshift.com":{"auth":"dXNlcjpwYXNz","email":"a@b.c"}}}';
const NOW = '2026-08-01T00:00:00.000Z';
const RELEASE: ResolvedRelease = { openshiftVersion: '4.18.52', releaseImage: 'quay.io/x:4.18.52', cpuArchitecture: 'x86_64' };

function create(params: Partial<ClusterCreateParams> = {}): Cluster {
  const record = createClusterRecord(
    { name: 'answers', openshift_version: '4.18', pull_secret: PULL_SECRET, base_dns_domain: 'e.com', ...params } as ClusterCreateParams,
    { orgId: 'org', clusterId: 'c1', now: NOW, release: RELEASE, userName: 'u' },
  );
  return { ...record, version: 1 } as Cluster;
}
const update = (cluster: Cluster, params: Partial<ClusterUpdateParams>) => applyClusterUpdate(cluster, params as ClusterUpdateParams, NOW);

function refusal(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'bad-request') return error.message;
    throw error;
  }
  throw new Error('not refused');
}

describe("cluster answers as upstream's", () => {
  it.each([
    ['', "The URL scheme must be http(s) and specified in the URL: ''"],
    ['ftp://x', "The URL scheme must be http(s) and specified in the URL: 'ftp://x'"],
    ['not a url', "The URL scheme must be http(s) and specified in the URL: 'not a url'"],
    ['http://a b', /^URL 'http:\/\/a b' format is not valid/],
  ])('refuses the ignition endpoint URL %j, on creation and update (upstream checked with curl)', (url, reason) => {
    expect(refusal(() => create({ ignition_endpoint: { url } }))).toMatch(reason);
    expect(refusal(() => update(create(), { ignition_endpoint: { url } }))).toMatch(reason);
  });

  it.each([
    ['local', true],
    ['ab', true],
    ['a--b', true],
    ['example.com', true],
    ['a', false],
    ['-ab', false],
    ['a.b', false],
    ['1.2.3.4', false],
    ['example.com.', false],
    ['EXAMPLE.com', false],
  ])('takes the base domain %j: %s, as upstream did when asked with curl', (domain, taken) => {
    if (taken) expect(create({ base_dns_domain: domain }).attributes.base_dns_domain).toBe(domain);
    else expect(refusal(() => create({ base_dns_domain: domain }))).toMatch(/base_dns_domain/);
  });

  it.each(['https://ignition.example.com:22623/config/worker', 'HTTP://x', 'https:x', 'http:'])(
    'takes the ignition endpoint URL %j, as upstream does',
    (url) => {
      expect(create({ ignition_endpoint: { url } }).attributes.ignition_endpoint).toEqual({ url });
    },
  );

  it.each([
    ['4.9.59', true],
    ['4.10', true],
    ['4.18', false],
  ])('registers a Nutanix cluster on %s only from 4.11, as upstream (refused: %s)', (version, refused) => {
    const nutanix = () => create({ openshift_version: version, platform: { type: 'nutanix' } } as Partial<ClusterCreateParams>);
    if (refused) expect(refusal(nutanix)).toBe(`Invalid OCP version (${version}) for Nutanix, Nutanix integration is supported for version 4.11 and above`);
    else expect(nutanix().attributes.platform).toMatchObject({ type: 'nutanix' });
  });

  it('refuses an API host name for a day-1 cluster', () => {
    expect(refusal(() => update(create(), { api_vip_dns_name: 'api.x.e.com' }))).toBe("Can't update api vip to api.x.e.com for day1 cluster c1");
  });

  it('changes only the disk encryption settings an update gives', () => {
    const tang = '[{"url":"http://t","thumbprint":"x"}]';
    const encrypted = create({ disk_encryption: { enable_on: 'masters', mode: 'tang', tang_servers: tang } });
    expect(update(encrypted, { disk_encryption: {} }).attributes.disk_encryption).toEqual({ enable_on: 'masters', mode: 'tang', tang_servers: tang });
    expect(update(encrypted, { disk_encryption: { enable_on: 'all' } }).attributes.disk_encryption).toEqual({
      enable_on: 'all',
      mode: 'tang',
      tang_servers: tang,
    });
    expect(update(create(), { disk_encryption: {} }).attributes.disk_encryption).toEqual({ enable_on: 'none', mode: 'tpmv2' });
  });

  it('registers a load balancer given without a type as cluster-managed', () => {
    expect(create({ load_balancer: {} as never }).attributes.load_balancer).toEqual({ type: 'cluster-managed' });
    expect(create({ load_balancer: { type: 'user-managed' } }).attributes.load_balancer).toEqual({ type: 'user-managed' });
  });

  it('accepts a no_proxy holding the wildcard among other entries', () => {
    expect(noProxyProblem('*,example.com')).toBeUndefined();
    expect(noProxyProblem('not a domain!')).toBeDefined();
  });

  it("leaves out an empty base domain and SSH key, as Go's omitempty does", () => {
    const view = clusterWireView(create({ base_dns_domain: '', ssh_public_key: '' }));
    expect(view).not.toHaveProperty('base_dns_domain');
    expect(view).not.toHaveProperty('ssh_public_key');
  });
});

describe('the IP family listed first by a new dual-stack cluster', () => {
  const dual = {
    cluster_networks: [
      { cidr: '10.128.0.0/14', host_prefix: 23 },
      { cidr: 'fd01::/48', host_prefix: 64 },
    ],
    machine_networks: [{ cidr: '192.168.111.0/24' }, { cidr: 'fd2e:6f44:5dd8:c956::/120' }],
  };
  it('must be the same in every list, as upstream refuses otherwise', () => {
    expect(refusal(() => create({ ...dual, service_networks: [{ cidr: 'fd02::/112' }, { cidr: '172.30.0.0/16' }] } as Partial<ClusterCreateParams>))).toBe(
      'Inconsistent IP family order: machine_networks first IP is 192.168.111.0/24 but service_networks first IP is fd02::/112. All networks must have the same IP family first',
    );
    expect(
      create({ ...dual, service_networks: [{ cidr: '172.30.0.0/16' }, { cidr: 'fd02::/112' }] } as Partial<ClusterCreateParams>).attributes.machine_networks,
    ).toHaveLength(2);
  });
});

describe("a cluster's name", () => {
  it("may start with a digit, as upstream's rule admits", () => {
    expect(create({ name: '1abc' }).name).toBe('1abc');
    expect(refusal(() => create({ name: '-abc' }))).toMatch(/start and end with a letter or digit/);
  });
});

describe('schedulable_masters_forced_true', () => {
  const hosts = (...roles: [string, string?][]) => roles.map(([role, suggested_role]) => ({ role, suggested_role }));
  it('holds while fewer than two hosts are workers by their effective role, as upstream refreshes it', () => {
    expect(schedulableMastersForcedTrue(3, [])).toBe(true);
    expect(schedulableMastersForcedTrue(3, hosts(['master'], ['master'], ['master'], ['worker']))).toBe(true);
    expect(schedulableMastersForcedTrue(3, hosts(['master'], ['master'], ['master'], ['worker'], ['auto-assign', 'worker']))).toBe(false);
    expect(schedulableMastersForcedTrue(3, hosts(['auto-assign', 'master'], ['auto-assign', 'worker'], ['auto-assign']))).toBe(true);
    // Five control planes and no worker (the harness's hosts/five-cp): upstream forces it; the host count once did not.
    expect(schedulableMastersForcedTrue(5, hosts(['master'], ['master'], ['master'], ['master'], ['master']))).toBe(true);
    expect(schedulableMastersForcedTrue(3, hosts(['worker'], ['worker']))).toBe(false);
  });

  it('always holds for a single node', () => {
    expect(schedulableMastersForcedTrue(1, hosts(['worker'], ['worker'], ['worker']))).toBe(true);
  });
});

describe("a cluster's progress in its document", () => {
  it("leaves out percentages of 0 and a stage that did not time out, as upstream's omitempty does", () => {
    const cluster = create();
    cluster.attributes.progress = {
      preparing_for_installation_stage_percentage: 0,
      installing_stage_percentage: 0,
      total_percentage: 12,
      finalizing_stage_timed_out: false,
    } as never;
    expect(clusterWireView(cluster).progress).toEqual({ finalizing_stage_started_at: '0001-01-01T00:00:00.000Z', total_percentage: 12 });
  });
});
