import { createHash } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import packingDictionary from '../../lambdas/adapters/dynamodb/packing-dictionary-1.json' with { type: 'json' };
import { DICTIONARY_PACKED_ATTRIBUTE, PACK_AT_BYTES, PACKED_ATTRIBUTE, packItem, unpackItem } from '../../lambdas/adapters/dynamodb/packing.js';

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
    expect(Object.keys(packed[DICTIONARY_PACKED_ATTRIBUTE as keyof typeof packed] as object).sort()).toEqual(['inventory', 'validations_info']);
    expect(packed).not.toHaveProperty(PACKED_ATTRIBUTE);
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
    expect(Buffer.from(again[DICTIONARY_PACKED_ATTRIBUTE]!.inventory!).equals(Buffer.from(first[DICTIONARY_PACKED_ATTRIBUTE]!.inventory!))).toBe(true);
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

  it('reads items whose texts were deflated without the dictionary, and writes them back with it', () => {
    const inventory = long('before the dictionary');
    const stored = { pk: 'h-old', sk: 'HOST', attributes: { role: 'master' }, [PACKED_ATTRIBUTE]: { inventory: deflateRawSync(inventory) } };
    const read = unpackItem(stored);
    expect(read).toEqual({ pk: 'h-old', sk: 'HOST', attributes: { role: 'master', inventory } });
    // Its bytes are not remembered as the dictionary's form of the text: written back, it is deflated anew.
    const written = packItem(read) as Record<string, unknown>;
    expect(written).not.toHaveProperty(PACKED_ATTRIBUTE);
    expect(unpackItem(written, { remember: false })).toEqual(read);
    expect(Buffer.from((written[DICTIONARY_PACKED_ATTRIBUTE] as Record<string, Uint8Array>).inventory!).equals(deflateRawSync(inventory))).toBe(false);
  });

  it("packs a steady host's connectivity report, domain resolutions and validations small enough for one read unit", () => {
    const validation = (id: string, message: string) => ({ id, status: 'success', message });
    const validations_info = JSON.stringify({
      hardware: [
        validation('has-inventory', 'Valid inventory exists for the host'),
        validation('has-min-cpu-cores', 'Sufficient CPU cores'),
        validation('has-min-memory', 'Sufficient minimum RAM'),
        validation('has-cpu-cores-for-role', 'Sufficient CPU cores for role worker'),
        validation('hostname-unique', 'Hostname worker-7.example.com is unique in cluster'),
      ],
      network: [
        validation('connected', 'Host is connected'),
        validation('belongs-to-majority-group', 'Host has connectivity to the majority of hosts in the cluster'),
        validation('ntp-synced', 'Host NTP is synced'),
      ],
    });
    const domain_name_resolutions = JSON.stringify({
      resolutions: ['quay.io', 'api.c.example.com', 'api-int.c.example.com'].map((domain_name) => ({
        domain_name,
        ipv4_addresses: ['10.0.0.5'],
        ipv6_addresses: [],
        cnames: [],
      })),
    });
    const item = { pk: 'h', attributes: { validations_info, domain_name_resolutions } };
    const packed = packItem(item) as unknown as Record<string, Record<string, Uint8Array>>;
    const withDictionary = packed[DICTIONARY_PACKED_ATTRIBUTE]!;
    // The dictionary holds the validations' ids and messages and the documents' keys.
    expect(withDictionary.validations_info!.byteLength).toBeLessThan(deflateRawSync(validations_info).byteLength / 2);
    expect(withDictionary.domain_name_resolutions!.byteLength).toBeLessThan(deflateRawSync(domain_name_resolutions).byteLength);
    expect(unpackItem(packed)).toEqual(item);
  });

  it('keeps the dictionary that stored items were packed with, byte for byte', () => {
    // Items deflated with it inflate only with these exact bytes: a better dictionary is a new version.
    expect(createHash('sha256').update(packingDictionary.parts.join('')).digest('hex')).toBe(
      '89d589e4c67d1054da7efb07c823fac503505e202034a3286e9b2366eca01383',
    );
  });
});
