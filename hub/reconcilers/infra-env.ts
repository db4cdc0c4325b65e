/**
 * InfraEnv (with the NMStateConfigs its selector picks) → the registered infra-env: registered and
 * kept to the spec, its image and boot artifact URLs written into the status (signed again when
 * they age), an Agent made for each host that boots from it, and all of it deregistered by its
 * finalizer.
 */
import type { Cluster, InfraEnv } from '../../contracts/wire.js';
import { call, callOrMissing } from '../assisted.js';
import { imageCreatedCondition, withTransitionTimes, type SyncProblem } from '../conditions.js';
import { kubeFailure } from '../kube.js';
import { AGENT, ANNOTATION, FINALIZER, INFRA_ENV, isDeleting, LABEL, NMSTATE_CONFIG, objectKey, type KubeObject } from '../objects.js';
import { infraEnvParams, infraEnvUpdate, labelsMatch } from '../translate.js';
import { clusterIdOfDeployment, deploymentOfCluster, eventsUrl, problemOf, readPullSecret, writeStatus, type HubContext, type Reconciled } from './context.js';

/** Signed image URLs are valid for hours; they are signed again after one. */
const URL_REFRESH_MS = 60 * 60 * 1000;

async function findInfraEnv(ctx: HubContext, infraEnv: KubeObject, clusterId: string | undefined): Promise<InfraEnv | undefined> {
  const id = infraEnv.metadata.annotations?.[ANNOTATION.infraEnvId];
  if (id) {
    const found = await callOrMissing(`reading infra-env ${id}`, () =>
      ctx.rest.GET('/v2/infra-envs/{infra_env_id}', { params: { path: { infra_env_id: id } } }),
    );
    if (found) return found;
  }
  if (!clusterId) return undefined;
  const listed = await call(`listing the infra-envs of cluster ${clusterId}`, () =>
    ctx.rest.GET('/v2/infra-envs', { params: { query: { cluster_id: clusterId } } }),
  );
  const match = listed.find((candidate) => candidate.name === infraEnv.metadata.name);
  if (match)
    await ctx.kube.patch(INFRA_ENV, infraEnv.metadata.namespace!, infraEnv.metadata.name, {
      metadata: { annotations: { [ANNOTATION.infraEnvId]: match.id } },
    });
  return match;
}

export async function reconcileInfraEnv(ctx: HubContext, namespace: string, name: string): Reconciled {
  const object = ctx.cached(INFRA_ENV, namespace, name);
  if (!object) return;
  if (isDeleting(object)) return deleteInfraEnv(ctx, object);
  await ctx.kube.setFinalizer(INFRA_ENV, object, FINALIZER.infraEnv, true);

  let problem: SyncProblem | undefined;
  let infraEnv: InfraEnv | undefined;
  let waitingForCluster = false;
  let imageChanged = false;
  try {
    const ref = object.spec?.clusterRef;
    let clusterId: string | undefined;
    let cluster: Cluster | undefined;
    if (ref?.name) {
      clusterId = clusterIdOfDeployment(ctx, ref.namespace ?? namespace, ref.name);
      if (!clusterId) waitingForCluster = true;
      else
        cluster = await call(`reading cluster ${clusterId}`, () => ctx.rest.GET('/v2/clusters/{cluster_id}', { params: { path: { cluster_id: clusterId! } } }));
    }
    if (!waitingForCluster) {
      const pullSecret = await readPullSecret(ctx, namespace, object.spec?.pullSecretRef?.name, `InfraEnv ${name}`);
      const selector = object.spec?.nmStateConfigLabelSelector;
      const configs = selector ? ctx.all(NMSTATE_CONFIG, namespace).filter((config) => labelsMatch(selector, config.metadata.labels)) : [];
      const params = infraEnvParams(
        object,
        pullSecret,
        configs,
        cluster ? { openshiftVersion: cluster.openshift_version, cpuArchitecture: cluster.cpu_architecture } : undefined,
      );
      infraEnv = await findInfraEnv(ctx, object, clusterId);
      if (!infraEnv) {
        const body = { ...params, ...(clusterId ? { cluster_id: clusterId } : {}) };
        infraEnv = await call(`registering infra-env ${name}`, () => ctx.rest.POST('/v2/infra-envs', { body }));
        ctx.options.log(`${namespace}/${name}: registered infra-env ${infraEnv.id}`);
        await ctx.kube.patch(INFRA_ENV, namespace, name, { metadata: { annotations: { [ANNOTATION.infraEnvId]: infraEnv.id } } });
        imageChanged = true;
      } else {
        const update = infraEnvUpdate(infraEnv, params);
        if (Object.keys(update).length > 0) {
          const id = infraEnv.id;
          infraEnv = await call(`updating infra-env ${id} (${Object.keys(update).join(', ')})`, () =>
            ctx.rest.PATCH('/v2/infra-envs/{infra_env_id}', { params: { path: { infra_env_id: id } }, body: update }),
          );
          ctx.options.log(`${namespace}/${name}: infra-env ${id} updated (${Object.keys(update).join(', ')}); its image is re-made`);
          imageChanged = true;
        }
      }
      await syncAgents(ctx, object, infraEnv);
    }
  } catch (error) {
    problem = problemOf(error);
    if (!problem) throw error;
    ctx.options.log(`${namespace}/${name}: ${problem.message}`);
  }
  const conditions = withTransitionTimes([imageCreatedCondition(problem, Boolean(infraEnv))], object.status?.conditions, new Date().toISOString());
  const status: Record<string, unknown> = { conditions, agentLabelSelector: { matchLabels: { [LABEL.infraEnv]: name } } };
  if (infraEnv) {
    status.debugInfo = { eventsURL: eventsUrl(ctx, { infra_env_id: infraEnv.id }) };
    // The URLs carry signed tokens that expire: signed again when the image changes or they age.
    const age = Date.now() - new Date(object.status?.createdTime ?? 0).getTime();
    if (imageChanged || !object.status?.isoDownloadURL || !object.status?.bootArtifacts?.ipxeScript || !(age < URL_REFRESH_MS)) {
      const id = infraEnv.id;
      status.isoDownloadURL = (
        await call(`signing the image URL of infra-env ${id}`, () =>
          ctx.rest.GET('/v2/infra-envs/{infra_env_id}/downloads/image-url', { params: { path: { infra_env_id: id } } }),
        )
      ).url;
      status.bootArtifacts = await bootArtifacts(ctx, infraEnv);
      status.createdTime = new Date().toISOString();
    }
  }
  await writeStatus(ctx, INFRA_ENV, object, status);
  if (problem?.kind === 'backend') throw new Error(problem.message);
  return { requeueAfterMs: waitingForCluster ? Math.min(ctx.options.resyncMs, 2_000) : ctx.options.resyncMs };
}

