import { join } from 'node:path';
import type { BuildOptions } from 'esbuild';

/** Lets CommonJS dependencies call `require` inside the ESM bundle. */
const REQUIRE_BANNER =
  "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

/**
 * One esbuild configuration for every bundle the service runs (functions, the installer task, and
 * the embedded runtime's container tasks): ESM for Node 22, the pinned AWS SDK bundled in rather
 * than the runtime's copy (imported from the runtime's node_modules, the SDK's CommonJS files
 * doubled a function's cold init: bench/bundles.ts). Kept apart from lib/bundle.ts so the embedded
 * runtime can bundle without loading aws-cdk-lib.
 *
 * A bundle with a source map is minified: V8 compiles, and --enable-source-maps measures, every
 * byte at each cold start, and the map still names the original files, lines and functions in stack
 * traces. Names are kept (error and class names are read at run time: `error.name`, logs). The map
 * leaves the sources out: stack traces need only its mappings, and Node reads the whole map at load.
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
 * demand (`import()`: adapters of ports the function may never call, the Secrets Manager client),
 * so a cold start compiles none of them.
 */
export function functionBundleOptions(projectRoot: string, entry: string, outdir: string): BuildOptions {
  const { outfile: _single, ...options } = esbuildOptions(projectRoot, entry, join(outdir, 'index.mjs'), true);
  return { ...options, outdir, splitting: true, entryNames: 'index', chunkNames: 'chunks/[name]-[hash]', outExtension: { '.js': '.mjs' } };
}
