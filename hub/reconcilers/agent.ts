/**
 * Agent ↔ host: the Agent's spec bound, unbound, applied and (day 2) installed on the host it names,
 * and the host's state, inventory and progress written back into the Agent's status.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Host } from '../../contracts/wire.js';
import { call, callOrMissing } from '../assisted.js';
import { agentConditions, HOST_DISCOVERED_BEFORE_INSTALL, withTransitionTimes, type SyncProblem } from '../conditions.js';
import { AGENT, ANNOTATION, INFRA_ENV, isDeleting, LABEL, type KubeObject } from '../objects.js';
import { agentInventory, hostUpdate, SpecProblem, validationsInfo } from '../translate.js';
import { clusterIdOfDeployment, deploymentOfCluster, eventsUrl, problemOf, writeStatus, type HubContext, type Reconciled } from './context.js';

export async function reconcileAgent(ctx: HubContext, namespace: string, name: string): Reconciled {
  const agent = ctx.cached(AGENT, namespace, name);
  if (!agent || isDeleting(agent)) return;
  const infraEnvName = agent.metadata.labels?.[LABEL.infraEnv];
  const infraEnvObject = infraEnvName ? ctx.cached(INFRA_ENV, namespace, infraEnvName) : undefined;
  const infraEnvId = infraEnvObject?.metadata.annotations?.[ANNOTATION.infraEnvId];
  if (!infraEnvId) return { requeueAfterMs: ctx.options.resyncMs };
  let host = await callOrMissing(`reading host ${name}`, () =>
    ctx.rest.GET('/v2/infra-envs/{infra_env_id}/hosts/{host_id}', { params: { path: { infra_env_id: infraEnvId, host_id: name } } }),
  );
  if (!host) {
    // The host was deregistered: its Agent goes too, as upstream's does.
    await ctx.kube.delete(AGENT, namespace, name);
    return;
  }
  let problem: SyncProblem | undefined;
  const spec = agent.spec ?? {};
  try {
    host = await syncHost(ctx, agent, host, infraEnvId, infraEnvObject!);
  } catch (error) {
    problem = problemOf(error);
    if (!problem) throw error;
    ctx.options.log(`${namespace}/${name}: ${problem.message}`);
  }
  const status = agentStatus(ctx, agent, host, problem);
  await writeStatus(ctx, AGENT, agent, status);
  // A host bound by the InfraEnv's cluster names its ClusterDeployment in the Agent's spec.
  if (!spec.clusterDeploymentName && host.cluster_id && infraEnvObject?.spec?.clusterRef?.name) {
    const cd = deploymentOfCluster(ctx, host.cluster_id);
    if (cd) await ctx.kube.patch(AGENT, namespace, name, { spec: { clusterDeploymentName: { name: cd.metadata.name, namespace: cd.metadata.namespace } } });
  }
  if (problem?.kind === 'backend') throw new Error(problem.message);
  return { requeueAfterMs: ctx.options.resyncMs };
}

/** Binds, unbinds, updates and (day 2) installs the host as the Agent's spec says; returns the host as it is after. */
async function syncHost(ctx: HubContext, agent: KubeObject, host: Host, infraEnvId: string, infraEnvObject: KubeObject): Promise<Host> {
  const spec = agent.spec ?? {};
  const hostPath = { infra_env_id: infraEnvId, host_id: host.id };
  const reread = () => call(`reading host ${host.id}`, () => ctx.rest.GET('/v2/infra-envs/{infra_env_id}/hosts/{host_id}', { params: { path: hostPath } }));
  if (!HOST_DISCOVERED_BEFORE_INSTALL.has(host.status)) return host;
  const wantedCd = spec.clusterDeploymentName?.name as string | undefined;
  const lateBinding = !infraEnvObject.spec?.clusterRef?.name;
  if (lateBinding && wantedCd && !host.cluster_id) {
    const clusterId = clusterIdOfDeployment(ctx, spec.clusterDeploymentName.namespace ?? agent.metadata.namespace, wantedCd);
    if (!clusterId) throw new SpecProblem(`ClusterDeployment ${wantedCd} (spec.clusterDeploymentName) has no registered cluster yet`);
    host = await call(`binding host ${host.id} to cluster ${clusterId}`, () =>
      ctx.rest.POST('/v2/infra-envs/{infra_env_id}/hosts/{host_id}/actions/bind', { params: { path: hostPath }, body: { cluster_id: clusterId } }),
    );
  } else if (lateBinding && !wantedCd && host.cluster_id) {
    host = await call(`unbinding host ${host.id}`, () =>
      ctx.rest.POST('/v2/infra-envs/{infra_env_id}/hosts/{host_id}/actions/unbind', { params: { path: hostPath } }),
    );
  }
  const update = hostUpdate(agent, host);
  if (Object.keys(update).length > 0) {
    host = await call(`updating host ${host.id} (${Object.keys(update).join(', ')})`, () =>
      ctx.rest.PATCH('/v2/infra-envs/{infra_env_id}/hosts/{host_id}', { params: { path: hostPath }, body: update as never }),
    );
  }
  if ((spec.ignitionConfigOverrides ?? '') !== (host.ignition_config_overrides ?? '') && spec.ignitionConfigOverrides !== undefined) {
    await call(`setting the ignition overrides of host ${host.id}`, () =>
      ctx.rest.PATCH('/v2/infra-envs/{infra_env_id}/hosts/{host_id}/ignition', {
        params: { path: hostPath },
        body: { config: spec.ignitionConfigOverrides },
      }),
    );
    host = await reread();
  }
  if (spec.installerArgs !== undefined && spec.installerArgs !== '') {
    let args: unknown;
    try {
      args = JSON.parse(spec.installerArgs);
    } catch (error) {
      throw new SpecProblem(`Agent ${agent.metadata.name}: spec.installerArgs is not a JSON list of strings (${(error as Error).message})`);
    }
    if (!Array.isArray(args) || !args.every((arg) => typeof arg === 'string'))
      throw new SpecProblem(`Agent ${agent.metadata.name}: spec.installerArgs must be a JSON list of strings`);
    let have: unknown = [];
    try {
      have = JSON.parse(host.installer_args || '[]');
    } catch {
      have = undefined;
    }
    if (!isDeepStrictEqual(have, args)) {
      await call(`setting the installer args of host ${host.id}`, () =>
        ctx.rest.PATCH('/v2/infra-envs/{infra_env_id}/hosts/{host_id}/installer-args', { params: { path: hostPath }, body: { args } }),
      );
      host = await reread();
    }
  }
  // Day 2: an approved host of a cluster that is already installed installs on its own.
  if (spec.approved === true && host.status === 'known' && host.cluster_id && host.kind === 'AddToExistingClusterHost') {
    host = await call(`installing host ${host.id} into its installed cluster`, () =>
      ctx.rest.POST('/v2/infra-envs/{infra_env_id}/hosts/{host_id}/actions/install', { params: { path: hostPath } }),
    );
    ctx.options.log(`${agent.metadata.namespace}/${agent.metadata.name}: day-2 installation started`);
  }
  return host;
}

