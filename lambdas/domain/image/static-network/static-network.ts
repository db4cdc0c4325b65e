/**
 * Static networking for discovery images: reads the nmstate YAML of each `static_network_config`
 * entry and turns it into NetworkManager keyfiles plus the boot script that installs them.
 * Upstream hands the YAML to the nmstate library; there is none for Node, so we convert a
 * documented subset ourselves and refuse everything else with a reason naming the field, rather
 * than silently producing a different network than the user asked for. Pure: no I/O.
 *
 * Supported subset (docs/static-networking.md has the same table with an example):
 *   top level       interfaces (required), dns-resolver.config.{server, search}, routes.config
 *   interface       name (1–15 of [A-Za-z0-9_.-]), type ethernet | bond | vlan, state up | down | absent
 *                   (default up), mac-address, mtu (68–65535), ipv4, ipv6, description (ignored)
 *   ipv4 / ipv6     enabled, dhcp, autoconf (ipv6 only), address [{ip, prefix-length}],
 *                   auto-dns, auto-gateway, auto-routes
 *   bond            link-aggregation: {mode, port (or the older slaves), options: miimon, updelay,
 *                   downdelay, lacp_rate, xmit_hash_policy}; ports must be declared ethernet interfaces
 *   vlan            vlan: {base-iface (a declared ethernet or bond), id 0–4094}
 *   routes          {destination (network CIDR), next-hop-interface (required), next-hop-address,
 *                   metric, table-id}
 * Anything else (linux-bridge, ovs, ethtool, route rules, unknown keys...) is a StaticNetworkError.
 */
import { isJsonObject } from '../../../../contracts/json-shapes.js';
import { nmKeyfiles } from './static-network-keyfiles.js';
import { MAC_ADDRESS, parseNmstate, StaticNetworkError, type NmstateModel } from './static-network-nmstate.js';
import { PRE_NETWORK_SCRIPT, PRE_NETWORK_SCRIPT_PATH } from './static-network-script.js';

export * from './static-network-nmstate.js';
export { connectionUuid, nmKeyfiles, type Keyfile } from './static-network-keyfiles.js';
export { PRE_NETWORK_SCRIPT, PRE_NETWORK_SCRIPT_PATH } from './static-network-script.js';

// ---- the static_network_config entries of an infra-env

export interface StaticNetworkEntry {
  network_yaml: string;
  mac_interface_map?: { mac_address: string; logical_nic_name?: string }[];
}

export interface StaticNetworkFile {
  path: string;
  contents: string;
  mode: number;
}

/** Where the per-host files are staged in the discovery image (upstream's layout). */
export const STATIC_NETWORK_DIR = '/etc/assisted/network';
const LOGICAL_NIC = /^[A-Za-z0-9_-]{1,15}$/;

/** An entry of the shape staticNetworkConfigProblem reads (it still judges the YAML and the names). */
export function isStaticNetworkEntry(value: unknown): value is StaticNetworkEntry {
  if (!isJsonObject(value) || typeof value.network_yaml !== 'string') return false;
  const map = value.mac_interface_map;
  if (map === undefined) return true;
  return Array.isArray(map) && map.every((item) => isJsonObject(item) && typeof item.mac_address === 'string' && ['string', 'undefined'].includes(typeof item.logical_nic_name));
}

/** Why the entries cannot be used, naming the entry index and field; undefined when they can. */
export function staticNetworkConfigProblem(entries: readonly unknown[]): string | undefined {
  const hostOfMac = new Map<string, number>();
  for (const [index, entry] of entries.entries()) {
    const where = `static_network_config[${index}]`;
    const fields = isJsonObject(entry) ? entry : {};
    const { network_yaml: networkYaml, mac_interface_map: map = [] } = fields;
    if (typeof networkYaml !== 'string') return `${where}.network_yaml must be a string of nmstate YAML`;
    if (!Array.isArray(map)) return `${where}.mac_interface_map must be a list`;
    let model: NmstateModel;
    try {
      model = parseNmstate(networkYaml);
    } catch (error) {
      if (error instanceof StaticNetworkError) return `${where}.network_yaml: ${error.message}`;
      throw error;
    }
    // Without a MAC the boot script can never tell which machine this entry is for.
    if (map.length === 0) return `${where}.mac_interface_map must map at least one MAC address to an interface name`;
    const names = new Set<string>();
    for (const [itemIndex, item] of map.entries()) {
      const path = `${where}.mac_interface_map[${itemIndex}]`;
      const { mac_address: macAddress, logical_nic_name: name } = isJsonObject(item) ? item : {};
      if (typeof macAddress !== 'string' || !MAC_ADDRESS.test(macAddress)) return `${path}.mac_address "${macAddress}" is not a MAC address such as 52:54:00:12:34:56`;
      if (typeof name !== 'string' || !LOGICAL_NIC.test(name)) return `${path}.logical_nic_name "${name ?? ''}" must be 1–15 letters, digits, '_' or '-'`;
      if (names.has(name)) return `${path}.logical_nic_name "${name}" is mapped more than once for this host`;
      names.add(name);
      const mac = macAddress.toLowerCase();
      const owner = hostOfMac.get(mac);
      if (owner !== undefined) return `${path}.mac_address ${macAddress} is already mapped by static_network_config[${owner}]`;
      hostOfMac.set(mac, index);
      const named = model.interfaces.find((iface) => iface.name === name);
      // The boot script renames logical names to real NICs; a bond or vlan name must never be renamed.
      if (named && named.type !== 'ethernet') return `${path}.logical_nic_name "${name}" is a ${named.type} in network_yaml; map MAC addresses to ethernet interfaces only`;
      if (named?.macAddress && named.macAddress !== macAddress.toUpperCase()) {
        return `${path}.mac_address ${macAddress} contradicts the mac-address ${named.macAddress} that network_yaml gives ${name}`;
      }
    }
  }
  return undefined;
}

/**
 * The files a discovery image needs for these entries: per host `host<i>/<iface>.nmconnection` and
 * `host<i>/mac_interface.ini` under STATIC_NETWORK_DIR (0600: NetworkManager ignores keyfiles others
 * can read), plus the boot script. Throws StaticNetworkError for entries that fail validation.
 */
export function staticNetworkFiles(entries: readonly StaticNetworkEntry[]): StaticNetworkFile[] {
  if (entries.length === 0) return [];
  const problem = staticNetworkConfigProblem(entries);
  if (problem) throw new StaticNetworkError('', problem);
  const files: StaticNetworkFile[] = [];
  for (const [index, entry] of entries.entries()) {
    const dir = `${STATIC_NETWORK_DIR}/host${index}`;
    const macByNic = Object.fromEntries((entry.mac_interface_map ?? []).map((item) => [item.logical_nic_name!, item.mac_address.toLowerCase()]));
    for (const keyfile of nmKeyfiles(parseNmstate(entry.network_yaml), macByNic, index)) {
      files.push({ path: `${dir}/${keyfile.name}`, contents: keyfile.contents, mode: 0o600 });
    }
    const lines = Object.entries(macByNic).map(([nic, mac]) => `${mac}=${nic}\n`).sort();
    files.push({ path: `${dir}/mac_interface.ini`, contents: lines.join(''), mode: 0o600 });
  }
  files.push({ path: PRE_NETWORK_SCRIPT_PATH, contents: PRE_NETWORK_SCRIPT, mode: 0o755 });
  return files;
}
