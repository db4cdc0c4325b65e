/**
 * What the scenario files share: the request values both services accept, cluster bodies, and the
 * host flow an agent goes through (registration, next steps, the fixture inventories of
 * test/fixtures/inventories and the replies a healthy lab gives), written as steps.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { clusterJudged, get, patch, post, settle, type RequestStep, type Step } from '../scenario.js';

/** The pull secret both services accept. */
export const PULL_SECRET = '{"auths":{"cloud.openshift.com":{"auth":"dXNlcjpwYXNz","email":"a@b.c"}}}';
/** A fixed ed25519 key (a scenario is data: the same on both sides and in every run). */
export const SSH_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIqSvopbxszHcup3C5tWu5MN6E7/Dlc2E5ZeA2s4S25Y conformance@example.com';
export const BASE_DOMAIN = 'example.com';
export const AGENT_VERSION = 'quay.io/edge-infrastructure/assisted-installer-agent:latest';

/** Releases both services offer (their lists differ: the versions scenario compares them). */
export const VERSIONS = ['4.14.71', '4.16.68', '4.17.56', '4.18.52', '4.19.42', '4.20.33', '4.21.28', '4.22.9', '5.0.0-ec.5'] as const;
export const DEFAULT_VERSION = '4.22.9';
export const SHORT_VERSIONS = ['4.14', '4.16', '4.18', '4.19', '4.20', '4.22'] as const;
export const ARCHITECTURES = ['x86_64', 'arm64', 'aarch64', 'ppc64le', 's390x', 'multi'] as const;
export const PLATFORMS = ['baremetal', 'none', 'nutanix', 'vsphere', 'external'] as const;
export const NETWORK_TYPES = ['OVNKubernetes', 'OpenShiftSDN', 'CiscoACI', 'Cilium', 'Calico', 'None'] as const;
export const OPERATORS = [
  'cluster-observability',
  'numaresources',
  'oadp',
  'mce',
  'servicemesh',
  'authorino',
  'osc',
  'fence-agents-remediation',
  'openshift-logging',
  'metallb',
  'mtv',
  'node-feature-discovery',
  'nvidia-gpu',
  'openshift-ai',
  'nmstate',
  'node-maintenance',
  'loki',
  'odf',
  'lvm',
  'pipelines',
  'kmm',
  'self-node-remediation',
  'kube-descheduler',
  'lso',
  'cnv',
  'serverless',
  'amd-gpu',
  'node-healthcheck',
] as const;
export const BUNDLES = ['virtualization', 'openshift-ai'] as const;

export const MACHINE_NETWORK = '192.168.111.0/24';
export const API_VIP = '192.168.111.5';
export const INGRESS_VIP = '192.168.111.4';
export const MACHINE_NETWORK_V6 = 'fd2e:6f44:5dd8:c956::/120';
export const API_VIP_V6 = 'fd2e:6f44:5dd8:c956::5';
export const INGRESS_VIP_V6 = 'fd2e:6f44:5dd8:c956::4';

export type Json = Record<string, any>;

let nameCounter = 0;
/** A cluster name unique in this run (names are data: the same on both sides). */
export function clusterName(prefix = 'c'): string {
  nameCounter++;
  return `${prefix}${nameCounter.toString(36).padStart(4, '0')}`;
}

export function clusterBody(overrides: Json = {}): Json {
  return { name: clusterName(), openshift_version: DEFAULT_VERSION, pull_secret: PULL_SECRET, base_dns_domain: BASE_DOMAIN, ...overrides };
}

/** Creates a cluster (compared), waits for both to judge it, and compares it, its install-config and its events. */
export function clusterLifecycle(body: Json, more: Step[] = []): Step[] {
  return [
    post('v2RegisterCluster', '/clusters', body, { save: { cluster: 'id' } }),
    settle(),
    get('v2GetCluster', '/clusters/{{cluster}}'),
    get('v2GetClusterInstallConfig', '/clusters/{{cluster}}/install-config', { compare: 'install-config' }),
    ...more,
    get('v2ListEvents', '/events?cluster_id={{cluster}}', { compare: 'event-names' }),
  ];
}

