import { randomUUID } from 'node:crypto';
import { clusterCpuArchitectureProblem, resolveRelease, resolveReleaseImage } from '../domain/catalogues/catalogues.js';
import {
  applyClusterUpdate,
  proxySettingsChanged,
  BUSY_STATES,
  createClusterRecord,
  createDisconnectedClusterRecord,
  DISCONNECTED_CLUSTER_KIND,
  isDisconnectedCluster,
} from '../domain/cluster/cluster.js';
import { disconnectedClusterRegistrationView, clusterWireView } from '../domain/cluster/cluster-document.js';
import { withoutNullFields, type Params } from '../../contracts/input-checks.js';
import type { ClusterCreateParams, ClusterUpdateParams } from '../../contracts/wire.js';
import type { Cluster, Host } from '../domain/core/entities.js';
import { badRequest, conflict } from '../domain/core/errors.js';
import type { ResolvedRelease } from '../domain/catalogues/catalogues.js';
import { withRefreshedInventory } from '../domain/host/installation-disk.js';
import { hostInventory } from '../domain/host/inventory.js';
import type { MachineNetworkHost } from '../domain/network/machine-network.js';
import type { Clock } from '../ports/clock.js';
import type { DnsZones } from '../ports/dns.js';
import type { Store } from '../ports/store.js';
import type { Workflows } from '../ports/workflows.js';
import { clusterObjectPrefix } from '../domain/core/object-keys.js';
import { maySeeSecrets, withoutProxyCredentials } from './secret-access.js';
import { forgetInfraEnvTokens } from './agent-tokens.js';
import { findCluster, stillThere } from './access.js';
import { mapBounded } from '../domain/core/bounded-concurrency.js';
import { refreshCluster } from './cluster-refresh.js';
import { rejudgeClusterHosts } from './host-changes.js';
import type { AgentSettings } from '../domain/agent/agent-protocol.js';
import { recordEvent } from './events.js';
import { removeDnsRecords } from './cluster-dns.js';
import { actorName, type Principal } from './principal.js';
import { describeCluster, withCreationAsImageTime, withOperatorBundles } from './cluster-view.js';

export interface ClusterDeps {
  store: Store;
  clock: Clock;
  workflows: Workflows;
  dns: DnsZones;
  /** Service settings stamped on new clusters, and the agent settings hosts are judged with; absent in callers that never create one. */
  config?: { softTimeouts: boolean; agent?: AgentSettings };
}

/** The release a new cluster asks for: its payload when it names one (upstream takes it over the version), else its version. */
function releaseOf(params: ClusterCreateParams): ResolvedRelease {
  if (typeof params.ocp_release_image !== 'string' || params.ocp_release_image === '') {
    return resolveRelease(params.openshift_version, params.cpu_architecture ?? 'x86_64');
  }
  const release = resolveReleaseImage(params.ocp_release_image, params.cpu_architecture ?? 'x86_64');
  if ('problem' in release) throw badRequest(release.problem);
  return release;
}

/** Clusters whose hosts a listing reads at once: an organisation of thousands must not queue every other request behind one listing. */
const CLUSTERS_DESCRIBED_IN_FLIGHT = 16;

const machineNetworkHost = (host: Host): MachineNetworkHost => ({
  inventory: host.attributes.inventory,
  freeAddresses: host.attributes.free_addresses,
});

/** The domain of a signed-in user's email, which upstream records on the clusters they register. */
function emailDomainOf(principal: Principal): { emailDomain?: string } {
  const email = principal.kind === 'user' ? principal.email : undefined;
  return email?.includes('@') ? { emailDomain: email.split('@').pop()! } : {};
}

