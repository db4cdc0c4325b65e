/**
 * Bundles the CLI into one ES module, dist/assisted.mjs (the package's `assisted` bin): Node 22 and
 * that file are all a user needs. Usage: `npm run build:cli`.
 */
import { chmodSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const CLI_BUNDLE = path.join(root, 'dist', 'assisted.mjs');

export async function buildCli(options: { outfile?: string } = {}): Promise<{ outfile: string; bytes: number }> {
  const outfile = options.outfile ?? CLI_BUNDLE;
  await build({
    entryPoints: [path.join(root, 'cli', 'main.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    sourcemap: false,
    legalComments: 'inline',
    logLevel: 'warning',
    banner: {
      js: [
        '#!/usr/bin/env node',
        // Bundled CommonJS dependencies (commander) call require(); an ES module has none until it is made here.
        "import { createRequire as __cliCreateRequire } from 'node:module'; const require = __cliCreateRequire(import.meta.url);",
      ].join('\n'),
    },
  });
  chmodSync(outfile, 0o755);
  return { outfile, bytes: statSync(outfile).size };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { outfile, bytes } = await buildCli();
  console.log(`${path.relative(process.cwd(), outfile)}: ${(bytes / 1024).toFixed(0)} KiB`);
}
