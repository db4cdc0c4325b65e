/**
 * Re-validates a cluster and moves it through its state machine: after a host changed status or
 * validations, after a user's update, and on the monitor's pass. Computes the machine network
 * from the API VIP and the hosts' interfaces when the user has not set one, as upstream does.
 */
import { peerAddressBook } from '../domain/agent/agent-protocol.js';
import { clusterView, PEER_ADDRESS_BOOK, schedulableMastersForcedTrue, softTimeoutsEnabled, storedAddressBook, type StoredAddressBook } from '../domain/cluster/cluster.js';
import { ADD_HOSTS_CLUSTER_KIND } from '../domain/cluster/imported-cluster.js';
import { summarizeClusterValidations } from '../domain/cluster/cluster-facts.js';
import { summaryOf } from '../domain/cluster/cluster-hosts.js';
import { clusterConnectivityDocuments } from '../domain/cluster/cluster-connectivity.js';
import { hostInventory } from '../domain/host/inventory.js';
import { applyClusterEffects } from '../domain/cluster/cluster-effects.js';
import { clusterProgress, isNotAllowed, transitionCluster } from '../domain/cluster/cluster-state-machine.js';
import type { ClusterTransitionContext } from '../domain/cluster/cluster-state-machine.js';
import { installationTransitionContext } from '../domain/install/installation-progress.js';
import type { ValidationHostInput } from '../domain/cluster/validations/cluster-validation-context.js';
import { clusterValidationsInfo, validateCluster, validatesInStatus, validationChanges } from '../domain/cluster/validations/cluster-validations.js';
import type { Cluster, ClusterAttributes, Host } from '../domain/core/entities.js';
import { derivedMachineNetworks } from '../domain/cluster/cluster-machine-network.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { causedBy, clusterWrite, recordEvents } from './events.js';
import { refreshHost } from './host-refresh.js';

export interface ClusterRefreshDeps {
  store: Store;
  clock: Clock;
}


