/** `npm run bench`: every benchmark, each printing ratios measured side by side in one run. */
import { agentFleet } from './agent-fleet.js';
import { apiOverhead } from './api-overhead.js';
import { installOverhead } from './install-overhead.js';
import { apiVsGetItem } from './api-vs-getitem.js';
import { bundles } from './bundles.js';
import { cost } from './cost.js';
import { discoveryImage } from './discovery-image.js';
import { fleet } from './fleet.js';
import { fleetConnected } from './fleet/connected.js';
import { lifecycle } from './lifecycle.js';
import { live } from './live.js';
import { versusUpstream } from './versus-upstream.js';

const benches: Record<string, () => Promise<unknown>> = {
  'api-vs-getitem': () => apiVsGetItem(),
  'api-overhead': () => apiOverhead(),
  'install-overhead': () => installOverhead(),
  'agent-fleet': () => agentFleet(),
  lifecycle: () => lifecycle(),
  bundles: () => bundles(),
  cost: () => cost(),
  'discovery-image': () => discoveryImage(),
  fleet: () => fleet(),
  'fleet-connected': () => fleetConnected(),
  'versus-upstream': () => versusUpstream(),
  live: () => live(),
};

/** Run only when named: an hour or more at their default settings (live: Chromium, about 6 minutes). */
const longBenches = new Set(['fleet', 'fleet-connected', 'versus-upstream', 'live']);

const only = process.argv.slice(2);
for (const [name, bench] of Object.entries(benches)) {
  if (only.length ? !only.includes(name) : longBenches.has(name)) continue;
  console.log(`\n== ${name}`);
  await bench();
}
process.exit(0);
