/**
 * Re-validates a cluster and moves it through its state machine: after a host changed status or
 * validations, after a user's update, and on the monitor's pass. Computes the machine network
 * from the API VIP and the hosts' interfaces when the user has not set one, as upstream does.
 */
import { clusterView, softTimeoutsEnabled } from '../domain/cluster.js';
import { summarizeClusterValidations } from '../domain/cluster-facts.js';
import type { ClusterHostSummary } from '../domain/cluster-hosts.js';
import { applyClusterEffects } from '../domain/cluster-effects.js';
import { clusterProgress, isNotAllowed, transitionCluster } from '../domain/cluster-state-machine.js';
import type { ClusterStatus, ClusterTransitionContext, InstallationPreparationStatus } from '../domain/cluster-state-machine.js';
import { installationTransitionContext } from '../domain/installation-progress.js';
import type { ValidationHostInput } from '../domain/cluster-validation-context.js';
import { clusterValidationsInfo, validateCluster, validationChanges } from '../domain/cluster-validations.js';
import type { Cluster, Host } from '../domain/entities.js';
import type { HostRole, HostStage } from '../domain/host-states.js';
import { calculateMachineNetworkCidr } from '../domain/machine-network.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { recordEvents } from './events.js';
// host-refresh imports this module too; the functions are only called after both loaded.
import { refreshHost } from './host-refresh.js';

export interface ClusterRefreshDeps {
  store: Store;
  clock: Clock;
}

export function summaryOf(host: Host): ClusterHostSummary {
  const progress = host.attributes.progress as { current_stage?: HostStage } | undefined;
  return {
    status: host.status,
    role: (host.attributes.role as HostRole | undefined) ?? 'auto-assign',
    suggestedRole: host.attributes.suggested_role as HostRole | undefined,
    bootstrap: !!host.attributes.bootstrap,
    ...(progress?.current_stage ? { currentStage: progress.current_stage } : {}),
  };
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
  const preparation = (attributes.last_installation_preparation as { status?: InstallationPreparationStatus } | undefined)?.status;
  return {
    ...(preparation ? { lastInstallationPreparation: preparation } : {}),
    ...installationTransitionContext(cluster),
    logs: {
      ...(attributes.logs_info ? { info: attributes.logs_info as NonNullable<ClusterTransitionContext['logs']>['info'] } : {}),
      ...(attributes.controller_logs_started_at ? { startedAt: attributes.controller_logs_started_at as string } : {}),
      ...(attributes.controller_logs_collected_at ? { collectedAt: attributes.controller_logs_collected_at as string } : {}),
    },
  };
}

/** The machine network upstream derives when VIPs are set and the user gave none. */
function derivedMachineNetwork(cluster: Cluster, hosts: Host[]): string | undefined {
  const attributes = cluster.attributes;
  if (attributes.user_managed_networking || ((attributes.machine_networks as unknown[] | undefined) ?? []).length > 0) return undefined;
  const apiVip = (attributes.api_vips as { ip: string }[] | undefined)?.[0]?.ip;
  const ingressVip = (attributes.ingress_vips as { ip: string }[] | undefined)?.[0]?.ip;
  if (!apiVip) return undefined;
  const candidates = hosts.map((h) => ({ inventory: h.attributes.inventory as string | undefined }));
  return calculateMachineNetworkCidr(candidates, apiVip, ingressVip);
}

