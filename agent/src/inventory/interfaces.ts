/**
 * Network interfaces and routes. `ip -j` is the source; without it, /sys/class/net and /proc/net
 * give the same facts less completely.
 */
import { networkInterfaces } from 'node:os';
import { parseIpAddr, parseIpRoute, type IpLink, type IpRoute } from './parse-ip.js';
import { parseProcIpv4Routes, parseProcIpv6Routes, parseProcIfInet6 } from './parse-proc-net.js';
import { optional, type InventoryProbe } from './probe.js';

export interface Interface {
  name: string;
  mac_address: string;
  ipv4_addresses: string[];
  ipv6_addresses: string[];
  speed_mbps: number;
  mtu: number;
  flags: string[];
  has_carrier: boolean;
  type: string;
  vendor?: string;
  product?: string;
  biosdevname?: string;
}

export interface Route {
  destination: string;
  gateway?: string;
  interface: string;
  family: number;
  metric: number;
}

/** Address families as netlink numbers them; the service reads these (and accepts 4/6). */
export const AF_INET = 2;
export const AF_INET6 = 10;

/** Go's net.Flags names, which is how upstream spells them on the wire. */
const FLAG_NAMES: Record<string, string> = {
  UP: 'up',
  BROADCAST: 'broadcast',
  LOOPBACK: 'loopback',
  POINTOPOINT: 'pointtopoint',
  MULTICAST: 'multicast',
  LOWER_UP: 'running',
};
const IFF_BITS: [number, string][] = [
  [0x1, 'UP'],
  [0x2, 'BROADCAST'],
  [0x8, 'LOOPBACK'],
  [0x10, 'POINTOPOINT'],
  [0x1000, 'MULTICAST'],
  [0x10000, 'LOWER_UP'],
];
const FLAG_ORDER = ['up', 'broadcast', 'loopback', 'pointtopoint', 'multicast', 'running'];

export function wireFlags(ipFlags: readonly string[]): string[] {
  const names = new Set(ipFlags.flatMap((flag) => FLAG_NAMES[flag] ?? []));
  return FLAG_ORDER.filter((flag) => names.has(flag));
}

/** Links from `ip -j -d addr`, or rebuilt from sysfs when ip is not there. */
export async function readLinks(probe: InventoryProbe): Promise<IpLink[]> {
  const output = await probe.tool('ip', ['-j', '-d', 'addr', 'show'], 'interfaces come from /sys/class/net and /proc/net');
  if (output !== undefined) {
    try {
      return parseIpAddr(output);
    } catch (error) {
      probe.warnOnce('ip-parse', 'ip addr output could not be read; interfaces come from /sys/class/net', { error: String(error) });
    }
  }
  return linksFromSysfs(probe);
}

async function linksFromSysfs(probe: InventoryProbe): Promise<IpLink[]> {
  const inet6 = parseProcIfInet6((await probe.files.text('/proc/net/if_inet6')) ?? '');
  // IPv4 addresses are not in sysfs; the process's own view is right only for the real host.
  const ownView = probe.files.resolve('/') === '/' ? networkInterfaces() : {};
  const links: IpLink[] = [];
  for (const name of await probe.files.list('/sys/class/net')) {
    const base = `/sys/class/net/${name}`;
    const index = Number((await probe.files.value(`${base}/ifindex`)) ?? NaN);
    const flagBits = Number.parseInt((await probe.files.value(`${base}/flags`)) ?? '0', 16);
    const carrier = (await probe.files.value(`${base}/carrier`)) === '1';
    const flags = IFF_BITS.filter(([bit, flag]) => (flag === 'LOWER_UP' ? carrier : (flagBits & bit) !== 0)).map(([, flag]) => flag);
    const v4 = (ownView[name] ?? [])
      .filter((address) => address.family === 'IPv4')
      .map((address) => ({ family: 4 as const, address: address.address, prefixLength: Number(address.cidr?.split('/')[1] ?? 32) }));
    const v6 = inet6
      .filter((address) => address.device === name)
      .map((address) => ({ family: 6 as const, address: address.address, prefixLength: address.prefixLength, scope: address.scope }));
    const isBond = await probe.files.exists(`${base}/bonding`);
    const isVlan = (await probe.files.text('/proc/net/vlan/config'))?.split('\n').some((line) => line.split('|')[0]?.trim() === name) ?? false;
    links.push({
      index: Number.isFinite(index) ? index : links.length + 1,
      name,
      flags,
      mtu: Number((await probe.files.value(`${base}/mtu`)) ?? NaN) || undefined,
      operstate: (await probe.files.value(`${base}/operstate`))?.toUpperCase(),
      macAddress: (await probe.files.value(`${base}/address`))?.toLowerCase(),
      kind: isBond ? 'bond' : isVlan ? 'vlan' : undefined,
      addresses: [...v4, ...v6],
    });
  }
  return links;
}

