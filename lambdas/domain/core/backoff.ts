/**
 * How long to wait before a retry: "full jitter" exponential backoff, a random time up to
 * `baseMs`·2^attempt, at most `capMs`. Retries of writers that collided on one item, or of callers
 * a store throttled, spread apart instead of colliding again in step, so the attempts stay near
 * linear in the number of callers instead of quadratic. The one backoff of the service's retries.
 */
export function backoffMs(attempt: number, { baseMs, capMs = 2_000 }: { baseMs: number; capMs?: number }): number {
  return Math.random() * Math.min(capMs, baseMs * 2 ** attempt);
}