export async function refreshCluster(deps: ClusterRefreshDeps, key: { orgId: string; clusterId: string }, preloadedHosts?: Host[]): Promise<Cluster | undefined> {
  const cluster = await deps.store.clusters.get(key);
  if (!cluster) return undefined;
  const hosts = preloadedHosts ?? (await deps.store.hosts.listByCluster(key));
  clusterSizes.set(`${key.orgId}/${key.clusterId}`, hosts.length);
  if (clusterSizes.size > 10_000) clusterSizes.delete(clusterSizes.keys().next().value!);
  const now = deps.clock.now();

  const machineNetwork = derivedMachineNetwork(cluster, hosts);
  const subject = { ...cluster, attributes: { ...cluster.attributes } };
  if (machineNetwork) {
    subject.attributes.machine_networks = [{ cluster_id: cluster.clusterId, cidr: machineNetwork }];
    subject.attributes.machine_network_cidr = machineNetwork;
  }
  // The DHCP lease validation times the lease from when the machine network was set: not an API field.
  const view = { ...clusterView(subject), machine_network_cidr_updated_at: subject.attributes.machine_network_cidr_updated_at };
  const ignored = cluster.attributes.ignored_cluster_validations as string | undefined;
  const results = validateCluster({ cluster: view as never, hosts: hosts.map(validationInput), now });
  const info = clusterValidationsInfo(results, ignored);
  const transition = transitionCluster({ status: cluster.status as ClusterStatus }, 'RefreshStatus', {
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
  if (!moved && !infoChanged && !machineNetwork && !progressChanged) return cluster;

  const events = validationChanges((cluster.attributes.validations_info as string | undefined) ?? '{}', results);
  const updated = await deps.store.clusters.mutate(key, (current) => {
    // Another refresh or a user's action changed the status meanwhile: theirs stands.
    if (current.status !== cluster.status) return undefined;
    const next = structuredClone(current);
    next.attributes.validations_info = info;
    if (machineNetwork) {
      next.attributes.machine_networks = subject.attributes.machine_networks;
      next.attributes.machine_network_cidr = machineNetwork;
      next.attributes.machine_network_cidr_updated_at = now.toISOString();
    }
    if (moved) {
      next.status = transition.status;
      next.attributes.status_info = transition.statusInfo;
      if (transition.status !== cluster.status) next.attributes.status_updated_at = now.toISOString();
      applyClusterEffects(next, transition.effects, now.toISOString());
    }
    if (progress) next.attributes.progress = { ...((next.attributes.progress as object | undefined) ?? {}), ...progress };
    next.updatedAt = now.toISOString();
    return next;
  });
  if (!updated || updated.status !== (moved ? transition.status : cluster.status)) return updated;

  const eventSubject = { orgId: key.orgId, clusterId: key.clusterId };
  await recordEvents(deps, [
    ...events.map((event) => ({ name: event.name, subject: eventSubject, props: event.props })),
    ...(moved ? transition.events.map((event) => ({ name: event.name, subject: eventSubject, props: event.props as Record<string, string> })) : []),
  ]);
  // Upstream's InstallCluster step: the prepared hosts start installing with the cluster. A failed
  // cluster fails its installed hosts too, as upstream's monitor does: the monitor here no longer
  // watches them, so they are judged now (listed after the write, so a host that finished meanwhile
  // is not missed). The cluster is not re-judged from here: this judgement is that re-judgement,
  // and waiting on another one of the same cluster would wait on itself.
  const startsInstalling = moved && transition.status === 'installing' && cluster.status === 'preparing-for-installation';
  const failed = moved && transition.status === 'error' && cluster.status !== 'error';
  if (startsInstalling || failed) {
    const targets = startsInstalling ? hosts : (await deps.store.hosts.listByCluster(key)).filter((host) => host.status === 'installed');
    for (const host of targets) {
      await refreshHost(deps, { orgId: host.orgId, infraEnvId: host.infraEnvId, hostId: host.hostId }, undefined, { cluster: updated }, { refreshCluster: false });
    }
  }
  return updated;
}

const PERCENTAGES = ['preparing_for_installation_stage_percentage', 'installing_stage_percentage', 'finalizing_stage_percentage', 'total_percentage'] as const;

function pickPercentages(progress: unknown): Record<string, number> {
  const source = (progress as Record<string, number> | undefined) ?? {};
  return Object.fromEntries(PERCENTAGES.filter((key) => source[key] !== undefined).map((key) => [key, source[key]!]));
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

/**
 * A refresh that starts after the caller's change, shared: at most one refresh of a cluster runs
 * in this process and at most one waits behind it, which every caller arriving meanwhile joins.
 * When hundreds of hosts change at once, the cluster is re-judged a few times, not once per host.
 */
const runningRefresh = new Map<string, Promise<void>>();
const queuedRefresh = new Map<string, Promise<void>>();
/** How many hosts each cluster had at its last refresh in this process, and when that refresh ran. */
const clusterSizes = new Map<string, number>();
const lastRefresh = new Map<string, { startedAt: number; tookMs: number }>();

/** Clusters up to this size are re-judged after every host status change (see refreshClusterCoalesced). */
export const CLUSTER_REFRESH_PER_CHANGE_UP_TO = 100;
/**
 * A larger cluster is re-judged on a host's change at most this often in one process, or for a
 * cluster slow to re-judge, once per four times what its last re-judgement took.
 */
export const LARGE_CLUSTER_REFRESH_EVERY_MS = 5_000;

export function refreshClusterCoalesced(
  deps: ClusterRefreshDeps,
  key: { orgId: string; clusterId: string },
  options: {
    joinWithoutWaiting?: boolean;
    throttleLarge?: boolean;
    /** For a large cluster: its hosts as listed recently, shared with the hosts' own judgements, instead of a listing of its own. */
    recentHosts?: () => Promise<Host[]>;
    /** Its hosts as the caller just read and wrote them (the monitor after a pass), for any size. */
    hosts?: Host[];
  } = {},
): Promise<void> {
  const id = `${key.orgId}/${key.clusterId}`;
  // Re-judging a cluster lists all its hosts: in a large cluster, one re-judgement per host change
  // would make a burst of n changes cost n listings of n hosts. There a change re-judges the cluster
  // only when the last re-judgement started long enough ago; a change left out is picked up by the
  // next one, or by the monitor's whole judgement of the changed cluster.
  const last = lastRefresh.get(id);
  const large = (clusterSizes.get(id) ?? 0) > CLUSTER_REFRESH_PER_CHANGE_UP_TO;
  if (options.throttleLarge && large && last && Date.now() - last.startedAt < Math.max(LARGE_CLUSTER_REFRESH_EVERY_MS, 4 * last.tookMs)) {
    return Promise.resolve();
  }
  const queued = queuedRefresh.get(id);
  // A queued refresh starts after this caller's change and is awaited by the caller that queued
  // it, so a caller with nothing to read from it can leave at once. (A Lambda container serves
  // one request at a time: there, nothing is ever queued by another request.)
  if (queued) return options.joinWithoutWaiting ? Promise.resolve() : queued;
  const previous = runningRefresh.get(id) ?? Promise.resolve();
  const next: Promise<void> = previous
    .catch(() => undefined)
    .then(async () => {
      queuedRefresh.delete(id);
      runningRefresh.set(id, next);
      const startedAt = Date.now();
      lastRefresh.delete(id);
      lastRefresh.set(id, { startedAt, tookMs: 0 });
      if (lastRefresh.size > 10_000) lastRefresh.delete(lastRefresh.keys().next().value!);
      try {
        await refreshCluster(deps, key, options.hosts ?? (large && options.recentHosts ? await options.recentHosts() : undefined));
      } finally {
        lastRefresh.set(id, { startedAt, tookMs: Date.now() - startedAt });
        if (runningRefresh.get(id) === next) runningRefresh.delete(id);
      }
    });
  queuedRefresh.set(id, next);
  return next;
}
