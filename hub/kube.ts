/**
 * The Kubernetes side: @kubernetes/client-node's informers (list + watch, re-listed after a broken
 * watch) for the watched resources, and the few writes the controller makes (merge patches of
 * metadata/spec and of the status subresource, creates, deletes, Secrets, ConfigMaps, Leases).
 */
import {
  ApiException,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
  type Informer,
  type KubernetesListObject,
  type ObjectCache,
  type V1Lease,
  type V1Secret,
} from '@kubernetes/client-node';
import { apiPath, type KubeObject, type ResourceType } from './objects.js';

export const isNotFound = (error: unknown) => error instanceof ApiException && error.code === 404;
export const isConflict = (error: unknown) => error instanceof ApiException && error.code === 409;

/** A short description of a failed Kubernetes call for logs and conditions. */
export function kubeFailure(error: unknown): string {
  if (error instanceof ApiException) {
    const body = typeof error.body === 'string' ? error.body : JSON.stringify(error.body);
    try {
      const parsed = JSON.parse(body) as { message?: string };
      if (parsed.message) return `${error.code} ${parsed.message}`;
    } catch {
      // not JSON
    }
    return `${error.code} ${body.slice(0, 300)}`;
  }
  return (error as Error)?.message ?? String(error);
}

const MERGE = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export type WatchedCache = Informer<KubeObject> & ObjectCache<KubeObject>;

export class Kube {
  readonly custom: CustomObjectsApi;
  readonly core: CoreV1Api;
  readonly coordination: CoordinationV1Api;

  constructor(
    readonly config: KubeConfig,
    readonly namespace?: string,
  ) {
    this.custom = config.makeApiClient(CustomObjectsApi);
    this.core = config.makeApiClient(CoreV1Api);
    this.coordination = config.makeApiClient(CoordinationV1Api);
  }

  static fromFile(file: string, namespace?: string): Kube {
    const config = new KubeConfig();
    config.loadFromFile(file);
    return new Kube(config, namespace);
  }

  /** An informer over one resource type, in the controller's namespace or all of them. */
  informer(type: ResourceType): WatchedCache {
    const namespace = type.namespaced ? this.namespace : undefined;
    const list = async (): Promise<KubernetesListObject<KubeObject>> => {
      const result = namespace
        ? await this.custom.listNamespacedCustomObject({ group: type.group, version: type.version, namespace, plural: type.plural })
        : await this.custom.listClusterCustomObject({ group: type.group, version: type.version, plural: type.plural });
      return result as KubernetesListObject<KubeObject>;
    };
    return makeInformer<KubeObject>(this.config, apiPath(type, namespace), list) as WatchedCache;
  }

  async get(type: ResourceType, namespace: string | undefined, name: string): Promise<KubeObject | undefined> {
    try {
      const object = type.namespaced
        ? await this.custom.getNamespacedCustomObject({ group: type.group, version: type.version, namespace: namespace!, plural: type.plural, name })
        : await this.custom.getClusterCustomObject({ group: type.group, version: type.version, plural: type.plural, name });
      return object as KubeObject;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async list(type: ResourceType, namespace: string, labelSelector?: string): Promise<KubeObject[]> {
    const result = (await this.custom.listNamespacedCustomObject({
      group: type.group,
      version: type.version,
      namespace,
      plural: type.plural,
      ...(labelSelector ? { labelSelector } : {}),
    })) as { items: KubeObject[] };
    return result.items;
  }

  async create(type: ResourceType, namespace: string, body: KubeObject): Promise<KubeObject> {
    return (await this.custom.createNamespacedCustomObject({
      group: type.group,
      version: type.version,
      namespace,
      plural: type.plural,
      body: { apiVersion: `${type.group}/${type.version}`, kind: type.kind, ...body },
    })) as KubeObject;
  }

  /** A JSON merge patch of metadata and/or spec. */
  async patch(type: ResourceType, namespace: string, name: string, body: Record<string, unknown>): Promise<KubeObject> {
    return (await this.custom.patchNamespacedCustomObject(
      { group: type.group, version: type.version, namespace, plural: type.plural, name, body },
      MERGE,
    )) as KubeObject;
  }

  /** A JSON merge patch of the status subresource. */
  async patchStatus(type: ResourceType, namespace: string, name: string, status: Record<string, unknown>): Promise<KubeObject> {
    return (await this.custom.patchNamespacedCustomObjectStatus(
      { group: type.group, version: type.version, namespace, plural: type.plural, name, body: { status } },
      MERGE,
    )) as KubeObject;
  }

  async delete(type: ResourceType, namespace: string, name: string): Promise<void> {
    try {
      await this.custom.deleteNamespacedCustomObject({ group: type.group, version: type.version, namespace, plural: type.plural, name });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  /** Adds or removes one finalizer with a merge patch of the whole list (guarded by resourceVersion). */
  async setFinalizer(type: ResourceType, object: KubeObject, finalizer: string, present: boolean): Promise<void> {
    const have = object.metadata.finalizers ?? [];
    if (have.includes(finalizer) === present) return;
    const finalizers = present ? [...have, finalizer] : have.filter((f) => f !== finalizer);
    await this.patch(type, object.metadata.namespace!, object.metadata.name, { metadata: { finalizers, resourceVersion: object.metadata.resourceVersion } });
  }

  async secret(namespace: string, name: string): Promise<V1Secret | undefined> {
    try {
      return await this.core.readNamespacedSecret({ namespace, name });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** Creates the Secret or replaces its data. */
  async putSecret(namespace: string, name: string, data: Record<string, string>, labels: Record<string, string> = {}): Promise<void> {
    const stringData = data;
    const existing = await this.secret(namespace, name);
    if (!existing) {
      await this.core.createNamespacedSecret({ namespace, body: { metadata: { name, namespace, labels }, type: 'Opaque', stringData } });
      return;
    }
    const same = Object.entries(data).every(([key, value]) => Buffer.from(existing.data?.[key] ?? '', 'base64').toString('utf8') === value);
    if (!same) await this.core.patchNamespacedSecret({ namespace, name, body: { stringData } }, MERGE);
  }

  async configMapData(namespace: string, name: string): Promise<Record<string, string> | undefined> {
    try {
      return (await this.core.readNamespacedConfigMap({ namespace, name })).data ?? {};
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async lease(namespace: string, name: string): Promise<V1Lease | undefined> {
    try {
      return await this.coordination.readNamespacedLease({ namespace, name });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }
}
