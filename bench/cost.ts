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
 * - a host-monitor pass with no host active, and one over the 1,000 hosts;
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
 * `1000 hosts installed: …`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { marshall } from '@aws-sdk/util-dynamodb';
import { App } from 'aws-cdk-lib';
import type { APIGatewayProxyResult, Context } from 'aws-lambda';
import { startRuntime } from '../bin/local/runtime.js';
import { AGENT_API_FUNCTION, AssistedStack, PROJECT_ROOT, REST_API_FUNCTION } from '../lib/assisted-stack.js';
import { stageConfigFromContext } from '../lib/stage-config.js';
import { createDynamoStore } from '../lambdas/adapters/dynamodb/store.js';
import { keys } from '../lambdas/adapters/dynamodb/keys.js';
import { createS3BlobStore, s3ClientConfig } from '../lambdas/adapters/s3/blobs.js';
import { handler as apiHandler } from '../lambdas/handlers/api/index.js';
import { payloadV2Result } from '../lambdas/handlers/api/request-path.js';
import { handler as hostChangesHandler } from '../lambdas/handlers/streams/host-changes.js';
import type { Clock } from '../lambdas/ports/clock.js';
import { systemClock } from '../lambdas/ports/clock.js';
import { container, provide } from '../lambdas/platform/container.js';
import { logger } from '../lambdas/platform/observability.js';
import { issueAgentToken } from '../lambdas/usecases/agent-tokens.js';
import { monitorHosts } from '../lambdas/usecases/host-monitor.js';
import { catalogueAgentImages } from '../lambdas/domain/agent-protocol.js';
import { agentClient, eachBounded } from './lifecycle/agents.js';
import { meteredDynamoClient } from './lifecycle/capacity.js';
import { API_VIP, BASE_DOMAIN, INGRESS_VIP, inventoryOf, repliesAfterInventory } from './lifecycle/fleet.js';
import { doorComparison, monthlyBill, SECONDS_PER_MONTH, total, type Breakdown, type Caller, type FunctionFacts, type Prices, type RequestCost, type StackFacts, type WorkloadLine } from './cost/model.js';

type Handler = (event: unknown, context: Context) => Promise<unknown>;

const setting = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const PULL_SECRET = JSON.stringify({ auths: { 'cloud.openshift.com': { auth: Buffer.from('bench:bench').toString('base64') } } });
/**
 * Step outputs that differ from one run to the next on a healthy host: a connectivity report's
 * round-trip times. Upstream's NTP report names sources and their states only, so it repeats.
 */
const CHANGING_OUTPUTS = new Set(['connectivity-check']);
/** S3 requests billed at the PUT price (writes and listings); the rest at the GET price. */
const S3_PUT_CLASS = /^(Put|Copy|CreateMultipartUpload|UploadPart|CompleteMultipartUpload|List)/;

/** What one invocation asked for, as it runs (the AsyncLocalStorage store). */
interface Tally extends Pick<RequestCost, 'readUnits' | 'writeUnits' | 'dynamodbCalls' | 's3Puts' | 's3Gets' | 'logBytes'>, Required<Pick<RequestCost, 'infoLogBytes' | 'metricLogBytes'>> {
  kind: string;
  /** When each DynamoDB or S3 call of the invocation was in flight (performance.now() intervals). */
  waits: [number, number][];
}

/** Sums per kind of request; `RequestCost` is their average. */
interface Sums extends Omit<Tally, 'kind' | 'waits'> {
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
  recording = false;
  /** Appended to the kinds recorded from now on: the steady hour's requests are priced apart from the discovery's. */
  phase = '';

