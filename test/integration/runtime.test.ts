/**
 * The embedded runtime's pieces, through the same ports and SDK clients the handlers use:
 * s3rver with UploadPartCopy, the purge workflow on the Step Functions stand-in, the DNS
 * stand-in answering on loopback, schedules, and API Gateway's proxy event semantics.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { Resolver } from 'node:dns/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamodbEndpoint } from '../support/dynamodb-local.js';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { HEADERS_TIMEOUT_MS } from '../../bin/local/api-gateway.js';
import { loadCatalogue } from '../../lib/catalogue.js';
import { startRuntime, type Runtime } from '../../bin/local/runtime.js';
import { container } from '../../lambdas/platform/container.js';
import { until } from '../support/net.js';

const catalogue = loadCatalogue();
const echoed: APIGatewayProxyEvent[] = [];
let ticks = 0;

describe('embedded runtime', () => {
  let runtime: Runtime;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'assisted-runtime-'));
    runtime = await startRuntime({
      port: 0,
      dnsPort: 0,
      dataDir,
      dynamodbEndpoint: await dynamodbEndpoint(),
      tableName: `runtime-${randomUUID()}`,
      baseDomains: ['example.test'],
      catalogue: {
        ...catalogue,
        functions: [...catalogue.functions.filter((f) => f.name !== 'Api')],
        schedules: [{ name: 'tick', function: 'Tick', expression: 'rate(1 minute)' }],
      },
      scheduleOverrides: { tick: 50 },
      extraFunctions: {
        // Stands where the Api function is, to observe the events API Gateway semantics produce.
        Api: async (event) => {
          const e = event as APIGatewayProxyEvent;
          echoed.push(e);
          if (e.path === '/api/binary') {
            return {
              statusCode: 200,
              isBase64Encoded: true,
              headers: { 'Content-Type': 'application/octet-stream' },
              body: Buffer.from([0, 1, 2, 255]).toString('base64'),
            };
          }
          if (e.path === '/api/redirect') return { statusCode: 302, headers: { Location: 'https://example.test/image.iso' }, body: '' };
          return { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ok: true }) };
        },
        Tick: async () => {
          ticks += 1;
          return {};
        },
      },
    });
  }, 180_000);

  afterAll(async () => {
    await runtime?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('reports every component healthy', async () => {
    const response = await fetch(`${runtime.url}/healthz`);
    expect(response.status).toBe(200);
  });

  it("stays healthy with several objects in every bucket (s3rver failed the probe's truncated listing with 500)", async () => {
    const { blobs } = container();
    for (const bucket of ['files', 'images', 'logs'] as const) {
      for (let i = 0; i < 3; i++) await blobs.put(bucket, `health/${randomUUID()}`, `object ${i}`);
      expect((await blobs.list(bucket, 'health/')).length).toBeGreaterThanOrEqual(3);
    }
    for (let probe = 0; probe < 3; probe++) {
      const response = await fetch(`${runtime.url}/healthz`);
      const health = (await response.json()) as { healthy: boolean; components: Record<string, string> };
      expect(response.status, JSON.stringify(health.components)).toBe(200);
      expect(health.components).toMatchObject({ s3: 'up', disk: 'up' });
    }
  });

  it("serves stored objects only to requests signed with the runtime's key pair: a bare curl of a kubeadmin-password is refused, its presigned URL served", async () => {
    const { blobs } = container();
    const key = `clusters/${randomUUID()}/installation/kubeadmin-password`;
    await blobs.put('files', key, 'kubeadmin-secret');
    const bare = await fetch(`${runtime.endpoints.s3}/assisted-files/${key}`);
    expect(bare.status).toBe(403);
    const refusal = await bare.text();
    expect(refusal).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n<Error><Code>AccessDenied<\/Code><Message>/);
    expect(refusal).not.toContain('kubeadmin-secret');
    const listing = await fetch(`${runtime.endpoints.s3}/assisted-files?list-type=2&prefix=clusters/`);
    expect(listing.status).toBe(403);
    expect(await listing.text()).not.toContain('kubeadmin-password');

    const presigned = await fetch(await blobs.presignGet('files', key, 60, { contentDisposition: 'attachment; filename="kubeadmin-password"' }));
    expect(presigned.status).toBe(200);
    expect(await presigned.text()).toBe('kubeadmin-secret');
  });

  it('composes an object server-side from byte ranges and inline parts (UploadPartCopy)', async () => {
    const { blobs } = container();
    const part = 5 * 1024 * 1024;
    const base = Buffer.alloc(part * 2 + 1000);
    for (let i = 0; i < base.length; i++) base[i] = i % 251;
    await blobs.put('images', 'base/test.iso', base);
    const window = Buffer.from('EMBEDDED-IGNITION'.padEnd(part, '\0'));
    await blobs.compose('images', 'composed/test.iso', [
      { kind: 'copy', sourceKey: 'base/test.iso', start: 0, end: part - 1 },
      { kind: 'inline', body: window },
      { kind: 'copy', sourceKey: 'base/test.iso', start: part * 2, end: base.length - 1 },
    ]);
    const composed = Buffer.from((await blobs.get('images', 'composed/test.iso'))!);
    expect(composed.length).toBe(base.length);
    expect(composed.subarray(0, part).equals(base.subarray(0, part))).toBe(true);
    expect(composed.subarray(part, part * 2).equals(window)).toBe(true);
    expect(composed.subarray(part * 2).equals(base.subarray(part * 2))).toBe(true);
  });

  it('rejects a copy from a missing source and leaves no object behind', async () => {
    const { blobs } = container();
    await expect(blobs.compose('images', 'composed/broken.iso', [{ kind: 'copy', sourceKey: 'base/missing.iso', start: 0, end: 10 }])).rejects.toThrow();
    expect(await blobs.get('images', 'composed/broken.iso')).toBeUndefined();
  });

  it('runs the purge workflow through the Workflows port until no object is left', async () => {
    const { blobs, workflows } = container();
    const prefix = `clusters/${randomUUID()}/`;
    await Promise.all(Array.from({ length: 12 }, (_, i) => blobs.put('files', `${prefix}file-${i}`, `content ${i}`)));
    await blobs.put('files', 'clusters/other/keep', 'keep');
    const executionArn = await workflows.start('purge-objects', `purge-${randomUUID()}`, { bucket: 'files', prefix });
    const done = await until(async () => {
      const d = await workflows.describe(executionArn);
      return d.status === 'RUNNING' ? undefined : d;
    }, 20_000);
    expect(done.status).toBe('SUCCEEDED');
    expect(done.output).toMatchObject({ bucket: 'files', prefix, remaining: false });
    expect(await blobs.list('files', prefix)).toEqual([]);
    expect(await blobs.list('files', 'clusters/other/')).toEqual(['clusters/other/keep']);
  });

  it("purges only what was written before the limit it is given (a reset's purge while the next attempt writes)", async () => {
    const { blobs, workflows } = container();
    const prefix = `clusters/${randomUUID()}/installation/`;
    await blobs.put('files', `${prefix}install-config.yaml`, 'attempt 1');
    await blobs.put('files', `${prefix}kubeconfig`, 'attempt 1');
    // S3 keeps times to the second: the reset comes in a later second than attempt 1's files.
    await sleep(1_100);
    const resetAt = new Date();
    await sleep(1_100);
    await blobs.put('files', `${prefix}install-config.yaml`, 'attempt 2');
    const executionArn = await workflows.start('purge-objects', `purge-${randomUUID()}`, { bucket: 'files', prefix, modifiedBefore: resetAt.toISOString() });
    const done = await until(async () => {
      const d = await workflows.describe(executionArn);
      return d.status === 'RUNNING' ? undefined : d;
    }, 20_000);
    expect(done.status).toBe('SUCCEEDED');
    expect(await blobs.list('files', prefix)).toEqual([`${prefix}install-config.yaml`]);
    expect(Buffer.from((await blobs.get('files', `${prefix}install-config.yaml`))!).toString()).toBe('attempt 2');
  });

  it('answers DNS queries for managed records on loopback, wildcards included', async () => {
    const { dns } = container();
    await dns.upsert('example.test', [
      { name: 'api.demo.example.test', type: 'A', values: ['192.0.2.10'], ttl: 60 },
      { name: '*.apps.demo.example.test', type: 'A', values: ['192.0.2.11'], ttl: 60 },
    ]);
    const resolver = new Resolver({ timeout: 2_000, tries: 1 });
    resolver.setServers([`127.0.0.1:${runtime.endpoints.dns.port}`]);
    expect(await resolver.resolve4('api.demo.example.test')).toEqual(['192.0.2.10']);
    expect(await resolver.resolve4('console-openshift-console.apps.demo.example.test')).toEqual(['192.0.2.11']);
    await expect(resolver.resolve4('nothing.demo.example.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await dns.remove('example.test', [{ name: 'api.demo.example.test', type: 'A' }]);
    await expect(resolver.resolve4('api.demo.example.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('invokes scheduled functions on their rate without overlapping', async () => {
    const before = ticks;
    await until(() => ticks >= before + 3 || undefined, 5_000, 'three ticks');
  });

  it('passes requests as API Gateway proxy events and returns binary bodies and redirects intact', async () => {
    const response = await fetch(`${runtime.url}/api/x?a=1&a=2&b=3`, {
      method: 'POST',
      headers: { 'X-Secret-Key': 's', 'Content-Type': 'application/json' },
      body: '{"k":1}',
    });
    expect(response.status).toBe(200);
    const event = echoed.at(-1)!;
    expect(event.httpMethod).toBe('POST');
    expect(event.path).toBe('/api/x');
    expect(event.multiValueQueryStringParameters).toEqual({ a: ['1', '2'], b: ['3'] });
    expect(event.headers['X-Secret-Key']).toBe('s');
    expect(event.body).toBe('{"k":1}');
    expect(event.isBase64Encoded).toBe(false);

    const upload = await fetch(`${runtime.url}/api/upload`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/octet-stream' },
      body: Buffer.from([9, 8, 7]),
    });
    expect(upload.status).toBe(200);
    expect(echoed.at(-1)!.isBase64Encoded).toBe(true);
    expect(Buffer.from(echoed.at(-1)!.body!, 'base64')).toEqual(Buffer.from([9, 8, 7]));

    const binary = await fetch(`${runtime.url}/api/binary`);
    expect(Buffer.from(await binary.arrayBuffer())).toEqual(Buffer.from([0, 1, 2, 255]));

    const redirect = await fetch(`${runtime.url}/api/redirect`, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe('https://example.test/image.iso');
  });

  it("refuses bodies over API Gateway's 10 MiB limit with a 413 in the upstream error shape", async () => {
    const response = await fetch(`${runtime.url}/api/x`, { method: 'POST', body: Buffer.alloc(10 * 1024 * 1024 + 1) });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ kind: 'Error', id: 413, code: '413' });
  });

  it('answers a 60 MiB body with a 413, not a reset, whether its length is declared or it is streamed in chunks', async () => {
    const declared = await fetch(`${runtime.url}/api/x`, { method: 'POST', body: Buffer.alloc(60 * 1024 * 1024) });
    expect(declared.status).toBe(413);
    expect(await declared.json()).toMatchObject({ kind: 'Error', code: '413' });
    const chunk = Buffer.alloc(1024 * 1024);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 60) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const chunked = await fetch(`${runtime.url}/api/x`, { method: 'POST', body: stream, duplex: 'half' } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(await chunked.json()).toMatchObject({ kind: 'Error', code: '413' });
  });

  it('closes a connection that sends no request headers in time, idle or stalled mid-header, as API Gateway would', async () => {
    const { port } = new URL(runtime.url);
    const closedAfter = (send?: string) =>
      new Promise<number>((resolve, reject) => {
        const started = Date.now();
        const socket = net.connect(Number(port), '127.0.0.1', () => {
          if (send) socket.write(send);
        });
        socket.on('error', () => undefined);
        socket.on('close', () => resolve(Date.now() - started));
        setTimeout(() => {
          socket.destroy();
          reject(new Error('the connection was still open after 30 s'));
        }, 30_000).unref();
      });
    const [idle, stalled] = await Promise.all([closedAfter(), closedAfter('GET /healthz HTTP/1.1\r\nHost: x\r\n')]);
    for (const elapsed of [idle, stalled]) {
      expect(elapsed).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 500);
      expect(elapsed).toBeLessThan(HEADERS_TIMEOUT_MS + 5_000);
    }
  }, 40_000);

  it("holds its data directory alone, kept 0700: a second runtime on it stops with a message, a dead holder's lock is taken over", async () => {
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(path.join(dataDir, 'lock'), 'utf8')).pid).toBe(process.pid);
    await expect(
      startRuntime({ port: 0, dnsPort: 0, dataDir, dynamodbEndpoint: await dynamodbEndpoint(), tableName: `runtime-${randomUUID()}` }),
    ).rejects.toThrow(`data directory ${dataDir} is in use by another runtime (pid ${process.pid}); stop it, or set ASSISTED_DATA_DIR to another directory`);

    // A directory left 0755 by an earlier version, and a lock whose holder died (kill -9).
    const other = mkdtempSync(path.join(tmpdir(), 'assisted-runtime-'));
    chmodSync(other, 0o755);
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    writeFileSync(path.join(other, 'lock'), JSON.stringify({ pid: Number(dead.stdout), token: 'gone' }));
    const second = await startRuntime({
      port: 0,
      dnsPort: 0,
      dataDir: other,
      dynamodbEndpoint: await dynamodbEndpoint(),
      tableName: `runtime-${randomUUID()}`,
      catalogue: { ...catalogue, functions: [], schedules: [] },
    });
    try {
      expect(statSync(other).mode & 0o777).toBe(0o700);
      expect(JSON.parse(readFileSync(path.join(other, 'lock'), 'utf8')).pid).toBe(process.pid);
    } finally {
      await second.stop();
    }
    expect(existsSync(path.join(other, 'lock'))).toBe(false);
    rmSync(other, { recursive: true, force: true });
  });
});
