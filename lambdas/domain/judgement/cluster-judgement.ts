/**
 * The verdict on a cluster: from the cluster and its hosts (the facts), to what the cluster becomes
 * (the judgement): its validations, the status it moves to and why, the machine network derived
 * from its VIPs and hosts, the installation's progress, the connectivity documents, the peer
 * address book, and which hosts must be judged again after it. Pure: the clock comes in with the
 * call. The refresh use case reads the records, calls judgeCluster, writes applyClusterJudgement's
 * record and records the judgement's events.
 *
 * Why is a cluster insufficient? `judgeCluster(...).move?.statusInfo` says it as upstream does,
 * and `results` holds each validation with its one-line message.
 */
import { peerAddressBook } from '../agent/agent-protocol.js';
import { schedulableMastersForcedTrue, softTimeoutsEnabled } from '../cluster/cluster.js';
import { clusterView, PEER_ADDRESS_BOOK, storedAddressBook, type StoredAddressBook } from '../cluster/cluster-document.js';
import {
  CONNECTIVITY_DOCUMENTS_MARK,
  clusterConnectivityDocuments,
  computesConnectivityDocumentsIn,
  connectivityDocumentsMark,
  storedConnectivityDocumentsHold,
  type ConnectivityDocuments,
} from '../cluster/cluster-connectivity.js';
import { applyClusterEffects } from '../cluster/cluster-effects.js';
import { summarizeClusterValidations } from '../cluster/cluster-facts.js';
import { isTwoNodesWithFencing, summaryOf } from '../cluster/cluster-hosts.js';
import { derivedMachineNetworks } from '../cluster/cluster-machine-network.js';
import { usesCustomManifests } from '../cluster/feature-usage.js';
import { clusterProgress, isNotAllowed, transitionCluster, type ClusterTransition, type ClusterTransitionContext } from '../cluster/cluster-state-machine.js';
import { ADD_HOSTS_CLUSTER_KIND } from '../cluster/imported-cluster.js';
import type { ClusterValidationResult, ValidationHostInput } from '../cluster/validations/cluster-validation-context.js';
import { clusterValidationsInfo, validateCluster, validatesInStatus, validationChanges } from '../cluster/validations/cluster-validations.js';
import type { Cluster, ClusterAttributes, Host } from '../core/entities.js';
import type { EventIntent } from '../core/state-rules.js';
import { hostInventory } from '../host/inventory.js';
import { CONNECTIVITY_GROUPS_FOR_FENCING } from '../host/validations/host-validations-model.js';
import { installationTransitionContext } from '../install/installation-progress.js';

/** The verdict on one version of a cluster. */
export interface ClusterJudgement {
  /** The version judged: a write applies this judgement only over that very version. */
  version: number;
  /** The status the cluster had when judged: a write applies the judgement only while it still has it. */
  status: string;
  /** Every cluster validation's result. */
  results: readonly ClusterValidationResult[];
  /** Whether the validations are recorded in this status (upstream evaluates them only in some). */
  recordsValidations: boolean;
  /** The validations_info document to store (the one stored when the status records none). */
  info: string | undefined;
  /** The transition to write, when the cluster moves. */
  move: ClusterTransition | undefined;
  /** The machine networks derived from the VIPs and the hosts, when the user set none. */
  machineNetworks: { cluster_id: string; cidr: string }[] | undefined;
  /** The progress percentages to merge in, when they changed. */
  progress: Record<string, number> | undefined;
  /** The connectivity documents, when they, their mark or the topology they were computed for changed. */
  connectivity: ConnectivityDocuments | undefined;
  /** Whether those documents were computed for a two-node cluster with fencing (CONNECTIVITY_GROUPS_FOR_FENCING), with them. */
  connectivityForFencing: boolean | undefined;
  /** The stored documents were kept and the status moves to another configuring one: their mark moves with it. */
  markFollowsMove: boolean;
  /** schedulable_masters_forced_true, when it changed. */
  forcedSchedulable: boolean | undefined;
  /** The fingerprint of the hosts' addresses, when it changed. */
  addressBook: string | undefined;
  /** What the write tells of: validations failed and fixed, then the move's own events. */
  events: readonly EventIntent[];
  /**
   * Hosts to judge again once written (upstream's InstallCluster step and its monitor's failure of
   * installed hosts): every host judged with the cluster when it starts installing; the installed
   * ones, as listed after the write, when it fails.
   */
  rejudgeHosts: 'judged' | 'installed' | undefined;
  /** Nothing stored changes. */
  unchanged: boolean;
}

