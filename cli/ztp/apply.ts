/**
 * Registering a ZTP plan through the REST API, idempotently: clusters are found by name and base
 * domain, infra-envs by name within their cluster; what exists is patched where it differs and left
 * alone where it does not. A run either registers everything it set out to or, when a call fails
 * halfway, removes what it created itself, so a failed apply leaves nothing behind.
 */
import { isDeepStrictEqual } from 'node:util';
import { call, type ApiClient, type Cluster, type ClusterUpdateParams, type InfraEnv, type InfraEnvUpdateParams } from '../api.js';
import { CliError, EXIT } from '../exit-codes.js';
import { clusterSettingsUpdate, sameOverrides } from '../../contracts/cluster-differences.js';
import { storedStaticNetworkConfig } from '../../contracts/static-network-config.js';
import { clusterConditions, type Condition } from './conditions.js';
import type { ClusterPlan, InfraEnvPlan, ZtpPlan } from './translate.js';

export interface RestCall {
  method: 'POST' | 'PATCH' | 'DELETE';
  path: string;
  body?: unknown;
}

export interface AppliedResource {
  kind: 'cluster' | 'infra-env';
  name: string;
  id?: string;
  action: 'created' | 'updated' | 'unchanged' | 'would create' | 'would update';
  /** Fields that differed (updates). */
  fields?: string[];
}

export interface ApplyReport {
  resources: AppliedResource[];
  calls: RestCall[];
  warnings: string[];
}

const BEFORE_INSTALL = new Set(['insufficient', 'ready', 'pending-for-input', 'adding-hosts']);

/** Secrets never leave the process: the printed calls carry a placeholder. */
export function redact(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(redact);
  if (body && typeof body === 'object') {
    return Object.fromEntries(Object.entries(body).map(([key, value]) => [key, key === 'pull_secret' ? '<redacted>' : redact(value)]));
  }
  return body;
}

/** The update that brings `existing` to what `plan` asks for; empty when nothing differs. */
export function clusterDifferences(existing: Cluster, plan: ClusterPlan): ClusterUpdateParams {
  const want = plan.params;
  const update = clusterSettingsUpdate(existing, want, ['control_plane_count']);
  if (want.disk_encryption) {
    const have = existing.disk_encryption ?? {};
    const differs = (Object.keys(want.disk_encryption) as (keyof typeof want.disk_encryption)[]).some(
      (key) => (have as Record<string, unknown>)[key] !== want.disk_encryption![key],
    );
    if (differs) update.disk_encryption = want.disk_encryption;
  }
  return update;
}

export function infraEnvDifferences(existing: InfraEnv, plan: InfraEnvPlan): InfraEnvUpdateParams {
  const want = plan.params;
  const update: InfraEnvUpdateParams = {};
  if (want.ssh_authorized_key !== undefined && existing.ssh_authorized_key !== want.ssh_authorized_key) update.ssh_authorized_key = want.ssh_authorized_key;
  if (want.additional_ntp_sources !== undefined && existing.additional_ntp_sources !== want.additional_ntp_sources)
    update.additional_ntp_sources = want.additional_ntp_sources;
  if (want.ignition_config_override !== undefined && existing.ignition_config_override !== want.ignition_config_override)
    update.ignition_config_override = want.ignition_config_override;
  if (want.additional_trust_bundle !== undefined && existing.additional_trust_bundle !== want.additional_trust_bundle)
    update.additional_trust_bundle = want.additional_trust_bundle;
  if (want.kernel_arguments !== undefined && !isDeepStrictEqual(existing.kernel_arguments ?? [], want.kernel_arguments))
    update.kernel_arguments = want.kernel_arguments;
  if (want.proxy !== undefined) {
    const have = existing.proxy ?? {};
    const differs = (['http_proxy', 'https_proxy', 'no_proxy'] as const).some((key) => (have[key] ?? undefined) !== (want.proxy![key] ?? undefined));
    if (differs) update.proxy = want.proxy;
  }
  if (!isDeepStrictEqual(storedStaticNetworkConfig(existing.static_network_config), want.static_network_config ?? []))
    update.static_network_config = want.static_network_config ?? [];
  return update;
}

/**
 * The one registered cluster with this name and base domain, if any. The service is asked for this
 * name only: a listing of every cluster grows with the organisation, and one per manifest made
 * applying N clusters into an organisation of M cost N×M cluster reads. The clusters this run
 * registered are looked at first (an index read right after a registration may not show it yet).
 * A service that ignores the filter, as upstream's does, lists every cluster, and the match below
 * still picks the right one.
 */
