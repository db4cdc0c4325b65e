/**
 * The hub controller: informers on upstream's custom resources feed one work queue of keys, and a
 * reconciler per kind brings the Assisted service to what the resources say and writes back what
 * the service reports. Reconciling is level-based: each pass reads the resource, the service and
 * the other resources afresh, so a restart at any moment converges. The service is not watched, so
 * every key is looked at again after `resyncMs`.
 */
import { isDeepStrictEqual } from 'node:util';
import { CLUSTER_BEFORE_INSTALL } from '../contracts/cluster-install-conditions.js';
import type { Cluster, Host, InfraEnv } from '../contracts/wire.js';
import { call, callOrMissing, ServiceError, type Rest } from './assisted.js';
import {
  agentConditions,
  clusterInstallConditions,
  HOST_DISCOVERED_BEFORE_INSTALL,
  imageCreatedCondition,
  shouldStartInstall,
  withTransitionTimes,
  type Condition,
  type SyncProblem,
} from './conditions.js';
import { isNotFound, kubeFailure, type Kube, type WatchedCache } from './kube.js';
import {
  AGENT,
  AGENT_CLUSTER_INSTALL,
  ANNOTATION,
  BARE_METAL_HOST,
  CLUSTER_DEPLOYMENT,
  CLUSTER_IMAGE_SET,
  FINALIZER,
  INFRA_ENV,
  isDeleting,
  LABEL,
  NMSTATE_CONFIG,
  objectKey,
  parseKey,
  WATCHED,
  type KubeObject,
  type ResourceType,
} from './objects.js';
import { WorkQueue } from './queue.js';
import {
  agentInventory,
  clusterPlan,
  clusterUpdate,
  hostUpdate,
  infraEnvParams,
  infraEnvUpdate,
  labelsMatch,
  manifestConfigMapNames,
  manifestsFromConfigMaps,
  SpecProblem,
  validationsInfo,
  type ClusterPlan,
} from './translate.js';
import { sameOverrides } from '../contracts/cluster-differences.js';

export interface ControllerOptions {
  kube: Kube;
  rest: Rest;
  /** The service's root URL, for the events URLs written into statuses. */
  serviceUrl: string;
  resyncMs: number;
  log: (message: string) => void;
}

const PULL_SECRET_KEY = '.dockerconfigjson';
/** Signed image URLs are valid for hours; they are signed again after one. */
const URL_REFRESH_MS = 60 * 60 * 1000;

const problemOf = (error: unknown): SyncProblem | undefined => {
  if (error instanceof SpecProblem) return { kind: 'input', message: error.message };
  if (error instanceof ServiceError) return { kind: error.isInput ? 'input' : 'backend', message: error.message };
  return undefined;
};

export class HubController {
  readonly caches = new Map<string, WatchedCache>();
  readonly queue: WorkQueue;
  private readonly kube: Kube;
  private readonly rest: Rest;

  constructor(private readonly options: ControllerOptions) {
    this.kube = options.kube;
    this.rest = options.rest;
    this.queue = new WorkQueue((key) => this.reconcile(key), { log: options.log, describe: kubeFailure, workers: 3 });
  }

  private cache(type: ResourceType): WatchedCache {
    return this.caches.get(type.kind)!;
  }

  private cached(type: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.cache(type).get(name, type.namespaced ? namespace : undefined);
  }

  private all(type: ResourceType, namespace?: string): readonly KubeObject[] {
    return this.cache(type).list(namespace);
  }

  /** Starts the informers (each lists, then watches) and the workers; resolves when stopped. */
  async start(): Promise<void> {
    for (const type of WATCHED) {
      const informer = this.options.kube.informer(type);
      this.caches.set(type.kind, informer);
      const onChange = (object: KubeObject) => this.enqueueFor(type, object);
      informer.on('add', onChange);
      informer.on('update', onChange);
      informer.on('delete', onChange);
      informer.on('error', (error) => {
        this.options.log(`watch of ${type.plural} broke (${kubeFailure(error)}); listing again in 2 s`);
        setTimeout(() => void informer.start().catch((e: unknown) => this.options.log(`watch of ${type.plural}: ${kubeFailure(e)}`)), 2_000).unref?.();
      });
    }
    // Not before every cache is filled: a reconciler reads the others.
    for (const [kind, informer] of this.caches) {
      try {
        await informer.start();
      } catch (error) {
        // A CRD that is not installed (the metal3 ones, without the Bare Metal Operator) is skipped.
        this.options.log(`not watching ${kind}: ${kubeFailure(error)}`);
      }
    }
    for (const type of WATCHED) for (const object of this.all(type)) this.enqueueFor(type, object);
    await this.queue.run();
  }

  async stop(): Promise<void> {
    this.queue.stop();
    for (const informer of this.caches.values()) await informer.stop().catch(() => undefined);
  }

