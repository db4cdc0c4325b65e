/**
 * OpenShift version strings as upstream assisted-service compares them: `major.minor[.patch]`
 * with an optional suffix (`-ec.5`, `-rc.1`, `-multi`) that ordering ignores. A missing patch
 * counts as 0, so "4.17" and "4.17.0" are equal.
 */
export interface BaseVersion {
  major: number;
  minor: number;
  patch: number;
}

const VERSION = /^v?(\d+)\.(\d+)(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;
const MULTI_SUFFIX = '-multi';

export const stripMultiSuffix = (version: string) => (version.endsWith(MULTI_SUFFIX) ? version.slice(0, -MULTI_SUFFIX.length) : version);

/** The numeric part of a version, or undefined when the string is not `major.minor[.patch][-suffix]`. */
export function parseBaseVersion(version: string): BaseVersion | undefined {
  const match = VERSION.exec(version.trim());
  if (!match) return undefined;
  return { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3] ?? 0) };
}

export const isValidVersion = (version: string) => parseBaseVersion(version) !== undefined;

/** Whether the version names a patch release ("4.18.3") rather than a minor stream ("4.18"). */
export function hasPatch(version: string): boolean {
  const match = VERSION.exec(version.trim());
  return match !== null && match[3] !== undefined;
}

/** Whether the version (ignoring a `-multi` suffix) carries a prerelease tag such as `-ec.5`. */
export function isPrerelease(version: string): boolean {
  const match = VERSION.exec(stripMultiSuffix(version.trim()));
  return match !== null && match[4] !== undefined;
}

function parseOrThrow(version: string): BaseVersion {
  const parsed = parseBaseVersion(version);
  if (!parsed) throw new Error(`"${version}" is not an OpenShift version`);
  return parsed;
}

export function compareBaseVersions(a: string, b: string): number {
  const x = parseOrThrow(a);
  const y = parseOrThrow(b);
  return x.major - y.major || x.minor - y.minor || x.patch - y.patch;
}

/** `version < threshold` on major.minor.patch. */
export const isBelow = (version: string, threshold: string) => compareBaseVersions(version, threshold) < 0;

export const isAtLeast = (version: string, threshold: string) => !isBelow(version, threshold);

/** `major.minor` of a version ("4.18.3-multi" → "4.18"), or undefined if it is not a version. */
export function majorMinor(version: string): string | undefined {
  const parsed = parseBaseVersion(version);
  return parsed ? `${parsed.major}.${parsed.minor}` : undefined;
}

export function sameMinor(a: string, b: string): boolean {
  const x = majorMinor(a);
  return x !== undefined && x === majorMinor(b);
}
