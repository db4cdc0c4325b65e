import type { HostUpdateParams } from '../../contracts/wire.js';
import { conflict } from '../domain/core/errors.js';
import { withoutNullFields } from '../../contracts/input-checks.js';
import { isSingleNodeCluster } from '../domain/cluster/cluster-document.js';
import type { Cluster, Host } from '../domain/core/entities.js';
import {
  applyHostUpdate,
  bindHost,
  hostChangeAnswer,
  HOST_BUSY_STATES,
  hostDisplayName,
  hostView,
  resetValidation,
  unbindHost,
  type ProgressStagesSource,
} from '../domain/host/host.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { findCluster, findHost, findInfraEnv, stillThere } from './access.js';
import { eventRequests, recordEvent, recordEvents } from './events.js';
import type { EventIntent } from '../domain/core/state-rules.js';
import { refreshHost } from './host-refresh.js';
import { forgetPeersUnlessLarge } from './cluster-peer-listings.js';
import { withRefreshedInventory } from '../domain/host/installation-disk.js';
import type { Principal } from './principal.js';

export interface HostDeps {
  store: Store;
  clock: Clock;
}

export interface HostListFilter {
  role?: string;
  status?: string;
}

/**
 * How an answer about one host lists its stages (upstream's get, update, register and day-2 reset
 * answers): as its cluster has them; a host bound to no cluster has none to list.
 */
export async function ownStagesSource(store: Store, host: Host, cluster?: Cluster): Promise<ProgressStagesSource> {
  if (!host.clusterId) return 'no-cluster';
  const owner = cluster ?? (await store.clusters.get({ orgId: host.orgId, clusterId: host.clusterId }));
  return owner ? { singleNode: isSingleNodeCluster(owner) } : 'no-cluster';
}

function filterHosts<T extends { status: string; attributes: Record<string, unknown> }>(hosts: T[], filter: HostListFilter): T[] {
  return hosts.filter((h) => (!filter.status || h.status === filter.status) && (!filter.role || h.attributes.role === filter.role));
}

export async function listInfraEnvHosts(deps: HostDeps, principal: Principal, infraEnvId: string) {
  await findInfraEnv(deps.store, principal, infraEnvId);
  const hosts = await deps.store.hosts.listByInfraEnv({ orgId: principal.orgId, infraEnvId });
  // Upstream lists an infra-env's hosts as if they had no cluster (see ProgressStagesSource).
  return hosts.sort((a, b) => a.createdAt.localeCompare(b.createdAt)).map((host) => hostView(host, 'no-cluster'));
}

export async function listClusterHosts(
  deps: HostDeps,
  principal: Principal,
  clusterId: string,
  filter: HostListFilter & { withInventory?: boolean; withConnectivity?: boolean },
) {
  await findCluster(deps.store, principal, clusterId);
  const hosts = filterHosts(await deps.store.hosts.listByCluster({ orgId: principal.orgId, clusterId }), filter);
  return hosts
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
    .map((host) => {
      const view = hostView(host, 'not-listed');
      if (!filter.withInventory) delete view.inventory;
      if (!filter.withConnectivity) delete view.connectivity;
      return view;
    });
}

export async function getHost(deps: HostDeps, principal: Principal, infraEnvId: string, hostId: string) {
  const host = await findHost(deps.store, principal, infraEnvId, hostId);
  return hostView(host, await ownStagesSource(deps.store, host));
}

