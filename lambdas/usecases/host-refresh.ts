/**
 * Re-validates a host and moves it through its state machine. Called when something that can
 * change the verdict arrives (registration, a step reply that changed the host, a user's update),
 * so a host advances when the event that justifies it arrives rather than on a monitor tick.
 */
import { createHash } from 'node:crypto';
import { softTimeoutsEnabled } from '../domain/cluster/cluster.js';
import { hasEnoughMastersAndWorkers, summaryOf } from '../domain/cluster/cluster-hosts.js';
import type { Cluster, Host, InfraEnv } from '../domain/core/entities.js';
import { hostDisplayName } from '../domain/host/host.js';
import { applyHostEffects } from '../domain/host/host-effects.js';
import { isNotAllowed, summarizeHostValidations, transitionHost, type HostTransition, type HostTransitionContext } from '../domain/host/host-state-machine.js';
import type { HostRole } from '../domain/host/host-states.js';
import { isWatchedHost } from '../domain/install/installation-progress.js';
import { judgeHostValidations, validationChanges, validationsInfo, validationsInfoChanged, type HostValidationConfig } from '../domain/host/validations/host-validations.js';
import type { AgentSettings } from '../domain/agent/agent-protocol.js';
import { storedDiskSpeed } from '../domain/host/inventory.js';
import { hostInventory } from '../domain/host/inventory.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { causedBy, hostWrite, recordEvents, type EventCause, type RecordEventRequest } from './events.js';
import { LocalCache } from '../ports/local-caches.js';
import { isJsonObject } from '../../contracts/json-shapes.js';

export interface RefreshDeps {
  store: Store;
  clock: Clock;
  /** The agent settings (the image hosts must run); upstream's defaults when absent. */
  config?: { agent: AgentSettings };
}


/**
 * Statuses in which an auto-assign host's suggested role follows its cluster (upstream's monitor
 * re-selects roles until installation starts); from preparation on, the installation's own choice stands.
 */
const SUGGESTING_STATUSES: ReadonlySet<string> = new Set(['discovering', 'pending-for-input', 'insufficient', 'known']);

/** The monitor shard of a host while it is watched; hosts spread evenly and stay on one shard. */
export function monitorShardOf(hostId: string, shards: number): number {
  return createHash('sha256').update(hostId).digest().readUInt32BE(0) % shards;
}

/**
 * Whether the cluster already meets its success rule with the hosts installed so far, this host
 * still counted as expected (upstream's ClusterWouldSucceedWithoutHost): a host waiting on its
 * user for that long is then given up on (the pending-user-action timeout).
 */
function wouldSucceedWithoutHost(host: Host, cluster: Cluster, clusterHosts: readonly Host[]): boolean {
  const isSelf = (peer: Host) => peer.hostId === host.hostId && peer.infraEnvId === host.infraEnvId;
  const all = [...clusterHosts.filter((peer) => !isSelf(peer)), host].map(summaryOf);
  return hasEnoughMastersAndWorkers(all, (cluster.attributes.control_plane_count as number | undefined) ?? 3, ['installed']);
}

function transitionContext(
  host: Host,
  cluster: Cluster | undefined,
  clusterHosts: readonly Host[],
  now: Date,
  validations: ReturnType<typeof summarizeHostValidations>,
): HostTransitionContext {
  const attributes = host.attributes;
  const progress = attributes.progress;
  return {
    now,
    hostName: hostDisplayName(host),
    statusInfo: attributes.status_info as string | undefined,
    statusUpdatedAt: (attributes.status_updated_at as string | undefined) ?? host.updatedAt,
    bound: !!host.clusterId,
    day2: attributes.kind === 'AddToExistingClusterHost',
    role: (attributes.role === 'auto-assign' ? attributes.suggested_role : attributes.role) ?? 'auto-assign',
    bootstrap: !!attributes.bootstrap,
    checkedInAt: attributes.checked_in_at as string | undefined,
    mediaConnected: attributes.media_status !== 'disconnected',
    // Soft timeouts warn once: these flags say the warning was given.
    connectionTimedOut: attributes.connection_timed_out === true,
    ...(progress
      ? { progress: { currentStage: progress.current_stage, progressInfo: progress.progress_info, stageUpdatedAt: progress.stage_updated_at, stageTimedOut: progress.stage_timed_out === true } }
      : {}),
    ...(cluster
      ? {
          cluster: {
            status: cluster.status,
            singleNode: cluster.attributes.control_plane_count === 1,
            softTimeoutsEnabled: softTimeoutsEnabled(cluster),
            // Only the pending-user-action timeout reads it: no peer listing walked for the others.
            ...(host.status === 'installing-pending-user-action' ? { wouldSucceedWithoutHost: wouldSucceedWithoutHost(host, cluster, clusterHosts) } : {}),
          },
        }
      : {}),
    preparation: preparationResults(host, cluster),
    validations,
  };
}

