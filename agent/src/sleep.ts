import { setTimeout as wait } from 'node:timers/promises';

/** Waits `ms`, or less when the signal aborts: then without an error, for the caller checks its signal. Never rejects. */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  await wait(Math.max(0, ms), undefined, { signal }).catch((error: unknown) => {
    if (!signal?.aborted) throw error;
  });
}
