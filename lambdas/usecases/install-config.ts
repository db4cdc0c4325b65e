/**
 * The cluster's install-config as the API shows it, and the user's overrides of it. The document
 * holds the pull secret: it goes to the caller who owns the cluster and nowhere else (no logs,
 * no events).
 */
import { UPDATABLE_STATES } from '../domain/cluster/cluster.js';
import { installConfigOverridesFeatureUsage } from '../domain/cluster/feature-usage.js';
import type { Cluster, ClusterAttributes, Host, InfraEnv } from '../domain/core/entities.js';
import type { Schemas } from '../../contracts/wire.js';
import { builtinOperators } from '../domain/catalogues/catalogues.js';
import { badRequest, conflict } from '../domain/core/errors.js';
import { consoleEnabled, installConfigOverridesProblem, renderInstallConfig } from '../domain/install/install-config.js';
import { installConfigJson, installConfigYaml, withoutPullSecret } from '../domain/install/install-config-text.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { findCluster, stillThere } from './access.js';
import { INSTALL_CONFIG_PROXY_FIELDS, mayReadPullSecret, maySeeSecrets, withoutProxyCredentials } from './secret-access.js';
import { recordEvent } from './events.js';
import type { Principal } from './principal.js';

export interface InstallConfigDeps {
  store: Store;
  clock: Clock;
}

/** The infra-envs that feed the install-config: those created for the cluster and those its hosts booted from. */
async function infraEnvsOf(store: Store, cluster: Cluster, hosts: Host[]): Promise<InfraEnv[]> {
  const owned = await store.infraEnvs.listByCluster({ orgId: cluster.orgId, clusterId: cluster.clusterId });
  const known = new Set(owned.map((i) => i.infraEnvId));
  const others = [...new Set(hosts.map((h) => h.infraEnvId).filter((id) => !known.has(id)))];
  const fetched = await Promise.all(others.map((infraEnvId) => store.infraEnvs.get({ orgId: cluster.orgId, infraEnvId })));
  return [...owned, ...fetched.filter((i): i is InfraEnv => i !== undefined)];
}

async function inputsOf(store: Store, cluster: Cluster): Promise<{ hosts: Host[]; infraEnvs: InfraEnv[] }> {
  const hosts = await store.hosts.listByCluster({ orgId: cluster.orgId, clusterId: cluster.clusterId });
  return { hosts, infraEnvs: await infraEnvsOf(store, cluster, hosts) };
}

type MonitoredOperator = Schemas['monitored-operator'];

/** The monitored operators with the console added or removed, as the overrides' capabilities decide. */
function withConsole(monitored: ClusterAttributes['monitored_operators'], enabled: boolean): MonitoredOperator[] {
  const operators = monitored ?? [];
  const others = operators.filter((operator) => operator.name !== 'console');
  if (!enabled) return others;
  if (others.length < operators.length) return operators;
  return [builtinOperators().find((operator) => operator.name === 'console')!, ...others];
}

/** The install-config.yaml the installation is prepared from (it holds the pull secret: S3 only, never logs). */
export async function renderClusterInstallConfigYaml(store: Store, cluster: Cluster): Promise<string> {
  const { hosts, infraEnvs } = await inputsOf(store, cluster);
  return installConfigYaml(renderInstallConfig(cluster, hosts, { infraEnvs }));
}

/** GET /v2/clusters/{id}/install-config: the document as upstream serialises it. */
export async function getInstallConfig(deps: InstallConfigDeps, principal: Principal, clusterId: string): Promise<string> {
  const cluster = await findCluster(deps.store, principal, clusterId);
  if (cluster.attributes.kind === 'AddHostsCluster') {
    throw badRequest(`Cluster ${clusterId} only adds hosts to an existing cluster, so it has no install config`);
  }
  const { hosts, infraEnvs } = await inputsOf(deps.store, cluster);
  const config = renderInstallConfig(cluster, hosts, { infraEnvs });
  const shown = mayReadPullSecret(principal) ? config : withoutPullSecret(config);
  return installConfigJson(maySeeSecrets(principal) ? shown : withoutProxyCredentials(shown, INSTALL_CONFIG_PROXY_FIELDS));
}

/**
 * PATCH /v2/clusters/{id}/install-config: stores the overrides (a JSON object as text) after
 * checking that they decode over the generated document as upstream's installer model would;
 * "" clears them. Only while the cluster can still be changed.
 */
export async function updateInstallConfig(deps: InstallConfigDeps, principal: Principal, clusterId: string, overrides: string): Promise<void> {
  const current = await findCluster(deps.store, principal, clusterId);
  const { hosts, infraEnvs } = await inputsOf(deps.store, current);
  const now = deps.clock.now().toISOString();
  const updated = await deps.store.clusters.mutate({ orgId: principal.orgId, clusterId }, (cluster) => {
    if (!UPDATABLE_STATES.has(cluster.status)) {
      throw conflict(`Cluster ${clusterId} is in status ${cluster.status}; its install config can be changed only in ${[...UPDATABLE_STATES].join(', ')}`);
    }
    const problem = installConfigOverridesProblem(cluster, hosts, overrides, { infraEnvs });
    if (problem) throw badRequest(problem);
    const attributes: ClusterAttributes = { ...cluster.attributes, install_config_overrides: overrides };
    // Upstream leaves an empty value out of the cluster document.
    if (overrides === '') delete attributes.install_config_overrides;
    attributes.monitored_operators = withConsole(attributes.monitored_operators, consoleEnabled(String(attributes.openshift_version ?? ''), overrides));
    const usage = installConfigOverridesFeatureUsage(cluster.attributes.feature_usage, overrides);
    if (usage !== undefined) attributes.feature_usage = usage;
    return { ...cluster, attributes, updatedAt: now };
  });
  stillThere(updated, `Cluster ${clusterId}`);
  await recordEvent(deps, { name: 'install_config_applied', subject: { orgId: principal.orgId, clusterId } });
}
