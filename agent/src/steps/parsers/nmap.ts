/** nmap's XML report (`-oX -`), read with fast-xml-parser. */
import { XMLParser } from 'fast-xml-parser';

export interface NmapHost {
  readonly state: string;
  readonly ipv4?: string;
  readonly ipv6?: string;
  /** Lower case; only for hosts on a directly attached link. */
  readonly mac?: string;
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  isArray: (name) => name === 'host' || name === 'address',
});

interface RawHost {
  status?: { state?: string };
  address?: { addr?: string; addrtype?: string }[];
}

/** Throws when the text is not an nmap report. */
export function parseNmapXml(xml: string): NmapHost[] {
  const document = parser.parse(xml) as { nmaprun?: { host?: RawHost[] } };
  if (!document.nmaprun) throw new Error('not an nmap XML report');
  return (document.nmaprun.host ?? []).map((host) => {
    const address = (type: string) => host.address?.find((entry) => entry.addrtype === type)?.addr;
    const mac = address('mac')?.toLowerCase();
    const ipv4 = address('ipv4');
    const ipv6 = address('ipv6');
    return { state: host.status?.state ?? 'unknown', ...(ipv4 ? { ipv4 } : {}), ...(ipv6 ? { ipv6 } : {}), ...(mac ? { mac } : {}) };
  });
}

export const upHosts = (hosts: readonly NmapHost[]) => hosts.filter((host) => host.state === 'up');
