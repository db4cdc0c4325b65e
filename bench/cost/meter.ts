/**
 * The cost bench's meter: each Api, HostChanges or workflow invocation runs in an
 * AsyncLocalStorage context that counts what it asks for (DynamoDB read and write units, S3
 * requests by price class, bytes logged, response bytes as sent and gzipped, and the handler's own
 * time: wall time less its waits on the local stores), summed per kind of request by a Recorder
 * into the RequestCost the model prices (bench/cost/model.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { S3Client } from '@aws-sdk/client-s3';
import type { APIGatewayProxyResult, Context } from 'aws-lambda';
import { createDynamoStore } from '../../lambdas/adapters/dynamodb/store.js';
import { createS3BlobStore, s3ClientConfig } from '../../lambdas/adapters/s3/blobs.js';
import { payloadV2Result } from '../../lambdas/handlers/api/request-path.js';
import { container, provide } from '../../lambdas/platform/container.js';
import { meteredDynamoClient } from '../lifecycle/capacity.js';
import type { RequestCost } from './model.js';

export type Handler = (event: unknown, context: Context) => Promise<unknown>;

/** S3 requests S3 does not charge for (DELETE). */
const S3_FREE = /^Delete/;
/** S3 requests billed at the PUT price (writes and listings); the rest at the GET price. */
const S3_PUT_CLASS = /^(Put|Copy|CreateMultipartUpload|UploadPart|CompleteMultipartUpload|List)/;

/** What an invocation is counted by, summed per kind of request and averaged into its `RequestCost`. */
const COUNTS = ['readUnits', 'writeUnits', 'dynamodbCalls', 's3Puts', 's3Gets', 'logBytes', 'infoLogBytes', 'metricLogBytes'] as const;
type Counts = Record<(typeof COUNTS)[number], number>;
const zeroCounts = (): Counts => Object.fromEntries(COUNTS.map((count) => [count, 0])) as Counts;

/** What one invocation asked for, as it runs (the AsyncLocalStorage store). */
interface Tally extends Counts {
  kind: string;
  /** When each DynamoDB or S3 call of the invocation was in flight (performance.now() intervals). */
  waits: [number, number][];
  /** Read units by DynamoDB command (QueryCommand, BatchGetItemCommand, ...): which reads a request's units are. */
  readUnitsByCommand: Record<string, number>;
}

/** Sums per kind of request; `RequestCost` is their average. */
interface Sums extends Omit<Tally, 'kind' | 'waits' | 'readUnitsByCommand'> {
  measured: number;
  responseBytes: number;
  gzippedResponseBytes: number;
  wallMs: number;
  /** Wall time with at least one call in flight: calls made in parallel count once. */
  waitingMs: number;
}

/** The length of the union of the intervals. */
function coveredMs(intervals: readonly [number, number][]): number {
  let covered = 0;
  let reach = -Infinity;
  for (const [from, to] of [...intervals].sort((a, b) => a[0] - b[0])) {
    if (to <= reach) continue;
    covered += to - Math.max(from, reach);
    reach = to;
  }
  return covered;
}

const invocation = new AsyncLocalStorage<Tally>();

export class Recorder {
  private readonly sums = new Map<string, Sums>();
  private readonly readsByCommand = new Map<string, Record<string, number>>();
  recording = false;
  /** Appended to the kinds recorded from now on: the steady hour's requests are priced apart from the discovery's. */
  phase = '';

  add(tally: Tally, wallMs: number, responseBytes: number, gzippedResponseBytes: number): void {
    if (!this.recording) return;
    const kind = tally.kind + this.phase;
    let sums = this.sums.get(kind);
    if (!sums)
      this.sums.set(
        kind,
        (sums = {
          measured: 0,
          ...zeroCounts(),
          responseBytes: 0,
          gzippedResponseBytes: 0,
          wallMs: 0,
          waitingMs: 0,
        }),
      );
    sums.measured += 1;
    for (const count of COUNTS) sums[count] += tally[count];
    sums.responseBytes += responseBytes;
    sums.gzippedResponseBytes += gzippedResponseBytes;
    sums.wallMs += wallMs;
    sums.waitingMs += coveredMs(tally.waits);
    const byCommand = this.readsByCommand.get(kind) ?? {};
    for (const [command, units] of Object.entries(tally.readUnitsByCommand)) byCommand[command] = (byCommand[command] ?? 0) + units;
    this.readsByCommand.set(kind, byCommand);
  }

  /** The average read units per request of a kind, by DynamoDB command. */
  readUnitsByCommand(kind: string): Record<string, number> {
    const n = this.count(kind);
    return Object.fromEntries(Object.entries(this.readsByCommand.get(kind) ?? {}).map(([command, units]) => [command, n ? units / n : 0]));
  }

  count(kind: string): number {
    return this.sums.get(kind)?.measured ?? 0;
  }

  kinds(): string[] {
    return [...this.sums.keys()];
  }

  cost(kind: string): RequestCost | undefined {
    const sums = this.sums.get(kind);
    if (!sums || sums.measured === 0) return undefined;
    const n = sums.measured;
    return {
      measured: n,
      ...(Object.fromEntries(COUNTS.map((count) => [count, sums[count] / n])) as Counts),
      responseBytes: sums.responseBytes / n,
      gzippedResponseBytes: sums.gzippedResponseBytes / n,
      handlerMs: Math.max(0, (sums.wallMs - sums.waitingMs) / n),
    };
  }
}

