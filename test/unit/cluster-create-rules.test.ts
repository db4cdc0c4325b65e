/**
 * Cluster create and update decisions, each asserting the answer upstream's own service gives to the
 * same request (issue 43; the requests were sent to both services side by side): the platform and
 * networking-mode defaults per architecture and topology, the features a cluster may not combine,
 * the control plane count, Tang disk encryption, single-node rules, and which network checks a
 * create makes (parsing and dual-stack shape) and which it leaves to the validations.
 */
import { describe, expect, it } from 'vitest';
import { applyClusterUpdate, createClusterRecord, proxySettingsChanged } from '../../lambdas/domain/cluster/cluster.js';
import { clusterWireView } from '../../lambdas/domain/cluster/cluster-document.js';
import { UNSET_TIME } from '../../lambdas/domain/core/entities.js';
import type { Params } from '../../contracts/input-checks.js';
import type { Cluster } from '../../lambdas/domain/core/entities.js';
import { DomainError } from '../../lambdas/domain/core/errors.js';
import type { ResolvedRelease } from '../../lambdas/domain/catalogues/catalogues.js';
import { PULL_SECRET } from '../support/fixtures.js';

const NOW = '2026-01-01T00:00:00.000Z';
const CLUSTER_ID = '11111111-1111-4111-8111-111111111111';

function create(params: Params, options: { version?: string; releaseArchitecture?: string } = {}): Cluster {
  const version = options.version ?? '4.18.52';
  const record = createClusterRecord(
    { name: 'demo', openshift_version: version, pull_secret: PULL_SECRET, base_dns_domain: 'example.com', ...params },
    {
      orgId: 'org',
      clusterId: CLUSTER_ID,
      now: NOW,
      release: {
        openshiftVersion: version,
        releaseImage: 'quay.io/x',
        cpuArchitecture: (options.releaseArchitecture ?? params.cpu_architecture ?? 'x86_64') as ResolvedRelease['cpuArchitecture'],
      },
      userName: 'u',
    },
  );
  return { ...record, version: 1 };
}

/** The reason a call is refused with (400), or 'accepted'. */
function outcome(call: () => unknown): string {
  try {
    call();
    return 'accepted';
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    expect(error.kind).toBe('bad-request');
    return error.message;
  }
}

const platformAndMode = (cluster: Cluster) => ({ platform: cluster.attributes.platform?.type, umn: cluster.attributes.user_managed_networking });
const OCI = { type: 'external', external: { platform_name: 'oci', cloud_controller_manager: 'External' } };

