/**
 * What the discovery agent calls: register, ask for steps, reply. Built for many agents polling
 * at once: a poll is a read of the host (and its cluster), written only when liveness is getting
 * stale; a reply writes only what changed, conditionally on the version it read.
 */
import { UNSET_TIME } from '../domain/core/entities.js';
import { randomBytes } from 'node:crypto';
import {
  checkInWrite,
  awaitingAnswer,
  claimLongChecks,
  LONG_CHECKS,
  LONG_CHECKS_HANDED_AT,
  longCheckClaim,
  hasUncheckedPeers,
  hostNics,
  offersConnectivityCheck,
  newHost,
  nextStepRunnerCommand,
  nextSteps,
  registrationProblem,
  reRegister,
  wantsConnectivityCheck,
  type StepReply,
  type Steps,
  type AgentSettings,
} from '../domain/agent/agent-protocol.js';
import { catalogueAgentImages } from '../domain/catalogues/catalogues.js';
import {
  applyStepReply,
  applyVipVerifications,
  connectivityReplyWrite,
  isNewsToPeers,
  replyTransition,
  stepReplyEvents,
} from '../domain/agent/step-replies.js';
import { storedAddressBook } from '../domain/cluster/cluster-document.js';
import { hostEffectiveRole } from '../domain/cluster/cluster-hosts.js';
import { reconnectsOnPoll, waitsOnPeers } from '../domain/host/host-watch.js';
import type { Cluster, Host } from '../domain/core/entities.js';
import type { HostTransition } from '../domain/host/host-state-machine.js';
import { hostDisplayName, hostView } from '../domain/host/host.js';
import { badRequest } from '../domain/core/errors.js';
import { hostRegistrationProblem } from '../domain/image/infra-env.js';
import { hardwareMinimums } from '../domain/catalogues/preflight.js';
import type { Clock } from '../ports/clock.js';
import { ConcurrentModificationError, type HostLiveness, type Store } from '../ports/store.js';
import { findHost, findInfraEnv, stillThere } from './access.js';
import { causedBy, eventRequests, hostWrite, recordEvent, recordEvents } from './events.js';
import { refreshCluster } from './cluster-refresh.js';
import { ownStagesSource } from './hosts.js';
import { forgetPeersUnlessLarge, recentClusterHosts } from './cluster-peer-listings.js';
import { judgedWrite, loadSurroundings, refreshHost } from './host-refresh.js';
import type { Principal } from './principal.js';

export interface AgentDeps {
  store: Store;
  clock: Clock;
  /** The agent settings; upstream's defaults (the catalogue's image, upgrades on) when absent. */
  config?: { agent: AgentSettings };
}

const agentSettings = (deps: AgentDeps): AgentSettings => deps.config?.agent ?? { image: catalogueAgentImages().agent, upgrade: true };

/**
 * Each peer's part of a connectivity check, serialised once per listing: every poll of the
 * listing's lifetime that hands out a check joins them (all but the host's own) instead of
 * rebuilding and serialising the whole peer list.
 */
const peerFragments = new WeakMap<readonly Host[], { hostId: string; json: string }[]>();

function connectivityPeersJson(listing: readonly Host[], hostId: string): string {
  let fragments = peerFragments.get(listing);
  if (!fragments) {
    fragments = listing
      .filter((peer) => peer.attributes.inventory)
      .map((peer) => ({ hostId: peer.hostId, json: JSON.stringify({ host_id: peer.hostId, nics: hostNics(peer) }) }));
    peerFragments.set(listing, fragments);
  }
  return `[${fragments
    .filter((fragment) => fragment.hostId !== hostId)
    .map((fragment) => fragment.json)
    .join(',')}]`;
}
/** An unchanged reply still re-judges a host waiting on its peers when it is its periodic connectivity report. */
const rejudgedUnchanged = (stepType: string, status: string) => stepType === 'connectivity-check' && waitsOnPeers(status);