export async function registerCluster(deps: ClusterDeps, principal: Principal, request: ClusterCreateParams): Promise<Record<string, unknown>> {
  const params = withoutNullFields(request);
  const architectureProblem = clusterCpuArchitectureProblem(params.openshift_version, params.cpu_architecture);
  if (architectureProblem) throw badRequest(architectureProblem);
  const release = releaseOf(params);
  const record = createClusterRecord(params, {
    orgId: principal.orgId,
    clusterId: randomUUID(),
    now: deps.clock.now().toISOString(),
    release,
    userName: actorName(principal),
    softTimeouts: deps.config?.softTimeouts ?? false,
    // Upstream records the domain of the registering user's email ("Unknown" without one).
    ...emailDomainOf(principal),
  });
  const created = await deps.store.clusters.create(record);
  await recordEvent(deps, {
    name: 'cluster_registration_succeeded',
    subject: { orgId: created.orgId, clusterId: created.clusterId },
    props: { cluster_kind: 'Cluster' },
  });
  // Judged at once, so a read right after already says what input is missing (and holds the
  // connectivity documents upstream's monitor stores). The answer is the cluster as registered, as
  // upstream's is: its monitor judges a new cluster seconds later.
  await refreshCluster(deps, { orgId: created.orgId, clusterId: created.clusterId }, []);
  return withOperatorBundles({ ...clusterWireView(created), host_networks: [] }, created);
}

/**
 * POST /v2/clusters/disconnected: a DisconnectedCluster, the holder of a disconnected ISO's name and
 * release. Not judged: it stays unmonitored for as long as it exists.
 */
export async function registerDisconnectedCluster(deps: ClusterDeps, principal: Principal, request: Params): Promise<Record<string, unknown>> {
  const params = withoutNullFields(request);
  // The schema requires both; upstream's own words for an empty one.
  if (typeof params.name !== 'string' || params.name === '') throw badRequest('cluster name is required');
  if (typeof params.openshift_version !== 'string' || params.openshift_version === '') throw badRequest('OpenShift version is required');
  const release = resolveRelease(params.openshift_version);
  const created = await deps.store.clusters.create(
    createDisconnectedClusterRecord(params, {
      orgId: principal.orgId,
      clusterId: randomUUID(),
      now: deps.clock.now().toISOString(),
      release,
      userName: actorName(principal),
    }),
  );
  await recordEvent(deps, {
    name: 'cluster_registration_succeeded',
    subject: { orgId: created.orgId, clusterId: created.clusterId },
    props: { cluster_kind: DISCONNECTED_CLUSTER_KIND },
  });
  return disconnectedClusterRegistrationView(created);
}

export async function getCluster(deps: ClusterDeps, principal: Principal, clusterId: string, options: { excludeHosts?: boolean } = {}) {
  const cluster = await findCluster(deps.store, principal, clusterId);
  const view = withOperatorBundles(await describeCluster(deps.store, cluster, { withHosts: !options.excludeHosts, hostStages: true }), cluster);
  // Upstream answers exclude-hosts with hosts null (not loaded), where a cluster without hosts has [].
  return asSeenBy(principal, options.excludeHosts ? { ...view, hosts: null } : view);
}

/** What a caller who may not see credentials is not shown of a cluster: the proxies' user and password. */
const asSeenBy = (principal: Principal, view: Record<string, unknown>) => (maySeeSecrets(principal) ? view : withoutProxyCredentials(view));

/**
 * The organisation's clusters, oldest first. Asked for one name or OpenShift cluster id, it finds
 * the matches from the clusters' identities and reads only those whole. A name is looked up in
 * the index by name: automation looks a cluster up on every `assisted ztp apply`, and listing the
 * organisation's identities for that made each apply cost more as the organisation grew
 * (docs/scale.md, session 22). An OpenShift id reads every identity.
 */
