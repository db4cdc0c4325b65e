/**
 * The hub controller's image build context, as the installer's is made (an esbuild bundle beside its
 * Containerfile; docs/deploy.md "The installer image"), but by the customer rather than at synth:
 * `npm run build:hub` writes dist/hub-image/ with the Containerfile and hub.mjs, the controller and
 * its dependencies in one ES module that Node 22 runs alone (`node hub.mjs --help`).
 */
import { copyFileSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const HUB_IMAGE_CONTEXT = path.join(root, 'dist', 'hub-image');

export async function buildHubImageContext(options: { outdir?: string } = {}): Promise<{ outdir: string; bundle: string; bytes: number }> {
  const outdir = options.outdir ?? HUB_IMAGE_CONTEXT;
  mkdirSync(outdir, { recursive: true });
  const bundle = path.join(outdir, 'hub.mjs');
  await build({
    entryPoints: [path.join(root, 'hub', 'main.ts')],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    // A stack trace names the controller's own files (the Containerfile turns source maps on).
    sourcemap: 'inline',
    sourcesContent: false,
    legalComments: 'inline',
    logLevel: 'warning',
    // Bundled CommonJS dependencies (commander, the Kubernetes client's) call require(): an ES module has none until it is made here.
    banner: { js: "import { createRequire as __hubCreateRequire } from 'node:module'; const require = __hubCreateRequire(import.meta.url);" },
  });
  copyFileSync(path.join(root, 'hub', 'Containerfile'), path.join(outdir, 'Containerfile'));
  return { outdir, bundle, bytes: statSync(bundle).size };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { outdir, bytes } = await buildHubImageContext();
  const context = path.relative(process.cwd(), outdir);
  console.log(`${context}/hub.mjs: ${(bytes / 1024).toFixed(0)} KiB\nbuild the image with: docker build -t assisted-hub-controller ${context}`);
}
