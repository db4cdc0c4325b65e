/**
 * Our service in a process of its own, beside upstream's (bench/support/upstream-service.ts), so that
 * the kernel's CPU figures of each side hold only that side: the embedded runtime (`npm start`'s)
 * on a DynamoDB Local started here, with a fresh data directory (an empty table), reached through
 * the counting proxy of bench/fleet/dynamodb-counter.ts (its own process) so that every DynamoDB
 * call is counted.
 *
 * Run as a module it is the child: `node --import tsx bench/support/our-service.ts` with
 * OUR_SERVICE_DATA_DIR and OUR_SERVICE_DYNAMODB set; it sends `{url, orgId}` over IPC once ready.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../bin/local/net.js';
import { startDynamoDbLocal } from '../../bin/local/dynamodb-local.js';
import { descendantsOf } from './process-tree.js';

export interface OurService {
  readonly url: string;
  readonly orgId: string;
  /** The PEM key the service signs agent tokens with (issueAgentToken). */
  readonly agentSigningKey: string;
  readonly adminToken: string;
  /** The service's process (its runtime thread and every function instance's thread). */
  servicePids(): number[];
  /** DynamoDB Local's processes (the guard shell and java). */
  databasePids(): number[];
  /** DynamoDB requests the counting proxy has passed on so far (undefined without it). */
  dynamodbCalls(): Promise<number | undefined>;
  /** The same by the function that asked, the operation and the kind of item (the proxy's tally). */
  dynamodbCallsByKind(): Promise<Record<string, number> | undefined>;
  stop(): Promise<void>;
}

/** DynamoDB requests counted so far by a running proxy: it answers `GET /__count` itself. */
async function proxyCount(endpoint: string): Promise<number | undefined> {
  try {
    const answer = await fetch(`${endpoint}/__count`);
    return answer.ok ? Number(await answer.text()) : undefined;
  } catch {
    return undefined;
  }
}

async function proxyCountsByKind(endpoint: string): Promise<Record<string, number> | undefined> {
  try {
    const answer = await fetch(`${endpoint}/__counts`);
    return answer.ok ? ((await answer.json()) as Record<string, number>) : undefined;
  } catch {
    return undefined;
  }
}

export async function startOurService(options: { countDynamoDb?: boolean } = {}): Promise<OurService> {
  const workDir = mkdtempSync(path.join(tmpdir(), 'bench-ours-'));
  const dynamo = await startDynamoDbLocal({ port: await freePort('127.0.0.1'), dataDir: path.join(workDir, 'dynamodb') });
  let proxy: ChildProcess | undefined;
  let service: ChildProcess | undefined;
  const stop = async () => {
    for (const child of [service, proxy]) {
      if (child && child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        const force = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(force);
      }
    }
    await dynamo.stop();
    rmSync(workDir, { recursive: true, force: true });
  };
  try {
    let endpoint = dynamo.endpoint;
    if (options.countDynamoDb !== false) {
      const port = await freePort('127.0.0.1');
      proxy = spawn(
        process.execPath,
        ['--import', 'tsx', path.join(import.meta.dirname, '..', 'fleet', 'dynamodb-counter.ts'), String(port), dynamo.endpoint],
        { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], env: { ...process.env, NODE_OPTIONS: '' } },
      );
      const listening = await new Promise<boolean>((resolve) => {
        proxy!.once('message', () => resolve(true));
        proxy!.once('exit', () => resolve(false));
      });
      if (!listening) throw new Error('the DynamoDB counting proxy (bench/fleet/dynamodb-counter.ts) did not start');
      endpoint = `http://127.0.0.1:${port}`;
    }
    const dataDir = path.join(workDir, 'data');
    service = spawn(
      process.execPath,
      [...(process.env.OUR_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean), '--import', 'tsx', fileURLToPath(import.meta.url)],
      {
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
        env: { ...process.env, NODE_OPTIONS: '', NODE_NO_WARNINGS: '1', OUR_SERVICE_DATA_DIR: dataDir, OUR_SERVICE_DYNAMODB: endpoint },
      },
    );
    const ready = await new Promise<{ url: string; orgId: string } | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(undefined), 180_000);
      service!.once('message', (message) => {
        clearTimeout(timer);
        resolve(message as { url: string; orgId: string });
      });
      service!.once('exit', () => {
        clearTimeout(timer);
        resolve(undefined);
      });
    });
    if (!ready) throw new Error('our service (bench/support/our-service.ts) did not start');
    const servicePid = service.pid!;
    const dynamoPid = dynamo.process.pid!;
    return {
      url: ready.url,
      orgId: ready.orgId,
      agentSigningKey: readFileSync(path.join(dataDir, 'keys', 'agent-signing-key.pem'), 'utf8'),
      adminToken: readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim(),
      servicePids: () => [servicePid],
      databasePids: () => [dynamoPid, ...descendantsOf(dynamoPid)],
      dynamodbCalls: () => (proxy ? proxyCount(endpoint) : Promise.resolve(undefined)),
      dynamodbCallsByKind: () => (proxy ? proxyCountsByKind(endpoint) : Promise.resolve(undefined)),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The child: the runtime on the given DynamoDB, until SIGTERM. */
async function serve(): Promise<void> {
  const { startRuntime } = await import('../../bin/local/runtime.js');
  const runtime = await startRuntime({
    port: 0,
    dnsPort: 0,
    dataDir: process.env.OUR_SERVICE_DATA_DIR!,
    dynamodbEndpoint: process.env.OUR_SERVICE_DYNAMODB!,
    identityStandIn: false,
    syntheticBaseImages: false,
    warmAllFunctions: true,
    log: (message) => {
      if (process.env.DEBUG_RUNTIME) console.error(`[ours] ${message}`);
    },
  });
  await runtime.warmed;
  process.send!({ url: runtime.url, orgId: runtime.orgId });
  process.once('SIGTERM', () => {
    const force = setTimeout(() => process.exit(1), 15_000);
    void runtime.stop().finally(() => {
      clearTimeout(force);
      process.exit(0);
    });
  });
}

if (process.env.OUR_SERVICE_DATA_DIR && process.argv[1] === fileURLToPath(import.meta.url)) await serve();