  /** Which keys a change to `object` concerns. */
  enqueueFor(type: ResourceType, object: KubeObject): void {
    const namespace = object.metadata.namespace;
    const add = (t: ResourceType, ns: string | undefined, name: string | undefined) => name && this.queue.add(objectKey(t, ns, name));
    switch (type.kind) {
      case 'ClusterImageSet':
        for (const aci of this.all(AGENT_CLUSTER_INSTALL))
          if (aci.spec?.imageSetRef?.name === object.metadata.name) add(AGENT_CLUSTER_INSTALL, aci.metadata.namespace, aci.metadata.name);
        break;
      case 'ClusterDeployment':
        add(CLUSTER_DEPLOYMENT, namespace, object.metadata.name);
        add(AGENT_CLUSTER_INSTALL, namespace, object.spec?.clusterInstallRef?.name);
        break;
      case 'AgentClusterInstall':
        add(AGENT_CLUSTER_INSTALL, namespace, object.metadata.name);
        for (const infraEnv of this.all(INFRA_ENV)) {
          if (
            infraEnv.spec?.clusterRef?.name === object.spec?.clusterDeploymentRef?.name &&
            (infraEnv.spec?.clusterRef?.namespace ?? infraEnv.metadata.namespace) === namespace
          )
            add(INFRA_ENV, infraEnv.metadata.namespace, infraEnv.metadata.name);
        }
        break;
      case 'InfraEnv':
        add(INFRA_ENV, namespace, object.metadata.name);
        for (const bmh of this.all(BARE_METAL_HOST, namespace))
          if (bmh.metadata.labels?.[LABEL.infraEnv] === object.metadata.name) add(BARE_METAL_HOST, namespace, bmh.metadata.name);
        break;
      case 'NMStateConfig':
        // Its labels may have stopped matching too: every InfraEnv of the namespace looks again.
        for (const infraEnv of this.all(INFRA_ENV, namespace)) if (infraEnv.spec?.nmStateConfigLabelSelector) add(INFRA_ENV, namespace, infraEnv.metadata.name);
        break;
      case 'Agent': {
        add(AGENT, namespace, object.metadata.name);
        const ref = object.spec?.clusterDeploymentName;
        if (ref?.name) {
          const cd = this.cached(CLUSTER_DEPLOYMENT, ref.namespace ?? namespace, ref.name);
          add(AGENT_CLUSTER_INSTALL, ref.namespace ?? namespace, cd?.spec?.clusterInstallRef?.name);
        }
        for (const bmh of this.all(BARE_METAL_HOST, namespace)) add(BARE_METAL_HOST, namespace, bmh.metadata.name);
        break;
      }
      case 'BareMetalHost':
        add(BARE_METAL_HOST, namespace, object.metadata.name);
        break;
    }
  }

  private async reconcile(key: string): Promise<{ requeueAfterMs?: number } | void> {
    try {
      return await this.reconcileKind(key);
    } catch (error) {
      // The object went away while it was being reconciled: nothing left to do for it.
      if (isNotFound(error)) return;
      throw error;
    }
  }

  private async reconcileKind(key: string): Promise<{ requeueAfterMs?: number } | void> {
    const { kind, namespace, name } = parseKey(key);
    switch (kind) {
      case 'AgentClusterInstall':
        return this.reconcileClusterInstall(namespace, name);
      case 'ClusterDeployment':
        return this.reconcileClusterDeployment(namespace, name);
      case 'InfraEnv':
        return this.reconcileInfraEnv(namespace, name);
      case 'Agent':
        return this.reconcileAgent(namespace, name);
      case 'BareMetalHost':
        return this.reconcileBareMetalHost(namespace, name);
    }
  }

  private eventsUrl(query: Record<string, string>): string {
    return `${this.options.serviceUrl.replace(/\/+$/, '')}/api/assisted-install/v2/events?${new URLSearchParams(query)}`;
  }

  private async pullSecret(namespace: string, name: string | undefined, owner: string): Promise<string> {
    if (!name) throw new SpecProblem(`${owner}: spec.pullSecretRef.name is required`);
    const secret = await this.kube.secret(namespace, name);
    const encoded = secret?.data?.[PULL_SECRET_KEY];
    if (!secret) throw new SpecProblem(`${owner}: pull secret ${namespace}/${name} does not exist`);
    if (!encoded) throw new SpecProblem(`${owner}: Secret ${namespace}/${name} has no ${PULL_SECRET_KEY} key`);
    return Buffer.from(encoded, 'base64').toString('utf8');
  }

  // ---- ClusterDeployment: its finalizer deletes the AgentClusterInstall it refers to.

  private async reconcileClusterDeployment(namespace: string, name: string): Promise<void> {
    const cd = this.cached(CLUSTER_DEPLOYMENT, namespace, name);
    if (cd?.spec?.clusterInstallRef?.kind !== 'AgentClusterInstall') return;
    const aciName = cd.spec.clusterInstallRef.name as string | undefined;
    if (isDeleting(cd)) {
      if (!cd.metadata.finalizers?.includes(FINALIZER.clusterDeployment)) return;
      const aci = aciName ? this.cached(AGENT_CLUSTER_INSTALL, namespace, aciName) : undefined;
      if (aci) {
        // The AgentClusterInstall's own finalizer deregisters the cluster; wait until it is gone.
        if (!isDeleting(aci)) await this.kube.delete(AGENT_CLUSTER_INSTALL, namespace, aci.metadata.name);
        throw new Error(`waiting for AgentClusterInstall ${namespace}/${aci.metadata.name} to be deleted`);
      }
      await this.kube.setFinalizer(CLUSTER_DEPLOYMENT, cd, FINALIZER.clusterDeployment, false);
      return;
    }
    await this.kube.setFinalizer(CLUSTER_DEPLOYMENT, cd, FINALIZER.clusterDeployment, true);
  }

  // ---- AgentClusterInstall (+ ClusterDeployment + ClusterImageSet) → cluster.

  /** The registered cluster for an AgentClusterInstall: by the id it was annotated with, else by name and base domain. */
  private async findCluster(aci: KubeObject, plan: ClusterPlan | undefined): Promise<Cluster | undefined> {
    const id = aci.metadata.annotations?.[ANNOTATION.clusterId];
    if (id) {
      const cluster = await callOrMissing(`reading cluster ${id}`, () => this.rest.GET('/v2/clusters/{cluster_id}', { params: { path: { cluster_id: id } } }));
      if (cluster) return cluster;
    }
    if (!plan) return undefined;
    // A controller stopped between registering and annotating finds its cluster again.
    const named = await call(`looking up cluster ${plan.params.name}`, () =>
      this.rest.GET('/v2/clusters', { params: { query: { name: plan.params.name } } as never }),
    );
    const match = named.find((cluster) => cluster.name === plan.params.name && cluster.base_dns_domain === plan.params.base_dns_domain);
    if (!match) return undefined;
    await this.kube.patch(AGENT_CLUSTER_INSTALL, aci.metadata.namespace!, aci.metadata.name, {
      metadata: { annotations: { [ANNOTATION.clusterId]: match.id } },
    });
    return call(`reading cluster ${match.id}`, () => this.rest.GET('/v2/clusters/{cluster_id}', { params: { path: { cluster_id: match.id } } }));
  }

