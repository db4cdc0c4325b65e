/**
 * Large text attributes (a host's inventory, connectivity report and validations, a cluster's
 * majority groups) are stored deflated. DynamoDB bills a write by the whole item's size in 1 KB
 * units, and every liveness write rewrites the host: a typical host item shrinks from ~18 KB to
 * ~6 KB. It also keeps a 1,000-peer connectivity report (~450 KB of JSON) under DynamoDB's 400 KB
 * item limit. The domain never sees it: records are packed on the way in and unpacked on the way out.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { LocalCache } from '../../ports/local-caches.js';
import type { Item } from './keys.js';

/** The item attribute holding the deflated ones, by name; they are absent from `attributes` then. */
export const PACKED_ATTRIBUTE = 'packedAttributes';
/** Shorter texts are stored as they are: deflating them saves less than a billing unit. */
export const PACK_AT_BYTES = 1_024;

/**
 * Deflating the same text again (a liveness write of an unchanged host) is skipped: texts read or
 * written recently keep their deflated form, up to the cache's bytes.
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
    packed = deflateRawSync(text);
    remember(text, packed);
  }
  return packed;
}

/**
 * The text last inflated for an item's packed attribute (by item key and attribute name), served
 * again while the stored bytes are the same: a cluster listed every few seconds inflates only the
 * hosts that changed, and hands out the same string, whose parse stored-json then finds.
 */
const inflatedTexts = new LocalCache<{ bytes: Uint8Array; text: string }>('inflated-texts', {
  sizeOf: (key, entry) => key.length + entry.text.length + entry.bytes.byteLength,
});

function inflated(bytes: Uint8Array, place: string | undefined): string {
  const known = place === undefined ? undefined : inflatedTexts.peek(place);
  if (
    known &&
    Buffer.from(known.bytes.buffer, known.bytes.byteOffset, known.bytes.byteLength).equals(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))
  )
    return known.text;
  const text = inflateRawSync(bytes).toString('utf8');
  // A copy of exactly its bytes: the SDK's buffers are views into larger ones.
  if (place !== undefined && inflatedTexts.enabled) inflatedTexts.set(place, { bytes: new Uint8Array(bytes), text });
  return text;
}

/** The item with its long string `attributes` moved, deflated, to PACKED_ATTRIBUTE. */
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
  return packed ? { ...item, attributes: kept, [PACKED_ATTRIBUTE]: packed } : item;
}

/**
 * The item as it was before packItem. Items stored before packing existed come back unchanged.
 * `remember: false` for listings: their texts are seldom written back by this instance, and
 * remembering each one keys the cache by the whole text (hashing every ~37 KB inventory of a
 * 1,000-host listing cost more than the listing's other work in the profile).
 */
export function unpackItem(item: Item, options: { remember?: boolean } = {}): Item {
  const packed = item[PACKED_ATTRIBUTE];
  if (!packed || typeof packed !== 'object') return item;
  const attributes: Item = { ...(typeof item.attributes === 'object' ? item.attributes : {}) };
  const itemKey = typeof item.pk === 'string' && typeof item.sk === 'string' ? `${item.pk}|${item.sk}|` : undefined;
  for (const [name, bytes] of Object.entries(packed)) {
    const text = inflated(bytes, itemKey === undefined ? undefined : itemKey + name);
    if (options.remember !== false) remember(text, bytes);
    attributes[name] = text;
  }
  const unpacked: Item = { ...item, attributes };
  delete unpacked[PACKED_ATTRIBUTE];
  return unpacked;
}
