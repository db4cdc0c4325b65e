import { startRuntime } from './bin/local/runtime.ts';
import { mkdtempSync, readFileSync } from 'node:fs';
const rt = await startRuntime({ port: 0, dnsPort: 0, dataDir: mkdtempSync('/tmp/rtx-'), apiInstances: 2, log: (m) => console.log('LOG', m.slice(0, 300)) });
const token = readFileSync(rt.adminTokenFile, 'utf8').trim();
for (let i = 0; i < 8; i++) { const t = Date.now(); const r = await fetch(rt.url + '/api/assisted-install/v2/clusters', { headers: { Authorization: 'Bearer ' + token } }); console.log(r.status, Date.now() - t, r.headers.get('x-local-function-instance')); }
console.log(JSON.stringify((await rt.health()).functions));
await rt.stop();