/** The kind of an Api request, from its method, path and (for step replies) its step type. */
export function apiKind(event: { httpMethod?: string; path?: string; body?: string | null; isBase64Encoded?: boolean }): string {
  const route = event.path ?? '';
  if (event.httpMethod === 'POST' && /\/infra-envs\/[^/]+\/hosts$/.test(route)) return 'registration';
  if (route.endsWith('/instructions')) {
    if (event.httpMethod === 'GET') return 'poll';
    try {
      const text = event.isBase64Encoded ? Buffer.from(event.body ?? '', 'base64').toString('utf8') : (event.body ?? '');
      return `reply ${(JSON.parse(text) as { step_type?: string }).step_type ?? '?'}`;
    } catch {
      return 'reply ?';
    }
  }
  return 'other API call';
}

function emptyTally(kind: string): Tally {
  return {
    kind,
    ...zeroCounts(),
    waits: [],
    readUnitsByCommand: {},
  };
}

/** The handler, each invocation counted under its kind. */
export function measured(recorder: Recorder, handler: Handler, kindOf: (event: unknown) => string): Handler {
  return async (event, context) => {
    const tally = emptyTally(kindOf(event));
    const started = performance.now();
    let result: unknown;
    try {
      result = await invocation.run(tally, () => handler(event, context));
      return result;
    } finally {
      const wallMs = performance.now() - started;
      const answer = result as APIGatewayProxyResult | undefined;
      const responseBytes = Buffer.byteLength(String(answer?.body ?? ''));
      // What the agents' function URL sends a caller accepting gzip (upstream's agent does).
      const wire = answer?.statusCode ? payloadV2Result(answer, 'gzip') : undefined;
      const gzippedResponseBytes = wire ? Buffer.byteLength(wire.body ?? '', wire.isBase64Encoded ? 'base64' : 'utf8') : responseBytes;
      recorder.add(tally, wallMs, responseBytes, gzippedResponseBytes);
    }
  };
}

/** Counts the bytes each invocation logs (and keeps them off the bench's output); other output passes. */
export function countLogBytes(): () => void {
  const streams = [process.stdout, process.stderr];
  const originals = streams.map((stream) => stream.write.bind(stream));
  streams.forEach((stream, i) => {
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      const tally = invocation.getStore();
      if (!tally) return (originals[i] as (...args: unknown[]) => boolean)(chunk, ...rest);
      const bytes = typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
      tally.logBytes += bytes;
      // Which lines a stack that logs at WARN, or publishes no metrics, would not write. Invocations
      // overlapping in this thread share Powertools' one metrics store, so one of them may find it
      // emptied by another and warn instead of writing its line: that warning stands for the line.
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      if (text.includes('"CloudWatchMetrics"') || text.includes('No application metrics to publish')) tally.metricLogBytes += bytes;
      else if (/"level":"(INFO|DEBUG|TRACE)"/.test(text)) tally.infoLogBytes += bytes;
      const callback = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
      callback?.();
      return true;
    }) as typeof stream.write;
  });
  return () => {
    for (const [i, stream] of streams.entries()) stream.write = originals[i] as typeof stream.write;
  };
}

type MeteredCount = 'readUnits' | 'writeUnits' | 'dynamodbCalls' | 's3Puts' | 's3Gets';

/** Adds to the measured invocation this code runs in (none: not counted) and records the wait. */
function addToInvocation(counts: Partial<Record<MeteredCount, number>>, started: number, command?: string): void {
  const current = invocation.getStore();
  if (!current) return;
  for (const [key, value] of Object.entries(counts) as [MeteredCount, number][]) current[key] += value;
  if (command && counts.readUnits !== undefined) current.readUnitsByCommand[command] = (current.readUnitsByCommand[command] ?? 0) + counts.readUnits;
  current.waits.push([started, performance.now()]);
}

/** A DynamoDB client counting consumed units and an S3 client counting billed requests, each charged to the invocation that makes the call. */
function meteredClients(dynamodbEndpoint: string) {
  const meter = meteredDynamoClient(dynamodbEndpoint, ({ command, read, units, ms }) =>
    addToInvocation({ dynamodbCalls: 1, ...(read ? { readUnits: units } : { writeUnits: units }) }, performance.now() - ms, command.replace(/Command$/, '')),
  );
  const s3 = new S3Client(s3ClientConfig({ region: container().config.region, forcePathStyle: true }));
  s3.middlewareStack.add(
    (next, context) => async (args) => {
      const started = performance.now();
      // A pre-signed URL passes the stack too, but makes no request (the presigner returns it before signing).
      let presigned = false;
      try {
        const result = await next(args);
        presigned = Boolean((result.output as { presigned?: unknown }).presigned);
        return result;
      } finally {
        if (!presigned && !S3_FREE.test(context.commandName ?? ''))
          addToInvocation(S3_PUT_CLASS.test(context.commandName ?? '') ? { s3Puts: 1 } : { s3Gets: 1 }, started);
      }
    },
    { step: 'initialize', name: 'countS3Requests' },
  );
  return { meter, s3 };
}

/** The functions of this process store and read blobs through metered clients; returns the clients, to close. */
export function provideMeteredPorts(dynamodbEndpoint: string): { close(): void }[] {
  const { meter, s3 } = meteredClients(dynamodbEndpoint);
  provide({
    store: createDynamoStore({ tableName: container().config.tableName, client: meter.client }),
    blobs: createS3BlobStore({ buckets: container().config.buckets, client: s3 }),
  });
  return [{ close: () => meter.client.destroy() }, { close: () => s3.destroy() }];
}
