/**
 * The cluster listings that host judgements read their peers from, shared by the refreshes of one
 * instance, and the validation settings they are judged with, one object per agent settings (the
 * domain shares its per-listing peer work per settings object). Reads only: the verdicts are the
 * domain's (domain/judgement/host-judgement.ts), and host-refresh writes them.
 */
import type { AgentSettings } from '../domain/agent/agent-protocol.js';
import type { Host } from '../domain/core/entities.js';
import type { HostValidationConfig } from '../domain/host/validations/host-validations.js';
import { LocalCache } from '../ports/local-caches.js';
import type { Store } from '../ports/store.js';

/**
 * Peer listings shared by the refreshes of one instance for a few seconds, one read in flight per
 * cluster: when hundreds of agents report at once, each refresh listing the whole cluster would
 * make the work quadratic (upstream's trouble). Only peer-based checks (unique hostnames, the
 * connectivity majority, role suggestion) read it, and they converge on the next refresh.
 * The bound is the cache's (local-caches.json, cluster-peer-listings); switched off, every
 * judgement lists its cluster.
 */
interface PeerListing {
  at: number;
  /** The cluster's change count when the listing started: it shows every change up to there. */
  generation: number;
  hosts: Promise<Host[]>;
  done: boolean;
  /** How long listing took, once done. */
  tookMs: number;
}

/**
 * How long a listing serves: a few seconds, and for a cluster slow to list, a few times what
 * listing it took, so that listing never becomes most of what the store does.
 */
const peerListings = new LocalCache<PeerListing>('cluster-peer-listings');
const { servesMs, servesListingTimes } = peerListings.spec;
if (servesMs === undefined || servesListingTimes === undefined) throw new Error('the cluster-peer-listings cache spec needs servesMs and servesListingTimes');
const listingLifetimeMs = (listing: PeerListing) => Math.max(servesMs, servesListingTimes * listing.tookMs);
/** Clusters up to this size are listed anew after every change peers read (see forgetPeers). */
export const FRESH_PEER_LISTINGS_UP_TO = 100;
const queuedListings = new LocalCache<Promise<Host[]>>('cluster-peer-listings');
const changeCounts = new LocalCache<number>('cluster-peer-listings');
/** Each cluster's last finished listing: served while the next one of a large cluster is read. */
const lastListed = new LocalCache<Host[]>('cluster-peer-listings');
const isLarge = (key: string) => (lastListed.peek(key)?.length ?? 0) > FRESH_PEER_LISTINGS_UP_TO;

/**
 * A host of the cluster changed here: the next refresh lists the peers anew. Refreshes that
 * follow changes while a listing is being read share one listing queued behind it, so under a
 * burst of replies a cluster is listed a few times, not once per reply. Changes made by other
 * processes are seen within the listing's lifetime, and by the monitor's pass at the latest.
 */
export function forgetPeers(orgId: string, clusterId: string): void {
  const key = `${orgId}/${clusterId}`;
  changeCounts.set(key, (changeCounts.peek(key) ?? 0) + 1);
}

/**
 * forgetPeers, in a cluster that is not large. In a large cluster a listing per change would make
 * a burst of n replies cost n listings of n hosts: there the listing lives its few seconds, and
 * verdicts that depend on peers converge at the hosts' next periodic reports and the monitor's
 * whole judgement of the changed cluster. The size is the last finished listing's: a change made
 * while the next one is being read must not queue yet another behind it (that made listing
 * continuous under a burst).
 */
export function forgetPeersUnlessLarge(orgId: string, clusterId: string): void {
  if (!isLarge(`${orgId}/${clusterId}`)) forgetPeers(orgId, clusterId);
}

