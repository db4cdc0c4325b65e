import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';

const require = createRequire(import.meta.url);
// s3rver is CommonJS and ships no types.
const S3rver = require('s3rver') as new (options: Record<string, unknown>) => S3rverInstance;
const S3Error = require('s3rver/lib/models/error') as new (code: string, message: string, detail?: object) => Error;

interface KoaContext {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | undefined>;
  store: FilesystemStore;
  body: unknown;
  etag?: string;
  status: number;
}
type KoaMiddleware = (ctx: KoaContext, next: () => Promise<void>) => Promise<void>;

interface FilesystemStore {
  getObject(bucket: string, key: string, options?: { start?: number; end?: number }): Promise<{ content: NodeJS.ReadableStream | null; range?: { start: number; end: number }; size?: number } | null>;
  getMetadata(bucket: string, key: string): Promise<Record<string, string>>;
  existsObject(bucket: string, key: string): Promise<boolean>;
  putPart(bucket: string, uploadId: string, partNumber: string, content: NodeJS.ReadableStream): Promise<{ md5: string; size: number }>;
}

interface S3rverInstance {
  middleware: KoaMiddleware[];
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}

/**
 * UploadPartCopy, which s3rver lacks: copies a byte range of an existing object into a part of
 * a multipart upload, so objects can be composed server-side as in S3.
 */
export const uploadPartCopy: KoaMiddleware = async (ctx, next) => {
  const source = ctx.headers['x-amz-copy-source'];
  if (ctx.method !== 'PUT' || !source || !('uploadId' in ctx.query) || !('partNumber' in ctx.query)) return next();
  const [, bucket] = ctx.path.split('/');
  const decoded = decodeURIComponent(source.replace(/^\//, ''));
  const slash = decoded.indexOf('/');
  if (slash < 1) throw new S3Error('InvalidArgument', 'Copy Source must mention the source bucket and key: sourcebucket/sourcekey');
  const sourceBucket = decoded.slice(0, slash);
  const sourceKey = decoded.slice(slash + 1).split('?')[0]!;
  if (!(await ctx.store.existsObject(sourceBucket, sourceKey))) {
    throw new S3Error('NoSuchKey', 'The specified key does not exist.', { Key: sourceKey });
  }
  const metadata = await ctx.store.getMetadata(sourceBucket, sourceKey);
  const size = Number(metadata['content-length']);
  const rangeHeader = ctx.headers['x-amz-copy-source-range'];
  let start = 0;
  let end = size - 1;
  if (rangeHeader) {
    const match = /^bytes=(\d+)-(\d+)$/.exec(rangeHeader);
    if (!match) throw new S3Error('InvalidArgument', 'The x-amz-copy-source-range value must be of the form bytes=first-last');
    start = Number(match[1]);
    end = Number(match[2]);
    if (start > end || end >= size) {
      throw new S3Error('InvalidRange', 'The requested range is not satisfiable', { RangeRequested: rangeHeader });
    }
  }
  const object = await ctx.store.getObject(sourceBucket, sourceKey, { start, end });
  if (!object?.content) throw new S3Error('NoSuchKey', 'The specified key does not exist.', { Key: sourceKey });
  const { md5 } = await ctx.store.putPart(bucket!, ctx.query.uploadId!, ctx.query.partNumber!, object.content);
  ctx.body = { CopyPartResult: { LastModified: new Date().toISOString(), ETag: JSON.stringify(md5) } };
};

export interface S3Local {
  endpoint: string;
  stop(): Promise<void>;
}

export async function startS3Local(options: { port: number; host: string; directory: string; buckets: string[] }): Promise<S3Local> {
  const server = new S3rver({
    port: options.port,
    address: options.host,
    directory: options.directory,
    silent: true,
    configureBuckets: options.buckets.map((name) => ({ name })),
  });
  // Before the router (the last middleware), after the XML encoder and error handling.
  server.middleware.splice(server.middleware.length - 1, 0, uploadPartCopy);
  const address = await server.run();
  return { endpoint: `http://${options.host}:${address.port}`, stop: () => server.close() };
}
