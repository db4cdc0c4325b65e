import { setTimeout as sleep } from 'node:timers/promises';

export { freePort } from '../../bin/local/net.js';
export { sleep };

/** Polls until `probe` yields a value; bounded by `timeoutMs`. */
export async function until<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 15_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await sleep(25);
  }
}
