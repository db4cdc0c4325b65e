/** The benches' pricing of BatchGetItem reads by item size (bench/lifecycle/capacity.ts): DynamoDB Local reports 0 units for them. */
import { describe, expect, it } from 'vitest';
import { batchGetReadUnits, itemSizeBytes } from '../../bench/lifecycle/capacity.js';

describe('item sizes as DynamoDB bills them', () => {
  it('counts names, string bytes, number digits and nested maps', () => {
    // "pk" 2 + "ORG#1" 5; "n" 1 + 123456 (6 digits: 3 + 1); "ok" 2 + 1; "m" 1 + 3 + (1 + "a" 1 + "xy" 2)
    expect(itemSizeBytes({ pk: { S: 'ORG#1' }, n: { N: '123456' }, ok: { BOOL: true }, m: { M: { a: { S: 'xy' } } } })).toBe(7 + 5 + 3 + 8);
  });

  it("reads the document client's plain values the same as the wire's", () => {
    const plain = { pk: 'ORG#1#HOST#h', checked_in_at: '2026-11-29T14:00:00.000Z', news_version: 12, timestamp: 1764424800 };
    const wire = { pk: { S: plain.pk }, checked_in_at: { S: plain.checked_in_at }, news_version: { N: '12' }, timestamp: { N: '1764424800' } };
    expect(itemSizeBytes(plain)).toBe(itemSizeBytes(wire));
  });
});

describe('BatchGetItem read units', () => {
  const small = { pk: 'ORG#1#HOST#h', checked_in_at: '2026-11-29T14:00:00.000Z' };
  const large = { pk: 'ORG#1#HOST#h', blob: 'x'.repeat(9_000) };

  it('bills each item read at half a unit per 4 KB, rounded up, when eventually consistent', () => {
    const keys = (n: number) => Array.from({ length: n }, (_, i) => ({ pk: `k${i}` }));
    expect(batchGetReadUnits({ RequestItems: { t: { Keys: keys(3) } } }, { Responses: { t: [small, small, small] } })).toBe(1.5);
    expect(batchGetReadUnits({ RequestItems: { t: { Keys: keys(1) } } }, { Responses: { t: [large] } })).toBe(1.5);
  });

  it('bills a whole unit per 4 KB for a strongly consistent read', () => {
    expect(batchGetReadUnits({ RequestItems: { t: { ConsistentRead: true } } }, { Responses: { t: [small, large] } })).toBe(4);
  });

  it('bills a key with no item at the minimum, as a GetItem of it, and nothing for keys left unprocessed', () => {
    const keys = [{ pk: 'a' }, { pk: 'b' }, { pk: 'c' }, { pk: 'd' }];
    expect(batchGetReadUnits({ RequestItems: { t: { Keys: keys } } }, { Responses: { t: [small] } })).toBe(2);
    expect(batchGetReadUnits({ RequestItems: { t: { Keys: keys } } }, { Responses: { t: [small] }, UnprocessedKeys: { t: { Keys: [{ pk: 'd' }] } } })).toBe(
      1.5,
    );
  });
});