export async function registerHost(
  deps: AgentDeps,
  principal: Principal,
  infraEnvId: string,
  request: { host_id: string; discovery_agent_version?: string },
  headerAgentVersion?: string,
) {
  const key = { orgId: principal.orgId, infraEnvId, hostId: request.host_id };
  // Both reads at once: the host's is used only once the infra-env was found for this caller.
  const [infraEnv, existing] = await Promise.all([findInfraEnv(deps.store, principal, infraEnvId), deps.store.hosts.get(key)]);
  const refused = hostRegistrationProblem(infraEnv);
  if (refused) throw badRequest(refused);
  const agentVersion = request.discovery_agent_version ?? headerAgentVersion;
  const now = deps.clock.now().toISOString();
  const clusterId = existing?.clusterId ?? infraEnv.clusterId;
  const cluster = clusterId ? await deps.store.clusters.get({ orgId: principal.orgId, clusterId }) : undefined;
  if (!existing) registrationProblem(cluster);

  const reRegistered = async (justRead?: Host) => {
    let moved: { before: Host; transition: HostTransition } | undefined;
    const written = stillThere(
      await deps.store.hosts.mutate(
        key,
        (current) => {
          const registered = reRegister(current, agentVersion, now);
          moved = { before: current, transition: registered.transition };
          return registered.host;
        },
        justRead,
      ),
      `Host ${request.host_id}`,
    );
    if (moved) {
      const { before, transition } = moved;
      const subject = { orgId: principal.orgId, infraEnvId, hostId: before.hostId, ...(before.clusterId ? { clusterId: before.clusterId } : {}) };
      await recordEvents(deps, causedBy(hostWrite(written), eventRequests(subject, transition.events)));
      // A host rebooted while preparing is known again and prepares anew while its cluster still
      // prepares. The table's cluster-preparation-reset is not applied: the installation workflow
      // writes its result once, and resetting it would leave the cluster preparing until it times out.
    }
    return (await refreshHost(deps, key, written, { cluster, infraEnv })) ?? written;
  };
  const registered = (host: Host) => ({
    name: 'host_registration_succeeded',
    subject: { orgId: principal.orgId, infraEnvId, hostId: host.hostId, ...(host.clusterId ? { clusterId: host.clusterId } : {}) },
    props: { host_name: hostDisplayName(host) },
  });
  let host: Host | undefined;
  if (!existing) {
    // A new host is created already judged: one write, and never stored without its verdict.
    const fresh: Host = { ...newHost({ orgId: principal.orgId, infraEnv, cluster, hostId: request.host_id, agentVersion, now }), version: 0 };
    const write = judgedWrite(deps, await loadSurroundings(deps.store, fresh, { cluster, infraEnv }));
    try {
      host = await deps.store.hosts.create(write.judgeInto(fresh));
    } catch (error) {
      // Two registrations of one host raced: the other created it; this one re-registers it.
      if (!(error instanceof ConcurrentModificationError)) throw error;
    }
    // The judgement's events and the registration's, in one batch.
    if (host) await write.announce(host, [registered(host)]);
  }
  if (!host) {
    host = await reRegistered(existing);
    await recordEvent(deps, registered(host));
  }
  // Upstream answers the host as it built it, before its store stamped times or judged it: zero
  // times, no validations (they come with the first refresh), and none of what the agent's replies
  // and the installation leave on a stored host (its progress, the inventory and the installation
  // disk chosen from it), also when the host registers again.
  const view = hostView(host, await ownStagesSource(deps.store, host, cluster));
  for (const field of NOT_IN_REGISTRATION_ANSWER) delete view[field];
  return { ...view, created_at: UNSET_TIME, updated_at: UNSET_TIME, next_step_runner_command: nextStepRunnerCommand(host, agentSettings(deps).image) };
}

