/**
 * The embedded default: the service's own Lambda handlers and ASL state machines on one machine,
 * with the real AWS SDK clients pointed at local stand-ins. This module is a composition root:
 * it alone decides which adapters the handlers get.
 */
import { localCachesEnabled } from '../../lambdas/ports/local-caches.js';
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { ListExecutionsCommand, SFNClient } from '@aws-sdk/client-sfn';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { ensureTable } from '../../lambdas/adapters/dynamodb/schema.js';
import { container, provide } from '../../lambdas/platform/container.js';
import { createApiToken } from '../../lambdas/usecases/api-tokens.js';
import { ensureOrganisation } from '../../lambdas/usecases/organisations.js';
import { startApiGateway, staticSiteRoute } from './api-gateway.js';
import { startLiveGateway } from './live-gateway.js';
import { identityStandInRoute, type IdentityStandIn } from './identity-stand-in.js';
import { simulatedHostsRoute } from './simulated-hosts.js';
import { LocalContainerTasks } from './containers.js';
import { claimDataDirectory, MIN_FREE_BYTES_TO_START, storageHealth, storageProblem } from './data-directory.js';
import { LocalSyntheticBaseImages, syntheticBaseImagesOffered } from './synthetic-base-images.js';
import { startDnsServer, LocalDnsZones } from './dns-local.js';
import { startDynamoDbLocal } from './dynamodb-local.js';
import { loadCatalogue, PROJECT_ROOT, type Catalogue } from '../../lib/catalogue.js';
import { LocalFunctions, type InstanceCounts, type LambdaHandler } from './functions.js';
import { freePort, tcpPortTaken, udpPortTaken } from './net.js';
import { S3RVER_CREDENTIALS, startS3Local } from './s3-local.js';
import { startScheduler } from './scheduler.js';
import { startStreamPollers, type StreamMappingStats, type StreamPoller } from './streams-local.js';
import { localFunctionArn, stateMachineArn, StepFunctionsLocal, substitute } from './stepfunctions-local.js';

export const DEFAULT_ORG_ID = 'default';
const TABLE_NAME = 'assisted';
const BUCKETS = { files: 'assisted-files', images: 'assisted-images', logs: 'assisted-logs' };
const REGION = 'us-east-1';

export interface RuntimeOptions {
  host?: string;
  port?: number;
  dataDir?: string;
  /** Use this DynamoDB endpoint instead of starting DynamoDB Local (tests share one per run). */
  dynamodbEndpoint?: string;
  /** Table name; tests sharing one DynamoDB give each runtime its own. */
  tableName?: string;
  /** Port of the DNS stand-in; 0 picks a free one. */
  dnsPort?: number;
  /** Managed base domains served by the DNS stand-in. */
  baseDomains?: string[];
  /** URL clients reach the API at, when it is not the listening address (a proxy in front). */
  publicUrl?: string;
  /** Replaces the catalogue of functions, state machines and schedules (tests). */
  catalogue?: Catalogue;
  /** Extra in-process functions by name (tests). */
  extraFunctions?: Record<string, LambdaHandler>;
  /** Instances of the Api function; default ASSISTED_API_INSTANCES, else the cores (at least 2). */
  apiInstances?: number;
  /**
   * Start one instance of every other function once the Api serves, in the background (as
   * provisioned concurrency would), instead of on first use: an installation's tasks then do not
   * each wait for a cold start on the critical path. `npm start` does; tests mostly do not.
   */
  warmAllFunctions?: boolean;
  /**
   * Build a SYNTHETIC base ISO on first use when none was imported (bin/local/synthetic-base-images.ts).
   * Default: on, unless ASSISTED_SYNTHETIC_BASE_IMAGES=off.
   */
  syntheticBaseImages?: boolean;
  /**
   * Tests only: each API answer is held until the table's stream is drained, so a test reads the
   * world after the request's follow-ups (cluster judgements); a request that finds the stream
   * paused (a test wrote records past the service) first resumes it past those records.
   */
  settleFollowUps?: boolean;
  /** Tests only: a module URL each function instance imports first, to register loader hooks that observe it. */
  instrumentation?: string;
  /** Schedule periods in ms by schedule name, overriding their rate (tests, demos). */
  scheduleOverrides?: Record<string, number>;
  /**
   * Serve the local identity stand-in at <url>/identity and have the API trust it (console sign-up
   * and sign-in). Default: on, unless ASSISTED_IDENTITY_STAND_IN=off or another identity provider
   * is configured (IDENTITY_PROVIDER_ISSUER).
   */
  identityStandIn?: boolean;
  log?: (message: string) => void;
}

