import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import type { BuildOptions } from 'esbuild';

/** Lets CommonJS dependencies call `require` inside the ESM bundle. */
const REQUIRE_BANNER = "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

/**
 * Node's built-in modules, each through a CommonJS shim (`module.exports = process.getBuiltinModule(…)`)
 * rather than an ESM `import` of the builtin. Node answers an ESM import of a builtin with a facade
 * module whose exports it copies at once, reading every getter: node:http's lazy `WebSocket`,
 * `CloseEvent` and `MessageEvent` then load undici at each cold start that imports node:http,
 * for a WebSocket client no function uses, and every facade costs its own copy. Through the shim
 * esbuild's CommonJS interop reads an export only where the code uses it. The shims are written
 * once under node_modules/.cache (a file per module: esbuild aliases to paths).
 */
function builtinShims(projectRoot: string): Record<string, string> {
  const dir = join(projectRoot, 'node_modules', '.cache', 'builtin-module-shims');
  mkdirSync(dir, { recursive: true });
  const alias: Record<string, string> = {};
  for (const name of builtinModules) {
    const bare = name.replace(/^node:/, '');
    const file = join(dir, `${bare.replace(/\//g, '__')}.cjs`);
    const contents = `module.exports = process.getBuiltinModule(${JSON.stringify(`node:${bare}`)});\n`;
    let existing: string | undefined;
    try {
      existing = readFileSync(file, 'utf8');
    } catch {
      existing = undefined;
    }
    if (existing !== contents) {
      // Renamed into place: another build reading the shim meanwhile sees the old file or the new, never a part.
      const partial = `${file}.${process.pid}.tmp`;
      writeFileSync(partial, contents);
      renameSync(partial, file);
    }
    alias[`node:${bare}`] = file;
    // Modules that exist only with the prefix (node:test, node:sqlite) are never imported bare.
    if (!name.startsWith('node:')) alias[bare] = file;
  }
  return alias;
}

/**
 * Dependencies that openapi-backend imports at load but the Api's router never calls (quick mode,
 * the document and each request's query given as objects: lambdas/handlers/api/index.ts), replaced
 * by stand-ins that fail loudly if called: less code for every cold start of the Api to compile (docs/deploy.md).
 */
const UNUSED_BY_THE_ROUTER = {
  '@apidevtools/json-schema-ref-parser': 'lambdas/handlers/api/unused/json-schema-ref-parser.ts',
  'openapi-schema-validator': 'lambdas/handlers/api/unused/openapi-schema-validator.ts',
  qs: 'lambdas/handlers/api/unused/qs.ts',
};

/**
 * One esbuild configuration for every bundle the service runs (functions, the installer task, and
 * the embedded runtime's container tasks): ESM for Node 22, the pinned AWS SDK bundled in rather
 * than the runtime's copy (imported from the runtime's node_modules, the SDK's CommonJS files
 * doubled a function's cold init: bench/bundles.ts). Kept apart from lib/bundle.ts so the embedded
 * runtime can bundle without loading aws-cdk-lib.
 *
 * A bundle with a source map is minified: V8 compiles every byte at each cold start, and the map
 * still names the original files, lines and functions (lambdas/platform/stack-traces.ts reads it
 * when a stack trace is read, not at load). Names are kept (error and class names are read at run
 * time: `error.name`, logs). The map leaves the sources out: stack traces need only its mappings.
 * Without a map (the embedded runtime's container tasks) the code stays readable instead.
 */
export function esbuildOptions(projectRoot: string, entry: string, outfile: string, sourcemap: BuildOptions['sourcemap']): BuildOptions {
  const mapped = sourcemap !== undefined && sourcemap !== false;
  return {
    entryPoints: [join(projectRoot, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    mainFields: ['module', 'main'],
    alias: { ...builtinShims(projectRoot), ...Object.fromEntries(Object.entries(UNUSED_BY_THE_ROUTER).map(([name, file]) => [name, join(projectRoot, file)])) },
    banner: { js: REQUIRE_BANNER },
    sourcemap,
    sourcesContent: !mapped,
    minify: mapped,
    keepNames: mapped,
    legalComments: 'none',
    logLevel: 'error',
  };
}

/**
 * A Lambda function's bundle in outdir: index.mjs, and in chunks/ the modules it imports only on
 * demand (`import()`: each Api operation, adapters of ports the function may never call, the
 * Secrets Manager client), so a cold start compiles none of them. `yaml` is loaded on first use
 * too, synchronously (lambdas/platform/lazy-yaml.ts), from the yaml.cjs that functionSideBuilds
 * writes beside index.mjs.
 */
export function functionBundleOptions(projectRoot: string, entry: string, outdir: string): BuildOptions {
  const { outfile: _single, ...options } = esbuildOptions(projectRoot, entry, join(outdir, 'index.mjs'), true);
  return {
    ...options,
    alias: { ...options.alias, yaml: join(projectRoot, 'lambdas/platform/lazy-yaml.ts') },
    outdir,
    splitting: true,
    entryNames: 'index',
    chunkNames: 'chunks/[name]-[hash]',
    outExtension: { '.js': '.mjs' },
  };
}

/** What a function bundle loads beside index.mjs with `require` on first use: yaml.cjs, the yaml library whole. */
export function functionSideBuilds(projectRoot: string, outdir: string): BuildOptions[] {
  return [
    {
      stdin: { contents: "module.exports = require('yaml');", resolveDir: projectRoot, sourcefile: 'yaml.cjs' },
      outfile: join(outdir, 'yaml.cjs'),
      bundle: true,
      platform: 'node',
      target: 'node22',
      format: 'cjs',
      alias: builtinShims(projectRoot),
      sourcemap: true,
      sourcesContent: false,
      minify: true,
      keepNames: true,
      legalComments: 'none',
      logLevel: 'error',
    },
  ];
}
