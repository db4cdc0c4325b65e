/**
 * Text attributes of a record (a host's inventory, connectivity report, domain resolutions and
 * validations, a cluster's majority groups) are stored deflated. DynamoDB bills a write by the whole
 * item's size in 1 KB units, and a read in 4 KB units (a host's read with its liveness item, in one
 * Query, by their sum): a typical host item shrinks from ~18 KB to ~3.5 KB, read at 1 RRU. It also
 * keeps a 1,000-peer connectivity report (~450 KB of JSON) under DynamoDB's 400 KB item limit. The
 * domain never sees it: records are packed on the way in and unpacked on the way out.
 *
 * Texts are deflated with a preset dictionary (packing-dictionary-1.json: the documents' JSON keys
 * and the validations' messages), which takes a host's validations from ~1.4 KB deflated to ~0.2 KB.
 * Items written before it hold their texts deflated without one, under PACKED_ATTRIBUTE: they are
 * read as they are, and written back with the dictionary.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { LocalCache } from '../../ports/local-caches.js';
import packingDictionary from './packing-dictionary-1.json' with { type: 'json' };
import type { Item } from './keys.js';

/** The item attribute holding texts deflated without a dictionary (written before it), by name: read only. */
export const PACKED_ATTRIBUTE = 'packedAttributes';
/** The item attribute holding the texts deflated with DICTIONARY, by name; they are absent from `attributes` then. */
export const DICTIONARY_PACKED_ATTRIBUTE = 'packedWithDictionary1';
/** Shorter texts are stored as they are: deflating them saves a few bytes at most. */
export const PACK_AT_BYTES = 256;

const DICTIONARY = Buffer.from(packingDictionary.parts.join(''), 'utf8');
/** Deflate's options for each packed attribute's texts. */
const FORMATS = { [PACKED_ATTRIBUTE]: {}, [DICTIONARY_PACKED_ATTRIBUTE]: { dictionary: DICTIONARY } } as const;
type PackedAttribute = keyof typeof FORMATS;

/**
 * Deflating the same text again (a liveness write of an unchanged host) is skipped: texts read or
 * written recently keep their form deflated with the dictionary, up to the cache's bytes.
 */
const recent = new LocalCache<Uint8Array>('deflated-texts', { sizeOf: (text, bytes) => text.length + bytes.byteLength });

function remember(text: string, bytes: Uint8Array): void {
  if (!recent.enabled || recent.peek(text)) return;
  // A copy of exactly its bytes: zlib's and the SDK's buffers are views into larger ones, which the
  // budget would not count.
  recent.set(text, new Uint8Array(bytes));
}

function deflated(text: string): Uint8Array {
  let packed = recent.peek(text);
  if (!packed) {
    packed = deflateRawSync(text, FORMATS[DICTIONARY_PACKED_ATTRIBUTE]);
    remember(text, packed);
  }
  return packed;
}

/**
 * The text last inflated for an item's packed attribute (by item key, packed attribute and
 * attribute name), served again while the stored bytes are the same: a cluster listed every few
 * seconds inflates only the hosts that changed, and hands out the same string, whose parse
 * stored-json then finds.
 */
const inflatedTexts = new LocalCache<{ bytes: Uint8Array; text: string }>('inflated-texts', {
  sizeOf: (key, entry) => key.length + entry.text.length + entry.bytes.byteLength,
});

function inflated(bytes: Uint8Array, format: PackedAttribute, place: string | undefined): string {
  const known = place === undefined ? undefined : inflatedTexts.peek(place);
  if (
    known &&
    Buffer.from(known.bytes.buffer, known.bytes.byteOffset, known.bytes.byteLength).equals(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))
  )
    return known.text;
  const text = inflateRawSync(bytes, FORMATS[format]).toString('utf8');
  // A copy of exactly its bytes: the SDK's buffers are views into larger ones.
  if (place !== undefined && inflatedTexts.enabled) inflatedTexts.set(place, { bytes: new Uint8Array(bytes), text });
  return text;
}

/** The item with its long string `attributes` moved, deflated with the dictionary, to DICTIONARY_PACKED_ATTRIBUTE. */
export function packItem<T extends Record<string, unknown>>(item: T): T {
  const attributes = item.attributes;
  if (!attributes || typeof attributes !== 'object') return item;
  let packed: Record<string, Uint8Array> | undefined;
  let kept: Record<string, unknown> | undefined;
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value !== 'string' || value.length < PACK_AT_BYTES) continue;
    packed ??= {};
    kept ??= { ...attributes };
    packed[name] = deflated(value);
    delete kept[name];
  }
  return packed ? { ...item, attributes: kept, [DICTIONARY_PACKED_ATTRIBUTE]: packed } : item;
}

/**
 * The item as it was before packItem, whichever way its texts were packed. Items stored before
 * packing existed come back unchanged. `remember: false` for listings: their texts are seldom
 * written back by this instance, and remembering each one keys the cache by the whole text (hashing
 * every ~37 KB inventory of a 1,000-host listing cost more than the listing's other work in the
 * profile).
 */
export function unpackItem(item: Item, options: { remember?: boolean } = {}): Item {
  const formats = (Object.keys(FORMATS) as PackedAttribute[]).filter((format) => item[format] && typeof item[format] === 'object');
  if (formats.length === 0) return item;
  const attributes: Item = { ...(typeof item.attributes === 'object' ? item.attributes : {}) };
  const itemKey = typeof item.pk === 'string' && typeof item.sk === 'string' ? `${item.pk}|${item.sk}|` : undefined;
  const unpacked: Item = { ...item, attributes };
  for (const format of formats) {
    for (const [name, bytes] of Object.entries(item[format] as Record<string, Uint8Array>)) {
      const text = inflated(bytes, format, itemKey === undefined ? undefined : `${itemKey}${format}|${name}`);
      // Only bytes in the form packItem writes serve a later write of the same text.
      if (options.remember !== false && format === DICTIONARY_PACKED_ATTRIBUTE) remember(text, bytes);
      attributes[name] = text;
    }
    delete unpacked[format];
  }
  return unpacked;
}
