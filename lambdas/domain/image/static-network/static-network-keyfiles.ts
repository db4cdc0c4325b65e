/**
 * NetworkManager keyfiles (`man nm-settings-keyfile`) for a parsed nmstate document: one
 * `<interface>.nmconnection` per interface that is not `state: absent`, in document order. The
 * output is deterministic (same input, same bytes), so images built twice are identical.
 */
import { createHash } from 'node:crypto';
import type { IpConfig, NetworkInterface, NmstateModel, Route } from '../../../../contracts/nmstate.js';

export interface Keyfile {
  name: string;
  contents: string;
}

type Section = [string, [string, string | number][]];

/** Our own namespace for name-based (version 5) connection UUIDs. */
const UUID_NAMESPACE = Buffer.from('3f0c9a52a4e64d3b8c51d2b7e06a9f14', 'hex');

/**
 * A stable UUID per host entry and interface: NetworkManager needs one per profile, and a bond port
 * refers to its bond by it, so it must be the same every time the image is generated.
 */
export function connectionUuid(hostIndex: number, interfaceName: string): string {
  const hash = createHash('sha1').update(UUID_NAMESPACE).update(`host${hostIndex}/${interfaceName}`).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** NetworkManager's `dest/prefix[,gateway[,metric]]`; a metric needs a gateway field, and 0.0.0.0/:: means none. */
function routeValue(route: Route): string {
  if (route.metric !== undefined) return `${route.destination},${route.nextHopAddress ?? (route.family === 4 ? '0.0.0.0' : '::')},${route.metric}`;
  return route.nextHopAddress ? `${route.destination},${route.nextHopAddress}` : route.destination;
}

function ipMethod(config: IpConfig, family: 4 | 6): string {
  if (!config.enabled) return 'disabled';
  if (family === 4) return config.dhcp ? 'auto' : 'manual';
  if (config.dhcp) return config.autoconf ? 'auto' : 'dhcp';
  return config.addresses.length > 0 ? 'manual' : 'link-local';
}

function ipSection(iface: NetworkInterface, family: 4 | 6): Section {
  const config = family === 4 ? iface.ipv4 : iface.ipv6;
  const method = ipMethod(config, family);
  const keys: Section[1] = [['method', method]];
  for (const [index, address] of config.addresses.entries()) keys.push([`address${index + 1}`, `${address.ip}/${address.prefixLength}`]);
  // Keyfile lists are ';'-terminated.
  if (iface.dns[family].length > 0) keys.push(['dns', `${iface.dns[family].join(';')};`]);
  const searchFamily = iface.ipv4.enabled ? 4 : 6;
  if (family === searchFamily && iface.dns.search.length > 0) keys.push(['dns-search', `${iface.dns.search.join(';')};`]);
  // The auto-* switches only mean something when the address comes from DHCP or router adverts.
  if (method === 'auto' || method === 'dhcp') {
    if (!config.autoDns) keys.push(['ignore-auto-dns', 'true']);
    if (!config.autoRoutes) keys.push(['ignore-auto-routes', 'true']);
    if (!config.autoGateway) keys.push(['never-default', 'true']);
  }
  iface.routes
    .filter((route) => route.family === family)
    .forEach((route, index) => {
      keys.push([`route${index + 1}`, routeValue(route)]);
      if (route.tableId) keys.push([`route${index + 1}_options`, `table=${route.tableId}`]);
    });
  return [family === 4 ? 'ipv4' : 'ipv6', keys];
}

function keyfileFor(iface: NetworkInterface, macByNic: Readonly<Record<string, string>>, hostIndex: number): Keyfile {
  const connection: Section[1] = [
    ['id', iface.name],
    ['uuid', connectionUuid(hostIndex, iface.name)],
    ['type', iface.type],
    ['interface-name', iface.name],
    ['autoconnect', iface.state === 'up' ? 'true' : 'false'],
    // As upstream: outrank the default "Wired connection" profiles NetworkManager creates.
    ['autoconnect-priority', 1],
  ];
  if (iface.type === 'bond') connection.push(['autoconnect-slaves', 1]);
  if (iface.controller) connection.push(['master', connectionUuid(hostIndex, iface.controller)], ['slave-type', 'bond']);
  const sections: Section[] = [['connection', connection]];

  const ethernet: Section[1] = [];
  // An ethernet profile is pinned to its NIC's MAC (from the YAML, else from mac_interface_map), so
  // if the boot script cannot rename a logical name it never binds to another NIC of that name.
  // For bonds and vlans a MAC sets the device's address instead.
  const mac = iface.macAddress ?? (iface.type === 'ethernet' ? macByNic[iface.name]?.toUpperCase() : undefined);
  if (mac) ethernet.push([iface.type === 'ethernet' ? 'mac-address' : 'cloned-mac-address', mac]);
  if (iface.mtu !== undefined) ethernet.push(['mtu', iface.mtu]);
  if (ethernet.length > 0) sections.push(['ethernet', ethernet]);

  if (iface.bond) sections.push(['bond', [['mode', iface.bond.mode], ...iface.bond.options]]);
  if (iface.vlan)
    sections.push([
      'vlan',
      [
        ['id', iface.vlan.id],
        ['parent', iface.vlan.baseIface],
      ],
    ]);
  // A bond port carries no IP configuration of its own.
  if (!iface.controller) sections.push(ipSection(iface, 4), ipSection(iface, 6));

  const contents = sections.map(([name, keys]) => `[${name}]\n${keys.map(([key, value]) => `${key}=${value}\n`).join('')}`).join('\n');
  return { name: `${iface.name}.nmconnection`, contents };
}

/**
 * Keyfiles for one host entry. `nicNameMap` maps logical NIC names to MAC addresses (the entry's
 * mac_interface_map); `hostIndex` is the entry's position, which seeds the connection UUIDs.
 */
export function nmKeyfiles(model: NmstateModel, nicNameMap: Readonly<Record<string, string>> = {}, hostIndex = 0): Keyfile[] {
  return model.interfaces.filter((iface) => iface.state !== 'absent').map((iface) => keyfileFor(iface, nicNameMap, hostIndex));
}
