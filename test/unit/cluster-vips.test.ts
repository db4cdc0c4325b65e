/**
 * Upstream's VIP rules on cluster create and update, branch by branch, with upstream's reasons
 * (internal/cluster/validations/validations.go validateVIPAddresses; internal/network
 * machine_network_cidr.go VerifyVipsFor…LoadBalancer; bminventory updateNetworkParams).
 */
import { describe, expect, it } from 'vitest';
import { applyClusterUpdate, createClusterRecord } from '../../lambdas/domain/cluster/cluster.js';
import type { Params } from '../../contracts/input-checks.js';
import type { Cluster } from '../../lambdas/domain/core/entities.js';
import { DomainError } from '../../lambdas/domain/core/errors.js';
import type { MachineNetworkHost } from '../../lambdas/domain/network/machine-network.js';
import { PULL_SECRET } from '../support/fixtures.js';

const NOW = '2026-01-01T00:00:00.000Z';
const CLUSTER_ID = '11111111-1111-4111-8111-111111111111';
const vips = (...ips: string[]) => ips.map((ip) => ({ ip }));
const networks = (...cidrs: string[]) => cidrs.map((cidr) => ({ cidr }));
const DUAL_STACK_NETWORKS = {
  cluster_networks: [
    { cidr: '10.128.0.0/14', host_prefix: 23 },
    { cidr: 'fd01::/48', host_prefix: 64 },
  ],
  service_networks: networks('172.30.0.0/16', 'fd02::/112'),
};

