/** Tables for people, `-o json|yaml` for scripts. Data goes to stdout; progress and notes to stderr. */
import YAML from 'yaml';
import { CliError, EXIT } from './exit-codes.js';

export type OutputFormat = 'table' | 'json' | 'yaml';

export function outputFormat(value: string | undefined): OutputFormat {
  const format = value ?? 'table';
  if (format === 'table' || format === 'json' || format === 'yaml') return format;
  throw new CliError(`-o must be table, json or yaml, not "${format}"`, EXIT.usage);
}

export function renderTable(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** Prints `data` as JSON/YAML, or as the table `toTable` makes of it. */
export function print<T>(format: OutputFormat, data: T, toTable: (data: T) => { header: string[]; rows: string[][] } | string): void {
  if (format === 'json') {
    process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
  } else if (format === 'yaml') {
    process.stdout.write(YAML.stringify(data));
  } else {
    const table = toTable(data);
    process.stdout.write(`${typeof table === 'string' ? table : renderTable(table.header, table.rows)}\n`);
  }
}

export function note(message: string): void {
  process.stderr.write(`${message}\n`);
}