export interface ClusterJudgementOptions {
  now: Date;
  /**
   * false: no host change since the cluster's last judgement moved what its connectivity documents
   * read (followUps' connectivityNews), so the stored ones serve where they still hold
   * (storedConnectivityDocumentsHold) and no host's report is read. Absent: computed.
   */
  connectivityNews?: boolean;
}

/** What the cluster validations read of a host. */
function validationInput(host: Host): ValidationHostInput {
  return {
    ...summaryOf(host),
    id: host.hostId,
    inventory: host.attributes.inventory,
    freeAddresses: host.attributes.free_addresses,
    timestamp: host.attributes.timestamp,
    installationDiskId: host.attributes.installation_disk_id,
  };
}

/** What the installation has recorded on the cluster, as the state machine reads it. */
export function installationContext(cluster: Cluster): Partial<ClusterTransitionContext> {
  const attributes = cluster.attributes;
  const preparation = attributes.last_installation_preparation?.status;
  return {
    ...(preparation ? { lastInstallationPreparation: preparation } : {}),
    ...installationTransitionContext(cluster),
    logs: {
      ...(attributes.logs_info ? { info: attributes.logs_info } : {}),
      ...(attributes.controller_logs_started_at ? { startedAt: attributes.controller_logs_started_at } : {}),
      ...(attributes.controller_logs_collected_at ? { collectedAt: attributes.controller_logs_collected_at } : {}),
    },
  };
}

/** The machine networks upstream's monitor derives from the VIPs and the hosts (cluster-machine-network). */
function derivedMachineNetwork(cluster: Cluster, hosts: readonly Host[]): string[] | undefined {
  const candidates = hosts.map((h) => ({ inventory: h.attributes.inventory }));
  return derivedMachineNetworks(cluster.status, cluster.attributes, candidates);
}

const PERCENTAGES = ['preparing_for_installation_stage_percentage', 'installing_stage_percentage', 'finalizing_stage_percentage', 'total_percentage'] as const;

function pickPercentages(progress: ClusterAttributes['progress']): Record<string, number> {
  const source = progress ?? {};
  return Object.fromEntries(PERCENTAGES.flatMap((key) => (source[key] === undefined ? [] : [[key, source[key]]])));
}

/** The progress bar once an installation started; before that there is nothing to show. */
function progressOf(status: string, cluster: Cluster, hosts: readonly Host[]): Record<string, number> | undefined {
  if (!cluster.attributes.install_started_at || ['ready', 'insufficient', 'pending-for-input'].includes(status)) return undefined;
  const summary = installationContext(cluster);
  return {
    ...clusterProgress({
      status,
      hosts: hosts.map(summaryOf),
      singleNode: cluster.attributes.control_plane_count === 1,
      monitoredOperators: summary.monitoredOperators ?? [],
      previous: pickPercentages(cluster.attributes.progress),
    }),
  };
}

