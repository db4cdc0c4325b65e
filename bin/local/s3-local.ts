/**
 * s3rver as the local S3, hardened where it falls short of S3:
 * - it serves anyone: a request without a signature passes as anonymous, and an AWS Signature
 *   Version 4 is parsed but never checked (its authentication middleware says so). Every request now
 *   needs a valid SigV4 signature, in the Authorization header or as a presigned URL, made with
 *   the one key pair this server is given; anything else is refused 403 in S3's XML error shape.
 * - a truncated ListObjectsV2 (more keys than MaxKeys) failed with 500: its continuation token
 *   is enciphered with DES, which Node 17+ (OpenSSL 3) no longer offers.
 * - it lacks UploadPartCopy.
 */
import { timingSafeEqual } from 'node:crypto';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { SignatureV4 } from '@smithy/signature-v4';
import { MAX_SKEW_MS, NodeSha256, parseAmzDate, SIGNATURE } from './sigv4.js';
import type { HttpRequest } from '@smithy/types';

const require = createRequire(import.meta.url);
// s3rver is CommonJS and ships no types.
const S3rver = require('s3rver') as new (options: Record<string, unknown>) => S3rverInstance;
const S3Error = require('s3rver/lib/models/error') as new (code: string, message: string, detail?: object) => Error;
const { DUMMY_ACCOUNT } = require('s3rver/lib/models/account') as { DUMMY_ACCOUNT: { createKeyPair(accessKeyId: string, secretAccessKey: string): void } };

interface KoaContext {
  method: string;
  path: string;
  /** The request's URL as it came, before any middleware rewrote it. */
  originalUrl: string;
  query: Record<string, string | string[] | undefined>;
  headers: Record<string, string | undefined>;
  store: FilesystemStore;
  body: unknown;
  etag?: string;
  status: number;
}
type KoaMiddleware = (ctx: KoaContext, next: () => Promise<void>) => Promise<void>;

interface ListedObjects {
  objects: { key: string }[];
  isTruncated: boolean;
}

interface FilesystemStore {
  getObject(
    bucket: string,
    key: string,
    options?: { start?: number; end?: number },
  ): Promise<{ content: NodeJS.ReadableStream | null; range?: { start: number; end: number }; size?: number } | null>;
  getMetadata(bucket: string, key: string): Promise<Record<string, string>>;
  existsObject(bucket: string, key: string): Promise<boolean>;
  putPart(bucket: string, uploadId: string, partNumber: string, content: NodeJS.ReadableStream): Promise<{ md5: string; size: number }>;
  listObjects(bucket: string, options: Record<string, unknown>): Promise<ListedObjects>;
}

interface S3rverInstance {
  store: BucketConfigurationStore;
  middleware: KoaMiddleware[];
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}

/** The store's bucket-level reads that every request makes, and the writes that change them. */
interface BucketConfigurationStore {
  getBucket(bucket: string): Promise<unknown>;
  putBucket(bucket: string): Promise<unknown>;
  deleteBucket(bucket: string): Promise<unknown>;
  getSubresource(bucket: string, key: string | undefined, resourceType: string): Promise<unknown>;
  putSubresource(bucket: string, key: string | undefined, resource: { type: string }): Promise<unknown>;
  deleteSubresource(bucket: string, key: string | undefined, resourceType: string): Promise<unknown>;
  reset(): void;
}

/**
 * s3rver reads each bucket's CORS and website configuration from disk and stats the bucket's
 * folder on every request: most of its cost per request. This process is the store's only writer,
 * so those reads are kept in memory, each forgotten by the write that changes it.
 */