/**
 * Whether the preparation checks of this attempt came back good: the installation disk's fdatasync
 * measured, and the release image pulled. Results of an earlier attempt are cleared on entering
 * preparation (images-status-cleared), so a stale success cannot pass for a new one.
 */
function preparationResults(host: Host, cluster: Cluster | undefined): { diskSpeedCheckSucceeded: boolean; containerImagesAvailable: boolean } {
  const attributes = host.attributes;
  const speed = storedDiskSpeed(attributes);
  // A disk booted as is is not measured (upstream's persistent boot device).
  const persistentBoot = hostInventory(host)?.boot?.device_type === 'persistent';
  const diskSpeedCheckSucceeded = persistentBoot || (!!speed?.tested && (speed.exit_code ?? 0) === 0);
  const image = cluster?.attributes.ocp_release_image as string | undefined;
  let containerImagesAvailable = !image;
  try {
    const images: unknown = JSON.parse(attributes.images_status ?? '{}');
    if (!isJsonObject(images)) throw new Error('images_status is not a JSON object');
    const pulled = (status: unknown) => isJsonObject(status) && status.result === 'success';
    // Every image checked pulled (upstream's successful-container-image-availability), the release image among them.
    if (image) containerImagesAvailable = pulled(images[image]) && Object.values(images).every(pulled);
  } catch {
    containerImagesAvailable = false;
  }
  return { diskSpeedCheckSucceeded, containerImagesAvailable };
}

