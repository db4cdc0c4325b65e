/**
 * `npm run conformance`: the whole corpus and the generated requests against our service and
 * upstream's, side by side. Prints the agreement summary, writes .conformance/differences.json and
 * .conformance/summary.txt, and exits non-zero on any difference docs/compatibility.md does not list.
 *
 * Options: --concurrency N (scenarios at once, default 24), --generated N (default 5000), --seed N,
 * --only TEXT (scenarios whose id contains TEXT), --sample N (N scenarios per area), --out DIR.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCompatibilityTable } from './compatibility.js';
import { generatedCases, runGenerated } from './generated.js';
import { Recorder } from './report.js';
import { DEFAULT_SETTLE, pool, runScenario, type Harness } from './runner.js';
import { allScenarios, sampleScenarios } from './scenarios/index.js';
import { startBothServices } from './services.js';

const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

function option(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

const concurrency = Number(option('concurrency') ?? 24);
const generatedCount = Number(option('generated') ?? 5000);
const seed = Number(option('seed') ?? process.env.CONFORMANCE_SEED ?? Date.now() % 2 ** 31);
const only = option('only');
const perArea = option('sample');
const out = path.resolve(projectRoot, option('out') ?? '.conformance');

const started = performance.now();
const rows = loadCompatibilityTable();
let scenarios = allScenarios();
if (only) scenarios = scenarios.filter((scenario) => scenario.id.includes(only));
if (perArea) scenarios = sampleScenarios(scenarios, Number(perArea));
const cases = generatedCases(generatedCount, seed);
console.log(
  `conformance: ${scenarios.length} scenarios, ${generatedCount} generated requests (seed ${seed}, reproduce with --seed ${seed}), ${concurrency} at once, ${rows.length} rows in docs/compatibility.md`,
);

const services = await startBothServices();
const stopOnSignal = () => {
  void services.stop().finally(() => process.exit(130));
};
process.once('SIGINT', stopOnSignal);
process.once('SIGTERM', stopOnSignal);
console.log(
  `ours ${services.endpoints.ours.url}, upstream ${services.endpoints.upstream.url} (started in ${((performance.now() - started) / 1000).toFixed(0)} s)`,
);

const recorder = new Recorder(rows);
const harness: Harness = { endpoints: services.endpoints, recorder, ...DEFAULT_SETTLE };
let exitCode = 1;
try {
  const progressEvery = Math.max(1, Math.floor(scenarios.length / 20));
  await pool(
    scenarios,
    concurrency,
    async (scenario) => {
      try {
        await runScenario(harness, scenario);
      } catch (error) {
        recorder.notes.push(`scenario ${scenario.id} stopped: ${(error as Error).stack ?? error}`);
      }
    },
    (done) => {
      if (done % progressEvery === 0 || done === scenarios.length)
        console.log(
          `  scenarios ${done}/${scenarios.length} (${((performance.now() - started) / 1000).toFixed(0)} s, ${recorder.unlistedCount()} differing comparisons so far)`,
        );
    },
  );
  if (generatedCount > 0) {
    await runGenerated(harness, cases, {
      concurrency,
      onProgress: (done) => {
        if (done % 500 === 0 || done === generatedCount)
          console.log(`  generated ${done}/${generatedCount} (${((performance.now() - started) / 1000).toFixed(0)} s)`);
      },
    });
  }
  const seconds = (performance.now() - started) / 1000;
  const written = recorder.write(out, { seconds, seed });
  console.log(recorder.summary({ seconds, seed }));
  console.log(`differences with both answers: ${path.relative(process.cwd(), written.json)}; summary: ${path.relative(process.cwd(), written.summary)}`);
  exitCode = recorder.unlistedCount() === 0 && recorder.notes.every((note) => !note.startsWith('scenario')) ? 0 : 1;
} finally {
  await services.stop();
}
process.exit(exitCode);