export async function updateHost(deps: HostDeps, principal: Principal, infraEnvId: string, hostId: string, request: HostUpdateParams) {
  const params = withoutNullFields(request);
  const host = await findHost(deps.store, principal, infraEnvId, hostId);
  const cluster = host.clusterId ? await deps.store.clusters.get({ orgId: principal.orgId, clusterId: host.clusterId }) : undefined;
  const now = deps.clock.now().toISOString();
  const key = { orgId: principal.orgId, infraEnvId, hostId };
  // A bound host's disks are judged anew after an update, as upstream does: for the role it had before it.
  stillThere(
    await deps.store.hosts.mutate(key, (current) => {
      const updated = applyHostUpdate(current, params, cluster, now);
      return cluster ? withRefreshedInventory(updated, { cluster }, current) : updated;
    }),
    `Host ${hostId}`,
  );
  // What the user set may be read by the peers (a role, a name, fencing credentials): the
  // judgement below must see the user's earlier updates of the other hosts too, as upstream's does.
  if (host.clusterId) forgetPeersUnlessLarge(principal.orgId, host.clusterId);
  const updated = stillThere(await refreshHost(deps, key), `Host ${hostId}`);
  return hostChangeAnswer(updated, await ownStagesSource(deps.store, updated, cluster));
}

export async function deregisterHost(deps: HostDeps, principal: Principal, infraEnvId: string, hostId: string): Promise<void> {
  const host = await findHost(deps.store, principal, infraEnvId, hostId);
  if (HOST_BUSY_STATES.has(host.status)) throw conflict(`Host ${hostId} is ${host.status}; it cannot be deleted while it installs`);
  await deps.store.hosts.remove({ orgId: principal.orgId, infraEnvId, hostId }, host.version);
  await recordEvent(deps, {
    name: 'host_deregistered',
    subject: { orgId: principal.orgId, infraEnvId, hostId, ...(host.clusterId ? { clusterId: host.clusterId } : {}) },
    props: { host_name: hostDisplayName(host) },
  });
}

export async function bindHostToCluster(deps: HostDeps, principal: Principal, infraEnvId: string, hostId: string, clusterId: string) {
  const infraEnv = await findInfraEnv(deps.store, principal, infraEnvId);
  await findHost(deps.store, principal, infraEnvId, hostId);
  const cluster = await findCluster(deps.store, principal, clusterId);
  const now = deps.clock.now().toISOString();
  let events: readonly EventIntent[] = [];
  const bound = await deps.store.hosts.mutate({ orgId: principal.orgId, infraEnvId, hostId }, (host) => {
    const result = bindHost(host, cluster, infraEnv.clusterId, now);
    events = result.transition.events;
    return result.host;
  });
  const host = stillThere(bound, `Host ${hostId}`);
  await recordEvents(deps, eventRequests({ orgId: principal.orgId, infraEnvId, hostId, clusterId }, events));
  return hostView(host, 'not-listed');
}

export async function unbindHostFromCluster(deps: HostDeps, principal: Principal, infraEnvId: string, hostId: string) {
  const infraEnv = await findInfraEnv(deps.store, principal, infraEnvId);
  await findHost(deps.store, principal, infraEnvId, hostId);
  const now = deps.clock.now().toISOString();
  let events: readonly EventIntent[] = [];
  const unbound = await deps.store.hosts.mutate({ orgId: principal.orgId, infraEnvId, hostId }, (host) => {
    const result = unbindHost(host, infraEnv.clusterId, now);
    events = result.transition.events;
    return result.host;
  });
  const host = stillThere(unbound, `Host ${hostId}`);
  await recordEvents(deps, eventRequests({ orgId: principal.orgId, infraEnvId, hostId }, events));
  return hostView(host, 'not-listed');
}

export async function resetHostValidation(deps: HostDeps, principal: Principal, infraEnvId: string, hostId: string, validationId: string) {
  await findHost(deps.store, principal, infraEnvId, hostId);
  const now = deps.clock.now().toISOString();
  const key = { orgId: principal.orgId, infraEnvId, hostId };
  const reset = stillThere(await deps.store.hosts.mutate(key, (host) => resetValidation(host, validationId, now)), `Host ${hostId}`);
  // Judged at once: the reset is what the host (and its cluster) was waiting for.
  return hostView((await refreshHost(deps, key, reset)) ?? reset, 'not-listed');
}