async function findCluster(
  client: ApiClient,
  registeredThisRun: readonly Cluster[],
  name: string,
  baseDomain: string | undefined,
): Promise<Cluster | undefined> {
  const named = (cluster: Cluster) => cluster.name === name && (!baseDomain || cluster.base_dns_domain === baseDomain);
  const candidates = registeredThisRun.some(named)
    ? registeredThisRun
    : await call(`looking up cluster ${name}`, () => client.GET('/v2/clusters', { params: { query: { name } } }));
  const matches = candidates.filter(named);
  if (matches.length > 1) {
    throw new CliError(
      `${matches.length} clusters are named ${name}.${baseDomain ?? ''} (${matches.map((c) => c.id).join(', ')}): cannot tell which one the manifests describe`,
      EXIT.apiRefused,
    );
  }
  if (!matches[0]) return undefined;
  return call(`reading cluster ${matches[0].id}`, () => client.GET('/v2/clusters/{cluster_id}', { params: { path: { cluster_id: matches[0]!.id } } }));
}

export async function applyPlan(client: ApiClient, plan: ZtpPlan, options: { dryRun: boolean }): Promise<ApplyReport> {
  const report: ApplyReport = { resources: [], calls: [], warnings: [...plan.warnings] };
  const created: { kind: 'cluster' | 'infra-env'; id: string }[] = [];
  const record = (request: RestCall) => report.calls.push({ ...request, ...(request.body !== undefined ? { body: redact(request.body) } : {}) });
  try {
    const registeredThisRun: Cluster[] = [];
    for (const clusterPlan of plan.clusters) await applyCluster(client, registeredThisRun, clusterPlan, options, report, created, record);
    for (const infraEnvPlan of plan.unboundInfraEnvs) await applyInfraEnv(client, infraEnvPlan, undefined, options, report, created, record);
  } catch (error) {
    // Undo this run's creations, newest first: infra-envs before the clusters they belong to.
    for (const resource of created.reverse()) {
      if (resource.kind === 'infra-env')
        await client.DELETE('/v2/infra-envs/{infra_env_id}', { params: { path: { infra_env_id: resource.id } } }).catch(() => undefined);
      else await client.DELETE('/v2/clusters/{cluster_id}', { params: { path: { cluster_id: resource.id } } }).catch(() => undefined);
    }
    if (created.length > 0 && error instanceof Error) error.message += ` (removed the ${created.length} resource(s) this run had created)`;
    throw error;
  }
  return report;
}

async function applyCluster(
  client: ApiClient,
  registeredThisRun: Cluster[],
  plan: ClusterPlan,
  options: { dryRun: boolean },
  report: ApplyReport,
  created: { kind: 'cluster' | 'infra-env'; id: string }[],
  record: (request: RestCall) => void,
): Promise<void> {
  const name = plan.params.name;
  const existing = await findCluster(client, registeredThisRun, name, plan.params.base_dns_domain);
  let clusterId: string | undefined = existing?.id;
  const placeholder = `{id of cluster ${name}}`;
  if (!existing) {
    record({ method: 'POST', path: '/v2/clusters', body: plan.params });
    if (!options.dryRun) {
      const cluster = await call(`registering cluster ${name} (${plan.clusterDeployment.file})`, () => client.POST('/v2/clusters', { body: plan.params }));
      clusterId = cluster.id;
      created.push({ kind: 'cluster', id: cluster.id });
      // A later ClusterDeployment of the plan with the same name finds it.
      registeredThisRun.push(cluster);
    }
    report.resources.push({ kind: 'cluster', name, ...(clusterId ? { id: clusterId } : {}), action: options.dryRun ? 'would create' : 'created' });
  } else {
    const wantedVersion = plan.params.openshift_version.replace(/-multi$/, '');
    if (existing.openshift_version && !existing.openshift_version.startsWith(wantedVersion) && !wantedVersion.startsWith(existing.openshift_version)) {
      throw new CliError(
        `cluster ${name} (${existing.id}) is registered with OpenShift ${existing.openshift_version} but ClusterImageSet "${plan.clusterImageSet.name}" asks for ${plan.params.openshift_version}; the version of a cluster cannot change (delete it to re-register)`,
        EXIT.apiRefused,
      );
    }
    const update = clusterDifferences(existing, plan);
    const fields = Object.keys(update);
    if (fields.length > 0 && !BEFORE_INSTALL.has(existing.status)) {
      report.warnings.push(
        `cluster ${name} is ${existing.status}: the manifests differ in ${fields.join(', ')}, which cannot change once installation has started`,
      );
      report.resources.push({ kind: 'cluster', name, id: existing.id, action: 'unchanged' });
    } else if (fields.length > 0) {
      record({ method: 'PATCH', path: `/v2/clusters/${existing.id}`, body: update });
      if (!options.dryRun)
        await call(`updating cluster ${name}`, () =>
          client.PATCH('/v2/clusters/{cluster_id}', { params: { path: { cluster_id: existing.id } }, body: update }),
        );
      report.resources.push({ kind: 'cluster', name, id: existing.id, action: options.dryRun ? 'would update' : 'updated', fields });
    } else {
      report.resources.push({ kind: 'cluster', name, id: existing.id, action: 'unchanged' });
    }
  }
  if (plan.installConfigOverrides && !(existing && sameOverrides(existing.install_config_overrides, plan.installConfigOverrides))) {
    record({ method: 'PATCH', path: `/v2/clusters/${clusterId ?? placeholder}/install-config`, body: plan.installConfigOverrides });
    if (!options.dryRun) {
      await call(`setting the install-config overrides of cluster ${name} (${plan.agentClusterInstall.file})`, () =>
        client.PATCH('/v2/clusters/{cluster_id}/install-config', { params: { path: { cluster_id: clusterId! } }, body: plan.installConfigOverrides! }),
      );
    }
    const resource = report.resources.at(-1)!;
    if (resource.action === 'unchanged') Object.assign(resource, { action: options.dryRun ? 'would update' : 'updated', fields: ['install_config_overrides'] });
    else if (resource.action !== 'created' && resource.action !== 'would create') resource.fields = [...(resource.fields ?? []), 'install_config_overrides'];
  }
  for (const infraEnvPlan of plan.infraEnvs)
    await applyInfraEnv(client, infraEnvPlan, clusterId ?? placeholder, options, report, created, record, existing === undefined);
}