/** What a refresh reads besides the host; the monitor loads it once per cluster for all its hosts. */
export interface RefreshSurroundings {
  cluster?: Cluster;
  clusterHosts: Host[];
  infraEnv?: InfraEnv;
  /** Judge against the listing's peer facts even for a host changed since (see HostValidationInput). */
  peersAsListed?: boolean;
}

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
function clusterHostsOf(store: Store, orgId: string, clusterId: string, now: number, listedAfter = 0): Promise<Host[]> {
  const key = `${orgId}/${clusterId}`;
  const wanted = changeCounts.peek(key) ?? 0;
  const cached = peerListings.peek(key);
  if (cached && cached.generation >= wanted && cached.at >= listedAfter && (!cached.done || now - cached.at < listingLifetimeMs(cached))) return cached.hosts;
  const start = () => {
    const listing: PeerListing = { at: Date.now(), generation: changeCounts.peek(key) ?? 0, hosts: store.hosts.listByCluster({ orgId, clusterId }), done: false, tookMs: 0 };
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
    queued = cached.hosts.catch(() => undefined).then(() => {
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

/** `justRead` records (the host's cluster and infra-env as the caller just read them) save reading them again. */
export async function loadSurroundings(store: Store, host: Host, options: { freshPeers?: boolean; cluster?: Cluster; infraEnv?: InfraEnv } = {}): Promise<RefreshSurroundings> {
  const knownCluster = options.cluster && options.cluster.clusterId === host.clusterId ? options.cluster : undefined;
  const knownInfraEnv = options.infraEnv && options.infraEnv.infraEnvId === host.infraEnvId ? options.infraEnv : undefined;
  const infraEnvRead = knownInfraEnv ? Promise.resolve(knownInfraEnv) : store.infraEnvs.get({ orgId: host.orgId, infraEnvId: host.infraEnvId });
  const cluster = !host.clusterId ? undefined : (knownCluster ?? (await store.clusters.get({ orgId: host.orgId, clusterId: host.clusterId })));
  // Before its inventory arrives nothing about a host depends on its peers.
  const needsPeers = !!cluster && !!host.attributes.inventory;
  const clusterHosts = !needsPeers
    ? []
    : options.freshPeers
      ? await store.hosts.listByCluster({ orgId: host.orgId, clusterId: cluster!.clusterId })
      : await clusterHostsOf(store, host.orgId, cluster!.clusterId, Date.now());
  // A shared listing of a large cluster is a few seconds old anyway: its cluster-wide facts serve
  // every judgement made from it, as with forgetPeersUnlessLarge.
  const peersAsListed = !options.freshPeers && clusterHosts.length > FRESH_PEER_LISTINGS_UP_TO;
  return { cluster, clusterHosts, infraEnv: await infraEnvRead, ...(peersAsListed ? { peersAsListed } : {}) };
}

/**
 * Returns the host as it is after the refresh (unchanged when nothing moved). `justWritten`, the
 * record as the caller just wrote it, saves reading it again.
 */
export async function refreshHost(
  deps: RefreshDeps,
  key: { orgId: string; infraEnvId: string; hostId: string },
  justWritten?: Host,
  justRead: { cluster?: Cluster; infraEnv?: InfraEnv } = {},
): Promise<Host | undefined> {
  const read = justWritten ?? (await deps.store.hosts.get(key));
  if (!read) return undefined;
  const surroundings = await loadSurroundings(deps.store, read, justRead);
  // The listing's copy, when it is this very version, lets the validation share its peer work with the other hosts of that listing.
  const listed = surroundings.clusterHosts.find((peer) => peer.hostId === read.hostId && peer.infraEnvId === read.infraEnvId && peer.version === read.version);
  return refreshLoadedHost(deps, listed ?? read, surroundings);
}

interface Judgement {
  /** The version judged: a write applies this judgement only over that very version. */
  version: number;
  /** The role an auto-assign host was judged as, when it differs from the one stored (upstream's RefreshRole). */
  suggestedRole: HostRole | undefined;
  info: string;
  /** The transition to write, when the host moves. */
  move: HostTransition | undefined;
  shard: number | undefined;
  changes: ReturnType<typeof validationChanges>;
  unchanged: boolean;
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

function judge(host: Host, surroundings: RefreshSurroundings, now: Date, activeShards: number, agent?: AgentSettings): Judgement {
  const { cluster, clusterHosts, infraEnv, peersAsListed } = surroundings;
  const config = agent ? validationConfigOf(agent) : undefined;
  const { results, role } = judgeHostValidations({ host, cluster, clusterHosts, infraEnv, now, ...(peersAsListed ? { peersAsListed } : {}), ...(config ? { config } : {}) });
  const suggested = cluster && host.attributes.role === 'auto-assign' && SUGGESTING_STATUSES.has(host.status) && role !== 'auto-assign';
  const suggestedRole = suggested && role !== host.attributes.suggested_role ? role : undefined;
  const info = validationsInfo(results);
  const summary = summarizeHostValidations(results, cluster?.attributes.ignored_host_validations as string | undefined);
  const transition = transitionHost({ status: host.status }, 'RefreshHost', transitionContext(host, cluster, clusterHosts, now, summary));
  const move = !isNotAllowed(transition) && transition.changed ? transition : undefined;
  const infoChanged = validationsInfoChanged(host.attributes.validations_info as string | undefined, info);
  const shard = isWatchedHost(move ? move.status : host.status, host.attributes) ? monitorShardOf(host.hostId, activeShards) : undefined;
  return {
    version: host.version,
    suggestedRole,
    info,
    move,
    shard,
    changes: validationChanges(host.attributes.validations_info as string | undefined, info),
    unchanged: !move && !infoChanged && !suggestedRole && shard === host.monitorShard,
  };
}

/**
 * The host as the judgement leaves it (validations, status, effects, watch), or undefined when
 * the judgement changes nothing stored. Pure apart from the clock read by the caller.
 */
function applyJudgement(current: Host, judged: Judgement, now: string, activeShards: number): Host | undefined {
  if (judged.unchanged) return undefined;
  const { move } = judged;
  const next = structuredClone(current);
  next.attributes.validations_info = judged.info;
  if (judged.suggestedRole) next.attributes.suggested_role = judged.suggestedRole;
  if (move) {
    next.status = move.status;
    next.attributes.status_info = move.statusInfo;
    if (move.status !== current.status) next.attributes.status_updated_at = now;
    applyHostEffects(next, move.effects, now);
  }
  // Watched or not as the host is after the effects (a log timeout ends the watch of a failed host).
  if (isWatchedHost(next.status, next.attributes)) next.monitorShard = monitorShardOf(next.hostId, activeShards);
  else delete next.monitorShard;
  next.updatedAt = now;
  return next;
}

/**
 * For callers that change a host and judge it in one conditional write (registration, step
 * replies): `judgeInto(changed)` judges the changed record against `surroundings` and returns it
 * as it must be written; `announce(written)` then emits the judgement's events and re-judges the
 * cluster if the status moved. One write instead of a change followed by a refresh, and never
 * a stored change whose verdict was not written with it.
 */
export function judgedWrite(deps: RefreshDeps, surroundings: RefreshSurroundings) {
  let judged: Judgement | undefined;
  let before: Host | undefined;
  return {
    /** Call at the start of each attempt of the write: only the attempt that wrote is announced. */
    reset(): void {
      judged = undefined;
      before = undefined;
    },
    judgeInto(changed: Host): Host {
      before = changed;
      judged = judge(changed, surroundings, deps.clock.now(), deps.store.activeShards, deps.config?.agent);
      return applyJudgement(changed, judged, deps.clock.now().toISOString(), deps.store.activeShards) ?? changed;
    },
    /** `alsoRecord` and `leading`: the caller's own events, written in the same batch after and before the judgement's. */
    async announce(written: Host | undefined, alsoRecord: readonly RecordEventRequest[] = [], leading: readonly RecordEventRequest[] = []): Promise<void> {
      const cause = written ? hostWrite(written) : undefined;
      if (written && before && judged && !judged.unchanged) await announceJudgement(deps, before, judged, causedBy(cause, alsoRecord), causedBy(cause, leading), cause);
      else await recordEvents(deps, causedBy(cause, [...leading, ...alsoRecord]));
    },
  };
}

async function announceJudgement(
  deps: RefreshDeps,
  before: Host,
  judged: Judgement,
  alsoRecord: readonly RecordEventRequest[] = [],
  leading: readonly RecordEventRequest[] = [],
  cause?: EventCause,
): Promise<void> {
  const { move } = judged;
  const subject = { orgId: before.orgId, infraEnvId: before.infraEnvId, hostId: before.hostId, ...(before.clusterId ? { clusterId: before.clusterId } : {}) };
  const hostName = hostDisplayName(before);
  const events: RecordEventRequest[] = [];
  for (const change of judged.changes) {
    if (change.kind === 'failed') {
      events.push({ name: 'host_validation_failed', subject, props: { host_name: hostName, validation_id: change.id, failure_message: change.failureMessage ?? 'failed' } });
    } else if (change.kind === 'fixed') {
      events.push({ name: 'host_validation_fixed', subject, props: { host_name: hostName, validation_id: change.id } });
    }
  }
  for (const event of move?.events ?? []) events.push({ name: event.name, subject, props: event.props });
  if (judged.suggestedRole) events.push({ name: 'host_role_updated', subject, props: { host_name: hostName, suggested_role: judged.suggestedRole } });
  // The cluster's verdict follows its hosts' statuses and roles: the write reaches its judgement
  // through the table's stream (host-changes), so the request that wrote it does not wait for it.
  await recordEvents(deps, [...leading, ...causedBy(cause, events), ...alsoRecord]);
}

/**
 * The judgement written is always that of the version it overwrites: when the
 * host changed after it was read (a poll's check-in, a reply), it is judged again as it now is,
 * so a verdict reached on a stale copy (a host polling meanwhile looking disconnected) is never written.
 */
export async function refreshLoadedHost(deps: RefreshDeps, host: Host, surroundings: RefreshSurroundings): Promise<Host | undefined> {
  const key = { orgId: host.orgId, infraEnvId: host.infraEnvId, hostId: host.hostId };
  let judged = judge(host, surroundings, deps.clock.now(), deps.store.activeShards, deps.config?.agent);
  if (judged.unchanged) return host;
  let before = host;
  const updated = await deps.store.hosts.mutate(key, (current) => {
    // A check-in moves liveness, not the version: a copy that polled since is judged anew too.
    if (current.version !== judged.version || current.attributes.checked_in_at !== before.attributes.checked_in_at) {
      before = current;
      judged = judge(current, surroundings, deps.clock.now(), deps.store.activeShards, deps.config?.agent);
    }
    return applyJudgement(current, judged, deps.clock.now().toISOString(), deps.store.activeShards);
  }, host);
  if (!updated || updated.version === before.version) return updated;
  await announceJudgement(deps, before, judged, [], [], hostWrite(updated));
  return updated;
}
