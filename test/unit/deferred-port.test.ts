import { describe, expect, it } from 'vitest';
import { deferred } from '../../lambdas/platform/deferred.js';

interface Greeter {
  greet(name: string): Promise<string>;
  count(): Promise<number>;
}

describe('deferred port', () => {
  it('loads its adapter on the first call only, once, and forwards every call to it', async () => {
    let loads = 0;
    let calls = 0;
    const port = deferred<Greeter>({ greet: true, count: true }, async () => {
      loads++;
      return { greet: async (name) => `hello ${name}`, count: async () => ++calls };
    });
    expect(loads).toBe(0);
    expect(await Promise.all([port.greet('a'), port.greet('b'), port.count()])).toEqual(['hello a', 'hello b', 1]);
    expect(await port.count()).toBe(2);
    expect(loads).toBe(1);
  });

  it('passes the adapter’s own failures on, and tries a failed load again on the next call', async () => {
    let loads = 0;
    const port = deferred<Greeter>({ greet: true, count: true }, async () => {
      if (++loads === 1) throw new Error('chunk missing');
      return { greet: async () => Promise.reject(new Error('refused')), count: async () => 7 };
    });
    await expect(port.count()).rejects.toThrow('chunk missing');
    expect(await port.count()).toBe(7);
    await expect(port.greet('x')).rejects.toThrow('refused');
    expect(loads).toBe(2);
  });
});