describe('platform and user-managed networking on create', () => {
  it.each<[string, Params, { platform: string; umn: boolean | undefined }, string?]>([
    ['HA, nothing named: baremetal, cluster-managed', {}, { platform: 'baremetal', umn: false }],
    ['SNO, nothing named: none, user-managed', { control_plane_count: 1 }, { platform: 'none', umn: true }],
    ['HA on platform none: user-managed networking', { platform: { type: 'none' } }, { platform: 'none', umn: true }],
    ['HA with user-managed networking: platform none', { user_managed_networking: true }, { platform: 'none', umn: true }],
    ['HA on OCI: user-managed networking', { platform: OCI }, { platform: 'external', umn: true }],
    ['SNO on OCI', { control_plane_count: 1, platform: OCI }, { platform: 'external', umn: true }],
    ['vSphere keeps the mode unset when none is sent', { platform: { type: 'vsphere' } }, { platform: 'vsphere', umn: undefined }],
    ['Nutanix keeps the mode unset when none is sent', { platform: { type: 'nutanix' } }, { platform: 'nutanix', umn: undefined }],
    ['vSphere with user-managed networking', { platform: { type: 'vsphere' }, user_managed_networking: true }, { platform: 'vsphere', umn: true }],
    ['s390x on a multi release: platform none, user-managed', { cpu_architecture: 's390x' }, { platform: 'none', umn: true }, 'multi'],
    ['ppc64le SNO on a multi release', { cpu_architecture: 'ppc64le', control_plane_count: 1 }, { platform: 'none', umn: true }, 'multi'],
    [
      's390x on a generic external platform keeps it',
      { cpu_architecture: 's390x', platform: { type: 'external', external: { platform_name: 'foo' } } },
      { platform: 'external', umn: true },
      'multi',
    ],
    ['arm64 HA: baremetal, cluster-managed', { cpu_architecture: 'arm64' }, { platform: 'baremetal', umn: false }],
  ])('%s', (_name, params, expected, releaseArchitecture) => {
    expect(
      platformAndMode(create(params, { version: releaseArchitecture ? '4.18.52-multi' : '4.18.52', ...(releaseArchitecture ? { releaseArchitecture } : {}) })),
    ).toEqual(expected);
  });

  it.each<[string, Params, string]>([
    [
      'baremetal with user-managed networking',
      { platform: { type: 'baremetal' }, user_managed_networking: true },
      "Can't set baremetal platform with user-managed-networking enabled",
    ],
    [
      'none without user-managed networking',
      { platform: { type: 'none' }, user_managed_networking: false },
      "Can't set none platform with user-managed-networking disabled",
    ],
    [
      'Nutanix with user-managed networking',
      { platform: { type: 'nutanix' }, user_managed_networking: true },
      "Can't set nutanix platform with user-managed-networking enabled",
    ],
    ['SNO on baremetal', { control_plane_count: 1, platform: { type: 'baremetal' } }, "Can't set baremetal platform on single node OpenShift"],
    ['SNO on vSphere', { control_plane_count: 1, platform: { type: 'vsphere' } }, 'Single node cluster is not supported alongside vsphere platform'],
    [
      'SNO without user-managed networking',
      { control_plane_count: 1, user_managed_networking: false },
      "Can't disable user-managed-networking on single node OpenShift",
    ],
    ['s390x on baremetal', { cpu_architecture: 's390x', platform: { type: 'baremetal' } }, "Can't set baremetal platform on s390x architecture"],
    [
      's390x without user-managed networking',
      { cpu_architecture: 's390x', user_managed_networking: false },
      "Can't disable User Managed Networking on s390x architecture",
    ],
    ['external without its settings', { platform: { type: 'external' } }, 'External setting must be set when using platform type external'],
    [
      'external settings on platform none',
      { platform: { type: 'none', external: { platform_name: 'foo' } } },
      'External settings can only be set with external platform type',
    ],
    [
      'OCI without its cloud controller manager',
      { platform: { type: 'external', external: { platform_name: 'oci' } } },
      'Cloud controller manager must be enabled when using oci external integration',
    ],
    [
      'OCI on s390x',
      { cpu_architecture: 's390x', platform: OCI },
      "cannot use Oracle Cloud Infrastructure external platform because it's not compatible with the s390x architecture on version 4.18.52-multi of OpenShift",
    ],
    [
      'Nutanix on arm64',
      { cpu_architecture: 'arm64', platform: { type: 'nutanix' } },
      "cannot use Nutanix Platform Integration because it's not compatible with the arm64 architecture on version 4.18.52 of OpenShift",
    ],
  ])('refuses %s', (_name, params, reason) => {
    expect(outcome(() => create(params, params.cpu_architecture === 's390x' ? { version: '4.18.52-multi', releaseArchitecture: 'multi' } : {}))).toBe(reason);
  });

  it('gives an external platform without a cloud controller manager an empty one, and every other platform empty external settings', () => {
    expect(create({ platform: { type: 'external', external: { platform_name: 'foo' } } }).attributes.platform).toEqual({
      type: 'external',
      external: { platform_name: 'foo', cloud_controller_manager: '' },
    });
    expect(create({}).attributes.platform).toEqual({ type: 'baremetal', external: {} });
  });
});

