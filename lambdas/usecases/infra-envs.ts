import { randomUUID } from 'node:crypto';
import type { InfraEnv } from '../domain/core/entities.js';
import { badRequest, conflict } from '../domain/core/errors.js';
import { HOST_BUSY_STATES } from '../domain/host/host.js';
import {
  applyInfraEnvUpdate,
  createInfraEnvRecord,
  imageInfoDetails,
  infraEnvFeaturesProblem,
  infraEnvView,
  isDisconnectedIso,
} from '../domain/image/infra-env.js';
import { isDisconnectedCluster } from '../domain/cluster/cluster.js';
import { infraEnvImagesPrefix } from '../domain/core/object-keys.js';
import type { Workflows } from '../ports/workflows.js';
import { withoutNullFields, type Params } from '../../contracts/input-checks.js';
import { normalizeCpuArchitecture, osImageVersionFor, resolveRelease } from '../domain/catalogues/catalogues.js';
import type { BlobStore } from '../ports/blobs.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { findCluster, findInfraEnv, stillThere } from './access.js';
import { recordEvent, recordEvents, type RecordEventRequest } from './events.js';
import { prepareDiscoveryImage, removeDiscoveryImages, retainForImageUrls, signImageToken } from './discovery-image.js';
import { actorName, type Principal } from './principal.js';
import { maySeeSecrets, requireSecretAccess, withoutProxyCredentials } from './secret-access.js';
import { forgetInfraEnvTokens } from './agent-tokens.js';
import { newImageTokenKey, noteCredentialHolder, withNewSigningKey } from './credential-holders.js';

export interface InfraEnvDeps {
  store: Store;
  clock: Clock;
  blobs: BlobStore;
  /** Where deleted disconnected ISOs are purged later; without it they go at once. */
  workflows?: Workflows;
  config: { publicUrl: string; imageUrlTtlSeconds: number; agentSigningKeyPem?: string; agentTokenTtlSeconds?: number };
}

export async function registerInfraEnv(deps: InfraEnvDeps, principal: Principal, request: Params) {
  const params = withoutNullFields(request);
  const clusterId = params.cluster_id as string | undefined;
  let disconnectedClusterName: string | undefined;
  const cluster = clusterId ? await findCluster(deps.store, principal, clusterId) : undefined;
  if (cluster && isDisconnectedCluster(cluster)) disconnectedClusterName = cluster.name;
  // Upstream's default architecture, whatever the cluster's: an infra-env of an arm64 cluster names arm64.
  const cpuArchitecture = normalizeCpuArchitecture(params.cpu_architecture as string | undefined);
  // An imported cluster has no release (upstream keeps none): nothing to match.
  if (cluster && typeof cluster.attributes.openshift_version === 'string') {
    const clusterArch = cluster.attributes.cpu_architecture as string | undefined;
    if (clusterArch === 'multi') resolveRelease(cluster.attributes.openshift_version, cpuArchitecture);
    else if (clusterArch && cpuArchitecture !== clusterArch)
      throw badRequest(`Specified CPU architecture (${cpuArchitecture}) doesn't match the cluster (${clusterArch})`);
  }
  const openshiftVersion = osImageVersionFor(params.openshift_version as string | undefined, cpuArchitecture);
  const record = createInfraEnvRecord(params, {
    orgId: principal.orgId,
    infraEnvId: randomUUID(),
    now: deps.clock.now().toISOString(),
    openshiftVersion,
    cpuArchitecture,
    clusterId,
    imageTokenKey: newImageTokenKey(),
    userName: actorName(principal),
    ...(disconnectedClusterName !== undefined ? { disconnectedClusterName } : {}),
  });
  if (cluster) {
    const problem = infraEnvFeaturesProblem(cluster, String(record.attributes.type), cpuArchitecture);
    if (problem) throw badRequest(problem);
  }
  const infraEnv = await deps.store.infraEnvs.create(record);
  await recordEvents(deps, [
    { name: 'infra_env_registered', subject: { orgId: infraEnv.orgId, infraEnvId: infraEnv.infraEnvId } },
    imageInfoUpdatedEvent(infraEnv),
  ]);
  return visibleInfraEnv(deps, principal, (await recordImageUrl(deps, infraEnv)).infraEnv);
}

