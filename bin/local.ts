/** `npm start`: the whole service on this machine. See README.md for the settings. */
import { spawnSync } from 'node:child_process';
import { startRuntime } from './local/runtime.js';

/** Which installer the install workflow's container task will find (it runs with this environment). */
function installerMode(): string {
  const probe = spawnSync(process.env.OPENSHIFT_INSTALL || 'openshift-install', ['version'], { encoding: 'utf8', timeout: 30_000 });
  if (!probe.error && probe.status === 0) return probe.stdout.split('\n')[0] ?? 'openshift-install';
  if (process.env.ASSISTED_SIMULATED_INSTALLER === 'false')
    return 'none: no openshift-install on PATH and the simulated installer is refused (installs will fail)';
  return 'SIMULATED (no openshift-install on PATH or in OPENSHIFT_INSTALL): clusters install with simulated ignition files';
}

// Everything npm start writes (DynamoDB Local's and s3rver's files, keys, tokens) is its user's alone: 0600 files, 0700 directories.
process.umask(0o077);

const port = Number(process.env.ASSISTED_PORT ?? 8090);
const dnsPort = Number(process.env.ASSISTED_DNS_PORT ?? 8053);
const started = Date.now();

async function main(): Promise<void> {
  const runtime = await startRuntime({
    host: process.env.ASSISTED_HOST ?? '127.0.0.1',
    port,
    dnsPort,
    dataDir: process.env.ASSISTED_DATA_DIR ?? '.assisted',
    warmAllFunctions: true,
    log: (message) => console.log(`[assisted] ${message}`),
  }).catch((error: Error) => {
    console.error(`[assisted] could not start: ${error.message}`);
    process.exit(1);
  });

  console.log(`[assisted] ready in ${((Date.now() - started) / 1000).toFixed(1)} s
  API          ${runtime.url}/api/assisted-install/v2
  health       ${runtime.url}/healthz
  DNS          ${runtime.endpoints.dns.host}:${runtime.endpoints.dns.port} (udp+tcp)
  data         ${runtime.dataDir}
  installer    ${installerMode()}`);
  console.log(
    runtime.identity
      ? `  console      ${runtime.url}/ (sign up there; identity stand-in at ${runtime.identity.issuer}, verification codes in ${runtime.identity.outbox})`
      : `  console      ${runtime.url}/ (API tokens; identity provider ${process.env.IDENTITY_PROVIDER_ISSUER ?? 'none'})`,
  );
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
}

// Not a top-level await: see bin/local/instance/boot.mjs (a module V8 still settles when the process
// stops can abort it).
void main();
