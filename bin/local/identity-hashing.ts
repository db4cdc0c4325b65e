/**
 * scrypt for the identity stand-in, away from everything else the local runtime does. A password
 * check costs about 50 ms of CPU; on the event loop the API gateway shares, 8 concurrent wrong
 * sign-ins raised the API's median latency tenfold (issue 44). Here:
 *
 * - hashes run in one worker thread, one at a time, at a low CPU priority on Linux (nice 10);
 * - within a budget: after each hash the next waits REST_FACTOR times as long as that one took, so
 *   hashing takes at most a quarter of one core however many sign-ins queue. Priority alone is not
 *   enough: scrypt's 16 MiB working set evicts the cache the other core's work shares, and on a
 *   2-core machine continuous hashing at the lowest priority still slowed the API's median by
 *   30-40 %. A lone sign-in does not wait; with 8 queued the last waits a few seconds, and the
 *   lockouts (identity-attempts.ts) keep such queues short;
 * - a sign-in whose client has gone (its signal aborted) leaves the queue unhashed.
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
parentPort.on('message', ({ secret, salt, length }) => {
  try {
    parentPort.postMessage({ key: scryptSync(secret, salt, length) });
  } catch (error) {
    parentPort.postMessage({ error: String(error) });
  }
});
`;

const REST_FACTOR = 3;

interface Job {
  secret: string;
  salt: string;
  length: number;
  signal?: AbortSignal;
  resolve(key: Buffer): void;
  reject(error: Error): void;
}

const queue: Job[] = [];
let worker: Worker | undefined;
/** The job the worker is hashing, if any. */
let current: Job | undefined;
/** When the next hash may start (the rest after the last one). */
let nextStart = 0;
let wakeUp: NodeJS.Timeout | undefined;
let hashStartedAt = 0;
let hashed = 0;

function hashingWorker(): Worker {
  if (worker) return worker;
  const started = new Worker(WORKER_SOURCE, { eval: true });
  // It serves whichever runtime runs in this process, and keeps none of them alive.
  started.unref();
  started.on('message', ({ key, error }: { key?: Uint8Array; error?: string }) => {
    const job = current;
    current = undefined;
    hashed += 1;
    nextStart = performance.now() + (performance.now() - hashStartedAt) * REST_FACTOR;
    if (key) job?.resolve(Buffer.from(key));
    else job?.reject(new Error(`scrypt failed: ${error}`));
    dispatch();
  });
  const lost = (reason: string) => {
    if (worker === started) worker = undefined;
    current?.reject(new Error(`the hashing thread stopped: ${reason}`));
    current = undefined;
    dispatch();
  };
  started.on('error', (error) => lost(error.message));
  started.on('exit', (code) => lost(`exit ${code}`));
  worker = started;
  return started;
}

/** Starts the next job still wanted, once the rest after the last hash is over. */
function dispatch(): void {
  if (current || wakeUp) return;
  while (queue[0]?.signal?.aborted) queue.shift()!.reject(new Error('the sign-in was abandoned'));
  const job = queue.shift();
  if (!job) return;
  const wait = nextStart - performance.now();
  if (wait > 0) {
    queue.unshift(job);
    wakeUp = setTimeout(() => {
      wakeUp = undefined;
      dispatch();
    }, wait);
    wakeUp.unref();
    return;
  }
  current = job;
  hashStartedAt = performance.now();
  hashingWorker().postMessage({ secret: job.secret, salt: job.salt, length: job.length });
}

/** scrypt(secret, salt) with Node's default cost (N=16384, r=8, p=1), off the event loop, queued. */
export function scryptOffThread(secret: string, salt: string, options: { signal?: AbortSignal; length?: number } = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    queue.push({ secret, salt, length: options.length ?? 32, signal: options.signal, resolve, reject });
    dispatch();
  });
}

/** Sign-ins waiting for their hash or in it, and hashes done since the process started: for tests and logs. */
export const hashingStats = () => ({ waiting: queue.filter((job) => !job.signal?.aborted).length + (current ? 1 : 0), hashed });
