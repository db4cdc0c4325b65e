/**
 * The hub controller: informers on upstream's custom resources feed one work queue of keys, and a
 * reconciler per kind brings the Assisted service to what the resources say and writes back what
 * the service reports. Reconciling is level-based: each pass reads the resource, the service and
 * the other resources afresh, so a restart at any moment converges. The service is not watched, so
 * every key is looked at again after `resyncMs`. Each kind's reconciler has a room of its own in
 * reconcilers/; the controller holds what they share (the clients, the caches, the queue) and
 * hands itself to them as their HubContext.
 */
import type { Rest } from './assisted.js';
import { isNotFound, kubeFailure, type Kube, type WatchedCache } from './kube.js';
import {
  AGENT,
  AGENT_CLUSTER_INSTALL,
  BARE_METAL_HOST,
  CLUSTER_DEPLOYMENT,
  INFRA_ENV,
  LABEL,
  objectKey,
  parseKey,
  WATCHED,
  type KubeObject,
  type ResourceType,
} from './objects.js';
import { WorkQueue } from './queue.js';
import { reconcileAgent } from './reconcilers/agent.js';
import { reconcileBareMetalHost } from './reconcilers/bare-metal-host.js';
import { reconcileClusterDeployment, reconcileClusterInstall } from './reconcilers/cluster-install.js';
import type { ControllerOptions, HubContext, Reconciled } from './reconcilers/context.js';
import { reconcileInfraEnv } from './reconcilers/infra-env.js';

export type { ControllerOptions } from './reconcilers/context.js';

export class HubController implements HubContext {
  readonly caches = new Map<string, WatchedCache>();
  readonly queue: WorkQueue;
  readonly kube: Kube;
  readonly rest: Rest;

  constructor(readonly options: ControllerOptions) {
    this.kube = options.kube;
    this.rest = options.rest;
    this.queue = new WorkQueue((key) => this.reconcile(key), { log: options.log, describe: kubeFailure, workers: 3 });
  }

  private cache(type: ResourceType): WatchedCache {
    return this.caches.get(type.kind)!;
  }

  cached(type: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.cache(type).get(name, type.namespaced ? namespace : undefined);
  }

  all(type: ResourceType, namespace?: string): readonly KubeObject[] {
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

  private async reconcile(key: string): Reconciled {
    try {
      return await this.reconcileKind(key);
    } catch (error) {
      // The object went away while it was being reconciled: nothing left to do for it.
      if (isNotFound(error)) return;
      throw error;
    }
  }

  private async reconcileKind(key: string): Reconciled {
    const { kind, namespace, name } = parseKey(key);
    switch (kind) {
      case 'AgentClusterInstall':
        return reconcileClusterInstall(this, namespace, name);
      case 'ClusterDeployment':
        return reconcileClusterDeployment(this, namespace, name);
      case 'InfraEnv':
        return reconcileInfraEnv(this, namespace, name);
      case 'Agent':
        return reconcileAgent(this, namespace, name);
      case 'BareMetalHost':
        return reconcileBareMetalHost(this, namespace, name);
    }
  }
}
