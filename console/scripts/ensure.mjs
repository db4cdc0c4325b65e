#!/usr/bin/env node
/**
 * Keeps the console ready without redoing work: `install` runs `npm ci` in console/ only when its
 * lock file changed since the last install; `build` runs the Vite build only when a source is newer
 * than console/dist (or dist is missing). Used by the root postinstall, prestart and the browser tests.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const consoleDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(args, env = process.env) {
  const result = spawnSync(npm, args, { cwd: consoleDir, stdio: 'inherit', timeout: 15 * 60_000, env });
  if (result.status !== 0) {
    console.error(`console: npm ${args.join(' ')} failed (${result.error?.message ?? `exit ${result.status}`})`);
    process.exit(1);
  }
}

function installedLockMatches() {
  const installed = path.join(consoleDir, 'node_modules', '.package-lock.json');
  if (!existsSync(installed)) return false;
  const wanted = JSON.parse(readFileSync(path.join(consoleDir, 'package-lock.json'), 'utf8')).packages ?? {};
  const have = JSON.parse(readFileSync(installed, 'utf8')).packages ?? {};
  // Optional packages for other platforms (native bindings) are in the lock but never installed here.
  return Object.entries(wanted).every(([name, entry]) => name === '' || have[name]?.version === entry.version || (entry.optional && !have[name]));
}

function newestSourceTime() {
  let newest = 0;
  const visit = (entry) => {
    const stats = statSync(entry);
    if (stats.isDirectory()) for (const child of readdirSync(entry)) visit(path.join(entry, child));
    else newest = Math.max(newest, stats.mtimeMs);
  };
  for (const entry of ['src', 'public', 'index.html', 'vite.config.ts', 'package.json', 'package-lock.json']) {
    const full = path.join(consoleDir, entry);
    if (existsSync(full)) visit(full);
  }
  return newest;
}

const command = process.argv[2];
if (command === 'install') {
  if (installedLockMatches()) console.log('console: dependencies up to date');
  else run(['ci', '--no-audit', '--no-fund']);
} else if (command === 'build') {
  if (!installedLockMatches()) run(['ci', '--no-audit', '--no-fund']);
  const built = path.join(consoleDir, 'dist', 'index.html');
  if (existsSync(built) && statSync(built).mtimeMs >= newestSourceTime()) console.log('console: dist up to date');
  // Always the production build users get, whoever asks: the browser tests run under vitest's
  // NODE_ENV=test, which made Vite build React's development flavour, with its console warnings.
  else run(['run', 'build'], { ...process.env, NODE_ENV: 'production' });
} else {
  console.error('usage: node console/scripts/ensure.mjs install|build');
  process.exit(2);
}
