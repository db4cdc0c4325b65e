/**
 * What every reconciler of the hub controller shares: the clients, the informers' caches and the
 * work queue (the controller holds them), and the reads and writes more than one kind makes.
 */
import { isDeepStrictEqual } from 'node:util';
import { ServiceError, type Rest } from '../assisted.js';
import type { SyncProblem } from '../conditions.js';
import type { Kube } from '../kube.js';
import { AGENT, AGENT_CLUSTER_INSTALL, ANNOTATION, CLUSTER_DEPLOYMENT, type KubeObject, type ResourceType } from '../objects.js';
import type { Reconcile, WorkQueue } from '../queue.js';
import { SpecProblem } from '../translate.js';

export interface ControllerOptions {
  kube: Kube;
  rest: Rest;
  /** The service's root URL, for the events URLs written into statuses. */
  serviceUrl: string;
  resyncMs: number;
  log: (message: string) => void;
}

/** What a reconciler hands the work queue: when to look at the key again, if sooner than the resync. */
export type Reconciled = ReturnType<Reconcile>;

/** The controller as its reconcilers see it. */
export interface HubContext {
  readonly kube: Kube;
  readonly rest: Rest;
  readonly options: ControllerOptions;
  readonly queue: WorkQueue;
  cached(type: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined;
  all(type: ResourceType, namespace?: string): readonly KubeObject[];
}

const PULL_SECRET_KEY = '.dockerconfigjson';

export const problemOf = (error: unknown): SyncProblem | undefined => {
  if (error instanceof SpecProblem) return { kind: 'input', message: error.message };
  if (error instanceof ServiceError) return { kind: error.isInput ? 'input' : 'backend', message: error.message };
  return undefined;
};

export function eventsUrl(ctx: HubContext, query: Record<string, string>): string {
  return `${ctx.options.serviceUrl.replace(/\/+$/, '')}/api/assisted-install/v2/events?${new URLSearchParams(query)}`;
}

export async function readPullSecret(ctx: HubContext, namespace: string, name: string | undefined, owner: string): Promise<string> {
  if (!name) throw new SpecProblem(`${owner}: spec.pullSecretRef.name is required`);
  const secret = await ctx.kube.secret(namespace, name);
  const encoded = secret?.data?.[PULL_SECRET_KEY];
  if (!secret) throw new SpecProblem(`${owner}: pull secret ${namespace}/${name} does not exist`);
  if (!encoded) throw new SpecProblem(`${owner}: Secret ${namespace}/${name} has no ${PULL_SECRET_KEY} key`);
  return Buffer.from(encoded, 'base64').toString('utf8');
}

/** Agents whose spec.clusterDeploymentName names this ClusterDeployment. */
export function agentsOf(ctx: HubContext, cdNamespace: string, cdName: string): KubeObject[] {
  return ctx
    .all(AGENT)
    .filter(
      (agent) => agent.spec?.clusterDeploymentName?.name === cdName && (agent.spec.clusterDeploymentName.namespace ?? agent.metadata.namespace) === cdNamespace,
    );
}

export async function writeStatus(ctx: HubContext, type: ResourceType, object: KubeObject, status: Record<string, unknown>): Promise<void> {
  const current = object.status ?? {};
  const changed = Object.entries(status).some(([key, value]) => !isDeepStrictEqual(stripTimes(current[key]), stripTimes(value)));
  if (!changed) return;
  await ctx.kube.patchStatus(type, object.metadata.namespace!, object.metadata.name, status);
}

export function clusterIdOfDeployment(ctx: HubContext, namespace: string, cdName: string): string | undefined {
  const cd = ctx.cached(CLUSTER_DEPLOYMENT, namespace, cdName);
  const aciName = cd?.spec?.clusterInstallRef?.name;
  const aci = aciName ? ctx.cached(AGENT_CLUSTER_INSTALL, namespace, aciName) : undefined;
  return aci?.metadata.annotations?.[ANNOTATION.clusterId];
}

export function deploymentOfCluster(ctx: HubContext, clusterId: string): KubeObject | undefined {
  const aci = ctx.all(AGENT_CLUSTER_INSTALL).find((candidate) => candidate.metadata.annotations?.[ANNOTATION.clusterId] === clusterId);
  const cdName = aci?.spec?.clusterDeploymentRef?.name;
  return cdName ? ctx.cached(CLUSTER_DEPLOYMENT, aci!.metadata.namespace, cdName) : undefined;
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
