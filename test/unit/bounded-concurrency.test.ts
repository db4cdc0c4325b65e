import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { forEachBounded, mapBounded } from '../../lambdas/domain/core/bounded-concurrency.js';

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('bounded concurrency', () => {
  it('never runs more than the bound at once, and visits every item once', async () => {
    let running = 0;
    let peak = 0;
    const seen: number[] = [];
    await forEachBounded([...Array(50).keys()], 4, async (item) => {
      running += 1;
      peak = Math.max(peak, running);
      await tick();
      seen.push(item);
      running -= 1;
    });
    expect(peak).toBe(4);
    expect(seen.sort((a, b) => a - b)).toEqual([...Array(50).keys()]);
  });

  it('keeps the order of the items in its results whatever order they finish in', async () => {
    const results = await mapBounded([30, 10, 20, 0], 3, async (delay) => {
      await sleep(delay);
      return delay * 2;
    });
    expect(results).toEqual([60, 20, 40, 0]);
  });

  it('passes on the first failure', async () => {
    await expect(
      forEachBounded([1, 2, 3], 2, async (item) => {
        if (item === 2) throw new Error('two failed');
      }),
    ).rejects.toThrow('two failed');
  });

  it('does nothing for no items, and treats a bound below one as one', async () => {
    let visits = 0;
    await forEachBounded([], 8, async () => {
      visits += 1;
    });
    expect(visits).toBe(0);
    let running = 0;
    let peak = 0;
    await forEachBounded([1, 2, 3], 0, async () => {
      running += 1;
      peak = Math.max(peak, running);
      await tick();
      running -= 1;
    });
    expect(peak).toBe(1);
  });
});
