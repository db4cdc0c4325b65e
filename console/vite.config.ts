import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig, defaultClientConditions, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

const consolePackage = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };
const uiLibPackage = JSON.parse(readFileSync(new URL('./node_modules/@openshift-assisted/ui-lib/package.json', import.meta.url), 'utf8')) as {
  version: string;
};

function gitSha(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'unknown';
  }
}

/**
 * The UI library's polls, handed to src/live-polling.ts (docs/console.md, "Live updates"): in these
 * of its files every timer is a poll, and each `setInterval`/`setTimeout` (and their clears) becomes
 * the live-paced one. The counts are the library's at the pinned version: a release that moves its
 * polling fails the build here instead of quietly polling at its own pace.
 */
function livePollingOfUiLib(): Plugin {
  const pollingModule = fileURLToPath(new URL('./src/live-polling.ts', import.meta.url));
  const timersByFile: Record<string, number> = {
    'lib/ocm/components/clusters/clusterPolling.ts': 2,
    'lib/ocm/components/clusters/Clusters.tsx': 2,
    'lib/ocm/components/HostsClusterDetailTab/HostsClusterDetailTabContent.tsx': 2,
    'lib/ocm/hooks/useInfraEnvHosts.ts': 2,
    'lib/common/components/fetching/EventListFetch.tsx': 2,
  };
  const replacements: [RegExp, string][] = [
    [/\b(?:window\.)?setInterval\(/g, '__livePolling.pollEvery('],
    [/\b(?:window\.)?setTimeout\(/g, '__livePolling.pollOnceAfter('],
    [/\b(?:window\.)?clear(?:Interval|Timeout)\(/g, '__livePolling.stopPolling('],
  ];
  const seen = new Set<string>();
  return {
    name: 'live-polling-of-ui-lib',
    enforce: 'pre',
    generateBundle() {
      const missed = Object.keys(timersByFile).filter((file) => !seen.has(file));
      if (missed.length > 0) this.error(`the UI library's polls were not found in ${missed.join(', ')}; see livePollingOfUiLib in console/vite.config.ts`);
    },
    transform(code, id) {
      const file = Object.keys(timersByFile).find((name) => id.split('?')[0]!.endsWith(`/@openshift-assisted/ui-lib/${name}`));
      if (!file) return undefined;
      seen.add(file);
      let count = 0;
      let transformed = code;
      for (const [pattern, replacement] of replacements) {
        transformed = transformed.replace(pattern, () => {
          count += 1;
          return replacement;
        });
      }
      if (count !== timersByFile[file])
        throw new Error(`${file}: ${count} timer calls where ${timersByFile[file]} were expected; see livePollingOfUiLib in console/vite.config.ts`);
      return { code: `import * as __livePolling from ${JSON.stringify(pollingModule)};\n${transformed}`, map: null };
    },
  };
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
  plugins: [livePollingOfUiLib(), react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 8192,
  },
});
