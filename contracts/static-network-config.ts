/**
 * The `static_network_config` entries of an infra-env, checked as input: each entry's nmstate YAML
 * parses (./nmstate.ts) and its MAC-to-interface map is sound. The service refuses a request whose
 * entries fail; the CLI (cli/ztp/) checks NMStateConfig manifests with the same rules before it
 * sends them. Turning the entries into NetworkManager files is the domain's business
 * (lambdas/domain/image/static-network/). Pure: no I/O.
 */
import { isJsonObject } from './json-shapes.js';
import { MAC_ADDRESS, parseNmstate, StaticNetworkError, type NmstateModel } from './nmstate.js';

export interface StaticNetworkEntry {
  network_yaml: string;
  mac_interface_map?: { mac_address: string; logical_nic_name?: string }[];
}

const LOGICAL_NIC = /^[A-Za-z0-9_-]{1,15}$/;

/** An entry of the shape staticNetworkConfigProblem reads (it still judges the YAML and the names). */
export function isStaticNetworkEntry(value: unknown): value is StaticNetworkEntry {
  if (!isJsonObject(value) || typeof value.network_yaml !== 'string') return false;
  const map = value.mac_interface_map;
  if (map === undefined) return true;
  return (
    Array.isArray(map) &&
    map.every((item) => isJsonObject(item) && typeof item.mac_address === 'string' && ['string', 'undefined'].includes(typeof item.logical_nic_name))
  );
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
      if (typeof macAddress !== 'string' || !MAC_ADDRESS.test(macAddress))
        return `${path}.mac_address "${macAddress}" is not a MAC address such as 52:54:00:12:34:56`;
      if (typeof name !== 'string' || !LOGICAL_NIC.test(name)) return `${path}.logical_nic_name "${name ?? ''}" must be 1–15 letters, digits, '_' or '-'`;
      if (names.has(name)) return `${path}.logical_nic_name "${name}" is mapped more than once for this host`;
      names.add(name);
      const mac = macAddress.toLowerCase();
      const owner = hostOfMac.get(mac);
      if (owner !== undefined) return `${path}.mac_address ${macAddress} is already mapped by static_network_config[${owner}]`;
      hostOfMac.set(mac, index);
      const named = model.interfaces.find((iface) => iface.name === name);
      // The boot script renames logical names to real NICs; a bond or vlan name must never be renamed.
      if (named && named.type !== 'ethernet')
        return `${path}.logical_nic_name "${name}" is a ${named.type} in network_yaml; map MAC addresses to ethernet interfaces only`;
      if (named?.macAddress && named.macAddress !== macAddress.toUpperCase()) {
        return `${path}.mac_address ${macAddress} contradicts the mac-address ${named.macAddress} that network_yaml gives ${name}`;
      }
    }
  }
  return undefined;
}

/**
 * An infra-env's stored `static_network_config` (the JSON text of its entries) as a value to compare
 * with wanted entries: [] when there is none, the text itself when it is not JSON.
 */
export function storedStaticNetworkConfig(text: string | null | undefined): unknown {
  if (!text) return [];
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
