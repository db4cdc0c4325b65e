/**
 * Cluster-wide facts computed from the hosts' connectivity reports, as upstream's cluster monitor
 * stores them on the cluster (connectivity_majority_groups, ip_collisions) for the host checks to
 * read: per network, the largest group of hosts that all reach each other; the addresses every
 * other host reaches over L3; IP addresses answered by two MAC addresses. Pure: here they are
 * computed from the reports whenever needed (internal/network/connectivity_groups.go,
 * internal/cluster/cluster.go).
 */
import {
  cidrContains,
  interfaceIps,
  parseCidr,
  parseIp,
  readJson,
  type ConnectivityReport,
  type Inventory,
  type ParsedCidr,
} from './host-validations-model.js';

export interface ConnectivityHost {
  id: string;
  /** The stored connectivity report (JSON text), if the host sent one. */
  connectivity?: unknown;
  /** The same report already read (readStoredJson): preferred over parsing `connectivity`. */
  report?: Readonly<ConnectivityReport> | null;
  inventory?: Inventory;
}

/** The `connectivity_majority_groups` document: majority groups keyed by CIDR or "IPv4"/"IPv6". */
export interface ConnectivityGroups {
  majority_groups: Record<string, string[]>;
  l3_connected_addresses: Record<string, string[]>;
}

/** Parsed once per host object: the groups of each network and the L3 addresses all read the same reports. */
const parsedReports = new WeakMap<ConnectivityHost, ConnectivityReport | undefined>();
function reportOf(host: ConnectivityHost): ConnectivityReport | undefined {
  if (parsedReports.has(host)) return parsedReports.get(host);
  const report = ('report' in host ? host.report : readJson<ConnectivityReport>(host.connectivity)) ?? undefined;
  parsedReports.set(host, report);
  return report;
}

// ---------------------------------------------------------------- sets of host indexes

/** Sorted, distinct host indexes. */
type IndexSet = readonly number[];
const toSet = (values: Iterable<number>): IndexSet => [...new Set(values)].sort((a, b) => a - b);
/** Both sorted and distinct: one merge walk rather than a search per element. */
function intersect(a: IndexSet, b: IndexSet): IndexSet {
  const out: number[] = [];
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    if (a[i]! < b[j]!) i++;
    else if (a[i]! > b[j]!) j++;
    else {
      out.push(a[i]!);
      i++;
      j++;
    }
  }
  return out;
}
function union(a: IndexSet, b: IndexSet): IndexSet {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const next = j >= b.length || (i < a.length && a[i]! <= b[j]!) ? a[i]! : b[j]!;
    if (i < a.length && a[i] === next) i++;
    if (j < b.length && b[j] === next) j++;
    out.push(next);
  }
  return out;
}
const sameSet = (a: IndexSet, b: IndexSet) => a.length === b.length && a.every((x, i) => x === b[i]);

/** Upstream's groupId ordering: bigger groups first, then the lexicographically smaller member list. */
function isLess(a: IndexSet, b: IndexSet): boolean {
  if (a.length !== b.length) return a.length > b.length;
  const index = a.findIndex((x, i) => x !== b[i]);
  return index >= 0 && a[index]! < b[index]!;
}

/**
 * A candidate group: `set` is who is in it; `participants` are the members whose own view confirms
 * the whole set (a group is a full mesh when every member confirms it); `primaries` are the
 * original per-host views already intersected into it.
 */
interface Group {
  set: IndexSet;
  participants: IndexSet;
  primaries?: IndexSet;
}

function mergeParticipants(into: Group, other: Group): void {
  into.participants = intersect(into.set, union(into.participants, other.participants));
  if (into.primaries && other.primaries) into.primaries = union(into.primaries, other.primaries);
}

class GroupList {
  private readonly bySize = new Map<number, Group[]>();

  addOrMerge(group: Group): void {
    const same = this.bySize.get(group.set.length)?.find((candidate) => sameSet(candidate.set, group.set));
    if (same) mergeParticipants(same, group);
    else this.bySize.set(group.set.length, [...(this.bySize.get(group.set.length) ?? []), group]);
  }

  biggestSize(): number {
    return Math.max(0, ...this.bySize.keys());
  }

  deleteSize(size: number): void {
    this.bySize.delete(size);
  }

  /** The biggest group confirmed by the most members (ties: the smaller member list). */
  largest(minSize: number): Group | undefined {
    const size = this.biggestSize();
    if (size < minSize) return undefined;
    let best: Group | undefined;
    for (const group of this.bySize.get(size) ?? []) {
      if (
        !best ||
        best.participants.length < group.participants.length ||
        (best.participants.length === group.participants.length && isLess(group.set, best.set))
      ) {
        best = group;
      }
    }
    return best;
  }

  all(): Group[] {
    return [...this.bySize.entries()].sort(([a], [b]) => b - a).flatMap(([, groups]) => groups);
  }
}

