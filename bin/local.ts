/** `npm start`: the whole service on this machine. See README.md for the settings. */
import { startRuntime } from './local/runtime.js';

const port = Number(process.env.ASSISTED_PORT ?? 8090);
const dnsPort = Number(process.env.ASSISTED_DNS_PORT ?? 8053);
const started = Date.now();

const runtime = await startRuntime({
  host: process.env.ASSISTED_HOST ?? '127.0.0.1',
  port,
  dnsPort,
  dataDir: process.env.ASSISTED_DATA_DIR ?? '.assisted',
  log: (message) => console.log(`[assisted] ${message}`),
}).catch((error: Error) => {
  console.error(`[assisted] could not start: ${error.message}`);
  process.exit(1);
});

console.log(`[assisted] ready in ${((Date.now() - started) / 1000).toFixed(1)} s
  API          ${runtime.url}/api/assisted-install/v2
  health       ${runtime.url}/healthz
  DNS          ${runtime.endpoints.dns.host}:${runtime.endpoints.dns.port} (udp+tcp)
  data         ${runtime.dataDir}`);
if (runtime.createdAdminToken) {
  console.log(`  admin token  ${runtime.createdAdminToken}
               (shown once; also saved to ${runtime.adminTokenFile}, mode 0600)`);
} else {
  console.log(`  admin token  in ${runtime.adminTokenFile}`);
}

let stopping = false;
const shutdown = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`[assisted] ${signal}: stopping`);
  const force = setTimeout(() => process.exit(1), 15_000);
  await runtime.stop();
  clearTimeout(force);
  process.exit(0);
};
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
