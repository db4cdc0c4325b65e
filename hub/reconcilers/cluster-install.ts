/**
 * ClusterDeployment and AgentClusterInstall (with the ClusterImageSet it names) → the registered
 * cluster: registered and kept to the spec until the installation starts, installed when the
 * expected Agents are ready, its kubeconfig and password published once installed, and
 * deregistered by the AgentClusterInstall's finalizer.
 */
import { isDeepStrictEqual } from 'node:util';
import { CLUSTER_BEFORE_INSTALL } from '../../contracts/cluster-install-conditions.js';
import { sameOverrides } from '../../contracts/cluster-differences.js';
import type { Cluster } from '../../contracts/wire.js';
import { call, callOrMissing, ServiceError } from '../assisted.js';
import { clusterInstallConditions, shouldStartInstall, withTransitionTimes, type Condition, type SyncProblem } from '../conditions.js';
import { AGENT, AGENT_CLUSTER_INSTALL, ANNOTATION, CLUSTER_DEPLOYMENT, CLUSTER_IMAGE_SET, FINALIZER, isDeleting, type KubeObject } from '../objects.js';
import { clusterPlan, clusterUpdate, manifestConfigMapNames, manifestsFromConfigMaps, SpecProblem, validationsInfo, type ClusterPlan } from '../translate.js';
import { agentsOf, eventsUrl, problemOf, readPullSecret, writeStatus, type HubContext, type Reconciled } from './context.js';

// ---- ClusterDeployment: its finalizer deletes the AgentClusterInstall it refers to.

export async function reconcileClusterDeployment(ctx: HubContext, namespace: string, name: string): Promise<void> {
  const cd = ctx.cached(CLUSTER_DEPLOYMENT, namespace, name);
  if (cd?.spec?.clusterInstallRef?.kind !== 'AgentClusterInstall') return;
  const aciName = cd.spec.clusterInstallRef.name as string | undefined;
  if (isDeleting(cd)) {
    if (!cd.metadata.finalizers?.includes(FINALIZER.clusterDeployment)) return;
    const aci = aciName ? ctx.cached(AGENT_CLUSTER_INSTALL, namespace, aciName) : undefined;
    if (aci) {
      // The AgentClusterInstall's own finalizer deregisters the cluster; wait until it is gone.
      if (!isDeleting(aci)) await ctx.kube.delete(AGENT_CLUSTER_INSTALL, namespace, aci.metadata.name);
      throw new Error(`waiting for AgentClusterInstall ${namespace}/${aci.metadata.name} to be deleted`);
    }
    await ctx.kube.setFinalizer(CLUSTER_DEPLOYMENT, cd, FINALIZER.clusterDeployment, false);
    return;
  }
  await ctx.kube.setFinalizer(CLUSTER_DEPLOYMENT, cd, FINALIZER.clusterDeployment, true);
}

// ---- AgentClusterInstall (+ ClusterDeployment + ClusterImageSet) → cluster.

/** The registered cluster for an AgentClusterInstall: by the id it was annotated with, else by name and base domain. */
async function findCluster(ctx: HubContext, aci: KubeObject, plan: ClusterPlan | undefined): Promise<Cluster | undefined> {
  const id = aci.metadata.annotations?.[ANNOTATION.clusterId];
  if (id) {
    const cluster = await callOrMissing(`reading cluster ${id}`, () => ctx.rest.GET('/v2/clusters/{cluster_id}', { params: { path: { cluster_id: id } } }));
    if (cluster) return cluster;
  }
  if (!plan) return undefined;
  // A controller stopped between registering and annotating finds its cluster again.
  const named = await call(`looking up cluster ${plan.params.name}`, () =>
    ctx.rest.GET('/v2/clusters', { params: { query: { name: plan.params.name } } as never }),
  );
  const match = named.find((cluster) => cluster.name === plan.params.name && cluster.base_dns_domain === plan.params.base_dns_domain);
  if (!match) return undefined;
  await ctx.kube.patch(AGENT_CLUSTER_INSTALL, aci.metadata.namespace!, aci.metadata.name, {
    metadata: { annotations: { [ANNOTATION.clusterId]: match.id } },
  });
  return call(`reading cluster ${match.id}`, () => ctx.rest.GET('/v2/clusters/{cluster_id}', { params: { path: { cluster_id: match.id } } }));
}

