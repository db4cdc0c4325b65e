/**
 * connectivity-check: from this host to every address of every other host, L3 by ping, L2 by arping
 * (IPv4) or nmap neighbour discovery (IPv6) from the NICs that share the subnet, and a don't-fragment
 * ping at the NIC's MTU when it is not the default 1500.
 */
import type { StepContext, StepRequest, StepResult } from '../contracts.js';
import { parseIpAddr, type IpLink } from '../inventory/parse-ip.js';
import { bareAddress, familyOf, sameSubnet } from './ip-math.js';
import { parseArping } from './parsers/arping.js';
import { parseNmapXml, upHosts } from './parsers/nmap.js';
import { parsePing } from './parsers/ping.js';
import { guarded, mapLimited, run, stepRequest, succeed, toolMissing } from './support.js';

interface RemoteHost {
  readonly hostId: string;
  readonly macs: ReadonlySet<string>;
  readonly addresses: readonly string[];
}

export interface L2Connectivity {
  outgoing_nic: string;
  outgoing_ip_address: string;
  remote_ip_address: string;
  remote_mac: string;
  successful: boolean;
}
export interface L3Connectivity {
  remote_ip_address: string;
  successful: boolean;
  packet_loss_percentage: number;
  average_rtt_ms?: number;
}
export interface MtuReport {
  outgoing_nic: string;
  remote_ip_address: string;
  mtu_successful: boolean;
}
export interface ConnectivityRemoteHost {
  host_id: string;
  l2_connectivity: L2Connectivity[];
  l3_connectivity: L3Connectivity[];
  mtu_report: MtuReport[];
}

interface OutgoingNic {
  readonly name: string;
  readonly mtu: number;
  /** CIDRs: 10.0.0.5/24. */
  readonly addresses: readonly string[];
}

const DEFAULT_MTU = 1500;
const IPV4_HEADERS = 28;
const IPV6_HEADERS = 48;
/** Pings, arpings and scans in flight at once; each mostly waits. */
const CONCURRENCY = 16;

function readRequest(request: StepRequest): RemoteHost[] {
  return stepRequest('connectivity-check', request).map((host) => {
    const macs = new Set(host.nics.flatMap((nic) => (nic.mac ? [nic.mac.toLowerCase()] : [])));
    const addresses = host.nics.flatMap((nic) => nic.ip_addresses).flatMap((address) => (familyOf(address) ? [bareAddress(address)] : []));
    return { hostId: host.host_id, macs, addresses: [...new Set(addresses)] };
  });
}

/** NICs that can carry cluster traffic: up, not loopback, with an address beyond link-local. */
function outgoingNics(links: readonly IpLink[]): OutgoingNic[] {
  return links.flatMap((link) => {
    if (link.linkType === 'loopback' || link.flags.includes('LOOPBACK') || !link.flags.includes('UP')) return [];
    const addresses = link.addresses
      .filter((address) => address.scope !== 'link' && !address.address.startsWith('169.254.') && !/^fe[89ab][0-9a-f]:/i.test(address.address))
      .map((address) => `${address.address}/${address.prefixLength}`);
    return addresses.length > 0 ? [{ name: link.name, mtu: link.mtu ?? DEFAULT_MTU, addresses }] : [];
  });
}

async function l3(context: StepContext, address: string): Promise<L3Connectivity> {
  const result = await run(context, 'ping', ['-c', '10', '-W', '3', '-q', address], { timeoutMs: 60_000 });
  const summary = parsePing(result.stdout);
  return {
    remote_ip_address: address,
    successful: result.exitCode === 0 && !!summary && summary.received > 0,
    packet_loss_percentage: summary?.packetLossPercent ?? 100,
    ...(summary?.averageRttMs !== undefined ? { average_rtt_ms: summary.averageRttMs } : {}),
  };
}

/** A remote address to reach at L2 through one of this host's NICs, from its address on the same subnet. */
interface L2Probe {
  nic: OutgoingNic;
  localCidr: string;
  remote: RemoteHost;
  address: string;
}

/** The MACs arping heard answer for an IPv4 address; undefined when arping is not installed. */
async function arpingMacs(context: StepContext, { nic, address }: L2Probe, tools: ToolPresence): Promise<string[] | undefined> {
  if (!tools.arping) return undefined;
  // arping exits 1 when some probes went unanswered; the replies it did get still count.
  const result = await run(context, 'arping', ['-c', '10', '-w', '5', '-I', nic.name, address], { timeoutMs: 30_000 });
  if (result.missing) {
    tools.arping = false;
    context.log.warn('arping is not installed; connectivity-check reports no IPv4 L2 results');
    return undefined;
  }
  return parseArping(result.stdout).map((reply) => reply.mac);
}

/** The MACs nmap's neighbour discovery found up at an IPv6 address; undefined when nmap is not installed. */
async function nmapMacs(context: StepContext, { nic, address }: L2Probe, tools: ToolPresence): Promise<string[] | undefined> {
  if (!tools.nmap) return undefined;
  const result = await run(context, 'nmap', ['-6', '-sn', '-n', '-oX', '-', '-e', nic.name, address], { timeoutMs: 60_000 });
  if (result.missing) {
    tools.nmap = false;
    context.log.warn('nmap is not installed; connectivity-check reports no IPv6 L2 results');
    return undefined;
  }
  try {
    return upHosts(parseNmapXml(result.stdout)).flatMap((host) => host.mac ?? []);
  } catch {
    context.log.warn('nmap output for IPv6 L2 could not be read', { nic: nic.name, address });
    return [];
  }
}

