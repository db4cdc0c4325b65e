import type { BlobBucket, BlobStore } from '../ports/blobs.js';

export const PURGE_BATCH = 500;

export interface PurgeRequest {
  bucket: BlobBucket;
  prefix: string;
}

/** Deletes up to one batch of objects under `prefix`; `remaining` says whether another pass is needed. */
export async function purgeObjectsBatch(
  deps: { blobs: BlobStore },
  request: PurgeRequest,
): Promise<PurgeRequest & { deleted: number; remaining: boolean }> {
  if (!request.prefix || request.prefix === '/') throw new Error('refusing to purge a whole bucket: give a prefix');
  const keys = await deps.blobs.list(request.bucket, request.prefix);
  const batch = keys.slice(0, PURGE_BATCH);
  await Promise.all(batch.map((key) => deps.blobs.remove(request.bucket, key)));
  return { ...request, deleted: batch.length, remaining: keys.length > batch.length };
}
