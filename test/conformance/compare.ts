/**
 * Field-path differences between two normalized answers (ours first, upstream's second).
 *
 * - `null` and an absent field are the same (Go and JSON clients read both as "not set"); an empty
 *   array or object is not absent.
 * - Arrays are compared by position only where their order means something (ORDERED_ARRAYS:
 *   networks and VIPs, whose first entry is the primary family). Others are compared as sets: by an
 *   identity field their items share (`[key]` in the path), as sets of values, or sorted.
 */
export type DifferenceKind = 'only ours' | 'only upstream' | 'value' | 'status';

export interface Difference {
  path: string;
  kind: DifferenceKind;
  ours?: unknown;
  upstream?: unknown;
}

/** Arrays (by field name) whose order is part of their meaning. */
export const ORDERED_ARRAYS = new Set([
  'cluster_networks',
  'service_networks',
  'machine_networks',
  'api_vips',
  'ingress_vips',
  'args',
  'instructions',
  'progress_stages',
  'kernel_arguments',
  'ipv4_addresses',
  'ipv6_addresses',
  'cpu_architectures',
]);

/** Fields that identify an item of an unordered array, in order of preference. */
const IDENTITY_FIELDS = [
  'id',
  'name',
  'step_type',
  'cidr',
  'ip',
  'operator_name',
  'feature_id',
  'domain_name',
  'source_name',
  'host_id',
  'network',
  'file_name',
  'url',
  'key',
  'path',
  'mac_address',
];

const isAbsent = (value: unknown) => value === null || value === undefined;
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Canonical JSON (sorted keys): the sort order of unkeyed items, and equality of leaves. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value))
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'undefined';
}

/** A field every item of both sides has, unique within each side. */
function identityField(ours: readonly unknown[], upstream: readonly unknown[]): string | undefined {
  const items = [...ours, ...upstream];
  if (items.length === 0 || !items.every(isObject)) return undefined;
  const uniqueOn = (side: readonly unknown[], field: string) => {
    const values = side.map((item) => (item as Record<string, unknown>)[field]);
    return values.every((value) => typeof value === 'string' || typeof value === 'number') && new Set(values).size === values.length;
  };
  return IDENTITY_FIELDS.find((field) => uniqueOn(ours, field) && uniqueOn(upstream, field));
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

export function compareValues(ours: unknown, upstream: unknown, path = ''): Difference[] {
  const out: Difference[] = [];
  walk(ours, upstream, path, out);
  return out;
}

function walk(ours: unknown, upstream: unknown, path: string, out: Difference[]): void {
  if (isAbsent(ours) && isAbsent(upstream)) return;
  if (isAbsent(upstream)) {
    out.push({ path, kind: 'only ours', ours });
    return;
  }
  if (isAbsent(ours)) {
    out.push({ path, kind: 'only upstream', upstream });
    return;
  }
  if (Array.isArray(ours) && Array.isArray(upstream)) {
    compareArrays(ours, upstream, path, out);
    return;
  }
  if (isObject(ours) && isObject(upstream)) {
    for (const key of [...new Set([...Object.keys(ours), ...Object.keys(upstream)])].sort()) walk(ours[key], upstream[key], join(path, key), out);
    return;
  }
  if (canonical(ours) !== canonical(upstream)) out.push({ path, kind: 'value', ours, upstream });
}

function compareArrays(ours: unknown[], upstream: unknown[], path: string, out: Difference[]): void {
  const field = path.split('.').at(-1)?.replace(/\[.*$/, '') ?? '';
  if (ORDERED_ARRAYS.has(field)) {
    for (let i = 0; i < Math.max(ours.length, upstream.length); i++) walk(ours[i], upstream[i], `${path}[${i}]`, out);
    return;
  }
  const key = identityField(ours, upstream);
  if (key) {
    const byKey = (items: unknown[]) => new Map(items.map((item) => [String((item as Record<string, unknown>)[key]), item]));
    const a = byKey(ours);
    const b = byKey(upstream);
    for (const id of [...new Set([...a.keys(), ...b.keys()])].sort()) walk(a.get(id), b.get(id), `${path}[${id}]`, out);
    return;
  }
  if ([...ours, ...upstream].every((item) => !isObject(item) && !Array.isArray(item))) {
    const a = new Set(ours.map(canonical));
    const b = new Set(upstream.map(canonical));
    for (const item of [...a].filter((x) => !b.has(x)).sort()) out.push({ path: `${path}[]`, kind: 'only ours', ours: JSON.parse(item) });
    for (const item of [...b].filter((x) => !a.has(x)).sort()) out.push({ path: `${path}[]`, kind: 'only upstream', upstream: JSON.parse(item) });
    return;
  }
  const sorted = (items: unknown[]) => [...items].sort((x, y) => (canonical(x) < canonical(y) ? -1 : 1));
  const a = sorted(ours);
  const b = sorted(upstream);
  for (let i = 0; i < Math.max(a.length, b.length); i++) walk(a[i], b[i], `${path}[${i}]`, out);
}
