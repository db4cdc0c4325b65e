/**
 * Merging a user's Ignition config over a generated one, with the rules Ignition's own config
 * merger applies (coreos/ignition `config/merge`), which upstream uses for
 * `ignition_config_override`. Working on plain JSON, the rules are:
 *   - objects merge key by key; a key the override leaves out (or sets to null) keeps the base value;
 *   - a scalar in the override replaces the base one;
 *   - lists of keyed entries (files by path, units by name, users by name, …) merge entries with
 *     the same key and append the others; files, directories and links share one path namespace,
 *     so an override link at a file's path replaces that file;
 *   - a few lists are plain concatenations (file `append`, filesystem/LUKS/RAID options);
 *   - lists of strings (SSH keys, groups, noProxy, RAID devices) keep each value once;
 *   - an HTTP header the override lists without a value removes the base header.
 * Pure.
 */
import { badRequest } from '../core/errors.js';
import { isJsonObject as isObject } from '../../../contracts/json-shapes.js';

/** A parsed JSON object: its fields are read, each still to be checked. */
export type JsonObject = Record<string, unknown>;

/** Versions upstream's parser accepts for overrides (it parses as 3.2.0, falling back to 3.1.0). */
export const MERGEABLE_IGNITION_VERSIONS = ['3.1.0', '3.2.0'];

/** Lists whose entries are appended, never matched (Ignition's IgnoreDuplicates). */
const CONCATENATED_LISTS = new Set(['append', 'options', 'mountOptions']);
/** Storage lists sharing one key namespace: a path is a file, a directory or a link. */
const NODE_LISTS = ['files', 'directories', 'links'];

/** The key Ignition matches list entries on, by the list they sit in. */
function entryKey(listName: string, entry: unknown): string {
  if (!isObject(entry)) return JSON.stringify(entry);
  switch (listName) {
    case 'files':
    case 'directories':
    case 'links':
      return String(entry.path ?? '');
    case 'disks':
    case 'filesystems':
      return String(entry.device ?? '');
    case 'tang':
      return String(entry.url ?? '');
    case 'partitions':
      if (typeof entry.number === 'number' && entry.number !== 0) return `number:${entry.number}`;
      return typeof entry.label === 'string' ? `label:${entry.label}` : '';
    case 'merge':
    case 'certificateAuthorities':
      return String(entry.source ?? '');
    default:
      // units, dropins, users, groups, raid, luks, httpHeaders
      return String(entry.name ?? '');
  }
}

function describe(path: string[]): string {
  return path.length ? path.join('.') : 'the config';
}

const kindOf = (value: unknown) => (Array.isArray(value) ? 'a list' : isObject(value) ? 'an object' : 'a value');

function shapeMismatch(expected: string, override: unknown, path: string[]) {
  return badRequest(`ignition_config_override: ${describe(path)} must be ${expected} to merge with the discovery ignition, not ${kindOf(override)}`);
}

function sameShape(base: unknown, override: unknown, path: string[]): void {
  if (kindOf(base) !== kindOf(override)) throw shapeMismatch(kindOf(base), override, path);
}

/** The override's value where the base has a list: a list too, else a 400. */
function listToMerge(override: unknown, path: string[]): unknown[] {
  if (Array.isArray(override)) return override;
  throw shapeMismatch('a list', override, path);
}

/** The override's value where the base has an object: an object too, else a 400. */
function objectToMerge(override: unknown, path: string[]): JsonObject {
  if (isObject(override)) return override;
  throw shapeMismatch('an object', override, path);
}

function mergeKeyedList(listName: string, base: unknown[], override: unknown[], path: string[]): unknown[] {
  const overrideByKey = new Map(override.map((entry) => [entryKey(listName, entry), entry] as const));
  const result: unknown[] = [];
  const baseKeys = new Set<string>();
  for (const entry of base) {
    const key = entryKey(listName, entry);
    baseKeys.add(key);
    if (!overrideByKey.has(key)) {
      result.push(entry);
      continue;
    }
    const replacement = overrideByKey.get(key)!;
    // An override header without a value deletes the header.
    if (listName === 'httpHeaders' && isObject(replacement) && (replacement.value === undefined || replacement.value === null)) continue;
    result.push(isObject(entry) ? mergeValue(entry, replacement, [...path, key]) : replacement);
  }
  for (const entry of override) {
    if (!baseKeys.has(entryKey(listName, entry))) result.push(entry);
  }
  return result;
}