/**
 * The largest full mesh among the hosts' views: start from each host's own view (itself and every
 * host it is mutually connected with) and intersect views until one group is confirmed by all
 * its members, never going below `minSize`.
 */
function fullMeshGroup(views: { set: IndexSet; me: number }[], minSize: number): IndexSet {
  const list = new GroupList();
  for (const view of views) list.addOrMerge({ set: view.set, participants: [view.me] });
  const primaries = list.all();
  for (const [index, group] of primaries.entries()) group.primaries = [index];
  for (let candidate = list.largest(minSize); candidate; candidate = list.largest(minSize)) {
    if (candidate.set.length === candidate.participants.length) return candidate.set;
    const currentSize = candidate.set.length;
    list.deleteSize(currentSize);
    let biggest = list.biggestSize();
    primaries.forEach((primary, index) => {
      if (candidate!.primaries?.includes(index) || primary.set.length < biggest) return;
      const merged: Group = { set: intersect(candidate!.set, primary.set), participants: candidate!.participants, primaries: candidate!.primaries };
      mergeParticipants(merged, primary);
      if (merged.set.length >= minSize && merged.set.length < currentSize) {
        list.addOrMerge(merged);
        biggest = Math.max(biggest, merged.set.length);
      }
    });
  }
  return [];
}

/** Who each host reaches; a pair counts only when both ends report the other. */
function majorityGroup(hosts: readonly ConnectivityHost[], reaches: (from: ConnectivityHost) => string[], minSize: number): string[] {
  const index = new Map(hosts.map((host, i) => [host.id, i]));
  const reached = hosts.map((host, from) => {
    const targets = new Set<number>();
    for (const id of reaches(host)) {
      const to = index.get(id);
      if (to !== undefined && to !== from) targets.add(to);
    }
    return targets;
  });
  const views = hosts
    .map((_, me) => ({ me, set: toSet([me, ...[...reached[me]!].filter((other) => reached[other]!.has(me))]) }))
    .filter((view) => view.set.length >= minSize);
  return fullMeshGroup(views, minSize).map((i) => hosts[i]!.id);
}

/** Remote hosts reached over L2 inside the network (IPv6 falls back to L3: NDP replies get lost). */
function l2Reaches(network: ParsedCidr) {
  const inNetwork = (address: string | undefined) => {
    const ip = parseIp(address);
    return !!ip && cidrContains(network, ip);
  };
  return (host: ConnectivityHost): string[] =>
    (reportOf(host)?.remote_hosts ?? [])
      .filter(
        (remote) =>
          (remote.l2_connectivity ?? []).some((l2) => l2.successful && inNetwork(l2.remote_ip_address)) ||
          (network.family === 6 && (remote.l3_connectivity ?? []).some((l3) => l3.successful && inNetwork(l3.remote_ip_address))),
      )
      .map((remote) => remote.host_id);
}

const familyAddresses = (inventory: Inventory | undefined, family: 4 | 6): Set<string> =>
  new Set((inventory?.interfaces ?? []).flatMap((nic) => interfaceIps(nic, family).map((ip) => ip.text)));

/** Remote hosts reached over L3 on every one of their addresses of the family. */
function l3Reaches(hosts: readonly ConnectivityHost[], family: 4 | 6) {
  const addresses = new Map(hosts.filter((host) => host.inventory).map((host) => [host.id, familyAddresses(host.inventory, family)]));
  return (host: ConnectivityHost): string[] =>
    (reportOf(host)?.remote_hosts ?? [])
      .filter((remote) => {
        const wanted = addresses.get(remote.host_id);
        if (!wanted) return false;
        const found = new Set(
          (remote.l3_connectivity ?? [])
            .filter((l3) => l3.successful)
            .map((l3) => parseIp(l3.remote_ip_address)?.text)
            .filter((ip): ip is string => !!ip && wanted.has(ip)),
        );
        return found.size > 0 && found.size === wanted.size;
      })
      .map((remote) => remote.host_id);
}

/**
 * What a host's connectivity report tells its peers' validations, in a canonical text: per remote
 * host, each L2 answer (outgoing NIC, address, the MAC that answered: IP collisions read failed
 * answers too) and the addresses that answered over L3. Round-trip times, packet loss and MTU are
 * left out: only the reporting host's own checks read them, so a report that moved only those is
 * no news to its peers.
 */
export function reachabilityOf(report: Readonly<ConnectivityReport> | undefined): string {
  const remotes = (report?.remote_hosts ?? []).map((remote) => ({
    host: remote.host_id,
    l2: (remote.l2_connectivity ?? [])
      .map((l2) => `${l2.successful ? 1 : 0}|${l2.outgoing_nic ?? ''}|${l2.remote_ip_address ?? ''}|${l2.remote_mac ?? ''}`)
      .sort(),
    l3: [...new Set((remote.l3_connectivity ?? []).filter((l3) => l3.successful).map((l3) => l3.remote_ip_address ?? ''))].sort(),
  }));
  remotes.sort((a, b) => (a.host < b.host ? -1 : a.host > b.host ? 1 : 0));
  return JSON.stringify(remotes);
}