/** Fields of the stored host that upstream's registration answer (the host as it built it) never has. */
const NOT_IN_REGISTRATION_ANSWER = [
  'validations_info',
  'progress',
  'inventory',
  'installation_disk_id',
  'installation_disk_path',
  'disks_to_be_formatted',
] as const;

export async function getNextSteps(
  deps: AgentDeps,
  principal: Principal,
  infraEnvId: string,
  hostId: string,
  poll: { timestamp?: number; agentVersion?: string },
): Promise<Steps> {
  let host = await findHost(deps.store, principal, infraEnvId, hostId);
  const now = deps.clock.now();
  // A second-old cluster decides the steps as well as a fresh one: the fleet shares one read.
  const cluster = host.clusterId ? await deps.store.clusters.getRecent({ orgId: principal.orgId, clusterId: host.clusterId }) : undefined;
  const checkIn = checkInWrite(host, now, poll.agentVersion, poll.timestamp);
  const pending: PendingCheckIn = {};
  if (checkIn === 'liveness') {
    const liveness = { checkedInAt: now.toISOString(), ...(poll.timestamp !== undefined ? { timestamp: poll.timestamp } : {}) };
    host = {
      ...host,
      attributes: { ...host.attributes, checked_in_at: liveness.checkedInAt, ...(liveness.timestamp !== undefined ? { timestamp: liveness.timestamp } : {}) },
    };
    if (reconnectsOnPoll(host.status)) {
      // Judged connected again: the judgement's write reads the stored check-in, so it goes first.
      await deps.store.hosts.checkIn({ orgId: principal.orgId, infraEnvId, hostId }, liveness);
      host = (await refreshHost(deps, { orgId: principal.orgId, infraEnvId, hostId }, host)) ?? host;
    } else {
      // Written with the first check this poll claims, else once the steps are decided: one write either way.
      pending.checkIn = liveness;
    }
  } else if (checkIn === 'host') {
    const checkedIn = await deps.store.hosts.mutate(
      { orgId: principal.orgId, infraEnvId, hostId },
      (current) => ({
        ...current,
        attributes: {
          ...current.attributes,
          checked_in_at: now.toISOString(),
          ...(poll.timestamp !== undefined ? { timestamp: poll.timestamp } : {}),
          ...(poll.agentVersion ? { discovery_agent_version: poll.agentVersion } : {}),
        },
      }),
      host,
    );
    // The steps follow what the agent just said of itself (its version decides an upgrade), as upstream.
    if (checkedIn)
      host = reconnectsOnPoll(checkedIn.status)
        ? ((await refreshHost(deps, { orgId: principal.orgId, infraEnvId, hostId }, checkedIn)) ?? checkedIn)
        : checkedIn;
  }
  try {
    return await handOut(deps, principal, host, cluster, now, pending);
  } finally {
    // Whatever the steps came to: the agent polled.
    if (pending.checkIn) await deps.store.hosts.checkIn({ orgId: principal.orgId, infraEnvId, hostId }, pending.checkIn);
  }
}

/** A check-in not written yet: the first check claimed takes it along (and clears it). */
interface PendingCheckIn {
  checkIn?: HostLiveness;
}

