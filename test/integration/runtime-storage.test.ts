/**
 * `npm start` on a disk that is full or read-only, without root: each start runs in a user and
 * mount namespace of its own (`unshare`) whose data directory is a small tmpfs, filled, remounted
 * read-only, or a directory this (mapped, non-root) user may not write. A start fails within
 * seconds saying what is wrong and leaves nothing running; a disk that fills up while the runtime
 * runs shows in /healthz.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, closeSync, mkdtempSync, openSync, readFileSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startDynamoDbLocal } from '../../bin/local/dynamodb-local.js';
import { freePort, until } from '../support/net.js';
import { exitCode, javaProcessesFor, killProcessGroups, processesWithEnvironment } from '../support/processes.js';

const root = path.resolve(import.meta.dirname, '../..');
const namespaces =
  spawnSync('unshare', ['-rm', 'true']).status === 0 && spawnSync('unshare', ['--user', '--map-user=1000', '--map-group=1000', 'true']).status === 0;
if (!namespaces) console.warn('runtime-storage: user namespaces are not available here (unshare -rm true fails): the disk tests are skipped');

const scratch = mkdtempSync(path.join(tmpdir(), 'assisted-storage-'));
const children: ChildProcess[] = [];

interface Started {
  child: ChildProcess;
  output: () => string;
  port: number;
}

/**
 * npm start (as bin/local.ts runs) with its data directory `<mount>/data`, after `prepare` (a shell
 * script given the mount point as $1) ran in the namespace. `namespace` are unshare's options.
 */
