import type { BlobStore } from '../ports/blobs.js';
import type { ServiceConfig } from './config.js';
import { deferred } from './deferred.js';

/**
 * The blob store port on S3 (or the stand-in AWS_ENDPOINT_URL_S3 names, which needs path-style
 * addressing). Apart from container.ts so that a container task, which needs no other port, can
 * build it without bundling the table's client. Loaded on first use (platform/deferred.ts): most
 * invocations of a function write or read no object.
 */
export function blobStore(config: Pick<ServiceConfig, 'buckets' | 'region'>): BlobStore {
  const forcePathStyle = process.env.S3_FORCE_PATH_STYLE === 'true';
  return deferred<BlobStore>({ put: true, get: true, stream: true, size: true, remove: true, list: true, presignGet: true, compose: true }, async () =>
    (await import('../adapters/s3/blobs.js')).createS3BlobStore({ buckets: config.buckets, clientConfig: { region: config.region, forcePathStyle } }),
  );
}