export interface Runtime {
  url: string;
  dataDir: string;
  orgId: string;
  /** The admin token, when this start created it; later starts read it from `adminTokenFile`. */
  createdAdminToken?: string;
  adminTokenFile: string;
  endpoints: { dynamodb: string; s3: string; stepfunctions: string; dns: { host: string; port: number } };
  dns: LocalDnsZones;
  stepFunctions: StepFunctionsLocal;
  functions: LocalFunctions;
  /** The event source mappings of the table's stream. */
  streams: StreamPoller;
  /** The local identity stand-in, when it runs. */
  identity?: IdentityStandIn;
  /** Settings a test may change while the runtime runs (see RuntimeOptions.settleFollowUps). */
  settings: { settleFollowUps: boolean };
  /** Settles once every function warmed by `warmAllFunctions` serves and the container tasks are bundled (at once without it). */
  warmed: Promise<void>;
  health(): Promise<{
    healthy: boolean;
    components: Record<string, string>;
    functions: Record<string, InstanceCounts>;
    streams: Record<string, StreamMappingStats>;
    localCaches: 'on' | 'off';
  }>;
  stop(): Promise<void>;
}

/**
 * What a state machine placeholder stands for locally: a function's ARN, or for container tasks
 * the names the local ECS stand-in understands (no cluster or subnets exist on one machine).
 */
function localSubstitution(target: string): string {
  if (target.startsWith('container:')) return `arn:aws:ecs:${REGION}:000000000000:task-definition/${target.slice('container:'.length)}`;
  if (target.startsWith('containerCluster:')) return `arn:aws:ecs:${REGION}:000000000000:cluster/local`;
  if (target.startsWith('containerSubnets:') || target.startsWith('containerSecurityGroups:')) return '[]';
  if (target.startsWith('containerAssignPublicIp:')) return 'DISABLED';
  return localFunctionArn(target);
}

/** The ES256 key for agent tokens, made on first start and kept (0600) with the data. */
function agentSigningKey(dataDir: string): string {
  const file = path.join(dataDir, 'keys', 'agent-signing-key.pem');
  if (!existsSync(file)) {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  }
  return readFileSync(file, 'utf8');
}

async function check(name: string, probe: () => Promise<unknown>, into: Record<string, string>): Promise<boolean> {
  try {
    await probe();
    into[name] = 'up';
    return true;
  } catch (error) {
    into[name] = `down: ${(error as Error).message}`;
    return false;
  }
}

async function refuseTakenPorts(host: string, apiPort: number, dnsPort: number): Promise<void> {
  // Both are checked before either is named, so one start says everything that is in the way.
  const taken: string[] = [];
  if (apiPort !== 0 && (await tcpPortTaken(apiPort, host))) taken.push(`port ${apiPort} on ${host} is already in use (ASSISTED_PORT, the API)`);
  if (dnsPort !== 0 && ((await udpPortTaken(dnsPort, host)) || (await tcpPortTaken(dnsPort, host)))) {
    taken.push(`port ${dnsPort} on ${host} is already in use (ASSISTED_DNS_PORT, the DNS stand-in, UDP and TCP)`);
  }
  if (taken.length > 0)
    throw new Error(`${taken.join('; ')}. Another npm start? Stop it, or set ${taken.length > 1 ? 'those settings' : 'that setting'} to a free port`);
}