describe('features on create', () => {
  it.each<[string, Params, string, string?]>([
    ['OpenShiftSDN on 4.18', { network_type: 'OpenShiftSDN' }, 'Openshift version 4.18.52 is not supported for OpenShiftSDN NetworkType'],
    ['OpenShiftSDN on 4.16', { network_type: 'OpenShiftSDN' }, 'Openshift version 4.16.68 is not supported for OpenShiftSDN NetworkType', '4.16.68'],
    ['OpenShiftSDN on 4.14', { network_type: 'OpenShiftSDN' }, 'accepted', '4.14.71'],
    [
      'OpenShiftSDN on a 4.14 single node',
      { network_type: 'OpenShiftSDN', control_plane_count: 1 },
      'OpenShiftSDN network type is not allowed in single node mode',
      '4.14.71',
    ],
    [
      'VIP DHCP allocation with platform none',
      { vip_dhcp_allocation: true, platform: { type: 'none' } },
      "cannot use VIP Automatic Allocation because it's not compatible with None Platform Integration",
    ],
    // Upstream checks the architecture only when the request names one.
    ['VIP DHCP allocation on 4.18, no architecture named', { vip_dhcp_allocation: true }, 'accepted'],
    [
      'VIP DHCP allocation on 4.18 for x86_64',
      { vip_dhcp_allocation: true, cpu_architecture: 'x86_64' },
      "cannot use VIP Automatic Allocation because it's not compatible with the x86_64 architecture on version 4.18.52 of OpenShift",
    ],
    [
      'a user-managed load balancer on platform none',
      { load_balancer: { type: 'user-managed' }, platform: { type: 'none' } },
      "cannot use User Managed Networking because it's not compatible with User Managed Load Balancer",
    ],
    [
      'a user-managed load balancer on a single node',
      { load_balancer: { type: 'user-managed' }, control_plane_count: 1 },
      "cannot use Single Node OpenShift because it's not compatible with User Managed Load Balancer",
    ],
    ['a user-managed load balancer, cluster-managed networking', { load_balancer: { type: 'user-managed' } }, 'accepted'],
  ])('%s', (_name, params, expected, version) => {
    expect(outcome(() => create(params, version ? { version } : {}))).toBe(expected);
  });
});

describe('control plane count on create', () => {
  it.each<[string, Params, string, string?]>([
    [
      '2 before 4.19',
      { control_plane_count: 2 },
      'there should be 3-5 dedicated control plane nodes for high availability mode Full in openshift version 4.18 or newer',
    ],
    ['2 from 4.19 (an arbiter cluster)', { control_plane_count: 2 }, 'accepted', '4.19.42'],
    [
      '4 before 4.18',
      { control_plane_count: 4 },
      'there should be exactly 3 dedicated control plane nodes for high availability mode Full in openshift version older than 4.18',
      '4.17.56',
    ],
    ['5 on 4.18', { control_plane_count: 5 }, 'accepted'],
    [
      '6 on 4.20',
      { control_plane_count: 6 },
      'there should be 2-5 dedicated control plane nodes for high availability mode Full in openshift version 4.19 or newer',
      '4.20.33',
    ],
    [
      'one with availability mode Full',
      { control_plane_count: 1, high_availability_mode: 'Full' },
      'there should be 3-5 dedicated control plane nodes for high availability mode Full in openshift version 4.18 or newer',
    ],
    [
      'three with availability mode None',
      { control_plane_count: 3, high_availability_mode: 'None' },
      'single-node clusters must have a single control plane node',
    ],
    ['availability mode None alone', { high_availability_mode: 'None' }, 'accepted'],
  ])('%s', (_name, params, expected, version) => {
    expect(outcome(() => create(params, version ? { version } : {}))).toBe(expected);
  });
});

describe('disk encryption on create', () => {
  it.each<[string, Params, string]>([
    ['Tang without servers', { disk_encryption: { enable_on: 'all', mode: 'tang' } }, "Setting Tang mode but tang_servers isn't set"],
    ['Tang servers that are not JSON', { disk_encryption: { enable_on: 'all', mode: 'tang', tang_servers: 'nope' } }, 'Unable to unmarshal tang_servers'],
    [
      'a Tang server without a thumbprint',
      { disk_encryption: { enable_on: 'all', mode: 'tang', tang_servers: '[{"url":"http://tang","thumbprint":""}]' } },
      "Tang thumbprint isn't set",
    ],
    [
      'a Tang server URL that is not one',
      { disk_encryption: { enable_on: 'all', mode: 'tang', tang_servers: '[{"url":"nope","thumbprint":"x"}]' } },
      "Tang URL isn't valid",
    ],
    ['Tang with its servers', { disk_encryption: { enable_on: 'all', mode: 'tang', tang_servers: '[{"url":"http://tang","thumbprint":"x"}]' } }, 'accepted'],
  ])('%s', (_name, params, expected) => {
    expect(outcome(() => create(params))).toContain(expected);
  });

  it('fills in what the request leaves out: off, TPM v2', () => {
    expect(create({ disk_encryption: { enable_on: 'all' } }).attributes.disk_encryption).toEqual({ enable_on: 'all', mode: 'tpmv2' });
  });
});