function rememberBucketConfiguration(store: BucketConfigurationStore): void {
  const buckets = new Map<string, Promise<unknown>>();
  const subresources = new Map<string, Promise<unknown>>();
  const subresourceKey = (bucket: string, resourceType: string) => `${bucket}\u0000${resourceType}`;
  const forgetBucket = (bucket: string) => {
    buckets.delete(bucket);
    for (const key of subresources.keys()) if (key.startsWith(`${bucket}\u0000`)) subresources.delete(key);
  };
  /** A failed read is read again next time, and so is one that `keep` refuses (a bucket not there yet). */
  const remembered = (cache: Map<string, Promise<unknown>>, key: string, read: () => Promise<unknown>, keep: (value: unknown) => boolean = () => true) => {
    let found = cache.get(key);
    if (!found) {
      found = read();
      cache.set(key, found);
      found.then(
        (value) => keep(value) || cache.delete(key),
        () => cache.delete(key),
      );
    }
    return found;
  };
  const { getBucket, putBucket, deleteBucket, getSubresource, putSubresource, deleteSubresource, reset } = store;
  Object.assign(store, {
    getBucket: (bucket: string) =>
      remembered(
        buckets,
        bucket,
        () => getBucket.call(store, bucket),
        (found) => found !== null,
      ),
    putBucket: async (bucket: string) => {
      forgetBucket(bucket);
      return putBucket.call(store, bucket);
    },
    deleteBucket: async (bucket: string) => {
      forgetBucket(bucket);
      try {
        return await deleteBucket.call(store, bucket);
      } finally {
        forgetBucket(bucket);
      }
    },
    getSubresource: (bucket: string, key: string | undefined, resourceType: string) =>
      key
        ? getSubresource.call(store, bucket, key, resourceType)
        : remembered(subresources, subresourceKey(bucket, resourceType), () => getSubresource.call(store, bucket, key, resourceType)),
    putSubresource: async (bucket: string, key: string | undefined, resource: { type: string }) => {
      try {
        return await putSubresource.call(store, bucket, key, resource);
      } finally {
        subresources.delete(subresourceKey(bucket, resource.type));
      }
    },
    deleteSubresource: async (bucket: string, key: string | undefined, resourceType: string) => {
      try {
        return await deleteSubresource.call(store, bucket, key, resourceType);
      } finally {
        subresources.delete(subresourceKey(bucket, resourceType));
      }
    },
    reset: () => {
      buckets.clear();
      subresources.clear();
      reset.call(store);
    },
  });
}

export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** The key pair s3rver is born with (its DUMMY_ACCOUNT), and the one the local runtime configures. */
export const S3RVER_CREDENTIALS: S3Credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** S3 allows 15 minutes between a signed request's time and its own clock. */
const MAX_PRESIGNED_SECONDS = 7 * 24 * 3600;

const header = (ctx: KoaContext, name: string): string | undefined => ctx.headers[name];
const queryValue = (ctx: KoaContext, name: string): string | undefined => {
  const value = ctx.query[name];
  return Array.isArray(value) ? undefined : value;
};

/** AKID/20130524/us-east-1/s3/aws4_request */
function parseCredential(credential: string, malformed: string): { accessKeyId: string; region: string } {
  const [accessKeyId, date, region, service, terminator, ...rest] = credential.split('/');
  if (!accessKeyId || !date || !region || service !== 's3' || terminator !== 'aws4_request' || rest.length > 0) {
    throw new S3Error(malformed, `The credential scope must be <access key id>/<yyyymmdd>/<region>/s3/aws4_request, not "${credential}"`);
  }
  return { accessKeyId, region };
}

/**
 * Requires every request to carry a valid SigV4 signature made with `credentials`: in the
 * Authorization header, or as a presigned URL's query parameters. The canonical request is rebuilt
 * from the request as it arrived (its raw path and query, and the headers it says it signed) and
 * signed again by the AWS SDK's own signer; the two signatures must match. As S3 does for
 * presigned URLs, their payload counts as UNSIGNED-PAYLOAD; for header signatures, the payload hash
 * is the x-amz-content-sha256 value the signature covers (the body itself is not hashed again).
 */