function mergeStorage(base: JsonObject, override: JsonObject, path: string[]): JsonObject {
  // A path the override puts in another node list leaves the base's list.
  const claimedBy = new Map<string, string>();
  for (const listName of NODE_LISTS) {
    const list = override[listName];
    if (list === undefined || list === null) continue;
    for (const entry of listToMerge(list, [...path, listName])) claimedBy.set(entryKey(listName, entry), listName);
  }
  const trimmed: JsonObject = { ...base };
  for (const listName of NODE_LISTS) {
    const list = base[listName];
    if (!Array.isArray(list)) continue;
    trimmed[listName] = list.filter((entry) => {
      const owner = claimedBy.get(entryKey(listName, entry));
      return owner === undefined || owner === listName;
    });
  }
  return mergeObject(trimmed, override, path);
}

function mergeObject(base: JsonObject, override: JsonObject, path: string[]): JsonObject {
  const result: JsonObject = { ...base };
  for (const [key, value] of Object.entries(override)) {
    if (value === null || value === undefined) continue;
    const current = base[key];
    if (current === undefined || current === null) {
      result[key] = value;
      continue;
    }
    const nested = [...path, key];
    if (Array.isArray(current)) {
      const list = listToMerge(value, nested);
      result[key] = CONCATENATED_LISTS.has(key) ? [...current, ...list] : mergeKeyedList(key, current, list, nested);
    } else if (isObject(current)) {
      const object = objectToMerge(value, nested);
      result[key] = path.length === 0 && key === 'storage' ? mergeStorage(current, object, nested) : mergeObject(current, object, nested);
    } else {
      sameShape(current, value, nested);
      result[key] = value;
    }
  }
  return result;
}

function mergeValue(base: unknown, override: unknown, path: string[]): unknown {
  if (override === null || override === undefined) return base;
  if (isObject(base)) return mergeObject(base, objectToMerge(override, path), path);
  sameShape(base, override, path);
  return override;
}

/** Entries Ignition refuses to apply twice: one node per path, one unit per name, one user per name. */
function duplicateProblem(config: JsonObject): string | undefined {
  const storage = isObject(config.storage) ? config.storage : {};
  const seenPaths = new Set<string>();
  for (const listName of NODE_LISTS) {
    const list = storage[listName];
    for (const entry of Array.isArray(list) ? list : []) {
      const key = entryKey(listName, entry);
      if (seenPaths.has(key)) return `storage: ${key} is defined more than once`;
      seenPaths.add(key);
    }
  }
  const named: [string, unknown][] = [
    ['systemd.units', isObject(config.systemd) ? config.systemd.units : undefined],
    ['passwd.users', isObject(config.passwd) ? config.passwd.users : undefined],
  ];
  for (const [where, list] of named) {
    const names = (Array.isArray(list) ? list : []).map((entry) => entryKey('units', entry));
    const repeated = names.find((name, index) => names.indexOf(name) !== index);
    if (repeated !== undefined) return `${where}: ${repeated} is defined more than once`;
  }
  return undefined;
}

/**
 * The generated config with the override merged over it. The result carries the override's
 * version, as upstream's does; a malformed override or one that cannot merge is a 400.
 */
export function mergeIgnitionOverride(base: JsonObject, overrideText: string): JsonObject {
  let override: unknown;
  try {
    override = JSON.parse(overrideText);
  } catch {
    throw badRequest('ignition_config_override is not valid JSON; update the infra-env with a valid Ignition config');
  }
  if (!isObject(override)) throw badRequest('ignition_config_override must be a JSON object (an Ignition config)');
  const version = isObject(override.ignition) ? override.ignition.version : undefined;
  if (typeof version !== 'string' || !MERGEABLE_IGNITION_VERSIONS.includes(version)) {
    throw badRequest(
      `ignition_config_override has Ignition version ${JSON.stringify(version ?? null)}; the discovery ignition merges overrides of version ${MERGEABLE_IGNITION_VERSIONS.join(' or ')}`,
    );
  }
  const merged = mergeObject(structuredClone(base), override, []);
  const problem = duplicateProblem(merged);
  if (problem) throw badRequest(`ignition_config_override cannot be merged into the discovery ignition: ${problem}`);
  return merged;
}