describe('networks on create: parsed and shaped, the rest left to the validations', () => {
  it.each<[string, Params]>([
    ['a service network inside the cluster network', { service_networks: [{ cidr: '10.128.0.0/16' }] }],
    ['a machine network inside the cluster network', { machine_networks: [{ cidr: '10.128.0.0/24' }] }],
    ['a host prefix shorter than the cluster network', { cluster_networks: [{ cidr: '10.128.0.0/14', host_prefix: 12 }] }],
    ['a host prefix leaving too few pod addresses', { cluster_networks: [{ cidr: '10.128.0.0/14', host_prefix: 30 }] }],
    ['a cluster network without a host prefix', { cluster_networks: [{ cidr: '10.128.0.0/14' }] }],
    ['a service network of 16 addresses', { service_networks: [{ cidr: '172.30.0.0/28' }] }],
    [
      'three cluster networks',
      {
        cluster_networks: [
          { cidr: '10.128.0.0/14', host_prefix: 23 },
          { cidr: '10.200.0.0/14', host_prefix: 23 },
          { cidr: '10.208.0.0/14', host_prefix: 23 },
        ],
      },
    ],
  ])('accepts %s', (_name, params) => {
    expect(outcome(() => create(params))).toBe('accepted');
  });

  it('stores each network in network form', () => {
    const cluster = create({ cluster_networks: [{ cidr: '10.210.0.0/14', host_prefix: 23 }], machine_networks: [{ cidr: '192.168.1.7/24' }] });
    expect(cluster.attributes.cluster_networks).toEqual([{ cluster_id: CLUSTER_ID, cidr: '10.208.0.0/14', host_prefix: 23 }]);
    expect(cluster.attributes.machine_networks).toEqual([{ cluster_id: CLUSTER_ID, cidr: '192.168.1.0/24' }]);
  });

  it('ignores the deprecated singular network fields, as upstream does, and stores none', () => {
    const cluster = create({ cluster_network_cidr: '10.132.0.0/14', cluster_network_host_prefix: 24, service_network_cidr: '10.128.0.0/16' });
    expect(cluster.attributes.cluster_networks).toEqual([{ cluster_id: CLUSTER_ID, cidr: '10.128.0.0/14', host_prefix: 23 }]);
    expect(cluster.attributes.service_networks).toEqual([{ cluster_id: CLUSTER_ID, cidr: '172.30.0.0/16' }]);
    for (const field of ['cluster_network_cidr', 'cluster_network_host_prefix', 'service_network_cidr', 'machine_network_cidr'])
      expect(cluster.attributes).not.toHaveProperty(field);
  });

  it('refuses a dual-stack service network list with a single-stack cluster network list', () => {
    const dualStackServices = [{ cidr: '172.30.0.0/16' }, { cidr: 'fd02::/112' }];
    expect(outcome(() => create({ service_networks: dualStackServices, cluster_networks: [{ cidr: '10.128.0.0/14', host_prefix: 23 }] }))).toBe(
      'Expected 2 cluster networks, found 1',
    );
    // Without cluster networks in the request, upstream checks before filling in its default one.
    expect(outcome(() => create({ service_networks: dualStackServices }))).toBe('Dual-stack cluster cannot be created with empty Machine Networks');
  });
});

