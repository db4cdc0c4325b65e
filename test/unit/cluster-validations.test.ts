/**
 * Cluster validations, table-driven: each case names a realistic cluster (HA with VIPs in the
 * machine network, SNO, dual-stack, user-managed networking, …) and the status (and message)
 * it expects of some validations. A coverage test checks that every id of the
 * `cluster-validation-id` enum has at least one passing and one non-passing case.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { summarizeClusterValidations } from '../../lambdas/domain/cluster/cluster-facts.js';
import {
  calculateMachineNetworkCidr,
  CLUSTER_VALIDATION_CATEGORIES,
  CLUSTER_VALIDATION_IDS,
  clusterValidationsInfo,
  IGNORED_SUFFIX,
  normalizeCidr,
  parseClusterValidationsInfo,
  validateCluster,
  validatesInStatus,
  validationChanges,
  type ClusterValidationId,
  type ClusterValidationInput,
  type ClusterValidationResult,
  type ClusterValidationSubject,
  type ValidationHostInput,
} from '../../lambdas/domain/cluster/validations/cluster-validations.js';
import { buildEvent } from '../../lambdas/domain/events/events.js';
import type { ValidationStatus } from '../../lambdas/domain/host/host-facts.js';

// ---------------------------------------------------------------- fixtures

const NOW = new Date('2025-06-02T09:30:00.000Z');
const NOW_S = Math.floor(NOW.getTime() / 1000);
const GIB = 1024 ** 3;
const INSTALL_DISK = '/dev/disk/by-id/wwn-0x5000c500a0d1e2f3';

interface HostSpec extends Partial<ValidationHostInput> {
  cores?: number;
  ramGib?: number;
  ipv4?: string[];
  ipv6?: string[];
  extraDisks?: { size_bytes: number; drive_type?: string }[];
  gpus?: { vendor_id: string; device_id: string; name: string }[];
  /** Addresses the host's free-network-addresses scan found free, per network; null: no scan yet. */
  free?: Record<string, string[]> | null;
  noInventory?: boolean;
}

const FREE_V4 = { '192.168.127.0/24': ['192.168.127.100', '192.168.127.101', '192.168.127.102', '192.168.127.103', '192.168.127.200'] };

function host(index: number, spec: HostSpec = {}): ValidationHostInput {
  const {
    cores = 16,
    ramGib = 64,
    ipv4 = [`192.168.127.${10 + index}/24`],
    ipv6 = [],
    extraDisks = [],
    gpus = [],
    free = FREE_V4,
    noInventory,
    ...rest
  } = spec;
  const inventory = {
    hostname: `node-${index}.example.com`,
    cpu: { count: cores, architecture: 'x86_64', model_name: 'Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz' },
    memory: { physical_bytes: ramGib * GIB, usable_bytes: ramGib * GIB - 512 * 1024 ** 2 },
    interfaces: [{ name: 'ens3', mac_address: `52:54:00:00:00:${(10 + index).toString(16)}`, ipv4_addresses: ipv4, ipv6_addresses: ipv6 }],
    disks: [
      { id: INSTALL_DISK, path: '/dev/sda', drive_type: 'SSD', size_bytes: 240e9 },
      ...extraDisks.map((disk, n) => ({
        id: `/dev/disk/by-id/wwn-0x5000c500b0${index}${n}`,
        path: `/dev/sd${'bcd'[n]}`,
        drive_type: disk.drive_type ?? 'SSD',
        size_bytes: disk.size_bytes,
      })),
    ],
    gpus,
  };
  return {
    id: `3c9a2f51-0000-4000-8000-00000000000${index}`,
    status: 'known',
    role: 'auto-assign',
    timestamp: NOW_S - 5,
    installationDiskId: INSTALL_DISK,
    ...(noInventory ? {} : { inventory: JSON.stringify(inventory) }),
    ...(free ? { freeAddresses: JSON.stringify(Object.entries(free).map(([network, addresses]) => ({ network, free_addresses: addresses }))) } : {}),
    ...rest,
  };
}

const masters = (count: number, spec: HostSpec = {}) => Array.from({ length: count }, (_, i) => host(i, { role: 'master', ...spec }));
const workers = (count: number, spec: HostSpec = {}) => Array.from({ length: count }, (_, i) => host(20 + i, { role: 'worker', ...spec }));

const BUILTIN = [
  { name: 'console', operator_type: 'builtin' },
  { name: 'cvo', operator_type: 'builtin' },
];

/** 3 masters + 2 workers on 192.168.127.0/24, VIPs .100/.101 in it and free: everything passes. */
function ha(
  cluster: Partial<ClusterValidationSubject> = {},
  hosts: ValidationHostInput[] = [...masters(3), ...workers(2)],
  extra: Partial<ClusterValidationInput> = {},
): ClusterValidationInput {
  return {
    now: NOW,
    hosts,
    ...extra,
    cluster: {
      kind: 'Cluster',
      openshift_version: '4.18.12',
      cpu_architecture: 'x86_64',
      control_plane_count: 3,
      platform: { type: 'baremetal' },
      base_dns_domain: 'example.com',
      pull_secret_set: true,
      cluster_networks: [{ cidr: '10.128.0.0/14', host_prefix: 23 }],
      service_networks: [{ cidr: '172.30.0.0/16' }],
      machine_networks: [{ cidr: '192.168.127.0/24' }],
      api_vips: [{ ip: '192.168.127.100', verification: 'unverified' }],
      ingress_vips: [{ ip: '192.168.127.101', verification: 'unverified' }],
      user_managed_networking: false,
      vip_dhcp_allocation: false,
      network_type: 'OVNKubernetes',
      load_balancer: { type: 'cluster-managed' },
      schedulable_masters: false,
      monitored_operators: BUILTIN,
      ...cluster,
    },
  };
}

/** Single node: user-managed networking, no VIPs, the machine network chosen from the host's. */
function sno(
  cluster: Partial<ClusterValidationSubject> = {},
  hosts: ValidationHostInput[] = [host(0, { role: 'master' })],
  extra: Partial<ClusterValidationInput> = {},
) {
  return ha({ control_plane_count: 1, user_managed_networking: true, platform: { type: 'none' }, api_vips: [], ingress_vips: [], ...cluster }, hosts, extra);
}

/** IPv4 + IPv6 on every host and network, one VIP of each family. */
const DUAL_STACK_HOSTS = () =>
  [...masters(3), ...workers(2)].map((h, i) =>
    host(i < 3 ? i : 17 + i, {
      role: h.role,
      ipv6: [`2001:db8:127::${(i < 3 ? 10 + i : 17 + i + 10).toString(16)}/64`],
      free: { ...FREE_V4 },
    }),
  );
