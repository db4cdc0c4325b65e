import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CACHE_SPECS, LocalCache, RecentReads, type CacheName } from '../../lambdas/ports/local-caches.js';

const lambdas = path.resolve(import.meta.dirname, '../../lambdas');

function sources(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const file = path.join(directory, name);
    if (statSync(file).isDirectory()) return sources(file);
    return file.endsWith('.ts') ? [file] : [];
  });
}

describe('local caches', () => {
  it('states for every cache what it saves and how stale it may be', () => {
    for (const [name, spec] of Object.entries(CACHE_SPECS)) {
      expect(spec.saves.length, name).toBeGreaterThan(20);
      expect(spec.staleness.length, name).toBeGreaterThan(10);
      expect(spec.maxEntries, name).toBeGreaterThan(0);
      expect(spec.maxAgeMs === null || spec.maxAgeMs > 0, name).toBe(true);
    }
  });

  it('are made only through the port: no module of lambdas/ keeps a Map or Set of its own', () => {
    // An empty Map or Set at module level is state that outlives a request. Constant sets of literals
    // are not, nor WeakMaps keyed by an object (memos of pure work on that very object).
    const offenders = sources(lambdas)
      .filter((file) => !file.endsWith(path.join('ports', 'local-caches.ts')))
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .filter((line) => /^(export )?(const|let) \w+(: [^=]+)? = new (Map|Set)(<[^(]*>)?\(\)/.test(line))
          .map((line) => `${path.relative(lambdas, file)}: ${line.trim()}`),
      );
    expect(offenders).toEqual([]);
    const named = new Set<string>();
    for (const file of sources(lambdas)) {
      for (const match of readFileSync(file, 'utf8').matchAll(/new (?:LocalCache|RecentReads)(?:<[^(]*>)?\('([\w-]+)'/g)) named.add(match[1]!);
    }
    expect([...named].sort()).toEqual(Object.keys(CACHE_SPECS).sort());
  });

  it('serve an entry for the bound at most, and drop the oldest past the entry or byte budget', () => {
    const listings = new LocalCache<string>('infra-env-existence', { enabled: true });
    listings.set('a', 'A', 1_000);
    expect(listings.peek('a', { now: 1_000 + 59_999 })).toBe('A');
    expect(listings.peek('a', { now: 1_000 + 60_000 })).toBeUndefined();
    expect(listings.peek('a', { now: 1_500, maxAgeMs: 400 })).toBeUndefined();

    const texts = new LocalCache<Uint8Array>('deflated-texts', { enabled: true, sizeOf: (text, bytes) => text.length + bytes.byteLength });
    const quarter = CACHE_SPECS['deflated-texts'].maxBytes! / 8;
    for (let i = 0; i < 10; i++) texts.set(`${i}`.padEnd(quarter - 10, 'x'), new Uint8Array(8));
    expect(texts.size).toBe(8);
    expect(texts.peek('0'.padEnd(quarter - 10, 'x'))).toBeUndefined();
    expect(texts.peek('9'.padEnd(quarter - 10, 'x'))).toBeDefined();
  });

  it('remember nothing when switched off: every read reads', async () => {
    for (const name of Object.keys(CACHE_SPECS) as CacheName[]) {
      const cache = new LocalCache<number>(name, { enabled: false });
      cache.set('k', 1);
      expect(cache.peek('k'), name).toBeUndefined();
    }
    let reads = 0;
    const reader = new RecentReads<number>('infra-env-existence', { enabled: false });
    await Promise.all([reader.get('k', async () => ++reads), reader.get('k', async () => ++reads)]);
    expect(reads).toBe(2);
  });

  it('share one read in flight, and do not keep a failed or refused one', async () => {
    const reader = new RecentReads<boolean>('infra-env-existence', { enabled: true });
    let reads = 0;
    const readOnce = async () => {
      reads++;
      return true;
    };
    const [a, b] = await Promise.all([reader.get('k', readOnce), reader.get('k', readOnce)]);
    expect([a, b, reads]).toEqual([true, true, 1]);
    await expect(reader.get('failing', async () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await reader.get('failing', async () => true)).toBe(true);
    expect(await reader.get('missing', async () => false, { keep: (exists) => exists })).toBe(false);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await reader.get('missing', async () => true, { keep: (exists) => exists })).toBe(true);
  });
});