describe('the create answer', () => {
  it('is the cluster as registered: insufficient, not yet judged, with schedulable_masters_forced_true on any topology', () => {
    for (const params of [{}, { control_plane_count: 1 }]) {
      const cluster = create(params);
      expect(cluster.status).toBe('insufficient');
      expect(cluster.attributes.status_info).toBe('Cluster is not ready for install');
      expect(cluster.attributes.schedulable_masters_forced_true).toBe(true);
    }
  });

  it('carries the fields upstream always answers, unset as Go leaves them, and no zero host counts', () => {
    const wire = clusterWireView(create({}), { counts: { total: 0, enabled: 0, ready: 0 } });
    expect(wire).toMatchObject({
      'last-installation-preparation': {},
      ignition_endpoint: {},
      deleted_at: null,
      email_domain: 'Unknown',
      install_started_at: UNSET_TIME,
      install_completed_at: UNSET_TIME,
      controller_logs_started_at: UNSET_TIME,
      controller_logs_collected_at: UNSET_TIME,
      image_info: { created_at: '0001-01-01T00:00:00Z', expires_at: UNSET_TIME },
      progress: { finalizing_stage_started_at: UNSET_TIME },
    });
    for (const field of [
      'total_host_count',
      'enabled_host_count',
      'ready_host_count',
      'cluster_network_cidr',
      'service_network_cidr',
      'last_installation_preparation',
    ]) {
      expect(wire).not.toHaveProperty(field);
    }
  });

  it("leaves out empty proxy, tags and NTP strings as upstream's omitempty does, and its own machine-network bookkeeping", () => {
    const cluster = create({ http_proxy: '', https_proxy: '', no_proxy: '', tags: '', additional_ntp_source: '' });
    cluster.attributes.machine_network_cidr_updated_at = '2026-11-29T06:00:00.000Z';
    const wire = clusterWireView(cluster);
    for (const field of ['http_proxy', 'https_proxy', 'no_proxy', 'tags', 'additional_ntp_source', 'machine_network_cidr_updated_at']) {
      expect(wire).not.toHaveProperty(field);
    }
    expect(clusterWireView(create({ no_proxy: 'example.org' })).no_proxy).toBe('example.org');
  });
});

