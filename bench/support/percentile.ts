/** The p-th percentile of values sorted ascending (nearest rank, rounded down), 0 of none: how every bench reports latencies. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
