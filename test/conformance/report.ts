/**
 * Counts comparisons by area and keeps every difference with both answers. A comparison is one
 * thing checked on both sides: a status code, a body, an error's code and kind, a settled set of
 * judgements. It agrees when nothing differs, is accepted when every difference it has is a row of
 * docs/compatibility.md, and differs otherwise.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { acceptingRow, type DeliberateDifference } from './compatibility.js';
import type { Difference } from './compare.js';

export type Check = 'status' | 'status class' | 'body' | 'error' | 'install-config' | 'event-names' | 'host-progress' | 'settle' | 'wait' | 'stored';

export interface RecordedDifference extends Difference {
  acceptedBy?: string;
}

export interface Comparison {
  area: string;
  scenario: string;
  step: number;
  operation: string;
  check: Check;
  request?: { method: string; path: string; body?: unknown };
  differences: RecordedDifference[];
  /** Both sides' error reasons, recorded (not compared) when they refuse. */
  reasons?: { ours?: unknown; upstream?: unknown };
}

export interface AreaCounts {
  comparisons: number;
  agreeing: number;
  accepted: number;
  differing: number;
}

export interface Cause {
  /** The operations it showed in (one for status and error causes, which belong to their operation). */
  operations: string[];
  check: string;
  path: string;
  kind: string;
  count: number;
  acceptedBy?: string;
  example: { scenario: string; ours?: unknown; upstream?: unknown; reasons?: { ours?: unknown; upstream?: unknown }; request?: Comparison['request'] };
}

/**
 * The cause of a difference: its path with per-item parts generalized (positions, ids, disk and
 * host keys), and a host's fields one cause whether read alone or inside its cluster.
 */
export function causePath(fieldPath: string): string {
  return fieldPath
    .replace(/\[\d+\]/g, '[*]')
    .replace(/<id#\d+>/g, '<id>')
    .replace(/<host\d+>/g, '<host>')
    .replace(/\[[^\]]*[/<][^\]]*\]/g, '[*]')
    .replace(/^hosts\[\*\]\./, '');
}

export class Recorder {
  readonly areas = new Map<string, AreaCounts>();
  readonly differing: Comparison[] = [];
  readonly accepted: Comparison[] = [];
  readonly notes: string[] = [];
  /** Differences each row of docs/compatibility.md accepted. */
  readonly acceptedByRow = new Map<string, number>();
  scenarios = 0;
  generated = 0;
  skippedSteps = 0;

  constructor(private readonly rows: readonly DeliberateDifference[]) {}

  record(comparison: Omit<Comparison, 'differences'> & { differences: Difference[] }): Comparison {
    const differences: RecordedDifference[] = comparison.differences.map((difference) => {
      const row = acceptingRow(this.rows, comparison.operation, difference, comparison.request);
      if (row) this.acceptedByRow.set(row.id, (this.acceptedByRow.get(row.id) ?? 0) + 1);
      return row ? { ...difference, acceptedBy: row.id } : difference;
    });
    const recorded: Comparison = { ...comparison, differences };
    const counts = this.areas.get(comparison.area) ?? { comparisons: 0, agreeing: 0, accepted: 0, differing: 0 };
    counts.comparisons++;
    if (differences.length === 0) counts.agreeing++;
    else if (differences.every((d) => d.acceptedBy)) {
      counts.accepted++;
      this.accepted.push(recorded);
    } else {
      counts.differing++;
      this.differing.push(recorded);
    }
    this.areas.set(comparison.area, counts);
    return recorded;
  }

  totals(): AreaCounts {
    const total: AreaCounts = { comparisons: 0, agreeing: 0, accepted: 0, differing: 0 };
    for (const counts of this.areas.values()) for (const key of Object.keys(total) as (keyof AreaCounts)[]) total[key] += counts[key];
    return total;
  }

  /**
   * Distinct causes, unlisted first, most frequent first. A field of a resource that differs is one
   * cause wherever the resource is answered (create, read, update, generated requests); a status or
   * an error differs for its own operation.
   */
  causes(): Cause[] {
    const causes = new Map<string, Cause>();
    for (const comparison of [...this.differing, ...this.accepted]) {
      for (const difference of comparison.differences) {
        const perOperation = difference.kind === 'status' || comparison.check === 'error';
        const check = comparison.check === 'stored' ? 'body' : comparison.check;
        const cause = {
          check,
          path: causePath(difference.path),
          kind: difference.kind,
          ...(perOperation ? { operation: comparison.operation } : {}),
          accepted: difference.acceptedBy ?? '',
        };
        const key = JSON.stringify(cause);
        const found = causes.get(key);
        if (found) {
          found.count++;
          if (!found.operations.includes(comparison.operation)) found.operations.push(comparison.operation);
        } else {
          causes.set(key, {
            operations: [comparison.operation],
            check,
            path: cause.path,
            kind: cause.kind,
            count: 1,
            ...(difference.acceptedBy ? { acceptedBy: difference.acceptedBy } : {}),
            example: {
              scenario: comparison.scenario,
              ours: difference.ours,
              upstream: difference.upstream,
              ...(comparison.reasons ? { reasons: comparison.reasons } : {}),
              ...(comparison.request ? { request: comparison.request } : {}),
            },
          });
        }
      }
    }
    return [...causes.values()].sort((a, b) => Number(!!a.acceptedBy) - Number(!!b.acceptedBy) || b.count - a.count || a.path.localeCompare(b.path));
  }

