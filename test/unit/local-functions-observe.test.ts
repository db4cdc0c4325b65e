import { describe, expect, it } from 'vitest';
import { LocalFunctions, type InvocationRecord } from '../../bin/local/functions.js';

describe('LocalFunctions.observe', () => {
  it('tells each observer of every answered invocation, its duration and result, until it stops', async () => {
    const functions = new LocalFunctions([], {
      Pass: async () => ({ visited: 3 }),
      Fails: async () => {
        throw new Error('no');
      },
    });
    const seen: InvocationRecord[] = [];
    const stop = functions.observe((record) => seen.push(record));
    functions.observe(() => {
      throw new Error('an observer that throws changes nothing');
    });
    await expect(functions.invoke('Pass', {})).resolves.toEqual({ visited: 3 });
    await expect(functions.invoke('Fails', {})).rejects.toThrow('no');
    stop();
    await functions.invoke('Pass', {});
    expect(seen.map(({ name, ok, result }) => ({ name, ok, result }))).toEqual([
      { name: 'Pass', ok: true, result: { visited: 3 } },
      { name: 'Fails', ok: false, result: undefined },
    ]);
    expect(seen.every((record) => record.ms >= 0)).toBe(true);
  });
});