/** `listedAfter`: a listing begun before then does not serve (it may miss a change made elsewhere). */
export function clusterHostsOf(store: Store, orgId: string, clusterId: string, now: number, listedAfter = 0): Promise<Host[]> {
  const key = `${orgId}/${clusterId}`;
  const wanted = changeCounts.peek(key) ?? 0;
  const cached = peerListings.peek(key);
  if (cached && cached.generation >= wanted && cached.at >= listedAfter && (!cached.done || now - cached.at < listingLifetimeMs(cached))) return cached.hosts;
  const start = () => {
    const listing: PeerListing = {
      at: Date.now(),
      generation: changeCounts.peek(key) ?? 0,
      hosts: store.hosts.listByCluster({ orgId, clusterId }),
      done: false,
      tookMs: 0,
    };
    peerListings.set(key, listing, listing.at);
    listing.hosts.then(
      (hosts) => {
        listing.done = true;
        listing.tookMs = Date.now() - listing.at;
        lastListed.set(key, hosts);
      },
      () => peerListings.peek(key) === listing && peerListings.forget(key),
    );
    return listing.hosts;
  };
  // A large cluster takes seconds to list: its judgements go on with the last listing meanwhile.
  const previous = isLarge(key) ? lastListed.peek(key) : undefined;
  if (!cached || cached.done) {
    const next = start();
    return previous ? Promise.resolve(previous) : next;
  }
  if (previous) return Promise.resolve(previous);
  // The listing being read started before this caller's change: wait for the one after it.
  let queued = queuedListings.peek(key);
  if (!queued) {
    queued = cached.hosts
      .catch(() => undefined)
      .then(() => {
        queuedListings.forget(key);
        return start();
      });
    queuedListings.set(key, queued);
  }
  return queued;
}

/**
 * The cluster's hosts as listed within the last few seconds: for handing out connectivity checks,
 * where a listing per poll would make polling cost grow with the cluster. While the next listing
 * is read, the last one serves: a poll never waits for a listing once there is one. Except in a
 * cluster of up to FRESH_PEER_LISTINGS_UP_TO hosts whose address book changed after the listing
 * began (`addressBookChangedAt`, from the cluster's judgement, which any instance may have made):
 * that listing may miss a peer, so the cluster is listed anew and the poll waits for it.
 */
export function recentClusterHosts(store: Store, orgId: string, clusterId: string, addressBookChangedAt?: string): Promise<Host[]> {
  const key = `${orgId}/${clusterId}`;
  const cached = peerListings.peek(key);
  // Instances' clocks agree to within milliseconds (NTP in Lambda, one clock locally): a skew costs
  // at most a listing more, or a peer seen one listing lifetime later.
  const listedAfter = isLarge(key) ? 0 : Date.parse(addressBookChangedAt ?? '') || 0;
  if (cached?.done && cached.at >= listedAfter && Date.now() - cached.at < listingLifetimeMs(cached)) return cached.hosts;
  if (listedAfter > 0 && (!cached || cached.at < listedAfter)) return clusterHostsOf(store, orgId, clusterId, Date.now(), listedAfter);
  const previous = lastListed.peek(key);
  const next = cached && !cached.done ? cached.hosts : clusterHostsOf(store, orgId, clusterId, Date.now());
  if (!previous) return next;
  next.catch(() => undefined);
  return Promise.resolve(previous);
}

/**
 * The validation settings of these agent settings, one object per settings object: the peers of a
 * cluster listing are shared by every judgement made with the same settings object (sharedPeers in
 * host-validations.ts), and a new object per judgement made each reply rebuild the peers of its whole
 * cluster (every host's roles suggested, connectivity groups recomputed): 7 % of an Api instance's
 * CPU at 1,000 hosts in one cluster.
 */
const validationConfigs = new WeakMap<AgentSettings, HostValidationConfig>();

export function validationConfigOf(agent: AgentSettings): HostValidationConfig {
  let config = validationConfigs.get(agent);
  if (!config) validationConfigs.set(agent, (config = { agentImage: agent.image, enableUpgradeAgent: agent.upgrade }));
  return config;
}
