/**
 * Custom cluster manifests (upstream internal/manifests). The content lives in the files bucket
 * and the metadata in a record beside the cluster. Every change writes the content first and the
 * record second, and undoes the content when the record cannot be written, so a listed manifest
 * always has its content; a record removed before its content can at worst leave an unlisted
 * object, which the next upload of that name overwrites.
 */
import type { Cluster, Manifest } from '../domain/core/entities.js';
import { badRequest, notFound, unauthorized, refuseIfProblem, unprocessable } from '../domain/core/errors.js';
import {
  contentProblem,
  decodeManifestContent,
  DEFAULT_FOLDER,
  editableProblem,
  fileNameProblem,
  fileNameSpaceProblem,
  folderProblem,
  isManifestFolder,
  manifestPath,
  manifestView,
  otherFolder,
  type ManifestFolder,
  type ManifestView,
} from '../domain/install/manifests.js';
import { manifestObjectKey } from '../domain/core/object-keys.js';
import { customManifestFeatureUsage } from '../domain/cluster/feature-usage.js';
import type { BlobStore } from '../ports/blobs.js';
import type { Clock } from '../ports/clock.js';
import { ConcurrentModificationError, type ManifestKey, type Store } from '../ports/store.js';
import { findCluster } from './access.js';
import { refreshCluster } from './cluster-refresh.js';
import type { Principal } from './principal.js';
import { compareText } from '../domain/core/compare.js';

export interface ManifestDeps {
  store: Store;
  blobs: BlobStore;
  clock: Clock;
}

/** create-manifest-params */
export interface CreateManifestRequest {
  folder?: string | null;
  file_name: string;
  content?: string | null;
}

/** update-manifest-params */
export interface UpdateManifestRequest {
  folder?: string | null;
  file_name: string;
  updated_folder?: string | null;
  updated_file_name?: string | null;
  updated_content?: string | null;
}

/** A manifest as the query of delete and download names it. */
export interface ManifestRef {
  folder?: string | null;
  fileName: string;
}

export interface ManifestFile {
  fileName: string;
  content: Uint8Array;
}

const BUCKET = 'files';

/** Manifests are a user's business; agent tokens never reach them (openapi.yaml admits only userAuth). */
function requireUser(principal: Principal): void {
  if (principal.kind !== 'user') throw unauthorized('Manifests are managed with a user API token');
}

/** The folder (upstream's default when absent) and file name of a manifest of `cluster`, checked. */
function resolve(cluster: Cluster, folder: string | null | undefined, fileName: string): { folder: ManifestFolder; fileName: string } {
  const chosen = folder ?? DEFAULT_FOLDER;
  // folderProblem explains what isManifestFolder refused.
  if (!isManifestFolder(chosen)) throw badRequest(folderProblem(chosen) ?? `folder "${chosen}"`);
  refuseIfProblem(fileNameProblem(fileName));
  const space = fileNameSpaceProblem(fileName, cluster.clusterId);
  if (space) throw unprocessable(space);
  return { folder: chosen, fileName };
}

async function visibleCluster(deps: ManifestDeps, principal: Principal, clusterId: string): Promise<Cluster> {
  requireUser(principal);
  return findCluster(deps.store, principal, clusterId);
}

/**
 * The cluster, if its manifests may still change. Upstream answers 400 here (not 409), and only
 * for update and delete; we refuse creation too, since the installation would ignore a manifest
 * added once it has started.
 */
async function editableCluster(deps: ManifestDeps, principal: Principal, clusterId: string): Promise<Cluster> {
  const cluster = await visibleCluster(deps, principal, clusterId);
  refuseIfProblem(editableProblem(clusterId, cluster.status));
  return cluster;
}

const keyOf = (cluster: Cluster, folder: string, fileName: string): ManifestKey => ({ orgId: cluster.orgId, clusterId: cluster.clusterId, folder, fileName });

function decode(content: string | null | undefined, path: string): Uint8Array {
  const decoded = decodeManifestContent(content, path);
  if ('problem' in decoded) throw badRequest(decoded.problem);
  return decoded.bytes;
}

/** The installer merges both folders into one, so one name may not be in both (upstream's validateFileDistinct). */
async function requireDistinct(deps: ManifestDeps, cluster: Cluster, folder: ManifestFolder, fileName: string): Promise<void> {
  const other = otherFolder(folder);
  if (await deps.store.manifests.get(keyOf(cluster, other, fileName))) {
    throw badRequest(
      `Manifest file ${fileName} cannot be put in folder ${folder}: ${manifestPath(other, fileName)} already exists, and a name may be in only one of manifests and openshift`,
    );
  }
}

