import { describe, expect, it } from 'vitest';
import { applyClusterUpdate, createClusterRecord } from '../../lambdas/domain/cluster/cluster.js';
import { customManifestFeatureUsage, installConfigOverridesFeatureUsage, usageId } from '../../lambdas/domain/cluster/feature-usage.js';
import type { Cluster } from '../../lambdas/domain/core/entities.js';
import type { ClusterCreateParams, ClusterUpdateParams } from '../../contracts/wire.js';
import type { ResolvedRelease } from '../../lambdas/domain/catalogues/catalogues.js';

const PULL_SECRET = '{"auths":{"cloud.openshift.com":{"auth":"dXNlcjpwYXNz","email":"a@b.c"}}}';
const NOW = '2026-08-01T00:00:00.000Z';
const RELEASE_418: ResolvedRelease = { openshiftVersion: '4.18.52', releaseImage: 'quay.io/x:4.18.52', cpuArchitecture: 'x86_64' };
const TANG = '[{"url":"http://t","thumbprint":"x"}]';

function create(params: Partial<ClusterCreateParams> = {}): Cluster {
  const record = createClusterRecord(
    { name: 'usage', openshift_version: '4.18', pull_secret: PULL_SECRET, base_dns_domain: 'e.com', ...params } as ClusterCreateParams,
    { orgId: 'org', clusterId: 'c1', now: NOW, release: RELEASE_418, userName: 'u' },
  );
  return { ...record, version: 1 } as Cluster;
}
const update = (cluster: Cluster, params: Partial<ClusterUpdateParams>, virtualHostIds: string[] = []) =>
  applyClusterUpdate(cluster, params as ClusterUpdateParams, NOW, [], virtualHostIds);
const usage = (cluster: Cluster) => JSON.parse(cluster.attributes.feature_usage as string) as Record<string, { data?: unknown; id: string; name: string }>;

// The cluster of these tests, registered and updated the same way on upstream's service, answered these documents.
const REGISTERED = {
  'Additional NTP Source': { data: { source_count: 2 }, id: 'ADDITIONAL_NTP_SOURCE', name: 'Additional NTP Source' },
  CNV: { id: 'CNV', name: 'CNV' },
  'Disk encryption': { data: { enable_on: 'all', mode: 'tang', tang_servers: TANG }, id: 'DISK_ENCRYPTION', name: 'Disk encryption' },
  Hyperthreading: { data: { hyperthreading_enabled: 'all' }, id: 'HYPERTHREADING', name: 'Hyperthreading' },
  'OVN network type': { id: 'OVN_NETWORK_TYPE', name: 'OVN network type' },
  Proxy: { data: { http_proxy: 1, https_proxy: 1 }, id: 'PROXY', name: 'Proxy' },
};
const registered = () =>
  create({
    http_proxy: 'http://p:3128',
    additional_ntp_source: 'a.b,c.d',
    olm_operators: [{ name: 'cnv' }],
    disk_encryption: { enable_on: 'all', mode: 'tang', tang_servers: TANG },
  });