  /** Agents whose spec.clusterDeploymentName names this ClusterDeployment. */
  private agentsOf(cdNamespace: string, cdName: string): KubeObject[] {
    return this.all(AGENT).filter(
      (agent) => agent.spec?.clusterDeploymentName?.name === cdName && (agent.spec.clusterDeploymentName.namespace ?? agent.metadata.namespace) === cdNamespace,
    );
  }

  private async reconcileClusterInstall(namespace: string, name: string): Promise<{ requeueAfterMs?: number } | void> {
    const aci = this.cached(AGENT_CLUSTER_INSTALL, namespace, name);
    if (!aci) return;
    const cdName = aci.spec?.clusterDeploymentRef?.name as string | undefined;
    if (isDeleting(aci)) return this.deregisterCluster(aci, cdName);
    await this.kube.setFinalizer(AGENT_CLUSTER_INSTALL, aci, FINALIZER.agentClusterInstall, true);

    let problem: SyncProblem | undefined;
    let plan: ClusterPlan | undefined;
    let cluster: Cluster | undefined;
    const cd = cdName ? this.cached(CLUSTER_DEPLOYMENT, namespace, cdName) : undefined;
    const agents = cdName ? this.agentsOf(namespace, cdName) : [];
    const hold = aci.spec?.holdInstallation === true;
    try {
      if (!cdName) throw new SpecProblem(`AgentClusterInstall ${name}: spec.clusterDeploymentRef.name is required`);
      if (!cd) throw new SpecProblem(`ClusterDeployment ${namespace}/${cdName} (spec.clusterDeploymentRef) does not exist`);
      const imageSetName = aci.spec?.imageSetRef?.name as string | undefined;
      if (!imageSetName) throw new SpecProblem(`AgentClusterInstall ${name}: spec.imageSetRef.name is required`);
      const imageSet = this.cached(CLUSTER_IMAGE_SET, undefined, imageSetName);
      if (!imageSet) throw new SpecProblem(`ClusterImageSet ${imageSetName} (spec.imageSetRef) does not exist`);
      const pullSecret = await this.pullSecret(namespace, cd.spec?.pullSecretRef?.name, `ClusterDeployment ${cdName}`);
      plan = clusterPlan({ clusterDeployment: cd, agentClusterInstall: aci, clusterImageSet: imageSet, pullSecret });
      cluster = await this.findCluster(aci, plan);
      if (!cluster) {
        const params = plan.params;
        cluster = await call(`registering cluster ${params.name}`, () => this.rest.POST('/v2/clusters', { body: params }));
        this.options.log(`${namespace}/${name}: registered cluster ${cluster.id}`);
        await this.kube.patch(AGENT_CLUSTER_INSTALL, namespace, name, { metadata: { annotations: { [ANNOTATION.clusterId]: cluster.id } } });
      } else if (CLUSTER_BEFORE_INSTALL.has(cluster.status) && cluster.status !== 'adding-hosts') {
        // Once the installation started, changes to the spec are not applied (upstream's rule).
        const update = clusterUpdate(cluster, plan.params);
        if (Object.keys(update).length > 0) {
          const id = cluster.id;
          cluster = await call(`updating cluster ${id} (${Object.keys(update).join(', ')})`, () =>
            this.rest.PATCH('/v2/clusters/{cluster_id}', { params: { path: { cluster_id: id } }, body: update }),
          );
        }
      }
      if (CLUSTER_BEFORE_INSTALL.has(cluster.status) && cluster.status !== 'adding-hosts') {
        await this.syncInstallConfig(cluster, plan);
        await this.syncManifests(cluster, aci, namespace);
      }
    } catch (error) {
      problem = problemOf(error);
      if (!problem) throw error;
      this.options.log(`${namespace}/${name}: ${problem.message}`);
      if (!cluster) cluster = await this.findCluster(aci, undefined).catch(() => undefined);
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
          this.rest.POST('/v2/clusters/{cluster_id}/actions/install', { params: { path: { cluster_id: id } } }),
        );
        this.options.log(`${namespace}/${name}: installation of cluster ${id} started`);
      } catch (error) {
        // A host that stopped being ready in between: the next pass looks again.
        if (!(error instanceof ServiceError) || !error.isInput) throw error;
        this.options.log(`${namespace}/${name}: ${error.message}`);
      }
    }
    if (cluster && cd && (cluster.status === 'installed' || cluster.status === 'adding-hosts')) await this.publishInstalled(cluster, aci, cd);
    if (cluster && cd && cluster.status === 'installed') {
      // As upstream turns every installed cluster into a day-2 one (AddHostsCluster): hosts booted later
      // from the InfraEnv register to it and, once their Agent is approved, install as workers.
      const id = cluster.id;
      await call(`allowing workers to join cluster ${id}`, () =>
        this.rest.POST('/v2/clusters/{cluster_id}/actions/allow-add-workers', { params: { path: { cluster_id: id } } }),
      ).catch((error: unknown) => this.options.log(`${namespace}/${name}: ${(error as Error).message}`));
    }

    const conditions = withTransitionTimes(
      clusterInstallConditions(cluster, expected, counts, problem, hold),
      aci.status?.conditions,
      new Date().toISOString(),
    );
    const roleOf = (agent: KubeObject) => agent.status?.role ?? agent.spec?.role;
    const isReady = (agent: KubeObject) =>
      agent.spec?.approved === true && agent.status?.conditions?.some((c: Condition) => c.type === 'RequirementsMet' && c.status === 'True');
    const masters = agents.filter((agent) => roleOf(agent) === 'master');
    const workers = agents.filter((agent) => roleOf(agent) === 'worker');
    const status: Record<string, unknown> = {
      conditions,
      debugInfo: cluster
        ? { eventsURL: this.eventsUrl({ cluster_id: cluster.id }), logsURL: '', state: cluster.status, stateInfo: cluster.status_info ?? '' }
        : { eventsURL: '', logsURL: '' },
      ...(cluster ? { progress: { totalPercentage: cluster.progress?.total_percentage ?? 0 } } : {}),
      controlPlaneAgentsDiscovered: masters.length,
      controlPlaneAgentsReady: masters.filter(isReady).length,
      workerAgentsDiscovered: workers.length,
      workerAgentsReady: workers.filter(isReady).length,
      ...(cluster?.machine_networks?.length ? { machineNetwork: cluster.machine_networks.map((n) => ({ cidr: n.cidr })) } : {}),
      ...(cluster?.validations_info ? { validationsInfo: validationsInfo(cluster.validations_info) } : {}),
    };
    await this.writeStatus(AGENT_CLUSTER_INSTALL, aci, status);
    if (problem?.kind === 'backend') throw new Error(problem.message);
    return { requeueAfterMs: problem ? Math.max(this.options.resyncMs, 10_000) : this.options.resyncMs };
  }

  private async writeStatus(type: ResourceType, object: KubeObject, status: Record<string, unknown>): Promise<void> {
    const current = object.status ?? {};
    const changed = Object.entries(status).some(([key, value]) => !isDeepStrictEqual(stripTimes(current[key]), stripTimes(value)));
    if (!changed) return;
    await this.kube.patchStatus(type, object.metadata.namespace!, object.metadata.name, status);
  }

  private async syncInstallConfig(cluster: Cluster, plan: ClusterPlan): Promise<void> {
    if (sameOverrides(cluster.install_config_overrides, plan.installConfigOverrides)) return;
    const id = cluster.id;
    const body = plan.installConfigOverrides ?? '{}';
    await call(`applying the install-config overrides of cluster ${id}`, () =>
      this.rest.PATCH('/v2/clusters/{cluster_id}/install-config', { params: { path: { cluster_id: id } }, body }),
    );
  }

  /** Uploads the referenced ConfigMaps' manifests that the cluster lacks or holds with other content. */
  private async syncManifests(cluster: Cluster, aci: KubeObject, namespace: string): Promise<void> {
    const names = manifestConfigMapNames(aci);
    if (names.length === 0) return;
    const configMaps = [];
    for (const configMapName of names) {
      const data = await this.kube.configMapData(namespace, configMapName);
      if (!data) throw new SpecProblem(`ConfigMap ${namespace}/${configMapName} (manifests of AgentClusterInstall ${aci.metadata.name}) does not exist`);
      configMaps.push({ name: configMapName, data });
    }
    const wanted = manifestsFromConfigMaps(configMaps);
    const id = cluster.id;
    const existing = await call(`listing the manifests of cluster ${id}`, () =>
      this.rest.GET('/v2/clusters/{cluster_id}/manifests', { params: { path: { cluster_id: id } } }),
    );
    for (const manifest of wanted) {
      const present = existing.some((m) => m.folder === 'openshift' && m.file_name === manifest.fileName);
      if (present) {
        const content = await call(`reading manifest ${manifest.fileName}`, () =>
          this.rest.GET('/v2/clusters/{cluster_id}/manifests/files', {
            params: { path: { cluster_id: id }, query: { folder: 'openshift', file_name: manifest.fileName } },
            parseAs: 'text',
          }),
        );
        if ((content as unknown as string) === manifest.content) continue;
        await call(`replacing manifest ${manifest.fileName}`, () =>
          this.rest.PATCH('/v2/clusters/{cluster_id}/manifests', {
            params: { path: { cluster_id: id } },
            body: { folder: 'openshift', file_name: manifest.fileName, updated_content: Buffer.from(manifest.content).toString('base64') } as never,
          }),
        );
      } else {
        await call(`uploading manifest ${manifest.fileName}`, () =>
          this.rest.POST('/v2/clusters/{cluster_id}/manifests', {
            params: { path: { cluster_id: id } },
            body: { folder: 'openshift', file_name: manifest.fileName, content: Buffer.from(manifest.content).toString('base64') },
          }),
        );
      }
    }
  }

  /** Once installed: kubeconfig and admin password Secrets, referenced from the AgentClusterInstall and ClusterDeployment, which is marked installed. */
  private async publishInstalled(cluster: Cluster, aci: KubeObject, cd: KubeObject): Promise<void> {
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
      this.rest.GET('/v2/clusters/{cluster_id}/downloads/credentials', {
        params: { path: { cluster_id: id }, query: { file_name: 'kubeconfig' } },
        parseAs: 'text',
      }),
    );
    const credentials = await call(`reading the credentials of cluster ${id}`, () =>
      this.rest.GET('/v2/clusters/{cluster_id}/credentials', { params: { path: { cluster_id: id } } }),
    );
    const labels = { 'hive.openshift.io/cluster-deployment-name': cd.metadata.name };
    await this.kube.putSecret(namespace, kubeconfigName, { kubeconfig: kubeconfig as unknown as string }, labels);
    await this.kube.putSecret(namespace, passwordName, { username: credentials.username ?? 'kubeadmin', password: credentials.password ?? '' }, labels);
    await this.kube.patch(AGENT_CLUSTER_INSTALL, namespace, aci.metadata.name, { spec: { clusterMetadata: metadata } });
    await this.kube.patch(CLUSTER_DEPLOYMENT, namespace, cd.metadata.name, { spec: { installed: true, clusterMetadata: metadata } });
    this.options.log(`${namespace}/${cd.metadata.name}: installed; Secrets ${kubeconfigName} and ${passwordName} written`);
  }

  /** The AgentClusterInstall's finalizer: its Agents are deleted and the cluster deregistered. */
  private async deregisterCluster(aci: KubeObject, cdName: string | undefined): Promise<void> {
    if (!aci.metadata.finalizers?.includes(FINALIZER.agentClusterInstall)) return;
    const namespace = aci.metadata.namespace!;
    if (cdName) for (const agent of this.agentsOf(namespace, cdName)) await this.kube.delete(AGENT, agent.metadata.namespace!, agent.metadata.name);
    const id = aci.metadata.annotations?.[ANNOTATION.clusterId];
    if (id) {
      try {
        await call(`deregistering cluster ${id}`, () => this.rest.DELETE('/v2/clusters/{cluster_id}', { params: { path: { cluster_id: id } } }));
        this.options.log(`${namespace}/${aci.metadata.name}: deregistered cluster ${id}`);
      } catch (error) {
        if (!(error instanceof ServiceError) || error.status !== 404) throw error;
      }
    }
    await this.kube.setFinalizer(AGENT_CLUSTER_INSTALL, aci, FINALIZER.agentClusterInstall, false);
  }

  // ---- InfraEnv (+ NMStateConfigs) → infra-env; its hosts → Agents.

  private clusterIdOfDeployment(namespace: string, cdName: string): string | undefined {
    const cd = this.cached(CLUSTER_DEPLOYMENT, namespace, cdName);
    const aciName = cd?.spec?.clusterInstallRef?.name;
    const aci = aciName ? this.cached(AGENT_CLUSTER_INSTALL, namespace, aciName) : undefined;
    return aci?.metadata.annotations?.[ANNOTATION.clusterId];
  }

  private deploymentOfCluster(clusterId: string): KubeObject | undefined {
    const aci = this.all(AGENT_CLUSTER_INSTALL).find((candidate) => candidate.metadata.annotations?.[ANNOTATION.clusterId] === clusterId);
    const cdName = aci?.spec?.clusterDeploymentRef?.name;
    return cdName ? this.cached(CLUSTER_DEPLOYMENT, aci!.metadata.namespace, cdName) : undefined;
  }

  private async findInfraEnv(infraEnv: KubeObject, clusterId: string | undefined): Promise<InfraEnv | undefined> {
    const id = infraEnv.metadata.annotations?.[ANNOTATION.infraEnvId];
    if (id) {
      const found = await callOrMissing(`reading infra-env ${id}`, () =>
        this.rest.GET('/v2/infra-envs/{infra_env_id}', { params: { path: { infra_env_id: id } } }),
      );
      if (found) return found;
    }
    if (!clusterId) return undefined;
    const listed = await call(`listing the infra-envs of cluster ${clusterId}`, () =>
      this.rest.GET('/v2/infra-envs', { params: { query: { cluster_id: clusterId } } }),
    );
    const match = listed.find((candidate) => candidate.name === infraEnv.metadata.name);
    if (match)
      await this.kube.patch(INFRA_ENV, infraEnv.metadata.namespace!, infraEnv.metadata.name, {
        metadata: { annotations: { [ANNOTATION.infraEnvId]: match.id } },
      });
    return match;
  }

  private async reconcileInfraEnv(namespace: string, name: string): Promise<{ requeueAfterMs?: number } | void> {
    const object = this.cached(INFRA_ENV, namespace, name);
    if (!object) return;
    if (isDeleting(object)) return this.deleteInfraEnv(object);
    await this.kube.setFinalizer(INFRA_ENV, object, FINALIZER.infraEnv, true);

    let problem: SyncProblem | undefined;
    let infraEnv: InfraEnv | undefined;
    let waitingForCluster = false;
    let imageChanged = false;
    try {
      const ref = object.spec?.clusterRef;
      let clusterId: string | undefined;
      let cluster: Cluster | undefined;
      if (ref?.name) {
        clusterId = this.clusterIdOfDeployment(ref.namespace ?? namespace, ref.name);
        if (!clusterId) waitingForCluster = true;
        else
          cluster = await call(`reading cluster ${clusterId}`, () =>
            this.rest.GET('/v2/clusters/{cluster_id}', { params: { path: { cluster_id: clusterId! } } }),
          );
      }
      if (!waitingForCluster) {
        const pullSecret = await this.pullSecret(namespace, object.spec?.pullSecretRef?.name, `InfraEnv ${name}`);
        const selector = object.spec?.nmStateConfigLabelSelector;
        const configs = selector ? this.all(NMSTATE_CONFIG, namespace).filter((config) => labelsMatch(selector, config.metadata.labels)) : [];
        const params = infraEnvParams(
          object,
          pullSecret,
          configs,
          cluster ? { openshiftVersion: cluster.openshift_version, cpuArchitecture: cluster.cpu_architecture } : undefined,
        );
        infraEnv = await this.findInfraEnv(object, clusterId);
        if (!infraEnv) {
          const body = { ...params, ...(clusterId ? { cluster_id: clusterId } : {}) };
          infraEnv = await call(`registering infra-env ${name}`, () => this.rest.POST('/v2/infra-envs', { body }));
          this.options.log(`${namespace}/${name}: registered infra-env ${infraEnv.id}`);
          await this.kube.patch(INFRA_ENV, namespace, name, { metadata: { annotations: { [ANNOTATION.infraEnvId]: infraEnv.id } } });
          imageChanged = true;
        } else {
          const update = infraEnvUpdate(infraEnv, params);
          if (Object.keys(update).length > 0) {
            const id = infraEnv.id;
            infraEnv = await call(`updating infra-env ${id} (${Object.keys(update).join(', ')})`, () =>
              this.rest.PATCH('/v2/infra-envs/{infra_env_id}', { params: { path: { infra_env_id: id } }, body: update }),
            );
            this.options.log(`${namespace}/${name}: infra-env ${id} updated (${Object.keys(update).join(', ')}); its image is re-made`);
            imageChanged = true;
          }
        }
        await this.syncAgents(object, infraEnv);
      }
    } catch (error) {
      problem = problemOf(error);
      if (!problem) throw error;
      this.options.log(`${namespace}/${name}: ${problem.message}`);
    }
    const conditions = withTransitionTimes([imageCreatedCondition(problem, Boolean(infraEnv))], object.status?.conditions, new Date().toISOString());
    const status: Record<string, unknown> = { conditions, agentLabelSelector: { matchLabels: { [LABEL.infraEnv]: name } } };
    if (infraEnv) {
      status.debugInfo = { eventsURL: this.eventsUrl({ infra_env_id: infraEnv.id }) };
      // The URLs carry signed tokens that expire: signed again when the image changes or they age.
      const age = Date.now() - new Date(object.status?.createdTime ?? 0).getTime();
      if (imageChanged || !object.status?.isoDownloadURL || !object.status?.bootArtifacts?.ipxeScript || !(age < URL_REFRESH_MS)) {
        const id = infraEnv.id;
        status.isoDownloadURL = (
          await call(`signing the image URL of infra-env ${id}`, () =>
            this.rest.GET('/v2/infra-envs/{infra_env_id}/downloads/image-url', { params: { path: { infra_env_id: id } } }),
          )
        ).url;
        status.bootArtifacts = await this.bootArtifacts(infraEnv);
        status.createdTime = new Date().toISOString();
      }
    }
    await this.writeStatus(INFRA_ENV, object, status);
    if (problem?.kind === 'backend') throw new Error(problem.message);
    return { requeueAfterMs: waitingForCluster ? Math.min(this.options.resyncMs, 2_000) : this.options.resyncMs };
  }

  /** The iPXE script's URL, and the kernel, initrd and rootfs URLs it boots. */
  private async bootArtifacts(infraEnv: InfraEnv): Promise<Record<string, string>> {
    const id = infraEnv.id;
    const presigned = async (fileName: string) =>
      (
        await call(`presigning ${fileName}`, () =>
          this.rest.GET('/v2/infra-envs/{infra_env_id}/downloads/files-presigned', {
            params: { path: { infra_env_id: id }, query: { file_name: fileName as 'ipxe-script' } },
          }),
        )
      ).url;
    const ipxeScript = await presigned('ipxe-script');
    const discoveryIgnitionURL = await presigned('discovery.ign').catch(() => '');
    const artifacts: Record<string, string> = { ipxeScript, ...(discoveryIgnitionURL ? { discoveryIgnitionURL } : {}) };
    const script = await fetch(ipxeScript).then((response) => (response.ok ? response.text() : ''));
    const kernel = /^kernel\s+(?:--name\s+\S+\s+)?(\S+)(.*)$/m.exec(script);
    const initrd = /^initrd\s+(?:--name\s+\S+\s+)?(\S+)/m.exec(script);
    const rootfs = /coreos\.live\.rootfs_url=(\S+)/.exec(script);
    if (kernel) artifacts.kernel = kernel[1]!;
    if (initrd) artifacts.initrd = initrd[1]!;
    if (rootfs) artifacts.rootfs = rootfs[1]!;
    return artifacts;
  }

  /** An Agent for every host registered through this InfraEnv. */
  private async syncAgents(object: KubeObject, infraEnv: InfraEnv): Promise<void> {
    const namespace = object.metadata.namespace!;
    const id = infraEnv.id;
    const hosts = await call(`listing the hosts of infra-env ${id}`, () =>
      this.rest.GET('/v2/infra-envs/{infra_env_id}/hosts', { params: { path: { infra_env_id: id } } }),
    );
    for (const host of hosts) {
      if (this.cached(AGENT, namespace, host.id)) {
        this.queue.add(objectKey(AGENT, namespace, host.id));
        continue;
      }
      const cd = host.cluster_id ? this.deploymentOfCluster(host.cluster_id) : undefined;
      await this.kube
        .create(AGENT, namespace, {
          metadata: {
            name: host.id,
            namespace,
            labels: { [LABEL.infraEnv]: object.metadata.name, ...(cd ? { [LABEL.clusterDeploymentNamespace]: cd.metadata.namespace! } : {}) },
          },
          spec: { approved: false, role: '', ...(cd ? { clusterDeploymentName: { name: cd.metadata.name, namespace: cd.metadata.namespace } } : {}) },
        })
        .then(() => this.options.log(`${namespace}/${object.metadata.name}: host ${host.id} registered; Agent ${host.id} created`))
        .catch((error: unknown) => {
          if (!kubeFailure(error).startsWith('409')) throw error;
        });
    }
  }

  private async deleteInfraEnv(object: KubeObject): Promise<void> {
    if (!object.metadata.finalizers?.includes(FINALIZER.infraEnv)) return;
    const namespace = object.metadata.namespace!;
    for (const agent of this.all(AGENT, namespace))
      if (agent.metadata.labels?.[LABEL.infraEnv] === object.metadata.name) await this.kube.delete(AGENT, namespace, agent.metadata.name);
    const id = object.metadata.annotations?.[ANNOTATION.infraEnvId];
    if (id) {
      const hosts =
        (await callOrMissing(`listing the hosts of infra-env ${id}`, () =>
          this.rest.GET('/v2/infra-envs/{infra_env_id}/hosts', { params: { path: { infra_env_id: id } } }),
        )) ?? [];
      for (const host of hosts)
        await callOrMissing(`deregistering host ${host.id}`, () =>
          this.rest.DELETE('/v2/infra-envs/{infra_env_id}/hosts/{host_id}', { params: { path: { infra_env_id: id, host_id: host.id } } }),
        );
      await callOrMissing(`deregistering infra-env ${id}`, () => this.rest.DELETE('/v2/infra-envs/{infra_env_id}', { params: { path: { infra_env_id: id } } }));
    }
    await this.kube.setFinalizer(INFRA_ENV, object, FINALIZER.infraEnv, false);
  }

  // ---- Agent ↔ host.

  private async reconcileAgent(namespace: string, name: string): Promise<{ requeueAfterMs?: number } | void> {
    const agent = this.cached(AGENT, namespace, name);
    if (!agent || isDeleting(agent)) return;
    const infraEnvName = agent.metadata.labels?.[LABEL.infraEnv];
    const infraEnvObject = infraEnvName ? this.cached(INFRA_ENV, namespace, infraEnvName) : undefined;
    const infraEnvId = infraEnvObject?.metadata.annotations?.[ANNOTATION.infraEnvId];
    if (!infraEnvId) return { requeueAfterMs: this.options.resyncMs };
    let host = await callOrMissing(`reading host ${name}`, () =>
      this.rest.GET('/v2/infra-envs/{infra_env_id}/hosts/{host_id}', { params: { path: { infra_env_id: infraEnvId, host_id: name } } }),
    );
    if (!host) {
      // The host was deregistered: its Agent goes too, as upstream's does.
      await this.kube.delete(AGENT, namespace, name);
      return;
    }
    let problem: SyncProblem | undefined;
    const spec = agent.spec ?? {};
    try {
      host = await this.syncHost(agent, host, infraEnvId, infraEnvObject!);
    } catch (error) {
      problem = problemOf(error);
      if (!problem) throw error;
      this.options.log(`${namespace}/${name}: ${problem.message}`);
    }
    const status = this.agentStatus(agent, host, problem);
    await this.writeStatus(AGENT, agent, status);
    // A host bound by the InfraEnv's cluster names its ClusterDeployment in the Agent's spec.
    if (!spec.clusterDeploymentName && host.cluster_id && infraEnvObject?.spec?.clusterRef?.name) {
      const cd = this.deploymentOfCluster(host.cluster_id);
      if (cd) await this.kube.patch(AGENT, namespace, name, { spec: { clusterDeploymentName: { name: cd.metadata.name, namespace: cd.metadata.namespace } } });
    }
    if (problem?.kind === 'backend') throw new Error(problem.message);
    return { requeueAfterMs: this.options.resyncMs };
  }

  /** Binds, unbinds, updates and (day 2) installs the host as the Agent's spec says; returns the host as it is after. */
  private async syncHost(agent: KubeObject, host: Host, infraEnvId: string, infraEnvObject: KubeObject): Promise<Host> {
    const spec = agent.spec ?? {};
    const hostPath = { infra_env_id: infraEnvId, host_id: host.id };
    const reread = () => call(`reading host ${host.id}`, () => this.rest.GET('/v2/infra-envs/{infra_env_id}/hosts/{host_id}', { params: { path: hostPath } }));
    if (!HOST_DISCOVERED_BEFORE_INSTALL.has(host.status)) return host;
    const wantedCd = spec.clusterDeploymentName?.name as string | undefined;
    const lateBinding = !infraEnvObject.spec?.clusterRef?.name;
    if (lateBinding && wantedCd && !host.cluster_id) {
      const clusterId = this.clusterIdOfDeployment(spec.clusterDeploymentName.namespace ?? agent.metadata.namespace, wantedCd);
      if (!clusterId) throw new SpecProblem(`ClusterDeployment ${wantedCd} (spec.clusterDeploymentName) has no registered cluster yet`);
      host = await call(`binding host ${host.id} to cluster ${clusterId}`, () =>
        this.rest.POST('/v2/infra-envs/{infra_env_id}/hosts/{host_id}/actions/bind', { params: { path: hostPath }, body: { cluster_id: clusterId } }),
      );
    } else if (lateBinding && !wantedCd && host.cluster_id) {
      host = await call(`unbinding host ${host.id}`, () =>
        this.rest.POST('/v2/infra-envs/{infra_env_id}/hosts/{host_id}/actions/unbind', { params: { path: hostPath } }),
      );
    }
    const update = hostUpdate(agent, host);
    if (Object.keys(update).length > 0) {
      host = await call(`updating host ${host.id} (${Object.keys(update).join(', ')})`, () =>
        this.rest.PATCH('/v2/infra-envs/{infra_env_id}/hosts/{host_id}', { params: { path: hostPath }, body: update as never }),
      );
    }
    if ((spec.ignitionConfigOverrides ?? '') !== (host.ignition_config_overrides ?? '') && spec.ignitionConfigOverrides !== undefined) {
      await call(`setting the ignition overrides of host ${host.id}`, () =>
        this.rest.PATCH('/v2/infra-envs/{infra_env_id}/hosts/{host_id}/ignition', {
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
          this.rest.PATCH('/v2/infra-envs/{infra_env_id}/hosts/{host_id}/installer-args', { params: { path: hostPath }, body: { args } }),
        );
        host = await reread();
      }
    }
    // Day 2: an approved host of a cluster that is already installed installs on its own.
    if (spec.approved === true && host.status === 'known' && host.cluster_id && host.kind === 'AddToExistingClusterHost') {
      host = await call(`installing host ${host.id} into its installed cluster`, () =>
        this.rest.POST('/v2/infra-envs/{infra_env_id}/hosts/{host_id}/actions/install', { params: { path: hostPath } }),
      );
      this.options.log(`${agent.metadata.namespace}/${agent.metadata.name}: day-2 installation started`);
    }
    return host;
  }

  private agentStatus(agent: KubeObject, host: Host, problem: SyncProblem | undefined): Record<string, unknown> {
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
        eventsURL: this.eventsUrl({ host_id: host.id, ...(host.infra_env_id ? { infra_env_id: host.infra_env_id } : {}) }),
        state: host.status,
        stateInfo: host.status_info ?? '',
      },
      ...(host.validations_info ? { validationsInfo: validationsInfo(host.validations_info) } : {}),
      ...(host.installation_disk_id ? { installation_disk_id: host.installation_disk_id } : {}),
      ...(host.ntp_sources ? { ntpSources: ntpSources(host.ntp_sources) } : {}),
    };
  }

  // ---- BareMetalHost: the InfraEnv's ISO as its image, its annotations into the matching Agent.

  private async reconcileBareMetalHost(namespace: string, name: string): Promise<{ requeueAfterMs?: number } | void> {
    const bmh = this.cached(BARE_METAL_HOST, namespace, name);
    if (!bmh || isDeleting(bmh)) return;
    const infraEnvName = bmh.metadata.labels?.[LABEL.infraEnv];
    if (!infraEnvName) return;
    const infraEnv = this.cached(INFRA_ENV, namespace, infraEnvName);
    const mac = String(bmh.spec?.bootMACAddress ?? '').toLowerCase();
    const agent = mac
      ? this.all(AGENT, namespace).find((candidate) =>
          (candidate.status?.inventory?.interfaces ?? []).some((nic: { macAddress?: string }) => nic.macAddress?.toLowerCase() === mac),
        )
      : undefined;
    const installed = agent?.status?.conditions?.some((c: Condition) => c.type === 'Installed' && c.status === 'True') === true;
    const annotations = bmh.metadata.annotations ?? {};
    if (installed) {
      // Installed: the host is the cluster's now; metal3 must not re-provision it.
      if (annotations[ANNOTATION.bmhDetached] === undefined)
        await this.kube.patch(BARE_METAL_HOST, namespace, name, { metadata: { annotations: { [ANNOTATION.bmhDetached]: 'assisted-service-controller' } } });
      return;
    }
    const iso = infraEnv?.status?.isoDownloadURL as string | undefined;
    if (
      iso &&
      (bmh.spec?.image?.url !== iso || bmh.spec?.image?.format !== 'live-iso' || bmh.spec?.online !== true || annotations['inspect.metal3.io'] !== 'disabled')
    ) {
      await this.kube.patch(BARE_METAL_HOST, namespace, name, {
        metadata: { annotations: { 'inspect.metal3.io': 'disabled' } },
        spec: { image: { url: iso, format: 'live-iso' }, online: true },
      });
    }
    if (!agent) return { requeueAfterMs: this.options.resyncMs };
    const wanted: Record<string, unknown> = {};
    const role = annotations[ANNOTATION.bmhRole];
    if (role && agent.spec?.role !== role) wanted.role = role;
    const hostname = annotations[ANNOTATION.bmhHostname];
    if (hostname && agent.spec?.hostname !== hostname) wanted.hostname = hostname;
    const installerArgs = annotations[ANNOTATION.bmhInstallerArgs];
    if (installerArgs !== undefined && agent.spec?.installerArgs !== installerArgs) wanted.installerArgs = installerArgs;
    const ignition = annotations[ANNOTATION.bmhIgnitionOverrides];
    if (ignition !== undefined && agent.spec?.ignitionConfigOverrides !== ignition) wanted.ignitionConfigOverrides = ignition;
    const disk = bmh.spec?.rootDeviceHints?.deviceName as string | undefined;
    if (disk && !agent.spec?.installation_disk_path && !agent.spec?.installation_disk_id) wanted.installation_disk_path = disk;
    const labels: Record<string, string> = {};
    for (const [key, value] of Object.entries(annotations))
      if (key.startsWith(ANNOTATION.bmhAgentLabelPrefix)) labels[key.slice(ANNOTATION.bmhAgentLabelPrefix.length)] = value;
    if (agent.metadata.labels?.[LABEL.bmh] !== name) labels[LABEL.bmh] = name;
    const labelsDiffer = Object.entries(labels).some(([key, value]) => agent.metadata.labels?.[key] !== value);
    if (Object.keys(wanted).length > 0 || labelsDiffer) {
      await this.kube.patch(AGENT, namespace, agent.metadata.name, {
        ...(labelsDiffer ? { metadata: { labels } } : {}),
        ...(Object.keys(wanted).length ? { spec: wanted } : {}),
      });
    }
    return { requeueAfterMs: this.options.resyncMs };
  }
}

function ntpSources(sources: string): { sourceName: string; sourceState: string }[] {
  try {
    const parsed = JSON.parse(sources) as { source_name?: string; source_state?: string }[];
    return Array.isArray(parsed) ? parsed.map((s) => ({ sourceName: s.source_name ?? '', sourceState: s.source_state ?? '' })) : [];
  } catch {
    return [];
  }
}

/** Status comparison ignores the condition timestamps (they are carried over unchanged anyway). */
function stripTimes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripTimes);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => key !== 'lastTransitionTime' && key !== 'lastProbeTime' && key !== 'lastHeartbeatTime' && key !== 'createdTime')
        .map(([key, v]) => [key, stripTimes(v)]),
    );
  }
  return value;
}
