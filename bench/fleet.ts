/**
 * Fleet scale (#22): thousands of small clusters created by automation and installing at once, with
 * SIMULATED hosts and the SIMULATED installer, everything else the local runtime `npm start` runs
 * (API, install workflow in the ASL interpreter, installer tasks as processes of their own, stream
 * consumer, monitor, DynamoDB Local, S3 and DNS stand-ins).
 *
 * This process is the service; the customer (automation through REST and `assisted ztp apply`, and
 * one fleet process booting every infra-env's hosts) runs in bench/fleet/customer.ts, so the CPU
 * each side spends is told apart. Printed side by side in one run: installs per hour sustained
 * (between the 10th and 90th percentile of completions, not the first burst), creation to
 * installed p50/p95/max, API latency per class of call as the agents and the automation see it
 * (p50/p99, and the worst minute's p99), failures by cause, CPU seconds per install by where they
 * went, and the peak number of hosts connected at once. The whole result is written as JSON.
 *
 *   npm run bench -- fleet
 *
 * Settings (env): FLEET_CLUSTERS (3500), FLEET_MIX (sno:90,compact:10), FLEET_INSTALL_CONCURRENCY
 * (clusters between creation and their end at once, 600), FLEET_POLL_SECONDS (the agents' longest
 * wait between polls; upstream's 60), FLEET_WATCH_SECONDS (how often automation reads each cluster,
 * 10), FLEET_STAGE_MS (each SIMULATED install stage, 200), FLEET_INSTALL_POLL_SECONDS (the install
 * workflow's INSTALL_POLL_SECONDS; the service's default 30), FLEET_RAMP_SECONDS (the first
 * clusters' creation spread, 60), FLEET_CLUSTER_TIMEOUT_SECONDS (1800), FLEET_OUT (the JSON file).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { buildCli } from '../cli/build.js';
import { startRuntime } from '../bin/local/runtime.js';
import { PULL_SECRET, sshPublicKey } from '../test/support/fixtures.js';
import { percentile, type ClusterOutcome, type CustomerReport, type CustomerSettings, type LatencySummary } from './fleet/contract.js';
import { cpuSplit, CpuMeter } from './fleet/cpu.js';

const setting = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export interface FleetResult {
  settings: Omit<CustomerSettings, 'adminToken' | 'pullSecret' | 'sshPublicKey'>;
  wallSeconds: number;
  installsPerHour: number;
  installed: number;
  failedInstalls: number;
  failures: Record<string, number>;
  creationToInstalledSeconds: { p50: number; p95: number; max: number };
  latencies: Record<string, LatencySummary>;
  serverErrors: Record<string, number>;
  peakConnectedHosts: number;
  cpuSecondsPerInstall: Record<string, number>;
  /** The same, for the whole run. */
  cpuSeconds: Record<string, number>;
  cores: number;
}

/** Installs per hour between the 10th and the 90th percentile of completion times: the sustained rate, not the burst. */
export function sustainedRate(completedAt: readonly number[]): number {
  const sorted = [...completedAt].sort((a, b) => a - b);
  if (sorted.length < 10) return sorted.length >= 2 ? ((sorted.length - 1) / (sorted.at(-1)! - sorted[0]!)) * 3_600_000 : 0;
  const from = Math.floor(sorted.length * 0.1);
  const to = Math.floor(sorted.length * 0.9);
  return ((to - from) / (sorted[to]! - sorted[from]!)) * 3_600_000;
}