/**
 * A cluster and its infra-env created as setup (compared by other scenarios), once both services
 * judged the cluster (clusterJudged: hosts registered later are announced as upstream does).
 */
export function clusterWithInfraEnv(body: Json, infraEnv: Json = {}): Step[] {
  return [
    post('v2RegisterCluster', '/clusters', body, { save: { cluster: 'id' }, setup: true }),
    clusterJudged(),
    post(
      'RegisterInfraEnv',
      '/infra-envs',
      {
        name: `${body.name}-ie`,
        pull_secret: PULL_SECRET,
        cluster_id: '{{cluster}}',
        cpu_architecture: body.cpu_architecture === 'multi' ? 'x86_64' : (body.cpu_architecture ?? 'x86_64'),
        ...infraEnv,
      },
      { save: { infraEnv: 'id' }, setup: true },
    ),
  ];
}

// ---- hosts ----

const inventoryCache = new Map<string, Json>();
export function fixtureInventory(name: string): Json {
  let inventory = inventoryCache.get(name);
  if (!inventory) {
    inventory = JSON.parse(readFileSync(path.join(import.meta.dirname, '../../fixtures/inventories', `${name}.json`), 'utf8')) as Json;
    inventoryCache.set(name, inventory);
  }
  return structuredClone(inventory);
}

export interface LabHost {
  /** The fixture this host's inventory starts from. */
  fixture: string;
  hostname: string;
  ipv4?: string;
  ipv6?: string;
  mac: string;
  role?: 'master' | 'worker' | 'arbiter' | 'auto-assign';
}

/** `count` hosts from `fixture` with their own name, MAC and addresses (192.168.111.20+i). */
export function labHosts(
  count: number,
  options: { fixture?: string; dualStack?: boolean; ipv6Only?: boolean; first?: number; role?: LabHost['role'] } = {},
): LabHost[] {
  return Array.from({ length: count }, (_, i) => {
    const n = (options.first ?? 0) + i;
    return {
      fixture: options.fixture ?? (n < 3 ? `master-${n}` : 'master-0'),
      hostname: `node-${n}`,
      ...(options.ipv6Only ? {} : { ipv4: `192.168.111.${20 + n}` }),
      ...(options.dualStack || options.ipv6Only ? { ipv6: `fd2e:6f44:5dd8:c956::${(20 + n).toString(16)}` } : {}),
      mac: `52:54:00:aa:01:${n.toString(16).padStart(2, '0')}`,
      ...(options.role ? { role: options.role } : {}),
    };
  });
}

export function hostInventory(host: LabHost): Json {
  const inventory = fixtureInventory(host.fixture);
  inventory.hostname = host.hostname;
  const nic = inventory.interfaces[0];
  nic.mac_address = host.mac;
  nic.ipv4_addresses = host.ipv4 ? [`${host.ipv4}/24`] : [];
  nic.ipv6_addresses = host.ipv6 ? [`${host.ipv6}/120`] : [];
  if (inventory.system_vendor) inventory.system_vendor.serial_number = `serial-${host.mac.replace(/:/g, '')}`;
  return inventory;
}

const stepReply = (hostIndex: number, stepType: string, output: unknown, failure?: { exit_code: number; error: string }): RequestStep =>
  post(
    'v2PostStepReply',
    `/infra-envs/{{infraEnv}}/hosts/{{host${hostIndex}}}/instructions`,
    {
      step_type: stepType,
      step_id: `${stepType}-0a1b2c3d`,
      output: typeof output === 'string' ? output : JSON.stringify(output),
      ...(failure ?? {}),
    },
    { agentOf: '{{infraEnv}}' },
  );

export { stepReply };

/** Registration, a first next-steps poll and the inventory of host `index`. */
export function registerHost(index: number, host: LabHost, options: { inventory?: Json } = {}): RequestStep[] {
  return [
    post(
      'v2RegisterHost',
      '/infra-envs/{{infraEnv}}/hosts',
      { host_id: `{{host${index}}}`, discovery_agent_version: AGENT_VERSION },
      { agentOf: '{{infraEnv}}' },
    ),
    get('v2GetNextSteps', `/infra-envs/{{infraEnv}}/hosts/{{host${index}}}/instructions`, { agentOf: '{{infraEnv}}', compare: 'status' }),
    stepReply(index, 'inventory', options.inventory ?? hostInventory(host)),
  ];
}