/**
 * Signs an image URL valid for the configured lifetime and records it on the infra-env: at
 * registration and each update, as upstream describes every infra-env with its image URL (the
 * console's disconnected wizard downloads the ISO from the infra-env it created and never asks for
 * the URL), and at each downloads/image-url.
 */
async function recordImageUrl(deps: InfraEnvDeps, infraEnv: InfraEnv): Promise<{ infraEnv: InfraEnv; url: string; expiresAt: string }> {
  const expires = new Date(deps.clock.now().getTime() + deps.config.imageUrlTtlSeconds * 1000);
  const url = await signedImageUrl(deps.config.publicUrl, infraEnv, expires);
  const updated = await deps.store.infraEnvs.mutate({ orgId: infraEnv.orgId, infraEnvId: infraEnv.infraEnvId }, (current) => ({
    ...current,
    attributes: { ...current.attributes, download_url: url, expires_at: expires.toISOString() },
  }));
  return { infraEnv: stillThere(updated, `Infra-env ${infraEnv.infraEnvId}`), url, expiresAt: expires.toISOString() };
}

/**
 * The infra-env as its caller may see it: the image URL (it carries an image token) only for those
 * who may fetch the image, and the member who sees one is recorded as holding its credentials.
 */
async function visibleInfraEnv(deps: { store: Store }, principal: Principal, infraEnv: InfraEnv) {
  if (!maySeeSecrets(principal)) {
    const view = withoutProxyCredentials(infraEnvView(infraEnv));
    delete view.download_url;
    return view;
  }
  return infraEnvView(infraEnv.attributes.download_url ? await noteCredentialHolder(deps, principal, infraEnv) : infraEnv);
}

export async function getInfraEnv(deps: InfraEnvDeps, principal: Principal, infraEnvId: string) {
  return visibleInfraEnv(deps, principal, await findInfraEnv(deps.store, principal, infraEnvId));
}

export async function listInfraEnvs(deps: InfraEnvDeps, principal: Principal, query: { clusterId?: string }) {
  const infraEnvs = query.clusterId
    ? await deps.store.infraEnvs.listByCluster({ orgId: principal.orgId, clusterId: query.clusterId })
    : await deps.store.infraEnvs.listByOrg(principal.orgId);
  const sorted = infraEnvs.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  return Promise.all(sorted.map((infraEnv) => visibleInfraEnv(deps, principal, infraEnv)));
}

export async function updateInfraEnv(deps: InfraEnvDeps, principal: Principal, infraEnvId: string, request: Params) {
  const params = withoutNullFields(request);
  const current = await findInfraEnv(deps.store, principal, infraEnvId);
  const requestedVersion = typeof params.openshift_version === 'string' && params.openshift_version !== '' ? params.openshift_version : undefined;
  // Upstream checks that the version (asked for, or kept) has an RHCOS image, and keeps what was asked for as written.
  osImageVersionFor(requestedVersion ?? current.attributes.openshift_version, current.attributes.cpu_architecture as string);
  const cluster = current.clusterId ? await deps.store.clusters.get({ orgId: principal.orgId, clusterId: current.clusterId }) : undefined;
  const now = deps.clock.now().toISOString();
  const updated = await deps.store.infraEnvs.mutate({ orgId: principal.orgId, infraEnvId }, (infraEnv) => {
    const next = applyInfraEnvUpdate(infraEnv, params, now, requestedVersion);
    const problem = cluster && infraEnvFeaturesProblem(cluster, String(next.attributes.type), next.attributes.cpu_architecture as string);
    if (problem) throw badRequest(problem);
    return next;
  });
  const changed = stillThere(updated, `Infra-env ${infraEnvId}`);
  await recordEvent(deps, imageInfoUpdatedEvent(changed));
  // Any change may make earlier image URLs describe another image: a new one is signed.
  return visibleInfraEnv(deps, principal, (await recordImageUrl(deps, changed)).infraEnv);
}

