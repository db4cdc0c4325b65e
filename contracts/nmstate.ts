/**
 * The nmstate subset we understand (listed in static-network.ts and docs/static-networking.md),
 * parsed into a typed model with every cross-reference checked: bond ports, vlan bases, route
 * interfaces, where DNS goes. Errors name the field path, as `interfaces[1].ipv4.address[0].ip`.
 */
import { parse as parseYaml } from 'yaml';
import { isJsonObject } from './json-shapes.js';
import { ipFamily, parseCidr } from './input-checks.js';

/** Invalid or unsupported nmstate input; the message starts with the field path. */
export class StaticNetworkError extends Error {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(path ? `${path} ${reason}` : reason);
    this.name = 'StaticNetworkError';
  }
}

export const INTERFACE_TYPES = ['ethernet', 'bond', 'vlan'] as const;
export type InterfaceType = (typeof INTERFACE_TYPES)[number];
export type InterfaceState = 'up' | 'down' | 'absent';
export const BOND_MODES = ['balance-rr', 'active-backup', 'balance-xor', 'broadcast', '802.3ad', 'balance-tlb', 'balance-alb'] as const;

export interface IpAddress {
  ip: string;
  prefixLength: number;
}

export interface IpConfig {
  enabled: boolean;
  dhcp: boolean;
  /** IPv6 router advertisements (SLAAC); always false for IPv4. */
  autoconf: boolean;
  addresses: IpAddress[];
  autoDns: boolean;
  autoGateway: boolean;
  autoRoutes: boolean;
}

export interface Route {
  family: 4 | 6;
  /** Network CIDR, host bits clear. */
  destination: string;
  nextHopInterface: string;
  nextHopAddress?: string;
  metric?: number;
  tableId?: number;
}

export interface NetworkInterface {
  name: string;
  type: InterfaceType;
  state: InterfaceState;
  macAddress?: string;
  mtu?: number;
  ipv4: IpConfig;
  ipv6: IpConfig;
  bond?: { mode: string; ports: string[]; options: [string, string][] };
  vlan?: { baseIface: string; id: number };
  /** Set on bond ports: the bond that owns this interface. */
  controller?: string;
  routes: Route[];
  /** DNS servers and search domains this interface's profile carries, per family. */
  dns: { 4: string[]; 6: string[]; search: string[] };
}

export interface NmstateModel {
  interfaces: NetworkInterface[];
}

type Mapping = Record<string, unknown>;

const KEYS = {
  top: ['interfaces', 'dns-resolver', 'routes'],
  interface: ['name', 'type', 'state', 'mac-address', 'mtu', 'ipv4', 'ipv6', 'link-aggregation', 'vlan', 'description'],
  ipv4: ['enabled', 'dhcp', 'address', 'auto-dns', 'auto-gateway', 'auto-routes'],
  ipv6: ['enabled', 'dhcp', 'autoconf', 'address', 'auto-dns', 'auto-gateway', 'auto-routes'],
  address: ['ip', 'prefix-length'],
  linkAggregation: ['mode', 'port', 'slaves', 'options'],
  bondOptions: ['miimon', 'updelay', 'downdelay', 'lacp_rate', 'xmit_hash_policy'],
  vlan: ['base-iface', 'id'],
  dnsResolver: ['config'],
  dnsConfig: ['server', 'search'],
  routes: ['config'],
  route: ['destination', 'next-hop-interface', 'next-hop-address', 'metric', 'table-id'],
} as const;

const NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,14}$/;
export const MAC_ADDRESS = /^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$/;
const DOMAIN = /^(?=.{1,253}$)([A-Za-z0-9_]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9_]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.?$/;
const MAX_U32 = 4_294_967_295;

function fail(path: string, reason: string): never {
  throw new StaticNetworkError(path, reason);
}

function mapping(value: unknown, path: string, allowed: readonly string[], what: string): Mapping {
  if (!isJsonObject(value)) fail(path, 'must be a mapping');
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) fail(join(path, key), `is not supported; supported keys of ${what}: ${allowed.join(', ')}`);
  }
  return value;
}

function list(value: unknown, path: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) fail(path, 'must be a list');
  return value;
}

function text(value: unknown, path: string): string {
  if (typeof value !== 'string' || value.trim() === '') fail(path, 'must be a non-empty string');
  return value.trim();
}

/** nmstate accepts integers written as strings too ("24"), so do we. */
function integer(value: unknown, path: string, min: number, max: number): number {
  const number = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < min || number > max) fail(path, `must be ${min}–${max}`);
  return number;
}

