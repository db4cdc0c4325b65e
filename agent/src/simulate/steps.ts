/**
 * Step results of a SIMULATED host: what a healthy host with the profile's hardware, on the fleet's
 * network, would answer. Nothing here runs a command or sends a packet; every answer is derived from
 * the profile, the fleet's shared address table and the cluster's settings.
 */
import { createHash } from 'node:crypto';
import type { StepRunner } from '../contracts.js';
import { logsGatherStep, readRequest, upgradeAgentStep, type LogFile } from '../control-steps.js';
import { fail, succeed } from '../steps/support.js';
import { encodeStepOutput } from '../../../contracts/step-replies.js';
import type { ClusterView } from './cluster-view.js';
import { simulatedInventory, type SimulatedIdentity } from './host.js';
import type { FleetNetwork } from './network.js';

/** A documentation address (TEST-NET-3) per name, stable across runs. */
function testNetAddress(name: string): string {
  const byte = createHash('sha256').update(name).digest()[0]!;
  return `203.0.113.${1 + (byte % 250)}`;
}

export interface SimulatedStepsOptions {
  readonly identity: SimulatedIdentity;
  readonly network: FleetNetwork;
  readonly cluster: ClusterView;
  /** The fleet's first host, which answers for the API and ingress names when the cluster has no VIPs (SNO). */
  readonly firstHostAddress: string;
}

