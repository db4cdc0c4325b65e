/**
 * The differences with upstream not fixed yet: issue 43's remaining work, kept in
 * open-differences.json. They are not deliberate (those are docs/compatibility.md's rows, each
 * with its reason); they are the known backlog. The CI sample fails on any difference that is in
 * neither, so nothing regresses while the backlog is worked down, and `npm run conformance` keeps
 * failing until the backlog is empty. `npm run conformance:record-open` rewrites the file from the
 * CI sample's last report (.conformance/ci/differences.json).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Cause } from './report.js';

export interface OpenDifference {
  check: string;
  path: string;
  kind: string;
  operations: string[];
}

export const OPEN_DIFFERENCES_FILE = fileURLToPath(new URL('./open-differences.json', import.meta.url));

/**
 * What identifies a cause across runs: its check and field path; a settled judgement's kind and a
 * status's exact codes vary with timing (when each side judged), so they are not part of it.
 */
export function openDifferenceKey(cause: Pick<Cause, 'check' | 'path' | 'kind' | 'operations'>): string {
  if (cause.check === 'settle') return `settle ${cause.path}`;
  // A status or error cause belongs to its operation.
  if (/^(status|error)/.test(cause.check))
    return `${cause.check} ${cause.path.replace(/\(status (class )?ours \S+, upstream \S+\)/, '(status)')} ${[...cause.operations].sort().join(',')}`;
  return `${cause.check} ${cause.path} ${cause.kind}`;
}

export function loadOpenDifferences(file = OPEN_DIFFERENCES_FILE): OpenDifference[] {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as { differences: OpenDifference[] };
  return parsed.differences;
}

/**
 * Judgements whose value depends on when each side judged (both services judge on their own
 * schedule while the scenarios run concurrently): a settled status or validation, the events a
 * judgement emitted, a host's validations or suggested role read mid-flight. A new difference there
 * may be a finding or the timing of one run: the CI sample prints it and fails only on the others;
 * `npm run conformance` counts it as a difference like any.
 */
export function isTimingDependent(cause: Pick<Cause, 'check' | 'path'>): boolean {
  if (cause.check === 'settle' || cause.check === 'event-names') return true;
  return /(^|\.)(validations_info|status_info|suggested_role|status|progress)(\.|\[|$)/.test(cause.path);
}

/** Splits the unlisted causes of a run into those the backlog knows and new ones; and says which backlog entries did not occur. */
export function againstOpenDifferences(
  unlisted: readonly Cause[],
  open: readonly OpenDifference[],
): { known: Cause[]; fresh: Cause[]; freshTimingDependent: Cause[]; notSeen: OpenDifference[] } {
  const keys = new Set(open.map(openDifferenceKey));
  const seen = new Set(unlisted.map(openDifferenceKey));
  const unknown = unlisted.filter((cause) => !keys.has(openDifferenceKey(cause)));
  return {
    known: unlisted.filter((cause) => keys.has(openDifferenceKey(cause))),
    fresh: unknown.filter((cause) => !isTimingDependent(cause)),
    freshTimingDependent: unknown.filter(isTimingDependent),
    notSeen: open.filter((difference) => !seen.has(openDifferenceKey(difference))),
  };
}

/**
 * Writes the backlog from reports' unlisted causes (sorted, one entry a key). By default the
 * entries already in the file are kept too (a sample shows a different part of the timing-dependent
 * ones each run); `replace` keeps only what the reports show, for after a fix.
 */
export function recordOpenDifferences(reports: readonly string[], options: { replace?: boolean; file?: string } = {}): number {
  const file = options.file ?? OPEN_DIFFERENCES_FILE;
  const causes = reports.flatMap((report) => (JSON.parse(readFileSync(report, 'utf8')) as { causes: Cause[] }).causes);
  const byKey = new Map<string, OpenDifference>();
  if (!options.replace) for (const kept of loadOpenDifferences(file)) byKey.set(openDifferenceKey(kept), kept);
  for (const cause of causes.filter((c) => !c.acceptedBy)) {
    const key = openDifferenceKey(cause);
    const known = byKey.get(key);
    if (known) known.operations = [...new Set([...known.operations, ...cause.operations])].sort();
    else byKey.set(key, { check: cause.check, path: cause.path, kind: cause.kind, operations: [...cause.operations].sort() });
  }
  const differences = [...byKey.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, difference]) => difference);
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        about:
          'Differences with upstream assisted-service not fixed yet (issue 43): the backlog, not deliberate differences (docs/compatibility.md). The CI sample fails on any difference in neither. Rewritten by npm run conformance:record-open.',
        differences,
      },
      null,
      1,
    )}\n`,
  );
  return differences.length;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const replace = args.includes('--replace');
  const reports = args.filter((arg) => arg !== '--replace');
  const written = recordOpenDifferences(reports.length ? reports : [fileURLToPath(new URL('../../.conformance/ci/differences.json', import.meta.url))], {
    replace,
  });
  console.log(`${written} open differences written to ${OPEN_DIFFERENCES_FILE}${replace ? '' : " (with those it held; --replace keeps only the reports's)"}`);
}
