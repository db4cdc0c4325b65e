import { readFileSync, writeFileSync } from 'node:fs';

/**
 * Replaces a section a bench generates in a docs page: everything from the `begin` marker to the
 * `end` marker, markers included, becomes `section` (which starts and ends with them).
 */
export function replaceDocsSection(docsFile: string, begin: string, end: string, section: string): void {
  const docs = readFileSync(docsFile, 'utf8');
  const from = docs.indexOf(begin);
  const to = docs.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${docsFile} has no ${begin} … ${end} section`);
  writeFileSync(docsFile, `${docs.slice(0, from)}${section}${docs.slice(to + end.length)}`);
}
