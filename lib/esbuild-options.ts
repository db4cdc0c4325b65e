import { join } from 'node:path';
import type { BuildOptions } from 'esbuild';

/** Lets CommonJS dependencies call `require` inside the ESM bundle. */
const REQUIRE_BANNER =
  "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

/**
 * One esbuild configuration for every bundle the service runs (functions, the installer task, and
 * the embedded runtime's container tasks): ESM for Node 22, the pinned AWS SDK bundled in rather
 * than the runtime's copy. Kept apart from lib/bundle.ts so the embedded runtime can bundle
 * without loading aws-cdk-lib.
 */
export function esbuildOptions(projectRoot: string, entry: string, outfile: string, sourcemap: BuildOptions['sourcemap']): BuildOptions {
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
    legalComments: 'none',
    logLevel: 'error',
  };
}