export async function reconcileClusterInstall(ctx: HubContext, namespace: string, name: string): Reconciled {
  const aci = ctx.cached(AGENT_CLUSTER_INSTALL, namespace, name);
  if (!aci) return;
  const cdName = aci.spec?.clusterDeploymentRef?.name as string | undefined;
  if (isDeleting(aci)) return deregisterCluster(ctx, aci, cdName);
  await ctx.kube.setFinalizer(AGENT_CLUSTER_INSTALL, aci, FINALIZER.agentClusterInstall, true);

  let problem: SyncProblem | undefined;
  let plan: ClusterPlan | undefined;
  let cluster: Cluster | undefined;
  const cd = cdName ? ctx.cached(CLUSTER_DEPLOYMENT, namespace, cdName) : undefined;
  const agents = cdName ? agentsOf(ctx, namespace, cdName) : [];
  const hold = aci.spec?.holdInstallation === true;
  try {
    if (!cdName) throw new SpecProblem(`AgentClusterInstall ${name}: spec.clusterDeploymentRef.name is required`);
    if (!cd) throw new SpecProblem(`ClusterDeployment ${namespace}/${cdName} (spec.clusterDeploymentRef) does not exist`);
    const imageSetName = aci.spec?.imageSetRef?.name as string | undefined;
    if (!imageSetName) throw new SpecProblem(`AgentClusterInstall ${name}: spec.imageSetRef.name is required`);
    const imageSet = ctx.cached(CLUSTER_IMAGE_SET, undefined, imageSetName);
    if (!imageSet) throw new SpecProblem(`ClusterImageSet ${imageSetName} (spec.imageSetRef) does not exist`);
    const pullSecret = await readPullSecret(ctx, namespace, cd.spec?.pullSecretRef?.name, `ClusterDeployment ${cdName}`);
    plan = clusterPlan({ clusterDeployment: cd, agentClusterInstall: aci, clusterImageSet: imageSet, pullSecret });
    cluster = await findCluster(ctx, aci, plan);
    if (!cluster) {
      const params = plan.params;
      cluster = await call(`registering cluster ${params.name}`, () => ctx.rest.POST('/v2/clusters', { body: params }));
      ctx.options.log(`${namespace}/${name}: registered cluster ${cluster.id}`);
      await ctx.kube.patch(AGENT_CLUSTER_INSTALL, namespace, name, { metadata: { annotations: { [ANNOTATION.clusterId]: cluster.id } } });
    } else if (CLUSTER_BEFORE_INSTALL.has(cluster.status) && cluster.status !== 'adding-hosts') {
      // Once the installation started, changes to the spec are not applied (upstream's rule).
      const update = clusterUpdate(cluster, plan.params);
      if (Object.keys(update).length > 0) {
        const id = cluster.id;
        cluster = await call(`updating cluster ${id} (${Object.keys(update).join(', ')})`, () =>
          ctx.rest.PATCH('/v2/clusters/{cluster_id}', { params: { path: { cluster_id: id } }, body: update }),
        );
      }
    }
    if (CLUSTER_BEFORE_INSTALL.has(cluster.status) && cluster.status !== 'adding-hosts') {
      await syncInstallConfig(ctx, cluster, plan);
      await syncManifests(ctx, cluster, aci, namespace);
    }
  } catch (error) {
    problem = problemOf(error);
    if (!problem) throw error;
    ctx.options.log(`${namespace}/${name}: ${problem.message}`);
    if (!cluster) cluster = await findCluster(ctx, aci, undefined).catch(() => undefined);
  }

  const counts = { registered: agents.length, unapproved: agents.filter((agent) => agent.spec?.approved !== true).length };
  const expected = plan?.expected ?? {
    controlPlane: Number(aci.spec?.provisionRequirements?.controlPlaneAgents ?? 1),
    workers: Number(aci.spec?.provisionRequirements?.workerAgents ?? 0),
  };
  if (cluster && !problem && shouldStartInstall(cluster, expected, counts, hold)) {
    const id = cluster.id;
    try {
      cluster = await call(`starting the installation of cluster ${id}`, () =>
        ctx.rest.POST('/v2/clusters/{cluster_id}/actions/install', { params: { path: { cluster_id: id } } }),
      );
      ctx.options.log(`${namespace}/${name}: installation of cluster ${id} started`);
    } catch (error) {
      // A host that stopped being ready in between: the next pass looks again.
      if (!(error instanceof ServiceError) || !error.isInput) throw error;
      ctx.options.log(`${namespace}/${name}: ${error.message}`);
    }
  }
  if (cluster && cd && (cluster.status === 'installed' || cluster.status === 'adding-hosts')) await publishInstalled(ctx, cluster, aci, cd);
  if (cluster && cd && cluster.status === 'installed') {
    // As upstream turns every installed cluster into a day-2 one (AddHostsCluster): hosts booted later
    // from the InfraEnv register to it and, once their Agent is approved, install as workers.
    const id = cluster.id;
    await call(`allowing workers to join cluster ${id}`, () =>
      ctx.rest.POST('/v2/clusters/{cluster_id}/actions/allow-add-workers', { params: { path: { cluster_id: id } } }),
    ).catch((error: unknown) => ctx.options.log(`${namespace}/${name}: ${(error as Error).message}`));
  }

  const conditions = withTransitionTimes(clusterInstallConditions(cluster, expected, counts, problem, hold), aci.status?.conditions, new Date().toISOString());
  const roleOf = (agent: KubeObject) => agent.status?.role ?? agent.spec?.role;
  const isReady = (agent: KubeObject) =>
    agent.spec?.approved === true && agent.status?.conditions?.some((c: Condition) => c.type === 'RequirementsMet' && c.status === 'True');
  const masters = agents.filter((agent) => roleOf(agent) === 'master');
  const workers = agents.filter((agent) => roleOf(agent) === 'worker');
  const status: Record<string, unknown> = {
    conditions,
    debugInfo: cluster
      ? { eventsURL: eventsUrl(ctx, { cluster_id: cluster.id }), logsURL: '', state: cluster.status, stateInfo: cluster.status_info ?? '' }
      : { eventsURL: '', logsURL: '' },
    ...(cluster ? { progress: { totalPercentage: cluster.progress?.total_percentage ?? 0 } } : {}),
    controlPlaneAgentsDiscovered: masters.length,
    controlPlaneAgentsReady: masters.filter(isReady).length,
    workerAgentsDiscovered: workers.length,
    workerAgentsReady: workers.filter(isReady).length,
    ...(cluster?.machine_networks?.length ? { machineNetwork: cluster.machine_networks.map((n) => ({ cidr: n.cidr })) } : {}),
    ...(cluster?.validations_info ? { validationsInfo: validationsInfo(cluster.validations_info) } : {}),
  };
  await writeStatus(ctx, AGENT_CLUSTER_INSTALL, aci, status);
  if (problem?.kind === 'backend') throw new Error(problem.message);
  return { requeueAfterMs: problem ? Math.max(ctx.options.resyncMs, 10_000) : ctx.options.resyncMs };
}