export function requireSignatureV4(credentials: S3Credentials): KoaMiddleware {
  const signer = new SignatureV4({ credentials, region: 'us-east-1', service: 's3', sha256: NodeSha256, uriEscapePath: false, applyChecksum: false });
  const refuseKey = (accessKeyId: string) => {
    if (accessKeyId !== credentials.accessKeyId) {
      throw new S3Error('InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.', { AWSAccessKeyId: accessKeyId });
    }
  };
  const mismatch = () =>
    new S3Error('SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided. Check your key and signing method.', {
      AWSAccessKeyId: credentials.accessKeyId,
    });

  return async (ctx, next) => {
    const authorization = header(ctx, 'authorization');
    const presigned = 'X-Amz-Algorithm' in ctx.query || 'X-Amz-Signature' in ctx.query;
    if ('Signature' in ctx.query || /^AWS /i.test(authorization ?? '')) {
      throw new S3Error('InvalidRequest', 'The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.');
    }
    if (!authorization && !presigned) {
      throw new S3Error(
        'AccessDenied',
        "Access Denied: every request to this S3 needs an AWS Signature Version 4 (Authorization header or presigned URL) made with the local runtime's key pair",
      );
    }
    if (authorization && presigned) {
      throw new S3Error(
        'InvalidArgument',
        'Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter or the Authorization header should be specified',
        { ArgumentName: 'Authorization' },
      );
    }
    const rawUrl = ctx.originalUrl;
    const queryStart = rawUrl.indexOf('?');
    const request: HttpRequest = {
      method: ctx.method,
      protocol: 'http:',
      hostname: header(ctx, 'host') ?? '',
      path: queryStart === -1 ? rawUrl : rawUrl.slice(0, queryStart),
      query: Object.fromEntries(Object.entries(ctx.query).filter((entry): entry is [string, string | string[]] => entry[1] !== undefined)),
      headers: {},
    };
    const signedHeaders = (list: string) => {
      const names = list.split(';').filter(Boolean);
      if (!names.includes('host')) throw new S3Error('AccessDenied', 'The host header must be signed');
      for (const name of names) {
        const value = header(ctx, name);
        if (value === undefined) throw new S3Error('AccessDenied', `The signed header ${name} is missing from the request`);
        request.headers[name] = value;
      }
      return new Set(names);
    };

    let provided: string;
    let expected: string | undefined;
    if (authorization) {
      const match = /^AWS4-HMAC-SHA256\s+(.*)$/.exec(authorization);
      if (!match) throw new S3Error('InvalidArgument', 'Unsupported Authorization Type', { ArgumentName: 'Authorization' });
      const parts = new Map(
        match[1]!.split(',').map((part) => {
          const equals = part.indexOf('=');
          return [part.slice(0, equals).trim(), part.slice(equals + 1).trim()] as const;
        }),
      );
      const credential = parts.get('Credential');
      const list = parts.get('SignedHeaders');
      provided = parts.get('Signature') ?? '';
      if (!credential || !list || !SIGNATURE.test(provided)) {
        throw new S3Error('AuthorizationHeaderMalformed', 'The authorization header is malformed; it needs Credential, SignedHeaders and Signature.');
      }
      const { accessKeyId, region } = parseCredential(credential, 'AuthorizationHeaderMalformed');
      refuseKey(accessKeyId);
      const signingDate = parseAmzDate(header(ctx, 'x-amz-date'));
      if (!signingDate) throw new S3Error('AccessDenied', 'AWS authentication requires a valid x-amz-date header (yyyyMMddTHHmmssZ)');
      if (Math.abs(Date.now() - signingDate.getTime()) > MAX_SKEW_MS) {
        throw new S3Error('RequestTimeTooSkewed', 'The difference between the request time and the current time is too large.', {
          RequestTime: header(ctx, 'x-amz-date'),
        });
      }
      if (!header(ctx, 'x-amz-content-sha256')) throw new S3Error('InvalidRequest', 'Missing required header for this request: x-amz-content-sha256');
      const names = signedHeaders(list);
      if (!names.has('x-amz-content-sha256')) throw new S3Error('AccessDenied', 'The x-amz-content-sha256 header must be signed');
      const signed = await signer.sign(request, { signingDate, signingRegion: region, signingService: 's3', signableHeaders: names });
      expected = /Signature=([0-9a-f]{64})$/.exec(String(signed.headers.authorization))?.[1];
    } else {
      const algorithm = queryValue(ctx, 'X-Amz-Algorithm');
      const credential = queryValue(ctx, 'X-Amz-Credential');
      const list = queryValue(ctx, 'X-Amz-SignedHeaders');
      const expires = Number(queryValue(ctx, 'X-Amz-Expires'));
      const signingDate = parseAmzDate(queryValue(ctx, 'X-Amz-Date'));
      provided = queryValue(ctx, 'X-Amz-Signature') ?? '';
      if (algorithm !== 'AWS4-HMAC-SHA256' || !credential || !list || !signingDate || !Number.isInteger(expires) || expires < 0 || !SIGNATURE.test(provided)) {
        throw new S3Error(
          'AuthorizationQueryParametersError',
          'Query-string authentication version 4 requires the X-Amz-Algorithm (AWS4-HMAC-SHA256), X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.',
        );
      }
      if (expires > MAX_PRESIGNED_SECONDS) {
        throw new S3Error(
          'AuthorizationQueryParametersError',
          'X-Amz-Expires must be less than a week (in seconds); that is, the given X-Amz-Expires must be less than 604800 seconds',
        );
      }
      const { accessKeyId, region } = parseCredential(credential, 'AuthorizationQueryParametersError');
      refuseKey(accessKeyId);
      if (Date.now() > signingDate.getTime() + expires * 1000) throw new S3Error('AccessDenied', 'Request has expired', { 'X-Amz-Expires': String(expires) });
      if (signingDate.getTime() - Date.now() > MAX_SKEW_MS) throw new S3Error('AccessDenied', 'Request is not valid yet');
      const names = signedHeaders(list);
      // A presigned request's payload is UNSIGNED-PAYLOAD: given to the signer as a header it neither hoists into the query nor signs.
      const payload = names.has('x-amz-content-sha256') ? [] : ['x-amz-content-sha256'];
      for (const name of payload) request.headers[name] = 'UNSIGNED-PAYLOAD';
      const signed = await signer.presign(request, {
        signingDate,
        expiresIn: expires,
        signingRegion: region,
        signingService: 's3',
        signableHeaders: names,
        unsignableHeaders: new Set(payload),
        unhoistableHeaders: new Set(Object.keys(request.headers)),
      });
      expected = String(signed.query?.['X-Amz-Signature'] ?? '');
    }
    if (!expected || expected.length !== provided.length || !timingSafeEqual(Buffer.from(expected), Buffer.from(provided))) throw mismatch();
    return next();
  };
}

