/**
 * A small lab for the host validation tests: the recorded inventories of five healthy machines
 * and a few broken ones, wired into a cluster with the replies a healthy network gives, plus the
 * knobs the table rows turn (operators, latency, user-managed networking, unbound hosts).
 */
import { readFileSync } from 'node:fs';
import type { Cluster, Host, InfraEnv } from '../../lambdas/domain/core/entities.js';
import { validateHost, type HostValidationConfig, type HostValidationResult } from '../../lambdas/domain/host/validations/host-validations.js';

// ---------------------------------------------------------------- fixtures

export const NOW = new Date('2026-08-21T10:00:00.000Z');
export const iso = (msAgo: number) => new Date(NOW.getTime() - msAgo).toISOString();
const CLUSTER_ID = '5f1a1c3e-7a51-4a0e-9a40-0c1f0e000001';
const INFRA_ENV_ID = '5f1a1c3e-7a51-4a0e-9a40-0c1f0e0000e1';
export const RELEASE_IMAGE = 'quay.io/openshift-release-dev/ocp-release@sha256:5d1b9e2c7c4f0e3a1b2c3d4e5f60718293a4b5c6d7e8f90112233445566778899';
export const AGENT_IMAGE = 'quay.io/edge-infrastructure/assisted-installer-agent:latest';

type InventoryJson = {
  hostname: string;
  interfaces: { name: string; mac_address: string; ipv4_addresses: string[]; ipv6_addresses: string[] }[];
  disks: Record<string, unknown>[];
  memory: { physical_bytes: number; usable_bytes: number };
  cpu: { count: number; flags: string[] };
  system_vendor: Record<string, unknown>;
  boot: Record<string, unknown>;
  routes: Record<string, unknown>[];
  gpus: Record<string, unknown>[];
  tpm_version: string;
  truncation?: { type: string; reasons?: string[] };
};
const inventoryOf = (name: string): InventoryJson =>
  JSON.parse(readFileSync(new URL(`../fixtures/inventories/${name}.json`, import.meta.url), 'utf8')) as InventoryJson;

/** The machines of the fixtures: ids in fixture order, so masters register first. */
export const MACHINES = {
  'master-0': { id: '0a0a0a0a-0000-4000-8000-000000000000', role: 'master' },
  'master-1': { id: '0a0a0a0a-0000-4000-8000-000000000001', role: 'master' },
  'master-2': { id: '0a0a0a0a-0000-4000-8000-000000000002', role: 'master' },
  'worker-0': { id: '0a0a0a0a-0000-4000-8000-000000000010', role: 'worker' },
  'worker-1': { id: '0a0a0a0a-0000-4000-8000-000000000011', role: 'worker' },
  undersized: { id: '0a0a0a0a-0000-4000-8000-000000000020', role: 'worker' },
  'no-eligible-disk': { id: '0a0a0a0a-0000-4000-8000-000000000021', role: 'worker' },
  'ipv6-only': { id: '0a0a0a0a-0000-4000-8000-000000000022', role: 'worker' },
} as const;
export type MachineName = keyof typeof MACHINES;
export const HEALTHY: MachineName[] = ['master-0', 'master-1', 'master-2', 'worker-0', 'worker-1'];

/** A world the table rows change: the cluster, its hosts (as inventories plus attributes) and the infra-env. */
export interface World {
  cluster?: Cluster;
  inventories: Partial<Record<MachineName, InventoryJson | undefined>>;
  attributes: Partial<Record<MachineName, Record<string, unknown>>>;
  infraEnv: InfraEnv;
}

const firstIp = (inventory: InventoryJson) => (inventory.interfaces[0]!.ipv4_addresses[0] ?? inventory.interfaces[0]!.ipv6_addresses[0]!).split('/')[0]!;

