/**
 * The modules of lambdas/ import each other without loops: a loop means two modules that can only
 * be understood (and loaded) together, which is how request paths ended up waiting on each other.
 * Type-only imports count too: they are dependencies of the design even when erased at run time.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..', '..', 'lambdas');

function sources(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Relative module specifiers of every import and re-export, static or dynamic. */
export function importsOf(text: string): string[] {
  const specifiers = new Set<string>();
  for (const match of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"`;]*?from\s*['"](\.{1,2}\/[^'"]+)['"]/g)) specifiers.add(match[1]!);
  for (const match of text.matchAll(/(?:^|\n)\s*import\s*['"](\.{1,2}\/[^'"]+)['"]/g)) specifiers.add(match[1]!);
  for (const match of text.matchAll(/import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g)) specifiers.add(match[1]!);
  return [...specifiers];
}

function graph(): Map<string, string[]> {
  const files = sources(root);
  const known = new Set(files);
  return new Map(
    files.map((file) => {
      const targets = importsOf(readFileSync(file, 'utf8'))
        .map((specifier) => path.resolve(path.dirname(file), specifier.replace(/\.js$/, '.ts')))
        .filter((target) => known.has(target));
      return [file, targets];
    }),
  );
}

/** Every strongly connected component of more than one module, or a module importing itself. */
function cycles(edges: Map<string, string[]>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    indices.set(node, index);
    lowest.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!indices.has(next)) {
        visit(next);
        lowest.set(node, Math.min(lowest.get(node)!, lowest.get(next)!));
      } else if (onStack.has(next)) {
        lowest.set(node, Math.min(lowest.get(node)!, indices.get(next)!));
      }
    }
    if (lowest.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (edges.get(node) ?? []).includes(node)) found.push(component.map((file) => path.relative(root, file)).sort());
    }
  };
  for (const node of edges.keys()) if (!indices.has(node)) visit(node);
  return found;
}

describe('the import graph of lambdas/', () => {
  it('reads static, type-only, re-export and dynamic imports', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from '../b.js';",
      "export { c } from './c.js';",
      "import './d.js';",
      "const e = await import('./e.js');",
      "import { f } from 'node:fs';",
      'import {\n  g,\n  h,\n} from "./gh.js";',
    ].join('\n');
    expect(importsOf(text).sort()).toEqual(['../b.js', './a.js', './c.js', './d.js', './e.js', './gh.js']);
  });

  it('finds a loop when there is one', () => {
    const edges = new Map([['/x/a.ts', ['/x/b.ts']], ['/x/b.ts', ['/x/c.ts']], ['/x/c.ts', ['/x/a.ts']], ['/x/d.ts', ['/x/a.ts']]]);
    expect(cycles(edges)).toHaveLength(1);
    expect(cycles(edges)[0]).toHaveLength(3);
  });

  it('has no loops', () => {
    const edges = graph();
    expect(edges.size).toBeGreaterThan(100);
    expect(cycles(edges)).toEqual([]);
  });
});
