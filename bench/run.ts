/** `npm run bench`: every benchmark, each printing ratios measured side by side in one run. */
import { apiOverhead } from './api-overhead.js';
import { apiVsGetItem } from './api-vs-getitem.js';
import { lifecycle } from './lifecycle.js';

const benches: Record<string, () => Promise<unknown>> = {
  'api-vs-getitem': () => apiVsGetItem(),
  'api-overhead': () => apiOverhead(),
  lifecycle: () => lifecycle(),
};

const only = process.argv.slice(2);
for (const [name, bench] of Object.entries(benches)) {
  if (only.length && !only.includes(name)) continue;
  console.log(`\n== ${name}`);
  await bench();
}
process.exit(0);
