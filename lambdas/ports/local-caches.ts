/**
 * Caches in one function instance's memory. In AWS every function runs as many containers, each
 * with memory of its own, and the local runtime runs them as separate instances too: a cache here
 * only saves work. It never decides an outcome: every decision is a conditional write on the stored
 * version or is checked against the store, and the service behaves the same with every cache off
 * (ASSISTED_LOCAL_CACHES=off; the test suite runs scenes that way).
 *
 * Every cache is named in local-caches.json with what it saves and how stale what it serves may be:
 * that file is the one place its bound is stated, and this module the only way to make one.
 */
import catalogue from './local-caches.json' with { type: 'json' };

export type CacheName = keyof typeof catalogue;

export interface CacheSpec {
  /** How long an entry serves; null when entries never go stale (keyed by their own content). */
  maxAgeMs: number | null;
  maxEntries: number;
  /** For caches that hold bytes: the most they hold in all. */
  maxBytes?: number;
  /**
   * For entries whose lifetime depends on what they cost to make: they serve for servesMs, or
   * servesListingTimes what making them took when that is longer.
   */
  servesMs?: number;
  servesListingTimes?: number;
  saves: string;
  staleness: string;
}

export const CACHE_SPECS: Readonly<Record<CacheName, CacheSpec>> = catalogue;

/** Whether this process keeps caches (the composition root's environment decides; on unless `off`). */
export function localCachesEnabled(): boolean {
  return process.env.ASSISTED_LOCAL_CACHES !== 'off';
}

/**
 * A bounded map whose entries serve for the spec's maxAgeMs at most; the oldest entries go first.
 * Switched off, it remembers nothing: every `peek` misses and every `read` reads.
 */
export class LocalCache<V> {
  readonly spec: CacheSpec;
  readonly enabled: boolean;
  private readonly entries = new Map<string, { at: number; value: V; bytes: number }>();
  private readonly sizeOf: ((key: string, value: V) => number) | undefined;
  private bytes = 0;

  /** `sizeOf`: what an entry holds, for a spec with maxBytes. */
  constructor(
    readonly name: CacheName,
    options: { enabled?: boolean; sizeOf?: (key: string, value: V) => number } = {},
  ) {
    this.spec = CACHE_SPECS[name];
    this.enabled = options.enabled ?? localCachesEnabled();
    this.sizeOf = options.sizeOf;
  }

  /** The value remembered for `key` if it is younger than the spec's bound (or `maxAgeMs`, when shorter or the spec has none). */
  peek(key: string, options: { now?: number; maxAgeMs?: number } = {}): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    const bound = Math.min(this.spec.maxAgeMs ?? Infinity, options.maxAgeMs ?? Infinity);
    if ((options.now ?? Date.now()) - entry.at >= bound) return undefined;
    return entry.value;
  }

  set(key: string, value: V, now = Date.now()): void {
    if (!this.enabled) return;
    const bytes = this.sizeOf?.(key, value) ?? 0;
    if (this.spec.maxBytes !== undefined && bytes > this.spec.maxBytes / 8) return;
    this.forget(key);
    this.entries.set(key, { at: now, value, bytes });
    this.bytes += bytes;
    while (this.entries.size > this.spec.maxEntries || (this.spec.maxBytes !== undefined && this.bytes > this.spec.maxBytes)) {
      this.forget(this.entries.keys().next().value!);
    }
  }

  forget(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }

  get size(): number {
    return this.entries.size;
  }
}

/**
 * Reads shared by the requests an instance serves at once and for the spec's bound: one read in
 * flight per key; a failed read is not remembered, nor one `keep` refuses.
 */
export class RecentReads<V> {
  private readonly cache: LocalCache<Promise<V>>;

  constructor(name: CacheName, options: { enabled?: boolean } = {}) {
    this.cache = new LocalCache(name, options);
  }

  get(key: string, read: () => Promise<V>, options: { now?: number; keep?: (value: V) => boolean } = {}): Promise<V> {
    const known = this.cache.peek(key, options);
    if (known) return known;
    const value = read();
    this.cache.set(key, value, options.now);
    value.then(
      (result) => {
        if (options.keep && !options.keep(result) && this.cache.peek(key) === value) this.cache.forget(key);
      },
      () => {
        if (this.cache.peek(key) === value) this.cache.forget(key);
      },
    );
    return value;
  }

  forget(key: string): void {
    this.cache.forget(key);
  }
}
