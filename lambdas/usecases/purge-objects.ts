import type { BlobBucket, BlobStore } from '../ports/blobs.js';

export const PURGE_BATCH = 500;

export interface PurgeRequest {
  bucket: BlobBucket;
  prefix: string;
  /**
   * Only objects last written before this time (ISO): a reset purges its attempt's files while the
   * next attempt may already be writing its own under the same keys.
   */
  modifiedBefore?: string | null;
  /** Seconds the workflow waits before the first batch (read by the state machine only). */
  waitSeconds?: number;
}

/** Deletes up to one batch of objects under `prefix`; `remaining` says whether another pass is needed. */
export async function purgeObjectsBatch(
  deps: { blobs: BlobStore },
  request: PurgeRequest,
): Promise<PurgeRequest & { modifiedBefore: string | null; deleted: number; remaining: boolean }> {
  if (!request.prefix || request.prefix === '/') throw new Error('refusing to purge a whole bucket: give a prefix');
  const keys = await deps.blobs.list(request.bucket, request.prefix, request.modifiedBefore ? { modifiedBefore: new Date(request.modifiedBefore) } : {});
  const batch = keys.slice(0, PURGE_BATCH);
  await Promise.all(batch.map((key) => deps.blobs.remove(request.bucket, key)));
  // Passed on by the state machine to the next batch (null when every object goes).
  return { ...request, modifiedBefore: request.modifiedBefore ?? null, deleted: batch.length, remaining: keys.length > batch.length };
}