export async function listManifests(
  deps: ManifestDeps,
  principal: Principal,
  clusterId: string,
  options: { includeSystemGenerated?: boolean } = {},
): Promise<ManifestView[]> {
  const cluster = await visibleCluster(deps, principal, clusterId);
  const manifests = await deps.store.manifests.listByCluster({ orgId: cluster.orgId, clusterId: cluster.clusterId });
  return manifests
    .filter((manifest) => options.includeSystemGenerated || manifest.source === 'user')
    .sort((a, b) => compareText(a.folder, b.folder) || compareText(a.fileName, b.fileName))
    .map(manifestView);
}

/** Uploading a name that exists in the same folder replaces it, as upstream does; 201 either way. */
export async function createManifest(deps: ManifestDeps, principal: Principal, clusterId: string, request: CreateManifestRequest): Promise<ManifestView> {
  const cluster = await editableCluster(deps, principal, clusterId);
  const { folder, fileName } = resolve(cluster, request.folder, request.file_name);
  const path = manifestPath(folder, fileName);
  const content = decode(request.content, path);
  refuseIfProblem(contentProblem(content, path));
  await requireDistinct(deps, cluster, folder, fileName);
  await writeManifest(deps, cluster, folder, fileName, content);
  await recordCustomManifestUsage(deps, cluster, true);
  return manifestView({ folder, fileName, source: 'user' });
}

/**
 * The cluster's feature usage says whether it has manifests of its user's (upstream's "Custom
 * manifest"). The custom-manifests and OCI validations read it: when it changes, the cluster is
 * judged again now, as upstream's monitor does on its next pass (a cluster without hosts has no
 * host news to bring it to judgement here).
 */
async function recordCustomManifestUsage(deps: ManifestDeps, cluster: Cluster, used: boolean): Promise<void> {
  const key = { orgId: cluster.orgId, clusterId: cluster.clusterId };
  let changed = false;
  await deps.store.clusters.mutate(key, (current) => {
    const featureUsage = customManifestFeatureUsage(current.attributes.feature_usage, used);
    changed = featureUsage !== current.attributes.feature_usage;
    // Unchanged usage writes nothing: most uploads follow the first.
    return changed ? { ...current, attributes: { ...current.attributes, feature_usage: featureUsage } } : undefined;
  });
  if (changed) await refreshCluster(deps, key);
}

/**
 * Moves, renames and/or replaces the content of a manifest. Unlike upstream, the content (new or
 * kept) is checked against the destination name, which decides how the installer reads it, and a
 * source that does not exist is a 404 rather than a 500 or an implicit create.
 */
export async function updateManifest(deps: ManifestDeps, principal: Principal, clusterId: string, request: UpdateManifestRequest): Promise<ManifestView> {
  const cluster = await editableCluster(deps, principal, clusterId);
  const source = resolve(cluster, request.folder, request.file_name);
  const target = resolve(cluster, request.updated_folder ?? source.folder, request.updated_file_name ?? source.fileName);
  const targetPath = manifestPath(target.folder, target.fileName);

  const existing = await deps.store.manifests.get(keyOf(cluster, source.folder, source.fileName));
  if (!existing) throw notFound(`Manifest ${manifestPath(source.folder, source.fileName)} not found in cluster ${clusterId}`);
  // As upstream: only a new name can clash with the other folder; moving a file keeps it unique.
  if (target.fileName !== source.fileName) await requireDistinct(deps, cluster, target.folder, target.fileName);

  const content = request.updated_content != null ? decode(request.updated_content, targetPath) : await deps.blobs.get(BUCKET, existing.objectKey);
  if (!content) throw notFound(`Manifest ${manifestPath(source.folder, source.fileName)} has no content; delete it and upload it again`);
  refuseIfProblem(contentProblem(content, targetPath));

  const undoTarget = await writeManifest(deps, cluster, target.folder, target.fileName, content);
  if (target.folder !== source.folder || target.fileName !== source.fileName) {
    try {
      await deps.store.manifests.remove(keyOf(cluster, source.folder, source.fileName));
    } catch (error) {
      // Otherwise the manifest would be in two places; put the target back as it was.
      await undoTarget();
      throw error;
    }
    await bestEffort(() => deps.blobs.remove(BUCKET, existing.objectKey));
  }
  return manifestView({ folder: target.folder, fileName: target.fileName, source: 'user' });
}