async function syncInstallConfig(ctx: HubContext, cluster: Cluster, plan: ClusterPlan): Promise<void> {
  if (sameOverrides(cluster.install_config_overrides, plan.installConfigOverrides)) return;
  const id = cluster.id;
  const body = plan.installConfigOverrides ?? '{}';
  await call(`applying the install-config overrides of cluster ${id}`, () =>
    ctx.rest.PATCH('/v2/clusters/{cluster_id}/install-config', { params: { path: { cluster_id: id } }, body }),
  );
}

/** Uploads the referenced ConfigMaps' manifests that the cluster lacks or holds with other content. */
async function syncManifests(ctx: HubContext, cluster: Cluster, aci: KubeObject, namespace: string): Promise<void> {
  const names = manifestConfigMapNames(aci);
  if (names.length === 0) return;
  const configMaps = [];
  for (const configMapName of names) {
    const data = await ctx.kube.configMapData(namespace, configMapName);
    if (!data) throw new SpecProblem(`ConfigMap ${namespace}/${configMapName} (manifests of AgentClusterInstall ${aci.metadata.name}) does not exist`);
    configMaps.push({ name: configMapName, data });
  }
  const wanted = manifestsFromConfigMaps(configMaps);
  const id = cluster.id;
  const existing = await call(`listing the manifests of cluster ${id}`, () =>
    ctx.rest.GET('/v2/clusters/{cluster_id}/manifests', { params: { path: { cluster_id: id } } }),
  );
  for (const manifest of wanted) {
    const present = existing.some((m) => m.folder === 'openshift' && m.file_name === manifest.fileName);
    if (present) {
      const content = await call(`reading manifest ${manifest.fileName}`, () =>
        ctx.rest.GET('/v2/clusters/{cluster_id}/manifests/files', {
          params: { path: { cluster_id: id }, query: { folder: 'openshift', file_name: manifest.fileName } },
          parseAs: 'text',
        }),
      );
      if ((content as unknown as string) === manifest.content) continue;
      await call(`replacing manifest ${manifest.fileName}`, () =>
        ctx.rest.PATCH('/v2/clusters/{cluster_id}/manifests', {
          params: { path: { cluster_id: id } },
          body: { folder: 'openshift', file_name: manifest.fileName, updated_content: Buffer.from(manifest.content).toString('base64') } as never,
        }),
      );
    } else {
      await call(`uploading manifest ${manifest.fileName}`, () =>
        ctx.rest.POST('/v2/clusters/{cluster_id}/manifests', {
          params: { path: { cluster_id: id } },
          body: { folder: 'openshift', file_name: manifest.fileName, content: Buffer.from(manifest.content).toString('base64') },
        }),
      );
    }
  }
}

