/**
 * The runtime's data directory belongs to one runtime at a time. Two `npm start` on one directory
 * ran two databases on the same files and two schedulers; the second now stops with a message.
 * The lock is a file naming its holder's pid: a holder that died (kill -9, a crash) leaves one
 * whose pid is gone, which the next start takes over.
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync, closeSync } from 'node:fs';
import path from 'node:path';

export const LOCK_FILE = 'lock';
const ATTEMPTS = 3;

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
 */
export function claimDataDirectory(dataDir: string): { release(): void } {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  chmodSync(dataDir, 0o700);
  const file = path.join(dataDir, LOCK_FILE);
  const holder = { pid: process.pid, token: randomUUID() };
  for (let attempt = 1; ; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, JSON.stringify(holder));
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= ATTEMPTS) throw error;
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
