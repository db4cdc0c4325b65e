/**
 * `npm run bench -- cost` (issue #21): what the service would cost a month on AWS, from what its
 * requests were measured to ask of each billed component, at the list prices of bench/cost/prices.json.
 *
 * The Api and HostChanges handlers run in this thread, each invocation in an AsyncLocalStorage
 * context that counts what it asked for: DynamoDB read and write units (ReturnConsumedCapacity
 * TOTAL, which DynamoDB Local computes as DynamoDB does), S3 requests by price class, bytes logged
 * at INFO (and which of them are INFO lines or Powertools' metric line, which the stack may drop),
 * response bytes (as sent, and gzipped as the agents' function URL sends them), and the handler's
 * own time (wall time less its waits on DynamoDB Local and the local S3, measured one request at a
 * time). A Lambda's billed time is that own time, stretched by the function's CPU share below
 * 1,769 MB, plus each call's assumed AWS latency (prices.json).
 *
 * Measured at LIFECYCLE_HOSTS (1,000) hosts in one cluster:
 * - registration, first poll, inventory and the other step replies of COST_SAMPLE_HOSTS (100) new hosts;
 * - a host-monitor pass with no host active, and one over the 1,000 hosts once they have settled
 *   (the passes while the cluster converges, up to COST_CONVERGING_PASSES (5), are priced apart);
 * - a steady hour of COST_STEADY_HOSTS (50) further hosts in clusters of COST_CLUSTER_HOSTS (3),
 *   after COST_WARMUP_HOURS (1) unmeasured hours of the same,
 *   each reporting a full mesh (so they are known), on a stepped service clock: each polls when
 *   the service tells it to, and answers the steps it is handed as upstream's agent does (a reply
 *   is posted only when its output changed: connectivity reports, whose round-trip times move;
 *   inventory, NTP sources, domain resolutions and free addresses come back unchanged and are not
 *   posted); the table stream's HostChanges invocations meanwhile are counted too.
 * The fixed monthly charges come from the synthesized staging stack (NAT gateways, alarms, secrets,
 * hosted zones, KMS keys), and from its template what bills per request: the agents' door (function
 * URL, or CloudFront and REST), each function's memory, architecture, tracing and metric lines, the
 * log levels (stackFacts). The same requests are also priced on the stack before #21, and the
 * agents' requests through each door.
 *
 * Prints a table per scenario, writes the result as JSON (COST_OUT, default cost.json in the
 * system's temp directory), with COST_WRITE_DOCS=1 regenerates docs/deploy.md's cost section,
 * and ends with the lines `idle: $<n>/month`, `1000 connected hosts: $<n>/month` and
 * `1000 hosts installed: $<n>/month` (333 three-node clusters: one install measured with SIMULATED hosts, see
 * measureInstall, priced for the durations of bench/cost/install-assumptions.json).
 */
import { replaceDocsSection } from './docs-sections.js';
import { AsyncLocalStorage } from 'node:async_hooks';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { APIGatewayProxyResult, Context } from 'aws-lambda';
import { PROJECT_ROOT } from '../lib/assisted-stack.js';
import { createDynamoStore } from '../lambdas/adapters/dynamodb/store.js';
import { keys } from '../lambdas/adapters/dynamodb/keys.js';
import { createS3BlobStore, s3ClientConfig } from '../lambdas/adapters/s3/blobs.js';
import { handler as apiHandler } from '../lambdas/handlers/api/index.js';
import { payloadV2Result } from '../lambdas/handlers/api/request-path.js';
import { handler as hostChangesHandler } from '../lambdas/handlers/streams/host-changes.js';
import { follow, preparationFailed, prepare, publishDns, recordFiles } from '../lambdas/handlers/workflow/installation.js';
import { createLog } from '../agent/src/log.js';
import { Fleet } from '../agent/src/simulate/fleet.js';
import { everyStageTaking } from '../agent/src/simulate/durations.js';
import { loadProfile } from '../agent/src/simulate/profile.js';
import type { Clock } from '../lambdas/ports/clock.js';
import { systemClock } from '../lambdas/ports/clock.js';
import { container, provide } from '../lambdas/platform/container.js';
import { logger } from '../lambdas/platform/observability.js';
import { issueAgentToken } from '../lambdas/usecases/agent-tokens.js';
import { monitorHosts } from '../lambdas/usecases/host-monitor.js';
import { catalogueAgentImages } from '../lambdas/domain/catalogues/catalogues.js';
import { agentClient, eachBounded } from './lifecycle/agents.js';
import { itemSizeBytes, meteredDynamoClient } from './lifecycle/capacity.js';
import { monitorBenchRuntime } from './lifecycle/runtime.js';
import { defaultOpenshiftVersion, inventoryOf, registerCluster, repliesAfterInventory } from './lifecycle/fleet.js';
import { BENCH_PULL_SECRET } from './support/fixtures.js';
import {
  doorComparison,
  followPasses,
  installedMonthly,
  installRequests,
  monthlyBill,
  SECONDS_PER_MONTH,
  total,
  workflowTransitions,
  type Breakdown,
  type Caller,
  type FargatePrices,
  type InstallAssumptions,
  type InstallRequestKind,
  type InstallRun,
  type Prices,
  type RequestCost,
  type StackFacts,
  type TaskFacts,
  type WorkloadLine,
} from './cost/model.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { setting } from './support/settings.js';
import { stackBefore21, stackFacts } from './cost/stack-facts.js';

/** The simulated fleet's network (agent/src/simulate's default, 192.168.111.0/24) and the VIPs in it. */
const FLEET_API_VIP = '192.168.111.5';
const FLEET_INGRESS_VIP = '192.168.111.4';
const FLEET_BASE_DOMAIN = 'example.com';

type Handler = (event: unknown, context: Context) => Promise<unknown>;

/**
 * Step outputs that differ from one run to the next on a healthy host: a connectivity report's
 * round-trip times. Upstream's NTP report names sources and their states only, so it repeats.
 */
const CHANGING_OUTPUTS = new Set(['connectivity-check']);
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

