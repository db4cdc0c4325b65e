/** `ip -j -d addr show` and `ip -j route show` (iproute2 JSON). */
import { finite, nonEmptyText } from '../../../contracts/json-shapes.js';

export interface IpAddress {
  readonly family: 4 | 6;
  readonly address: string;
  readonly prefixLength: number;
  readonly scope?: string;
}

export interface IpLink {
  readonly index: number;
  readonly name: string;
  /** Kernel flags as ip prints them: UP, BROADCAST, LOWER_UP... */
  readonly flags: readonly string[];
  readonly mtu?: number;
  readonly operstate?: string;
  /** ether, loopback, none... */
  readonly linkType?: string;
  readonly macAddress?: string;
  /** Only with -d: veth, bond, vlan, bridge, macvlan... (absent for plain devices). */
  readonly kind?: string;
  /** A bond member's own MAC (its current one is the bond's). */
  readonly permanentMac?: string;
  readonly addresses: readonly IpAddress[];
}

export interface IpRoute {
  readonly family: 4 | 6;
  /** "default" or a prefix such as 192.0.2.0/24 or a bare address for host routes. */
  readonly destination: string;
  readonly gateway?: string;
  readonly device?: string;
  readonly metric?: number;
  readonly protocol?: string;
  readonly scope?: string;
  readonly preferredSource?: string;
}

const list = (output: string, what: string): Record<string, unknown>[] => {
  const trimmed = output.trim();
  // ip prints nothing at all (not "[]") when a namespace has no routes of a family.
  if (trimmed === '') return [];
  const parsed: unknown = JSON.parse(trimmed);
  if (!Array.isArray(parsed)) throw new Error(`ip ${what} output is not a JSON array`);
  return parsed.filter((entry): entry is Record<string, unknown> => !!entry && typeof entry === 'object');
};

export function parseIpAddr(output: string): IpLink[] {
  return list(output, 'addr').flatMap((raw) => {
    const name = nonEmptyText(raw.ifname);
    const index = finite(raw.ifindex);
    if (!name || index === undefined) return [];
    const addresses = (Array.isArray(raw.addr_info) ? (raw.addr_info as Record<string, unknown>[]) : []).flatMap((info): IpAddress[] => {
      const address = nonEmptyText(info?.local);
      const prefixLength = finite(info?.prefixlen);
      const family = info?.family === 'inet' ? 4 : info?.family === 'inet6' ? 6 : undefined;
      if (!address || prefixLength === undefined || !family) return [];
      return [{ family, address, prefixLength, scope: nonEmptyText(info.scope) }];
    });
    const linkinfo = raw.linkinfo as { info_kind?: unknown; info_slave_data?: { perm_hwaddr?: unknown } } | undefined;
    return [
      {
        index,
        name,
        flags: Array.isArray(raw.flags) ? raw.flags.filter((flag): flag is string => typeof flag === 'string') : [],
        mtu: finite(raw.mtu),
        operstate: nonEmptyText(raw.operstate),
        linkType: nonEmptyText(raw.link_type),
        macAddress: nonEmptyText(raw.address)?.toLowerCase(),
        kind: nonEmptyText(linkinfo?.info_kind),
        permanentMac: nonEmptyText(linkinfo?.info_slave_data?.perm_hwaddr)?.toLowerCase(),
        addresses,
      },
    ];
  });
}

export function parseIpRoute(output: string, family: 4 | 6): IpRoute[] {
  return list(output, 'route').flatMap((raw) => {
    const destination = nonEmptyText(raw.dst);
    if (!destination) return [];
    return [
      {
        family,
        destination,
        gateway: nonEmptyText(raw.gateway),
        device: nonEmptyText(raw.dev),
        metric: finite(raw.metric),
        protocol: nonEmptyText(raw.protocol),
        scope: nonEmptyText(raw.scope),
        preferredSource: nonEmptyText(raw.prefsrc),
      },
    ];
  });
}
