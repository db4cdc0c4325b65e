import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { replaceDocsSection } from '../../bench/docs-sections.js';

describe('a generated docs section', () => {
  const page = () => path.join(mkdtempSync(path.join(tmpdir(), 'docs-section-')), 'page.md');

  it('is replaced from its begin marker to its end marker, and nothing around it changes', () => {
    const file = page();
    writeFileSync(file, '# Title\n\n<!-- x:begin -->\nold\n<!-- x:end -->\n\nafter\n');
    replaceDocsSection(file, '<!-- x:begin -->', '<!-- x:end -->', '<!-- x:begin -->\nnew\nlines\n<!-- x:end -->');
    expect(readFileSync(file, 'utf8')).toBe('# Title\n\n<!-- x:begin -->\nnew\nlines\n<!-- x:end -->\n\nafter\n');
  });

  it('is refused, leaving the page as it was, when the markers are missing or out of order', () => {
    const file = page();
    const text = '<!-- x:end -->\n<!-- x:begin -->\n';
    writeFileSync(file, text);
    expect(() => replaceDocsSection(file, '<!-- x:begin -->', '<!-- x:end -->', 'anything')).toThrow(/has no <!-- x:begin --> … <!-- x:end --> section/);
    expect(() => replaceDocsSection(file, '<!-- y:begin -->', '<!-- x:end -->', 'anything')).toThrow(/has no/);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });
});
