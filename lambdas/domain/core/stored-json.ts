/**
 * Reading the JSON documents stored on a host (inventory, connectivity report, disk speeds...).
 * The validation of one host reads its peers' documents too, so judging each host of a cluster
 * parsed every peer's inventory again: work growing with the square of the cluster. A document is
 * parsed once per record read from the store and remembered beside that record (weakly: it goes
 * when the record goes), so the peers of a shared cluster listing cost a lookup after their first
 * parse. What comes back is shared between readers, hence deeply frozen: a reader that tried to
 * change it would throw instead of corrupting another's view. Pure: no I/O.
 */

type Attributes = Readonly<Record<string, unknown>>;

interface Remembered {
  text: string;
  value: unknown;
}

/** A JSON object (not a list, not null): its fields are read, each still to be checked. */

const parsedByRecord = new WeakMap<Attributes, Map<string, Remembered>>();

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value as object)) deepFreeze(child);
  }
  return value;
}

/**
 * The document stored as text in `attributes[field]`, parsed (and frozen): undefined when absent
 * or empty; throws like JSON.parse when the text is not JSON.
 */
export function parseStoredJson(attributes: Attributes, field: string): unknown {
  const text = attributes[field];
  if (typeof text !== 'string' || text === '') return undefined;
  let documents = parsedByRecord.get(attributes);
  // The text is compared too: a record's attributes object changed in place must not read stale.
  const known = documents?.get(field);
  if (known && known.text === text) return known.value;
  const value = deepFreeze(JSON.parse(text) as unknown);
  if (!documents) parsedByRecord.set(attributes, (documents = new Map()));
  documents.set(field, { text, value });
  return value;
}
