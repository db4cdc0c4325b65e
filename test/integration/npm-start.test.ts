/**
 * What a person does on a fresh checkout: `npm start`, call the API with the printed token,
 * Ctrl-C, start again and find the same data. Runs the real entry point as a child process.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { createDynamoStore } from '../../lambdas/adapters/dynamodb/store.js';
import { descendantsOf } from '../../bench/support/process-tree.js';
import { freePort, until } from '../support/net.js';
import { exitCode, javaProcessesFor, killProcessGroups } from '../support/processes.js';

const root = path.resolve(import.meta.dirname, '../..');
const dataDir = mkdtempSync(path.join(tmpdir(), 'assisted-start-'));

async function npmStart(port: number, dnsPort: number, directory = dataDir): Promise<{ child: ChildProcess; output: () => string }> {
  // As `npm start` runs it: one node process with tsx as a loader, so Ctrl-C reaches our handler directly.
  // Node's warnings stay on, as in a terminal: a normal start prints none (the AWS SDK's Node-version
  // warning among them).
  const { NODE_NO_WARNINGS: _quiet, ...environment } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts'], {
    cwd: root,
    env: { ...environment, ASSISTED_PORT: String(port), ASSISTED_DNS_PORT: String(dnsPort), ASSISTED_DATA_DIR: directory },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so signals reach npm start's whole tree as Ctrl-C in a terminal does.
    detached: true,
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  return { child, output: () => output };
}

/** Every TCP and UDP socket the processes listen on (Unix sockets are local by nature), as `ss` lists them. */
function listeningSockets(pids: readonly number[]): { protocol: string; local: string; process: string }[] {
  const owned = new Set(pids);
  return execFileSync('ss', ['-H', '-l', '-n', '-t', '-u', '-p'], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map((line) => line.trim().split(/\s+/))
    .filter((columns) =>
      [
        ...columns
          .slice(6)
          .join(' ')
          .matchAll(/pid=(\d+)/g),
      ].some((match) => owned.has(Number(match[1]))),
    )
    .map((columns) => ({ protocol: columns[0]!, local: columns[4]!, process: /\(\("([^"]+)"/.exec(columns.slice(6).join(' '))?.[1] ?? '?' }));
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|\[::1\]|\[::ffff:127\.\d+\.\d+\.\d+\])(%lo)?:\d+$/;

async function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGINT'): Promise<number | null> {
  process.kill(-child.pid!, signal);
  return exitCode(child, 20_000);
}

describe('npm start', () => {
  const children: ChildProcess[] = [];
  afterAll(() => {
    killProcessGroups(children);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves /healthz, answers the token-authenticated API, stops cleanly, and keeps data across restarts', async () => {
    const port = await freePort();
    const dnsPort = await freePort();
    const base = `http://127.0.0.1:${port}`;

    const first = await npmStart(port, dnsPort);
    children.push(first.child);
    const started = Date.now();
    await until(async () => (await fetch(`${base}/healthz`).catch(() => undefined))?.status === 200, 60_000, '/healthz 200');
    expect(Date.now() - started).toBeLessThan(60_000);

    const health = (await (await fetch(`${base}/healthz`)).json()) as { components: Record<string, string> };
    expect(health.components).toMatchObject({ dynamodb: 'up', s3: 'up', stepfunctions: 'up', dns: 'up', api: 'up', disk: 'up' });

    // Nothing the runtime starts listens beyond loopback: the API, DNS (UDP and TCP), DynamoDB
    // Local (java), s3rver, the Step Functions stand-in.
    const sockets = listeningSockets([first.child.pid!, ...descendantsOf(first.child.pid!)]);
    const described = sockets.map((socket) => `${socket.protocol} ${socket.local} ${socket.process}`);
    expect(
      sockets.filter((socket) => !LOOPBACK.test(socket.local)),
      described.join('\n'),
    ).toEqual([]);
    expect(
      described.some((line) => line.includes(`:${port} `) && line.startsWith('tcp')),
      described.join('\n'),
    ).toBe(true);
    expect(
      described
        .filter((line) => line.includes(`:${dnsPort} `))
        .map((line) => line.split(' ')[0])
        .sort(),
      described.join('\n'),
    ).toEqual(['tcp', 'udp']);
    expect(
      described.some((line) => line.endsWith(' java')),
      described.join('\n'),
    ).toBe(true);
    console.info(`npm start listens on ${sockets.length} sockets, all loopback:\n${described.join('\n')}`);

    const tokenFile = path.join(dataDir, 'admin-token');
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    const token = readFileSync(tokenFile, 'utf8').trim();
    expect(first.output()).toContain(token);
    const auth = { Authorization: `Bearer ${token}` };

    const list = await fetch(`${base}/api/assisted-install/v2/clusters`, { headers: auth });
    expect(list.status).toBe(200);
    expect(await list.json()).toEqual([]);
    expect((await fetch(`${base}/api/assisted-install/v2/clusters`)).status).toBe(401);

    // Put a cluster record in through the runtime's own DynamoDB, as the API issue's register will.
    const runtimeInfo = JSON.parse(readFileSync(path.join(dataDir, 'runtime.json'), 'utf8')) as { endpoints: { dynamodb: string } };
    const client = new DynamoDBClient({
      endpoint: runtimeInfo.endpoints.dynamodb,
      region: 'us-east-1',
      credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
    });
    const store = createDynamoStore({ tableName: 'assisted', client });
    const now = new Date().toISOString();
    await store.clusters.create({
      orgId: 'default',
      clusterId: '2c3f0a4e-8d7b-4c61-9a51-0f5e7b3d9a10',
      name: 'kept',
      status: 'pending-for-input',
      createdAt: now,
      updatedAt: now,
      attributes: {},
    });
    client.destroy();

    expect(javaProcessesFor(dataDir)).toHaveLength(1);
    expect(await stop(first.child)).toBe(0);
    expect(first.output()).toContain('SIGINT: stopping');
    expect(first.output()).not.toMatch(/Warning|EBADENGINE/);
    await until(() => javaProcessesFor(dataDir).length === 0, 10_000, 'DynamoDB Local to exit');

    const second = await npmStart(port, dnsPort);
    children.push(second.child);
    await until(async () => (await fetch(`${base}/healthz`).catch(() => undefined))?.status === 200, 60_000, '/healthz 200 after restart');
    expect(second.output()).not.toContain(token);
    const again = await fetch(`${base}/api/assisted-install/v2/clusters`, { headers: auth });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { name: string }[]).map((c) => c.name)).toEqual(['kept']);
    expect(await stop(second.child)).toBe(0);
    await until(() => javaProcessesFor(dataDir).length === 0, 10_000, 'DynamoDB Local to exit');
  }, 180_000);

  it('leaves no DynamoDB Local behind when it is killed outright', async () => {
    const port = await freePort();
    const third = await npmStart(port, await freePort());
    children.push(third.child);
    await until(async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.status === 200, 60_000, '/healthz 200');
    expect(javaProcessesFor(dataDir)).toHaveLength(1);
    await stop(third.child, 'SIGKILL');
    await until(() => javaProcessesFor(dataDir).length === 0, 10_000, 'DynamoDB Local to exit after SIGKILL');
  }, 120_000);

  it('refuses a taken port before it creates anything in its data directory', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const taken = (holder.address() as net.AddressInfo).port;
    const fresh = path.join(mkdtempSync(path.join(tmpdir(), 'assisted-busy-')), 'data');
    try {
      const started = await npmStart(taken, await freePort(), fresh);
      children.push(started.child);
      expect(await exitCode(started.child, 30_000, started.output)).toBe(1);
      expect(started.output()).toContain(`port ${taken} on 127.0.0.1 is already in use (ASSISTED_PORT`);
      expect(existsSync(fresh)).toBe(false);
      // Both ports taken: both are named at once, not the DNS port at the next try.
      const both = await npmStart(taken, taken, fresh);
      children.push(both.child);
      expect(await exitCode(both.child, 30_000, both.output)).toBe(1);
      expect(both.output()).toMatch(
        new RegExp(
          `port ${taken} on 127\\.0\\.0\\.1 is already in use \\(ASSISTED_PORT.*; port ${taken} on 127\\.0\\.0\\.1 is already in use \\(ASSISTED_DNS_PORT`,
        ),
      );
      expect(existsSync(fresh)).toBe(false);
    } finally {
      holder.close();
      rmSync(path.dirname(fresh), { recursive: true, force: true });
    }
  }, 60_000);
});
