/**
 * The MACs that answered an arping. Two arpings exist: iputils' (RHEL, the discovery image) prints
 * "Unicast reply from IP [MAC]"; Thomas Habets' (Debian's "arping" package) prints
 * "N bytes from MAC (IP): ...". Both are read.
 */

export interface ArpReply {
  readonly ip: string;
  /** Lower case, colon separated. */
  readonly mac: string;
}

const IPUTILS = /^Unicast reply from (\S+) \[([0-9A-Fa-f:]{17})\]/gm;
const HABETS = /^\d+ bytes from ([0-9A-Fa-f:]{17}) \(([^)]+)\)/gm;

/** One entry per distinct replying MAC, in order of first reply. */
export function parseArping(output: string): ArpReply[] {
  const replies = new Map<string, ArpReply>();
  for (const match of output.matchAll(IPUTILS)) {
    const mac = match[2]?.toLowerCase();
    if (mac && match[1] && !replies.has(mac)) replies.set(mac, { ip: match[1], mac });
  }
  for (const match of output.matchAll(HABETS)) {
    const mac = match[1]?.toLowerCase();
    if (mac && match[2] && !replies.has(mac)) replies.set(mac, { ip: match[2], mac });
  }
  return [...replies.values()];
}