describe('update', () => {
  const update = (cluster: Cluster, params: Params, hostCount = 0) =>
    applyClusterUpdate(
      cluster,
      params,
      NOW,
      Array.from({ length: hostCount }, () => ({})),
    );

  it.each<[string, () => Cluster, Params, string]>([
    [
      'a service network overlapping the cluster network',
      () => create({}),
      { service_networks: [{ cidr: '10.128.0.0/16' }] },
      'ServiceNetworkCidr and ClusterNetworkCidr: CIDRS 10.128.0.0/16 and 10.128.0.0/14 overlap',
    ],
    [
      'a host prefix leaving too few pod addresses',
      () => create({}),
      { cluster_networks: [{ cidr: '10.128.0.0/14', host_prefix: 30 }] },
      'Cluster CIDR size: Host prefix, now 30, must be less than or equal to 25 to allow at least 128 addresses',
    ],
    [
      'a host prefix shorter than the cluster network',
      () => create({}),
      { cluster_networks: [{ cidr: '10.128.0.0/14', host_prefix: 12 }] },
      'Cluster CIDR size: Cluster network CIDR prefix 14 does not contain enough addresses for 0 hosts each one with 12 prefix (1048576 addresses)',
    ],
    [
      'a cluster network too small for its hosts',
      () => create({}),
      { cluster_networks: [{ cidr: '10.128.0.0/24', host_prefix: 23 }] },
      'Cluster CIDR size: Cluster network CIDR prefix 24 does not contain enough addresses for 0 hosts each one with 23 prefix (512 addresses)',
    ],
    [
      'a service network of 16 addresses',
      () => create({}),
      { service_networks: [{ cidr: '172.30.0.0/28' }] },
      'Service network CIDR 172.30.0.0/28: Address mask size must be between 1 to 25 and must include at least 128 addresses',
    ],
    ['the stored cluster network with its host bits set', () => create({}), { cluster_networks: [{ cidr: '10.128.0.1/14', host_prefix: 23 }] }, 'accepted'],
    [
      'a machine network of 4 addresses, user-managed networking',
      () => create({ user_managed_networking: true }),
      { machine_networks: [{ cidr: '192.168.1.0/30' }] },
      "Machine network CIDR '192.168.1.0/30': Address mask size must be between 1 to 28 and must include at least 16 addresses",
    ],
    [
      'a machine network inside the cluster network, user-managed networking',
      () => create({ user_managed_networking: true }),
      { machine_networks: [{ cidr: '10.128.0.0/24' }] },
      'MachineNetworkCIDR and ClusterNetworkCidr: CIDRS 10.128.0.0/24 and 10.128.0.0/14 overlap',
    ],
    [
      'an IPv6 machine network with VIP DHCP allocation',
      () => create({ vip_dhcp_allocation: true }),
      { machine_networks: [{ cidr: 'fd00::/64' }] },
      'VIP DHCP allocation is unsupported with IPv6 network fd00::/64',
    ],
    ['the singular service_network_cidr (ignored)', () => create({}), { service_network_cidr: '10.128.0.0/16' }, 'accepted'],
    ['OpenShiftSDN on 4.18', () => create({}), { network_type: 'OpenShiftSDN' }, 'Openshift version 4.18.52 is not supported for OpenShiftSDN NetworkType'],
    [
      'OpenShiftSDN on a single node',
      () => create({ control_plane_count: 1 }, { version: '4.14.71' }),
      { network_type: 'OpenShiftSDN' },
      'OpenShiftSDN network type is not allowed in single node mode',
    ],
    [
      'VIP DHCP allocation on platform none',
      () => create({ platform: { type: 'none' } }),
      { vip_dhcp_allocation: true },
      "cannot use VIP Automatic Allocation because it's not compatible with None Platform Integration",
    ],
    ['Tang without servers', () => create({}), { disk_encryption: { enable_on: 'all', mode: 'tang' } }, "Setting Tang mode but tang_servers isn't set"],
    [
      'a single node to three control planes',
      () => create({ control_plane_count: 1 }),
      { control_plane_count: 3 },
      'single-node clusters must have a single control plane node',
    ],
    [
      'three control planes to one',
      () => create({}),
      { control_plane_count: 1 },
      'there should be 3-5 dedicated control plane nodes for high availability mode Full in openshift version 4.18 or newer',
    ],
    [
      'a single node off user-managed networking',
      () => create({ control_plane_count: 1 }),
      { user_managed_networking: false },
      'disabling User Managed Networking or setting platform different than none or oci platforms is not allowed in single node Openshift',
    ],
    [
      'a single node onto vSphere',
      () => create({ control_plane_count: 1 }),
      { platform: { type: 'vsphere' } },
      'Single node cluster is not supported alongside vsphere platform',
    ],
    [
      'a single node onto baremetal',
      () => create({ control_plane_count: 1 }),
      { platform: { type: 'baremetal' } },
      'disabling User Managed Networking or setting platform different than none or oci platforms is not allowed in single node Openshift',
    ],
    ['baremetal on a user-managed cluster', () => create({ user_managed_networking: true }), { platform: { type: 'baremetal' } }, 'accepted'],
    [
      'user-managed networking on Nutanix',
      () => create({ platform: { type: 'nutanix' } }),
      { user_managed_networking: true },
      'User-managed-networking is not supported with platform nutanix',
    ],
  ])('%s', (_name, cluster, params, expected) => {
    expect(outcome(() => update(cluster(), params))).toBe(expected);
  });

  it.each<[string, () => Cluster, Params, { platform: string; umn: boolean | undefined }]>([
    ['platform none on baremetal: user-managed networking comes with it', () => create({}), { platform: { type: 'none' } }, { platform: 'none', umn: true }],
    ['user-managed networking on baremetal: platform none comes with it', () => create({}), { user_managed_networking: true }, { platform: 'none', umn: true }],
    [
      'baremetal on platform none: cluster-managed networking comes with it',
      () => create({ user_managed_networking: true }),
      { platform: { type: 'baremetal' } },
      { platform: 'baremetal', umn: false },
    ],
    [
      'cluster-managed networking on platform none: baremetal comes with it',
      () => create({ user_managed_networking: true }),
      { user_managed_networking: false },
      { platform: 'baremetal', umn: false },
    ],
    ['vSphere on baremetal keeps the mode', () => create({}), { platform: { type: 'vsphere' } }, { platform: 'vsphere', umn: false }],
  ])('%s', (_name, cluster, params, expected) => {
    expect(platformAndMode(update(cluster(), params))).toEqual(expected);
  });
});