export interface LabNetwork {
  clusterName: string;
  baseDomain?: string;
  apiVip?: string;
  ingressVip?: string;
  ntpSource?: string;
}

/** The replies a healthy lab gives host `index` among `hosts`: connectivity to all, free VIPs, DNS, NTP, images. */
export function healthyReplies(index: number, hosts: readonly LabHost[], lab: LabNetwork): RequestStep[] {
  const me = hosts[index]!;
  const base = `${lab.clusterName}.${lab.baseDomain ?? BASE_DOMAIN}`;
  const apiIp = lab.apiVip ?? API_VIP;
  const ingressIp = lab.ingressVip ?? INGRESS_VIP;
  const remote = hosts.map((host, j) => ({ host, j })).filter(({ j }) => j !== index);
  return [
    stepReply(index, 'connectivity-check', {
      remote_hosts: remote.map(({ host, j }) => ({
        host_id: `{{host${j}}}`,
        l2_connectivity: host.ipv4
          ? [{ outgoing_nic: 'enp1s0', outgoing_ip_address: me.ipv4, remote_ip_address: host.ipv4, remote_mac: host.mac, successful: true }]
          : [],
        l3_connectivity: [
          ...(host.ipv4 ? [{ outgoing_nic: 'enp1s0', remote_ip_address: host.ipv4, successful: true, average_rtt_ms: 0.4, packet_loss_percentage: 0 }] : []),
          ...(host.ipv6 ? [{ outgoing_nic: 'enp1s0', remote_ip_address: host.ipv6, successful: true, average_rtt_ms: 0.4, packet_loss_percentage: 0 }] : []),
        ],
        mtu_report: host.ipv4 ? [{ outgoing_nic: 'enp1s0', remote_ip_address: host.ipv4, mtu_successful: true }] : [],
      })),
    }),
    stepReply(index, 'free-network-addresses', [{ network: MACHINE_NETWORK, free_addresses: [API_VIP, INGRESS_VIP, '192.168.111.100'] }]),
    stepReply(index, 'domain-resolution', {
      resolutions: [
        { domain_name: 'quay.io', ipv4_addresses: ['203.0.113.10'], ipv6_addresses: [], cnames: [] },
        { domain_name: `api.${base}`, ipv4_addresses: [apiIp], ipv6_addresses: [], cnames: [] },
        { domain_name: `api-int.${base}`, ipv4_addresses: [apiIp], ipv6_addresses: [], cnames: [] },
        { domain_name: `console-openshift-console.apps.${base}`, ipv4_addresses: [ingressIp], ipv6_addresses: [], cnames: [] },
        { domain_name: `validateNoWildcardDNS.${base}`, ipv4_addresses: [], ipv6_addresses: [], cnames: [] },
        { domain_name: `validateNoWildcardDNS.${base}.`, ipv4_addresses: [], ipv6_addresses: [], cnames: [] },
      ],
    }),
    stepReply(index, 'ntp-synchronizer', { ntp_sources: [{ source_name: lab.ntpSource ?? 'clock.example.com', source_state: 'synced' }] }),
    stepReply(index, 'container-image-availability', {
      images: [{ name: 'quay.io/openshift-release-dev/ocp-release:4.22.9-x86_64', result: 'success', download_rate: 100, size_bytes: 400_000_000, time: 2 }],
    }),
  ];
}

/** Every host registered with its inventory, then each host's healthy replies, then settle. */
export function hostsDiscovered(hosts: readonly LabHost[], lab: LabNetwork): Step[] {
  const steps: Step[] = [];
  for (const [i, host] of hosts.entries()) steps.push(...registerHost(i, host));
  for (const i of hosts.keys()) steps.push(...healthyReplies(i, hosts, lab));
  steps.push(settle());
  return steps;
}

/** The roles of hosts that carry one, set through the user API. */
export function assignRoles(hosts: readonly LabHost[]): RequestStep[] {
  return hosts.flatMap((host, i) => (host.role ? [patch('v2UpdateHost', `/infra-envs/{{infraEnv}}/hosts/{{host${i}}}`, { host_role: host.role })] : []));
}
