/**
 * The verdict on a host: from the host, its cluster, the cluster's other hosts and its infra-env
 * (the facts), to what the host becomes (the judgement): its validations, the role an auto-assign
 * host is suggested, the status it moves to and why, and the monitor shard that watches it. Pure:
 * the clock and the settings come in with the call. The refresh use case reads the records, calls
 * judgeHost, writes applyHostJudgement's record and records hostJudgementEvents.
 *
 * Why is a host insufficient? `blockingValidations(judgeHost(...))` lists each failed validation
 * that holds it back, with upstream's one-line message for it.
 */
import { createHash } from 'node:crypto';
import { softTimeoutsEnabled } from '../cluster/cluster.js';
import { hasEnoughMastersAndWorkers, summaryOf } from '../cluster/cluster-hosts.js';
import type { Cluster, Host, InfraEnv } from '../core/entities.js';
import { isValidationIgnored } from '../core/ignored-validations.js';
import type { EventIntent } from '../core/state-rules.js';
import { hostDisplayName } from '../host/host.js';
import { applyHostEffects } from '../host/host-effects.js';
import {
  isNotAllowed,
  summarizeHostValidations,
  transitionHost,
  type HostTransition,
  type HostTransitionContext,
  type HostValidationSummary,
} from '../host/host-state-machine.js';
import type { HostRole } from '../host/host-states.js';
import { hostInventory, storedDiskSpeed } from '../host/inventory.js';
import {
  judgeHostValidations,
  validationChanges,
  validationsInfo,
  validationsInfoChanged,
  type HostValidationConfig,
  type HostValidationInput,
  type HostValidationResult,
  type ValidationChange,
} from '../host/validations/host-validations.js';
import { isWatchedHost } from '../install/installation-progress.js';
import { isJsonObject } from '../../../contracts/json-shapes.js';

/**
 * A peer of the host judged, as the verdict reads it: what the validations read of the cluster's
 * other hosts (their inventories, roles and connectivity, through sharedPeers in host-validations.ts),
 * and, for the pending-user-action give-up rule, their summaries (summaryOf).
 */
export type HostPeer = NonNullable<HostValidationInput['clusterHosts']>[number];

/** What a host is judged against besides itself; the monitor loads it once per cluster for all its hosts. */
export interface HostSurroundings {
  cluster?: Cluster;
  /** The cluster's hosts, this one among them or not. */
  clusterHosts: readonly HostPeer[];
  infraEnv?: InfraEnv;
  /** Judge against the listing's peer facts even for a host changed since (see HostValidationInput). */
  peersAsListed?: boolean;
}

/** What a judgement is made with besides the records. */
export interface HostJudgementSettings {
  now: Date;
  /** How many monitor shards watch hosts (the store's active shards). */
  activeShards: number;
  /** The validation settings; upstream's defaults when absent. Pass one object per settings: peers are shared per object. */
  config?: HostValidationConfig;
}