/** Whether two stored connectivity reports (JSON texts) differ in what peers read of them; an unreadable one always does. */
export function reachabilityChanged(before: unknown, after: unknown): boolean {
  if (before === after) return false;
  const [was, is] = [readJson<ConnectivityReport>(before), readJson<ConnectivityReport>(after)];
  if (was === null || is === null) return true;
  return reachabilityOf(was) !== reachabilityOf(is);
}

/** Every network any host has an address in, in canonical form. */
export function inventoryNetworks(hosts: readonly ConnectivityHost[]): string[] {
  const networks = new Set<string>();
  for (const host of hosts) {
    for (const nic of host.inventory?.interfaces ?? []) {
      for (const cidr of [...(nic.ipv4_addresses ?? []), ...(nic.ipv6_addresses ?? [])]) {
        const parsed = parseCidr(cidr);
        if (parsed) networks.add(parsed.text);
      }
    }
  }
  return [...networks].sort();
}

/** Per remote host, the addresses that every other host of the cluster reached over L3. */
export function l3ConnectedAddresses(hosts: readonly ConnectivityHost[]): Record<string, string[]> {
  const counts = new Map<string, Map<string, number>>();
  for (const host of hosts) {
    for (const remote of reportOf(host)?.remote_hosts ?? []) {
      if (remote.host_id === host.id) continue;
      // Older agents list an address more than once per pair: count each pair once.
      const reached = new Set((remote.l3_connectivity ?? []).filter((l3) => l3.successful && l3.remote_ip_address).map((l3) => l3.remote_ip_address!));
      if (reached.size === 0) continue;
      const perAddress = counts.get(remote.host_id) ?? new Map<string, number>();
      for (const address of reached) perAddress.set(address, (perAddress.get(address) ?? 0) + 1);
      counts.set(remote.host_id, perAddress);
    }
  }
  const result: Record<string, string[]> = {};
  for (const [hostId, perAddress] of counts) {
    const all = [...perAddress]
      .filter(([, count]) => count === hosts.length - 1)
      .map(([address]) => address)
      .sort();
    if (all.length > 0) result[hostId] = all;
  }
  return result;
}

/**
 * The cluster's connectivity document. Hosts are taken in id order so the same reports always
 * give the same document. `minGroupSize` is 3, or 2 for a two-node cluster with fencing.
 * `networks` limits the L2 groups to those networks (and skips the L3 groups): what one host's
 * validation needs, where the document stored on the cluster covers every network.
 */
export function connectivityMajorityGroups(
  hosts: readonly ConnectivityHost[],
  minGroupSize = 3,
  options: { networks?: readonly string[] } = {},
): ConnectivityGroups {
  const sorted = [...hosts].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const majority_groups: Record<string, string[]> = {};
  const networks = options.networks
    ? options.networks
        .map(parseCidr)
        .filter((c): c is ParsedCidr => !!c)
        .map((c) => c.text)
    : inventoryNetworks(sorted);
  for (const cidr of networks) majority_groups[cidr] = majorityGroup(sorted, l2Reaches(parseCidr(cidr)!), minGroupSize);
  if (!options.networks) {
    majority_groups.IPv4 = majorityGroup(sorted, l3Reaches(sorted, 4), minGroupSize);
    majority_groups.IPv6 = majorityGroup(sorted, l3Reaches(sorted, 6), minGroupSize);
  }
  return { majority_groups, l3_connected_addresses: l3ConnectedAddresses(sorted) };
}

/**
 * Addresses that two MAC addresses answered for on the same outgoing NIC of one host, with the
 * two MACs (sorted). Upstream keeps only the last host's findings; every host's count here.
 */
export function ipCollisions(hosts: readonly ConnectivityHost[]): Record<string, string[]> {
  const collisions: Record<string, string[]> = {};
  for (const host of [...hosts].sort((a, b) => (a.id < b.id ? -1 : 1))) {
    const seen = new Map<string, string>();
    for (const remote of reportOf(host)?.remote_hosts ?? []) {
      for (const l2 of remote.l2_connectivity ?? []) {
        const key = `${l2.outgoing_nic ?? ''}|${l2.remote_ip_address ?? ''}`;
        const previous = seen.get(key);
        if (previous && l2.remote_mac && previous !== l2.remote_mac && l2.remote_ip_address) {
          collisions[l2.remote_ip_address] = [previous, l2.remote_mac].sort();
        }
        seen.set(key, l2.remote_mac ?? '');
      }
    }
  }
  return collisions;
}
