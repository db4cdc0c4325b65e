/**
 * Reading a JSON document that came over the wire (or back from storage) into its wire type, the
 * lenient way upstream's Go service reads one: a field of the wrong type, or null, reads as absent;
 * a list item of the wrong shape is left out; fields the type does not know are kept as they are.
 * Only a document whose top level is not its type's (an object, a list), or that lacks a field its
 * type requires, does not read at all (undefined). What is read is frozen: readers share it. Pure.
 */

/** The value as a T, or undefined when it cannot be one. */
export type Reader<T> = (value: unknown) => T | undefined;

/** A JSON object (not a list, not null); what the readers below return of one is frozen. */
export const isJsonObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The JSON kind of a parsed value: 'null', 'array', 'object', 'string', 'number' or 'boolean'. */
export const jsonKind = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

/**
 * The value with every object's keys in sorted order, as Go's JSON encoder writes maps (upstream's
 * event props, feature usage). The store does not keep the order of a map's keys.
 */
export function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (!isJsonObject(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortedKeys(value[key])]),
  );
}

/** The same JSON value, whatever the order of each object's keys (a key whose value is undefined counts as absent). */
export const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(sortedKeys(a)) === JSON.stringify(sortedKeys(b));

export const text: Reader<string> = (value) => (typeof value === 'string' ? value : undefined);
/** A string with something in it: '' reads as absent, as a Go zero value does. */
export const nonEmptyText: Reader<string> = (value) => (typeof value === 'string' && value !== '' ? value : undefined);
/** The value when it is a string, else '' (upstream's Go reads a missing or mistyped string as its zero value). */
export const textOrEmpty = (value: unknown): string => (typeof value === 'string' ? value : '');
export const finite: Reader<number> = (value) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
export const flag: Reader<boolean> = (value) => (typeof value === 'boolean' ? value : undefined);

/** A string of an enumeration; the record names every member, so tsc sees one added to the type. */
export function oneOf<T extends string>(members: Readonly<Record<T, true>>): Reader<T> {
  const isMember = (value: string): value is T => Object.hasOwn(members, value);
  return (value) => (typeof value === 'string' && isMember(value) ? value : undefined);
}

export function listOf<T>(item: Reader<T>): Reader<T[]> {
  return (value) => {
    if (!Array.isArray(value)) return undefined;
    const items = value.flatMap((entry) => {
      const read = item(entry);
      return read === undefined ? [] : [read];
    });
    Object.freeze(items);
    return items;
  };
}

/** An object whose every value is a T (a map by name); values that are not are left out. */
export function recordOf<T>(item: Reader<T>): Reader<Record<string, T>> {
  return (value) => {
    if (!isJsonObject(value)) return undefined;
    const read: Record<string, T> = {};
    for (const [key, entry] of Object.entries(value)) {
      const got = item(entry);
      if (got !== undefined) read[key] = got;
    }
    return Object.freeze(read);
  };
}

/**
 * The reader, remembering what it read of each document object (weakly: it goes with the
 * document): for documents read many times, such as a stored inventory that every peer's
 * validation reads. The document must not change once read (stored ones are frozen).
 */
export function remembered<T>(read: Reader<T>): Reader<T> {
  const known = new WeakMap<object, { value: T | undefined }>();
  return (document) => {
    if (typeof document !== 'object' || document === null) return read(document);
    const hit = known.get(document);
    if (hit) return hit.value;
    const value = read(document);
    known.set(document, { value });
    return value;
  };
}

type RequiredKey<T> = { [K in keyof T]-?: undefined extends T[K] ? never : K }[keyof T];
/** A reader for every field of T, none left out (tsc says which is missing or misnamed). */
export type FieldReaders<T> = { readonly [K in keyof T]-?: Reader<Exclude<T[K], undefined>> };
/** The fields T requires, every one of them, when it requires any. */
type RequiredFields<T> = [RequiredKey<T>] extends [never] ? [] : [required: { readonly [K in RequiredKey<T>]: true }];

export function shapeOf<T extends object>(fields: FieldReaders<T>, ...[required]: RequiredFields<T>): Reader<T> {
  const requires = (key: string) => !!required && Object.hasOwn(required, key);
  return (value) => {
    if (!isJsonObject(value)) return undefined;
    const read: Record<string, unknown> = { ...value };
    for (const key in fields) {
      const field = Object.hasOwn(value, key) ? fields[key](value[key]) : undefined;
      if (field !== undefined) read[key] = field;
      else if (requires(key)) return undefined;
      else delete read[key];
    }
    // The one place a shape is asserted: every field T declares went through its reader just
    // above (FieldReaders<T> leaves none out), and every field T requires is present.
    return Object.freeze(read) as T;
  };
}