/** Upstream describes the image anew at registration and at each update, on the infra-env and its cluster. */
function imageInfoUpdatedEvent(infraEnv: InfraEnv): RecordEventRequest {
  return {
    name: 'image_info_updated',
    subject: { orgId: infraEnv.orgId, infraEnvId: infraEnv.infraEnvId, ...(infraEnv.clusterId ? { clusterId: infraEnv.clusterId } : {}) },
    props: { details: imageInfoDetails(infraEnv) },
  };
}

export async function deregisterInfraEnv(deps: InfraEnvDeps, principal: Principal, infraEnvId: string): Promise<void> {
  const infraEnv = await findInfraEnv(deps.store, principal, infraEnvId);
  const hosts = await deps.store.hosts.listByInfraEnv({ orgId: principal.orgId, infraEnvId });
  const busy = hosts.filter((h) => HOST_BUSY_STATES.has(h.status));
  if (busy.length > 0) throw conflict(`Infra-env ${infraEnvId} has ${busy.length} host(s) installing; it can be deleted once they finish`);
  for (const host of hosts) await deps.store.hosts.remove({ orgId: host.orgId, infraEnvId, hostId: host.hostId });
  // The console deletes a disconnected ISO's infra-env the moment it has started the ISO's
  // download: its image URLs keep serving the ISO until they expire (kept before the record goes,
  // so no image request finds neither), then the images go.
  const retained = isDisconnectedIso(infraEnv) && deps.workflows ? await retainForImageUrls(deps, infraEnv) : undefined;
  await deps.store.infraEnvs.remove({ orgId: principal.orgId, infraEnvId });
  forgetInfraEnvTokens(principal.orgId, infraEnvId);
  if (retained !== undefined && deps.workflows) {
    const waitSeconds = retained;
    await deps.workflows.start('purge-objects', `purge-images-${infraEnvId}`, {
      bucket: 'images',
      prefix: infraEnvImagesPrefix(principal.orgId, infraEnvId),
      waitSeconds,
    });
  } else {
    await removeDiscoveryImages(deps, principal.orgId, infraEnvId);
  }
  await recordEvent(deps, { name: 'infra_env_deregistered', subject: { orgId: principal.orgId, infraEnvId } });
}

/**
 * Signs an image URL valid for the configured lifetime and records it on the infra-env. The image
 * itself is composed now when its base ISO is imported, so the URL answers at once.
 */
export async function imageDownloadUrl(deps: InfraEnvDeps, principal: Principal, infraEnvId: string) {
  requireSecretAccess(principal, 'The discovery image URL');
  const infraEnv = await noteCredentialHolder(deps, principal, await findInfraEnv(deps.store, principal, infraEnvId));
  await prepareDiscoveryImage(deps, infraEnv);
  const { url, expiresAt } = await recordImageUrl(deps, infraEnv);
  return { url, expires_at: expiresAt };
}

export async function signedImageUrl(publicUrl: string, infraEnv: InfraEnv, expires: Date): Promise<string> {
  const token = await signImageToken(infraEnv, expires);
  const query = new URLSearchParams({
    arch: infraEnv.attributes.cpu_architecture as string,
    image_token: token,
    type: (infraEnv.attributes.type as string | undefined) ?? 'full-iso',
    version: (infraEnv.attributes.openshift_version ?? '').split('.').slice(0, 2).join('.'),
  });
  return `${publicUrl}/api/assisted-images/images/${infraEnv.infraEnvId}?${query}`;
}

/**
 * Replaces the signing key: every image URL and pre-signed URL issued before stops working, and
 * the agent tokens of every image and ignition made before are superseded (they serve only the
 * installations already under way). Images made after carry tokens of the new epoch.
 */
export async function regenerateSigningKey(deps: InfraEnvDeps, principal: Principal, infraEnvId: string): Promise<void> {
  await findInfraEnv(deps.store, principal, infraEnvId);
  const updated = await deps.store.infraEnvs.mutate({ orgId: principal.orgId, infraEnvId }, (current) => withNewSigningKey(current));
  stillThere(updated, `Infra-env ${infraEnvId}`);
  forgetInfraEnvTokens(principal.orgId, infraEnvId);
}