function agentStatus(ctx: HubContext, agent: KubeObject, host: Host, problem: SyncProblem | undefined): Record<string, unknown> {
  const conditions = withTransitionTimes(agentConditions(host, agent.spec?.approved === true, problem), agent.status?.conditions, new Date().toISOString());
  const inventory = agentInventory(host);
  const progress = host.progress ?? {};
  return {
    conditions,
    role: host.role ?? '',
    bootstrap: host.bootstrap === true,
    ...(inventory ? { inventory } : {}),
    progress: {
      ...(progress.current_stage ? { currentStage: progress.current_stage } : {}),
      ...(host.progress_stages?.length ? { progressStages: host.progress_stages } : {}),
      ...(progress.progress_info ? { progressInfo: progress.progress_info } : {}),
      ...(progress.installation_percentage ? { installationPercentage: progress.installation_percentage } : {}),
      ...(progress.stage_started_at && !progress.stage_started_at.startsWith('0001') ? { stageStartTime: progress.stage_started_at } : {}),
      ...(progress.stage_updated_at && !progress.stage_updated_at.startsWith('0001') ? { stageUpdateTime: progress.stage_updated_at } : {}),
    },
    debugInfo: {
      eventsURL: eventsUrl(ctx, { host_id: host.id, ...(host.infra_env_id ? { infra_env_id: host.infra_env_id } : {}) }),
      state: host.status,
      stateInfo: host.status_info ?? '',
    },
    ...(host.validations_info ? { validationsInfo: validationsInfo(host.validations_info) } : {}),
    ...(host.installation_disk_id ? { installation_disk_id: host.installation_disk_id } : {}),
    ...(host.ntp_sources ? { ntpSources: ntpSources(host.ntp_sources) } : {}),
  };
}

function ntpSources(sources: string): { sourceName: string; sourceState: string }[] {
  try {
    const parsed = JSON.parse(sources) as { source_name?: string; source_state?: string }[];
    return Array.isArray(parsed) ? parsed.map((s) => ({ sourceName: s.source_name ?? '', sourceState: s.source_state ?? '' })) : [];
  } catch {
    return [];
  }
}