/** What the connectivity check reports from one host to the others: everything reachable, fast, no loss. */
export function connectivityReport(world: World, from: MachineName, peers: MachineName[]) {
  const own = world.inventories[from]!;
  return {
    remote_hosts: peers
      .filter((peer) => peer !== from && world.inventories[peer])
      .map((peer) => {
        const inventory = world.inventories[peer]!;
        const remote = firstIp(inventory);
        return {
          host_id: MACHINES[peer].id,
          l2_connectivity: [
            {
              outgoing_nic: own.interfaces[0]!.name,
              outgoing_ip_address: firstIp(own),
              remote_ip_address: remote,
              remote_mac: inventory.interfaces[0]!.mac_address,
              successful: true,
            },
          ],
          l3_connectivity: [
            { outgoing_nic: own.interfaces[0]!.name, remote_ip_address: remote, successful: true, average_rtt_ms: 0.42, packet_loss_percentage: 0 },
          ],
          mtu_report: [{ outgoing_nic: own.interfaces[0]!.name, remote_ip_address: remote, mtu_successful: true }],
        };
      }),
  };
}

export const resolved = (domain_name: string, ipv4: string[] = [], cnames: string[] = []) => ({
  domain_name,
  ipv4_addresses: ipv4,
  ipv6_addresses: [],
  cnames,
});
export const RESOLUTIONS = {
  resolutions: [
    resolved('api.ocp.example.com', ['192.168.111.5']),
    resolved('api-int.ocp.example.com', ['192.168.111.5']),
    resolved('console-openshift-console.apps.ocp.example.com', ['192.168.111.4']),
    resolved('validateNoWildcardDNS.ocp.example.com.'),
    resolved('validateNoWildcardDNS.ocp.example.com'),
    resolved('quay.io', ['52.0.0.1'], ['quay.io.cdn.example.net']),
  ],
};

function hostAttributes(world: World, name: MachineName, peers: MachineName[]): Record<string, unknown> {
  const inventory = inventoryOf(name);
  const installDisk = inventory.disks[0]!;
  return {
    kind: 'Host',
    role: MACHINES[name].role,
    suggested_role: MACHINES[name].role,
    checked_in_at: iso(30_000),
    media_status: 'connected',
    discovery_agent_version: AGENT_IMAGE,
    connectivity: JSON.stringify(connectivityReport(world, name, peers)),
    connectivity_checked_at: iso(60_000),
    ntp_sources: JSON.stringify([
      { source_name: 'clock.corp.example.com', source_state: 'synced' },
      { source_name: '192.168.111.1', source_state: 'not_combined' },
    ]),
    timestamp: Math.floor(NOW.getTime() / 1000) - 4,
    images_status: JSON.stringify({ [RELEASE_IMAGE]: { name: RELEASE_IMAGE, result: 'success', size_bytes: 512_000_000, time: 21.3, download_rate: 24.0 } }),
    domain_name_resolutions: JSON.stringify(RESOLUTIONS),
    installation_disk_id: installDisk.id,
    installation_disk_path: installDisk.path,
    disks_info: JSON.stringify({ [installDisk.path as string]: { disk_speed: { tested: true, exit_code: 0, speed_ms: 2 } } }),
    progress: {},
  };
}

export function clusterRecord(attributes: Record<string, unknown> = {}): Cluster {
  return {
    orgId: 'org-1',
    clusterId: CLUSTER_ID,
    name: 'ocp',
    status: 'insufficient',
    createdAt: iso(3_600_000),
    updatedAt: iso(60_000),
    version: 1,
    attributes: {
      kind: 'Cluster',
      openshift_version: '4.18.5',
      ocp_release_image: RELEASE_IMAGE,
      control_plane_count: 3,
      base_dns_domain: 'example.com',
      platform: { type: 'baremetal' },
      machine_networks: [{ cluster_id: CLUSTER_ID, cidr: '192.168.111.0/24' }],
      cluster_networks: [{ cluster_id: CLUSTER_ID, cidr: '10.128.0.0/14', host_prefix: 23 }],
      service_networks: [{ cluster_id: CLUSTER_ID, cidr: '172.30.0.0/16' }],
      api_vips: [{ ip: '192.168.111.5' }],
      ingress_vips: [{ ip: '192.168.111.4' }],
      user_managed_networking: false,
      vip_dhcp_allocation: false,
      load_balancer: { type: 'cluster-managed' },
      disk_encryption: { enable_on: 'none', mode: 'tpmv2' },
      schedulable_masters: false,
      schedulable_masters_forced_true: false,
      monitored_operators: [
        { name: 'console', operator_type: 'builtin' },
        { name: 'cvo', operator_type: 'builtin' },
      ],
      ...attributes,
    },
  };
}

