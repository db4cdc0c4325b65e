/**
 * scrypt for the identity stand-in, away from everything else the local runtime does. A password
 * check costs about 50 ms of CPU; on the event loop the API gateway shares, 8 concurrent wrong
 * sign-ins raised the API's median latency tenfold (issue 44). Here hashes run in one worker thread,
 * one at a time, and on Linux that thread runs at the a low CPU priority (nice 10), so on a busy
 * machine the API's threads (and DynamoDB Local's) come first and sign-ins wait instead.
 */
import { Worker } from 'node:worker_threads';

// CommonJS, evaluated: no loader or build step for a file of its own.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { scryptSync } = require('node:crypto');
const { readlinkSync } = require('node:fs');
const { setPriority } = require('node:os');
try {
  // On Linux /proc/thread-self names this thread's id, and setpriority on a thread id renices that thread only.
  setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), 10);
} catch {}
parentPort.on('message', ({ id, secret, salt, length }) => {
  try {
    parentPort.postMessage({ id, key: scryptSync(secret, salt, length) });
  } catch (error) {
    parentPort.postMessage({ id, error: String(error) });
  }
});
`;

interface Pending {
  resolve(key: Buffer): void;
  reject(error: Error): void;
}

let worker: Worker | undefined;
const pending = new Map<number, Pending>();
let nextId = 0;

function hashingWorker(): Worker {
  if (worker) return worker;
  const started = new Worker(WORKER_SOURCE, { eval: true });
  // It serves whichever runtime runs in this process, and keeps none of them alive.
  started.unref();
  started.on('message', ({ id, key, error }: { id: number; key?: Uint8Array; error?: string }) => {
    const waiting = pending.get(id);
    pending.delete(id);
    if (key) waiting?.resolve(Buffer.from(key));
    else waiting?.reject(new Error(`scrypt failed: ${error}`));
  });
  const lost = (reason: string) => {
    if (worker === started) worker = undefined;
    for (const waiting of pending.values()) waiting.reject(new Error(`the hashing thread stopped: ${reason}`));
    pending.clear();
  };
  started.on('error', (error) => lost(error.message));
  started.on('exit', (code) => lost(`exit ${code}`));
  worker = started;
  return started;
}

/** scrypt(secret, salt) with Node's default cost (N=16384, r=8, p=1), off the event loop, queued. */
export function scryptOffThread(secret: string, salt: string, length = 32): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    hashingWorker().postMessage({ id, secret, salt, length });
  });
}
