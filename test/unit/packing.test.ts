import { describe, expect, it } from 'vitest';
import { PACK_AT_BYTES, PACKED_ATTRIBUTE, packItem, unpackItem } from '../../lambdas/adapters/dynamodb/packing.js';

const long = (seed: string) => JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ seed, i, note: 'déjà vu ✓' })));

describe('packing long text attributes of stored items', () => {
  it('deflates the long strings of `attributes` and gives them back unchanged, including non-ASCII text', () => {
    const item = {
      pk: 'p',
      status: 'known',
      attributes: { inventory: long('a'), validations_info: long('b'), role: 'master', counter: 3, nested: { deep: long('c') } },
    };
    const packed = packItem(item);
    expect(Object.keys(packed.attributes as object).sort()).toEqual(['counter', 'nested', 'role']);
    expect(Object.keys(packed[PACKED_ATTRIBUTE as keyof typeof packed] as object).sort()).toEqual(['inventory', 'validations_info']);
    expect(JSON.stringify(packed).length).toBeLessThan(JSON.stringify(item).length);
    expect(unpackItem(packed)).toEqual(item);
    // The caller's record is left as it was.
    expect(item.attributes.inventory).toBe(long('a'));
  });

  it('leaves items without long texts, and items stored before packing existed, as they are', () => {
    const short = { pk: 'p', attributes: { role: 'x'.repeat(PACK_AT_BYTES - 1) } };
    expect(packItem(short)).toBe(short);
    expect(unpackItem(short)).toBe(short);
    const noAttributes = { pk: 'p' };
    expect(packItem(noAttributes)).toBe(noAttributes);
  });

  it('packs the same text to the same bytes when written again', () => {
    const text = long('again');
    const first = packItem({ attributes: { inventory: text } }) as unknown as Record<string, Record<string, Uint8Array>>;
    const again = packItem({ attributes: { inventory: `${text}` } }) as unknown as Record<string, Record<string, Uint8Array>>;
    expect(Buffer.from(again[PACKED_ATTRIBUTE]!.inventory!).equals(Buffer.from(first[PACKED_ATTRIBUTE]!.inventory!))).toBe(true);
  });

  it('unpacks a listed item alike without keeping its texts for writing back', () => {
    const item = { pk: 'p', attributes: { inventory: long('listed'), role: 'worker' } };
    const packed = packItem(item);
    expect(unpackItem(packed, { remember: false })).toEqual(item);
  });

  it('inflates a listed item again only when its stored bytes changed', () => {
    const first = packItem({ pk: 'h', sk: 'HOST', attributes: { inventory: long('v1') } });
    const read = (item: Record<string, unknown>) => (unpackItem(item, { remember: false }).attributes as Record<string, string>).inventory;
    const once = read(first);
    expect(read(structuredClone(first))).toBe(once);
    // The same item rewritten with another text: its new bytes are inflated, not the old text served.
    const second = packItem({ pk: 'h', sk: 'HOST', attributes: { inventory: long('v2') } });
    expect(read(second)).toBe(long('v2'));
    expect(read(first)).toBe(long('v1'));
  });
});
