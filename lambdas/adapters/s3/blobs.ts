import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  NotFound,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
  UploadPartCopyCommand,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { Readable } from 'node:stream';
import type { BlobBucket, BlobStore, ComposePart } from '../../ports/blobs.js';
import type { SdkClientOptions } from '../sdk-client.js';

export interface S3BlobOptions extends SdkClientOptions<S3Client, S3ClientConfig> {
  buckets: Record<BlobBucket, string>;
}

const MAX_LIST_PAGES = 1_000;

function isMissing(error: unknown): boolean {
  return error instanceof NoSuchKey || error instanceof NotFound || (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404);
}

/** Client settings both AWS and the local s3rver accept; streaming uploads need checksums off. */
export function s3ClientConfig(overrides: S3ClientConfig = {}): S3ClientConfig {
  return { requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED', ...overrides };
}

export function createS3BlobStore(options: S3BlobOptions): BlobStore {
  const client = options.client ?? new S3Client(s3ClientConfig(options.clientConfig));
  const bucketName = (bucket: BlobBucket) => options.buckets[bucket];

  return {
    async put(bucket, key, body, contentType) {
      await client.send(new PutObjectCommand({ Bucket: bucketName(bucket), Key: key, Body: body, ContentType: contentType }));
    },

    async get(bucket, key) {
      try {
        const result = await client.send(new GetObjectCommand({ Bucket: bucketName(bucket), Key: key }));
        return await result.Body!.transformToByteArray();
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },

    async stream(bucket, key, range) {
      try {
        const result = await client.send(
          new GetObjectCommand({
            Bucket: bucketName(bucket),
            Key: key,
            Range: range ? `bytes=${range.start}-${range.end}` : undefined,
          }),
        );
        // In Node the SDK answers with the HTTP response itself, a Readable.
        if (!(result.Body instanceof Readable)) throw new Error(`S3 answered ${bucket}/${key} without a readable body`);
        return result.Body;
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },

    async size(bucket, key) {
      try {
        const result = await client.send(new HeadObjectCommand({ Bucket: bucketName(bucket), Key: key }));
        return result.ContentLength;
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },

    async remove(bucket, key) {
      await client.send(new DeleteObjectCommand({ Bucket: bucketName(bucket), Key: key }));
    },

    async list(bucket, prefix, options) {
      // S3 keeps LastModified to the second: only objects written in a whole second before the
      // limit count as older, so one written just after it is never taken for one written before.
      const limit = options?.modifiedBefore ? Math.floor(options.modifiedBefore.getTime() / 1000) * 1000 : undefined;
      const keys: string[] = [];
      let token: string | undefined;
      for (let page = 0; page < MAX_LIST_PAGES; page++) {
        const result = await client.send(new ListObjectsV2Command({ Bucket: bucketName(bucket), Prefix: prefix, ContinuationToken: token }));
        for (const object of result.Contents ?? []) {
          if (!object.Key) continue;
          if (limit !== undefined && !(object.LastModified && object.LastModified.getTime() < limit)) continue;
          keys.push(object.Key);
        }
        token = result.NextContinuationToken;
        if (!token) return keys;
      }
      throw new Error(`listing ${prefix} exceeded ${MAX_LIST_PAGES} pages`);
    },

    presignGet(bucket, key, expiresInSeconds, options) {
      return getSignedUrl(client, new GetObjectCommand({ Bucket: bucketName(bucket), Key: key, ResponseContentDisposition: options?.contentDisposition }), {
        expiresIn: expiresInSeconds,
      });
    },

    async compose(bucket, key, parts: ComposePart[], contentType) {
      const Bucket = bucketName(bucket);
      const upload = await client.send(new CreateMultipartUploadCommand({ Bucket, Key: key, ContentType: contentType }));
      const UploadId = upload.UploadId!;
      try {
        const completed = await Promise.all(
          parts.map(async (part, index) => {
            const PartNumber = index + 1;
            if (part.kind === 'copy') {
              const result = await client.send(
                new UploadPartCopyCommand({
                  Bucket,
                  Key: key,
                  UploadId,
                  PartNumber,
                  CopySource: `${Bucket}/${encodeURIComponent(part.sourceKey).replace(/%2F/g, '/')}`,
                  CopySourceRange: `bytes=${part.start}-${part.end}`,
                }),
              );
              return { PartNumber, ETag: result.CopyPartResult?.ETag };
            }
            const result = await client.send(new UploadPartCommand({ Bucket, Key: key, UploadId, PartNumber, Body: part.body }));
            return { PartNumber, ETag: result.ETag };
          }),
        );
        await client.send(new CompleteMultipartUploadCommand({ Bucket, Key: key, UploadId, MultipartUpload: { Parts: completed } }));
      } catch (error) {
        // Leave no orphaned parts behind: a failed composition must not bill storage or half-exist.
        await client.send(new AbortMultipartUploadCommand({ Bucket, Key: key, UploadId })).catch(() => undefined);
        throw error;
      }
    },
  };
}