  unlistedCount(): number {
    return this.differing.length;
  }

  /** The agreement summary, as printed. */
  summary(extra: { seconds?: number; seed?: number } = {}): string {
    const lines: string[] = [];
    const total = this.totals();
    const pct = (n: number, of: number) => (of === 0 ? '—' : `${((100 * n) / of).toFixed(1)} %`);
    lines.push(
      `conformance: ${this.scenarios} scenarios, ${this.generated} generated requests${extra.seed !== undefined ? ` (seed ${extra.seed})` : ''}${extra.seconds !== undefined ? `, ${extra.seconds.toFixed(0)} s` : ''}`,
    );
    lines.push(
      `${'area'.padEnd(36)} ${'comparisons'.padStart(11)} ${'agreeing'.padStart(9)} ${'accepted'.padStart(9)} ${'differing'.padStart(9)}  agreement outside compatibility.md`,
    );
    for (const [area, counts] of [...this.areas.entries()].sort()) {
      lines.push(
        `${area.padEnd(36)} ${String(counts.comparisons).padStart(11)} ${String(counts.agreeing).padStart(9)} ${String(counts.accepted).padStart(9)} ${String(counts.differing).padStart(9)}  ${pct(counts.agreeing + counts.accepted, counts.comparisons)}`,
      );
    }
    lines.push(
      `${'total'.padEnd(36)} ${String(total.comparisons).padStart(11)} ${String(total.agreeing).padStart(9)} ${String(total.accepted).padStart(9)} ${String(total.differing).padStart(9)}  ${pct(total.agreeing + total.accepted, total.comparisons)}`,
    );
    if (this.acceptedByRow.size)
      lines.push(`differences accepted by docs/compatibility.md rows: ${[...this.acceptedByRow.entries()].map(([id, n]) => `${id} ${n}`).join(', ')}`);
    lines.push(
      total.differing === 0
        ? '100 % agreement outside docs/compatibility.md'
        : `NOT 100 %: ${total.differing} comparisons differ outside docs/compatibility.md`,
    );
    const causes = this.causes().filter((cause) => !cause.acceptedBy);
    if (causes.length) {
      lines.push(`distinct unlisted differences (${causes.length}): count, check, field (kind): ours | upstream [operations; an example scenario]`);
      for (const cause of causes.slice(0, 400)) {
        const show = (value: unknown) => (value === undefined ? '∅' : JSON.stringify(value)?.slice(0, 100));
        const reasons = cause.example.reasons ? `  reasons: ${show(cause.example.reasons.ours)} | ${show(cause.example.reasons.upstream)}` : '';
        const operations =
          cause.operations.length > 4 ? `${cause.operations.slice(0, 4).join(', ')} +${cause.operations.length - 4}` : cause.operations.join(', ');
        lines.push(
          `  ${String(cause.count).padStart(5)}  ${cause.check} ${cause.path} (${cause.kind}): ${show(cause.example.ours)} | ${show(cause.example.upstream)}  [${operations}; ${cause.example.scenario}]${reasons}`,
        );
      }
      if (causes.length > 400) lines.push(`  … ${causes.length - 400} more in the JSON report`);
    }
    for (const note of this.notes.slice(0, 20)) lines.push(`note: ${note}`);
    return lines.join('\n');
  }

  /** Writes differences.json (every differing and accepted comparison with both answers) and summary.txt. */
  write(directory: string, extra: { seconds?: number; seed?: number } = {}): { json: string; summary: string } {
    mkdirSync(directory, { recursive: true });
    const json = path.join(directory, 'differences.json');
    const summary = path.join(directory, 'summary.txt');
    writeFileSync(
      json,
      JSON.stringify({
        scenarios: this.scenarios,
        generated: this.generated,
        ...extra,
        areas: Object.fromEntries(this.areas),
        totals: this.totals(),
        causes: this.causes(),
        differing: this.differing,
        accepted: this.accepted,
        acceptedByRow: Object.fromEntries(this.acceptedByRow),
        notes: this.notes,
      }),
    );
    writeFileSync(summary, `${this.summary(extra)}\n`);
    return { json, summary };
  }
}