class Recorder {
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
function apiKind(event: { httpMethod?: string; path?: string; body?: string | null; isBase64Encoded?: boolean }): string {
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
function measured(recorder: Recorder, handler: Handler, kindOf: (event: unknown) => string): Handler {
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
function countLogBytes(): () => void {
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

/** A service clock the bench moves by hand: a steady hour of polls takes seconds. */
class SteppedClock implements Clock {
  private offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  advanceTo(at: number): void {
    this.offsetMs = Math.max(this.offsetMs, at - Date.now());
  }
}

interface Measurements {
  costs: Record<string, RequestCost>;
  /** Per known host and hour of the steady phase. */
  perHostHour: Record<string, number>;
  pollSeconds: number;
  hosts: number;
  /** The steady hour's known hosts, the size of their clusters, and the unmeasured hours before it. */
  steady: { hosts: number; clusterSize: number; warmupHours: number };
  /** What one write of a steady host's item bills the table (its size in KB) and each index. */
  hostWrite: { units: Record<string, number> };
  /** The stream batches of one inventory reply, measured alone, by the number of hosts in its cluster: read units per batch, by command. */
  inventoryBatches: { hosts: number; batches: number; readUnits: number; readUnitsByCommand: Record<string, number>; dynamodbCalls: number }[];
}

/** The phase an inventory reply measured alone is recorded in, with the stream batches it causes. */
const inventoryBatchPhase = (hosts: number) => ` (inventory reply, ${hosts} hosts)`;

/**
 * What one write of a host's item bills the table and each index holding a copy (the item put
 * back with a new updatedAt, ReturnConsumedCapacity INDEXES): which part of a host write the
 * indexes' projections are.
 */

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
function provideMeteredPorts(dynamodbEndpoint: string): { close(): void }[] {
  const { meter, s3 } = meteredClients(dynamodbEndpoint);
  provide({
    store: createDynamoStore({ tableName: container().config.tableName, client: meter.client }),
    blobs: createS3BlobStore({ buckets: container().config.buckets, client: s3 }),
  });
  return [{ close: () => meter.client.destroy() }, { close: () => s3.destroy() }];
}

async function hostWriteByIndex(endpoint: string, key: { orgId: string; infraEnvId: string; hostId: string }): Promise<Measurements['hostWrite']> {
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1' });
  try {
    const TableName = container().config.tableName;
    const { Item } = await client.send(new GetItemCommand({ TableName, Key: marshall(keys.host(key)), ConsistentRead: true }));
    if (!Item) throw new Error('the steady host is gone');
    // What the item's billed size is made of (every read of the host pays it in 4 KB units).
    const sizes = Object.entries(Item)
      .map(([name, value]) => [name, itemSizeBytes({ [name]: value })] as const)
      .sort((a, b) => b[1] - a[1]);
    const packed = { ...(Item.packedAttributes?.M ?? {}), ...(Item.packedWithDictionary1?.M ?? {}) };
    const plain = Item.attributes?.M ?? {};
    console.log(
      `a steady host's item: ${itemSizeBytes(Item)} bytes; by attribute: ${sizes.map(([name, bytes]) => `${name} ${bytes}`).join(', ')}; packed: ${Object.entries(
        packed,
      )
        .map(([name, value]) => `${name} ${itemSizeBytes({ [name]: value })}`)
        .join(', ')}; largest plain: ${Object.entries(plain)
        .map(([name, value]) => [name, itemSizeBytes({ [name]: value })] as const)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 8)
        .map(([name, bytes]) => `${name} ${bytes}`)
        .join(', ')}`,
    );
    // An index is billed only where its copy changes: updatedAt moves, as it does with any host write.
    const { ConsumedCapacity } = await client.send(
      new PutItemCommand({ TableName, Item: { ...Item, updatedAt: { S: new Date().toISOString() } }, ReturnConsumedCapacity: 'INDEXES' }),
    );
    const table = ConsumedCapacity?.Table?.CapacityUnits ?? 0;
    const units: Record<string, number> = { total: ConsumedCapacity?.CapacityUnits ?? 0, table };
    const indexes = Object.entries(ConsumedCapacity?.GlobalSecondaryIndexes ?? {});
    for (const [name, consumed] of indexes) units[name] = consumed.CapacityUnits ?? 0;
    // DynamoDB Local names no index: what the table's own copy did not take, the indexes did.
    if (indexes.length === 0) units['indexes together'] = units.total! - table;
    return { units };
  } finally {
    client.destroy();
  }
}

async function measure(): Promise<Measurements> {
  const hostCount = setting('LIFECYCLE_HOSTS', 1_000);
  const sampleCount = Math.min(setting('COST_SAMPLE_HOSTS', 100), hostCount);
  const steadyCount = setting('COST_STEADY_HOSTS', 50);
  const steadyHours = setting('COST_STEADY_HOURS', 1);
  const warmupHours = setting('COST_WARMUP_HOURS', 1);
  const concurrency = 16;
  const neighbours = 8;
  const recorder = new Recorder();
  const clock = new SteppedClock();
  provide({ clock });
  const { runtime, close } = await monitorBenchRuntime('assisted-cost-', {
    apiInstances: 1,
    extraFunctions: {
      Api: measured(recorder, apiHandler as Handler, (event) => apiKind(event as never)) as never,
      HostChanges: measured(recorder, hostChangesHandler as Handler, () => 'stream batch (HostChanges)') as never,
    },
  });
  const restoreOutput = countLogBytes();
  const previousLevel = logger.getLevelName();
  // The deployed functions log at Powertools' default: the stack sets no level.
  logger.setLogLevel('INFO');
  const clients: { close(): void }[] = [];
  try {
    clients.push(...provideMeteredPorts(runtime.endpoints.dynamodb));

    // ---- a monitor pass with nothing to watch (the idle service's every minute)
    recorder.recording = true;
    const monitorPass = (kind: string) =>
      measured(
        recorder,
        () => monitorHosts({ store: container().store, clock }),
        () => kind,
      )({}, {} as Context);
    await monitorPass('monitor pass (idle)');

    const adminToken = readFileSync(runtime.adminTokenFile, 'utf8').trim();
    const user = agentClient(runtime.url, { Authorization: `Bearer ${adminToken}` }, 4);
    clients.push(user);
    const version = await defaultOpenshiftVersion(user);
    const { infraEnvId } = await registerCluster(user, 'cost', version);
    const agentToken = await issueAgentToken(container().config.agentSigningKeyPem, { orgId: runtime.orgId, infraEnvId });
    const agents = agentClient(runtime.url, { 'X-Secret-Key': agentToken }, 64);
    clients.push(agents);
    const hostsRoute = `/infra-envs/${infraEnvId}/hosts`;
    const agentImage = container().config.agent?.image ?? catalogueAgentImages().agent;
    const ids = Array.from({ length: hostCount }, () => crypto.randomUUID());
    /** An agent's poll and reply for the hosts of one infra-env, its clock reading the service's stepped one. */
    const agentCalls = (client: ReturnType<typeof agentClient>, route: string) => ({
      route,
      poll: (hostId: string) => client.call('GET', `${route}/${hostId}/instructions?timestamp=${Math.floor(clock.now().getTime() / 1000)}`),
      reply: async (hostId: string, step_type: string, output: unknown) =>
        (
          await client.call('POST', `${route}/${hostId}/instructions`, {
            step_type,
            step_id: `${step_type}-cost`,
            exit_code: 0,
            output: JSON.stringify(output),
          })
        ).status === 204,
    });
    const { poll, reply } = agentCalls(agents, hostsRoute);
    const discover = async (hostId: string, i: number, aroundInventory?: (send: () => Promise<boolean>) => Promise<boolean>) => {
      // The agent the service hands out: another version would be told to upgrade on every poll.
      let ok = (await agents.call('POST', hostsRoute, { host_id: hostId, discovery_agent_version: agentImage })).status === 201;
      ok = (await poll(hostId)).status === 200 && ok;
      const sendInventory = () => reply(hostId, 'inventory', inventoryOf(i));
      ok = (await (aroundInventory ? aroundInventory(sendInventory) : sendInventory())) && ok;
      for (const r of repliesAfterInventory(i, ids, 'cost', neighbours)) ok = (await reply(hostId, r.step_type, r.output)) && ok;
      return ok;
    };

    const steadyAgents = new Map<string, ReturnType<typeof agentCalls>>();
    const steadyPoll = (hostId: string) => steadyAgents.get(hostId)!.poll(hostId);
    const steadyReply = (hostId: string, step_type: string, output: unknown) => steadyAgents.get(hostId)!.reply(hostId, step_type, output);

    // ---- the cluster's first hosts, not counted; then the sample, one request at a time. On the
    // way, at each of STREAM_BATCH_SIZES, the host that makes the cluster that size sends its
    // inventory alone, with the stream drained before and after: the stream batches that reply
    // causes are priced apart, as 'stream batch (HostChanges) (inventory reply, N hosts)'. Whether
    // reads per change grow with the cluster is read from them (issue #49).
    const bulkCount = hostCount - sampleCount;
    const checkpoints = [
      ...new Set([
        ...(process.env.COST_STREAM_SIZES ?? '10,100')
          .split(',')
          .map(Number)
          .filter((size) => Number.isInteger(size) && size > 0 && size <= bulkCount),
        hostCount,
      ]),
    ].sort((a, b) => a - b);
    const inventoryAlone = (size: number) => async (send: () => Promise<boolean>) => {
      const was = { recording: recorder.recording, phase: recorder.phase };
      await runtime.streams.drained();
      recorder.recording = true;
      recorder.phase = inventoryBatchPhase(size);
      try {
        const ok = await send();
        await runtime.streams.drained();
        return ok;
      } finally {
        recorder.recording = was.recording;
        recorder.phase = was.phase;
      }
    };
    const discoverAt = (hostId: string, i: number) => discover(hostId, i, checkpoints.includes(i + 1) ? inventoryAlone(i + 1) : undefined);
    recorder.recording = false;
    let seededCount = 0;
    for (const size of [...checkpoints.filter((size) => size <= bulkCount), ...(bulkCount > 0 ? [bulkCount] : [])]) {
      // Up to the checkpoint's host, side by side; the checkpoint's host alone.
      const before = ids.slice(seededCount, size - 1);
      const seeded = await eachBounded(before, concurrency, (hostId, i) => discover(hostId, seededCount + i));
      if (seeded.errors) throw new Error(`${seeded.errors} hosts of ${before.length} failed discovery`);
      if (size - 1 >= seededCount && !(await discoverAt(ids[size - 1]!, size - 1))) throw new Error(`host ${size} failed discovery`);
      seededCount = size;
    }
    recorder.recording = true;
    const sample = await eachBounded(ids.slice(bulkCount), 1, (hostId, i) => discoverAt(hostId, bulkCount + i));
    if (sample.errors) throw new Error(`${sample.errors} sampled hosts failed discovery`);
    console.log(`${hostCount} hosts discovered (${sampleCount} of them measured one request at a time)`);
    const inventoryBatches = checkpoints.map((size) => {
      const kind = `stream batch (HostChanges)${inventoryBatchPhase(size)}`;
      const measured = recorder.cost(kind);
      return {
        hosts: size,
        batches: recorder.count(kind),
        readUnits: measured?.readUnits ?? 0,
        readUnitsByCommand: recorder.readUnitsByCommand(kind),
        dynamodbCalls: measured?.dynamodbCalls ?? 0,
      };
    });
    for (const batch of inventoryBatches) {
      const byCommand = Object.entries(batch.readUnitsByCommand)
        .map(([command, units]) => `${command} ${units.toFixed(1)}`)
        .join(', ');
      console.log(
        `stream batch RRU of an inventory reply, ${batch.hosts} hosts in its cluster: ${batch.readUnits.toFixed(1)} RRU (${byCommand || 'no reads'}; ${batch.batches} batch(es), ${batch.dynamodbCalls.toFixed(1)} calls each)`,
      );
    }

    // ---- monitor passes over the whole cluster: the first judges every new host; the cluster then
    // converges (verdicts that wait on peers, the stream's follow-ups of what the passes wrote) for
    // up to COST_CONVERGING_PASSES passes, each priced apart; what every further minute costs is
    // the first pass that writes nothing, the settled one (a connected host's steady state).
    await monitorPass(`monitor pass (${hostCount} hosts, first)`);
    await runtime.streams.drained();
    const convergingPasses = setting('COST_CONVERGING_PASSES', 5);
    for (let pass = 1; pass <= convergingPasses; pass++) {
      const kind = `monitor pass (${hostCount} hosts, converging ${pass})`;
      await monitorPass(kind);
      await runtime.streams.drained();
      const wrote = recorder.cost(kind)?.writeUnits ?? 0;
      console.log(`${kind}: ${(recorder.cost(kind)?.readUnits ?? 0).toFixed(1)} RRU, ${wrote.toFixed(1)} WRU`);
      if (wrote === 0) break;
      if (pass === convergingPasses) console.log(`the cluster had not settled after ${convergingPasses} passes: the next one is priced as every minute's`);
    }
    await monitorPass(`monitor pass (${hostCount} hosts)`);

    // ---- the steady hour's hosts: known hosts of small clusters (a SaaS fleet is mostly SNO and
    // three-node clusters, #22), each host reporting a full mesh. The big cluster's hosts reach 8
    // neighbours each and stay insufficient (no majority group), which is not a connected host's
    // steady state.
    recorder.recording = false;
    const clusterSize = Math.max(1, setting('COST_CLUSTER_HOSTS', 3));
    const steady: string[] = [];
    const steadyReplies = new Map<string, () => { step_type: string; output: unknown }[]>();
    for (let first = 0; first < steadyCount; first += clusterSize) {
      const name = `cost-${first / clusterSize}`;
      const { infraEnvId: envId } = await registerCluster(
        user,
        name,
        version,
        clusterSize === 1 ? { control_plane_count: 1, high_availability_mode: 'None', user_managed_networking: true, api_vips: [], ingress_vips: [] } : {},
      );
      const token = await issueAgentToken(container().config.agentSigningKeyPem, { orgId: runtime.orgId, infraEnvId: envId });
      const client = agentClient(runtime.url, { 'X-Secret-Key': token }, 8);
      clients.push(client);
      // Fleet-wide indexes after the big cluster's: distinct addresses, MACs and names.
      const members: string[] = [];
      for (let i = 0; i < Math.min(clusterSize, steadyCount - first); i++) members[hostCount + first + i] = crypto.randomUUID();
      for (const [index, hostId] of members.entries()) {
        if (hostId === undefined) continue;
        const route = `/infra-envs/${envId}/hosts`;
        const replies = () => repliesAfterInventory(index, members, name, clusterSize - 1);
        steadyReplies.set(hostId, replies);
        steadyAgents.set(hostId, agentCalls(client, route));
        if ((await client.call('POST', route, { host_id: hostId, discovery_agent_version: agentImage })).status !== 201)
          throw new Error('steady registration refused');
        // As an agent does: the first poll (its clock reading) before the inventory.
        if ((await steadyPoll(hostId)).status !== 200) throw new Error('steady first poll refused');
        if (!(await steadyReply(hostId, 'inventory', inventoryOf(index)))) throw new Error('steady inventory refused');
        steady.push(hostId);
      }
      for (const hostId of steady.slice(first)) for (const r of steadyReplies.get(hostId)!()) await steadyReply(hostId, r.step_type, r.output);
    }
    // Two rounds of polls and answers: verdicts that wait on peers settle.
    for (let round = 0; round < 2; round++) {
      for (const hostId of steady) {
        const steps = JSON.parse((await steadyPoll(hostId)).body) as { instructions?: { step_type: string }[] };
        for (const { step_type } of steps.instructions ?? []) {
          const answer = steadyReplies.get(hostId)!().find((r) => r.step_type === step_type);
          if (answer) await steadyReply(hostId, step_type, answer.output);
        }
      }
    }
    const statuses: Record<string, number> = {};
    let notKnown: string | undefined;
    for (const hostId of steady) {
      const view = JSON.parse((await user.call('GET', `${steadyAgents.get(hostId)!.route}/${hostId}`)).body) as { status?: string; validations_info?: string };
      const status = view.status ?? '?';
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (status !== 'known' && !notKnown) {
        const failing = Object.values(JSON.parse(view.validations_info ?? '{}') as Record<string, { id: string; status: string; message: string }[]>)
          .flat()
          .filter((v) => v.status !== 'success' && v.status !== 'disabled');
        notKnown = `${status}: ${failing.map((v) => `${v.id} (${v.status}: ${v.message})`).join('; ')}`;
      }
    }
    // The figures below are a known host's only when the hosts are known: say why not.
    if (notKnown) console.log(`a steady host is ${notKnown}`);
    console.log(
      `steady hosts (${steady.length}, clusters of ${clusterSize}): ${Object.entries(statuses)
        .map(([status, n]) => `${n} ${status}`)
        .join(', ')}`,
    );

    // ---- steady hours of those hosts, on the stepped clock
    const due = new Map(steady.map((id, i) => [id, clock.now().getTime() + (i / steady.length) * 60_000]));
    const handed: Record<string, number> = {};
    const pollSeconds: number[] = [];
    let turn = 0;
    const runFor = async (hours: number) => {
      const end = clock.now().getTime() + hours * 3_600_000;
      for (;;) {
        const [hostId, at] = [...due].reduce((a, b) => (b[1] < a[1] ? b : a));
        if (at >= end) break;
        clock.advanceTo(at);
        const answer = await steadyPoll(hostId);
        if (answer.status !== 200) throw new Error(`steady poll: ${answer.status} ${answer.body}`);
        const steps = JSON.parse(answer.body) as { next_instruction_seconds?: number; instructions?: { step_type: string }[] };
        const seconds = steps.next_instruction_seconds ?? 60;
        if (recorder.recording) pollSeconds.push(seconds);
        due.set(hostId, at + seconds * 1000);
        for (const { step_type } of steps.instructions ?? []) {
          if (recorder.recording) handed[step_type] = (handed[step_type] ?? 0) + 1;
          if (!CHANGING_OUTPUTS.has(step_type)) continue;
          // A healthy host's report again, with the figures that move between runs moved.
          const wobble = (turn++ % 7) / 10;
          const report = steadyReplies.get(hostId)!().find((r) => r.step_type === step_type)!.output;
          const output = JSON.parse(JSON.stringify(report).replaceAll('"average_rtt_ms":0.4', `"average_rtt_ms":${0.4 + wobble}`));
          if (!(await steadyReply(hostId, step_type, output))) throw new Error(`steady ${step_type} reply refused`);
        }
      }
      // What the stream still delivers for these hours' writes.
      await sleep(2_000);
    };
    // Unmeasured first: what a host writes every so many minutes (its stored connectivity figures)
    // is then as likely at any time of the measured hours as on a host connected for days, rather
    // than all at once after the settling rounds.
    await runFor(warmupHours);
    recorder.recording = true;
    recorder.phase = ' (steady)';
    await runFor(steadyHours);
    const hostWrite = await hostWriteByIndex(runtime.endpoints.dynamodb, {
      orgId: runtime.orgId,
      infraEnvId: steadyAgents.get(steady[0]!)!.route.split('/')[2]!,
      hostId: steady[0]!,
    });
    console.log(
      `one write of a steady host's item: ${Object.entries(hostWrite.units)
        .map(([name, units]) => `${name} ${units}`)
        .join(', ')} WRU`,
    );
    const hostHours = steadyCount * steadyHours;
    // Everything the hour's hosts asked for, each kind priced by its own measurements.
    const perHostHour = Object.fromEntries(
      recorder
        .kinds()
        .filter((kind) => kind.endsWith(recorder.phase))
        .map((kind) => [kind, recorder.count(kind) / hostHours]),
    );
    console.log(
      `steady hour of ${steadyCount} known hosts: steps handed per host-hour: ${Object.entries(handed)
        .map(([type, n]) => `${type} ${(n / hostHours).toFixed(1)}`)
        .join(', ')}`,
    );
    // Which reads a steady request's units are (what a connected host costs every minute).
    for (const kind of Object.keys(perHostHour)) {
      const byCommand = Object.entries(recorder.readUnitsByCommand(kind))
        .map(([command, units]) => `${command} ${units.toFixed(2)}`)
        .join(', ');
      console.log(`${kind}: RRU by command: ${byCommand || 'no reads'}`);
    }
    recorder.recording = false;
    const costs = Object.fromEntries(recorder.kinds().map((kind) => [kind, recorder.cost(kind)!]));
    pollSeconds.sort((a, b) => a - b);
    return {
      costs,
      perHostHour,
      pollSeconds: pollSeconds[pollSeconds.length >> 1] ?? 60,
      hosts: hostCount,
      steady: { hosts: steadyCount, clusterSize, warmupHours },
      hostWrite,
      inventoryBatches,
    };
  } finally {
    logger.setLogLevel(previousLevel as never);
    restoreOutput();
    for (const client of clients) client.close();
    await close();
    provide({ clock: systemClock });
  }
}

/**
 * The kind of a request during the measured install: the bench's observer (excluded), a person's
 * (bearer token: the install's user actions), an agent's step traffic as apiKind names it, or
 * another call of the agents' installer and controller by method and route.
 */
function installKind(event: {
  httpMethod?: string;
  path?: string;
  headers?: Record<string, string> | null;
  queryStringParameters?: Record<string, string> | null;
  body?: string | null;
  isBase64Encoded?: boolean;
}): string {
  const headers = Object.fromEntries(Object.entries(event.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
  if (headers[OBSERVER_HEADER]) return 'observer';
  const route = (event.path ?? '').replace(/^\/api\/assisted-install/, '').replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '{id}');
  const file = event.queryStringParameters?.file_name ? `?file_name=${event.queryStringParameters.file_name}` : '';
  if (headers.authorization) return `user ${event.httpMethod} ${route}${file}`;
  const kind = apiKind(event);
  return kind === 'other API call' ? `agent ${event.httpMethod} ${route}${file}` : kind;
}

const OBSERVER_HEADER = 'x-bench-observer';
const INSTALL_FUNCTIONS = {
  InstallPrepare: prepare,
  InstallRecordFiles: recordFiles,
  InstallPreparationFailed: preparationFailed,
  InstallPublishDns: publishDns,
  InstallFollow: follow,
};

/**
 * S3 requests by price class as the local S3 server answered them: those signed in a header (the
 * functions' and the installer task's SDK calls) apart from those made with a pre-signed URL (a
 * host or a person downloading), and the bytes the latter were sent.
 */
function countS3Server(port: number) {
  const state = { signed: { puts: 0, gets: 0 }, presigned: { gets: 0, bytes: 0 }, counting: false, restore: (): void => undefined };
  const original = http.Server.prototype.emit;
  http.Server.prototype.emit = function (this: http.Server, event: string, ...args: unknown[]) {
    if (event === 'request' && state.counting && (this.address() as AddressInfo | null)?.port === port) {
      const [request, response] = args as [http.IncomingMessage, http.ServerResponse];
      const url = new URL(request.url ?? '/', 'http://s3');
      if (url.searchParams.has('X-Amz-Signature')) {
        state.presigned.gets += 1;
        response.on('finish', () => (state.presigned.bytes += Number(response.getHeader('content-length') ?? 0)));
      } else {
        const listing = url.searchParams.has('list-type') || url.pathname.split('/').filter(Boolean).length <= 1;
        if (request.method === 'GET' || request.method === 'HEAD') state.signed[listing ? 'puts' : 'gets'] += 1;
        else if ((request.method === 'PUT' || request.method === 'POST') && !url.searchParams.has('delete')) state.signed.puts += 1;
      }
    }
    return original.apply(this, [event, ...args] as never);
  } as typeof original;
  state.restore = () => {
    http.Server.prototype.emit = original;
  };
  return state;
}

export interface InstallMeasurement {
  run: InstallRun;
  /** The simulated install: wall seconds from the fleet's start to `installed`, polls the agents made, the workflow's states in order. */
  simulated: {
    seconds: number;
    polls: number;
    hosts: number;
    workflowHistory: string[];
    serverS3: { puts: number; gets: number };
    functionsS3: { puts: number; gets: number };
    presigned: { gets: number; bytes: number };
  };
}

/**
 * One three-node cluster's life from creation to `installed`, through the local runtime with a
 * fleet of SIMULATED agents (agent/src/simulate: the agent protocol, the simulated installer's
 * progress reports, the simulated controller's calls): every Api, HostChanges and install
 * workflow invocation counted as the connected scenario counts them (the workflow's functions run
 * in this thread), the workflow's states read from the Step Functions stand-in's execution record
 * (it persists each state entered; it has no GetExecutionHistory), and the S3 requests the
 * installer task made as those the local S3 server answered less those the functions made.
 */
export async function measureInstall(): Promise<InstallMeasurement> {
  const recorder = new Recorder();
  const previousPoll = process.env.INSTALL_POLL_SECONDS;
  // The workflow re-judges the simulated install every second; a real one's passes are counted from installMinutes.
  process.env.INSTALL_POLL_SECONDS = '1';
  const extraFunctions: Record<string, Handler> = {
    Api: measured(recorder, apiHandler as Handler, (event) => installKind(event as never)),
    HostChanges: measured(recorder, hostChangesHandler as Handler, () => 'stream batch (HostChanges)'),
  };
  for (const [name, handler] of Object.entries(INSTALL_FUNCTIONS)) extraFunctions[name] = measured(recorder, handler as Handler, () => `workflow ${name}`);
  // The connected scenario's metered store and blobs point at its stopped runtime: this runtime's own, until the metered ones below.
  provide({ store: undefined, blobs: undefined, clock: systemClock });
  const { runtime, close } = await monitorBenchRuntime('assisted-cost-install-', {
    baseDomains: [FLEET_BASE_DOMAIN],
    apiInstances: 1,
    extraFunctions: extraFunctions as never,
  });
  const s3Server = countS3Server(Number(new URL(runtime.endpoints.s3).port));
  const restoreOutput = countLogBytes();
  const previousLevel = logger.getLevelName();
  logger.setLogLevel('INFO');
  const clients: { close(): void }[] = [];
  let stopFleet: (() => Promise<void>) | undefined;
  const fleetLines: string[] = [];
  try {
    clients.push(...provideMeteredPorts(runtime.endpoints.dynamodb));

    const adminToken = readFileSync(runtime.adminTokenFile, 'utf8').trim();
    const user = agentClient(runtime.url, { Authorization: `Bearer ${adminToken}` }, 2);
    const observer = agentClient(runtime.url, { Authorization: `Bearer ${adminToken}`, [OBSERVER_HEADER]: '1' }, 2);
    clients.push(user, observer);
    const version = await defaultOpenshiftVersion(observer);

    // Not counted: the release's base ISO, made once (imported in AWS; the SYNTHETIC one is built here on first use).
    const warmEnv = await observer.call('POST', '/infra-envs', {
      name: 'cost-warm',
      pull_secret: BENCH_PULL_SECRET,
      openshift_version: version,
      cpu_architecture: 'x86_64',
    });
    if (warmEnv.status !== 201) throw new Error(`warm-up infra-env: ${warmEnv.status} ${warmEnv.body}`);
    await observer.call('GET', `/infra-envs/${(JSON.parse(warmEnv.body) as { id: string }).id}/downloads/image-url`);

    // ---- counted from here: the user's actions, the agents, the workflow, the stream
    recorder.recording = true;
    s3Server.counting = true;
    const { clusterId, infraEnvId } = await registerCluster(user, 'cost-install', version, {
      base_dns_domain: FLEET_BASE_DOMAIN,
      api_vips: [{ ip: FLEET_API_VIP }],
      ingress_vips: [{ ip: FLEET_INGRESS_VIP }],
      additional_ntp_source: undefined,
    });
    // The user asks for the discovery image's URL once (the download itself is priced from install-assumptions.json).
    const imageUrl = await user.call('GET', `/infra-envs/${infraEnvId}/downloads/image-url`);
    if (imageUrl.status !== 200) throw new Error(`image url: ${imageUrl.status} ${imageUrl.body}`);
    const token = await issueAgentToken(container().config.agentSigningKeyPem, { orgId: runtime.orgId, infraEnvId });
    const started = performance.now();
    const stageMs = 150;
    const fleet = new Fleet({
      url: runtime.url,
      infraEnvId,
      token,
      agentVersion: container().config.agent?.image ?? catalogueAgentImages().agent,
      profiles: ['master', 'master', 'master'].map((name) => loadProfile(name)),
      staggerMs: 20,
      timing: { maxPollIntervalMs: 1_000 },
      installDurationsMs: everyStageTaking(stageMs),
      log: createLog({ level: 'info', sink: (line) => fleetLines.push(line) }),
    });
    const stop = new AbortController();
    const running = fleet.run(stop.signal);
    stopFleet = async () => {
      stop.abort();
      await running.catch(() => undefined);
    };
    const statusOf = async () => JSON.parse((await observer.call('GET', `/clusters/${clusterId}`)).body) as { status: string; status_info?: string };
    const waitFor = async (wanted: (status: string) => boolean, seconds: number) => {
      const deadline = Date.now() + seconds * 1000;
      for (;;) {
        const cluster = await statusOf();
        if (wanted(cluster.status)) return cluster;
        if (Date.now() > deadline)
          throw new Error(
            `the measured install is ${cluster.status} (${cluster.status_info}) after ${seconds} s; the fleet's last lines:\n${fleetLines.slice(-5).join('\n')}`,
          );
        await sleep(500);
      }
    };
    await waitFor((status) => status === 'ready', 120);
    const install = await user.call('POST', `/clusters/${clusterId}/actions/install`);
    if (install.status !== 202) throw new Error(`install: ${install.status} ${install.body}`);
    const ended = await waitFor((status) => ['installed', 'error', 'cancelled'].includes(status), 240);
    if (ended.status !== 'installed') throw new Error(`the measured install ended ${ended.status}: ${ended.status_info}`);
    const seconds = (performance.now() - started) / 1000;
    const kubeconfig = await user.call('GET', `/clusters/${clusterId}/downloads/credentials?file_name=kubeconfig`);
    if (kubeconfig.status !== 200) throw new Error(`kubeconfig: ${kubeconfig.status}`);
    // The workflow's last pass sees the cluster installed and ends.
    const executions = path.join(runtime.dataDir, 'stepfunctions');
    const record = async () => {
      for (let i = 0; i < 60; i++) {
        const records = readdirSync(executions)
          .filter((name) => name.endsWith('.json'))
          .map(
            (name) =>
              JSON.parse(readFileSync(path.join(executions, name), 'utf8')) as { stateMachineArn: string; status: string; history: { state: string }[] },
          );
        const installs = records.filter((r) => r.stateMachineArn.endsWith(':install-cluster'));
        if (installs.length > 0 && installs.every((r) => r.status !== 'RUNNING')) return installs;
        await sleep(500);
      }
      throw new Error('the install workflow did not end');
    };
    const installs = await record();
    await stopFleet();
    stopFleet = undefined;
    // What the stream still delivers for the install's last writes.
    await sleep(2_000);
    recorder.recording = false;
    s3Server.counting = false;

    const kinds: InstallRequestKind[] = recorder
      .kinds()
      .filter((kind) => kind !== 'observer')
      .map((kind) => ({
        label: kind,
        caller: kind.startsWith('user ') ? 'user' : kind.startsWith('workflow ') ? 'workflow' : kind.startsWith('stream batch') ? 'stream' : 'agent',
        cost: recorder.cost(kind)!,
        measuredCount: recorder.count(kind),
        drivenBy: kind === 'poll' ? 'agent-poll' : kind === 'workflow InstallFollow' ? 'follow' : 'event',
      }));
    const functionsS3 = kinds.reduce(
      (sum, kind) => ({ puts: sum.puts + kind.cost.s3Puts * kind.measuredCount, gets: sum.gets + kind.cost.s3Gets * kind.measuredCount }),
      { puts: 0, gets: 0 },
    );
    // The stand-in records a state as it is entered, but the run can end before the last one (Finished) is recorded: AWS counts it.
    const history = installs.flatMap((r) => [
      ...r.history.map((entry) => entry.state),
      ...(r.status === 'SUCCEEDED' && r.history.at(-1)?.state !== 'Finished' ? ['Finished'] : []),
    ]);
    return {
      run: {
        kinds,
        workflowStates: history.length,
        workflowFollows: history.filter((state) => state === 'Follow').length,
        taskS3Puts: Math.max(0, Math.round(s3Server.signed.puts - functionsS3.puts)),
        taskS3Gets: Math.max(0, Math.round(s3Server.signed.gets - functionsS3.gets)),
        downloadS3Gets: s3Server.presigned.gets,
        downloadBytes: s3Server.presigned.bytes,
      },
      simulated: {
        seconds,
        polls: fleet.metrics.polls,
        hosts: 3,
        workflowHistory: history,
        serverS3: { ...s3Server.signed },
        functionsS3,
        presigned: { ...s3Server.presigned },
      },
    };
  } finally {
    await stopFleet?.();
    logger.setLogLevel(previousLevel as never);
    restoreOutput();
    s3Server.restore();
    for (const client of clients) client.close();
    await close();
    provide({ store: undefined, blobs: undefined });
    if (previousPoll === undefined) delete process.env.INSTALL_POLL_SECONDS;
    else process.env.INSTALL_POLL_SECONDS = previousPoll;
  }
}

const dollars = (value: number) => (value >= 100 ? `$${value.toFixed(0)}` : value >= 1 ? `$${value.toFixed(2)}` : `$${value.toFixed(3)}`);

function printCosts(costs: Record<string, RequestCost>, prices: Prices): void {
  console.log(
    `\n${'per request (measured)'.padEnd(38)}${'n'.padStart(6)}${'RRU'.padStart(8)}${'WRU'.padStart(8)}${'calls'.padStart(7)}${'S3'.padStart(5)}${'log B'.padStart(8)}${'resp B'.padStart(8)}${'gzip B'.padStart(8)}${'own ms'.padStart(8)}${'billed ms'.padStart(10)}`,
  );
  for (const [kind, cost] of Object.entries(costs)) {
    const waiting = cost.dynamodbCalls * prices.assumedAwsLatencyMs.dynamodbCall + (cost.s3Puts + cost.s3Gets) * prices.assumedAwsLatencyMs.s3Call;
    console.log(
      `${kind.padEnd(38)}${String(cost.measured).padStart(6)}${cost.readUnits.toFixed(1).padStart(8)}${cost.writeUnits.toFixed(1).padStart(8)}${cost.dynamodbCalls.toFixed(1).padStart(7)}${(cost.s3Puts + cost.s3Gets).toFixed(1).padStart(5)}${cost.logBytes.toFixed(0).padStart(8)}${cost.responseBytes.toFixed(0).padStart(8)}${(cost.gzippedResponseBytes ?? cost.responseBytes).toFixed(0).padStart(8)}${cost.handlerMs.toFixed(1).padStart(8)}${Math.ceil(
        cost.handlerMs + waiting,
      )
        .toString()
        .padStart(10)}`,
    );
  }
}

/** Who makes a kind of request: the stream and the monitor are internal, the rest of the API's requests an agent's unless counted as a person's. */
function callerOf(kind: string): Caller {
  if (kind.startsWith('stream batch')) return 'stream';
  if (kind.startsWith('monitor pass')) return 'monitor';
  return kind.startsWith('other API call') ? 'user' : 'agent';
}

function bills(measurements: Measurements, stack: StackFacts, prices: Prices) {
  const { costs, perHostHour } = measurements;
  const minutesPerMonth = SECONDS_PER_MONTH / 60;
  // The host monitor runs every minute whatever the load; scheduled through EventBridge.
  const idle: WorkloadLine[] = [{ label: 'monitor passes', perMonth: minutesPerMonth, cost: costs['monitor pass (idle)']!, caller: 'monitor' }];
  const hostHours = 1_000 * 730;
  const connected: WorkloadLine[] = [
    { label: 'monitor passes', perMonth: minutesPerMonth, cost: costs[`monitor pass (${measurements.hosts} hosts)`]!, caller: 'monitor' },
    ...Object.entries(perHostHour)
      .filter(([kind, n]) => n > 0 && costs[kind])
      .map(([kind, n]) => ({ label: kind, perMonth: n * hostHours, cost: costs[kind]!, caller: callerOf(kind) })),
  ];
  return {
    idle: { lines: idle, bill: monthlyBill(idle, stack, prices, minutesPerMonth) },
    connected: { lines: connected, bill: monthlyBill(connected, stack, prices, minutesPerMonth) },
  };
}

function billTable(scenarios: Record<string, Breakdown>): string {
  const names = Object.keys(scenarios);
  const components = [...new Set(names.flatMap((name) => Object.keys(scenarios[name]!)))];
  const rows = components.map((component) => `| ${component} | ${names.map((name) => dollars(scenarios[name]![component] ?? 0)).join(' | ')} |`);
  return [
    `| component | ${names.join(' | ')} |`,
    `|---|${names.map(() => '---|').join('')}`,
    ...rows,
    `| **total** | ${names.map((name) => `**${dollars(total(scenarios[name]!))}**`).join(' | ')} |`,
  ].join('\n');
}

/** The install workflow re-judges an installing cluster every INSTALL_POLL_SECONDS: the stack sets none, so the handlers' default. */
const DEPLOYED_INSTALL_POLL_SECONDS = 30;

/** What one install's figures rest on, as sentences for the output and the docs. */
function installAssumptionLines(a: InstallAssumptions, task: TaskFacts, pollSeconds: number, install: InstallMeasurement): string[] {
  const { run, simulated } = install;
  const follows = followPasses(a, DEPLOYED_INSTALL_POLL_SECONDS);
  return [
    `${a.clustersPerMonth} three-node clusters a month (${a.clustersPerMonth * a.hostsPerCluster} hosts), each priced as one measured install of ${a.hostsPerCluster} SIMULATED hosts (agent/src/simulate: its installer and controller report every stage; ${simulated.seconds.toFixed(0)} s from the fleet's start to installed here) on top of the idle service; installed hosts stop polling, so no connected hours after.`,
    `Agent polls: ${a.hostsPerCluster} hosts x ${a.agentPollingMinutesPerHost} min from boot to their reboot (assumed) at the service's ${pollSeconds} s interval = ${Math.round(installRequests({ drivenBy: 'agent-poll' } as InstallRequestKind, a, pollSeconds, DEPLOYED_INSTALL_POLL_SECONDS))} polls, each at the measured cost of the simulated install's polls (${simulated.polls} made at the fleet's 1 s cap).`,
    `Install workflow: openshift-install's real install assumed ${a.installMinutes} min from the installer task's end to installed (not the simulation's seconds), re-judged every ${DEPLOYED_INSTALL_POLL_SECONDS} s: ${follows} Follow passes; states entered ${workflowTransitions(run.workflowStates, run.workflowFollows, follows)} (measured ${run.workflowStates} with ${run.workflowFollows} passes, 3 states a pass).`,
    `Installer task: ${a.installerTaskMinutes} min assumed (image pull and openshift-install create ignition-configs) at the task definition's ${task.vcpu} vCPU, ${task.memoryGb} GB, ${task.architecture}; its S3 requests measured: ${run.taskS3Puts} PUT/LIST, ${run.taskS3Gets} GET (the local S3 server answered ${simulated.serverS3.puts} + ${simulated.serverS3.gets} signed requests, the functions made ${simulated.functionsS3.puts.toFixed(0)} + ${simulated.functionsS3.gets.toFixed(0)}); downloads through pre-signed URLs measured: ${run.downloadS3Gets} GET, ${run.downloadBytes} bytes.`,
    `Discovery ISO: ${(a.isoBytes / 1e9).toFixed(1)} GB, downloaded ${a.isoDownloadsPerCluster} times a cluster (once per host) from S3: one GET each and the bytes out at the data transfer rate (assumed). Ignition files and the kubeconfig are measured API answers (their bytes out through the door).`,
    `Installer progress reports and the controller's calls are counted as the simulation makes them (one report per stage; the controller's waits are short, so a real controller's repeated status reads are not all there). Monitor passes are priced as idle's. Route53 record changes are free.`,
  ];
}

function installKindsTable(install: InstallMeasurement, a: InstallAssumptions, pollSeconds: number): string {
  const rows = install.run.kinds.map(
    (kind) =>
      `| ${kind.label} | ${kind.caller} | ${kind.measuredCount} | ${Math.round(installRequests(kind, a, pollSeconds, DEPLOYED_INSTALL_POLL_SECONDS))} | ${kind.cost.readUnits.toFixed(1)} | ${kind.cost.writeUnits.toFixed(1)} | ${(kind.cost.s3Puts + kind.cost.s3Gets).toFixed(1)} | ${kind.cost.responseBytes.toFixed(0)} | ${kind.cost.handlerMs.toFixed(1)} |`,
  );
  return [
    '| request (one install) | caller | simulated | real install | RRU | WRU | S3 | resp B | own ms |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

const DOCS_BEGIN = '<!-- cost:begin (generated by `COST_WRITE_DOCS=1 npm run bench -- cost`) -->';
const DOCS_END = '<!-- cost:end -->';

export async function cost(): Promise<Record<string, unknown>> {
  const prices = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'bench', 'cost', 'prices.json'), 'utf8')) as Prices & {
    asOf: string;
    region: string;
    fargate: FargatePrices;
  };
  const assumptions = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'bench', 'cost', 'install-assumptions.json'), 'utf8')) as InstallAssumptions;
  const stack = stackFacts();
  const sizing = Object.entries(stack.functions)
    .map(([caller, fn]) => `${caller} ${fn.memoryMb} MB ${fn.architecture} ${fn.tracing}${fn.publishesMetrics ? '' : ' no metric lines'}`)
    .join(', ');
  console.log(
    `staging stack: ${stack.natGateways} NAT gateway(s), ${stack.alarms} alarms, ${stack.secrets} secret(s), ${stack.hostedZones} hosted zone(s), ${stack.kmsKeys} KMS key(s); agents via ${stack.agentDoor}; logs at ${stack.logLevel}${stack.platformLogLines ? ' with' : ' without'} Lambda's platform lines; functions: ${sizing}`,
  );
  const measurements = await measure();
  printCosts(measurements.costs, prices);
  const { idle, connected } = bills(measurements, stack, prices);
  if (!stack.installerTask) throw new Error('the staging stack has no installer task definition');
  const install = await measureInstall();
  const installed = installedMonthly(idle.lines, install.run, assumptions, stack, stack.installerTask, prices, {
    pollSeconds: measurements.pollSeconds,
    installPollSeconds: DEPLOYED_INSTALL_POLL_SECONDS,
    schedulerInvocationsPerMonth: SECONDS_PER_MONTH / 60,
  });
  const installNotes = installAssumptionLines(assumptions, stack.installerTask, measurements.pollSeconds, install);
  const installTable = installKindsTable(install, assumptions, measurements.pollSeconds);
  const perInstallTable = billTable({ 'one three-node install': installed.perInstall });
  console.log(
    `\none three-node cluster from creation to installed (workflow states: ${install.simulated.workflowHistory.join(' > ')}):\n${installTable}\n\n${perInstallTable}\n\nassumed:\n${installNotes.map((line) => `- ${line}`).join('\n')}`,
  );
  const perHost = Object.entries(measurements.perHostHour)
    .map(([kind, n]) => `${kind} ${n.toFixed(1)}`)
    .join(', ');
  console.log(`\nper connected host and hour (steady, next_instruction_seconds ${measurements.pollSeconds}): ${perHost}`);
  const table = billTable({ idle: idle.bill, '1,000 connected hosts': connected.bill, '1,000 hosts installed': installed.bill });
  console.log(`\nmonthly, ${prices.region} list prices (${prices.asOf}, bench/cost/prices.json):\n${table}`);
  const before = bills(measurements, stackBefore21(stack), prices);
  console.log(
    `\nthe same requests on the stack before #21 (NAT gateway, agents through CloudFront and REST, 1,024 MB, traced, INFO):\n${billTable({ idle: before.idle.bill, '1,000 connected hosts': before.connected.bill })}`,
  );
  const doors = doorComparison(connected.lines, stack, prices);
  const doorsTable = billTable(doors);
  console.log(`\nthe agents' requests of 1,000 connected hosts through each door (door charges and Lambda only):\n${doorsTable}`);
  const result = {
    prices: { region: prices.region, asOf: prices.asOf },
    stack,
    ...measurements,
    scenarios: { idle, connected, installed: { ...installed, assumptions, run: install.run, simulated: install.simulated } },
    before21: { idle: before.idle.bill, connected: before.connected.bill },
    doors,
  };
  const out = process.env.COST_OUT ?? path.join(tmpdir(), 'cost.json');
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`\nresult written to ${out}`);
  if (process.env.COST_WRITE_DOCS === '1') {
    const section = `${DOCS_BEGIN}\nRegistration, first replies and monitor passes measured in one cluster of ${measurements.hosts} hosts (LIFECYCLE_HOSTS); the steady hour on ${measurements.steady.hosts} known hosts in clusters of ${measurements.steady.clusterSize} (COST_STEADY_HOSTS, COST_CLUSTER_HOSTS), after ${measurements.steady.warmupHours} unmeasured hour(s) of the same (COST_WARMUP_HOURS); priced as 1,000 connected hosts. 1,000 hosts installed is ${assumptions.clustersPerMonth} three-node clusters a month, each one measured install (below) on top of the idle service.\n\n${table}\n\nMeasured per request (averages; "own ms" is the handler's time less its waits on the local stores, "billed ms" adds ${prices.assumedAwsLatencyMs.dynamodbCall} ms per DynamoDB call and ${prices.assumedAwsLatencyMs.s3Call} ms per S3 call):\n\n| request | RRU | WRU | DynamoDB calls | S3 requests | log bytes | own ms |\n|---|---|---|---|---|---|---|\n${Object.entries(
      measurements.costs,
    )
      .map(
        ([kind, c]) =>
          `| ${kind} | ${c.readUnits.toFixed(1)} | ${c.writeUnits.toFixed(1)} | ${c.dynamodbCalls.toFixed(1)} | ${(c.s3Puts + c.s3Gets).toFixed(1)} | ${c.logBytes.toFixed(0)} | ${c.handlerMs.toFixed(1)} |`,
      )
      .join(
        '\n',
      )}\n\nPer connected host and hour: ${perHost} (the service's poll interval for a known host: ${measurements.pollSeconds} s).\n\nOne three-node cluster from creation to installed, measured with SIMULATED hosts through the local runtime and priced for a real install's durations (1,000 hosts installed = idle + ${assumptions.clustersPerMonth} of these):\n\n${perInstallTable}\n\n${installTable}\n\nAssumed (bench/cost/install-assumptions.json):\n\n${installNotes.map((line) => `- ${line}`).join('\n')}\n\nThe agents' requests of 1,000 connected hosts through each door (the door's charges and the Lambda time):\n\n${doorsTable}\n\nThe same requests on the stack before #21 (a NAT gateway, agents through CloudFront and REST, every function 1,024 MB and traced, INFO logs with Lambda's platform lines):\n\n${billTable({ idle: before.idle.bill, '1,000 connected hosts': before.connected.bill })}\n${DOCS_END}`;
    replaceDocsSection(path.join(PROJECT_ROOT, 'docs', 'deploy.md'), DOCS_BEGIN, DOCS_END, section);
    console.log('docs/deploy.md cost section regenerated');
  }
  console.log(
    `\nbefore #21's stack changes: idle ${dollars(total(before.idle.bill))}/month, 1000 connected hosts ${dollars(total(before.connected.bill))}/month`,
  );
  console.log(`\nidle: ${dollars(total(idle.bill))}/month`);
  console.log(`1000 connected hosts: ${dollars(total(connected.bill))}/month`);
  console.log(`1000 hosts installed: ${dollars(total(installed.bill))}/month`);
  return result;
}