/** The iPXE script's URL, and the kernel, initrd and rootfs URLs it boots. */
async function bootArtifacts(ctx: HubContext, infraEnv: InfraEnv): Promise<Record<string, string>> {
  const id = infraEnv.id;
  const presigned = async (fileName: string) =>
    (
      await call(`presigning ${fileName}`, () =>
        ctx.rest.GET('/v2/infra-envs/{infra_env_id}/downloads/files-presigned', {
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
async function syncAgents(ctx: HubContext, object: KubeObject, infraEnv: InfraEnv): Promise<void> {
  const namespace = object.metadata.namespace!;
  const id = infraEnv.id;
  const hosts = await call(`listing the hosts of infra-env ${id}`, () =>
    ctx.rest.GET('/v2/infra-envs/{infra_env_id}/hosts', { params: { path: { infra_env_id: id } } }),
  );
  for (const host of hosts) {
    if (ctx.cached(AGENT, namespace, host.id)) {
      ctx.queue.add(objectKey(AGENT, namespace, host.id));
      continue;
    }
    const cd = host.cluster_id ? deploymentOfCluster(ctx, host.cluster_id) : undefined;
    await ctx.kube
      .create(AGENT, namespace, {
        metadata: {
          name: host.id,
          namespace,
          labels: { [LABEL.infraEnv]: object.metadata.name, ...(cd ? { [LABEL.clusterDeploymentNamespace]: cd.metadata.namespace! } : {}) },
        },
        spec: { approved: false, role: '', ...(cd ? { clusterDeploymentName: { name: cd.metadata.name, namespace: cd.metadata.namespace } } : {}) },
      })
      .then(() => ctx.options.log(`${namespace}/${object.metadata.name}: host ${host.id} registered; Agent ${host.id} created`))
      .catch((error: unknown) => {
        if (!kubeFailure(error).startsWith('409')) throw error;
      });
  }
}

async function deleteInfraEnv(ctx: HubContext, object: KubeObject): Promise<void> {
  if (!object.metadata.finalizers?.includes(FINALIZER.infraEnv)) return;
  const namespace = object.metadata.namespace!;
  for (const agent of ctx.all(AGENT, namespace))
    if (agent.metadata.labels?.[LABEL.infraEnv] === object.metadata.name) await ctx.kube.delete(AGENT, namespace, agent.metadata.name);
  const id = object.metadata.annotations?.[ANNOTATION.infraEnvId];
  if (id) {
    const hosts =
      (await callOrMissing(`listing the hosts of infra-env ${id}`, () =>
        ctx.rest.GET('/v2/infra-envs/{infra_env_id}/hosts', { params: { path: { infra_env_id: id } } }),
      )) ?? [];
    for (const host of hosts)
      await callOrMissing(`deregistering host ${host.id}`, () =>
        ctx.rest.DELETE('/v2/infra-envs/{infra_env_id}/hosts/{host_id}', { params: { path: { infra_env_id: id, host_id: host.id } } }),
      );
    await callOrMissing(`deregistering infra-env ${id}`, () => ctx.rest.DELETE('/v2/infra-envs/{infra_env_id}', { params: { path: { infra_env_id: id } } }));
  }
  await ctx.kube.setFinalizer(INFRA_ENV, object, FINALIZER.infraEnv, false);
}