describe('feature usage (upstream internal/usage)', () => {
  it('names ids as upstream does', () => {
    expect(usageId('VIP auto alloc.')).toBe('VIP_AUTO_ALLOC');
    expect(usageId('User Managed Networking With Multi Node')).toBe('USER_MANAGED_NETWORKING_WITH_MULTI_NODE');
  });

  it("records a new cluster's features as upstream's registration does, keys sorted", () => {
    const cluster = registered();
    expect(usage(cluster)).toEqual(REGISTERED);
    expect(cluster.attributes.feature_usage).toBe(JSON.stringify(Object.fromEntries(Object.entries(REGISTERED).sort(([a], [b]) => (a < b ? -1 : 1)))));
  });

  it('records single node, platforms, user-managed multi-node and no hyperthreading', () => {
    const sno = usage(create({ control_plane_count: 1, high_availability_mode: 'None' } as Partial<ClusterCreateParams>));
    expect(sno.SNO).toEqual({ id: 'SNO', name: 'SNO' });
    const nutanix = usage(create({ platform: { type: 'nutanix' } }));
    expect(nutanix['Platform selection']).toEqual({ data: { platform_type: 'nutanix' }, id: 'PLATFORM_SELECTION', name: 'Platform selection' });
    expect(nutanix['Nutanix integration']).toEqual({ data: { platform_type: 'nutanix' }, id: 'NUTANIX_INTEGRATION', name: 'Nutanix integration' });
    const umn = usage(create({ platform: { type: 'none' }, user_managed_networking: true }));
    expect(umn['User Managed Networking With Multi Node']).toBeDefined();
    expect(umn['Platform selection']).toBeUndefined();
    expect(usage(create({ hyperthreading: 'none' })).Hyperthreading).toBeUndefined();
    // An HTTPS proxy alone does not count at registration (upstream passes the HTTP one in its place).
    expect(usage(create({ https_proxy: 'http://q:1' })).Proxy).toBeUndefined();
  });

  it('sets again only what an update touches, proxies from the request alone, disk encryption as the cluster was', () => {
    const renamed = update(registered(), { name: 'renamed' });
    const { Proxy: _proxy, ...withoutProxy } = REGISTERED;
    expect(usage(renamed)).toEqual(withoutProxy);
    const changed = update(renamed, { disk_encryption: { enable_on: 'none' }, tags: 'a,b', https_proxy: 'http://q:1' });
    expect(usage(changed)).toEqual({
      ...withoutProxy,
      'Cluster Tags': { id: 'CLUSTER_TAGS', name: 'Cluster Tags' },
      'Disk encryption': { data: { enable_on: 'none' }, id: 'DISK_ENCRYPTION', name: 'Disk encryption' },
      Proxy: { data: { https_proxy: 1 }, id: 'PROXY', name: 'Proxy' },
    });
    // Disabled before the update: not recorded, whatever the update enables.
    expect(usage(update(create(), { disk_encryption: { enable_on: 'all', mode: 'tpmv2' } }))['Disk encryption']).toBeUndefined();
  });

  it('records operators, schedulable masters, VIP allocation and virtual hosts on update', () => {
    const updated = usage(update(create(), { olm_operators: [{ name: 'lvm' }], schedulable_masters: true, vip_dhcp_allocation: true }, ['h1']));
    expect(updated.LVM).toEqual({ id: 'LVM', name: 'LVM' });
    expect(updated['Schedulable masters']).toBeDefined();
    expect(updated['VIP auto alloc.']).toBeDefined();
    expect(updated['Cluster managed networking with VMs']).toEqual({
      data: { 'VM Hosts': ['h1'] },
      id: 'CLUSTER_MANAGED_NETWORKING_WITH_VMS',
      name: 'Cluster managed networking with VMs',
    });
    expect(usage(update(registered(), { olm_operators: [] })).CNV).toBeUndefined();
  });

  it("records the networking mode an update implies: platform none makes a multi-node cluster's networking user-managed", () => {
    expect(usage(update(create(), { platform: { type: 'none' } }))['User Managed Networking With Multi Node']).toEqual({
      id: 'USER_MANAGED_NETWORKING_WITH_MULTI_NODE',
      name: 'User Managed Networking With Multi Node',
    });
  });

  it('adds each install-config override key, with FIPS, to what was recorded', () => {
    const first = installConfigOverridesFeatureUsage('{}', JSON.stringify({ fips: true, networking: { networkType: 'OVNKubernetes', clusterNetwork: [] } }));
    const second = installConfigOverridesFeatureUsage(first, JSON.stringify({ capabilities: { baselineCapabilitySet: 'None' } }));
    expect(JSON.parse(second!)).toEqual({
      FIPS: { id: 'FIPS', name: 'FIPS' },
      'Install Config Overrides': {
        data: { fips: true, 'networking networkType clusterNetwork': true, 'capabilities baselineCapabilitySet': true },
        id: 'INSTALL_CONFIG_OVERRIDES',
        name: 'Install Config Overrides',
      },
    });
    expect(installConfigOverridesFeatureUsage(first, '')).toBeUndefined();
    expect(installConfigOverridesFeatureUsage(first, '{}')).toBeUndefined();
  });

  it('records custom manifests', () => {
    const used = customManifestFeatureUsage('{}', true);
    expect(JSON.parse(used)).toEqual({ 'Custom manifest': { id: 'CUSTOM_MANIFEST', name: 'Custom manifest' } });
    expect(customManifestFeatureUsage(used, false)).toBe('{}');
  });
});