export async function listClusters(
  deps: ClusterDeps,
  principal: Principal,
  query: { withHosts?: boolean; openshiftClusterId?: string; name?: string } = {},
): Promise<Record<string, unknown>[]> {
  const describe = async (cluster: Cluster) =>
    asSeenBy(principal, await describeCluster(deps.store, cluster, { withHosts: !!query.withHosts, hostStages: false }));
  if (query.name === undefined && query.openshiftClusterId === undefined) {
    const clusters = (await deps.store.clusters.listByOrg(principal.orgId)).sort(byCreation);
    return mapBounded(clusters, CLUSTERS_DESCRIBED_IN_FLIGHT, describe);
  }
  const candidates =
    query.name !== undefined
      ? await deps.store.clusters.listIdentitiesNamed(principal.orgId, query.name)
      : await deps.store.clusters.listIdentitiesByOrg(principal.orgId);
  const matching = candidates
    .filter(
      (c) =>
        (query.name === undefined || c.name === query.name) &&
        (query.openshiftClusterId === undefined || c.attributes.openshift_cluster_id === query.openshiftClusterId),
    )
    .sort(byCreation);
  // A cluster deleted between the listing and its read is left out, as a later listing would.
  const clusters = (
    await mapBounded(matching, CLUSTERS_DESCRIBED_IN_FLIGHT, (c) => deps.store.clusters.get({ orgId: c.orgId, clusterId: c.clusterId }))
  ).filter((c) => c !== undefined);
  return mapBounded(clusters, CLUSTERS_DESCRIBED_IN_FLIGHT, describe);
}

const byCreation = (a: { createdAt: string }, b: { createdAt: string }) => a.createdAt.localeCompare(b.createdAt);

export async function updateCluster(deps: ClusterDeps, principal: Principal, clusterId: string, request: ClusterUpdateParams) {
  const params = withoutNullFields(request);
  const before = await findCluster(deps.store, principal, clusterId);
  const now = deps.clock.now().toISOString();
  const key = { orgId: principal.orgId, clusterId };
  // New VIPs are placed with the hosts' interfaces and free-address scans, as upstream does; a scan
  // that lands meanwhile is judged by the cluster's vips-valid validations on the next refresh.
  // Changed cluster networks must hold a slice for each host.
  const setsVips = params.api_vips !== undefined || params.ingress_vips !== undefined;
  const readsHosts = setsVips || params.cluster_networks !== undefined;
  // Every update reads them: its feature usage records which of them are virtual machines.
  const clusterHosts = await deps.store.hosts.listByCluster(key);
  const hosts = readsHosts ? clusterHosts.map(machineNetworkHost) : [];
  const virtualHostIds = clusterHosts.filter((host) => hostInventory(host)?.system_vendor?.virtual === true).map((host) => host.hostId);
  const changed = stillThere(
    await deps.store.clusters.mutate(key, (cluster) => applyClusterUpdate(cluster, params, now, hosts, virtualHostIds)),
    `Cluster ${clusterId}`,
  );
  if (proxySettingsChanged(params, before.attributes)) await recordEvent(deps, { name: 'proxy_settings_changed', subject: key });
  // Each host's disks are judged anew for the cluster as it now is, as upstream does on every update.
  for (const host of clusterHosts) {
    const hostKey = { orgId: host.orgId, infraEnvId: host.infraEnvId, hostId: host.hostId };
    await deps.store.hosts.mutate(
      hostKey,
      (current) => {
        const refreshed = withRefreshedInventory(current, { cluster: changed });
        return refreshed === current ? undefined : refreshed;
      },
      host,
    );
  }
  // Judges the cluster, then every host on it, and the cluster again if a host moved.
  const agent = deps.config?.agent;
  await rejudgeClusterHosts({ store: deps.store, clock: deps.clock, ...(agent ? { config: { agent } } : {}) }, key);
  const updated = stillThere(await deps.store.clusters.get(key), `Cluster ${clusterId}`);
  return withCreationAsImageTime(withOperatorBundles(await describeCluster(deps.store, updated, { withHosts: true, hostStages: true }), updated), updated);
}

