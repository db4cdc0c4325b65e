/**
 * The modules of lambdas/ import each other without loops: a loop means two modules that can only
 * be understood (and loaded) together, which is how request paths ended up waiting on each other.
 * Type-only imports count too: they are dependencies of the design even when erased at run time.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cycles, importGraph, importsOf } from '../support/import-graph.js';

const root = path.resolve(import.meta.dirname, '..', '..', 'lambdas');

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
    const edges = new Map([
      ['/x/a.ts', ['/x/b.ts']],
      ['/x/b.ts', ['/x/c.ts']],
      ['/x/c.ts', ['/x/a.ts']],
      ['/x/d.ts', ['/x/a.ts']],
    ]);
    expect(cycles(edges, '/x')).toHaveLength(1);
    expect(cycles(edges, '/x')[0]).toHaveLength(3);
  });

  it('has no loops', () => {
    const edges = importGraph(root);
    expect(edges.size).toBeGreaterThan(100);
    expect(cycles(edges, root)).toEqual([]);
  });
});