/** Once installed: kubeconfig and admin password Secrets, referenced from the AgentClusterInstall and ClusterDeployment, which is marked installed. */
async function publishInstalled(ctx: HubContext, cluster: Cluster, aci: KubeObject, cd: KubeObject): Promise<void> {
  const namespace = cd.metadata.namespace!;
  const kubeconfigName = `${cd.metadata.name}-admin-kubeconfig`;
  const passwordName = `${cd.metadata.name}-admin-password`;
  const metadata = {
    clusterID: cluster.openshift_cluster_id || cluster.id,
    infraID: cluster.id,
    adminKubeconfigSecretRef: { name: kubeconfigName },
    adminPasswordSecretRef: { name: passwordName },
  };
  if (cd.spec?.installed === true && isDeepStrictEqual(cd.spec?.clusterMetadata, metadata) && isDeepStrictEqual(aci.spec?.clusterMetadata, metadata)) return;
  const id = cluster.id;
  const kubeconfig = await call(`downloading the kubeconfig of cluster ${id}`, () =>
    ctx.rest.GET('/v2/clusters/{cluster_id}/downloads/credentials', {
      params: { path: { cluster_id: id }, query: { file_name: 'kubeconfig' } },
      parseAs: 'text',
    }),
  );
  const credentials = await call(`reading the credentials of cluster ${id}`, () =>
    ctx.rest.GET('/v2/clusters/{cluster_id}/credentials', { params: { path: { cluster_id: id } } }),
  );
  const labels = { 'hive.openshift.io/cluster-deployment-name': cd.metadata.name };
  await ctx.kube.putSecret(namespace, kubeconfigName, { kubeconfig: kubeconfig as unknown as string }, labels);
  await ctx.kube.putSecret(namespace, passwordName, { username: credentials.username ?? 'kubeadmin', password: credentials.password ?? '' }, labels);
  await ctx.kube.patch(AGENT_CLUSTER_INSTALL, namespace, aci.metadata.name, { spec: { clusterMetadata: metadata } });
  await ctx.kube.patch(CLUSTER_DEPLOYMENT, namespace, cd.metadata.name, { spec: { installed: true, clusterMetadata: metadata } });
  ctx.options.log(`${namespace}/${cd.metadata.name}: installed; Secrets ${kubeconfigName} and ${passwordName} written`);
}

/** The AgentClusterInstall's finalizer: its Agents are deleted and the cluster deregistered. */
async function deregisterCluster(ctx: HubContext, aci: KubeObject, cdName: string | undefined): Promise<void> {
  if (!aci.metadata.finalizers?.includes(FINALIZER.agentClusterInstall)) return;
  const namespace = aci.metadata.namespace!;
  if (cdName) for (const agent of agentsOf(ctx, namespace, cdName)) await ctx.kube.delete(AGENT, agent.metadata.namespace!, agent.metadata.name);
  const id = aci.metadata.annotations?.[ANNOTATION.clusterId];
  if (id) {
    try {
      await call(`deregistering cluster ${id}`, () => ctx.rest.DELETE('/v2/clusters/{cluster_id}', { params: { path: { cluster_id: id } } }));
      ctx.options.log(`${namespace}/${aci.metadata.name}: deregistered cluster ${id}`);
    } catch (error) {
      if (!(error instanceof ServiceError) || error.status !== 404) throw error;
    }
  }
  await ctx.kube.setFinalizer(AGENT_CLUSTER_INSTALL, aci, FINALIZER.agentClusterInstall, false);
}