async function startIn(namespace: string[], prepare: string, mount: string): Promise<Started> {
  const port = await freePort();
  const { NODE_NO_WARNINGS: _quiet, ...environment } = process.env;
  const script = `set -e\n${prepare}\ncd "$2"\nexec "$3" --import tsx bin/local.ts`;
  const child = spawn('unshare', [...namespace, 'sh', '-c', script, 'sh', mount, root, process.execPath], {
    env: { ...environment, ASSISTED_PORT: String(port), ASSISTED_DNS_PORT: String(await freePort()), ASSISTED_DATA_DIR: path.join(mount, 'data') },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  return { child, output: () => output, port };
}

const mounts: string[] = [];
function mountPoint(name: string): string {
  const mount = mkdtempSync(path.join(scratch, `${name}-`));
  mounts.push(mount);
  return mount;
}

/**
 * Waits (bounded) until no process the runtime on `<mount>/data` started remains. Also what keeps the
 * clean-up safe: removing a mount point on the host detaches the namespace's tmpfs, and a straggler
 * (an esbuild service finishing a bundle) then writes into the host's directory instead.
 */
async function nothingLeftOf(mount: string): Promise<void> {
  const entry = `ASSISTED_DATA_DIR=${path.join(mount, 'data')}`;
  await until(
    () => processesWithEnvironment(entry).length === 0,
    15_000,
    `no process left of the runtime on ${mount} (${processesWithEnvironment(entry).join(', ')})`,
  );
}
const TMPFS = (size: string) => `mount -t tmpfs -o size=${size},mode=0700 tmpfs "$1"`;
/** Fills the file system at $1 to its last byte (dd stops at ENOSPC). */
const FILL = 'dd if=/dev/zero of="$1/fill" bs=4096 2>/dev/null || true';

describe.skipIf(!namespaces)('npm start on a full or read-only disk', () => {
  const started = new Map<string, number>();

  afterAll(async () => {
    killProcessGroups(children);
    for (const mount of mounts) await nothingLeftOf(mount).catch((error: Error) => console.warn(error.message));
    rmSync(scratch, { recursive: true, force: true });
    console.info(`failed starts took (ms): ${JSON.stringify(Object.fromEntries(started))}`);
  });

  async function refusedStart(
    name: string,
    namespace: string[],
    prepare: string,
    message: (dataDir: string) => string | RegExp,
    mount = mountPoint(name),
    withinMs = 30_000,
  ): Promise<void> {
    const begun = Date.now();
    const start = await startIn(namespace, prepare, mount);
    const code = await exitCode(start.child, withinMs, start.output);
    started.set(name, Date.now() - begun);
    expect(code, start.output()).toBe(1);
    const expected = message(path.join(mount, 'data'));
    if (typeof expected === 'string') expect(start.output()).toContain(`[assisted] could not start: ${expected}`);
    else expect(start.output()).toMatch(expected);
    // Nothing else: no stack, no system error's bare text.
    expect(start.output().trim().split('\n'), start.output()).toHaveLength(1);
    // Nothing left running: no DynamoDB Local on the data, and no process the start made.
    expect(javaProcessesFor(mount)).toEqual([]);
    await nothingLeftOf(mount);
  }

  it('refuses a full disk within seconds, saying so, and leaves nothing running', async () => {
    await refusedStart(
      'full',
      ['-rm'],
      `${TMPFS('2m')}\n${FILL}`,
      (dataDir) => `no space left on device in ${dataDir}: free some space or set ASSISTED_DATA_DIR to a directory on another disk`,
    );
  });

  it('refuses a disk with too little room left (before DynamoDB Local starts on it and never answers)', async () => {
    // 8 KiB free: the lock and a probe fit; DynamoDB Local's database did not (it hung ~60 s, then its Java was left running).
    await refusedStart(
      'nearly-full',
      ['-rm'],
      `${TMPFS('2m')}\ndd if=/dev/zero of="$1/fill" bs=1024 count=2040 2>/dev/null`,
      (dataDir) =>
        new RegExp(
          `^\\[assisted\\] could not start: no space left on device in ${dataDir}: \\d KiB free, the runtime needs at least 64 MiB; free some space or set ASSISTED_DATA_DIR to a directory on another disk$`,
          'm',
        ),
    );
  });

  it('refuses a read-only disk, for a data directory to make and for one made before', async () => {
    const readOnly = (dataDir: string) =>
      `data directory ${dataDir} is not writable: it is on a read-only file system; set ASSISTED_DATA_DIR to a writable directory`;
    await refusedStart('read-only-fresh', ['-rm'], `${TMPFS('2m')}\nmount -o remount,ro "$1"`, readOnly);
    await refusedStart('read-only-made', ['-rm'], `${TMPFS('2m')}\nmkdir -m 0700 "$1/data"\nmount -o remount,ro "$1"`, readOnly);
  });

  it("says which store's disk is full when the start fails there later (DynamoDB Local's directory on a full mount)", async () => {
    // The data directory has room; DynamoDB Local's directory is a full disk of its own: it starts, then fails its first write.
    await refusedStart(
      'store-full',
      ['-rm'],
      `${TMPFS('80m')}\nmkdir -m 0700 -p "$1/data/dynamodb"\n${TMPFS('1m').replace('"$1"', '"$1/data/dynamodb"')}\n${FILL.replace('"$1/fill"', '"$1/data/dynamodb/fill"')}`,
      (dataDir) => `no space left on device in ${dataDir} (${dataDir}/dynamodb): free some space or set ASSISTED_DATA_DIR to a directory on another disk`,
      mountPoint('store-full'),
      90_000,
    );
  }, 120_000);

  it('refuses a directory this user may not write (chmod 0500), as a non-root user', async () => {
    // Mapped to uid 1000 in its namespace, the start has no root's override of file modes.
    const mount = mountPoint('not-writable');
    chmodSync(mount, 0o500);
    await refusedStart(
      'not-writable',
      ['--user', '--map-user=1000', '--map-group=1000'],
      'true',
      (dataDir) => `data directory ${dataDir} is not writable by this user (EACCES): give it to this user, or set ASSISTED_DATA_DIR to a directory it owns`,
      mount,
    );
  });

  it('says in /healthz when the disk fills up while it runs (503 with the reason), and recovers when space is freed', async () => {
    const mount = mountPoint('fills-up');
    const start = await startIn(['-rm'], TMPFS('80m'), mount);
    const base = `http://127.0.0.1:${start.port}`;
    await until(async () => (await fetch(`${base}/healthz`).catch(() => undefined))?.status === 200, 150_000, `/healthz 200:\n${start.output()}`);
    const before = (await (await fetch(`${base}/healthz`)).json()) as { components: Record<string, string> };
    expect(before.components).toMatchObject({ disk: 'up', s3: 'up', dynamodb: 'up' });

    // The namespace's tmpfs, seen through its process's root; filled to the last byte.
    const fill = `/proc/${start.child.pid}/root${mount}/fill`;
    const fd = openSync(fill, 'w');
    const chunk = Buffer.alloc(1024 * 1024);
    try {
      for (let written = 0; written < 200; written++) writeSync(fd, chunk);
      throw new Error('200 MiB went into an 80 MiB tmpfs');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
    } finally {
      closeSync(fd);
    }
    const dataDir = path.join(mount, 'data');
    const full = await until(
      async () => {
        const response = await fetch(`${base}/healthz`);
        return response.status === 503 ? ((await response.json()) as { healthy: boolean; components: Record<string, string> }) : undefined;
      },
      30_000,
      '/healthz 503',
    );
    expect(full.healthy).toBe(false);
    expect(full.components.disk).toBe(`down: no space left on device in ${dataDir}: free some space or set ASSISTED_DATA_DIR to a directory on another disk`);
    // A write while the disk is full says so too, instead of an opaque 500 (and the log says it).
    const token = readFileSync(`/proc/${start.child.pid}/root${dataDir}/admin-token`, 'utf8').trim();
    const refusedWrite = await fetch(`${base}/api/assisted-install/v2/clusters`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'full', openshift_version: '4.18', pull_secret: '{"auths":{"r.example":{"auth":"dTpw"}}}' }),
    });
    const refusal = (await refusedWrite.json()) as { reason: string };
    expect([refusedWrite.status, refusal.reason], start.output().slice(-4000)).toEqual([
      507,
      expect.stringMatching(/^The service cannot store this change: no space left on device in /),
    ]);
    expect(start.output()).toMatch(/"message":"request failed".*"reason":"The service cannot store this change: no space left on device/);

    unlinkSync(fill);
    await until(async () => (await fetch(`${base}/healthz`)).status === 200, 30_000, '/healthz 200 once space is freed');

    process.kill(start.child.pid!, 'SIGINT');
    expect(await exitCode(start.child, 30_000, start.output), start.output()).toBe(0);
    await until(() => javaProcessesFor(mount).length === 0, 10_000, 'DynamoDB Local to exit');
    await nothingLeftOf(mount);
  }, 240_000);

  it("stops DynamoDB Local's Java when it does not answer in time (it was left running, listening)", async () => {
    const directory = mountPoint('dynamodb');
    await expect(startDynamoDbLocal({ port: await freePort(), dataDir: directory, timeoutMs: 1 })).rejects.toThrow('DynamoDB Local did not answer');
    await until(() => javaProcessesFor(directory).length === 0, 10_000, `no Java left on ${directory} (${javaProcessesFor(directory).join(', ')})`);
  });
});
