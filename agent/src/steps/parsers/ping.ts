/** iputils (and busybox) `ping -q` summaries. */

export interface PingSummary {
  readonly transmitted: number;
  readonly received: number;
  readonly packetLossPercent: number;
  /** Absent when nothing came back. */
  readonly averageRttMs?: number;
  /** "+N errors": ICMP errors such as "message too long" for an MTU probe. */
  readonly errors: number;
}

/** undefined when the output has no statistics block (ping failed before sending, e.g. "Network is unreachable"). */
export function parsePing(output: string): PingSummary | undefined {
  const stats = /(\d+) packets transmitted, (\d+) (?:packets )?received,(?: \+(\d+) errors,)?(?: \+\d+ duplicates,)? ([\d.]+)% packet loss/.exec(output);
  if (!stats) return undefined;
  const rtt = /(?:rtt|round-trip) min\/avg\/max(?:\/mdev)? = [\d.]+\/([\d.]+)\//.exec(output);
  return {
    transmitted: Number(stats[1]),
    received: Number(stats[2]),
    errors: Number(stats[3] ?? 0),
    packetLossPercent: Number(stats[4]),
    ...(rtt?.[1] ? { averageRttMs: Number(rtt[1]) } : {}),
  };
}