function flag(value: unknown, path: string, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') fail(path, 'must be true or false');
  return value;
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

function ipConfig(value: unknown, path: string, family: 4 | 6): IpConfig {
  const node = value === undefined || value === null ? {} : mapping(value, path, family === 4 ? KEYS.ipv4 : KEYS.ipv6, `ipv${family}`);
  const max = family === 4 ? 32 : 128;
  const addresses = list(node.address, `${path}.address`).map((item, index) => {
    const where = `${path}.address[${index}]`;
    const address = mapping(item, where, KEYS.address, 'an address');
    const ip = text(address.ip, `${where}.ip`);
    if (ipFamily(ip) !== family) fail(`${where}.ip`, `"${ip}" is not an IPv${family} address`);
    return { ip, prefixLength: integer(address['prefix-length'], `${where}.prefix-length`, 0, max) };
  });
  const dhcp = flag(node.dhcp, `${path}.dhcp`, false);
  const autoconf = family === 6 && flag(node.autoconf, `${path}.autoconf`, false);
  // As nmstate: without an explicit "enabled", asking for DHCP or addresses enables the family.
  const enabled = flag(node.enabled, `${path}.enabled`, dhcp || autoconf || addresses.length > 0);
  const config: IpConfig = {
    enabled,
    dhcp,
    autoconf,
    addresses,
    autoDns: flag(node['auto-dns'], `${path}.auto-dns`, true),
    autoGateway: flag(node['auto-gateway'], `${path}.auto-gateway`, true),
    autoRoutes: flag(node['auto-routes'], `${path}.auto-routes`, true),
  };
  if (!enabled) return { ...config, dhcp: false, autoconf: false, addresses: [] };
  // NetworkManager cannot do SLAAC without DHCPv6 fallback in one method; nmstate refuses it too.
  if (config.autoconf && !config.dhcp) fail(`${path}.autoconf`, 'requires dhcp: true as well (SLAAC without DHCPv6 is not supported)');
  // NetworkManager refuses a "manual" IPv4 profile without addresses.
  if (family === 4 && !config.dhcp && addresses.length === 0) fail(path, 'is enabled but has neither dhcp: true nor an address');
  return config;
}

function bondSection(value: unknown, path: string): NonNullable<NetworkInterface['bond']> {
  const node = mapping(value, path, KEYS.linkAggregation, 'link-aggregation');
  const mode = text(node.mode, `${path}.mode`);
  if (!(BOND_MODES as readonly string[]).includes(mode)) fail(`${path}.mode`, `"${mode}" is not one of ${BOND_MODES.join(', ')}`);
  if (node.port !== undefined && node.slaves !== undefined) fail(path, 'must list its ports under port or slaves, not both');
  const portKey = node.port !== undefined ? 'port' : 'slaves';
  const ports = list(node[portKey], `${path}.${portKey}`).map((port, index) => text(port, `${path}.${portKey}[${index}]`));
  const options: [string, string][] = [];
  const given = node.options === undefined || node.options === null ? {} : mapping(node.options, `${path}.options`, KEYS.bondOptions, 'bond options');
  for (const [key, raw] of Object.entries(given)) {
    const where = `${path}.options.${key}`;
    if (key === 'lacp_rate') {
      const rate = String(raw);
      if (!['slow', 'fast', '0', '1'].includes(rate)) fail(where, 'must be slow or fast');
      options.push([key, rate]);
    } else if (key === 'xmit_hash_policy') {
      const policy = text(raw, where);
      if (!['layer2', 'layer2+3', 'layer3+4', 'encap2+3', 'encap3+4', 'vlan+srcmac'].includes(policy)) fail(where, `"${policy}" is not a known hash policy`);
      options.push([key, policy]);
    } else {
      options.push([key, String(integer(raw, where, 0, 2_147_483_647))]);
    }
  }
  return { mode, ports, options };
}

function parseInterface(value: unknown, path: string): NetworkInterface {
  const node = mapping(value, path, KEYS.interface, 'an interface');
  const name = text(node.name, `${path}.name`);
  if (!NAME.test(name)) fail(`${path}.name`, `"${name}" must be 1–15 letters, digits, '_', '-' or '.', not starting with '.' or '-'`);
  const typeText = text(node.type, `${path}.type`);
  const type = INTERFACE_TYPES.find((known) => known === typeText);
  if (type === undefined) fail(`${path}.type`, `"${typeText}" is not supported; supported types: ${INTERFACE_TYPES.join(', ')}`);
  const state = node.state === undefined ? 'up' : text(node.state, `${path}.state`);
  if (state !== 'up' && state !== 'down' && state !== 'absent') fail(`${path}.state`, 'must be up, down or absent');
  const iface: NetworkInterface = {
    name,
    type,
    state,
    ipv4: ipConfig(node.ipv4, `${path}.ipv4`, 4),
    ipv6: ipConfig(node.ipv6, `${path}.ipv6`, 6),
    routes: [],
    dns: { 4: [], 6: [], search: [] },
  };
  if (node['mac-address'] !== undefined) {
    const mac = text(node['mac-address'], `${path}.mac-address`);
    if (!MAC_ADDRESS.test(mac)) fail(`${path}.mac-address`, `"${mac}" is not a MAC address such as 52:54:00:12:34:56`);
    iface.macAddress = mac.toUpperCase();
  }
  if (node.mtu !== undefined) iface.mtu = integer(node.mtu, `${path}.mtu`, 68, 65535);
  if (type === 'bond') {
    if (node['link-aggregation'] === undefined) fail(path, 'is a bond but has no link-aggregation section');
    iface.bond = bondSection(node['link-aggregation'], `${path}.link-aggregation`);
  } else if (node['link-aggregation'] !== undefined) fail(`${path}.link-aggregation`, 'is only supported on bond interfaces');
  if (type === 'vlan') {
    const vlanPath = `${path}.vlan`;
    if (node.vlan === undefined) fail(path, 'is a vlan but has no vlan section');
    const vlan = mapping(node.vlan, vlanPath, KEYS.vlan, 'vlan');
    if (vlan['base-iface'] === undefined) fail(`${vlanPath}.base-iface`, 'is missing');
    iface.vlan = { baseIface: text(vlan['base-iface'], `${vlanPath}.base-iface`), id: integer(vlan.id, `${vlanPath}.id`, 0, 4094) };
  } else if (node.vlan !== undefined) fail(`${path}.vlan`, 'is only supported on vlan interfaces');
  return iface;
}

/** Bond ports and VLAN bases must be interfaces of this document, so the boot script can rename them. */
function linkInterfaces(interfaces: NetworkInterface[]): void {
  const byName = new Map(interfaces.map((iface) => [iface.name, iface]));
  for (const [index, iface] of interfaces.entries()) {
    if (iface.state === 'absent') continue;
    for (const [portIndex, port] of (iface.bond?.ports ?? []).entries()) {
      const where = `interfaces[${index}].link-aggregation.port[${portIndex}]`;
      const target = byName.get(port);
      if (!target || target.state === 'absent') fail(where, `"${port}" is not an interface of this document (declare it with type: ethernet)`);
      if (target.type !== 'ethernet') fail(where, `"${port}" must be an ethernet interface, not ${target.type}`);
      if (target.controller) fail(where, `"${port}" is already a port of ${target.controller}`);
      if (target.ipv4.enabled || target.ipv6.enabled) fail(where, `"${port}" has IP enabled; a bond port carries no addresses of its own`);
      target.controller = iface.name;
    }
  }
  for (const [index, iface] of interfaces.entries()) {
    if (!iface.vlan || iface.state === 'absent') continue;
    const where = `interfaces[${index}].vlan.base-iface`;
    const base = byName.get(iface.vlan.baseIface);
    if (!base || base.state === 'absent') fail(where, `"${iface.vlan.baseIface}" is not an interface of this document`);
    if (base.type === 'vlan') fail(where, `"${base.name}" is a vlan; a vlan's base must be an ethernet or bond interface`);
  }
}

function parseRoutes(value: unknown, interfaces: NetworkInterface[]): void {
  if (value === undefined || value === null) return;
  const node = mapping(value, 'routes', KEYS.routes, 'routes');
  for (const [index, item] of list(node.config, 'routes.config').entries()) {
    const path = `routes.config[${index}]`;
    const route = mapping(item, path, KEYS.route, 'a route');
    const destination = text(route.destination, `${path}.destination`);
    const cidr = parseCidr(destination);
    if (!cidr) fail(`${path}.destination`, `"${destination}" is not a CIDR such as 10.0.0.0/8 or fd00::/64`);
    // NetworkManager would mask the host bits itself; refusing says clearly what will be routed.
    if (!isNetworkAddress(destination, cidr.start, cidr.family)) fail(`${path}.destination`, `"${destination}" has host bits set; use the network address`);
    const ifaceName = text(route['next-hop-interface'], `${path}.next-hop-interface`);
    const iface = interfaces.find((candidate) => candidate.name === ifaceName && candidate.state !== 'absent');
    if (!iface) fail(`${path}.next-hop-interface`, `"${ifaceName}" is not an interface of this document`);
    if (iface.controller) fail(`${path}.next-hop-interface`, `"${ifaceName}" is a port of ${iface.controller}; route through the bond`);
    if (!(cidr.family === 4 ? iface.ipv4 : iface.ipv6).enabled) fail(`${path}.next-hop-interface`, `"${ifaceName}" does not have IPv${cidr.family} enabled`);
    const parsed: Route = { family: cidr.family, destination, nextHopInterface: ifaceName };
    if (route['next-hop-address'] !== undefined) {
      const hop = text(route['next-hop-address'], `${path}.next-hop-address`);
      if (ipFamily(hop) !== cidr.family) fail(`${path}.next-hop-address`, `"${hop}" is not an IPv${cidr.family} address like the destination`);
      parsed.nextHopAddress = hop;
    }
    if (route.metric !== undefined) parsed.metric = integer(route.metric, `${path}.metric`, 0, MAX_U32);
    if (route['table-id'] !== undefined) parsed.tableId = integer(route['table-id'], `${path}.table-id`, 0, MAX_U32);
    iface.routes.push(parsed);
  }
}

function isNetworkAddress(cidrText: string, start: bigint, family: 4 | 6): boolean {
  return parseCidr(`${cidrText.split('/')[0]}/${family === 4 ? 32 : 128}`)?.start === start;
}

/**
 * NetworkManager keeps DNS per profile, so each family's servers go to the interface holding that
 * family's default route, else to the first interface (document order) with the family enabled.
 */
function placeDns(value: unknown, interfaces: NetworkInterface[]): void {
  if (value === undefined || value === null) return;
  const node = mapping(value, 'dns-resolver', KEYS.dnsResolver, 'dns-resolver');
  if (node.config === undefined || node.config === null) return;
  const config = mapping(node.config, 'dns-resolver.config', KEYS.dnsConfig, 'dns-resolver.config');
  const holder = (family: 4 | 6) => {
    const carriers = interfaces.filter((iface) => iface.state !== 'absent' && !iface.controller && (family === 4 ? iface.ipv4 : iface.ipv6).enabled);
    const isDefault = (route: Route) => route.family === family && /\/0$/.test(route.destination);
    return carriers.find((iface) => iface.routes.some(isDefault)) ?? carriers[0];
  };
  for (const [index, item] of list(config.server, 'dns-resolver.config.server').entries()) {
    const path = `dns-resolver.config.server[${index}]`;
    const server = text(item, path);
    const family = ipFamily(server);
    if (!family) fail(path, `"${server}" is not an IP address`);
    const iface = holder(family);
    if (!iface) fail(path, `"${server}" is IPv${family} but no interface has IPv${family} enabled`);
    iface.dns[family].push(server);
  }
  const searches = list(config.search, 'dns-resolver.config.search').map((item, index) => {
    const domain = text(item, `dns-resolver.config.search[${index}]`);
    if (!DOMAIN.test(domain)) fail(`dns-resolver.config.search[${index}]`, `"${domain}" is not a domain name`);
    return domain;
  });
  if (searches.length === 0) return;
  const iface = holder(4) ?? holder(6);
  if (!iface) fail('dns-resolver.config.search', 'needs an interface with IPv4 or IPv6 enabled');
  iface.dns.search.push(...searches);
}

/** Parses one nmstate document of the supported subset; throws StaticNetworkError. */
export function parseNmstate(yamlText: string): NmstateModel {
  let document: unknown;
  try {
    document = parseYaml(yamlText);
  } catch (error) {
    fail('', `not valid YAML: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}`);
  }
  if (!document || typeof document !== 'object' || Array.isArray(document)) fail('', 'the nmstate document must be a mapping with an "interfaces" list');
  const top = mapping(document, '', KEYS.top, 'an nmstate document');
  const items = list(top.interfaces, 'interfaces');
  if (items.length === 0) fail('interfaces', 'must list at least one interface');
  const interfaces = items.map((item, index) => parseInterface(item, `interfaces[${index}]`));
  const seen = new Map<string, number>();
  for (const [index, iface] of interfaces.entries()) {
    const first = seen.get(iface.name);
    if (first !== undefined) fail(`interfaces[${index}].name`, `"${iface.name}" is already declared by interfaces[${first}]`);
    seen.set(iface.name, index);
  }
  linkInterfaces(interfaces);
  parseRoutes(top.routes, interfaces);
  placeDns(top['dns-resolver'], interfaces);
  return { interfaces };
}