export function simulatedSteps(options: SimulatedStepsOptions): Record<string, StepRunner> {
  const { identity, network, cluster } = options;
  const behaviour = identity.profile.behaviour ?? {};
  const inventory = encodeStepOutput('inventory', simulatedInventory(identity, network));
  const rtt = behaviour.rtt_ms ?? 0.3;

  const connectivity: StepRunner = async (request) => {
    const peers = readRequest('connectivity-check', request);
    if (typeof peers === 'string') return fail(peers);
    const outgoingNic = identity.profile.inventory.interfaces[0]!.name;
    const remoteHosts = peers
      .map((peer) => {
        const remoteMacs = new Set((peer.nics ?? []).map((nic) => (nic.mac ?? '').toLowerCase()));
        const addresses = [...new Set((peer.nics ?? []).flatMap((nic) => nic.ip_addresses ?? []).map((ip) => ip.split('/')[0]!))].sort();
        const l3 = addresses.map((ip) => {
          const up = network.answers(ip);
          return { remote_ip_address: ip, successful: up, packet_loss_percentage: up ? 0 : 100, ...(up ? { average_rtt_ms: rtt } : {}) };
        });
        const l2 = addresses
          .filter((ip) => network.contains(ip))
          .map((ip) => {
            const member = network.memberAt(ip);
            return {
              outgoing_nic: outgoingNic,
              outgoing_ip_address: identity.address,
              remote_ip_address: ip,
              ...(member ? { remote_mac: member.mac } : {}),
              successful: !!member && remoteMacs.has(member.mac),
            };
          });
        return { host_id: peer.host_id, l2_connectivity: l2, l3_connectivity: l3, mtu_report: [] };
      })
      .sort((a, b) => a.host_id.localeCompare(b.host_id));
    return succeed('connectivity-check', { remote_hosts: remoteHosts });
  };

  const domainResolution: StepRunner = async (request) => {
    const body = readRequest('domain-resolution', request);
    if (typeof body === 'string') return fail(body);
    const facts = await cluster.facts();
    const base = facts.name && facts.baseDnsDomain ? `${facts.name}.${facts.baseDnsDomain}`.toLowerCase() : undefined;
    const apiAddresses = facts.apiVips.length ? facts.apiVips : [options.firstHostAddress];
    const ingressAddresses = facts.ingressVips.length ? facts.ingressVips : [options.firstHostAddress];
    const resolutions = body.domains.map(({ domain_name: requested = '' }) => {
      const name = requested.replace(/\.$/, '').toLowerCase();
      let ipv4: readonly string[] = [testNetAddress(name)];
      if (base && name.startsWith('validatenowildcarddns.')) ipv4 = [];
      else if (base && (name === `api.${base}` || name === `api-int.${base}`)) ipv4 = apiAddresses;
      else if (base && name.endsWith(`.apps.${base}`)) ipv4 = ingressAddresses;
      return { domain_name: requested, ipv4_addresses: [...ipv4], ipv6_addresses: [], cnames: [] };
    });
    return succeed('domain-resolution', { resolutions });
  };

  const freeAddresses: StepRunner = async (request) => {
    const networks = readRequest('free-network-addresses', request);
    if (typeof networks === 'string') return fail(networks);
    return succeed(
      'free-network-addresses',
      networks.map((cidr) => ({ network: cidr, free_addresses: network.freeAddresses(cidr) })),
    );
  };

  const ntp: StepRunner = async (request) => {
    const body = readRequest('ntp-synchronizer', request);
    if (typeof body === 'string') return fail(body);
    const sources = (body.ntp_source ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const listed = sources.length ? sources : ['0.rhel.pool.ntp.org'];
    return succeed('ntp-synchronizer', { ntp_sources: listed.map((source_name, i) => ({ source_name, source_state: i === 0 ? 'synced' : 'combined' })) });
  };

  const verifyVips: StepRunner = async (request) => {
    const vips = readRequest('verify-vips', request);
    if (typeof vips === 'string') return fail(vips);
    return succeed(
      'verify-vips',
      vips.map(({ vip, vip_type }) => ({ vip, vip_type, verification: network.answers(vip) ? 'failed' : 'succeeded' })),
    );
  };

  const diskSpeed: StepRunner = async (request) => {
    const body = readRequest('installation-disk-speed-check', request);
    if (typeof body === 'string') return fail(body);
    return succeed('installation-disk-speed-check', { path: body.path, io_sync_duration: Math.max(1, Math.round(behaviour.disk_sync_ms ?? 2)) });
  };

  const images: StepRunner = async (request) => {
    const body = readRequest('container-image-availability', request);
    if (typeof body === 'string') return fail(body);
    const seconds = behaviour.image_pull_seconds ?? 12;
    const sizeBytes = 1_350_000_000;
    return succeed('container-image-availability', {
      images: body.images.map((name) => ({ name, result: 'success', size_bytes: sizeBytes, time: seconds, download_rate: sizeBytes / 1e6 / seconds })),
    });
  };

  const tang: StepRunner = async (request) => {
    const body = readRequest('tang-connectivity-check', request);
    if (typeof body === 'string') return fail(body);
    let servers: { url?: string; thumbprint?: string }[] = [];
    try {
      servers = JSON.parse(body.tang_servers) as typeof servers;
    } catch {
      return fail('tang-connectivity-check: tang_servers is not a JSON list');
    }
    const payload = Buffer.from(JSON.stringify({ keys: [] })).toString('base64url');
    return succeed('tang-connectivity-check', {
      is_success: true,
      tang_server_response: servers.map((server) => ({
        tang_url: `${(server.url ?? '').replace(/\/+$/, '')}/adv/${server.thumbprint ?? ''}`,
        payload,
        signatures: [{ protected: Buffer.from('{"alg":"ES512"}').toString('base64url'), signature: 'c2ltdWxhdGVk' }],
      })),
    });
  };

  const apiVip: StepRunner = async (request) => {
    const body = readRequest('api-vip-connectivity-check', request);
    if (typeof body === 'string') return fail(body);
    return succeed('api-vip-connectivity-check', { is_success: true, url: body.url, ignition: JSON.stringify({ ignition: { version: '3.2.0' } }) });
  };

  const dhcp: StepRunner = async (request) => {
    const body = readRequest('dhcp-lease-allocate', request);
    if (typeof body === 'string') return fail(body);
    const free = network.freeAddresses(network.cidr);
    const [apiAddress, ingressAddress] = [free.at(-1), free.at(-2)];
    if (!apiAddress || !ingressAddress) return { exit_code: 1, error: `no free address left in ${network.cidr} for the VIPs` };
    const lease = (address: string, mac: string) =>
      `lease {\n  interface "${body.interface}";\n  fixed-address ${address};\n  option subnet-mask ${network.prefixLength};\n  # simulated lease for ${mac}\n}\n`;
    return succeed('dhcp-lease-allocate', {
      api_vip_address: apiAddress,
      ingress_vip_address: ingressAddress,
      api_vip_lease: lease(apiAddress, body.api_vip_mac),
      ingress_vip_lease: lease(ingressAddress, body.ingress_vip_mac),
    });
  };

  const simulatedLogs = async (): Promise<LogFile[]> => [
    { name: 'SIMULATED.txt', content: `This host is SIMULATED (profile ${identity.profile.name}); these are not logs of a real machine.\n` },
    { name: 'inventory.json', content: inventory },
  ];

  return {
    inventory: async (request) => {
      const body = readRequest('inventory', request);
      return typeof body === 'string' ? fail(body) : { exit_code: 0, output: inventory };
    },
    'connectivity-check': connectivity,
    'free-network-addresses': freeAddresses,
    'ntp-synchronizer': ntp,
    'domain-resolution': domainResolution,
    'verify-vips': verifyVips,
    'installation-disk-speed-check': diskSpeed,
    'container-image-availability': images,
    'tang-connectivity-check': tang,
    'api-vip-connectivity-check': apiVip,
    'dhcp-lease-allocate': dhcp,
    'upgrade-agent': upgradeAgentStep(async () => undefined),
    'logs-gather': logsGatherStep(simulatedLogs),
  };
}