export async function fleet(overrides: Partial<CustomerSettings> = {}): Promise<FleetResult> {
  const workDir = mkdtempSync(path.join(tmpdir(), 'bench-fleet-'));
  const previousPoll = process.env.INSTALL_POLL_SECONDS;
  if (process.env.FLEET_INSTALL_POLL_SECONDS) process.env.INSTALL_POLL_SECONDS = process.env.FLEET_INSTALL_POLL_SECONDS;
  const runtime = await startRuntime({ port: 0, dnsPort: 0, dataDir: path.join(workDir, 'data'), baseDomains: ['example.com'], warmAllFunctions: true, identityStandIn: false });
  try {
    await runtime.warmed;
    const { outfile: cliBundle } = await buildCli({ outfile: path.join(workDir, 'assisted.mjs') });
    const settings: CustomerSettings = {
      url: runtime.url,
      adminToken: readFileSync(runtime.adminTokenFile, 'utf8').trim(),
      cliBundle,
      workDir,
      pullSecret: PULL_SECRET,
      sshPublicKey: sshPublicKey('fleet@example.com'),
      namePrefix: `fleet${Date.now().toString(36)}`,
      clusters: setting('FLEET_CLUSTERS', 3_500),
      mix: process.env.FLEET_MIX ?? 'sno:90,compact:10',
      inFlight: setting('FLEET_INSTALL_CONCURRENCY', 600),
      rampMs: setting('FLEET_RAMP_SECONDS', 60) * 1000,
      pollSeconds: setting('FLEET_POLL_SECONDS', 60),
      watchSeconds: setting('FLEET_WATCH_SECONDS', 10),
      stageMs: setting('FLEET_STAGE_MS', 200),
      clusterTimeoutMs: setting('FLEET_CLUSTER_TIMEOUT_SECONDS', 1_800) * 1000,
      ztpBatch: 20,
      ztpBatchWaitMs: 2_000,
      connections: 128,
      startedAt: Date.now(),
      ...overrides,
    };
    const pollLabel = settings.pollSeconds === 60 ? 'upstream’s 60 s' : `${settings.pollSeconds} s (FASTER than upstream’s 60 s)`;
    console.log(`fleet: ${settings.clusters} clusters (${settings.mix}), ${settings.inFlight} in flight at once, agents poll at most every ${pollLabel}, SIMULATED hosts and installer (stages ${settings.stageMs} ms), install workflow polling every ${process.env.INSTALL_POLL_SECONDS ?? 30} s, ${availableParallelism()} cores`);

    const cpu = new CpuMeter(runtime.functions);
    const customer = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'fleet', 'customer.ts'), JSON.stringify(settings)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: { ...process.env, NODE_OPTIONS: '' } });
    cpu.watchCustomer(customer.pid!);
    const outcomes: ClusterOutcome[] = [];
    const serverErrors: Record<string, number> = {};
    const agentErrors: string[] = [];
    let latencies: Record<string, LatencySummary> = {};
    let peakConnected = 0;
    let connected = 0;
    const done = new Promise<void>((resolve, reject) => {
      customer.on('message', (message: CustomerReport) => {
        switch (message.type) {
          case 'sample':
            connected = message.connected;
            peakConnected = Math.max(peakConnected, connected);
            return;
          case 'outcome':
            outcomes.push(message.outcome);
            return;
          case 'server-error':
            serverErrors[`${message.status} ${message.call}`] = (serverErrors[`${message.status} ${message.call}`] ?? 0) + 1;
            return;
          case 'agent-error':
            if (agentErrors.length < 20) agentErrors.push(message.line);
            return;
          case 'done':
            latencies = message.latencies;
            return resolve();
        }
      });
      customer.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the customer process exited ${code}`))));
    });
    const progress = setInterval(() => {
      const installed = outcomes.filter((o) => !o.failure).length;
      const recent = outcomes.filter((o) => !o.failure && o.startedAt + o.times.installed! > Date.now() - 300_000).length;
      console.log(`  +${seconds(Date.now() - settings.startedAt)}: ${installed} installed, ${outcomes.length - installed} failed, ${connected} hosts connected, ${(recent * 12).toFixed(0)} installs/h over the last 5 min`);
    }, 30_000);
    cpu.start();
    try {
      await done;
    } finally {
      clearInterval(progress);
    }
    const cpuSeconds = cpu.stop();
    const wallMs = Date.now() - settings.startedAt;

    const installedOutcomes = outcomes.filter((o) => !o.failure);
    const durations = installedOutcomes.map((o) => o.times.installed!).sort((a, b) => a - b);
    const failures: Record<string, number> = {};
    for (const o of outcomes.filter((o) => o.failure)) failures[o.failure!.cause] = (failures[o.failure!.cause] ?? 0) + 1;
    const result: FleetResult = {
      settings: { ...settings, adminToken: undefined, pullSecret: undefined, sshPublicKey: undefined } as never,
      wallSeconds: wallMs / 1000,
      installsPerHour: sustainedRate(installedOutcomes.map((o) => o.startedAt + o.times.installed!)),
      installed: installedOutcomes.length,
      failedInstalls: outcomes.length - installedOutcomes.length + (settings.clusters - outcomes.length),
      failures,
      creationToInstalledSeconds: { p50: percentile(durations, 50) / 1000, p95: percentile(durations, 95) / 1000, max: (durations.at(-1) ?? 0) / 1000 },
      latencies,
      serverErrors,
      peakConnectedHosts: peakConnected,
      cpuSecondsPerInstall: Object.fromEntries(Object.entries(cpuSeconds).map(([where, s]) => [where, installedOutcomes.length ? s / installedOutcomes.length : 0])),
      cpuSeconds,
      cores: availableParallelism(),
    };

    console.log(`\nclusters: ${outcomes.length} ended of ${settings.clusters} (${installedOutcomes.length} installed) in ${seconds(wallMs)}; peak hosts connected at once: ${peakConnected}`);
    console.log(`creation to installed: p50 ${result.creationToInstalledSeconds.p50.toFixed(1)} s, p95 ${result.creationToInstalledSeconds.p95.toFixed(1)} s, max ${result.creationToInstalledSeconds.max.toFixed(1)} s`);
    const phases = (pick: (o: ClusterOutcome) => number | undefined) => percentile(installedOutcomes.map(pick).filter((v): v is number => v !== undefined).sort((a, b) => a - b), 50) / 1000;
    console.log(`  median phases: created ${phases((o) => o.times.created).toFixed(1)} s, ready ${phases((o) => o.times.ready).toFixed(1)} s, install started ${phases((o) => o.times.installStarted).toFixed(1)} s`);
    console.log('API latency as the callers see it (ms)            count      p50      p99  worst minute p99      max');
    for (const [kind, s] of Object.entries(latencies).sort()) console.log(`  ${kind.padEnd(44)}${String(s.count).padStart(9)}${s.p50.toFixed(1).padStart(9)}${s.p99.toFixed(1).padStart(9)}${s.worstMinuteP99.toFixed(1).padStart(18)}${s.max.toFixed(0).padStart(9)}`);
    const serviceSeconds = Object.entries(cpuSeconds).filter(([where]) => !where.startsWith('customer')).reduce((sum, [, s]) => sum + s, 0);
    console.log(`CPU seconds per install, by where they went (the service used ${serviceSeconds.toFixed(0)} CPU s in ${seconds(wallMs)}: ${(serviceSeconds / (wallMs / 1000)).toFixed(2)} cores on average)`);
    console.log(cpuSplit(result.cpuSecondsPerInstall));
    if (Object.keys(serverErrors).length) console.log(`5xx answers: ${JSON.stringify(serverErrors)}`);
    if (Object.keys(failures).length) console.log(`failures by cause: ${JSON.stringify(failures)}`);
    for (const line of agentErrors.slice(0, 5)) console.log(`  agent error: ${line}`);
    const out = process.env.FLEET_OUT ?? path.join(tmpdir(), 'fleet.json');
    writeFileSync(out, `${JSON.stringify({ ...result, outcomes }, null, 2)}\n`);
    console.log(`result: ${out}`);
    console.log(`installs per hour: ${result.installsPerHour.toFixed(0)}`);
    console.log(`failed installs: ${result.failedInstalls}`);
    return result;
  } finally {
    await runtime.stop();
    if (previousPoll === undefined) delete process.env.INSTALL_POLL_SECONDS;
    else process.env.INSTALL_POLL_SECONDS = previousPoll;
    // The data directory holds what DynamoDB Local and S3 wrote: gigabytes after a long run.
    for (const entry of readdirSync(workDir)) rmSync(path.join(workDir, entry), { recursive: true, force: true });
    rmSync(workDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await fleet();
