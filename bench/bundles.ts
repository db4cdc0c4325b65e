/**
 * Each Lambda bundle the stack ships: its size, and its module init time (a fresh `node` importing
 * the bundle, the work of a cold start before the first event), measured side by side against a
 * bare `node` start in the same run so the ratio says what our code adds.
 *
 *   npm run bench bundles
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildSync } from 'esbuild';
import { parse } from 'yaml';
import { esbuildOptions } from '../lib/esbuild-options.js';

const root = path.resolve(import.meta.dirname, '..');
const RUNS = Number(process.env.BUNDLE_INIT_RUNS ?? 5);

/** The environment a deployed function has; values only need to be well-formed (nothing is called at import). */
const FUNCTION_ENV = {
  TABLE_NAME: 'bench', FILES_BUCKET: 'f', IMAGES_BUCKET: 'i', LOGS_BUCKET: 'l', AWS_REGION: 'us-east-1',
  POWERTOOLS_METRICS_DISABLED: 'true', POWERTOOLS_LOG_LEVEL: 'ERROR', NODE_NO_WARNINGS: '1',
};

function medianMs(script: string, cwd: string): number {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = process.hrtime.bigint();
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd, env: { ...process.env, ...FUNCTION_ENV }, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`import failed: ${result.stderr.slice(0, 500)}`);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

export async function bundles(): Promise<void> {
  const catalogue = JSON.parse(readFileSync(path.join(root, 'lambdas/functions.json'), 'utf8')) as { functions: { name: string; entry: string; handler: string; kind: string }[] };
  const entries = [...new Map(catalogue.functions.map((fn) => [fn.entry, fn])).values()];
  const work = mkdtempSync(path.join(tmpdir(), 'bundles-'));
  try {
    const bare = medianMs('0', work);
    console.log(`bare node start: ${bare.toFixed(0)} ms (median of ${RUNS})`);
    console.log('function (entry)                                       bundle KiB   init ms   init ÷ bare');
    for (const fn of entries) {
      const dir = path.join(work, fn.name);
      const outfile = path.join(dir, 'index.mjs');
      buildSync(esbuildOptions(root, fn.entry, outfile, false));
      if (fn.kind === 'api') writeFileSync(path.join(dir, 'openapi.json'), JSON.stringify(parse(readFileSync(path.join(root, 'openapi.yaml'), 'utf8'))));
      const size = statSync(outfile).size / 1024;
      const init = medianMs(`const m = await import(${JSON.stringify(outfile)}); if (typeof m[${JSON.stringify(fn.handler)}] !== 'function') process.exit(3);`, dir);
      console.log(`${`${fn.name} (${fn.entry})`.padEnd(55)}${size.toFixed(0).padStart(10)}${init.toFixed(0).padStart(10)}${(init / bare).toFixed(1).padStart(12)}`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await bundles();