/** Physical NICs, bonds and VLANs (what upstream reports; bridges, veths and tunnels are left out). */
export async function interfaceType(probe: InventoryProbe, link: IpLink): Promise<string | undefined> {
  if (link.kind === 'bond' || link.kind === 'vlan') return link.kind;
  if (link.linkType === 'loopback' || link.flags.includes('LOOPBACK')) return undefined;
  const device = await probe.files.canonical(`/sys/class/net/${link.name}`);
  if (device === undefined) {
    // No sysfs (fake or restricted tree): a link with no kind from netlink is a plain device.
    return link.kind === undefined ? 'physical' : undefined;
  }
  return device.includes('/virtual/') ? undefined : 'physical';
}

const isLinkLocalV6 = (address: string) => /^fe[89ab][0-9a-f]:/i.test(address);

export async function collectInterfaces(probe: InventoryProbe, links: readonly IpLink[]): Promise<Interface[]> {
  const interfaces: Interface[] = [];
  for (const link of links) {
    const type = await interfaceType(probe, link);
    if (!type) continue;
    const base = `/sys/class/net/${link.name}`;
    const speed = Number.parseInt((await probe.files.value(`${base}/speed`)) ?? '', 10);
    const carrier = await probe.files.value(`${base}/carrier`);
    const biosdevname = await biosDevname(probe, link.name);
    interfaces.push({
      name: link.name,
      mac_address: link.permanentMac ?? link.macAddress ?? '',
      ipv4_addresses: link.addresses.filter((address) => address.family === 4).map((address) => `${address.address}/${address.prefixLength}`),
      ipv6_addresses: link.addresses
        .filter((address) => address.family === 6 && !isLinkLocalV6(address.address))
        .map((address) => `${address.address}/${address.prefixLength}`),
      // The kernel answers -1 (or nothing) for links without a negotiated speed, e.g. virtio.
      speed_mbps: Number.isFinite(speed) && speed > 0 ? speed : -1,
      mtu: link.mtu ?? 0,
      flags: wireFlags(link.flags),
      has_carrier: carrier !== undefined ? carrier === '1' : link.flags.includes('LOWER_UP'),
      type,
      ...optional('vendor', await probe.files.value(`${base}/device/vendor`)),
      ...optional('product', await probe.files.value(`${base}/device/device`)),
      ...optional('biosdevname', biosdevname),
    });
  }
  return interfaces;
}

/** biosdevname is absent from most hosts and only names Dell-style NICs: its absence is not worth a warning. */
async function biosDevname(probe: InventoryProbe, name: string): Promise<string | undefined> {
  const result = await probe.exec('biosdevname', ['-i', name], { timeoutMs: 5_000 });
  if (result.missing) {
    probe.log.debug('biosdevname is not installed; interfaces carry no BIOS device name');
    return undefined;
  }
  return result.exitCode === 0 ? result.stdout.trim() || undefined : undefined;
}

function toWireRoute(route: IpRoute): Route | undefined {
  const device = route.device;
  // Unreachable/blackhole routes have no device and say nothing about reachability through a NIC.
  if (!device) return undefined;
  const destination = route.destination === 'default' ? (route.family === 4 ? '0.0.0.0' : '::') : (route.destination.split('/')[0] ?? route.destination);
  return {
    destination,
    ...(route.gateway ? { gateway: route.gateway } : {}),
    interface: device,
    family: route.family === 4 ? AF_INET : AF_INET6,
    metric: route.metric ?? 0,
  };
}

export async function collectRoutes(probe: InventoryProbe): Promise<Route[]> {
  const routes: IpRoute[] = [];
  for (const family of [4, 6] as const) {
    const args = family === 4 ? ['-j', '-4', 'route', 'show', 'table', 'main'] : ['-j', '-6', 'route', 'show', 'table', 'main'];
    const output = await probe.tool('ip', args, 'routes come from /proc/net');
    let parsed: IpRoute[] | undefined;
    if (output !== undefined) {
      try {
        parsed = parseIpRoute(output, family);
      } catch (error) {
        probe.warnOnce('ip-route-parse', 'ip route output could not be read; routes come from /proc/net', { error: String(error) });
      }
    }
    if (!parsed) {
      parsed =
        family === 4
          ? parseProcIpv4Routes((await probe.files.text('/proc/net/route')) ?? '')
          : parseProcIpv6Routes((await probe.files.text('/proc/net/ipv6_route')) ?? '');
    }
    routes.push(...parsed);
  }
  return routes.flatMap((route) => toWireRoute(route) ?? []);
}
