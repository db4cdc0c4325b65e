import type { Readable } from 'node:stream';

export type BlobBucket = 'files' | 'images' | 'logs';

export interface BlobStore {
  put(bucket: BlobBucket, key: string, body: string | Uint8Array, contentType?: string): Promise<void>;
  /** Returns undefined when there is no such object. */
  get(bucket: BlobBucket, key: string): Promise<Uint8Array | undefined>;
  stream(bucket: BlobBucket, key: string, range?: { start: number; end: number }): Promise<Readable | undefined>;
  size(bucket: BlobBucket, key: string): Promise<number | undefined>;
  remove(bucket: BlobBucket, key: string): Promise<void>;
  /** Keys under `prefix`; with `modifiedBefore`, only objects last written before it (to the second, as S3 keeps it). */
  list(bucket: BlobBucket, prefix: string, options?: { modifiedBefore?: Date }): Promise<string[]>;
  /**
   * A time-limited GET URL a client can download from directly; `contentDisposition` is the
   * Content-Disposition the download answers with (S3's response-content-disposition), so the file
   * arrives under its own name as upstream's presigned URLs do.
   */
  presignGet(bucket: BlobBucket, key: string, expiresInSeconds: number, options?: PresignOptions): Promise<string>;
  /**
   * Builds `key` server-side from byte ranges of existing objects and small inline pieces,
   * without the bytes passing through the caller (S3 UploadPartCopy).
   */
  compose(bucket: BlobBucket, key: string, parts: ComposePart[], contentType?: string): Promise<void>;
}

export interface PresignOptions {
  contentDisposition?: string;
}

export type ComposePart = { kind: 'copy'; sourceKey: string; start: number; end: number } | { kind: 'inline'; body: Uint8Array };