function validationInput(host: Host): ValidationHostInput {
  return {
    ...summaryOf(host),
    id: host.hostId,
    inventory: host.attributes.inventory as string | undefined,
    freeAddresses: host.attributes.free_addresses as string | undefined,
    timestamp: host.attributes.timestamp as number | undefined,
    installationDiskId: host.attributes.installation_disk_id as string | undefined,
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
function derivedMachineNetwork(cluster: Cluster, hosts: Host[]): string[] | undefined {
  const candidates = hosts.map((h) => ({ inventory: h.attributes.inventory as string | undefined }));
  return derivedMachineNetworks(cluster.status, cluster.attributes, candidates);
}

/** Judgements of one cluster made again when others keep writing it between a read and the write. */
const JUDGEMENTS_PER_REFRESH = 4;

export async function refreshCluster(
  deps: ClusterRefreshDeps,
  key: { orgId: string; clusterId: string },
  preloadedHosts?: Host[],
): Promise<Cluster | undefined> {
  const hosts = preloadedHosts ?? (await deps.store.hosts.listByCluster(key));
  for (let judgement = 1; ; judgement++) {
    const cluster = await deps.store.clusters.get(key);
    if (!cluster) return undefined;
    const outcome = await judgeCluster(deps, key, cluster, hosts);
    // Written, unchanged, or moved by someone else (their status stands): done. Otherwise the
    // cluster changed between the read and the write, and this verdict and its announcements were
    // made on a copy that is no longer the one written: judged again on the current record.
    if (outcome !== STALE) return outcome;
    if (judgement >= JUDGEMENTS_PER_REFRESH) return deps.store.clusters.get(key);
  }
}

const STALE = Symbol('stale');

async function judgeCluster(
  deps: ClusterRefreshDeps,
  key: { orgId: string; clusterId: string },
  cluster: Cluster,
  hosts: Host[],
): Promise<Cluster | undefined | typeof STALE> {
  const now = deps.clock.now();

  const machineNetwork = derivedMachineNetwork(cluster, hosts);
  const subject = { ...cluster, attributes: { ...cluster.attributes } };
  if (machineNetwork) {
    subject.attributes.machine_networks = machineNetwork.map((cidr) => ({ cluster_id: cluster.clusterId, cidr }));
  }
  // The DHCP lease validation times the lease from when the machine network was set: not an API field.
  const view = { ...clusterView(subject), machine_network_cidr_updated_at: subject.attributes.machine_network_cidr_updated_at };
  const ignored = cluster.attributes.ignored_cluster_validations as string | undefined;
  const results = validateCluster({ cluster: view as never, hosts: hosts.map(validationInput), now });
  // The machine reads the results in every status; they are recorded (and their changes announced)
  // only in the statuses upstream evaluates them in.
  const recordsValidations = validatesInStatus(cluster.status);
  const info = recordsValidations ? clusterValidationsInfo(results, ignored) : cluster.attributes.validations_info;
  const transition = transitionCluster({ status: cluster.status }, 'RefreshStatus', {
    now,
    statusInfo: cluster.attributes.status_info as string | undefined,
    statusUpdatedAt: (cluster.attributes.status_updated_at as string | undefined) ?? cluster.updatedAt,
    installStartedAt: cluster.attributes.install_started_at as string | undefined,
    controlPlaneCount: (cluster.attributes.control_plane_count as number | undefined) ?? 3,
    hosts: hosts.map(summaryOf),
    validations: summarizeClusterValidations(results, ignored),
    vipDhcpAllocation: !!cluster.attributes.vip_dhcp_allocation,
    softTimeoutsEnabled: softTimeoutsEnabled(cluster),
    ...installationContext(cluster),
  });
  const moved = !isNotAllowed(transition) && transition.changed;
  const infoChanged = info !== cluster.attributes.validations_info;
  const progress = progressOf(moved ? transition.status : cluster.status, cluster, hosts);
  const progressChanged = !!progress && JSON.stringify(progress) !== JSON.stringify(pickPercentages(cluster.attributes.progress));
  const addressBook = peerAddressBook(hosts);
  const addressBookChanged = addressBook !== storedAddressBook(cluster)?.fingerprint;
  // Upstream's monitor stores them before it judges, from the status the cluster had. A new
  // cluster's first judgement here (at its registration) is that first pass: the monitor here only
  // visits clusters through their hosts, so a cluster without any would otherwise never have them.
  const connectivity = clusterConnectivityDocuments(
    { status: cluster.status, controlPlaneCount: (cluster.attributes.control_plane_count as number | undefined) ?? 3 },
    hosts.map((host) => ({ id: host.hostId, connectivity: host.attributes.connectivity, inventory: hostInventory(host), summary: summaryOf(host) })),
  );
  const connectivityChanged = !!connectivity &&
    (connectivity.connectivity_majority_groups !== cluster.attributes.connectivity_majority_groups || connectivity.ip_collisions !== cluster.attributes.ip_collisions);
  // Refreshed from the hosts registered, as upstream does at each registration and departure (not
  // on a cluster adding hosts to an existing one: its import sets none).
  const forcedSchedulable = cluster.attributes.kind === ADD_HOSTS_CLUSTER_KIND ? undefined : schedulableMastersForcedTrue(hosts.length);
  const forcedSchedulableChanged = forcedSchedulable !== undefined && forcedSchedulable !== cluster.attributes.schedulable_masters_forced_true;
  if (!moved && !infoChanged && !machineNetwork && !progressChanged && !addressBookChanged && !connectivityChanged && !forcedSchedulableChanged) return cluster;

  const events = recordsValidations ? validationChanges((cluster.attributes.validations_info as string | undefined) ?? '{}', results) : [];
  // Whether this judgement is the one written: judgements of one cluster run at once in several
  // instances (the stream's follow-up, the install workflow, the monitor), and only the one whose
  // conditional write won may announce the move, or "installed" would be announced twice.
  let wrote = false;
  let stale = false;
  const updated = await deps.store.clusters.mutate(key, (current) => {
    wrote = false;
    stale = false;
    // Another refresh or a user's action changed the status meanwhile: theirs stands.
    if (current.status !== cluster.status) return undefined;
    if (current.version !== cluster.version) {
      stale = true;
      return undefined;
    }
    wrote = true;
    const next = structuredClone(current);
    if (recordsValidations) next.attributes.validations_info = info;
    if (machineNetwork) {
      next.attributes.machine_networks = subject.attributes.machine_networks;
      next.attributes.machine_network_cidr_updated_at = now.toISOString();
    }
    if (moved) {
      next.status = transition.status;
      next.attributes.status_info = transition.statusInfo;
      if (transition.status !== cluster.status) next.attributes.status_updated_at = now.toISOString();
      applyClusterEffects(next, transition.effects, now.toISOString());
    }
    if (progress) next.attributes.progress = { ...((next.attributes.progress as object | undefined) ?? {}), ...progress };
    if (connectivity) Object.assign(next.attributes, connectivity);
    if (forcedSchedulableChanged) next.attributes.schedulable_masters_forced_true = forcedSchedulable;
    if (addressBookChanged) next.attributes[PEER_ADDRESS_BOOK] = { fingerprint: addressBook, changed_at: now.toISOString() } satisfies StoredAddressBook;
    next.updatedAt = now.toISOString();
    return next;
  });
  if (stale) return STALE;
  if (!updated || !wrote) return updated;

  const eventSubject = { orgId: key.orgId, clusterId: key.clusterId };
  await recordEvents(deps, causedBy(clusterWrite(updated), [
    ...events.map((event) => ({ name: event.name, subject: eventSubject, props: event.props })),
    ...(moved ? transition.events.map((event) => ({ name: event.name, subject: eventSubject, props: event.props })) : []),
  ]));
  // Upstream's InstallCluster step: the prepared hosts start installing with the cluster. A failed
  // cluster fails its installed hosts too, as upstream's monitor does: the monitor here no longer
  // watches them, so they are judged now (listed after the write, so a host that finished meanwhile
  // is not missed). Their moves reach the cluster's next judgement through the table's stream.
  const startsInstalling = moved && transition.status === 'installing' && cluster.status === 'preparing-for-installation';
  const failed = moved && transition.status === 'error' && cluster.status !== 'error';
  if (startsInstalling || failed) {
    const targets = startsInstalling ? hosts : (await deps.store.hosts.listByCluster(key)).filter((host) => host.status === 'installed');
    for (const host of targets) {
      await refreshHost(deps, { orgId: host.orgId, infraEnvId: host.infraEnvId, hostId: host.hostId }, undefined, { cluster: updated });
    }
  }
  return updated;
}

const PERCENTAGES = ['preparing_for_installation_stage_percentage', 'installing_stage_percentage', 'finalizing_stage_percentage', 'total_percentage'] as const;

function pickPercentages(progress: ClusterAttributes['progress']): Record<string, number> {
  const source = progress ?? {};
  return Object.fromEntries(PERCENTAGES.flatMap((key) => (source[key] === undefined ? [] : [[key, source[key]]])));
}

/** The progress bar once an installation started; before that there is nothing to show. */
function progressOf(status: string, cluster: Cluster, hosts: Host[]): Record<string, number> | undefined {
  if (!cluster.attributes.install_started_at || ['ready', 'insufficient', 'pending-for-input'].includes(status)) return undefined;
  const summary = installationContext(cluster);
  return { ...clusterProgress({
    status,
    hosts: hosts.map(summaryOf),
    singleNode: cluster.attributes.control_plane_count === 1,
    monitoredOperators: summary.monitoredOperators ?? [],
    previous: pickPercentages(cluster.attributes.progress),
  }) };
}
