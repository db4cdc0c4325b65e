/**
 * The deliberate differences of docs/compatibility.md: the one table under "## Deliberate
 * differences", a row per difference we keep on purpose. A difference the harness finds is
 * "accepted" when a row matches it; any other fails the run.
 *
 * | id | operation | path | difference | reason |
 * - operation: operationIds (or the harness's `settle:cluster`, `settle:host`, `events`), comma-separated, `*` a wildcard;
 *   an operation may end with a condition on the request's body, `[field=a\|b]` (a dotted field path, array
 *   items by index; `[field=]` is the empty string; the
 *   row then matches only requests whose field holds one of the values), for a difference that only
 *   some requests of an operation show;
 * - path: the field path as the report prints it; `*` matches within one segment, `**` across segments;
 *   a status difference's path names both codes: `(status ours 404, upstream 500)`;
 * - difference: `only ours`, `only upstream`, `value`, `status` or `any`;
 * - reason: required (our tokens and organisations; a named upstream bug we do not copy).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DifferenceKind } from './compare.js';

export const COMPATIBILITY_DOC = fileURLToPath(new URL('../../docs/compatibility.md', import.meta.url));

/** A row's operation, with the request condition it may carry: `[field=a|b]`. */
export interface OperationMatcher {
  operation: RegExp;
  requestField?: { path: string[]; values: string[] };
}

export interface DeliberateDifference {
  id: string;
  operations: OperationMatcher[];
  path: RegExp;
  kind: DifferenceKind | 'any';
  reason: string;
  /** The row as written, for the report. */
  text: { operation: string; path: string };
}

const KINDS = new Set(['only ours', 'only upstream', 'value', 'status', 'any']);
const escape = (text: string) => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');

export function pathPattern(glob: string): RegExp {
  const source = glob
    .split('**')
    .map((part) => part.split('*').map(escape).join('[^.]*'))
    .join('.*');
  return new RegExp(`^${source}$`);
}

const operationPattern = (glob: string) => new RegExp(`^${glob.split('*').map(escape).join('.*')}$`);

function operationMatcher(text: string, rowId: string): OperationMatcher {
  // `[field=]` holds the empty string: a value may be empty.
  const conditional = /^([^[\]]+)\[([\w.]+)=([^\]]*)\]$/.exec(text);
  if (!conditional) {
    if (/[[\]]/.test(text)) throw new Error(`compatibility row ${rowId}: a request condition is written op[field=a|b], not ${text}`);
    return { operation: operationPattern(text) };
  }
  const [, operation, field, values] = conditional;
  return { operation: operationPattern(operation!.trim()), requestField: { path: field!.split('.'), values: values!.split('|').map((v) => v.trim()) } };
}

/** Whether the request's body holds one of the condition's values at its field (a condition needs a request). */
function requestMatches(matcher: OperationMatcher, request: { body?: unknown } | undefined): boolean {
  if (!matcher.requestField) return true;
  let value: unknown = request?.body;
  for (const key of matcher.requestField.path) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') && matcher.requestField.values.includes(String(value));
}
const cell = (text: string) =>
  text
    .trim()
    .replace(/^`(.*)`$/, '$1')
    .replace(/\\\|/g, '|');

/** The rows of the table; throws on a malformed row (a row without a reason is malformed). */
export function parseCompatibilityTable(markdown: string): DeliberateDifference[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => /^##\s+Deliberate differences/i.test(line));
  if (start < 0) throw new Error(`${path.basename(COMPATIBILITY_DOC)}: no "## Deliberate differences" section`);
  const rows: DeliberateDifference[] = [];
  let header = false;
  for (const line of lines.slice(start + 1)) {
    if (/^##\s/.test(line)) break;
    if (!line.trim().startsWith('|')) {
      if (header && rows.length > 0 && line.trim() === '') break;
      continue;
    }
    const cells = line
      .trim()
      .replace(/^\|/, '')
      .replace(/\|$/, '')
      .split(/(?<!\\)\|/)
      .map(cell);
    if (!header) {
      if (cells.join('|').toLowerCase() !== 'id|operation|path|difference|reason')
        throw new Error(`compatibility table header must be | id | operation | path | difference | reason |, not ${line}`);
      header = true;
      continue;
    }
    if (cells.every((c) => /^:?-+:?$/.test(c))) continue;
    const [id, operation, fieldPath, kind, reason] = cells;
    if (!id || !operation || !fieldPath || !kind || cells.length !== 5) throw new Error(`compatibility row needs 5 cells: ${line}`);
    if (!KINDS.has(kind)) throw new Error(`compatibility row ${id}: difference must be one of ${[...KINDS].join(', ')}, not ${kind}`);
    if (!reason || reason.length < 10) throw new Error(`compatibility row ${id} has no reason`);
    if (rows.some((row) => row.id === id)) throw new Error(`compatibility row ${id} appears twice`);
    rows.push({
      id,
      operations: operation.split(',').map((op) => operationMatcher(op.trim(), id)),
      path: pathPattern(fieldPath),
      kind: kind as DifferenceKind | 'any',
      reason,
      text: { operation, path: fieldPath },
    });
  }
  return rows;
}

export function loadCompatibilityTable(file = COMPATIBILITY_DOC): DeliberateDifference[] {
  return parseCompatibilityTable(readFileSync(file, 'utf8'));
}

/** The row that accepts this difference, if any; a row with a request condition needs the request. */
export function acceptingRow(
  rows: readonly DeliberateDifference[],
  operation: string,
  difference: { path: string; kind: DifferenceKind },
  request?: { body?: unknown },
): DeliberateDifference | undefined {
  return rows.find(
    (row) =>
      (row.kind === 'any' || row.kind === difference.kind) &&
      row.path.test(difference.path) &&
      row.operations.some((op) => op.operation.test(operation) && requestMatches(op, request)),
  );
}
