import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { defineConfig, defaultClientConditions } from 'vite';
import react from '@vitejs/plugin-react';

const consolePackage = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };
const uiLibPackage = JSON.parse(readFileSync(new URL('./node_modules/@openshift-assisted/ui-lib/package.json', import.meta.url), 'utf8')) as { version: string };

function gitSha(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'unknown';
  }
}

export default defineConfig({
  // Absolute asset URLs: index.html is also the answer for deep links (/assisted-installer/clusters/<id>).
  base: '/',
  resolve: {
    // The UI library ships its TypeScript sources under the "source" export condition; building from
    // them (as the upstream standalone app does) gives ESM with CSS imports instead of its CommonJS build.
    conditions: ['source', ...defaultClientConditions],
  },
  define: {
    // The library reads a few build-time settings from process.env; only these exist in the browser.
    // The library reports this as its own version (the about box).
    'process.env.AIUI_APP_VERSION': JSON.stringify(uiLibPackage.version),
    'process.env.AIUI_APP_CLUSTER_PERMISSIONS': 'undefined',
    'process.env.TRANSLATION_NAMESPACE': 'undefined',
    'import.meta.env.CONSOLE_VERSION': JSON.stringify(consolePackage.version),
    'import.meta.env.CONSOLE_GIT_SHA': JSON.stringify(gitSha()),
  },
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 8192,
  },
});