  add(tally: Tally, wallMs: number, responseBytes: number, gzippedResponseBytes: number): void {
    if (!this.recording) return;
    const kind = tally.kind + this.phase;
    let sums = this.sums.get(kind);
    if (!sums) this.sums.set(kind, (sums = { measured: 0, readUnits: 0, writeUnits: 0, dynamodbCalls: 0, s3Puts: 0, s3Gets: 0, logBytes: 0, infoLogBytes: 0, metricLogBytes: 0, responseBytes: 0, gzippedResponseBytes: 0, wallMs: 0, waitingMs: 0 }));
    sums.measured += 1;
    for (const key of ['readUnits', 'writeUnits', 'dynamodbCalls', 's3Puts', 's3Gets', 'logBytes', 'infoLogBytes', 'metricLogBytes'] as const) sums[key] += tally[key];
    sums.responseBytes += responseBytes;
    sums.gzippedResponseBytes += gzippedResponseBytes;
    sums.wallMs += wallMs;
    sums.waitingMs += coveredMs(tally.waits);
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
      readUnits: sums.readUnits / n,
      writeUnits: sums.writeUnits / n,
      dynamodbCalls: sums.dynamodbCalls / n,
      s3Puts: sums.s3Puts / n,
      s3Gets: sums.s3Gets / n,
      logBytes: sums.logBytes / n,
      infoLogBytes: sums.infoLogBytes / n,
      metricLogBytes: sums.metricLogBytes / n,
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
  return { kind, readUnits: 0, writeUnits: 0, dynamodbCalls: 0, s3Puts: 0, s3Gets: 0, logBytes: 0, infoLogBytes: 0, metricLogBytes: 0, waits: [] };
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
  return () => streams.forEach((stream, i) => (stream.write = originals[i] as typeof stream.write));
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

type Resource = { Type: string; Properties?: Record<string, any> };

/**
 * The fixed charges, the agents' door and each caller's function as the staging stack has them
 * (`cdk synth`, bundling skipped): NAT gateways, alarms, secrets, zones and keys counted; the door
 * is a function URL when the stack has one on the agents' function; sizes, tracing, log levels and
 * metric publishing read from the functions' own properties.
 */
function stackFacts(): StackFacts {
  const outdir = mkdtempSync(path.join(tmpdir(), 'assisted-cost-synth-'));
  try {
    const context: Record<string, unknown> = { stage: 'staging', alarmEmail: 'ops@example.com', 'aws:cdk:bundling-stacks': [] };
    const app = new App({ outdir, context });
    const stack = new AssistedStack(app, 'AssistedCloud-staging', { config: stageConfigFromContext((key) => context[key]) });
    const resources = (app.synth().getStackArtifact(stack.artifactId).template as { Resources: Record<string, Resource> }).Resources;
    const all = Object.entries(resources);
    const count = (type: string) => all.filter(([, resource]) => resource.Type === type).length;
    const functionNamed = (name: string) => all.find(([id, resource]) => resource.Type === 'AWS::Lambda::Function' && id.startsWith(`${name}Function`) && !id.startsWith(`${name}FunctionFunctionUrl`));
    const facts = (name: string): FunctionFacts & { logging: Record<string, string> } => {
      const found = functionNamed(name);
      if (!found) throw new Error(`the staging stack has no function ${name}`);
      const props = found[1].Properties!;
      return {
        memoryMb: Number(props.MemorySize ?? 128),
        architecture: (props.Architectures?.[0] ?? 'x86_64') as FunctionFacts['architecture'],
        tracing: props.TracingConfig?.Mode === 'Active' ? 'Active' : 'PassThrough',
        publishesMetrics: props.Environment?.Variables?.POWERTOOLS_METRICS_DISABLED !== 'true',
        logging: { ...props.LoggingConfig, powertools: props.Environment?.Variables?.POWERTOOLS_LOG_LEVEL },
      };
    };
    const agentUrl = all.some(([, resource]) => resource.Type === 'AWS::Lambda::Url' && JSON.stringify(resource.Properties?.TargetFunctionArn ?? '').includes(`"${AGENT_API_FUNCTION}Function`));
    const people = facts(REST_API_FUNCTION);
    const functions: Record<Caller, FunctionFacts> = {
      agent: agentUrl ? facts(AGENT_API_FUNCTION) : people,
      user: people,
      stream: facts('HostChanges'),
      monitor: facts('HostMonitor'),
    };
    // The level Powertools logs at is the stricter of its own and Lambda's filter (Lambda drops what is below its level).
    const levels = ['DEBUG', 'INFO', 'WARN', 'ERROR'] as const;
    const levelOf = (fn: { logging: Record<string, string> }) =>
      levels[Math.max(levels.indexOf((fn.logging.powertools ?? 'INFO') as never), levels.indexOf((fn.logging.ApplicationLogLevel ?? 'DEBUG') as never))] ?? 'INFO';
    const systemQuiet = (fn: { logging: Record<string, string> }) => fn.logging.LogFormat === 'JSON' && ['WARN', 'ERROR'].includes(fn.logging.SystemLogLevel ?? '');
    const agents = functions.agent as ReturnType<typeof facts>;
    const stage = all.find(([, resource]) => resource.Type === 'AWS::ApiGateway::Stage')?.[1];
    return {
      natGateways: count('AWS::EC2::NatGateway'),
      alarms: count('AWS::CloudWatch::Alarm'),
      secrets: count('AWS::SecretsManager::Secret'),
      hostedZones: count('AWS::Route53::HostedZone'),
      kmsKeys: count('AWS::KMS::Key'),
      agentDoor: agentUrl ? 'function-url' : 'cloudfront+rest',
      restTracing: stage?.Properties?.TracingEnabled === true,
      logLevel: levelOf(agents),
      platformLogLines: !systemQuiet(agents),
      functions: Object.fromEntries(Object.entries(functions).map(([caller, { memoryMb, architecture, tracing, publishesMetrics }]) => [caller, { memoryMb, architecture, tracing, publishesMetrics }])) as Record<Caller, FunctionFacts>,
    };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/**
 * The staging stack before #21's cuts (5383bbb): a NAT gateway, 29 alarms, agents through CloudFront
 * and the REST API, every function 1,024 MB, actively traced, publishing a metric line per
 * invocation, at Powertools' default level (INFO) with Lambda's START/END/REPORT lines. Priced on
 * the same measurements, for the before-and-after lines.
 */
function stackBefore21(now: StackFacts): StackFacts {
  const fn: FunctionFacts = { memoryMb: 1024, architecture: 'arm64', tracing: 'Active', publishesMetrics: true };
  return { ...now, natGateways: 1, alarms: 29, agentDoor: 'cloudfront+rest', restTracing: true, logLevel: 'INFO', platformLogLines: true, functions: { agent: fn, user: fn, stream: fn, monitor: fn } };
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
}

/**
 * What one write of a host's item bills the table and each index holding a copy (the item put
 * back with a new updatedAt, ReturnConsumedCapacity INDEXES): which part of a host write the
 * indexes' projections are.
 */
async function hostWriteByIndex(endpoint: string, key: { orgId: string; infraEnvId: string; hostId: string }): Promise<Measurements['hostWrite']> {
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1' });
  try {
    const TableName = container().config.tableName;
    const { Item } = await client.send(new GetItemCommand({ TableName, Key: marshall(keys.host(key)), ConsistentRead: true }));
    if (!Item) throw new Error('the steady host is gone');
    // An index is billed only where its copy changes: updatedAt moves, as it does with any host write.
    const { ConsumedCapacity } = await client.send(new PutItemCommand({ TableName, Item: { ...Item, updatedAt: { S: new Date().toISOString() } }, ReturnConsumedCapacity: 'INDEXES' }));
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
  const dataDir = mkdtempSync(path.join(tmpdir(), 'assisted-cost-'));
  const runtime = await startRuntime({
    port: 0,
    dnsPort: 0,
    dataDir,
    // The bench runs the monitor itself, so its passes are counted apart.
    scheduleOverrides: { 'host-monitor': 2_000_000_000 },
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
  const add = (counts: Partial<Record<'readUnits' | 'writeUnits' | 'dynamodbCalls' | 's3Puts' | 's3Gets', number>>, started: number) => {
    const current = invocation.getStore();
    if (!current) return;
    for (const [key, value] of Object.entries(counts) as [keyof typeof counts, number][]) current[key] += value;
    current.waits.push([started, performance.now()]);
  };
  try {
    const meter = meteredDynamoClient(runtime.endpoints.dynamodb, ({ read, units, ms }) => add({ dynamodbCalls: 1, ...(read ? { readUnits: units } : { writeUnits: units }) }, performance.now() - ms));
    const s3 = new S3Client(s3ClientConfig({ region: container().config.region, forcePathStyle: true }));
    s3.middlewareStack.add(
      (next, context) => async (args) => {
        const started = performance.now();
        try {
          return await next(args);
        } finally {
          add(S3_PUT_CLASS.test(context.commandName ?? '') ? { s3Puts: 1 } : { s3Gets: 1 }, started);
        }
      },
      { step: 'initialize', name: 'countS3Requests' },
    );
    provide({
      store: createDynamoStore({ tableName: container().config.tableName, client: meter.client }),
      blobs: createS3BlobStore({ buckets: container().config.buckets, client: s3 }),
    });
    clients.push({ close: () => meter.client.destroy() }, { close: () => s3.destroy() });

    // ---- a monitor pass with nothing to watch (the idle service's every minute)
    recorder.recording = true;
    const monitorPass = (kind: string) => measured(recorder, () => monitorHosts({ store: container().store, clock }), () => kind)({}, {} as Context);
    await monitorPass('monitor pass (idle)');

    const adminToken = readFileSync(runtime.adminTokenFile, 'utf8').trim();
    const user = agentClient(runtime.url, { Authorization: `Bearer ${adminToken}` }, 4);
    clients.push(user);
    const versions = JSON.parse((await user.call('GET', '/openshift-versions')).body) as Record<string, { default?: boolean }>;
    const version = Object.entries(versions).find(([, v]) => v.default)?.[0] ?? Object.keys(versions)[0]!;
    const created = await user.call('POST', '/clusters', {
      name: 'cost', openshift_version: version, pull_secret: PULL_SECRET, base_dns_domain: BASE_DOMAIN,
      api_vips: [{ ip: API_VIP }], ingress_vips: [{ ip: INGRESS_VIP }], additional_ntp_source: 'clock.example.com',
    });
    if (created.status !== 201) throw new Error(`cluster: ${created.status} ${created.body}`);
    const clusterId = (JSON.parse(created.body) as { id: string }).id;
    const infraEnvCreated = await user.call('POST', '/infra-envs', { name: 'cost', pull_secret: PULL_SECRET, cluster_id: clusterId });
    if (infraEnvCreated.status !== 201) throw new Error(`infra-env: ${infraEnvCreated.status} ${infraEnvCreated.body}`);
    const infraEnvId = (JSON.parse(infraEnvCreated.body) as { id: string }).id;
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
        (await client.call('POST', `${route}/${hostId}/instructions`, { step_type, step_id: `${step_type}-cost`, exit_code: 0, output: JSON.stringify(output) })).status === 204,
    });
    const { poll, reply } = agentCalls(agents, hostsRoute);
    const discover = async (hostId: string, i: number) => {
      // The agent the service hands out: another version would be told to upgrade on every poll.
      let ok = (await agents.call('POST', hostsRoute, { host_id: hostId, discovery_agent_version: agentImage })).status === 201;
      ok = (await poll(hostId)).status === 200 && ok;
      ok = (await reply(hostId, 'inventory', inventoryOf(i))) && ok;
      for (const r of repliesAfterInventory(i, ids, 'cost', neighbours)) ok = (await reply(hostId, r.step_type, r.output)) && ok;
      return ok;
    };

    const steadyAgents = new Map<string, ReturnType<typeof agentCalls>>();
    const steadyPoll = (hostId: string) => steadyAgents.get(hostId)!.poll(hostId);
    const steadyReply = (hostId: string, step_type: string, output: unknown) => steadyAgents.get(hostId)!.reply(hostId, step_type, output);

    // ---- the cluster's first hosts, not counted; then the sample, one request at a time
    recorder.recording = false;
    const bulk = ids.slice(0, hostCount - sampleCount);
    const seeded = await eachBounded(bulk, concurrency, discover);
    if (seeded.errors) throw new Error(`${seeded.errors} hosts of ${bulk.length} failed discovery`);
    recorder.recording = true;
    const sample = await eachBounded(ids.slice(hostCount - sampleCount), 1, (hostId, i) => discover(hostId, hostCount - sampleCount + i));
    if (sample.errors) throw new Error(`${sample.errors} sampled hosts failed discovery`);
    console.log(`${hostCount} hosts discovered (${sampleCount} of them measured one request at a time)`);

    // ---- monitor passes over the whole cluster: the first judges every new host, the second is steady
    await monitorPass(`monitor pass (${hostCount} hosts, first)`);
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
      const made = await user.call('POST', '/clusters', {
        name, openshift_version: version, pull_secret: PULL_SECRET, base_dns_domain: BASE_DOMAIN,
        api_vips: [{ ip: API_VIP }], ingress_vips: [{ ip: INGRESS_VIP }], additional_ntp_source: 'clock.example.com',
        ...(clusterSize === 1 ? { control_plane_count: 1, high_availability_mode: 'None', user_managed_networking: true, api_vips: [], ingress_vips: [] } : {}),
      });
      if (made.status !== 201) throw new Error(`steady cluster: ${made.status} ${made.body}`);
      const madeEnv = await user.call('POST', '/infra-envs', { name, pull_secret: PULL_SECRET, cluster_id: (JSON.parse(made.body) as { id: string }).id });
      if (madeEnv.status !== 201) throw new Error(`steady infra-env: ${madeEnv.status} ${madeEnv.body}`);
      const envId = (JSON.parse(madeEnv.body) as { id: string }).id;
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
        if ((await client.call('POST', route, { host_id: hostId, discovery_agent_version: agentImage })).status !== 201) throw new Error('steady registration refused');
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
        const failing = Object.values(JSON.parse(view.validations_info ?? '{}') as Record<string, { id: string; status: string; message: string }[]>).flat().filter((v) => v.status !== 'success' && v.status !== 'disabled');
        notKnown = `${status}: ${failing.map((v) => `${v.id} (${v.status}: ${v.message})`).join('; ')}`;
      }
    }
    // The figures below are a known host's only when the hosts are known: say why not.
    if (notKnown) console.log(`a steady host is ${notKnown}`);
    console.log(`steady hosts (${steady.length}, clusters of ${clusterSize}): ${Object.entries(statuses).map(([status, n]) => `${n} ${status}`).join(', ')}`);

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
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    };
    // Unmeasured first: what a host writes every so many minutes (its stored connectivity figures)
    // is then as likely at any time of the measured hours as on a host connected for days, rather
    // than all at once after the settling rounds.
    await runFor(warmupHours);
    recorder.recording = true;
    recorder.phase = ' (steady)';
    await runFor(steadyHours);
    const hostWrite = await hostWriteByIndex(runtime.endpoints.dynamodb, { orgId: runtime.orgId, infraEnvId: steadyAgents.get(steady[0]!)!.route.split('/')[2]!, hostId: steady[0]! });
    console.log(`one write of a steady host's item: ${Object.entries(hostWrite.units).map(([name, units]) => `${name} ${units}`).join(', ')} WRU`);
    const hostHours = steadyCount * steadyHours;
    // Everything the hour's hosts asked for, each kind priced by its own measurements.
    const perHostHour = Object.fromEntries(recorder.kinds().filter((kind) => kind.endsWith(recorder.phase)).map((kind) => [kind, recorder.count(kind) / hostHours]));
    console.log(`steady hour of ${steadyCount} known hosts: steps handed per host-hour: ${Object.entries(handed).map(([type, n]) => `${type} ${(n / hostHours).toFixed(1)}`).join(', ')}`);
    recorder.recording = false;
    const costs = Object.fromEntries(recorder.kinds().map((kind) => [kind, recorder.cost(kind)!]));
    pollSeconds.sort((a, b) => a - b);
    return { costs, perHostHour, pollSeconds: pollSeconds[pollSeconds.length >> 1] ?? 60, hosts: hostCount, steady: { hosts: steadyCount, clusterSize, warmupHours }, hostWrite };
  } finally {
    logger.setLogLevel(previousLevel as never);
    restoreOutput();
    for (const client of clients) client.close();
    await runtime.stop();
    provide({ clock: systemClock });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const dollars = (value: number) => (value >= 100 ? `$${value.toFixed(0)}` : value >= 1 ? `$${value.toFixed(2)}` : `$${value.toFixed(3)}`);

function printCosts(costs: Record<string, RequestCost>, prices: Prices): void {
  console.log(`\n${'per request (measured)'.padEnd(38)}${'n'.padStart(6)}${'RRU'.padStart(8)}${'WRU'.padStart(8)}${'calls'.padStart(7)}${'S3'.padStart(5)}${'log B'.padStart(8)}${'resp B'.padStart(8)}${'gzip B'.padStart(8)}${'own ms'.padStart(8)}${'billed ms'.padStart(10)}`);
  for (const [kind, cost] of Object.entries(costs)) {
    const waiting = cost.dynamodbCalls * prices.assumedAwsLatencyMs.dynamodbCall + (cost.s3Puts + cost.s3Gets) * prices.assumedAwsLatencyMs.s3Call;
    console.log(
      `${kind.padEnd(38)}${String(cost.measured).padStart(6)}${cost.readUnits.toFixed(1).padStart(8)}${cost.writeUnits.toFixed(1).padStart(8)}${cost.dynamodbCalls.toFixed(1).padStart(7)}${(cost.s3Puts + cost.s3Gets).toFixed(1).padStart(5)}${cost.logBytes.toFixed(0).padStart(8)}${cost.responseBytes.toFixed(0).padStart(8)}${(cost.gzippedResponseBytes ?? cost.responseBytes).toFixed(0).padStart(8)}${cost.handlerMs.toFixed(1).padStart(8)}${Math.ceil(cost.handlerMs + waiting).toString().padStart(10)}`,
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
  return [`| component | ${names.join(' | ')} |`, `|---|${names.map(() => '---|').join('')}`, ...rows, `| **total** | ${names.map((name) => `**${dollars(total(scenarios[name]!))}**`).join(' | ')} |`].join('\n');
}

const DOCS_BEGIN = '<!-- cost:begin (generated by `COST_WRITE_DOCS=1 npm run bench -- cost`) -->';
const DOCS_END = '<!-- cost:end -->';

export async function cost(): Promise<Record<string, unknown>> {
  const prices = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'bench', 'cost', 'prices.json'), 'utf8')) as Prices & { asOf: string; region: string };
  const stack = stackFacts();
  const sizing = Object.entries(stack.functions).map(([caller, fn]) => `${caller} ${fn.memoryMb} MB ${fn.architecture} ${fn.tracing}${fn.publishesMetrics ? '' : ' no metric lines'}`).join(', ');
  console.log(`staging stack: ${stack.natGateways} NAT gateway(s), ${stack.alarms} alarms, ${stack.secrets} secret(s), ${stack.hostedZones} hosted zone(s), ${stack.kmsKeys} KMS key(s); agents via ${stack.agentDoor}; logs at ${stack.logLevel}${stack.platformLogLines ? ' with' : ' without'} Lambda's platform lines; functions: ${sizing}`);
  const measurements = await measure();
  printCosts(measurements.costs, prices);
  const { idle, connected } = bills(measurements, stack, prices);
  const perHost = Object.entries(measurements.perHostHour).map(([kind, n]) => `${kind} ${n.toFixed(1)}`).join(', ');
  console.log(`\nper connected host and hour (steady, next_instruction_seconds ${measurements.pollSeconds}): ${perHost}`);
  const table = billTable({ idle: idle.bill, '1,000 connected hosts': connected.bill });
  console.log(`\nmonthly, ${prices.region} list prices (${prices.asOf}, bench/cost/prices.json):\n${table}`);
  const before = bills(measurements, stackBefore21(stack), prices);
  console.log(`\nthe same requests on the stack before #21 (NAT gateway, agents through CloudFront and REST, 1,024 MB, traced, INFO):\n${billTable({ idle: before.idle.bill, '1,000 connected hosts': before.connected.bill })}`);
  const doors = doorComparison(connected.lines, stack, prices);
  const doorsTable = billTable(doors);
  console.log(`\nthe agents' requests of 1,000 connected hosts through each door (door charges and Lambda only):\n${doorsTable}`);
  const result = { prices: { region: prices.region, asOf: prices.asOf }, stack, ...measurements, scenarios: { idle, connected }, before21: { idle: before.idle.bill, connected: before.connected.bill }, doors };
  const out = process.env.COST_OUT ?? path.join(tmpdir(), 'cost.json');
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`\nresult written to ${out}`);
  if (process.env.COST_WRITE_DOCS === '1') {
    const docsFile = path.join(PROJECT_ROOT, 'docs', 'deploy.md');
    const docs = readFileSync(docsFile, 'utf8');
    const from = docs.indexOf(DOCS_BEGIN);
    const to = docs.indexOf(DOCS_END);
    if (from < 0 || to < from) throw new Error(`docs/deploy.md has no ${DOCS_BEGIN} … ${DOCS_END} section`);
    const section = `${DOCS_BEGIN}\nRegistration, first replies and monitor passes measured in one cluster of ${measurements.hosts} hosts (LIFECYCLE_HOSTS); the steady hour on ${measurements.steady.hosts} known hosts in clusters of ${measurements.steady.clusterSize} (COST_STEADY_HOSTS, COST_CLUSTER_HOSTS), after ${measurements.steady.warmupHours} unmeasured hour(s) of the same (COST_WARMUP_HOURS); priced as 1,000 connected hosts.\n\n${table}\n\nMeasured per request (averages; "own ms" is the handler's time less its waits on the local stores, "billed ms" adds ${prices.assumedAwsLatencyMs.dynamodbCall} ms per DynamoDB call and ${prices.assumedAwsLatencyMs.s3Call} ms per S3 call):\n\n| request | RRU | WRU | DynamoDB calls | S3 requests | log bytes | own ms |\n|---|---|---|---|---|---|---|\n${Object.entries(measurements.costs).map(([kind, c]) => `| ${kind} | ${c.readUnits.toFixed(1)} | ${c.writeUnits.toFixed(1)} | ${c.dynamodbCalls.toFixed(1)} | ${(c.s3Puts + c.s3Gets).toFixed(1)} | ${c.logBytes.toFixed(0)} | ${c.handlerMs.toFixed(1)} |`).join('\n')}\n\nPer connected host and hour: ${perHost} (the service's poll interval for a known host: ${measurements.pollSeconds} s).\n\nThe agents' requests of 1,000 connected hosts through each door (the door's charges and the Lambda time):\n\n${doorsTable}\n\nThe same requests on the stack before #21 (a NAT gateway, agents through CloudFront and REST, every function 1,024 MB and traced, INFO logs with Lambda's platform lines):\n\n${billTable({ idle: before.idle.bill, '1,000 connected hosts': before.connected.bill })}\n${DOCS_END}`;
    writeFileSync(docsFile, `${docs.slice(0, from)}${section}${docs.slice(to + DOCS_END.length)}`);
    console.log('docs/deploy.md cost section regenerated');
  }
  console.log(`\nbefore #21's stack changes: idle ${dollars(total(before.idle.bill))}/month, 1000 connected hosts ${dollars(total(before.connected.bill))}/month`);
  console.log(`\nidle: ${dollars(total(idle.bill))}/month`);
  console.log(`1000 connected hosts: ${dollars(total(connected.bill))}/month`);
  console.log('1000 hosts installed: not measured yet (the install workflow, installer task and image downloads are not metered by this bench)');
  return result;
}
