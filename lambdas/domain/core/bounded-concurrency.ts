/**
 * Visits every item with at most `inFlight` visits running at once, in the items' order: a listing
 * of a thousand clusters or hosts would otherwise start a thousand table reads together, and queue
 * every other request of the instance behind them.
 */
export async function forEachBounded<T>(items: readonly T[], inFlight: number, visit: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(Math.max(1, inFlight), items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        await visit(items[index]!, index);
      }
    }),
  );
}

/** The results of `map` for every item, in the items' order, with at most `inFlight` running at once. */
export async function mapBounded<T, R>(items: readonly T[], inFlight: number, map: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  await forEachBounded(items, inFlight, async (item, index) => {
    results[index] = await map(item);
  });
  return results;
}
