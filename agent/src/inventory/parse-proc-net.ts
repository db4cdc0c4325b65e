/** /proc/net tables, the fallback when `ip` is not installed. Addresses there are fixed-width hex. */
import type { IpRoute } from './parse-ip.js';

const rows = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields.length > 1);

/** /proc/net/route stores IPv4 addresses as little-endian hex words. */
function ipv4FromHex(hex: string): string {
  const value = Number.parseInt(hex, 16);
  return [value & 0xff, (value >>> 8) & 0xff, (value >>> 16) & 0xff, (value >>> 24) & 0xff].join('.');
}

function ipv6FromHex(hex: string): string {
  const groups = hex.match(/.{4}/g)?.map((group) => Number.parseInt(group, 16).toString(16)) ?? [];
  const text = groups.join(':');
  // Compress the longest zero run as RFC 5952 asks.
  let best: { start: number; length: number } | undefined;
  for (let start = 0; start < groups.length; ) {
    if (groups[start] !== '0') {
      start += 1;
      continue;
    }
    let end = start;
    while (end < groups.length && groups[end] === '0') end += 1;
    if (end - start > 1 && (!best || end - start > best.length)) best = { start, length: end - start };
    start = end;
  }
  if (!best) return text;
  return `${groups.slice(0, best.start).join(':')}::${groups.slice(best.start + best.length).join(':')}`;
}

const prefixFromMask = (hexMask: string) => {
  let bits = Number.parseInt(hexMask, 16) >>> 0;
  let count = 0;
  while (bits) {
    count += bits & 1;
    bits >>>= 1;
  }
  return count;
};

const RTF_UP = 0x1;
const RTF_GATEWAY = 0x2;

export function parseProcIpv4Routes(text: string): IpRoute[] {
  return rows(text)
    .filter((fields) => fields[0] !== 'Iface')
    .flatMap(([device, destination, gateway, flags, , , metric, mask]): IpRoute[] => {
      if (!device || !destination || !gateway || !flags || !mask) return [];
      const flagBits = Number.parseInt(flags, 16);
      if (!(flagBits & RTF_UP)) return [];
      const prefix = prefixFromMask(mask);
      return [
        {
          family: 4,
          destination: prefix === 0 ? 'default' : `${ipv4FromHex(destination)}/${prefix}`,
          ...(flagBits & RTF_GATEWAY ? { gateway: ipv4FromHex(gateway) } : {}),
          device,
          metric: Number(metric ?? 0),
        },
      ];
    });
}

export function parseProcIpv6Routes(text: string): IpRoute[] {
  return rows(text).flatMap(([destination, prefix, , , nextHop, metric, , , , device]): IpRoute[] => {
    if (!destination || !prefix || !nextHop || !metric || !device || device === 'lo') return [];
    const prefixLength = Number.parseInt(prefix, 16);
    const gateway = ipv6FromHex(nextHop);
    return [
      {
        family: 6,
        destination: prefixLength === 0 ? 'default' : `${ipv6FromHex(destination)}/${prefixLength}`,
        ...(gateway !== '::' ? { gateway } : {}),
        device,
        metric: Number.parseInt(metric, 16),
      },
    ];
  });
}

export interface ProcInet6Address {
  readonly device: string;
  readonly address: string;
  readonly prefixLength: number;
  readonly scope: string;
}

const SCOPES: Record<string, string> = { '00': 'global', '10': 'host', '20': 'link', '40': 'site' };

export function parseProcIfInet6(text: string): ProcInet6Address[] {
  return rows(text).flatMap(([address, , prefix, scope, , device]) =>
    address && prefix && scope && device
      ? [{ device, address: ipv6FromHex(address), prefixLength: Number.parseInt(prefix, 16), scope: SCOPES[scope] ?? scope }]
      : [],
  );
}
