import type { Store } from '../../lambdas/ports/store.js';

/**
 * The store with `race` run once, just before the first `clusters.mutate`: another instance's
 * write landing between a use case's read and its conditional write. `mutates()` counts the
 * use case's own mutate calls.
 */
export function withRaceBeforeFirstClusterWrite(store: Store, race: () => Promise<unknown>): { store: Store; mutates: () => number } {
  let calls = 0;
  const clusters = new Proxy(store.clusters, {
    get(target, property) {
      if (property === 'mutate') {
        return async (...args: Parameters<typeof target.mutate>) => {
          if (calls++ === 0) await race();
          return target.mutate(...args);
        };
      }
      const value = Reflect.get(target, property) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store: { ...store, clusters }, mutates: () => calls };
}
