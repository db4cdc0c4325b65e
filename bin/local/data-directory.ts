/**
 * The runtime's data directory belongs to one runtime at a time. Two `npm start` on one directory
 * ran two databases on the same files and two schedulers; the second now stops with a message.
 * The lock is a file naming its holder's pid: a holder that died (kill -9, a crash) leaves one
 * whose pid is gone, which the next start takes over.
 *
 * It must also be writable, with room to work: a read-only or full disk stops the start at once
 * with what is wrong (before DynamoDB Local starts on it and fails obscurely), and a disk that
 * fills up while the runtime runs shows in /healthz (`storageHealth`).
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { open, statfs, unlink } from 'node:fs/promises';
import path from 'node:path';

export const LOCK_FILE = 'lock';
const ATTEMPTS = 3;
const MiB = 1024 * 1024;
/** Free space a start needs: DynamoDB Local's database, the objects, bundles of the container tasks, a synthetic ISO. */
export const MIN_FREE_BYTES_TO_START = 64 * MiB;
/** Below this a running runtime reports itself unhealthy: its next writes are about to fail. */
export const MIN_FREE_BYTES_RUNNING = 16 * MiB;
/** What a probe writes (and syncs, so a full disk cannot hide behind the page cache). */
const PROBE_BYTES = 4096;

/** An error about the data directory a person can act on; `cause` keeps the system error. */
export class DataDirectoryError extends Error {}

const size = (bytes: number) => (bytes < MiB ? `${Math.floor(bytes / 1024)} KiB` : `${Math.floor(bytes / MiB)} MiB`);

/**
 * The data directory's storage failure `error` said as what is wrong and what to do, or undefined
 * when it is no storage failure (the caller keeps its own message then). `directory`: where in the
 * data directory it happened (else the file the error names, if any).
 */
export function storageProblem(error: unknown, dataDir: string, directory?: string): DataDirectoryError | undefined {
  if (error instanceof DataDirectoryError) return error;
  const { code, path: file } = (error ?? {}) as NodeJS.ErrnoException;
  const where = directory ?? file;
  const at = where && where !== dataDir ? ` (${where})` : '';
  const problem = (message: string) => new DataDirectoryError(message, { cause: error });
  switch (code) {
    case 'ENOSPC':
      return problem(`no space left on device in ${dataDir}${at}: free some space or set ASSISTED_DATA_DIR to a directory on another disk`);
    case 'EDQUOT':
      return problem(`disk quota exceeded in ${dataDir}${at}: free some space or set ASSISTED_DATA_DIR to a directory on another disk`);
    case 'EROFS':
      return problem(`data directory ${dataDir} is not writable: it is on a read-only file system${at}; set ASSISTED_DATA_DIR to a writable directory`);
    case 'EACCES':
    case 'EPERM':
      return problem(
        `data directory ${dataDir} is not writable by this user (${code}${at}): give it to this user, or set ASSISTED_DATA_DIR to a directory it owns`,
      );
    case 'ENOTDIR':
      return problem(`data directory ${dataDir} cannot be made: a file is in the way${at}; move it, or set ASSISTED_DATA_DIR to another directory`);
    default:
      return undefined;
  }
}

/** `mkdir -p`, one level at a time: a recursive mkdir reports ENOENT for a parent on a read-only disk. */
function makeDirectory(directory: string): void {
  const missing: string[] = [];
  for (let at = directory; !existsSync(at) && path.dirname(at) !== at; at = path.dirname(at)) missing.unshift(at);
  for (const level of missing) {
    try {
      mkdirSync(level, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

function tooLittleFree(directory: string, free: number, minimum: number, dataDir: string): DataDirectoryError {
  return new DataDirectoryError(
    `no space left on device in ${dataDir}: ${size(free)} free${directory === dataDir ? '' : ` for ${directory}`}, the runtime needs at least ${size(minimum)}; free some space or set ASSISTED_DATA_DIR to a directory on another disk`,
  );
}

/**
 * Whether the data directory's storage works: each of `directories` (the data directory and its
 * stores') takes a small synced write, and its file system keeps `minFreeBytes` free (a start asks
 * for MIN_FREE_BYTES_TO_START, /healthz for MIN_FREE_BYTES_RUNNING). Throws the problem, said as
 * storageProblem says it.
 */
export async function storageHealth(dataDir: string, directories: readonly string[] = [dataDir], minFreeBytes = MIN_FREE_BYTES_RUNNING): Promise<void> {
  for (const directory of directories) {
    const file = path.join(directory, `.write-probe-${process.pid}`);
    try {
      const handle = await open(file, 'w', 0o600);
      try {
        await handle.write(Buffer.alloc(PROBE_BYTES));
        await handle.sync();
      } finally {
        await handle.close();
        await unlink(file).catch(() => undefined);
      }
      const { bavail, bsize } = await statfs(directory);
      if (bavail * bsize < minFreeBytes) throw tooLittleFree(directory, bavail * bsize, minFreeBytes, dataDir);
    } catch (error) {
      // A store's directory not made yet (a start that failed before it) has nothing to say.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' && directory !== dataDir) continue;
      throw storageProblem(error, dataDir, directory) ?? error;
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: a process of another user holds that pid, so it is alive.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Creates the directory if needed, keeps it 0700 whatever it was (its files hold the pull secrets,
 * token hashes and kubeadmin passwords), and takes its lock. `release` gives the lock back.
 * A directory that cannot be made, kept or locked throws a DataDirectoryError saying why and what to do.
 */
export function claimDataDirectory(dataDir: string): { release(): void } {
  try {
    makeDirectory(dataDir);
    chmodSync(dataDir, 0o700);
  } catch (error) {
    throw storageProblem(error, dataDir) ?? error;
  }
  const file = path.join(dataDir, LOCK_FILE);
  const holder = { pid: process.pid, token: randomUUID() };
  for (let attempt = 1; ; attempt++) {
    let fd: number | undefined;
    try {
      fd = openSync(file, 'wx', 0o600);
      writeSync(fd, JSON.stringify(holder));
      fsyncSync(fd);
      closeSync(fd);
      break;
    } catch (error) {
      if (fd !== undefined) {
        // Made but not written (a full disk): not a lock anyone holds.
        closeSync(fd);
        try {
          unlinkSync(file);
        } catch {
          // Gone already.
        }
      }
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= ATTEMPTS) throw storageProblem(error, dataDir) ?? error;
    }
    let pid = NaN;
    try {
      pid = Number((JSON.parse(readFileSync(file, 'utf8')) as { pid?: unknown }).pid);
    } catch {
      // Unreadable or half-written: taken over like a dead holder's.
    }
    if (Number.isInteger(pid) && pid > 0 && alive(pid)) {
      throw new Error(`data directory ${dataDir} is in use by another runtime (pid ${pid}); stop it, or set ASSISTED_DATA_DIR to another directory`);
    }
    try {
      unlinkSync(file);
    } catch {
      // Another start took it over first: the next attempt finds its lock.
    }
  }
  return {
    release() {
      try {
        if ((JSON.parse(readFileSync(file, 'utf8')) as { token?: string }).token === holder.token) unlinkSync(file);
      } catch {
        // Gone already: nothing to give back.
      }
    },
  };
}