/** The steps for the host as polled, each check handed out once claimed. */
async function handOut(deps: AgentDeps, principal: Principal, host: Host, cluster: Cluster | undefined, now: Date, pending: PendingCheckIn): Promise<Steps> {
  const { infraEnvId, hostId } = host;
  let peersJson = '[]';
  let newPeers = false;
  // A connectivity check handed out and not yet answered (its stored mark): no peer listing is
  // read for another, and none is handed.
  const awaitingCheck = awaitingAnswer(host.attributes[LONG_CHECKS_HANDED_AT], 'connectivity-check', now);
  if (host.clusterId && offersConnectivityCheck(host, cluster) && !awaitingCheck) {
    const due = wantsConnectivityCheck(host, cluster, now);
    const listing = await recentClusterHosts(deps.store, principal.orgId, host.clusterId, storedAddressBook(cluster)?.changed_at);
    newPeers =
      !due &&
      hasUncheckedPeers(
        host,
        listing.filter((peer) => peer.attributes.inventory).map((peer) => peer.hostId),
      );
    if (due || newPeers) peersJson = connectivityPeersJson(listing, hostId);
  }
  const settings = agentSettings(deps);
  let steps = nextSteps({
    host,
    cluster,
    now,
    newPeers,
    peersJson: host.clusterId ? () => peersJson : undefined,
    stepIdSuffix: () => randomBytes(4).toString('hex'),
    images: { ...catalogueAgentImages(), agent: settings.image },
    upgradeAgent: settings.upgrade,
    ...(settings.maxNextInstructionSeconds !== undefined ? { maxNextInstructionSeconds: settings.maxNextInstructionSeconds } : {}),
  });
  if (awaitingCheck) steps = { ...steps, instructions: steps.instructions.filter((step) => step.step_type !== 'connectivity-check') };
  const wantedLong = steps.instructions.map((step) => step.step_type).filter((type) => LONG_CHECKS.has(type));
  if (wantedLong.length > 0) {
    // Each claimed by a conditional write of its mark: a poll answered by another instance
    // meanwhile sees the mark and does not hand the same check. Marks this read already shows
    // inside their window are not tried.
    const key = { orgId: principal.orgId, infraEnvId, hostId };
    const open = claimLongChecks(host.attributes[LONG_CHECKS_HANDED_AT], wantedLong, now).claimed;
    const riding = open.length > 0 ? pending.checkIn : undefined;
    if (riding) delete pending.checkIn;
    const claim = (type: string, i: number) =>
      i === 0 && riding
        ? deps.store.hosts.checkInClaiming(key, riding, type, longCheckClaim(type, now))
        : deps.store.hosts.claimLongCheck(key, type, longCheckClaim(type, now));
    const claimed = new Set((await Promise.all(open.map(async (type, i) => ((await claim(type, i)) ? [type] : [])))).flat());
    steps = { ...steps, instructions: steps.instructions.filter((step) => !LONG_CHECKS.has(step.step_type) || claimed.has(step.step_type)) };
  }
  const upgrade = steps.instructions.find((step) => step.step_type === 'upgrade-agent');
  if (upgrade) {
    await recordEvent(deps, {
      name: 'upgrade_agent_started',
      subject: { orgId: principal.orgId, infraEnvId, hostId, ...(host.clusterId ? { clusterId: host.clusterId } : {}) },
      props: { host_name: hostDisplayName(host), agent_image: settings.image },
    });
  }
  if (steps.instructions.some((step) => step.step_type === 'install')) {
    // Only the poll that wins this conditional write hands out the install step.
    const claimed = await deps.store.hosts.mutate({ orgId: principal.orgId, infraEnvId, hostId }, (current) => {
      if (current.status !== host.status || current.attributes.install_step_sent_at !== host.attributes.install_step_sent_at) return undefined;
      return { ...current, attributes: { ...current.attributes, install_step_sent_at: now.toISOString() }, updatedAt: now.toISOString() };
    });
    if (!claimed || claimed.attributes.install_step_sent_at !== now.toISOString()) {
      return { ...steps, instructions: steps.instructions.filter((step) => step.step_type !== 'install') };
    }
  }
  return steps;
}

export async function postStepReply(deps: AgentDeps, principal: Principal, infraEnvId: string, hostId: string, reply: StepReply): Promise<void> {
  let markTaken = false;
  try {
    markTaken = (await processStepReply(deps, principal, infraEnvId, hostId, reply)).markTaken;
  } finally {
    // A check answered may be handed again at once, so its mark goes, whether the reply was news,
    // no news or refused. Only once the reply is done: the agent starts no check while its last
    // one is still replying, so a check handed out meanwhile would be dropped and only handed
    // again 15 s later.
    if (LONG_CHECKS.has(reply.step_type) && !markTaken) await deps.store.hosts.answerLongCheck({ orgId: principal.orgId, infraEnvId, hostId }, reply.step_type);
  }
}