/** The L2 results for one probe: one per MAC that answered (successful when it is the remote host's), or one failure. */
async function l2(context: StepContext, probe: L2Probe, tools: ToolPresence): Promise<L2Connectivity[]> {
  const macs = familyOf(probe.address) === 4 ? await arpingMacs(context, probe, tools) : await nmapMacs(context, probe, tools);
  if (macs === undefined) return [];
  const base = { outgoing_nic: probe.nic.name, outgoing_ip_address: bareAddress(probe.localCidr), remote_ip_address: probe.address };
  if (macs.length === 0) return [{ ...base, remote_mac: '', successful: false }];
  return macs.map((mac) => ({ ...base, remote_mac: mac, successful: probe.remote.macs.has(mac) }));
}

async function mtuProbe(context: StepContext, nic: OutgoingNic, address: string): Promise<MtuReport | undefined> {
  // -W bounds the wait for late replies (ping lingers 10 s by default once it has sent its packets).
  const reachable = await run(context, 'ping', [address, '-c', '3', '-W', '3', '-I', nic.name], { timeoutMs: 30_000 });
  // Only a path that works with ordinary packets says anything about large ones.
  if (reachable.exitCode !== 0) return undefined;
  const payload = nic.mtu - (familyOf(address) === 6 ? IPV6_HEADERS : IPV4_HEADERS);
  const large = await run(context, 'ping', [address, '-c', '3', '-W', '3', '-M', 'do', '-s', String(payload), '-I', nic.name], { timeoutMs: 30_000 });
  return { outgoing_nic: nic.name, remote_ip_address: address, mtu_successful: large.exitCode === 0 };
}

interface ToolPresence {
  arping: boolean;
  nmap: boolean;
}

async function localNics(context: StepContext): Promise<OutgoingNic[]> {
  const result = await run(context, 'ip', ['-j', '-d', 'addr', 'show'], { timeoutMs: 15_000 });
  if (result.missing || result.exitCode !== 0) {
    context.log.warn(
      result.missing ? 'ip is not installed; connectivity-check runs L3 checks only' : 'ip addr failed; connectivity-check runs L3 checks only',
      { stderr: result.stderr.trim() },
    );
    return [];
  }
  try {
    return outgoingNics(parseIpAddr(result.stdout));
  } catch {
    context.log.warn('ip addr output could not be read; connectivity-check runs L3 checks only');
    return [];
  }
}

export async function connectivityCheck(request: StepRequest, context: StepContext): Promise<StepResult> {
  return guarded(request, context, async () => {
    const remotes = readRequest(request);
    const pingCheck = await run(context, 'ping', ['-V'], { timeoutMs: 10_000 });
    if (pingCheck.missing) return toolMissing('ping', 'connectivity-check', 'test L3 reachability');
    const nics = await localNics(context);
    const tools: ToolPresence = { arping: true, nmap: true };

    type Task = () => Promise<{ hostId: string; l2?: L2Connectivity[]; l3?: L3Connectivity; mtu?: MtuReport }>;
    const tasks: Task[] = [];
    for (const remote of remotes) {
      for (const address of remote.addresses) {
        tasks.push(async () => ({ hostId: remote.hostId, l3: await l3(context, address) }));
        for (const nic of nics) {
          const local = nic.addresses.find((cidr) => sameSubnet(cidr, address));
          if (!local) continue;
          tasks.push(async () => ({ hostId: remote.hostId, l2: await l2(context, { nic, localCidr: local, remote, address }, tools) }));
          if (nic.mtu !== DEFAULT_MTU) {
            tasks.push(async () => {
              const mtu = await mtuProbe(context, nic, address);
              return { hostId: remote.hostId, ...(mtu ? { mtu } : {}) };
            });
          }
        }
      }
    }
    const results = await mapLimited(tasks, CONCURRENCY, (task) => task());

    const byHost = new Map<string, ConnectivityRemoteHost>(
      remotes.map((remote) => [remote.hostId, { host_id: remote.hostId, l2_connectivity: [], l3_connectivity: [], mtu_report: [] }]),
    );
    for (const result of results) {
      const host = byHost.get(result.hostId);
      if (!host) continue;
      if (result.l3) host.l3_connectivity.push(result.l3);
      if (result.l2) host.l2_connectivity.push(...result.l2);
      if (result.mtu) host.mtu_report.push(result.mtu);
    }
    const byAddress = (a: { remote_ip_address: string }, b: { remote_ip_address: string }) => a.remote_ip_address.localeCompare(b.remote_ip_address);
    const remoteHosts = [...byHost.values()]
      .sort((a, b) => a.host_id.localeCompare(b.host_id))
      .map((host) => ({
        ...host,
        l2_connectivity: host.l2_connectivity.sort(byAddress),
        l3_connectivity: host.l3_connectivity.sort(byAddress),
        mtu_report: host.mtu_report.sort(byAddress),
      }));
    return succeed('connectivity-check', { remote_hosts: remoteHosts });
  });
}