/** What a list continues after; opaque to clients, as S3's tokens are. */
function continuationToken(bucket: string, key: string): string {
  return Buffer.from(JSON.stringify({ bucket, after: key })).toString('base64url');
}

function continuedAfter(token: string, bucket: string): string {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { bucket?: unknown; after?: unknown };
    if (parsed.bucket === bucket && typeof parsed.after === 'string') return parsed.after;
  } catch {
    // Not one of ours: refused below.
  }
  throw new S3Error('InvalidArgument', 'The continuation token provided is incorrect', { ArgumentName: 'continuation-token' });
}

/**
 * ListObjectsV2's continuation, which s3rver enciphers with DES (gone from OpenSSL 3, so every
 * truncated listing failed with 500): the token given is turned into the key to start after, the
 * listing runs as s3rver lists, and a truncated one gets a token of ours.
 */
export const listContinuation: KoaMiddleware = async (ctx, next) => {
  const segments = ctx.path.split('/').filter(Boolean);
  if (ctx.method !== 'GET' || segments.length !== 1 || ctx.query['list-type'] !== '2') return next();
  const bucket = decodeURIComponent(segments[0]!);
  const given = queryValue(ctx, 'continuation-token');
  if (given !== undefined) {
    const { 'continuation-token': _token, ...rest } = ctx.query;
    ctx.query = { ...rest, 'start-after': continuedAfter(given, bucket) };
  }
  let lastKey: string | undefined;
  const store = ctx.store;
  ctx.store = Object.create(store, {
    listObjects: {
      value: async (name: string, options: Record<string, unknown>) => {
        const listed = await store.listObjects(name, options);
        if (!listed.isTruncated) return listed;
        lastKey = listed.objects.at(-1)?.key;
        return { ...listed, isTruncated: false };
      },
    },
  }) as FilesystemStore;
  await next();
  const result = (ctx.body as { ListBucketResult?: Record<string, unknown> } | undefined)?.ListBucketResult;
  if (!result) return;
  if (given !== undefined) {
    result.StartAfter = undefined;
    result.ContinuationToken = given;
  }
  if (lastKey !== undefined) {
    result.IsTruncated = true;
    result.NextContinuationToken = continuationToken(bucket, lastKey);
  }
};

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
  const { md5 } = await ctx.store.putPart(bucket!, String(ctx.query.uploadId), String(ctx.query.partNumber), object.content);
  ctx.body = { CopyPartResult: { LastModified: new Date().toISOString(), ETag: JSON.stringify(md5) } };
};

export interface S3Local {
  endpoint: string;
  stop(): Promise<void>;
}

/**
 * s3rver on `host`:`port`, its objects under `directory`, serving only requests signed with
 * `credentials` (default: s3rver's own pair, which the local runtime configures).
 */
export async function startS3Local(options: {
  port: number;
  host: string;
  directory: string;
  buckets: string[];
  credentials?: S3Credentials;
}): Promise<S3Local> {
  const credentials = options.credentials ?? S3RVER_CREDENTIALS;
  // s3rver's own authentication (which runs after ours, and checks times) looks keys up in its registry.
  DUMMY_ACCOUNT.createKeyPair(credentials.accessKeyId, credentials.secretAccessKey);
  const server = new S3rver({
    port: options.port,
    address: options.host,
    directory: options.directory,
    silent: true,
    configureBuckets: options.buckets.map((name) => ({ name })),
  });
  rememberBucketConfiguration(server.store);
  // Signatures first, on the request as it came (after the logger, before anything reads or rewrites it);
  // errors thrown anywhere are answered in S3's XML shape by s3rver's error handler.
  server.middleware.splice(1, 0, requireSignatureV4(credentials));
  // Before the router (the last middleware), after the XML encoder and error handling.
  server.middleware.splice(server.middleware.length - 1, 0, listContinuation, uploadPartCopy);
  const address = await server.run();
  return { endpoint: `http://${options.host}:${address.port}`, stop: () => server.close() };
}