const dualStack = (cluster: Partial<ClusterValidationSubject> = {}) =>
  ha(
    {
      cluster_networks: [
        { cidr: '10.128.0.0/14', host_prefix: 23 },
        { cidr: 'fd01::/48', host_prefix: 64 },
      ],
      service_networks: [{ cidr: '172.30.0.0/16' }, { cidr: 'fd02::/112' }],
      machine_networks: [{ cidr: '192.168.127.0/24' }, { cidr: '2001:db8:127::/64' }],
      api_vips: [{ ip: '192.168.127.100' }, { ip: '2001:db8:127::100', verification: 'succeeded' }],
      ingress_vips: [{ ip: '192.168.127.101' }, { ip: '2001:db8:127::101', verification: 'succeeded' }],
      ...cluster,
    },
    DUAL_STACK_HOSTS(),
  );

/** Multi-node with user-managed networking on platform none: no VIPs, no machine network. */
const umnNone = (cluster: Partial<ClusterValidationSubject> = {}) =>
  ha({ user_managed_networking: true, platform: { type: 'none' }, machine_networks: [], api_vips: [], ingress_vips: [], ...cluster });

const olm = (...names: string[]) => [...BUILTIN, ...names.map((name) => ({ name, operator_type: 'olm' }))];
const NVIDIA_T4 = { vendor_id: '10de', device_id: '1eb8', name: 'TU104GL [Tesla T4]' };
const AMD_MI210 = { vendor_id: '1002', device_id: '740f', name: 'Aldebaran/MI200 [Instinct MI210]' };
const ODF_DISK = { size_bytes: 500e9 };

// ---------------------------------------------------------------- the table

type Expected = ValidationStatus | [ValidationStatus, string | RegExp];
interface Case {
  name: string;
  input: ClusterValidationInput;
  expect: Partial<Record<ClusterValidationId, Expected>>;
}

/**
 * The ids upstream reports for a cluster without operators: never the retired ocs operator's, and
 * OpenShift AI's GPU check only for a cluster that installs OpenShift AI.
 */
const NEVER_REPORTED: readonly ClusterValidationId[] = ['ocs-requirements-satisfied'];
const ONLY_WITH_OPENSHIFT_AI: readonly ClusterValidationId[] = ['openshift-ai-gpu-requirements-satisfied'];
const REPORTED_IDS = CLUSTER_VALIDATION_IDS.filter((id) => !NEVER_REPORTED.includes(id) && !ONLY_WITH_OPENSHIFT_AI.includes(id));
const everything = (status: ValidationStatus): Partial<Record<ClusterValidationId, Expected>> => Object.fromEntries(REPORTED_IDS.map((id) => [id, status]));
const disabledByConfig = (...ids: ClusterValidationId[]): Case => ({
  name: `service configuration disables ${ids.join(', ')}`,
  input: ha({}, undefined, { disabledValidations: ids }),
  expect: Object.fromEntries(ids.map((id) => [id, ['disabled', 'Validation disabled by configuration']])),
});

