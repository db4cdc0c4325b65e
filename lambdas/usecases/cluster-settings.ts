/** Per-cluster settings beside the cluster document: ignored validations and preflight requirements. */
import { UPDATABLE_STATES } from '../domain/cluster/cluster.js';
import { badRequest } from '../domain/core/errors.js';
import { ignoredValidationsProblem, ignoredValidationsView, type IgnoredValidations } from '../domain/core/ignored-validations.js';
import { preflightClusterOf, preflightRequirements, type PreflightHardwareRequirements } from '../domain/catalogues/preflight.js';
import { clusterSupportedPlatforms } from '../domain/cluster/cluster-platform.js';
import { hostInventory } from '../domain/host/inventory.js';
import type { AgentSettings } from '../domain/agent/agent-protocol.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { findCluster, stillThere } from './access.js';
import { rejudgeClusterHosts } from './host-changes.js';
import type { Principal } from './principal.js';

export interface ClusterSettingsDeps {
  store: Store;
  clock: Clock;
  /** The agent settings hosts are judged with when a change of settings judges them again. */
  config?: { agent?: AgentSettings };
}

export async function getIgnoredValidations(deps: ClusterSettingsDeps, principal: Principal, clusterId: string): Promise<IgnoredValidations> {
  return ignoredValidationsView((await findCluster(deps.store, principal, clusterId)).attributes);
}

/**
 * PUT /v2/clusters/{id}/ignored-validations: replaces both lists (an absent one becomes empty).
 * Upstream answers 400, not 409, when the cluster is past the states that allow changes.
 */
export async function setIgnoredValidations(
  deps: ClusterSettingsDeps,
  principal: Principal,
  clusterId: string,
  body: IgnoredValidations,
): Promise<IgnoredValidations> {
  await findCluster(deps.store, principal, clusterId);
  const now = deps.clock.now().toISOString();
  const updated = await deps.store.clusters.mutate({ orgId: principal.orgId, clusterId }, (cluster) => {
    if (!UPDATABLE_STATES.has(cluster.status)) {
      throw badRequest(
        `Cluster ${clusterId} is in status ${cluster.status}; its ignored validations can be changed only in ${[...UPDATABLE_STATES].join(', ')}`,
      );
    }
    const problem = ignoredValidationsProblem(body);
    if (problem) throw badRequest(problem);
    const attributes = { ...cluster.attributes };
    for (const [attribute, value] of [
      ['ignored_cluster_validations', body['cluster-validation-ids'] ?? ''],
      ['ignored_host_validations', body['host-validation-ids'] ?? ''],
    ] as const) {
      if (value === '') delete attributes[attribute];
      else attributes[attribute] = value;
    }
    return { ...cluster, attributes, updatedAt: now };
  });
  const stored = stillThere(updated, `Cluster ${clusterId}`);
  // What is ignored decides the hosts' statuses, their suggested roles (an ignored role check no
  // longer keeps a host from the control plane) and so the cluster's: judged again now, as
  // upstream's monitor does on its next pass, rather than at the next news from an agent.
  const agent = deps.config?.agent;
  await rejudgeClusterHosts(
    { store: deps.store, clock: deps.clock, ...(agent ? { config: { agent } } : {}) },
    { orgId: stored.orgId, clusterId: stored.clusterId },
  );
  return ignoredValidationsView(stored.attributes);
}

export async function getPreflightRequirements(deps: ClusterSettingsDeps, principal: Principal, clusterId: string): Promise<PreflightHardwareRequirements> {
  const cluster = await findCluster(deps.store, principal, clusterId);
  return preflightRequirements(preflightClusterOf(cluster.attributes));
}

/** GET /v2/clusters/{id}/supported-platforms: the platforms every host of the cluster can run on. */
export async function getClusterSupportedPlatforms(deps: ClusterSettingsDeps, principal: Principal, clusterId: string): Promise<string[]> {
  const cluster = await findCluster(deps.store, principal, clusterId);
  const hosts = await deps.store.hosts.listByCluster({ orgId: cluster.orgId, clusterId: cluster.clusterId });
  return clusterSupportedPlatforms(Number(cluster.attributes.control_plane_count ?? 3), hosts.map(hostInventory));
}