/** The verdict on this version of the cluster with these hosts (upstream's cluster RefreshStatus and its monitor's bookkeeping). */
export function judgeCluster(cluster: Cluster, hosts: readonly Host[], options: ClusterJudgementOptions): ClusterJudgement {
  const { now } = options;
  const controlPlaneCount = cluster.attributes.control_plane_count ?? 3;
  const derived = derivedMachineNetwork(cluster, hosts);
  const machineNetworks = derived?.map((cidr) => ({ cluster_id: cluster.clusterId, cidr }));
  const subject = { ...cluster, attributes: { ...cluster.attributes } };
  if (machineNetworks) subject.attributes.machine_networks = machineNetworks;
  // The DHCP lease validation times the lease from when the machine network was set: not an API field.
  const view = { ...clusterView(subject), machine_network_cidr_updated_at: subject.attributes.machine_network_cidr_updated_at };
  const ignored = cluster.attributes.ignored_cluster_validations;
  const results = validateCluster({
    cluster: view as never,
    hosts: hosts.map(validationInput),
    now,
    customManifestsUploaded: usesCustomManifests(cluster.attributes.feature_usage),
  });
  // The machine reads the results in every status; they are recorded (and their changes announced)
  // only in the statuses upstream evaluates them in.
  const recordsValidations = validatesInStatus(cluster.status);
  const info = recordsValidations ? clusterValidationsInfo(results, ignored) : cluster.attributes.validations_info;
  const transition = transitionCluster({ status: cluster.status }, 'RefreshStatus', {
    now,
    statusInfo: cluster.attributes.status_info,
    statusUpdatedAt: cluster.attributes.status_updated_at ?? cluster.updatedAt,
    installStartedAt: cluster.attributes.install_started_at,
    controlPlaneCount,
    hosts: hosts.map(summaryOf),
    validations: summarizeClusterValidations(results, ignored),
    vipDhcpAllocation: !!cluster.attributes.vip_dhcp_allocation,
    softTimeoutsEnabled: softTimeoutsEnabled(cluster),
    ...installationContext(cluster),
  });
  const move = !isNotAllowed(transition) && transition.changed ? transition : undefined;
  const infoChanged = info !== cluster.attributes.validations_info;
  const progress = progressOf(move ? move.status : cluster.status, cluster, hosts);
  const progressChanged = !!progress && JSON.stringify(progress) !== JSON.stringify(pickPercentages(cluster.attributes.progress));
  const addressBook = peerAddressBook(hosts);
  const addressBookChanged = addressBook !== storedAddressBook(cluster)?.fingerprint;
  // Upstream's monitor stores them before it judges, from the status the cluster had. A new
  // cluster's first judgement here (at its registration) is that first pass: the monitor here only
  // visits clusters through their hosts, so a cluster without any would otherwise never have them.
  const documentsHeld = storedConnectivityDocumentsHold(cluster, options.connectivityNews ?? true);
  const connectivity = documentsHeld
    ? undefined
    : clusterConnectivityDocuments(
        { status: cluster.status, controlPlaneCount },
        hosts.map((host) => ({ id: host.hostId, connectivity: host.attributes.connectivity, inventory: hostInventory(host), summary: summaryOf(host) })),
      );
  // The mark is written with unchanged documents too (the next judgement without news trusts
  // them): the one applyClusterJudgement leaves, with the status this judgement moves to.
  const documentsMark = connectivityDocumentsMark({
    status: move?.status ?? cluster.status,
    createdAt: cluster.createdAt,
    attributes: { status_updated_at: move && move.status !== cluster.status ? now.toISOString() : cluster.attributes.status_updated_at },
  });
  // The hosts read the groups of the topology they were computed for until the cluster is next
  // judged (host-validations-model, CONNECTIVITY_GROUPS_FOR_FENCING).
  const connectivityForFencing = connectivity ? isTwoNodesWithFencing(hosts.map(summaryOf), controlPlaneCount) : undefined;
  // Held documents stay true across this judgement's own move to another configuring status (no
  // report they read moved): their mark follows the status in the same write, or the next judgement
  // would compute them again and write the cluster for the mark alone (a stream record delivered
  // again must change nothing).
  const markFollowsMove = documentsHeld && !!move && move.status !== cluster.status && computesConnectivityDocumentsIn(move.status);
  const connectivityChanged =
    !!connectivity &&
    (connectivity.connectivity_majority_groups !== cluster.attributes.connectivity_majority_groups ||
      connectivity.ip_collisions !== cluster.attributes.ip_collisions ||
      cluster.attributes[CONNECTIVITY_DOCUMENTS_MARK] !== documentsMark ||
      connectivityForFencing !== cluster.attributes[CONNECTIVITY_GROUPS_FOR_FENCING]);
  // Refreshed from the hosts registered, as upstream does at each registration and departure (not
  // on a cluster adding hosts to an existing one: its import sets none).
  const forcedSchedulable =
    cluster.attributes.kind === ADD_HOSTS_CLUSTER_KIND
      ? undefined
      : schedulableMastersForcedTrue(
          controlPlaneCount,
          hosts.map((host) => host.attributes),
        );
  const forcedSchedulableChanged = forcedSchedulable !== undefined && forcedSchedulable !== cluster.attributes.schedulable_masters_forced_true;
  const unchanged = !move && !infoChanged && !machineNetworks && !progressChanged && !addressBookChanged && !connectivityChanged && !forcedSchedulableChanged;
  const validationEvents = recordsValidations && !unchanged ? validationChanges(cluster.attributes.validations_info ?? '{}', results) : [];
  const startsInstalling = move?.status === 'installing' && cluster.status === 'preparing-for-installation';
  const fails = move?.status === 'error' && cluster.status !== 'error';
  return {
    version: cluster.version,
    status: cluster.status,
    results,
    recordsValidations,
    info,
    move,
    machineNetworks,
    progress: progressChanged ? progress : undefined,
    connectivity: connectivityChanged ? connectivity : undefined,
    connectivityForFencing: connectivityChanged ? connectivityForFencing : undefined,
    markFollowsMove,
    forcedSchedulable: forcedSchedulableChanged ? forcedSchedulable : undefined,
    addressBook: addressBookChanged ? addressBook : undefined,
    events: [...validationEvents, ...(move?.events ?? [])],
    rejudgeHosts: startsInstalling ? 'judged' : fails ? 'installed' : undefined,
    unchanged,
  };
}