async function applyInfraEnv(
  client: ApiClient,
  plan: InfraEnvPlan,
  clusterId: string | undefined,
  options: { dryRun: boolean },
  report: ApplyReport,
  created: { kind: 'cluster' | 'infra-env'; id: string }[],
  record: (request: RestCall) => void,
  clusterIsNew = false,
): Promise<void> {
  const name = plan.params.name;
  let existing: InfraEnv | undefined;
  if (!clusterIsNew) {
    const query = clusterId ? { cluster_id: clusterId } : {};
    const infraEnvs = await call('listing infra-envs', () => client.GET('/v2/infra-envs', { params: { query } }));
    existing = infraEnvs.find((infraEnv) => infraEnv.name === name && (clusterId ? infraEnv.cluster_id === clusterId : !infraEnv.cluster_id));
  }
  const body = { ...plan.params, ...(clusterId ? { cluster_id: clusterId } : {}) };
  if (!existing) {
    record({ method: 'POST', path: '/v2/infra-envs', body });
    let id: string | undefined;
    if (!options.dryRun) {
      const infraEnv = await call(`registering infra-env ${name} (${plan.document.file})`, () => client.POST('/v2/infra-envs', { body }));
      id = infraEnv.id;
      created.push({ kind: 'infra-env', id });
    }
    report.resources.push({ kind: 'infra-env', name, ...(id ? { id } : {}), action: options.dryRun ? 'would create' : 'created' });
    return;
  }
  const update = infraEnvDifferences(existing, plan);
  const fields = Object.keys(update);
  if (fields.length === 0) {
    report.resources.push({ kind: 'infra-env', name, id: existing.id, action: 'unchanged' });
    return;
  }
  record({ method: 'PATCH', path: `/v2/infra-envs/${existing.id}`, body: update });
  if (!options.dryRun)
    await call(`updating infra-env ${name}`, () =>
      client.PATCH('/v2/infra-envs/{infra_env_id}', { params: { path: { infra_env_id: existing.id } }, body: update }),
    );
  report.resources.push({ kind: 'infra-env', name, id: existing.id, action: options.dryRun ? 'would update' : 'updated', fields });
}

export interface ClusterStatus {
  agentClusterInstall: { name: string; namespace: string };
  clusterId?: string;
  state?: string;
  stateInfo?: string;
  conditions: Condition[];
}

/** `ztp status`: each AgentClusterInstall's conditions from the cluster registered for it. */
export async function planStatus(client: ApiClient, plan: ZtpPlan): Promise<ClusterStatus[]> {
  const out: ClusterStatus[] = [];
  for (const clusterPlan of plan.clusters) {
    const cluster = await findCluster(client, [], clusterPlan.params.name, clusterPlan.params.base_dns_domain);
    out.push({
      agentClusterInstall: { name: clusterPlan.agentClusterInstall.name, namespace: clusterPlan.agentClusterInstall.namespace },
      ...(cluster ? { clusterId: cluster.id, state: cluster.status, stateInfo: cluster.status_info } : {}),
      conditions: clusterConditions(cluster, clusterPlan.expectedAgents),
    });
  }
  return out;
}