export async function startRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  const log = options.log ?? (() => undefined);
  const host = options.host ?? '127.0.0.1';
  const dataDir = path.resolve(options.dataDir ?? '.assisted');
  // Before anything is created: a second `npm start` on a taken port leaves no table, organisation
  // or token behind in a data directory it cannot serve.
  await refuseTakenPorts(host, options.port ?? 8090, options.dnsPort ?? 0);
  const catalogue = options.catalogue ?? loadCatalogue();
  const dataDirectory = claimDataDirectory(dataDir);
  // Where the runtime's stores write (a store's directory may be a mount of its own): /healthz checks each takes a write.
  const storageDirectories = [dataDir, path.join(dataDir, 's3'), ...(options.dynamodbEndpoint ? [] : [path.join(dataDir, 'dynamodb')])];
  // Stopped in reverse: the lock goes last, once nothing uses the directory any more.
  const stops: (() => Promise<void>)[] = [async () => dataDirectory.release()];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch((error: Error) => log(`shutdown: ${error.message}`));
    stops.length = 0;
  };

  try {
    // A disk too full to work on fails here, in seconds, not in DynamoDB Local's obscure ways later.
    await storageHealth(dataDir, [dataDir], MIN_FREE_BYTES_TO_START);
    const tableName = options.tableName ?? TABLE_NAME;
    let dynamoEndpoint = options.dynamodbEndpoint;
    if (!dynamoEndpoint) {
      const dynamo = await startDynamoDbLocal({ port: await freePort('127.0.0.1'), dataDir: path.join(dataDir, 'dynamodb') });
      stops.push(() => dynamo.stop());
      dynamoEndpoint = dynamo.endpoint;
    }
    const s3 = await startS3Local({
      host: '127.0.0.1',
      port: 0,
      directory: path.join(dataDir, 's3'),
      buckets: Object.values(BUCKETS),
      credentials: S3RVER_CREDENTIALS,
    });
    stops.push(() => s3.stop());

    const dns = new LocalDnsZones(path.join(dataDir, 'dns', 'zones.json'));
    const dnsServer = await startDnsServer(dns, { host, port: options.dnsPort ?? 0 });
    stops.push(() => dnsServer.stop());

    const syntheticBaseImages =
      (options.syntheticBaseImages ?? syntheticBaseImagesOffered())
        ? new LocalSyntheticBaseImages(s3.endpoint, path.join(dataDir, 'synthetic-images'), log)
        : undefined;
    // The stand-ins of ports with no SDK-reachable emulator, given to this thread and (through messages) to the instances.
    const runtimePorts = { dns, ...(syntheticBaseImages ? { syntheticBaseImages } : {}) };
    const functions = new LocalFunctions(catalogue.functions, options.extraFunctions, {
      ...runtimePorts,
      log,
      ...(options.apiInstances ? { apiInstances: options.apiInstances } : {}),
      ...(options.instrumentation ? { instrumentation: options.instrumentation } : {}),
      provisioned: options.warmAllFunctions ?? false,
    });
    stops.push(() => functions.stop());
    const definitions = Object.fromEntries(
      catalogue.stateMachines.map((machine) => {
        const substitutions = Object.fromEntries(Object.entries(machine.substitutions ?? {}).map(([key, target]) => [key, localSubstitution(target)]));
        const file = path.isAbsolute(machine.definition) ? machine.definition : path.join(PROJECT_ROOT, machine.definition);
        return [machine.name, substitute(readFileSync(file, 'utf8'), substitutions)];
      }),
    );
    const containerTasks = new LocalContainerTasks(catalogue.containers ?? [], PROJECT_ROOT, path.join(dataDir, 'containers'), log);
    stops.push(() => containerTasks.stop());
    const stepFunctions = new StepFunctionsLocal({
      host: '127.0.0.1',
      port: 0,
      directory: path.join(dataDir, 'stepfunctions'),
      definitions,
      invoke: (name, payload) => functions.invoke(name, payload),
      runContainer: (name, environment) => containerTasks.run(name, environment),
      log,
      credentials: S3RVER_CREDENTIALS,
    });

    const signingKeyPem = agentSigningKey(dataDir);

    // The same variables the CDK stack gives each function, with local endpoints.
    const baseDomains = options.baseDomains ?? (process.env.ASSISTED_BASE_DOMAINS ?? '').split(',').filter(Boolean);
    Object.assign(process.env, {
      AWS_REGION: REGION,
      // s3rver, the Step Functions stand-in and the live gateway's management API serve only requests
      // signed with this one key pair; DynamoDB Local accepts any.
      AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
      AWS_ENDPOINT_URL_DYNAMODB: dynamoEndpoint,
      AWS_ENDPOINT_URL_S3: s3.endpoint,
      S3_FORCE_PATH_STYLE: 'true',
      TABLE_NAME: tableName,
      FILES_BUCKET: BUCKETS.files,
      IMAGES_BUCKET: BUCKETS.images,
      LOGS_BUCKET: BUCKETS.logs,
      STATE_MACHINES: JSON.stringify(Object.fromEntries(catalogue.stateMachines.map((m) => [m.name, stateMachineArn(m.name)]))),
      HOSTED_ZONES: JSON.stringify(Object.fromEntries(baseDomains.map((domain) => [domain, `local-${domain}`]))),
      EC_PRIVATE_KEY_PEM: signingKeyPem,
      // No openshift-install here is the usual case on one machine: the simulated installer stands in,
      // named in the log, the task output and the cluster's events. ASSISTED_SIMULATED_INSTALLER=false refuses it.
      ALLOW_SIMULATED_INSTALLER: process.env.ASSISTED_SIMULATED_INSTALLER === 'false' ? 'false' : 'true',
      // Likewise no RHCOS image: a SYNTHETIC base ISO is built on first use (bin/local/synthetic-base-images.ts).
      ASSISTED_SYNTHETIC_BASE_IMAGES: syntheticBaseImages ? 'on-first-use' : 'off',
      // DynamoDB Local answers bursts with lock time-outs that DynamoDB would not: retried without the
      // SDK's retry quota, and at most this many requests at once from each instance.
      DYNAMODB_RETRY_QUOTA: 'off',
      DYNAMODB_MAX_SOCKETS: process.env.DYNAMODB_MAX_SOCKETS ?? '32',
      POWERTOOLS_METRICS_DISABLED: process.env.POWERTOOLS_METRICS_DISABLED ?? 'true',
      POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'WARN',
      // Webhook endpoints on this machine only, unless the person running it allows others (docs/api.md, "Webhooks").
      WEBHOOK_ENDPOINTS: process.env.ASSISTED_WEBHOOKS_ALLOW_ANY_HOST === 'true' ? 'any' : 'loopback',
      // The event bus: EventBridge in AWS, a JSON-lines file of the data directory here.
      LOCAL_EVENT_BUS_FILE: path.join(dataDir, 'event-bus', 'events.jsonl'),
      // A store's failure is explained by the space left where the stores write (platform/storage-faults.ts).
      STORAGE_DIRECTORIES: storageDirectories.join(':'),
    });

    const dynamoClient = new DynamoDBClient({ region: REGION, endpoint: dynamoEndpoint });
    stops.push(async () => dynamoClient.destroy());
    if ((await ensureTable(dynamoClient, tableName)) === 'created') log(`created table ${tableName}`);

    await stepFunctions.start();
    stops.push(() => stepFunctions.stop());
    process.env.AWS_ENDPOINT_URL_SFN = stepFunctions.endpoint;
    // Route53 has no SDK-reachable emulator; its stand-in is injected at the port.
    provide(runtimePorts);

    const ports = container();
    const { created } = await ensureOrganisation(ports, DEFAULT_ORG_ID, 'Default organisation');
    if (created) log(`created organisation ${DEFAULT_ORG_ID}`);
    const adminTokenFile = path.join(dataDir, 'admin-token');
    let createdAdminToken: string | undefined;
    if (!existsSync(adminTokenFile)) {
      const { token } = await createApiToken(ports, { orgId: DEFAULT_ORG_ID, name: 'admin (created on first start)', role: 'admin' });
      writeFileSync(adminTokenFile, `${token}\n`, { mode: 0o600 });
      chmodSync(adminTokenFile, 0o600);
      createdAdminToken = token;
    }

    const s3Client = new S3Client({ region: REGION, endpoint: s3.endpoint, forcePathStyle: true });
    const sfnClient = new SFNClient({ region: REGION, endpoint: stepFunctions.endpoint });
    stops.push(async () => {
      s3Client.destroy();
      sfnClient.destroy();
    });
    // The table's stream feeds its mapped functions, as Lambda's event source mappings do.
    const streamsClient = new DynamoDBStreamsClient({ region: REGION, endpoint: dynamoEndpoint });
    const streams: StreamPoller = await startStreamPollers({
      client: dynamoClient,
      streams: streamsClient,
      tableName,
      mappings: catalogue.streams ?? [],
      invoke: (name, event) => functions.invoke(name, event),
      directory: path.join(dataDir, 'streams', tableName),
      log,
    });
    stops.push(async () => {
      await streams.stop();
      streamsClient.destroy();
    });

    let started = false;
    // Instances take the runtime's environment, ASSISTED_LOCAL_CACHES included, as it is when they start.
    const localCaches = localCachesEnabled() ? ('on' as const) : ('off' as const);
    const health = async () => {
      const components: Record<string, string> = {};
      const results = await Promise.all([
        check('dynamodb', () => dynamoClient.send(new DescribeTableCommand({ TableName: tableName })), components),
        check('s3', () => Promise.all(Object.values(BUCKETS).map((Bucket) => s3Client.send(new ListObjectsV2Command({ Bucket, MaxKeys: 1 })))), components),
        check(
          'stepfunctions',
          () => sfnClient.send(new ListExecutionsCommand({ stateMachineArn: stateMachineArn(catalogue.stateMachines[0]?.name ?? 'none') })),
          components,
        ),
        check(
          'dns',
          async () => {
            if (!dnsServer.port) throw new Error('not listening');
          },
          components,
        ),
        // A full or read-only disk: reads still answer, every write fails.
        check('disk', () => storageHealth(dataDir, storageDirectories), components),
      ]);
      components.api = 'up';
      // The Api instances start once the API listens (they take its URL): until then, not healthy.
      components.functions = started ? 'up' : 'starting';
      return { healthy: started && results.every(Boolean), components, functions: functions.counts(), streams: streams.stats(), localCaches };
    };

    const healthRoute = async (request: IncomingMessage, response: ServerResponse) => {
      if (request.url !== '/healthz') return false;
      const result = await health();
      const body = JSON.stringify(result);
      // Like every API answer: a health report is never cached, nor sniffed into another type.
      response.writeHead(result.healthy ? 200 : 503, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
      response.end(body);
      return true;
    };
    const settings = { settleFollowUps: options.settleFollowUps ?? false };
    const identityRoute = identityStandInRoute();
    // The console's "Boot simulated hosts" (local runtime only); they stop with the runtime.
    let apiUrl = '';
    const simulatedHosts = simulatedHostsRoute({ url: () => apiUrl, log });
    // The WebSocket API on the same port (ws://HOST:PORT/live), its routes invoking the same function modules as in AWS.
    const live = startLiveGateway({ invoke: (name, event) => functions.invoke(name, event), credentials: S3RVER_CREDENTIALS, log });
    const api = await startApiGateway({
      host,
      port: options.port ?? 8090,
      // Two API Gateway routes, as in AWS: the image service's paths go to its own function.
      invoke: async (event: APIGatewayProxyEvent) => {
        if (settings.settleFollowUps) await streams.resume({ skipWritten: true });
        let instance: string | undefined;
        const name = event.path.startsWith('/api/assisted-images/') && functions.has('Images') ? 'Images' : 'Api';
        const answer = (await functions.invoke(name, event, (answeredBy) => (instance = answeredBy))) as APIGatewayProxyResult;
        // Best effort: under a load that keeps the stream busy the answer goes out after the wait.
        if (settings.settleFollowUps) await streams.drained().catch((error: Error) => log(`settling follow-ups: ${error.message}`));
        // Which instance answered: for reading logs, and for tests of instance isolation.
        return instance ? { ...answer, headers: { ...answer.headers, 'X-Local-Function-Instance': instance } } : answer;
      },
      localRoutes: [healthRoute, live.route, identityRoute.route, simulatedHosts.route, staticSiteRoute(path.join(PROJECT_ROOT, 'console', 'dist'))],
      log,
    });
    api.server.on('upgrade', live.upgrade);
    stops.push(async () => {
      live.close();
      await api.close();
    });
    // Stopped before the API closes (stops run last first): the hosts' last calls still get answers.
    stops.push(() => simulatedHosts.stopAll());
    apiUrl = api.url;
    // Known only once the API listens (its port may be picked by the OS); rebuild the ports with it.
    process.env.PUBLIC_URL = options.publicUrl ?? process.env.ASSISTED_PUBLIC_URL ?? api.url;
    // The WebSocket API's management endpoint: the local gateway answers PostToConnection as API Gateway does.
    process.env.LIVE_MANAGEMENT_URL = api.url;
    const identity =
      (options.identityStandIn ?? (process.env.ASSISTED_IDENTITY_STAND_IN !== 'off' && !process.env.IDENTITY_PROVIDER_ISSUER))
        ? identityRoute.start({ url: api.url, dataDir, log })
        : undefined;
    if (identity) {
      Object.assign(process.env, identity.environment);
      stops.push(async () => {
        for (const name of Object.keys(identity.environment)) delete process.env[name];
      });
    }
    provide(runtimePorts);
    // Instances take the environment as it is when they start: the API's start now, with PUBLIC_URL known.
    await functions.warm('Api');
    const warmed = Promise.all(
      options.warmAllFunctions
        ? [
            ...catalogue.functions
              .filter((spec) => spec.name !== 'Api')
              .map((spec) => functions.warm(spec.name).catch((error: Error) => log(`warming ${spec.name} failed: ${error.message}`))),
            containerTasks.prepareAll(),
          ]
        : [],
    ).then(() => undefined);

    const scheduler = startScheduler(catalogue.schedules ?? [], (name, event) => functions.invoke(name, event), {
      log,
      overrideMs: options.scheduleOverrides,
    });
    stops.push(() => scheduler.stop());

    const endpoints = {
      dynamodb: dynamoEndpoint,
      s3: s3.endpoint,
      stepfunctions: stepFunctions.endpoint,
      dns: { host, port: dnsServer.port },
    };
    writeFileSync(path.join(dataDir, 'runtime.json'), JSON.stringify({ url: api.url, pid: process.pid, endpoints }, null, 2));
    started = true;

    return {
      url: api.url,
      dataDir,
      orgId: DEFAULT_ORG_ID,
      createdAdminToken,
      adminTokenFile,
      endpoints,
      dns,
      stepFunctions,
      functions,
      streams,
      ...(identity ? { identity } : {}),
      settings,
      warmed,
      health,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    // A disk that filled up (or went read-only) during the start fails it in many ways (DynamoDB
    // Local's "unknown error", a 500 from s3rver): say what is wrong instead.
    throw (
      storageProblem(error, dataDir) ??
      (await storageHealth(dataDir, storageDirectories).then(
        () => error,
        (problem: unknown) => problem,
      ))
    );
  }
}