export function world(machines: MachineName[] = HEALTHY): World {
  const w: World = {
    cluster: clusterRecord(),
    inventories: Object.fromEntries(machines.map((name) => [name, inventoryOf(name)])),
    attributes: {},
    infraEnv: {
      orgId: 'org-1',
      infraEnvId: INFRA_ENV_ID,
      name: 'ocp_infra-env',
      clusterId: CLUSTER_ID,
      createdAt: iso(3_600_000),
      updatedAt: iso(3_600_000),
      pullSecret: 'redacted',
      imageTokenKey: 'redacted',
      version: 1,
      attributes: { openshift_version: '4.18', cpu_architecture: 'x86_64' },
    },
  };
  for (const name of machines) w.attributes[name] = hostAttributes(w, name, machines);
  return w;
}

/** Rewrites every host's connectivity report for the current set of hosts. */
function reconnect(w: World) {
  const names = Object.keys(w.attributes) as MachineName[];
  for (const name of names) if (w.inventories[name]) w.attributes[name]!.connectivity = JSON.stringify(connectivityReport(w, name, names));
}

export function hostRecord(w: World, name: MachineName, index: number): Host {
  const inventory = w.inventories[name];
  return {
    orgId: 'org-1',
    infraEnvId: INFRA_ENV_ID,
    hostId: MACHINES[name].id,
    ...(w.cluster ? { clusterId: CLUSTER_ID } : {}),
    status: w.cluster ? 'known' : 'known-unbound',
    createdAt: iso(3_000_000 - index * 1000),
    updatedAt: iso(30_000),
    version: 3,
    attributes: { ...w.attributes[name], ...(inventory ? { inventory: JSON.stringify(inventory) } : {}) },
  };
}

export function run(w: World, target: MachineName = 'master-0', config?: HostValidationConfig): HostValidationResult[] {
  const names = Object.keys(w.attributes) as MachineName[];
  const hosts = names.map((name, index) => hostRecord(w, name, index));
  const host = hosts[names.indexOf(target)]!;
  return validateHost({
    host,
    ...(w.cluster ? { cluster: w.cluster, clusterHosts: hosts } : {}),
    infraEnv: w.infraEnv,
    now: NOW,
    ...(config ? { config } : {}),
  });
}

export const find = (results: HostValidationResult[], id: string) => results.find((r) => r.id === id)!;
export const clusterAttrs = (w: World) => w.cluster!.attributes;
export const withOperators = (w: World, ...names: string[]) => {
  clusterAttrs(w).monitored_operators = [
    { name: 'console', operator_type: 'builtin' as const },
    { name: 'cvo', operator_type: 'builtin' as const },
    ...names.map((name) => ({ name, operator_type: 'olm' as const })),
  ];
};
/** The three masters alone: a compact cluster. */
export const compact = (w: World) => {
  for (const name of ['worker-0', 'worker-1'] as const) {
    delete w.attributes[name];
    delete w.inventories[name];
  }
  reconnect(w);
};
export const addDataDisk = (inventory: InventoryJson) =>
  inventory.disks.push({
    id: '/dev/disk/by-id/wwn-0x5000c5008e3d0f99',
    name: 'sdb',
    path: '/dev/sdb',
    drive_type: 'SSD',
    size_bytes: 214_748_364_800,
    hctl: '0:0:0:1',
    installation_eligibility: { eligible: true, not_eligible_reasons: null },
  });
export const setL3 = (w: World, from: MachineName, to: MachineName, values: { average_rtt_ms?: number; packet_loss_percentage?: number }) => {
  const report = JSON.parse(w.attributes[from]!.connectivity as string) as ReturnType<typeof connectivityReport>;
  Object.assign(report.remote_hosts.find((r) => r.host_id === MACHINES[to].id)!.l3_connectivity[0]!, values);
  w.attributes[from]!.connectivity = JSON.stringify(report);
};
export const umn = (w: World) => Object.assign(clusterAttrs(w), { user_managed_networking: true, platform: { type: 'none' } });
export const unbound = (w: World) => {
  delete w.cluster;
  for (const attributes of Object.values(w.attributes)) {
    delete attributes!.role;
    delete attributes!.suggested_role;
  }
};

// ---------------------------------------------------------------- the table
