/** A bounded closed-loop load generator: `concurrency` workers repeat `task` until `durationMs` passes. */
export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

export async function closedLoop(task: () => Promise<boolean>, options: { concurrency: number; durationMs: number; warmupMs?: number }): Promise<LoadResult> {
  if (options.warmupMs) {
    const warmEnd = Date.now() + options.warmupMs;
    await Promise.all(
      Array.from({ length: options.concurrency }, async () => {
        while (Date.now() < warmEnd) await task().catch(() => false);
      }),
    );
  }
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const end = Date.now() + options.durationMs;
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (Date.now() < end) {
        const t0 = performance.now();
        const ok = await task().catch(() => false);
        latencies.push(performance.now() - t0);
        if (!ok) errors += 1;
      }
    }),
  );
  return loadResult(latencies, errors, started);
}

/** The rate and latency percentiles of requests timed since `started` (performance.now()). */
export function loadResult(latencies: number[], errors: number, started: number): LoadResult {
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { requests: latencies.length, errors, seconds, perSecond: latencies.length / seconds, p50Ms: at(0.5), p99Ms: at(0.99) };
}

export function describe(result: LoadResult): string {
  return `${result.perSecond.toFixed(0)}/s (${result.requests} in ${result.seconds.toFixed(1)} s, p50 ${result.p50Ms.toFixed(1)} ms, p99 ${result.p99Ms.toFixed(1)} ms, errors ${result.errors})`;
}
