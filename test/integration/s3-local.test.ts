/**
 * The local S3 (s3rver, bin/local/s3-local.ts) as a client on this machine meets it: only requests
 * signed (SigV4) with the runtime's key pair are served, refusals come in S3's XML error shape, the
 * AWS SDK's own clients and presigned URLs work, and listings longer than a page continue.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteBucketCommand,
  DeleteBucketCorsCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetBucketCorsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  PutBucketCorsCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  UploadPartCopyCommand,
  paginateListObjectsV2,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3RVER_CREDENTIALS, startS3Local, type S3Local } from '../../bin/local/s3-local.js';

const BUCKET = 'assisted-files';
const SECRET_KEY = 'clusters/5e1c/installation/kubeadmin-password';

function client(endpoint: string, credentials = S3RVER_CREDENTIALS): S3Client {
  return new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials, maxAttempts: 1 });
}

/** S3's error document: <Error><Code>…</Code><Message>…</Message>…</Error>, served as XML. */
async function s3Error(response: Response): Promise<{ status: number; code: string; message: string; body: string }> {
  const body = await response.text();
  expect(response.headers.get('content-type')).toMatch(/^application\/xml/);
  const match = /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<Error><Code>([A-Za-z]+)<\/Code><Message>([^<]+)<\/Message>/.exec(body);
  expect(match, body).not.toBeNull();
  return { status: response.status, code: match![1]!, message: match![2]!, body };
}

async function sdkError(promise: Promise<unknown>): Promise<{ name: string; status: number | undefined }> {
  const error = (await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )) as { name: string; $metadata?: { httpStatusCode?: number } } | undefined;
  expect(error, 'the request was served').toBeDefined();
  return { name: error!.name, status: error!.$metadata?.httpStatusCode };
}

