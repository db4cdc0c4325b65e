/**
 * Simulated hosts for the lifecycle bench: the recorded inventories of test/fixtures/inventories
 * made distinct per host (hostname, MAC, IPv4 in one /16 machine network, serial), and the replies
 * a healthy lab gives to each step. Host i is the same machine every time it is generated.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BENCH_PULL_SECRET } from '../support/fixtures.js';
import type { AgentClient } from './agents.js';

type Json = Record<string, any>;

const FIXTURES = ['master-0', 'master-1', 'master-2', 'worker-0', 'worker-1'];
const templates = FIXTURES.map((name) => readFileSync(path.join(import.meta.dirname, '../../test/fixtures/inventories', `${name}.json`), 'utf8'));

/** 10.100.0.0/16: third octet 0 holds the VIPs, hosts start at 10.100.1.1 (253 per /24, ~64,000 in all). */
export const MACHINE_NETWORK = '10.100.0.0/16';
export const API_VIP = '10.100.0.5';
export const INGRESS_VIP = '10.100.0.4';
export const BASE_DOMAIN = 'example.com';
const PER_OCTET = 253;

export function hostIp(index: number): string {
  return `10.100.${1 + Math.floor(index / PER_OCTET)}.${1 + (index % PER_OCTET)}`;
}

export function hostMac(index: number): string {
  const bytes = [0x02, 0x00, (index >>> 24) & 255, (index >>> 16) & 255, (index >>> 8) & 255, index & 255];
  return bytes.map((b) => b.toString(16).padStart(2, '0')).join(':');
}

export function hostName(index: number): string {
  return `bench-${String(index).padStart(5, '0')}.bench.${BASE_DOMAIN}`;
}

export function inventoryOf(index: number): Json {
  const inventory = JSON.parse(templates[index % templates.length]!) as Json;
  inventory.hostname = hostName(index);
  inventory.system_vendor = { ...inventory.system_vendor, serial_number: `bench-serial-${index}` };
  const [nic] = inventory.interfaces as Json[];
  inventory.interfaces = [{ ...nic, mac_address: hostMac(index), ipv4_addresses: [`${hostIp(index)}/16`], ipv6_addresses: [] }];
  inventory.routes = [
    { interface: nic!.name, gateway: '10.100.0.1', destination: '0.0.0.0', family: 2, metric: 100 },
    { interface: nic!.name, destination: '10.100.0.0', family: 2, metric: 100 },
  ];
  return inventory;
}

/**
 * What a host reports after checking `neighbours` of its peers (the hosts just before and after it
 * in `ids`): successful L2, L3 and MTU. A full mesh at 1,000 hosts is ~250 KB per report; the
 * bench keeps it bounded (LIFECYCLE_CONNECTIVITY_PEERS) so the table stays realistic in size.
 */
export function connectivityOf(index: number, ids: readonly string[], neighbours: number): Json {
  const remote: Json[] = [];
  const count = Math.min(neighbours, ids.filter((id) => id !== undefined).length - 1);
  for (let step = 1; remote.length < count; step++) {
    for (const j of [index + step, index - step]) {
      // A sparse `ids` (a small cluster's hosts at their fleet-wide indexes) has holes: no host there.
      if (j < 0 || j >= ids.length || ids[j] === undefined || remote.length >= count) continue;
      const ip = hostIp(j);
      remote.push({
        host_id: ids[j],
        l2_connectivity: [{ outgoing_nic: 'enp1s0', outgoing_ip_address: hostIp(index), remote_ip_address: ip, remote_mac: hostMac(j), successful: true }],
        l3_connectivity: [{ outgoing_nic: 'enp1s0', remote_ip_address: ip, successful: true, average_rtt_ms: 0.4, packet_loss_percentage: 0 }],
        mtu_report: [{ outgoing_nic: 'enp1s0', remote_ip_address: ip, mtu_successful: true }],
      });
    }
  }
  return { remote_hosts: remote };
}

/** The replies after the inventory, in the order an agent sends them, for a cluster named `clusterName`. */
export function repliesAfterInventory(
  index: number,
  ids: readonly string[],
  clusterName: string,
  neighbours: number,
): { step_type: string; output: Json | Json[] }[] {
  const base = `${clusterName}.${BASE_DOMAIN}`;
  return [
    { step_type: 'connectivity-check', output: connectivityOf(index, ids, neighbours) },
    { step_type: 'ntp-synchronizer', output: { ntp_sources: [{ source_name: 'clock.example.com', source_state: 'synced' }] } },
    { step_type: 'free-network-addresses', output: [{ network: MACHINE_NETWORK, free_addresses: [API_VIP, INGRESS_VIP] }] },
    {
      step_type: 'domain-resolution',
      output: {
        resolutions: [
          { domain_name: 'quay.io', ipv4_addresses: ['203.0.113.10'], ipv6_addresses: [], cnames: [] },
          { domain_name: `api.${base}`, ipv4_addresses: [API_VIP], ipv6_addresses: [], cnames: [] },
          { domain_name: `api-int.${base}`, ipv4_addresses: [API_VIP], ipv6_addresses: [], cnames: [] },
          { domain_name: `console-openshift-console.apps.${base}`, ipv4_addresses: [INGRESS_VIP], ipv6_addresses: [], cnames: [] },
          { domain_name: `validateNoWildcardDNS.${base}`, ipv4_addresses: [], ipv6_addresses: [], cnames: [] },
          { domain_name: `validateNoWildcardDNS.${base}.`, ipv4_addresses: [], ipv6_addresses: [], cnames: [] },
        ],
      },
    },
  ];
}

/** The OpenShift version the service offers by default (else the first it lists). */
export async function defaultOpenshiftVersion(user: AgentClient): Promise<string> {
  const versions = JSON.parse((await user.call('GET', '/openshift-versions')).body) as Record<string, { default?: boolean }>;
  return Object.entries(versions).find(([, v]) => v.default)?.[0] ?? Object.keys(versions)[0]!;
}

/** Registers, as `user`, a cluster named `name` with its VIPs on the machine network above, and its infra-env. */
export async function registerCluster(
  user: AgentClient,
  name: string,
  version: string,
  settings: Record<string, unknown> = {},
): Promise<{ clusterId: string; infraEnvId: string }> {
  const cluster = await user.call('POST', '/clusters', {
    name,
    openshift_version: version,
    pull_secret: BENCH_PULL_SECRET,
    base_dns_domain: BASE_DOMAIN,
    api_vips: [{ ip: API_VIP }],
    ingress_vips: [{ ip: INGRESS_VIP }],
    additional_ntp_source: 'clock.example.com',
    ...settings,
  });
  if (cluster.status !== 201) throw new Error(`cluster ${name}: ${cluster.status} ${cluster.body}`);
  const clusterId = (JSON.parse(cluster.body) as { id: string }).id;
  const infraEnv = await user.call('POST', '/infra-envs', { name, pull_secret: BENCH_PULL_SECRET, cluster_id: clusterId });
  if (infraEnv.status !== 201) throw new Error(`infra-env ${name}: ${infraEnv.status} ${infraEnv.body}`);
  return { clusterId, infraEnvId: (JSON.parse(infraEnv.body) as { id: string }).id };
}