const CASES: Case[] = [
  // whole clusters
  { name: 'HA: 3 masters + 2 workers, VIPs in the machine network', input: ha(), expect: everything('success') },
  { name: 'SNO with its machine network', input: sno(), expect: everything('success') },
  { name: 'dual-stack HA', input: dualStack(), expect: everything('success') },
  { name: 'user-managed networking on platform none', input: umnNone(), expect: everything('success') },

  // machine network
  {
    name: 'UMN needs no machine network',
    input: umnNone(),
    expect: { 'machine-cidr-defined': ['success', 'No Machine Network CIDR needed: User Managed Networking'] },
  },
  {
    name: 'no machine network, no host discovered',
    input: ha({ machine_networks: [] }, [host(0, { noInventory: true })]),
    expect: { 'machine-cidr-defined': ['pending', 'Hosts have not been discovered yet'] },
  },
  {
    name: 'HA without machine network',
    input: ha({ machine_networks: [] }),
    expect: { 'machine-cidr-defined': ['failure', /can be defined by setting either the API or Ingress virtual IPs/] },
  },
  {
    name: 'SNO without machine network',
    input: sno({ machine_networks: [] }),
    expect: {
      'machine-cidr-defined': ['failure', /required for single node cluster/],
      'no-cidrs-overlapping': 'pending',
      'networks-same-address-families': 'pending',
    },
  },
  {
    name: 'DHCP VIPs without machine network',
    input: ha({ vip_dhcp_allocation: true, network_type: 'OpenShiftSDN', openshift_version: '4.14.38', machine_networks: [], api_vips: [], ingress_vips: [] }),
    expect: {
      'machine-cidr-defined': ['failure', /initiates the VIPs DHCP lease allocation/],
      'api-vips-defined': ['pending', 'The Machine Network CIDR is undefined'],
      'ingress-vips-valid': 'pending',
    },
  },

  // cluster and service networks
  {
    name: 'no cluster network',
    input: ha({ cluster_networks: [] }),
    expect: {
      'cluster-cidr-defined': ['failure', 'The Cluster Network CIDR is undefined.'],
      'network-prefix-valid': 'pending',
      'no-cidrs-overlapping': 'pending',
    },
  },
  {
    name: 'no service network',
    input: ha({ service_networks: [] }),
    expect: { 'service-cidr-defined': ['failure', 'The Service Network CIDR is undefined.'], 'networks-same-address-families': 'pending' },
  },
  {
    name: 'cluster network overlaps the machine network',
    input: ha({ cluster_networks: [{ cidr: '192.168.0.0/16', host_prefix: 23 }] }),
    expect: {
      'no-cidrs-overlapping': ['failure', 'CIDRS Overlapping: MachineNetworkCIDR and ClusterNetworkCidr: CIDRS 192.168.127.0/24 and 192.168.0.0/16 overlap.'],
    },
  },
  {
    name: 'service network overlaps the cluster network',
    input: ha({ service_networks: [{ cidr: '10.130.0.0/16' }] }),
    expect: { 'no-cidrs-overlapping': ['failure', /ServiceNetworkCidr and ClusterNetworkCidr/] },
  },
  {
    name: 'UMN: the machine network is not compared',
    input: umnNone({ machine_networks: [{ cidr: '10.128.0.0/24' }] }),
    expect: { 'no-cidrs-overlapping': 'success' },
  },
  {
    name: 'two cluster networks, one service network',
    input: ha({
      cluster_networks: [
        { cidr: '10.128.0.0/14', host_prefix: 23 },
        { cidr: 'fd01::/48', host_prefix: 64 },
      ],
    }),
    expect: {
      'no-cidrs-overlapping': ['error', 'A mismatch between the number of Cluster and Service networks'],
      'networks-same-address-families': ['failure', /\(ServiceNetworks, ClusterNetworks\)/],
    },
  },
  {
    name: 'dual-stack with an IPv4-only machine network',
    input: dualStack({ machine_networks: [{ cidr: '192.168.127.0/24' }] }),
    expect: { 'networks-same-address-families': ['failure', /\(MachineNetworks, ServiceNetworks, ClusterNetworks\)/] },
  },
  {
    name: 'host prefix 0',
    input: ha({ cluster_networks: [{ cidr: '10.128.0.0/14', host_prefix: 0 }] }),
    expect: { 'network-prefix-valid': ['failure', 'Invalid Cluster Network prefix: Host prefix, now 0, must be a positive integer.'] },
  },
  {
    name: 'host prefix leaves fewer than 128 pod addresses',
    input: ha({ cluster_networks: [{ cidr: '10.128.0.0/14', host_prefix: 26 }] }),
    expect: { 'network-prefix-valid': ['failure', /must be less than or equal to 25/] },
  },
  {
    name: 'cluster network too small for 5 hosts',
    input: ha({ cluster_networks: [{ cidr: '10.128.0.0/22', host_prefix: 23 }] }),
    expect: { 'network-prefix-valid': ['failure', /does not contain enough addresses for 5 hosts/] },
  },
  {
    name: 'Cilium uses no host prefix',
    input: ha({ network_type: 'Cilium', cluster_networks: [{ cidr: '10.128.0.0/14', host_prefix: 0 }] }, undefined, { customManifestsUploaded: true }),
    expect: { 'network-prefix-valid': 'success', 'custom-manifests-requirements-satisfied': ['success', 'Custom manifests are uploaded'] },
  },

  // machine network against the hosts
  {
    name: "machine network differs from the hosts' subnet",
    input: ha({ machine_networks: [{ cidr: '192.168.0.0/16' }] }),
    expect: {
      'machine-cidr-equals-to-calculated-cidr': [
        'failure',
        '1 error occurred:\n\t* The Cluster Machine CIDR 192.168.0.0/16 is different than the calculated CIDR 192.168.127.0/24.\n\n',
      ],
    },
  },
  {
    name: 'VIP outside every host subnet',
    input: ha({ api_vips: [{ ip: '10.0.0.5' }], machine_networks: [{ cidr: '10.0.0.0/24' }] }),
    expect: {
      'machine-cidr-equals-to-calculated-cidr': ['failure', '1 error occurred:\n\t* No suitable matching CIDR found for VIP 10.0.0.5\n\n'],
      'api-vips-valid': ['failure', /not verified yet/],
    },
  },
  {
    name: 'no VIPs yet',
    input: ha({ api_vips: [], ingress_vips: [] }),
    expect: {
      'machine-cidr-equals-to-calculated-cidr': 'pending',
      'api-vips-defined': ['failure', 'API virtual IPs are undefined and must be provided.'],
      'ingress-vips-defined': ['failure', 'Ingress virtual IPs are undefined and must be provided.'],
      'api-vips-valid': 'pending',
      'ingress-vips-valid': ['pending', 'Ingress virtual IPs are undefined.'],
    },
  },
  {
    name: 'user-managed load balancer: VIPs outside the host subnets',
    input: ha({
      load_balancer: { type: 'user-managed' },
      api_vips: [{ ip: '192.168.200.10' }],
      ingress_vips: [{ ip: '192.168.200.11' }],
      machine_networks: [{ cidr: '192.168.127.0/24' }, { cidr: '192.168.200.0/24' }],
    }),
    expect: {
      'machine-cidr-equals-to-calculated-cidr': ['success', /User Managed Load Balancer/],
      'api-vips-valid': ['success', 'api vip 192.168.200.10 is valid'],
      'ingress-vips-valid': 'success',
    },
  },
  {
    name: 'user-managed load balancer: VIP in no machine network',
    input: ha({ load_balancer: { type: 'user-managed' }, api_vips: [{ ip: '192.168.200.10' }] }),
    expect: {
      'api-vips-valid': ['failure', /none of the machine networks is satisfying the requirements.*does not belong to machine-network-cidr <192.168.127.0\/24>/],
    },
  },

  // VIPs
  {
    name: 'API VIP outside the machine network',
    input: ha({ api_vips: [{ ip: '192.168.128.100' }] }),
    expect: { 'api-vips-valid': ['failure', 'api vips <192.168.128.100> does not belong to machine-network-cidr <192.168.127.0/24>'] },
  },
  {
    name: 'ingress VIP is taken',
    input: ha({ ingress_vips: [{ ip: '192.168.127.150' }] }),
    expect: { 'ingress-vips-valid': ['failure', 'ingress vips <192.168.127.150> is already in use in cidr 192.168.127.0/24'] },
  },
  {
    name: 'ingress VIP is the broadcast address',
    input: ha({ ingress_vips: [{ ip: '192.168.127.255' }] }),
    expect: { 'ingress-vips-valid': ['failure', /is the broadcast address/] },
  },
  {
    name: 'no host scanned the network yet',
    input: ha({}, [...masters(3, { free: null }), ...workers(2, { free: null })]),
    expect: { 'api-vips-valid': ['failure', 'api vips <192.168.127.100> are not verified yet.'] },
  },
  {
    name: 'agents verified the VIPs',
    input: ha({ api_vips: [{ ip: '192.168.127.100', verification: 'succeeded' }] }, [...masters(3, { free: null }), ...workers(2, { free: null })]),
    expect: { 'api-vips-valid': ['success', 'api vips 192.168.127.100 belongs to the Machine CIDR and is not in use.'] },
  },
  {
    name: 'an agent found the VIP in use',
    input: ha({ api_vips: [{ ip: '192.168.127.100', verification: 'failed' }] }),
    expect: { 'api-vips-valid': ['failure', /already in use/] },
  },
  {
    name: 'tiny machine network',
    input: ha(
      { machine_networks: [{ cidr: '192.168.127.96/29' }], api_vips: [{ ip: '192.168.127.100', verification: 'failed' }] },
      [...masters(3, { ipv4: [] }), ...workers(2, { ipv4: [] })].map((h, i) => ({
        ...h,
        inventory: JSON.stringify({ interfaces: [{ ipv4_addresses: [`192.168.127.${97 + i}/29`] }] }),
      })),
    ),
    expect: { 'api-vips-valid': ['failure', /The machine network range is too small for the cluster/] },
  },
  {
    name: 'VIPs not checked before hosts are discovered',
    input: ha({}, [host(0, { noInventory: true })]),
    expect: { 'api-vips-valid': ['pending', 'Hosts have not been discovered yet'], 'machine-cidr-equals-to-calculated-cidr': 'pending' },
  },
  {
    name: 'DHCP: lease still awaited',
    input: ha({
      vip_dhcp_allocation: true,
      network_type: 'OpenShiftSDN',
      openshift_version: '4.14.38',
      api_vips: [],
      ingress_vips: [],
      machine_network_cidr_updated_at: new Date(NOW.getTime() - 60_000).toISOString(),
    }),
    expect: { 'api-vips-defined': ['failure', /may take up to 2 minutes/] },
  },
  {
    name: 'DHCP: lease timed out',
    input: ha({
      vip_dhcp_allocation: true,
      network_type: 'OpenShiftSDN',
      openshift_version: '4.14.38',
      api_vips: [],
      ingress_vips: [],
      machine_network_cidr_updated_at: new Date(NOW.getTime() - 5 * 60_000).toISOString(),
    }),
    expect: { 'ingress-vips-defined': ['failure', 'Ingress virtual IPs are undefined; IP allocation from the DHCP server timed out.'] },
  },
  {
    name: 'SNO needs no VIPs',
    input: sno({ user_managed_networking: false }),
    expect: { 'api-vips-defined': ['success', 'API virtual IPs are not required: SNO'], 'ingress-vips-valid': 'success' },
  },

  // settings
  {
    name: 'no base domain',
    input: ha({ base_dns_domain: '' }),
    expect: { 'dns-domain-defined': ['failure', 'The base domain is undefined and must be provided.'] },
  },
  { name: 'missing pull secret', input: ha({ pull_secret_set: false }), expect: { 'pull-secret-set': ['failure', 'The pull secret is not set.'] } },
  {
    name: 'a host clock 10 minutes ahead',
    input: ha({}, [...masters(3), ...workers(1), host(21, { role: 'worker', timestamp: NOW_S + 600 })]),
    expect: { 'ntp-server-configured': ['failure', /Hosts' clocks are not synchronized/] },
  },
  {
    name: "a disconnected host's old clock does not count",
    input: ha({}, [...masters(3), ...workers(1), host(21, { role: 'worker', status: 'disconnected', timestamp: NOW_S - 3600 })]),
    expect: { 'ntp-server-configured': 'success' },
  },
  { name: 'unknown network type', input: ha({ network_type: 'Flannel' }), expect: { 'network-type-valid': ['failure', /the valid network types are/] } },
  {
    name: 'OpenShiftSDN with IPv6',
    input: dualStack({ network_type: 'OpenShiftSDN', openshift_version: '4.14.38' }),
    expect: { 'network-type-valid': ['failure', /IPv6 which is not supported by OpenShiftSDN/] },
  },
  {
    name: 'OpenShiftSDN on a single node',
    input: sno({ network_type: 'OpenShiftSDN', openshift_version: '4.14.38' }),
    expect: { 'network-type-valid': ['failure', /\(SNO\) is not supported by OpenShiftSDN/] },
  },
  {
    name: 'OpenShiftSDN after its removal',
    input: ha({ network_type: 'OpenShiftSDN', openshift_version: '4.16.3' }),
    expect: { 'network-type-valid': ['failure', 'OpenShiftSDN is not available for OpenShift 4.16.3; use OVNKubernetes instead'] },
  },
  { name: 'OpenShiftSDN on 4.14 HA', input: ha({ network_type: 'OpenShiftSDN', openshift_version: '4.14.38' }), expect: { 'network-type-valid': 'success' } },
  {
    name: 'DHCP VIPs with OVN',
    input: ha({ vip_dhcp_allocation: true, api_vips: [], ingress_vips: [] }),
    expect: { 'network-type-valid': ['failure', /VIP DHCP allocation is not supported/] },
  },
  {
    name: 'Calico without its manifests',
    input: ha({ network_type: 'Calico' }),
    expect: {
      'custom-manifests-requirements-satisfied': [
        'failure',
        'Custom manifests are required for: Calico network type. Please upload manifests via the custom manifests API.',
      ],
    },
  },
  {
    name: 'CNI chosen in install-config overrides',
    input: ha({ install_config_overrides: '{"networking":{"networkType":"CiscoACI"}}' }),
    expect: { 'custom-manifests-requirements-satisfied': ['failure', /CiscoACI network type/] },
  },
  {
    name: 'Oracle Cloud without its manifest',
    input: ha({ platform: { type: 'external', external: { platform_name: 'oci' } } }),
    expect: { 'platform-requirements-satisfied': ['failure', /Oracle Cloud Infrastructure/] },
  },
  {
    name: 'Oracle Cloud with its manifest',
    input: ha({ platform: { type: 'external', external: { platform_name: 'oci' } } }, undefined, { customManifestsUploaded: true }),
    expect: { 'platform-requirements-satisfied': 'success' },
  },

  // hosts
  {
    name: 'a host is insufficient',
    input: ha({}, [...masters(3), ...workers(1), host(21, { role: 'worker', status: 'insufficient' })]),
    expect: { 'all-hosts-are-ready-to-install': ['failure', 'The cluster has hosts that are not ready to install.'] },
  },
  {
    name: 'hosts preparing',
    input: ha({}, [...masters(3, { status: 'preparing-successful' }), ...workers(2, { status: 'preparing-for-installation' })]),
    expect: { 'all-hosts-are-ready-to-install': 'success' },
  },
  {
    name: '2 masters for HA',
    input: ha({}, [...masters(2), ...workers(2)]),
    expect: {
      'sufficient-masters-count': [
        'failure',
        'The cluster must have exactly 3 dedicated control plane nodes. Add or remove hosts, or change their roles configurations to meet the requirement.',
      ],
    },
  },
  { name: '4 masters for 3', input: ha({}, [...masters(4), ...workers(2)]), expect: { 'sufficient-masters-count': 'failure' } },
  {
    name: '5 unassigned capable hosts: 3 become masters',
    input: ha(
      {},
      [0, 1, 2, 3, 4].map((i) => host(i)),
    ),
    expect: { 'sufficient-masters-count': 'success' },
  },
  {
    name: 'suggested roles count as roles',
    input: ha({}, [0, 1, 2].map((i) => host(i, { suggestedRole: 'master' })).concat(workers(2))),
    expect: { 'sufficient-masters-count': 'success' },
  },
  {
    name: 'unassigned hosts too small for the control plane',
    input: ha({}, [...masters(1), host(1, { cores: 2, ramGib: 8 }), host(2, { cores: 2, ramGib: 8 })]),
    expect: { 'sufficient-masters-count': 'failure' },
  },
  {
    name: 'unassigned host without inventory is no master',
    input: ha({}, [...masters(2), host(2, { noInventory: true })]),
    expect: { 'sufficient-masters-count': 'failure' },
  },
  {
    name: 'operators raise the master minimums',
    input: ha({ monitored_operators: olm('mce') }, [...masters(2), host(2, { cores: 6, ramGib: 24 })]),
    expect: { 'sufficient-masters-count': 'failure' },
  },
  {
    name: 'SNO with a worker',
    input: sno({}, [host(0, { role: 'master' }), host(1, { role: 'worker' })]),
    expect: { 'sufficient-masters-count': ['failure', 'Single-node clusters must have a single control plane node and no workers.'] },
  },
  { name: 'SNO host not yet assigned', input: sno({}, [host(0)]), expect: { 'sufficient-masters-count': 'success' } },
  {
    name: 'two masters and an arbiter',
    input: ha({ control_plane_count: 2 }, [...masters(2), host(5, { role: 'arbiter', cores: 2, ramGib: 8 })]),
    expect: { 'sufficient-masters-count': 'success' },
  },
  {
    name: 'an unassigned small host becomes the arbiter',
    input: ha({ control_plane_count: 2 }, [...masters(2), host(5, { cores: 2, ramGib: 8 })]),
    expect: { 'sufficient-masters-count': 'success' },
  },
  {
    name: 'two masters, no arbiter, no fencing',
    input: ha({ control_plane_count: 2 }, [...masters(2), ...workers(2, { cores: 1 })]),
    expect: {
      'sufficient-masters-count': [
        'failure',
        /exactly 2 dedicated control plane nodes and at least 1 arbiter node or the control plane nodes must have fencing credentials/,
      ],
    },
  },
  {
    name: 'two masters with fencing credentials',
    input: ha({ control_plane_count: 2 }, masters(2, { hasFencingCredentials: true })),
    expect: { 'sufficient-masters-count': 'success' },
  },
  { name: '5 control-plane nodes', input: ha({ control_plane_count: 5 }, [...masters(5), ...workers(2)]), expect: { 'sufficient-masters-count': 'success' } },

  // operators
  disabledByConfig(
    'lso-requirements-satisfied',
    'node-feature-discovery-requirements-satisfied',
    'pipelines-requirements-satisfied',
    'servicemesh-requirements-satisfied',
    'serverless-requirements-satisfied',
    'authorino-requirements-satisfied',
    'kmm-requirements-satisfied',
    'node-healthcheck-requirements-satisfied',
    'node-maintenance-requirements-satisfied',
    'kube-descheduler-requirements-satisfied',
    'numa-resources-requirements-satisfied',
    'oadp-requirements-satisfied',
    'metallb-requirements-satisfied',
  ),
  {
    name: 'operators not selected',
    input: ha(),
    expect: { 'odf-requirements-satisfied': ['success', 'odf is disabled'], 'numa-resources-requirements-satisfied': ['success', 'numaresources is disabled'] },
  },
  {
    name: 'operators without requirements, selected',
    input: ha({
      monitored_operators: olm(
        'lso',
        'pipelines',
        'servicemesh',
        'serverless',
        'authorino',
        'kmm',
        'node-healthcheck',
        'node-maintenance',
        'kube-descheduler',
        'numaresources',
        'oadp',
        'metallb',
        'node-feature-discovery',
      ),
    }),
    // Upstream's operators give no reason when satisfied.
    expect: {
      'lso-requirements-satisfied': ['success', ''],
      'pipelines-requirements-satisfied': 'success',
      'numa-resources-requirements-satisfied': 'success',
      'metallb-requirements-satisfied': 'success',
    },
  },
  {
    name: "OpenShift AI's GPU check disabled by configuration",
    input: ha({ monitored_operators: olm('openshift-ai') }, undefined, { disabledValidations: ['openshift-ai-gpu-requirements-satisfied'] }),
    expect: { 'openshift-ai-gpu-requirements-satisfied': ['disabled', 'Validation disabled by configuration'] },
  },
  {
    name: 'ODF with 2 workers: no valid mode',
    input: ha({ monitored_operators: olm('lso', 'odf') }),
    expect: { 'odf-requirements-satisfied': ['failure', /either have no dedicated worker nodes or at least three/] },
  },
  {
    name: 'ODF compact: 3 masters with a data disk each',
    input: ha({ monitored_operators: olm('lso', 'odf') }, masters(3, { extraDisks: [ODF_DISK] })),
    expect: { 'odf-requirements-satisfied': ['success', 'ODF Requirements for Compact Deployment are satisfied.'] },
  },
  {
    name: 'ODF standard: 3 workers with data disks',
    input: ha({ monitored_operators: olm('lso', 'odf') }, [...masters(3), ...workers(3, { extraDisks: [ODF_DISK, ODF_DISK] })]),
    expect: { 'odf-requirements-satisfied': ['success', /Standard/] },
  },
  {
    name: 'ODF compact: data disks too small',
    input: ha({ monitored_operators: olm('lso', 'odf') }, masters(3, { extraDisks: [{ size_bytes: 20e9 }] })),
    expect: { 'odf-requirements-satisfied': ['failure', /Insufficient resources to deploy ODF in compact mode/] },
  },
  {
    name: 'ODF compact: a host not discovered',
    input: ha({ monitored_operators: olm('lso', 'odf') }, [...masters(2, { extraDisks: [ODF_DISK] }), host(2, { role: 'master', noInventory: true })]),
    expect: { 'odf-requirements-satisfied': ['pending', 'Missing Inventory in some of the hosts'] },
  },
  {
    name: 'ODF without LSO',
    input: ha({ monitored_operators: olm('odf') }, masters(3, { extraDisks: [ODF_DISK] })),
    expect: { 'odf-requirements-satisfied': ['failure', "OpenShift Data Foundation needs Local Storage Operator: add lso to the cluster's olm_operators."] },
  },
  { name: 'CNV on x86', input: ha({ monitored_operators: olm('cnv') }), expect: { 'cnv-requirements-satisfied': 'success' } },
  {
    name: 'CNV on arm64 before 4.14',
    input: ha({ monitored_operators: olm('cnv'), cpu_architecture: 'arm64', openshift_version: '4.13.40' }),
    expect: { 'cnv-requirements-satisfied': ['failure', 'OpenShift Virtualization is not supported for arm64 CPU architecture.'] },
  },
  {
    name: 'LVM on SNO 4.12',
    input: sno({ monitored_operators: olm('lvm'), openshift_version: '4.12.60' }),
    expect: { 'lvm-requirements-satisfied': 'success' },
  },
  {
    name: 'LVM on HA before 4.15',
    input: ha({ monitored_operators: olm('lvm'), openshift_version: '4.14.38' }),
    expect: { 'lvm-requirements-satisfied': ['failure', /highly available openshift with version 4.15.0 or above/] },
  },
  {
    name: 'LVM before 4.11',
    input: sno({ monitored_operators: olm('lvm'), openshift_version: '4.10.67' }),
    expect: { 'lvm-requirements-satisfied': ['failure', 'Logical Volume Manager is only supported for openshift versions 4.11.0 and above'] },
  },
  { name: 'MCE', input: ha({ monitored_operators: olm('mce') }), expect: { 'mce-requirements-satisfied': 'success' } },
  {
    name: 'MCE before 4.10',
    input: ha({ monitored_operators: olm('mce'), openshift_version: '4.9.59' }),
    expect: { 'mce-requirements-satisfied': ['failure', 'multicluster engine is only supported for openshift versions 4.10.0 and above'] },
  },
  { name: 'MTV with CNV', input: ha({ monitored_operators: olm('cnv', 'mtv') }), expect: { 'mtv-requirements-satisfied': 'success' } },
  {
    name: 'MTV without CNV',
    input: ha({ monitored_operators: olm('mtv') }),
    expect: { 'mtv-requirements-satisfied': ['failure', /needs OpenShift Virtualization: add cnv/] },
  },
  {
    name: 'MTV before 4.14',
    input: ha({ monitored_operators: olm('cnv', 'mtv'), openshift_version: '4.13.40' }),
    expect: { 'mtv-requirements-satisfied': ['failure', /only supported for openshift versions 4.14.0 and above/] },
  },
  { name: 'OSC', input: ha({ monitored_operators: olm('node-feature-discovery', 'osc') }), expect: { 'osc-requirements-satisfied': 'success' } },
  {
    name: 'OSC on arm64',
    input: ha({ monitored_operators: olm('node-feature-discovery', 'osc'), cpu_architecture: 'arm64' }),
    expect: { 'osc-requirements-satisfied': ['failure', 'OpenShift sandboxed containers is not supported for arm64 CPU architecture.'] },
  },
  {
    name: 'NVIDIA GPU on a worker',
    input: ha({ monitored_operators: olm('node-feature-discovery', 'nvidia-gpu') }, [
      ...masters(3),
      ...workers(1),
      host(21, { role: 'worker', gpus: [NVIDIA_T4] }),
    ]),
    expect: { 'nvidia-gpu-requirements-satisfied': 'success' },
  },
  {
    name: 'NVIDIA GPU only on a master that runs no workloads',
    input: ha({ monitored_operators: olm('node-feature-discovery', 'nvidia-gpu') }, [
      host(0, { role: 'master', gpus: [NVIDIA_T4] }),
      ...masters(3).slice(1),
      ...workers(2),
    ]),
    expect: { 'nvidia-gpu-requirements-satisfied': ['failure', /requires at least one supported NVIDIA GPU/] },
  },
  {
    name: 'NVIDIA GPU on a schedulable master',
    input: ha({ monitored_operators: olm('node-feature-discovery', 'nvidia-gpu'), schedulable_masters: true }, [
      host(0, { role: 'master', gpus: [NVIDIA_T4] }),
      ...masters(3).slice(1),
      ...workers(2),
    ]),
    expect: { 'nvidia-gpu-requirements-satisfied': 'success' },
  },
  {
    name: 'AMD GPU',
    input: ha({ monitored_operators: olm('node-feature-discovery', 'kmm', 'amd-gpu') }, [
      ...masters(3),
      ...workers(1),
      host(21, { role: 'worker', gpus: [AMD_MI210] }),
    ]),
    expect: { 'amd-gpu-requirements-satisfied': 'success' },
  },
  {
    name: 'AMD GPU operator, NVIDIA hardware',
    input: ha({ monitored_operators: olm('node-feature-discovery', 'kmm', 'amd-gpu') }, [
      ...masters(3),
      ...workers(1),
      host(21, { role: 'worker', gpus: [NVIDIA_T4] }),
    ]),
    expect: { 'amd-gpu-requirements-satisfied': ['failure', /requires at least one supported AMD GPU/] },
  },
  {
    name: 'OpenShift AI with 2 workers',
    input: ha({ monitored_operators: olm('openshift-ai') }),
    expect: { 'openshift-ai-requirements-satisfied': 'success', 'openshift-ai-gpu-requirements-satisfied': ['success', /without GPU support/] },
  },
  {
    name: 'OpenShift AI with 1 worker',
    input: ha({ monitored_operators: olm('openshift-ai') }, [...masters(3), ...workers(1)]),
    expect: { 'openshift-ai-requirements-satisfied': ['failure', 'OpenShift AI requires at least 2 worker nodes, but the cluster has 1.'] },
  },
  {
    name: 'OpenShift AI on SNO needs LVM',
    input: sno({ monitored_operators: olm('openshift-ai') }),
    expect: { 'openshift-ai-requirements-satisfied': ['failure', /add lvm/] },
  },
  {
    name: 'OpenShift AI on SNO with LVM',
    input: sno({ monitored_operators: olm('openshift-ai', 'lvm') }),
    expect: { 'openshift-ai-requirements-satisfied': 'success' },
  },
  { name: 'NMState', input: ha({ monitored_operators: olm('nmstate') }), expect: { 'nmstate-requirements-satisfied': 'success' } },
  {
    name: 'NMState on s390x',
    input: ha({ monitored_operators: olm('nmstate'), cpu_architecture: 's390x' }),
    expect: { 'nmstate-requirements-satisfied': ['failure', /not supported for s390x CPU architecture/] },
  },
  {
    name: 'NMState before 4.12',
    input: ha({ monitored_operators: olm('nmstate'), openshift_version: '4.11.59' }),
    expect: { 'nmstate-requirements-satisfied': ['failure', /4.12.0 and above/] },
  },
  {
    name: 'remediation without Node Healthcheck',
    input: ha({ monitored_operators: olm('self-node-remediation', 'fence-agents-remediation') }),
    expect: {
      'self-node-remediation-requirements-satisfied': ['failure', /add node-healthcheck/],
      'fence-agents-remediation-requirements-satisfied': 'failure',
    },
  },
  {
    name: 'remediation with Node Healthcheck',
    input: ha({ monitored_operators: olm('node-healthcheck', 'self-node-remediation', 'fence-agents-remediation') }),
    expect: { 'self-node-remediation-requirements-satisfied': 'success', 'fence-agents-remediation-requirements-satisfied': 'success' },
  },
  {
    name: 'observability stack',
    input: ha({ monitored_operators: olm('cluster-observability', 'openshift-logging', 'loki') }),
    expect: {
      'cluster-observability-requirements-satisfied': 'success',
      'openshift-logging-requirements-satisfied': 'success',
      'loki-requirements-satisfied': 'success',
    },
  },
  {
    name: 'observability without logging',
    input: ha({ monitored_operators: olm('cluster-observability') }),
    expect: { 'cluster-observability-requirements-satisfied': ['failure', /add openshift-logging/] },
  },
  {
    name: 'logging before 4.17',
    input: ha({ monitored_operators: olm('openshift-logging', 'loki'), openshift_version: '4.16.30' }),
    expect: {
      'openshift-logging-requirements-satisfied': ['failure', 'OpenShift Logging Operator is only supported for OpenShift versions 4.17.0 and above'],
      'loki-requirements-satisfied': ['failure', /Loki Operator is only supported/],
    },
  },
  {
    name: 'adding hosts to an existing cluster',
    input: ha({ kind: 'AddHostsCluster', monitored_operators: olm('odf') }),
    expect: { 'odf-requirements-satisfied': ['success', 'odf validation is disabled when adding hosts to an existing cluster.'] },
  },
];

// ---------------------------------------------------------------- tests

const resultsById = (results: readonly ClusterValidationResult[]) => new Map(results.map((result) => [result.id, result]));

describe('cluster validations', () => {
  it.each(CASES)('$name', ({ input, expect: expected }) => {
    const results = resultsById(validateCluster(input));
    for (const [id, want] of Object.entries(expected) as [ClusterValidationId, Expected][]) {
      const [status, message] = Array.isArray(want) ? want : [want, undefined];
      const result = results.get(id)!;
      expect({ id, status: result.status, message: result.message }).toMatchObject({ id, status });
      if (typeof message === 'string') expect(result.message).toBe(message);
      else if (message) expect(result.message).toMatch(message);
    }
  });

  it('has a passing and a non-passing case for every validation id', () => {
    const seen = new Map<string, Set<string>>();
    for (const testCase of CASES) {
      for (const [id, want] of Object.entries(testCase.expect)) {
        const status = Array.isArray(want) ? want[0] : want!;
        if (!seen.has(id)) seen.set(id, new Set());
        seen.get(id)!.add(status === 'success' ? 'pass' : 'other');
      }
    }
    const missing = CLUSTER_VALIDATION_IDS.filter((id) => !NEVER_REPORTED.includes(id) && (!seen.get(id)?.has('pass') || !seen.get(id)?.has('other')));
    expect(missing).toEqual([]);
  });

  it("knows exactly the ids of the openapi enum, with upstream's categories", () => {
    const spec = parse(readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8')) as { components: { schemas: Record<string, { enum: string[] }> } };
    expect([...CLUSTER_VALIDATION_IDS].sort()).toEqual([...spec.components.schemas['cluster-validation-id']!.enum].sort());
    expect(CLUSTER_VALIDATION_CATEGORIES['sufficient-masters-count']).toBe('hosts-data');
    expect(CLUSTER_VALIDATION_CATEGORIES['pull-secret-set']).toBe('configuration');
    expect(CLUSTER_VALIDATION_CATEGORIES['ntp-server-configured']).toBe('network');
  });

  it('returns each reported id once, sorted by category then id, with a message for every failure', () => {
    const results = validateCluster(ha({ monitored_operators: olm('odf') }));
    expect(results.map((r) => r.id).sort()).toEqual([...REPORTED_IDS].sort());
    const order = results.map((r) => `${['configuration', 'hosts-data', 'network', 'operators'].indexOf(r.category)}:${r.id}`);
    expect(order).toEqual([...order].sort());
    for (const result of results) expect(result.category).toBe(CLUSTER_VALIDATION_CATEGORIES[result.id]);
    for (const result of results.filter((r) => r.status !== 'success')) expect(result.message).not.toBe('');
  });

  it("reports what upstream reports about operators: no ocs validation, OpenShift AI's GPU check only with OpenShift AI", () => {
    const without = resultsById(validateCluster(ha()));
    expect(without.has('ocs-requirements-satisfied')).toBe(false);
    expect(without.has('openshift-ai-gpu-requirements-satisfied')).toBe(false);
    // A cluster stored with the retired name gets no ocs validation either.
    expect(resultsById(validateCluster(ha({ monitored_operators: olm('ocs') }))).has('ocs-requirements-satisfied')).toBe(false);
    const withAi = resultsById(validateCluster(ha({ monitored_operators: olm('openshift-ai', 'nvidia-gpu', 'node-feature-discovery') })));
    expect(withAi.get('openshift-ai-gpu-requirements-satisfied')).toMatchObject({ status: 'success', message: '' });
  });

  it("lets a cluster's own ignore list override the service configuration", () => {
    const input = ha({ pull_secret_set: false, ignored_cluster_validations: '["ntp-server-configured"]' }, undefined, {
      disabledValidations: ['pull-secret-set'],
    });
    expect(resultsById(validateCluster(input)).get('pull-secret-set')!.status).toBe('failure');
  });

  it('never shows the pull secret', () => {
    const results = validateCluster(ha({ pull_secret_set: false }));
    expect(JSON.stringify(results)).not.toMatch(/auths|cloud\.openshift\.com/);
  });
});

describe('what the cluster state machine gets', () => {
  const summary = (input: ClusterValidationInput) => summarizeClusterValidations(validateCluster(input), input.cluster.ignored_cluster_validations);

  it.each([
    ['a ready HA cluster', ha(), { inputProvided: true, vipsDefined: true, requiredForInstall: true }],
    ['a ready SNO', sno(), { inputProvided: true, vipsDefined: true, requiredForInstall: true }],
    ['missing pull secret: pending for input', ha({ pull_secret_set: false }), { inputProvided: false, vipsDefined: true, requiredForInstall: true }],
    ['no VIPs: pending for input', ha({ api_vips: [], ingress_vips: [] }), { inputProvided: true, vipsDefined: false, requiredForInstall: false }],
    ['2 masters for HA: insufficient', ha({}, [...masters(2), ...workers(2)]), { inputProvided: true, vipsDefined: true, requiredForInstall: false }],
    [
      'overlapping CIDRs: insufficient',
      ha({ service_networks: [{ cidr: '192.168.127.0/25' }] }),
      { inputProvided: true, vipsDefined: true, requiredForInstall: false },
    ],
    [
      'clock skew, ignored by the user',
      ha({ ignored_cluster_validations: '["ntp-server-configured"]' }, [...masters(3), ...workers(1), host(21, { role: 'worker', timestamp: NOW_S + 600 })]),
      { inputProvided: true, vipsDefined: true, requiredForInstall: true },
    ],
  ])('%s', (_name, input, expected) => {
    expect(summary(input)).toEqual(expected);
  });
});

describe('validations_info and events', () => {
  it("groups results by category in upstream's shape", () => {
    const info = JSON.parse(clusterValidationsInfo(validateCluster(ha({ pull_secret_set: false })))) as Record<
      string,
      { id: string; status: string; message: string }[]
    >;
    expect(Object.keys(info)).toEqual(['configuration', 'hosts-data', 'network', 'operators']);
    expect(info.configuration![0]).toEqual({ id: 'platform-requirements-satisfied', status: 'success', message: 'Platform requirements satisfied' });
    expect(info.configuration![1]).toEqual({ id: 'pull-secret-set', status: 'failure', message: 'The pull secret is not set.' });
    expect(info.network!.map((entry) => entry.id)).toEqual([...info.network!.map((entry) => entry.id)].sort());
  });

  it('marks ignored failures but keeps their status', () => {
    const results = validateCluster(ha({ base_dns_domain: '', pull_secret_set: false }));
    const info = parseClusterValidationsInfo(clusterValidationsInfo(results, '["all"]'));
    const byId = resultsById(info);
    expect(byId.get('dns-domain-defined')).toMatchObject({ status: 'failure', message: `The base domain is undefined and must be provided.${IGNORED_SUFFIX}` });
    // pull-secret-set cannot be ignored.
    expect(byId.get('pull-secret-set')!.message).toBe('The pull secret is not set.');
    expect(byId.get('dns-domain-defined')!.category).toBe('network');
    expect(info).toHaveLength(REPORTED_IDS.length);
  });

  it('reads nothing from missing or broken text', () => {
    expect(parseClusterValidationsInfo(undefined)).toEqual([]);
    expect(parseClusterValidationsInfo('{not json')).toEqual([]);
    expect(parseClusterValidationsInfo('{"network":[{"id":"bogus","status":"failure"}]}')).toEqual([]);
  });

  it('emits failed and fixed events on status flips only', () => {
    const ready = validateCluster(ha());
    const broken = validateCluster(ha({ pull_secret_set: false, api_vips: [], ingress_vips: [] }));
    const failed = validationChanges(clusterValidationsInfo(ready), broken);
    expect(failed.map((event) => event.props.validation_id).sort()).toEqual(['api-vips-defined', 'ingress-vips-defined', 'pull-secret-set']);
    expect(failed[0]).toMatchObject({ name: 'cluster_validation_failed', props: { failure_message: 'that used to succeed is now failing' } });
    // pending → failure says "failed"; pending → success says nothing.
    const noHosts = validateCluster(ha({ machine_networks: [] }, [host(0, { noInventory: true })]));
    const hostsNoMachineNetwork = validateCluster(ha({ machine_networks: [] }));
    expect(validationChanges(noHosts, hostsNoMachineNetwork).find((event) => event.props.validation_id === 'machine-cidr-defined')).toMatchObject({
      props: { failure_message: 'failed' },
    });

    const fixed = validationChanges(broken, clusterValidationsInfo(ready));
    expect(fixed.map((event) => event.name)).toEqual(['cluster_validation_fixed', 'cluster_validation_fixed', 'cluster_validation_fixed']);
    expect(validationChanges(undefined, broken)).toEqual([]);
    expect(validationChanges(ready, ready)).toEqual([]);

    const subject = { orgId: 'org-1', clusterId: '0f9a1c52-1111-4e7a-9d3c-5b8e2f6a7c01' };
    expect(buildEvent(failed[0]!.name, failed[0]!.props, subject, NOW, 'e1').message).toBe(
      "Cluster validation 'pull-secret-set' that used to succeed is now failing",
    );
    expect(buildEvent(fixed[0]!.name, fixed[0]!.props, subject, NOW, 'e2').message).toMatch(/^Cluster validation '.+' is now fixed$/);
  });
});

describe('machine network calculation', () => {
  const hostOn = (...addresses: string[]) => ({
    inventory: JSON.stringify({
      interfaces: [{ ipv4_addresses: addresses.filter((a) => !a.includes(':')), ipv6_addresses: addresses.filter((a) => a.includes(':')) }],
    }),
  });

  it.each([
    ['the subnet of the interface holding the API VIP', [hostOn('192.168.127.10/24', '10.0.0.10/16')], '192.168.127.100', undefined, '192.168.127.0/24'],
    ['the ingress VIP when no API VIP', [hostOn('10.0.5.10/16')], '', '10.0.9.9', '10.0.0.0/16'],
    ['IPv6', [hostOn('2001:db8:127::10/64')], '2001:db8:127::100', undefined, '2001:db8:127::/64'],
    [
      'the majority when hosts disagree',
      [hostOn('192.168.127.10/25'), hostOn('192.168.127.11/24'), hostOn('192.168.127.12/24')],
      '192.168.127.100',
      undefined,
      '192.168.127.0/24',
    ],
    ['the first seen among equals', [hostOn('192.168.127.10/25'), hostOn('192.168.127.11/24')], '192.168.127.100', undefined, '192.168.127.0/25'],
    ['nothing when no interface holds the VIP', [hostOn('192.168.127.10/24')], '10.1.1.1', undefined, undefined],
    ['nothing without VIPs', [hostOn('192.168.127.10/24')], undefined, undefined, undefined],
    ['nothing for an unparsable VIP', [hostOn('192.168.127.10/24')], 'not-an-ip', undefined, undefined],
    ['nothing from hosts without inventory', [{}, { inventory: '{broken' }], '192.168.127.100', undefined, undefined],
  ])('%s', (_name, hosts, apiVip, ingressVip, expected) => {
    expect(calculateMachineNetworkCidr(hosts, apiVip, ingressVip)).toBe(expected);
  });

  it('normalises CIDRs as Go prints networks', () => {
    expect(normalizeCidr('192.168.127.77/24')).toBe('192.168.127.0/24');
    expect(normalizeCidr('2001:0db8:0127:0000::1/64')).toBe('2001:db8:127::/64');
    expect(normalizeCidr('nonsense')).toBeUndefined();
  });
});

describe("when a cluster's validations are recorded", () => {
  it('in the statuses upstream evaluates them in only: an installing or installed cluster keeps the verdict it started with', () => {
    expect(['insufficient', 'ready', 'pending-for-input', 'preparing-for-installation'].filter(validatesInStatus)).toHaveLength(4);
    expect(['installing', 'installing-pending-user-action', 'finalizing', 'installed', 'error', 'cancelled', 'adding-hosts'].filter(validatesInStatus)).toEqual(
      [],
    );
  });
});
