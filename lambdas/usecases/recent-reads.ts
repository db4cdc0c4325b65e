/**
 * Reads shared by the requests of one process for a short while. Hundreds of agents of one
 * cluster poll every few seconds: each reading the same cluster record (or re-checking the same
 * infra-env, or re-verifying the same token signature) would multiply the work of the hottest path
 * by the size of the fleet. One read is in flight per key; a failed read is not remembered.
 * Bounded: the oldest entries go first.
 */
export class RecentReads<V> {
  private readonly entries = new Map<string, { at: number; value: Promise<V> }>();

  constructor(
    private readonly maxAgeMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(key: string, read: () => Promise<V>, now = Date.now()): Promise<V> {
    const known = this.entries.get(key);
    if (known && now - known.at < this.maxAgeMs) return known.value;
    const value = read();
    const entry = { at: now, value };
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    value.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return value;
  }

  forget(key: string): void {
    this.entries.delete(key);
  }
}