describe('local S3 (s3rver)', () => {
  let directory: string;
  let s3: S3Local;
  let sdk: S3Client;

  beforeAll(async () => {
    directory = mkdtempSync(path.join(tmpdir(), 'assisted-s3-'));
    s3 = await startS3Local({ host: '127.0.0.1', port: 0, directory, buckets: [BUCKET, 'assisted-logs'] });
    sdk = client(s3.endpoint);
    await sdk.send(new PutObjectCommand({ Bucket: BUCKET, Key: SECRET_KEY, Body: 'hunter2-kubeadmin' }));
  });

  afterAll(async () => {
    sdk?.destroy();
    await s3?.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  it("refuses unsigned GET, PUT, LIST, HEAD and DELETE with 403 AccessDenied in S3's XML error shape", async () => {
    const object = `${s3.endpoint}/${BUCKET}/${SECRET_KEY}`;
    const answers = {
      get: await fetch(object),
      put: await fetch(`${s3.endpoint}/${BUCKET}/planted`, { method: 'PUT', body: 'planted' }),
      list: await fetch(`${s3.endpoint}/${BUCKET}?list-type=2`),
      listBuckets: await fetch(`${s3.endpoint}/`),
      delete: await fetch(object, { method: 'DELETE' }),
    };
    for (const [what, response] of Object.entries(answers)) {
      const error = await s3Error(response);
      expect({ what, status: error.status, code: error.code }).toEqual({ what, status: 403, code: 'AccessDenied' });
      expect(error.body).not.toContain('hunter2');
    }
    const head = await fetch(object, { method: 'HEAD' });
    expect(head.status).toBe(403);
    // Nothing was planted, nothing deleted.
    expect(await sdkError(sdk.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'planted' })))).toMatchObject({ name: 'NoSuchKey', status: 404 });
    const kept = await sdk.send(new GetObjectCommand({ Bucket: BUCKET, Key: SECRET_KEY }));
    expect(await kept.Body!.transformToString()).toBe('hunter2-kubeadmin');
  });

  it('refuses requests signed with a wrong secret or an unknown key, tampered or expired presigned URLs, and V2 signatures', async () => {
    const wrongSecret = client(s3.endpoint, { accessKeyId: S3RVER_CREDENTIALS.accessKeyId, secretAccessKey: 'not-the-secret' });
    const unknownKey = client(s3.endpoint, { accessKeyId: 'AKIDSOMEONEELSE', secretAccessKey: S3RVER_CREDENTIALS.secretAccessKey });
    try {
      expect(await sdkError(wrongSecret.send(new GetObjectCommand({ Bucket: BUCKET, Key: SECRET_KEY })))).toEqual({
        name: 'SignatureDoesNotMatch',
        status: 403,
      });
      expect(await sdkError(wrongSecret.send(new ListObjectsV2Command({ Bucket: BUCKET })))).toEqual({ name: 'SignatureDoesNotMatch', status: 403 });
      expect(await sdkError(wrongSecret.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'planted', Body: 'x' })))).toEqual({
        name: 'SignatureDoesNotMatch',
        status: 403,
      });
      expect(await sdkError(unknownKey.send(new GetObjectCommand({ Bucket: BUCKET, Key: SECRET_KEY })))).toEqual({ name: 'InvalidAccessKeyId', status: 403 });
      expect(await sdkError(sdk.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'planted' })))).toMatchObject({ name: 'NoSuchKey' });

      // The same refusals as a person with curl meets them.
      const forged = await getSignedUrl(wrongSecret, new GetObjectCommand({ Bucket: BUCKET, Key: SECRET_KEY }), { expiresIn: 600 });
      expect(await s3Error(await fetch(forged))).toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
      const good = await getSignedUrl(sdk, new GetObjectCommand({ Bucket: BUCKET, Key: SECRET_KEY }), { expiresIn: 600 });
      // Signed for one key, used for another; a longer lifetime than signed; another method.
      expect(await s3Error(await fetch(good.replace('kubeadmin-password', 'kubeconfig')))).toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
      expect(await s3Error(await fetch(good.replace('X-Amz-Expires=600', 'X-Amz-Expires=6000')))).toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
      expect(await s3Error(await fetch(good, { method: 'DELETE' }))).toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
      const expired = await getSignedUrl(sdk, new GetObjectCommand({ Bucket: BUCKET, Key: SECRET_KEY }), {
        expiresIn: 60,
        signingDate: new Date(Date.now() - 120_000),
      });
      expect(await s3Error(await fetch(expired))).toMatchObject({ status: 403, code: 'AccessDenied', message: 'Request has expired' });
      // A header that claims a signature but carries garbage, and the old V2 scheme.
      const garbage = await fetch(`${s3.endpoint}/${BUCKET}/${SECRET_KEY}`, {
        headers: {
          Authorization: `AWS4-HMAC-SHA256 Credential=S3RVER/20250101/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=${'0'.repeat(64)}`,
          'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
          'x-amz-date': new Date().toISOString().replace(/[-:]|\.\d+/g, ''),
        },
      });
      expect(await s3Error(garbage)).toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
      const v2 = await fetch(`${s3.endpoint}/${BUCKET}/${SECRET_KEY}`, {
        headers: { Authorization: 'AWS S3RVER:bm90LWEtc2lnbmF0dXJl', Date: new Date().toUTCString() },
      });
      expect(await s3Error(v2)).toMatchObject({ status: 400, code: 'InvalidRequest' });
      // The genuine URL still serves.
      const served = await fetch(good);
      expect(served.status).toBe(200);
      expect(await served.text()).toBe('hunter2-kubeadmin');
    } finally {
      wrongSecret.destroy();
      unknownKey.destroy();
    }
  });

  it('serves the AWS SDK client signed with the key pair: objects with awkward keys, presigned downloads, multipart with UploadPartCopy, batch delete', async () => {
    const keys = ['a b/c+d.txt', "ünï/(x)*!~'.txt", 'q?x=1&y#z', 'spaces and %25 percent'];
    for (const Key of keys) await sdk.send(new PutObjectCommand({ Bucket: 'assisted-logs', Key, Body: `content of ${Key}` }));
    for (const Key of keys) {
      const object = await sdk.send(new GetObjectCommand({ Bucket: 'assisted-logs', Key }));
      expect(await object.Body!.transformToString()).toBe(`content of ${Key}`);
      const url = await getSignedUrl(
        sdk,
        new GetObjectCommand({ Bucket: 'assisted-logs', Key, ResponseContentDisposition: 'attachment; filename="logs (1).txt"' }),
        { expiresIn: 60 },
      );
      const download = await fetch(url);
      expect(download.status).toBe(200);
      expect(download.headers.get('content-disposition')).toBe('attachment; filename="logs (1).txt"');
      expect(await download.text()).toBe(`content of ${Key}`);
    }

    const part = Buffer.alloc(5 * 1024 * 1024, 7);
    await sdk.send(new PutObjectCommand({ Bucket: 'assisted-logs', Key: 'base', Body: part }));
    const { UploadId } = await sdk.send(new CreateMultipartUploadCommand({ Bucket: 'assisted-logs', Key: 'composed' }));
    const copied = await sdk.send(
      new UploadPartCopyCommand({
        Bucket: 'assisted-logs',
        Key: 'composed',
        UploadId,
        PartNumber: 1,
        CopySource: 'assisted-logs/base',
        CopySourceRange: `bytes=0-${part.length - 1}`,
      }),
    );
    const uploaded = await sdk.send(new UploadPartCommand({ Bucket: 'assisted-logs', Key: 'composed', UploadId, PartNumber: 2, Body: 'tail' }));
    await sdk.send(
      new CompleteMultipartUploadCommand({
        Bucket: 'assisted-logs',
        Key: 'composed',
        UploadId,
        MultipartUpload: {
          Parts: [
            { PartNumber: 1, ETag: copied.CopyPartResult!.ETag },
            { PartNumber: 2, ETag: uploaded.ETag },
          ],
        },
      }),
    );
    const composed = Buffer.from(await (await sdk.send(new GetObjectCommand({ Bucket: 'assisted-logs', Key: 'composed' }))).Body!.transformToByteArray());
    expect(composed.length).toBe(part.length + 4);
    expect(composed.subarray(part.length).toString()).toBe('tail');

    await sdk.send(new DeleteObjectsCommand({ Bucket: 'assisted-logs', Delete: { Objects: [...keys, 'base', 'composed'].map((Key) => ({ Key })) } }));
    expect((await sdk.send(new ListObjectsV2Command({ Bucket: 'assisted-logs' }))).KeyCount).toBe(0);
  });

  it("lists more keys than fit in a page, page by page (ListObjectsV2 continuation tokens), and refuses another bucket's token", async () => {
    const prefix = 'paged/';
    const keys = Array.from({ length: 7 }, (_, i) => `${prefix}key-${i}`);
    await Promise.all(keys.map((Key) => sdk.send(new PutObjectCommand({ Bucket: 'assisted-logs', Key, Body: Key }))));

    const first = await sdk.send(new ListObjectsV2Command({ Bucket: 'assisted-logs', Prefix: prefix, MaxKeys: 1 }));
    expect(first).toMatchObject({ IsTruncated: true, KeyCount: 1, Contents: [{ Key: keys[0] }] });
    expect(first.NextContinuationToken).toBeTruthy();

    const pages: string[][] = [];
    for await (const page of paginateListObjectsV2({ client: sdk, pageSize: 3 }, { Bucket: 'assisted-logs', Prefix: prefix })) {
      pages.push((page.Contents ?? []).map((object) => object.Key!));
    }
    expect(pages).toEqual([keys.slice(0, 3), keys.slice(3, 6), keys.slice(6)]);

    const second = await sdk.send(
      new ListObjectsV2Command({ Bucket: 'assisted-logs', Prefix: prefix, MaxKeys: 2, ContinuationToken: first.NextContinuationToken }),
    );
    expect(second).toMatchObject({ ContinuationToken: first.NextContinuationToken, IsTruncated: true, Contents: [{ Key: keys[1] }, { Key: keys[2] }] });
    expect(second.StartAfter).toBeUndefined();

    expect(await sdkError(sdk.send(new ListObjectsV2Command({ Bucket: BUCKET, ContinuationToken: first.NextContinuationToken })))).toEqual({
      name: 'InvalidArgument',
      status: 400,
    });
    // One by one: s3rver's batch delete races itself removing the directory keys of one prefix share.
    for (const Key of keys) await sdk.send(new DeleteObjectCommand({ Bucket: 'assisted-logs', Key }));
  });

  it("serves a bucket's configuration and existence as last written (they are kept in memory between writes)", async () => {
    const bucket = 'assisted-remembered';
    await sdk.send(new CreateBucketCommand({ Bucket: bucket }));
    expect((await sdk.send(new HeadBucketCommand({ Bucket: bucket }))).$metadata.httpStatusCode).toBe(200);
    expect(await sdkError(sdk.send(new GetBucketCorsCommand({ Bucket: bucket })))).toMatchObject({ status: 404 });
    const cors = (origin: string) => ({ CORSRules: [{ AllowedMethods: ['GET'], AllowedOrigins: [origin] }] });
    await sdk.send(new PutBucketCorsCommand({ Bucket: bucket, CORSConfiguration: cors('https://one.example') }));
    expect((await sdk.send(new GetBucketCorsCommand({ Bucket: bucket }))).CORSRules?.[0]?.AllowedOrigins).toEqual(['https://one.example']);
    await sdk.send(new PutBucketCorsCommand({ Bucket: bucket, CORSConfiguration: cors('https://two.example') }));
    expect((await sdk.send(new GetBucketCorsCommand({ Bucket: bucket }))).CORSRules?.[0]?.AllowedOrigins).toEqual(['https://two.example']);
    await sdk.send(new DeleteBucketCorsCommand({ Bucket: bucket }));
    expect(await sdkError(sdk.send(new GetBucketCorsCommand({ Bucket: bucket })))).toMatchObject({ status: 404 });
    await sdk.send(new DeleteBucketCommand({ Bucket: bucket }));
    expect(await sdkError(sdk.send(new HeadBucketCommand({ Bucket: bucket })))).toMatchObject({ status: 404 });
    await sdk.send(new CreateBucketCommand({ Bucket: bucket }));
    expect((await sdk.send(new HeadBucketCommand({ Bucket: bucket }))).$metadata.httpStatusCode).toBe(200);
    expect(await sdkError(sdk.send(new GetBucketCorsCommand({ Bucket: bucket })))).toMatchObject({ status: 404 });
    await sdk.send(new DeleteBucketCommand({ Bucket: bucket }));
  });
});
