/**
 * The layers of the service, and the programs beside it, import one way (docs/architecture.md draws
 * the picture). A handler parses, authorizes and calls a use case; a use case decides through the
 * ports; an adapter implements a port; only the composition roots (lambdas/platform/, bin/local/)
 * choose adapters. The agent and the CLI share the wire with the service and nothing else, and the
 * benchmarks stand on their own feet, not on the tests'. The domain's own floors are
 * test/unit/domain-layers.test.ts's business.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cycles, importGraph, sources, specifiersOf } from '../support/import-graph.js';

const projectRoot = path.resolve(import.meta.dirname, '..', '..');

/** The folder a file belongs to: `lambdas/<layer>` inside the service, else its top-level folder. */
function layerOf(relativePath: string): string {
  const [top, second] = relativePath.split(path.sep);
  return top === 'lambdas' && second !== undefined && relativePath.split(path.sep).length > 2 ? `lambdas/${second}` : top!;
}

/** What each layer may import besides itself. A layer not named here is not checked. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  'lambdas/handlers': ['lambdas/platform', 'lambdas/usecases', 'lambdas/ports', 'lambdas/domain', 'contracts'],
  // The installer's containers are entry points too, run by the workflows instead of API Gateway.
  'lambdas/containers': ['lambdas/platform', 'lambdas/usecases', 'lambdas/ports', 'lambdas/domain', 'contracts'],
  'lambdas/usecases': ['lambdas/ports', 'lambdas/domain', 'contracts'],
  'lambdas/ports': ['lambdas/domain', 'contracts'],
  'lambdas/adapters': ['lambdas/ports', 'lambdas/domain', 'contracts'],
  // The composition root in AWS: it builds the adapters behind the ports the use cases are handed.
  'lambdas/platform': ['lambdas/adapters', 'lambdas/ports', 'lambdas/domain', 'contracts'],
  'lambdas/domain': ['contracts'],
  contracts: [],
  agent: ['contracts'],
  // `assisted hosts simulate` runs the agent's own simulator in-process: the CLI drives the agent,
  // and still shares nothing with the service but the wire.
  cli: ['contracts', 'agent'],
  // The hub controller is a client of the service's REST API, as the CLI is.
  hub: ['contracts'],
  // The CDK app names handler entry files by path and imports no runtime code; it reads the console's security headers.
  lib: ['console'],
};

/** Folders a layer may never import, whatever else it may. */
const MAY_NOT_IMPORT: Record<string, readonly string[]> = {
  // The benchmarks' helpers live in bench/support/; tests may import them, not the other way round.
  bench: ['test'],
  // `npm start`'s composition root may run any of the project's code, but not the tests'.
  bin: ['test'],
};

/** Every import of the files under the folders that leaves its layer against the rules: "usecases/a.ts imports ../platform/config.js". */
function forbiddenImports(files: ReadonlyMap<string, readonly string[]>): string[] {
  const found: string[] = [];
  for (const [file, specifiers] of files) {
    const from = layerOf(file);
    for (const specifier of specifiers) {
      if (!/^\.{1,2}\//.test(specifier)) continue;
      const to = layerOf(path.relative(projectRoot, path.resolve(projectRoot, path.dirname(file), specifier)));
      if (to === from) continue;
      const allowed = MAY_IMPORT[from];
      if ((allowed && !allowed.includes(to)) || MAY_NOT_IMPORT[from]?.includes(to)) found.push(`${file} imports ${specifier}`);
    }
  }
  return found.sort();
}

/**
 * The longest chain of imports among the modules (they must have no cycle), first module first: its
 * length is how many modules one must read to understand the first. Ties go to the chain that
 * sorts first, so the answer is the same on every run.
 */
function longestChain(edges: ReadonlyMap<string, readonly string[]>): string[] {
  const memo = new Map<string, string[]>();
  const chainFrom = (module: string): string[] => {
    const known = memo.get(module);
    if (known) return known;
    let longest: string[] = [];
    for (const next of [...(edges.get(module) ?? [])].sort()) {
      const chain = chainFrom(next);
      if (chain.length > longest.length) longest = chain;
    }
    const chain = [module, ...longest];
    memo.set(module, chain);
    return chain;
  };
  let longest: string[] = [];
  for (const module of [...edges.keys()].sort()) {
    const chain = chainFrom(module);
    if (chain.length > longest.length) longest = chain;
  }
  return longest;
}

/** How many use cases deep an import chain among lambdas/usecases/ may run (docs/architecture.md, "Which use case calls which"). */
const MOST_USE_CASE_LEVELS = 7;

/** The project's modules under the checked folders, each with its import specifiers (paths relative to the project). */
function projectImports(): Map<string, string[]> {
  const folders = ['lambdas', 'contracts', 'agent', 'cli', 'hub', 'lib', 'bin', 'bench'];
  return new Map(
    folders.flatMap((folder) =>
      sources(path.join(projectRoot, folder)).map((file) => [path.relative(projectRoot, file), specifiersOf(readFileSync(file, 'utf8'))] as [string, string[]]),
    ),
  );
}

describe('the layers of the service, the agent, the CLI and the benchmarks', () => {
  it('names a layer for every folder of lambdas/ that holds code', () => {
    const layers = new Set([...projectImports().keys()].map(layerOf));
    const unknown = [...layers].filter((layer) => !(layer in MAY_IMPORT) && !(layer in MAY_NOT_IMPORT));
    expect(unknown).toEqual([]);
  });

  it('imports only down the layers', () => {
    expect(forbiddenImports(projectImports())).toEqual([]);
  });

  it(`keeps the use cases free of import cycles and at most ${MOST_USE_CASE_LEVELS} levels deep`, () => {
    const useCases = path.join(projectRoot, 'lambdas', 'usecases');
    const edges = importGraph(useCases);
    expect(cycles(edges, useCases)).toEqual([]);
    const chain = longestChain(edges).map((file) => path.relative(useCases, file));
    expect(chain.length, chain.join(' → ')).toBeLessThanOrEqual(MOST_USE_CASE_LEVELS);
  });

  it('measures the longest import chain', () => {
    const edges = new Map([
      ['a', ['b', 'c']],
      ['b', ['d']],
      ['c', []],
      ['d', []],
      ['e', ['a']],
    ]);
    expect(longestChain(edges)).toEqual(['e', 'a', 'b', 'd']);
  });

  it('reports an import that skips or climbs a layer', () => {
    const breaches = new Map([
      ['lambdas/usecases/a.ts', ['../platform/config.js', '../ports/store.js', '../domain/core/entities.js', 'node:fs']],
      ['lambdas/handlers/streams/b.ts', ['../../adapters/dynamodb/store.js', '../../usecases/a.js']],
      ['cli/ztp/c.ts', ['../../lambdas/domain/core/errors.js', '../../contracts/api.js']],
      ['bench/d.ts', ['../test/support/fixtures.js', '../lambdas/usecases/a.js']],
    ]);
    expect(forbiddenImports(breaches)).toEqual([
      'bench/d.ts imports ../test/support/fixtures.js',
      'cli/ztp/c.ts imports ../../lambdas/domain/core/errors.js',
      'lambdas/handlers/streams/b.ts imports ../../adapters/dynamodb/store.js',
      'lambdas/usecases/a.ts imports ../platform/config.js',
    ]);
  });
});
