/** The simulated agents' side of the wire: HTTP calls with an agent token, a bounded work pool, a clock that can run fast. */
import http from 'node:http';
import type { Clock } from '../../lambdas/ports/clock.js';
import { loadResult, type LoadResult } from '../load.js';

export interface AgentClient {
  /** `extraHeaders` for this call only (another infra-env's agent token on the same sockets). */
  call(method: string, route: string, body?: unknown, extraHeaders?: Record<string, string>): Promise<{ status: number; body: string }>;
  close(): void;
}

/** Keep-alive connections, at most `sockets`, to `${baseUrl}/api/assisted-install/v2`. */
export function agentClient(baseUrl: string, headers: Record<string, string>, sockets: number): AgentClient {
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  const prefix = `${baseUrl}/api/assisted-install/v2`;
  return {
    call: (method, route, body, extraHeaders) =>
      new Promise((resolve, reject) => {
        const payload = body === undefined ? undefined : JSON.stringify(body);
        const request = http.request(
          `${prefix}${route}`,
          {
            method,
            agent,
            headers: { ...headers, ...extraHeaders, ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) } : {}) },
          },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
            response.on('error', reject);
          },
        );
        request.setTimeout(60_000, () => request.destroy(new Error(`${method} ${route} timed out`)));
        request.on('error', reject);
        request.end(payload);
      }),
    close: () => agent.destroy(),
  };
}

/** Runs `task` once per item with `concurrency` workers; the rate and latencies of the whole batch. */
export async function eachBounded<T>(items: readonly T[], concurrency: number, task: (item: T, index: number) => Promise<boolean>): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        const t0 = performance.now();
        const ok = await task(items[index]!, index).catch(() => false);
        latencies.push(performance.now() - t0);
        if (!ok) errors += 1;
      }
    }),
  );
  return loadResult(latencies, errors, started);
}

/**
 * Real time until `speedUp` is called; from then on simulated time runs `factor` times faster,
 * continuing from where it was, so every timeout of the service (disconnection after 3 minutes,
 * the 30 s check-in write interval, the agents' poll interval) shrinks by the same factor.
 */
export class CompressibleClock implements Clock {
  private realBase = Date.now();
  private simulatedBase = this.realBase;
  private factor = 1;

  now(): Date {
    return new Date(this.simulatedBase + (Date.now() - this.realBase) * this.factor);
  }

  speedUp(factor: number): void {
    this.simulatedBase = this.now().getTime();
    this.realBase = Date.now();
    this.factor = factor;
  }

  /** Real milliseconds that `simulatedMs` of service time take now. */
  realMs(simulatedMs: number): number {
    return simulatedMs / this.factor;
  }
}