/** The cluster as the judgement leaves it. `now` is the write's time. */
export function applyClusterJudgement(current: Cluster, judged: ClusterJudgement, now: string): Cluster {
  const next = structuredClone(current);
  if (judged.recordsValidations) next.attributes.validations_info = judged.info;
  if (judged.machineNetworks) {
    next.attributes.machine_networks = judged.machineNetworks;
    next.attributes.machine_network_cidr_updated_at = now;
  }
  const { move } = judged;
  if (move) {
    next.status = move.status;
    next.attributes.status_info = move.statusInfo;
    if (move.status !== judged.status) next.attributes.status_updated_at = now;
    applyClusterEffects(next, move.effects, now);
  }
  if (judged.progress) next.attributes.progress = { ...((next.attributes.progress as object | undefined) ?? {}), ...judged.progress };
  if (judged.connectivity) {
    Object.assign(next.attributes, judged.connectivity);
    next.attributes[CONNECTIVITY_DOCUMENTS_MARK] = connectivityDocumentsMark(next);
  }
  if (judged.markFollowsMove) next.attributes[CONNECTIVITY_DOCUMENTS_MARK] = connectivityDocumentsMark(next);
  if (judged.connectivityForFencing !== undefined) next.attributes[CONNECTIVITY_GROUPS_FOR_FENCING] = judged.connectivityForFencing;
  if (judged.forcedSchedulable !== undefined) next.attributes.schedulable_masters_forced_true = judged.forcedSchedulable;
  if (judged.addressBook !== undefined) next.attributes[PEER_ADDRESS_BOOK] = { fingerprint: judged.addressBook, changed_at: now } satisfies StoredAddressBook;
  next.updatedAt = now;
  return next;
}