/** As upstream, deleting a manifest that is not there succeeds: the caller's goal holds. */
export async function deleteManifest(deps: ManifestDeps, principal: Principal, clusterId: string, ref: ManifestRef): Promise<void> {
  const cluster = await editableCluster(deps, principal, clusterId);
  const { folder, fileName } = resolve(cluster, ref.folder, ref.fileName);
  const key = keyOf(cluster, folder, fileName);
  const existing = await deps.store.manifests.get(key);
  if (!existing) return;
  // The record first: from then on the manifest is gone for every reader, whatever happens to the object.
  await deps.store.manifests.remove(key);
  await bestEffort(() => deps.blobs.remove(BUCKET, existing.objectKey));
  const remaining = await deps.store.manifests.listByCluster({ orgId: cluster.orgId, clusterId: cluster.clusterId });
  if (!remaining.some((manifest) => manifest.source === 'user')) await recordCustomManifestUsage(deps, cluster, false);
}

export async function downloadManifest(deps: ManifestDeps, principal: Principal, clusterId: string, ref: ManifestRef): Promise<ManifestFile> {
  const cluster = await visibleCluster(deps, principal, clusterId);
  const { folder, fileName } = resolve(cluster, ref.folder, ref.fileName);
  const missing = () => notFound(`Cluster manifest ${manifestPath(folder, fileName)} doesn't exist in cluster ${clusterId}`);
  const record = await deps.store.manifests.get(keyOf(cluster, folder, fileName));
  if (!record) throw missing();
  const content = await deps.blobs.get(BUCKET, record.objectKey);
  if (!content) throw missing();
  return { fileName, content };
}

/**
 * Stores the content, then makes the record say "user manifest, content at this key". On failure
 * the previous content (or none) is restored and the error rethrown. Returns the undo, for a
 * caller whose next step fails.
 */
async function writeManifest(
  deps: ManifestDeps,
  cluster: Cluster,
  folder: ManifestFolder,
  fileName: string,
  content: Uint8Array,
): Promise<() => Promise<void>> {
  const key = keyOf(cluster, folder, fileName);
  const objectKey = manifestObjectKey(cluster.orgId, cluster.clusterId, folder, fileName);
  const previousRecord = await deps.store.manifests.get(key);
  const previousContent = await deps.blobs.get(BUCKET, objectKey);

  const restoreContent = async () => {
    if (previousContent) await deps.blobs.put(BUCKET, objectKey, previousContent);
    else await deps.blobs.remove(BUCKET, objectKey);
  };
  const undo = async () => {
    try {
      if (previousRecord)
        await deps.store.manifests.mutate(key, (current) => ({ ...current, source: previousRecord.source, objectKey: previousRecord.objectKey }));
      else await deps.store.manifests.remove(key);
    } catch {
      // The record still points at the new content, so that content stays: a whole manifest
      // in one place too many beats a listed one without content.
      return;
    }
    await bestEffort(restoreContent);
  };

  await deps.blobs.put(BUCKET, objectKey, content);
  try {
    await saveRecord(deps, { ...key, source: 'user', objectKey, createdAt: deps.clock.now().toISOString() });
  } catch (error) {
    await bestEffort(restoreContent);
    throw error;
  }
  return undo;
}

/** Creates the record, or adopts an existing one (a system manifest, or one a concurrent upload just created). */
async function saveRecord(deps: ManifestDeps, record: Omit<Manifest, 'version'>): Promise<void> {
  const key: ManifestKey = { orgId: record.orgId, clusterId: record.clusterId, folder: record.folder, fileName: record.fileName };
  const adopt = (current: Manifest) =>
    current.source === 'user' && current.objectKey === record.objectKey ? undefined : { ...current, source: 'user' as const, objectKey: record.objectKey };
  if (await deps.store.manifests.mutate(key, adopt)) return;
  try {
    await deps.store.manifests.create(record);
  } catch (error) {
    // Two uploads of one new name at once: the record the other one created points at the same
    // key, so adopting it keeps whichever content was written last, as two uploads in a row would.
    if (error instanceof ConcurrentModificationError && (await deps.store.manifests.mutate(key, adopt))) return;
    throw error;
  }
}

/**
 * For undo steps, which must not hide the failure that made them necessary, and for removing an
 * object whose record is already gone: the operation has succeeded, and a left-over object is
 * invisible and overwritten by the next upload of that name.
 */
async function bestEffort(step: () => Promise<void>): Promise<void> {
  try {
    await step();
  } catch {
    // The original error is the one the caller needs; this step's failure changes nothing for them.
  }
}