/** The verdict on one version of a host. */
export interface HostJudgement {
  /** The version judged: a write applies this judgement only over that very version. */
  version: number;
  /** Every validation's result, hidden ones included. */
  results: readonly HostValidationResult[];
  /** What the state machine read of the results (the cluster's ignored validations applied). */
  summary: HostValidationSummary;
  /** The role an auto-assign host was judged as, when it differs from the one stored (upstream's RefreshRole). */
  suggestedRole: HostRole | undefined;
  /** The validations_info document of the results. */
  info: string;
  /** The transition to write, when the host moves. */
  move: HostTransition | undefined;
  /** The monitor shard watching the host after the move; undefined when it is not watched. */
  shard: number | undefined;
  /** The validations whose status flipped from the stored document's. */
  changes: readonly ValidationChange[];
  /** Nothing stored changes. */
  unchanged: boolean;
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
export function wouldSucceedWithoutHost(host: Host, cluster: Cluster, clusterHosts: readonly HostPeer[]): boolean {
  const isSelf = (peer: HostPeer) => peer.hostId === host.hostId && peer.infraEnvId === host.infraEnvId;
  const all = [...clusterHosts.filter((peer) => !isSelf(peer)), host].map(summaryOf);
  return hasEnoughMastersAndWorkers(all, cluster.attributes.control_plane_count ?? 3, ['installed']);
}

/** What the host state machine reads of the host, its cluster and its validations. */
export function hostTransitionContext(
  host: Host,
  cluster: Cluster | undefined,
  clusterHosts: readonly HostPeer[],
  now: Date,
  validations: HostValidationSummary,
): HostTransitionContext {
  const attributes = host.attributes;
  const progress = attributes.progress;
  return {
    now,
    hostName: hostDisplayName(host),
    statusInfo: attributes.status_info,
    statusUpdatedAt: attributes.status_updated_at ?? host.updatedAt,
    bound: !!host.clusterId,
    day2: attributes.kind === 'AddToExistingClusterHost',
    role: (attributes.role === 'auto-assign' ? attributes.suggested_role : attributes.role) ?? 'auto-assign',
    bootstrap: !!attributes.bootstrap,
    checkedInAt: attributes.checked_in_at,
    mediaConnected: attributes.media_status !== 'disconnected',
    // Soft timeouts warn once: these flags say the warning was given.
    connectionTimedOut: attributes.connection_timed_out === true,
    ...(progress
      ? {
          progress: {
            currentStage: progress.current_stage,
            progressInfo: progress.progress_info,
            stageUpdatedAt: progress.stage_updated_at,
            stageTimedOut: progress.stage_timed_out === true,
          },
        }
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
export function preparationResults(host: Host, cluster: Cluster | undefined): { diskSpeedCheckSucceeded: boolean; containerImagesAvailable: boolean } {
  const attributes = host.attributes;
  const speed = storedDiskSpeed(attributes);
  // A disk booted as is is not measured (upstream's persistent boot device).
  const persistentBoot = hostInventory(host)?.boot?.device_type === 'persistent';
  const diskSpeedCheckSucceeded = persistentBoot || (!!speed?.tested && (speed.exit_code ?? 0) === 0);
  const image = cluster?.attributes.ocp_release_image;
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

/** The verdict on this version of the host, against its surroundings (upstream's RefreshStatus and RefreshRole). */
export function judgeHost(host: Host, surroundings: HostSurroundings, settings: HostJudgementSettings): HostJudgement {
  const { cluster, clusterHosts, infraEnv, peersAsListed } = surroundings;
  const { now, activeShards, config } = settings;
  const { results, role } = judgeHostValidations({
    host,
    cluster,
    clusterHosts,
    infraEnv,
    now,
    ...(peersAsListed ? { peersAsListed } : {}),
    ...(config ? { config } : {}),
  });
  const suggested = cluster && host.attributes.role === 'auto-assign' && SUGGESTING_STATUSES.has(host.status) && role !== 'auto-assign';
  const suggestedRole = suggested && role !== host.attributes.suggested_role ? role : undefined;
  const info = validationsInfo(results);
  const summary = summarizeHostValidations(results, cluster?.attributes.ignored_host_validations);
  const transition = transitionHost({ status: host.status }, 'RefreshHost', hostTransitionContext(host, cluster, clusterHosts, now, summary));
  const move = !isNotAllowed(transition) && transition.changed ? transition : undefined;
  const infoChanged = validationsInfoChanged(host.attributes.validations_info, info);
  const shard = isWatchedHost(move ? move.status : host.status, host.attributes) ? monitorShardOf(host.hostId, activeShards) : undefined;
  return {
    version: host.version,
    results,
    summary,
    suggestedRole,
    info,
    move,
    shard,
    changes: validationChanges(host.attributes.validations_info, info),
    unchanged: !move && !infoChanged && !suggestedRole && shard === host.monitorShard,
  };
}

/**
 * The host as the judgement leaves it (validations, suggested role, status, effects, watch), or
 * undefined when the judgement changes nothing stored. `now` is the write's time.
 */
export function applyHostJudgement(current: Host, judged: HostJudgement, now: string, activeShards: number): Host | undefined {
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
 * The events a written judgement tells of, in order: validations failed and fixed, the move's
 * own events, and the suggested role. `before` is the version judged.
 */
export function hostJudgementEvents(before: Host, judged: HostJudgement): EventIntent[] {
  const hostName = hostDisplayName(before);
  const events: EventIntent[] = [];
  for (const change of judged.changes) {
    if (change.kind === 'failed') {
      events.push({
        name: 'host_validation_failed',
        props: { host_name: hostName, validation_id: change.id, failure_message: change.failureMessage ?? 'failed' },
      });
    } else if (change.kind === 'fixed') {
      events.push({ name: 'host_validation_fixed', props: { host_name: hostName, validation_id: change.id } });
    }
  }
  for (const event of judged.move?.events ?? []) events.push(event);
  if (judged.suggestedRole) events.push({ name: 'host_role_updated', props: { host_name: hostName, suggested_role: judged.suggestedRole } });
  return events;
}

/** A validation that holds a host back, with upstream's one-line reason. */
export interface BlockingValidation {
  id: HostValidationResult['id'];
  reason: string;
}

/**
 * Why the host is not ready to install: each validation of the judgement that failed and that the
 * cluster does not ignore, with its message, in upstream's order of validations.
 */
export function blockingValidations(judged: HostJudgement, cluster?: Cluster): BlockingValidation[] {
  const ignored = cluster?.attributes.ignored_host_validations;
  return judged.results
    .filter((result) => result.status === 'failure' && !isValidationIgnored('host', ignored, result.id))
    .map((result) => ({ id: result.id, reason: result.message }));
}