function create(params: Params, version = '4.18.5'): Cluster {
  const record = createClusterRecord(
    { name: 'demo', openshift_version: version, pull_secret: PULL_SECRET, base_dns_domain: 'example.com', ...params },
    {
      orgId: 'org',
      clusterId: CLUSTER_ID,
      now: NOW,
      release: { openshiftVersion: version, releaseImage: 'quay.io/x', cpuArchitecture: 'x86_64' },
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

/** A host with one NIC holding these addresses, and its free-network-addresses scan. */
function host(addresses: string[], scan?: { network: string; free: string[] }): MachineNetworkHost {
  return {
    inventory: JSON.stringify({
      interfaces: [{ name: 'eth0', ipv4_addresses: addresses.filter((a) => !a.includes(':')), ipv6_addresses: addresses.filter((a) => a.includes(':')) }],
    }),
    ...(scan ? { freeAddresses: JSON.stringify([{ network: scan.network, free_addresses: scan.free }]) } : {}),
  };
}

const LAB = '192.168.127.0/24';
const labHosts = (free = ['192.168.127.5', '192.168.127.6']) => [
  host(['192.168.127.10/24'], { network: LAB, free }),
  host(['192.168.127.11/24'], { network: LAB, free }),
];

describe('VIP rules on create', () => {
  it.each<[string, Params, string, string?]>([
    ['no machine network: the VIPs are placed later, with the hosts', { api_vips: vips('192.168.127.5'), ingress_vips: vips('192.168.127.6') }, 'accepted'],
    [
      'both VIPs inside the machine network',
      { machine_networks: networks(LAB), api_vips: vips('192.168.127.5'), ingress_vips: vips('192.168.127.6') },
      'accepted',
    ],
    [
      'API VIP outside the machine network',
      { machine_networks: networks(LAB), api_vips: vips('10.0.0.5'), ingress_vips: vips('192.168.127.6') },
      'api-vip <10.0.0.5> does not belong to machine-network-cidr <192.168.127.0/24>',
    ],
    [
      'Ingress VIP outside the machine network',
      { machine_networks: networks(LAB), api_vips: vips('192.168.127.5'), ingress_vips: vips('10.0.0.6') },
      'ingress-vip <10.0.0.6> does not belong to machine-network-cidr <192.168.127.0/24>',
    ],
    [
      'the broadcast address',
      { machine_networks: networks(LAB), api_vips: vips('192.168.127.255'), ingress_vips: vips('192.168.127.6') },
      'api-vip <192.168.127.255> is the broadcast address of machine-network-cidr <192.168.127.0/24>',
    ],
    [
      'one address for both',
      { machine_networks: networks(LAB), api_vips: vips('192.168.127.5'), ingress_vips: vips('192.168.127.5') },
      'The IP address "192.168.127.5" appears both in apiVIPs and ingressVIPs',
    ],
    [
      'one address for both, no machine network',
      { api_vips: vips('192.168.127.5'), ingress_vips: vips('192.168.127.5') },
      'The IP address "192.168.127.5" appears both in apiVIPs and ingressVIPs',
    ],
    [
      'one address for both behind a user-managed load balancer',
      { load_balancer: { type: 'user-managed' }, machine_networks: networks(LAB), api_vips: vips('192.168.127.5'), ingress_vips: vips('192.168.127.5') },
      'accepted',
    ],
    [
      'an address twice in apiVIPs',
      { api_vips: vips('192.168.127.5', '192.168.127.5'), ingress_vips: vips('192.168.127.6', 'fd00::6') },
      'The IP address "192.168.127.5" appears multiple times in apiVIPs',
    ],
    [
      'three API VIPs',
      { api_vips: vips('192.168.127.5', 'fd00::5', '192.168.127.7'), ingress_vips: vips('192.168.127.6') },
      'apiVIPs supports 2 vips. got: 3; configuration must include the same number of apiVIPs (got 3) and ingressVIPs (got 1)',
    ],
    [
      'an API VIP without an Ingress VIP',
      { api_vips: vips('192.168.127.5') },
      'configuration must include the same number of apiVIPs (got 1) and ingressVIPs (got 0)',
    ],
    ['an empty VIP', { api_vips: vips(''), ingress_vips: vips('192.168.127.6') }, 'API VIP IP at index 0 cannot be empty'],
    [
      'wrong family: two IPv4 API VIPs',
      {
        ...DUAL_STACK_NETWORKS,
        machine_networks: networks(LAB, 'fd00::/64'),
        api_vips: vips('192.168.127.5', '192.168.127.7'),
        ingress_vips: vips('192.168.127.6', 'fd00::6'),
      },
      'dual-stack apiVIPs must include exactly one IPv6 address',
    ],
    [
      'wrong family: an IPv6 VIP against an IPv4 machine network',
      { machine_networks: networks(LAB), api_vips: vips('fd00::5'), ingress_vips: vips('192.168.127.6') },
      'api-vip <fd00::5> does not belong to machine-network-cidr <192.168.127.0/24>',
    ],
    [
      'dual-stack VIPs, each pair in the machine network of its family',
      {
        ...DUAL_STACK_NETWORKS,
        machine_networks: networks(LAB, 'fd00::/64'),
        api_vips: vips('192.168.127.5', 'fd00::5'),
        ingress_vips: vips('192.168.127.6', 'fd00::6'),
      },
      'accepted',
    ],
    [
      'dual-stack, a second pair outside its machine network',
      {
        ...DUAL_STACK_NETWORKS,
        machine_networks: networks(LAB, 'fd00::/64'),
        api_vips: vips('192.168.127.5', 'fd09::5'),
        ingress_vips: vips('192.168.127.6', 'fd00::6'),
      },
      'api-vip <fd09::5> does not belong to machine-network-cidr <fd00::/64>',
    ],
    [
      'dual-stack with no machine network',
      { ...DUAL_STACK_NETWORKS, api_vips: vips('192.168.127.5'), ingress_vips: vips('192.168.127.6') },
      'Dual-stack cluster cannot be created with empty Machine Networks',
    ],
    [
      'two single-stack machine networks',
      { machine_networks: networks(LAB, '192.168.128.0/24'), api_vips: vips('192.168.127.5'), ingress_vips: vips('192.168.127.6') },
      'Single-stack cluster cannot contain multiple Machine Networks',
    ],
    [
      'two single-stack machine networks behind a user-managed load balancer',
      {
        load_balancer: { type: 'user-managed' },
        machine_networks: networks(LAB, '192.168.128.0/24'),
        api_vips: vips('192.168.128.5'),
        ingress_vips: vips('192.168.127.6'),
      },
      'accepted',
    ],
    [
      'a user-managed load balancer VIP outside every machine network',
      { load_balancer: { type: 'user-managed' }, machine_networks: networks(LAB), api_vips: vips('10.0.0.5'), ingress_vips: vips('192.168.127.6') },
      "api-vip '10.0.0.5' failed verification: none of the machine networks is satisfying the requirements, description: machine network CIDR <192.168.127.0/24> verification failed: api-vip <10.0.0.5> does not belong to machine-network-cidr <192.168.127.0/24>",
    ],
    [
      'VIPs with user-managed networking',
      { user_managed_networking: true, platform: { type: 'none' }, api_vips: vips('192.168.127.5'), ingress_vips: vips('192.168.127.6') },
      'API VIPs cannot be set with User Managed Networking',
    ],
    [
      'DHCP with user-managed networking',
      { user_managed_networking: true, platform: { type: 'none' }, vip_dhcp_allocation: true },
      'VIP DHCP Allocation cannot be set with User Managed Networking',
    ],
    [
      'VIPs in DHCP mode',
      { vip_dhcp_allocation: true, api_vips: vips('192.168.127.5'), ingress_vips: vips('192.168.127.6') },
      'Setting API VIPs is forbidden when cluster is in vip-dhcp-allocation mode',
    ],
    // Upstream checks the VIPs before a single node's user-managed networking is set, and keeps them (issue 43).
    ['VIPs on a single node', { control_plane_count: 1, api_vips: vips('192.168.127.5'), ingress_vips: vips('192.168.127.6') }, 'accepted'],
    [
      'VIPs on a single node with user-managed networking sent',
      { control_plane_count: 1, user_managed_networking: true, api_vips: vips('192.168.127.5'), ingress_vips: vips('192.168.127.6') },
      'API VIPs cannot be set with User Managed Networking',
    ],
    [
      'a single node without user-managed networking',
      { control_plane_count: 1, user_managed_networking: false },
      "Can't disable user-managed-networking on single node OpenShift",
    ],
    ['a single node with DHCP VIPs', { control_plane_count: 1, vip_dhcp_allocation: true }, 'VIP DHCP Allocation cannot be enabled on single node OpenShift'],
    [
      'dual-stack VIPs before OpenShift 4.12',
      {
        ...DUAL_STACK_NETWORKS,
        machine_networks: networks(LAB, 'fd00::/64'),
        api_vips: vips('192.168.127.5', 'fd00::5'),
        ingress_vips: vips('192.168.127.6', 'fd00::6'),
      },
      'dual-stack VIPs are not supported in OpenShift 4.11.0',
      '4.11.0',
    ],
    // Every list IPv6 first: upstream refuses a mixed order before it looks at the version.
    [
      'IPv6-primary machine networks before OpenShift 4.12',
      {
        cluster_networks: [
          { cidr: 'fd01::/48', host_prefix: 64 },
          { cidr: '10.128.0.0/14', host_prefix: 23 },
        ],
        service_networks: networks('fd02::/112', '172.30.0.0/16'),
        machine_networks: networks('fd00::/64', LAB),
        api_vips: vips('fd00::5'),
        ingress_vips: vips('fd00::6'),
      },
      'First machine networks has to be IPv4 subnet (IPv6-primary dual-stack requires OpenShift 4.12+), got fd00::/64',
      '4.11.0',
    ],
    [
      'a dual-stack cluster listing IPv6 first in some lists only',
      { ...DUAL_STACK_NETWORKS, machine_networks: networks('fd00::/64', LAB), api_vips: vips('192.168.127.5'), ingress_vips: vips('192.168.127.6') },
      'Inconsistent IP family order: machine_networks first IP is fd00::/64 but api_vips first IP is 192.168.127.5. All networks must have the same IP family first',
      '4.18.0',
    ],
  ])('%s', (_name, params, expected, version) => {
    expect(outcome(() => create(params, version))).toBe(expected);
  });

  it('stores what it accepted, the VIPs without a verification until a check with the hosts sets one (as upstream registers them)', () => {
    const cluster = create({ machine_networks: networks(LAB), api_vips: vips('192.168.127.5'), ingress_vips: vips('192.168.127.6') });
    expect(cluster.attributes).toMatchObject({
      machine_networks: [{ cidr: LAB }],
      api_vips: [{ ip: '192.168.127.5' }],
      ingress_vips: [{ ip: '192.168.127.6' }],
      machine_network_cidr_updated_at: NOW,
    });
    expect(cluster.attributes.api_vips?.[0]).not.toHaveProperty('verification');
  });

  it('keeps the VIPs a single node is sent, with user-managed networking and platform none', () => {
    const cluster = create({ control_plane_count: 1, api_vips: vips('192.168.127.5'), ingress_vips: vips('192.168.127.6') });
    expect(cluster.attributes).toMatchObject({
      api_vips: [{ ip: '192.168.127.5' }],
      ingress_vips: [{ ip: '192.168.127.6' }],
      user_managed_networking: true,
      platform: { type: 'none' },
      schedulable_masters_forced_true: true,
    });
  });
});

describe('VIP rules on update', () => {
  const haCluster = (params: Params = {}) => create(params);
  const update = (cluster: Cluster, params: Params, hosts: MachineNetworkHost[] = []) => applyClusterUpdate(cluster, params, NOW, hosts);

  it.each<[string, () => Cluster, Params, MachineNetworkHost[], string]>([
    [
      'VIPs with no machine network and no hosts to calculate one',
      () => haCluster(),
      { api_vips: vips('192.168.127.5'), ingress_vips: vips('192.168.127.6') },
      [],
      'Calculate machine network CIDR: No suitable matching CIDR found for VIP 192.168.127.5',
    ],
    [
      "VIPs in the machine network the cluster was created with, before any host reported (as upstream's ZTP path keeps it)",
      () => haCluster({ machine_networks: networks(LAB) }),
      { api_vips: vips('192.168.127.5'), ingress_vips: vips('192.168.127.6') },
      [],
      'accepted',
    ],
    [
      'VIPs outside the machine network the cluster was created with',
      () => haCluster({ machine_networks: networks(LAB) }),
      { api_vips: vips('10.0.0.5'), ingress_vips: vips('10.0.0.6') },
      [],
      'api-vip <10.0.0.5> does not belong to machine-network-cidr <192.168.127.0/24>',
    ],
    [
      "VIPs the stored machine network holds but the hosts' networks do not",
      () => haCluster({ machine_networks: networks('10.0.0.0/24') }),
      { api_vips: vips('10.0.0.5'), ingress_vips: vips('10.0.0.6') },
      labHosts(),
      'Calculate machine network CIDR: No suitable matching CIDR found for VIP 10.0.0.5',
    ],
    [
      'VIPs no host network holds',
      () => haCluster(),
      { api_vips: vips('10.0.0.5'), ingress_vips: vips('10.0.0.6') },
      labHosts(),
      'Calculate machine network CIDR: No suitable matching CIDR found for VIP 10.0.0.5',
    ],
    ["free VIPs in the hosts' network", () => haCluster(), { api_vips: vips('192.168.127.5'), ingress_vips: vips('192.168.127.6') }, labHosts(), 'accepted'],
    [
      "the console's call: VIPs with an empty machine network list",
      () => haCluster(),
      { api_vips: vips('192.168.127.5'), ingress_vips: vips('192.168.127.6'), machine_networks: [] },
      labHosts(),
      'accepted',
    ],
    [
      'an API VIP in use',
      () => haCluster(),
      { api_vips: vips('192.168.127.5'), ingress_vips: vips('192.168.127.6') },
      labHosts(['192.168.127.6']),
      'api-vip <192.168.127.5> is already in use in cidr 192.168.127.0/24',
    ],
    [
      'an Ingress VIP in use',
      () => haCluster(),
      { api_vips: vips('192.168.127.5'), ingress_vips: vips('192.168.127.6') },
      labHosts(['192.168.127.5']),
      'ingress-vip <192.168.127.6> is already in use in cidr 192.168.127.0/24',
    ],
    [
      'VIPs no host has scanned for yet: left to the cluster validations',
      () => haCluster(),
      { api_vips: vips('192.168.127.5'), ingress_vips: vips('192.168.127.6') },
      [host(['192.168.127.10/24'])],
      'accepted',
    ],
    [
      'the broadcast address',
      () => haCluster(),
      { api_vips: vips('192.168.127.255'), ingress_vips: vips('192.168.127.6') },
      labHosts(),
      'api-vip <192.168.127.255> is the broadcast address of machine-network-cidr <192.168.127.0/24>',
    ],
    [
      'one address for both',
      () => haCluster(),
      { api_vips: vips('192.168.127.5'), ingress_vips: vips('192.168.127.5') },
      labHosts(),
      'The IP address "192.168.127.5" appears both in apiVIPs and ingressVIPs',
    ],
    [
      'a machine network set by hand on a cluster-managed load balancer',
      () => haCluster(),
      { machine_networks: networks(LAB) },
      labHosts(),
      'Setting the Machine Network CIDR is forbidden when the cluster is neither in VIP DHCP allocation mode nor using a user-managed load balancer',
    ],
    [
      'a machine network set by hand behind a user-managed load balancer',
      () => haCluster({ load_balancer: { type: 'user-managed' } }),
      { machine_networks: networks(LAB) },
      [],
      'accepted',
    ],
    [
      'a user-managed load balancer with no machine network',
      () => haCluster({ load_balancer: { type: 'user-managed' } }),
      { api_vips: vips('10.0.0.5'), ingress_vips: vips('10.0.0.5') },
      [],
      'no machine networks to verify VIP: 10.0.0.5 with',
    ],
    [
      'a user-managed load balancer serving both on one address',
      () => haCluster({ load_balancer: { type: 'user-managed' }, machine_networks: networks(LAB) }),
      { api_vips: vips('192.168.127.5'), ingress_vips: vips('192.168.127.5') },
      labHosts([]),
      'accepted',
    ],
    [
      'a user-managed load balancer VIP outside every machine network',
      () => haCluster({ load_balancer: { type: 'user-managed' }, machine_networks: networks(LAB) }),
      { api_vips: vips('10.0.0.5'), ingress_vips: vips('192.168.127.6') },
      [],
      "api-vip '10.0.0.5' failed verification: none of the machine networks is satisfying the requirements, description: machine network CIDR <192.168.127.0/24> verification failed: api-vip <10.0.0.5> does not belong to machine-network-cidr <192.168.127.0/24>",
    ],
    [
      'turning user-managed networking on with VIPs',
      () => haCluster(),
      { user_managed_networking: true, platform: { type: 'none' }, api_vips: vips('192.168.127.5'), ingress_vips: vips('192.168.127.6') },
      labHosts(),
      'User Managed Networking cannot be set with API VIPs',
    ],
    [
      'turning user-managed networking on over stored VIPs',
      () => haCluster({ api_vips: vips('192.168.127.5'), ingress_vips: vips('192.168.127.6') }),
      { user_managed_networking: true, platform: { type: 'none' } },
      [],
      'User Managed Networking cannot be set with API VIPs',
    ],
    [
      'turning user-managed networking on, clearing the VIPs',
      () => haCluster({ api_vips: vips('192.168.127.5'), ingress_vips: vips('192.168.127.6') }),
      { user_managed_networking: true, platform: { type: 'none' }, api_vips: [], ingress_vips: [] },
      [],
      'accepted',
    ],
    [
      'VIPs on a user-managed-networking cluster',
      () => haCluster({ user_managed_networking: true, platform: { type: 'none' } }),
      { api_vips: vips('192.168.127.5'), ingress_vips: vips('192.168.127.6') },
      labHosts(),
      'API VIPs cannot be set with User Managed Networking',
    ],
    [
      'VIPs on a DHCP cluster',
      () => haCluster({ vip_dhcp_allocation: true }),
      { api_vips: vips('192.168.127.5'), ingress_vips: vips('192.168.127.6') },
      labHosts(),
      'Setting API VIPs is forbidden when cluster is in vip-dhcp-allocation mode',
    ],
    ['the machine network of a DHCP cluster', () => haCluster({ vip_dhcp_allocation: true }), { machine_networks: networks(LAB) }, [], 'accepted'],
    [
      'a single node leaving user-managed networking',
      () => create({ control_plane_count: 1 }),
      { user_managed_networking: false },
      [],
      'disabling User Managed Networking or setting platform different than none or oci platforms is not allowed in single node Openshift',
    ],
    ["a single node's machine network", () => create({ control_plane_count: 1 }), { machine_networks: networks(LAB) }, [], 'accepted'],
    [
      'wrong family: two IPv4 Ingress VIPs',
      () => haCluster({ ...DUAL_STACK_NETWORKS, machine_networks: networks(LAB, 'fd00::/64') }),
      { api_vips: vips('192.168.127.5', 'fd00::5'), ingress_vips: vips('192.168.127.6', '192.168.127.7') },
      [],
      'dual-stack ingressVips must include exactly one IPv6 address',
    ],
    [
      'dual-stack VIPs, the IPv6 Ingress VIP in use',
      () => haCluster({ ...DUAL_STACK_NETWORKS, machine_networks: networks(LAB, 'fd00::/64') }),
      { api_vips: vips('192.168.127.5', 'fd00::5'), ingress_vips: vips('192.168.127.6', 'fd00::6') },
      [host(['192.168.127.10/24', 'fd00::10/64'], { network: 'fd00::/64', free: ['fd00::5'] })],
      'ingress-vip <fd00::6> is already in use in cidr fd00::/64',
    ],
    [
      'dual-stack VIPs, free',
      () => haCluster({ ...DUAL_STACK_NETWORKS, machine_networks: networks(LAB, 'fd00::/64') }),
      { api_vips: vips('192.168.127.5', 'fd00::5'), ingress_vips: vips('192.168.127.6', 'fd00::6') },
      [host(['192.168.127.10/24', 'fd00::10/64'])],
      'accepted',
    ],
  ])('%s', (_name, cluster, params, hosts, expected) => {
    expect(outcome(() => update(cluster(), params, hosts))).toBe(expected);
  });

  it('stores the machine network calculated from the VIPs and the hosts', () => {
    const updated = update(haCluster(), { api_vips: vips('192.168.127.5'), ingress_vips: vips('192.168.127.6'), machine_networks: [] }, labHosts());
    expect(updated.attributes).toMatchObject({ machine_networks: [{ cidr: LAB }], api_vips: [{ ip: '192.168.127.5', verification: 'unverified' }] });
    // Upstream neither reads nor fills the deprecated singular machine_network_cidr.
    expect(updated.attributes).not.toHaveProperty('machine_network_cidr');
  });

  it('keeps the VIPs and their verification when the update does not touch them', () => {
    const cluster = update(haCluster(), { api_vips: vips('192.168.127.5'), ingress_vips: vips('192.168.127.6') }, labHosts());
    cluster.attributes.api_vips = [{ cluster_id: CLUSTER_ID, ip: '192.168.127.5', verification: 'succeeded' }];
    const renamed = update(cluster, { name: 'renamed' });
    expect(renamed.attributes.api_vips).toEqual([{ cluster_id: CLUSTER_ID, ip: '192.168.127.5', verification: 'succeeded' }]);
    expect(renamed.attributes.machine_networks).toEqual([{ cluster_id: CLUSTER_ID, cidr: LAB }]);
  });

  it('drops the VIPs and machine network when the DHCP mode changes, and user-managed networking drops the VIPs', () => {
    const cluster = update(haCluster(), { api_vips: vips('192.168.127.5'), ingress_vips: vips('192.168.127.6') }, labHosts());
    const dhcp = update(cluster, { vip_dhcp_allocation: true });
    expect(dhcp.attributes).toMatchObject({ vip_dhcp_allocation: true, api_vips: [], ingress_vips: [], machine_networks: [] });
    const umn = update(haCluster(), { user_managed_networking: true, platform: { type: 'none' } });
    expect(umn.attributes).toMatchObject({ user_managed_networking: true, api_vips: [], ingress_vips: [] });
  });
});