/**
 * Deletes the cluster. Infra-envs created for it go with it (with their hosts); hosts that joined
 * it by late binding return to their infra-env's pool.
 *
 * A DisconnectedCluster is the exception: its infra-envs stay, detached, with their images. Such a
 * cluster is only the configuration of a disconnected ISO, and the console deletes it right after
 * it started the ISO's download (whose request may arrive after the deletion), while a user may
 * download the ISO again later with the same URL. Upstream keeps every infra-env of a deleted
 * cluster; here only these are kept, and DELETE /v2/infra-envs/{id} removes one with its images.
 */
export async function deregisterCluster(deps: ClusterDeps, principal: Principal, clusterId: string): Promise<void> {
  const cluster = await findCluster(deps.store, principal, clusterId);
  if (BUSY_STATES.has(cluster.status)) {
    throw conflict(`Cluster ${clusterId} is ${cluster.status}; cancel the installation before deleting the cluster`);
  }
  const key = { orgId: principal.orgId, clusterId };
  const now = deps.clock.now().toISOString();
  if (isDisconnectedCluster(cluster)) {
    await detachDisconnectedInfraEnvs(deps, cluster, now);
  }
  const ownedInfraEnvs = await deps.store.infraEnvs.listByCluster(key);
  const owned = new Set(ownedInfraEnvs.map((i) => i.infraEnvId));
  for (const host of await deps.store.hosts.listByCluster(key)) {
    const hostKey = { orgId: host.orgId, infraEnvId: host.infraEnvId, hostId: host.hostId };
    if (owned.has(host.infraEnvId)) {
      await deps.store.hosts.remove(hostKey);
    } else {
      await deps.store.hosts.mutate(hostKey, (h) => {
        const next = { ...h, status: 'unbinding-pending-user-action' as const, updatedAt: now };
        delete next.clusterId;
        return next;
      });
    }
  }
  for (const infraEnv of ownedInfraEnvs) {
    for (const host of await deps.store.hosts.listByInfraEnv({ orgId: principal.orgId, infraEnvId: infraEnv.infraEnvId })) {
      await deps.store.hosts.remove({ orgId: host.orgId, infraEnvId: host.infraEnvId, hostId: host.hostId });
    }
    await deps.store.infraEnvs.remove({ orgId: principal.orgId, infraEnvId: infraEnv.infraEnvId });
  }
  for (const manifest of await deps.store.manifests.listByCluster(key)) {
    await deps.store.manifests.remove({ orgId: principal.orgId, clusterId, folder: manifest.folder, fileName: manifest.fileName });
  }
  await removeDnsRecords(deps, cluster);
  await deps.store.clusters.remove(key);
  // The cluster's files (manifests, installation files, logs) go in the background, batch by batch.
  await deps.workflows.start('purge-objects', `purge-${clusterId}`, { bucket: 'files', prefix: clusterObjectPrefix(principal.orgId, clusterId) });
  await deps.workflows.start('purge-objects', `purge-logs-${clusterId}`, { bucket: 'logs', prefix: clusterObjectPrefix(principal.orgId, clusterId) });
  await recordEvent(deps, { name: 'cluster_deregistered', subject: { orgId: principal.orgId, clusterId } });
}

async function detachDisconnectedInfraEnvs(deps: ClusterDeps, cluster: Cluster, now: string): Promise<void> {
  for (const infraEnv of await deps.store.infraEnvs.listByCluster({ orgId: cluster.orgId, clusterId: cluster.clusterId })) {
    await deps.store.infraEnvs.mutate({ orgId: infraEnv.orgId, infraEnvId: infraEnv.infraEnvId }, (current) => {
      if (current.clusterId !== cluster.clusterId) return current;
      // It keeps the cluster's name (DISCONNECTED_CLUSTER_NAME, written at its creation) for its ignition.
      const next = { ...current, updatedAt: now };
      delete next.clusterId;
      return next;
    });
    // Authentication's copy of the infra-env names the cluster it was bound to (agent principals carry it).
    forgetInfraEnvTokens(infraEnv.orgId, infraEnv.infraEnvId);
  }
}
