/**
 * Re-validates a host and moves it through its state machine. Called when something that can
 * change the verdict arrives (registration, a step reply that changed the host, a user's update),
 * so a host advances when the event that justifies it arrives rather than on a monitor tick.
 * Reads the host and what it is judged against, has the domain judge it
 * (domain/judgement/host-judgement.ts), and writes the judgement with its events.
 */
import type { Cluster, Host, InfraEnv } from '../domain/core/entities.js';
import type { EventIntent } from '../domain/core/state-rules.js';
import type { AgentSettings } from '../domain/agent/agent-protocol.js';
import { applyHostJudgement, hostJudgementEvents, judgeHost, type HostJudgement, type HostSurroundings } from '../domain/judgement/host-judgement.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { clusterHostsOf, FRESH_PEER_LISTINGS_UP_TO, validationConfigOf } from './cluster-peer-listings.js';
import { causedBy, hostWrite, recordEvents, type EventCause, type RecordEventRequest } from './events.js';

/** Where the benchmarks' seeding and the tests' labs take a host's shard from. */
export { monitorShardOf } from '../domain/judgement/host-judgement.js';

export interface RefreshDeps {
  store: Store;
  clock: Clock;
  /** The agent settings (the image hosts must run); upstream's defaults when absent. */
  config?: { agent: AgentSettings };
}

/** What a refresh reads besides the host; the monitor loads it once per cluster for all its hosts. */
export type RefreshSurroundings = HostSurroundings;

/** `justRead` records (the host's cluster and infra-env as the caller just read them) save reading them again. */
export async function loadSurroundings(
  store: Store,
  host: Host,
  options: { freshPeers?: boolean; cluster?: Cluster; infraEnv?: InfraEnv } = {},
): Promise<RefreshSurroundings> {
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

/** The verdict on this version of the host, with the settings the deps carry. */
function judge(deps: RefreshDeps, host: Host, surroundings: RefreshSurroundings): HostJudgement {
  const config = deps.config?.agent ? validationConfigOf(deps.config.agent) : undefined;
  return judgeHost(host, surroundings, { now: deps.clock.now(), activeShards: deps.store.activeShards, ...(config ? { config } : {}) });
}

/**
 * For callers that change a host and judge it in one conditional write (registration, step
 * replies): `judgeInto(changed)` judges the changed record against `surroundings` and returns it
 * as it must be written; `announce(written)` then emits the judgement's events and re-judges the
 * cluster if the status moved. One write instead of a change followed by a refresh, and never
 * a stored change whose verdict was not written with it.
 */
export function judgedWrite(deps: RefreshDeps, surroundings: RefreshSurroundings) {
  let judged: HostJudgement | undefined;
  let before: Host | undefined;
  return {
    /** Call at the start of each attempt of the write: only the attempt that wrote is announced. */
    reset(): void {
      judged = undefined;
      before = undefined;
    },
    judgeInto(changed: Host): Host {
      before = changed;
      judged = judge(deps, changed, surroundings);
      return applyHostJudgement(changed, judged, deps.clock.now().toISOString(), deps.store.activeShards) ?? changed;
    },
    /** `alsoRecord` and `leading`: the caller's own events, written in the same batch after and before the judgement's. */
    async announce(written: Host | undefined, alsoRecord: readonly RecordEventRequest[] = [], leading: readonly RecordEventRequest[] = []): Promise<void> {
      const cause = written ? hostWrite(written) : undefined;
      if (written && before && judged && !judged.unchanged)
        await announceJudgement(deps, before, judged, causedBy(cause, alsoRecord), causedBy(cause, leading), cause);
      else await recordEvents(deps, causedBy(cause, [...leading, ...alsoRecord]));
    },
  };
}

async function announceJudgement(
  deps: RefreshDeps,
  before: Host,
  judged: HostJudgement,
  alsoRecord: readonly RecordEventRequest[] = [],
  leading: readonly RecordEventRequest[] = [],
  cause?: EventCause,
): Promise<void> {
  const subject = { orgId: before.orgId, infraEnvId: before.infraEnvId, hostId: before.hostId, ...(before.clusterId ? { clusterId: before.clusterId } : {}) };
  const events = hostJudgementEvents(before, judged).map((event: EventIntent): RecordEventRequest => ({ name: event.name, subject, props: event.props }));
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
  let judged = judge(deps, host, surroundings);
  if (judged.unchanged) return host;
  let before = host;
  const updated = await deps.store.hosts.mutate(
    key,
    (current) => {
      // A check-in moves liveness, not the version: a copy that polled since is judged anew too.
      if (current.version !== judged.version || current.attributes.checked_in_at !== before.attributes.checked_in_at) {
        before = current;
        judged = judge(deps, current, surroundings);
      }
      return applyHostJudgement(current, judged, deps.clock.now().toISOString(), deps.store.activeShards);
    },
    host,
  );
  if (!updated || updated.version === before.version) return updated;
  await announceJudgement(deps, before, judged, [], [], hostWrite(updated));
  return updated;
}
