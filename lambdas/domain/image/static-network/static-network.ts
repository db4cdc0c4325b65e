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
import { nmKeyfiles } from './static-network-keyfiles.js';
import { parseNmstate, StaticNetworkError } from '../../../../contracts/nmstate.js';
import { staticNetworkConfigProblem, type StaticNetworkEntry } from '../../../../contracts/static-network-config.js';
import { PRE_NETWORK_SCRIPT, PRE_NETWORK_SCRIPT_PATH } from './static-network-script.js';

// The input checks live with the wire (contracts/), which the CLI shares; the domain's readers keep
// importing them from here.
export * from '../../../../contracts/nmstate.js';
export * from '../../../../contracts/static-network-config.js';
export { connectionUuid, nmKeyfiles, type Keyfile } from './static-network-keyfiles.js';
export { PRE_NETWORK_SCRIPT, PRE_NETWORK_SCRIPT_PATH } from './static-network-script.js';

// ---- the static_network_config entries of an infra-env

export interface StaticNetworkFile {
  path: string;
  contents: string;
  mode: number;
}

/** Where the per-host files are staged in the discovery image (upstream's layout). */
export const STATIC_NETWORK_DIR = '/etc/assisted/network';

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
    const lines = Object.entries(macByNic)
      .map(([nic, mac]) => `${mac}=${nic}\n`)
      .sort();
    files.push({ path: `${dir}/mac_interface.ini`, contents: lines.join(''), mode: 0o600 });
  }
  files.push({ path: PRE_NETWORK_SCRIPT_PATH, contents: PRE_NETWORK_SCRIPT, mode: 0o755 });
  return files;
}