describe('tags and NTP sources on create and update', () => {
  const update = (cluster: Cluster, params: Params) => applyClusterUpdate(cluster, params, NOW, []);
  const TAGS_REFUSED = /^Invalid format for Tags: /;
  it.each([['a,b,c'], ['tag one,tag_2'], ['']])('accepts tags %j', (tags) => {
    expect(outcome(() => create({ tags }))).toBe('accepted');
    expect(outcome(() => update(create({}), { tags }))).toBe('accepted');
  });

  it.each([['!'], ['a,,b'], ['a  b'], [' a'], ['a,'], ['é']])('refuses tags %j, as upstream (400)', (tags) => {
    expect(outcome(() => create({ tags }))).toMatch(TAGS_REFUSED);
    expect(outcome(() => update(create({}), { tags }))).toMatch(TAGS_REFUSED);
  });

  it('checks ntp_sources as upstream does, and refuses it beside additional_ntp_source', () => {
    expect(outcome(() => create({ ntp_sources: 'bad host!' }))).toMatch(/Invalid NTP source in ntp_sources/);
    expect(outcome(() => create({ ntp_sources: 'clock.example.com' }))).toBe('accepted');
    expect(outcome(() => create({ ntp_sources: 'clock.example.com', additional_ntp_source: '10.0.0.1' }))).toBe(
      'ntp_sources and additional_ntp_source are mutually exclusive',
    );
    // On update, judged on what the cluster would hold.
    expect(outcome(() => update(create({ additional_ntp_source: '10.0.0.1' }), { ntp_sources: 'clock.example.com' }))).toBe(
      'ntp_sources and additional_ntp_source are mutually exclusive',
    );
    expect(outcome(() => update(create({ additional_ntp_source: '10.0.0.1' }), { ntp_sources: 'clock.example.com', additional_ntp_source: '' }))).toBe(
      'accepted',
    );
  });
});

describe('the default network type, from the version as requested (a payload named by ocp_release_image)', () => {
  // The release is 4.22.9 (the payload's); the request names another version beside it.
  const withPayload = (params: Params) =>
    create({ ocp_release_image: 'quay.io/openshift-release-dev/ocp-release:4.22.9-x86_64', ...params }, { version: '4.22.9' });

  it('is OpenShift SDN before 4.12, refused with a 4.22 release, as upstream answers', () => {
    expect(outcome(() => withPayload({ openshift_version: '4.11' }))).toBe('Openshift version 4.22.9 is not supported for OpenShiftSDN NetworkType');
    expect(withPayload({ openshift_version: '4.12' }).attributes.network_type).toBe('OVNKubernetes');
    expect(withPayload({ openshift_version: '4.9.59', control_plane_count: 1 }).attributes.network_type).toBe('OVNKubernetes');
    expect(withPayload({ openshift_version: '4.9.59', network_type: 'OVNKubernetes' }).attributes.network_type).toBe('OVNKubernetes');
  });

  it.each([['latest'], ['']])('refuses the malformed requested version %j even beside a payload and a network type', (openshift_version) => {
    expect(outcome(() => withPayload({ openshift_version, network_type: 'OVNKubernetes' }))).toBe(`Malformed version: ${openshift_version}`);
  });
});

describe('proxy settings changed (the update that records proxy_settings_changed, as upstream)', () => {
  it('is a proxy field named by the update that differs from the stored one', () => {
    const stored = create({ http_proxy: 'http://proxy.example.com:3128' }).attributes;
    expect(proxySettingsChanged({ http_proxy: 'http://proxy.example.com:3128' }, stored)).toBe(false);
    expect(proxySettingsChanged({ http_proxy: 'http://other.example.com:3128' }, stored)).toBe(true);
    expect(proxySettingsChanged({ no_proxy: '.example.com' }, stored)).toBe(true);
    expect(proxySettingsChanged({ no_proxy: '' }, stored)).toBe(false);
    expect(proxySettingsChanged({ name: 'renamed' } as never, stored)).toBe(false);
  });
});
