/**
 * Bundles the agent into one self-contained ES module, dist/agent.mjs: Node 22 is all a host needs
 * to run it (`node dist/agent.mjs --url … --infra-env-id …`). Usage: `npm run build:agent`.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const AGENT_BUNDLE = path.join(root, 'dist', 'agent.mjs');

export async function buildAgent(options: { outfile?: string; minify?: boolean } = {}): Promise<{ outfile: string; bytes: number }> {
  const outfile = options.outfile ?? AGENT_BUNDLE;
  await build({
    entryPoints: [path.join(root, 'agent', 'src', 'cli.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    minify: options.minify ?? false,
    sourcemap: false,
    legalComments: 'inline',
    logLevel: 'warning',
    // Bundled CommonJS dependencies call require(); an ES module has none until it is made here.
    banner: { js: "import { createRequire as __agentCreateRequire } from 'node:module'; const require = __agentCreateRequire(import.meta.url);" },
  });
  return { outfile, bytes: statSync(outfile).size };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { outfile, bytes } = await buildAgent({ minify: process.argv.includes('--minify') });
  console.log(`${path.relative(process.cwd(), outfile)}: ${(bytes / 1024).toFixed(0)} KiB`);
}