const isSingleNode = (cluster: Cluster | undefined) => cluster?.attributes.control_plane_count === 1;

/** `markTaken`: the check's mark went with what the reply wrote. */
async function processStepReply(deps: AgentDeps, principal: Principal, infraEnvId: string, hostId: string, reply: StepReply): Promise<{ markTaken: boolean }> {
  const host = await findHost(deps.store, principal, infraEnvId, hostId);
  // The cluster and infra-env are read fresh: other functions (the install workflow) change them,
  // and a copy remembered here would not show their writes, so every step waiting on them would
  // wait another round of replies (with second-old copies an HA install took about twice as
  // long). Most replies repeat the last one: only an inventory (the
  // disk size its cluster's release requires) and VIP verdicts read them before that is known.
  const readSurroundings = (consistency: 'strong' | 'eventual' = 'strong') => {
    const read = consistency === 'strong' ? 'get' : 'getEventually';
    return Promise.all([
      host.clusterId ? deps.store.clusters[read]({ orgId: principal.orgId, clusterId: host.clusterId }) : undefined,
      deps.store.infraEnvs[read]({ orgId: principal.orgId, infraEnvId }),
    ]);
  };
  const readFirst = reply.step_type === 'inventory' || reply.step_type === 'verify-vips';
  let [cluster, infraEnv] = readFirst ? await readSurroundings() : [undefined, undefined];
  const now = deps.clock.now().toISOString();
  const key = { orgId: principal.orgId, infraEnvId, hostId };
  const subject = { orgId: principal.orgId, infraEnvId, hostId, ...(host.clusterId ? { clusterId: host.clusterId } : {}) };
  if (reply.step_type === 'verify-vips' && cluster) await recordVipVerifications(deps, cluster, reply);
  // The upgrade's result is an event (nothing is stored); the reply then goes the usual way (lost media, errors).
  if (reply.step_type === 'upgrade-agent') await recordEvents(deps, eventRequests(subject, stepReplyEvents(host, host, reply, 0)));
  // Pure: a reply whose output is malformed is refused here, before anything is written.
  const preview = applyStepReply(host, reply, { now, disks: { ...(cluster ? { cluster } : {}), ...(infraEnv ? { infraEnv } : {}) } });
  // Only news can change the verdict: an unchanged reply leaves the host as it was, except that
  // a host waiting on its peers is judged anew at each periodic connectivity report (the peers
  // it is judged with may have changed since).
  const rejudge = rejudgedUnchanged(reply.step_type, host.status);
  // A reply that moves the host by the table (a failed install step, lost media) is news even
  // when its text is the same as last time's.
  if (!preview && !rejudge && !replyTransition(host, reply, now)) return { markTaken: false };
  // A connectivity report that moves neither who answered nor any verdict (a steady host's
  // periodic report: its round-trip times moved) is recorded as answered, on the liveness item.
  // Decided on the record read, which the answer leaves as it is: a host write made since by
  // another reply stands as if it came after this one. Most periodic reports end so: they are
  // judged against eventually consistent copies of the cluster and infra-env (half the reads). A
  // copy a second old decides as the fresh one did had the report come a second earlier, and the
  // answer writes neither; a report that does move something is judged again on fresh copies.
  const answerable =
    !!preview &&
    reply.step_type === 'connectivity-check' &&
    !replyTransition(host, reply, now) &&
    connectivityReplyWrite(host, preview, new Date(now)) === 'answered';
  if (answerable) {
    const [clusterCopy, infraEnvCopy] = await readSurroundings('eventual');
    if (!host.clusterId || clusterCopy) {
      const judged = judgedWrite(deps, await loadSurroundings(deps.store, preview, { cluster: clusterCopy, infraEnv: infraEnvCopy }));
      if (judged.judgeInto(preview) === preview) return { markTaken: await deps.store.hosts.answerConnectivityCheck(key, now) };
    }
  }
  if (!readFirst) [cluster, infraEnv] = await readSurroundings();
  const minimums = hardwareMinimums(cluster?.attributes.openshift_version ?? '');
  const role = isSingleNode(cluster) ? 'sno' : 'worker';
  const context = { now, disks: { ...(cluster ? { cluster } : {}), ...(infraEnv ? { infraEnv } : {}) } };
  // A reply its peers' validations read is judged against a listing started now (it shows every
  // peer's last word), and once written makes the next refresh in this process list the cluster
  // anew; the others are judged against the peers as listed within the last few seconds.
  const readByPeers = !!preview && !!host.clusterId && isNewsToPeers(reply.step_type, host.attributes, preview.attributes);
  if (readByPeers) forgetPeersUnlessLarge(principal.orgId, host.clusterId!);
  const surroundings = await loadSurroundings(deps.store, preview ?? host, { cluster, infraEnv });
  // The reply and the verdict it leads to are one conditional write.
  const write = judgedWrite(deps, surroundings);
  // Answered after all on the fresh copies (the eventual ones were missing or moved a verdict).
  if (answerable && write.judgeInto(preview) === preview) return { markTaken: await deps.store.hosts.answerConnectivityCheck(key, now) };
  let moved: ReturnType<typeof replyTransition>;
  // The version the write replaced: what it knew may be newer than the peers this reply was judged with.
  let replaced = host;
  const after = await deps.store.hosts.mutate(
    key,
    (current) => {
      write.reset();
      replaced = current;
      moved = replyTransition(current, reply, now);
      const base = moved?.host ?? current;
      const changed = applyStepReply(base, reply, context) ?? (moved ? base : undefined);
      if (!changed && !rejudgedUnchanged(reply.step_type, current.status)) return undefined;
      const judged = write.judgeInto(changed ?? current);
      return judged === current ? undefined : judged;
    },
    host,
  );
  if (after && after.version !== host.version) {
    if (readByPeers) forgetPeersUnlessLarge(principal.orgId, host.clusterId!);
    const effective = hostEffectiveRole(after.attributes);
    const thresholdMs =
      minimums[role === 'sno' ? 'sno' : effective === 'master' || effective === 'bootstrap' ? 'master' : 'worker']?.installation_disk_speed_threshold_ms ?? 0;
    // The reply's own transition happened first: its events lead.
    await write.announce(
      after,
      eventRequests(subject, stepReplyEvents(replaced, after, reply, thresholdMs)),
      eventRequests(subject, moved?.transition.events ?? []),
    );
    // The cluster, the peers waiting on this report, and a verdict that lost a peer-dependent
    // validation on a shared listing all follow through the table's stream (host-changes).
  }
  return { markTaken: false };
}

/**
 * A verify-vips reply's verdicts on the cluster's VIPs, written on the version read (upstream's
 * HandleVerifyVipsResponse); the cluster is judged again when one changed, since the VIP
 * validations read them.
 */
async function recordVipVerifications(deps: AgentDeps, cluster: Cluster, reply: StepReply): Promise<void> {
  let changed = false;
  await deps.store.clusters.mutate(
    { orgId: cluster.orgId, clusterId: cluster.clusterId },
    (current) => {
      const vips = applyVipVerifications(current, reply);
      changed = !!vips;
      return vips ? { ...current, attributes: { ...current.attributes, ...vips }, updatedAt: deps.clock.now().toISOString() } : undefined;
    },
    cluster,
  );
  // The cluster's own record changed: no host change carries this to its judgement.
  if (changed) await refreshCluster(deps, { orgId: cluster.orgId, clusterId: cluster.clusterId });
}
