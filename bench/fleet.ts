/**
 * Fleet scale (#22): thousands of small clusters created by automation and installing at once, with
 * SIMULATED hosts and the SIMULATED installer, everything else the local runtime `npm start` runs
 * (API, install workflow in the ASL interpreter, installer tasks as processes of their own, stream
 * consumer, monitor, DynamoDB Local, S3 and DNS stand-ins).
 *
 * This process is the service; the customer (automation through REST and `assisted ztp apply`, and
 * one fleet process booting every infra-env's hosts) runs in bench/fleet/customer.ts, so the CPU
 * each side spends is told apart. Printed side by side in one run: installs per hour sustained
 * (installs over the run's whole length, from the first creation to the last end), creation to
 * installed p50/p95/max, API latency per class of call as the agents and the automation see it
 * (p50/p99, and the worst minute's p99), failures by cause, CPU seconds per install by where they
 * went, and the peak number of hosts connected at once. The whole result is written as JSON.
 *
 *   npm run bench -- fleet
 *
 * Settings (env): FLEET_CLUSTERS (3500), FLEET_MIX (sno:90,compact:10), FLEET_INSTALL_CONCURRENCY
 * (clusters between creation and their end at once, 150: past a point every install takes longer than the extra ones add; docs/scale.md has the runs), FLEET_POLL_SECONDS (the agents' longest
 * wait between polls; upstream's 60), FLEET_WATCH_SECONDS (how often automation reads each cluster,
 * 15), FLEET_CONTROLLER_POLL_SECONDS (the SIMULATED controller's reads of its cluster; upstream's
 * controller waits 30 s between them), FLEET_STAGE_MS (each SIMULATED install stage, 200), FLEET_INSTALL_POLL_SECONDS (the install
 * workflow's INSTALL_POLL_SECONDS; the service's default 30), FLEET_RAMP_SECONDS (the first
 * clusters' creation spread over this long, 300: about one install's length, so arrivals are steady from the start rather than one wave), FLEET_CLUSTER_TIMEOUT_SECONDS (1800), FLEET_OUT (the JSON file).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { buildCli } from '../cli/build.js';
import { startDynamoDbLocal } from '../bin/local/dynamodb-local.js';
import { freePort } from '../bin/local/net.js';
import { PULL_SECRET, sshPublicKey } from './support/fixtures.js';
import { CustomerTroubles, percentile, type ClusterOutcome, type CustomerReport, type CustomerSettings, type LatencySummary } from './fleet/contract.js';
import { cpuSplit, CpuMeter } from './fleet/cpu.js';
import { startFleetRuntime } from './fleet/runtime.js';
import { seconds, setting } from './support/settings.js';

const tally = (values: readonly string[]) => {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
};

export interface FleetResult {
  settings: Omit<CustomerSettings, 'adminToken' | 'pullSecret' | 'sshPublicKey'>;
  wallSeconds: number;
  installsPerHour: number;
  installed: number;
  /** Installed clusters by kind and by the way they were created. */
  byKind: Record<string, number>;
  byChannel: Record<string, number>;
  failedInstalls: number;
  failures: Record<string, number>;
  /**
   * Set when the run was stopped (SIGINT or SIGTERM) before every cluster ended: the seconds it ran,
   * and the clusters still in flight then, which count neither as installed nor as failed.
   */
  stoppedEarly?: { afterSeconds: number; abandonedInFlight: number; neverStarted: number };
  creationToInstalledSeconds: { p50: number; p95: number; max: number };
  latencies: Record<string, LatencySummary>;
  /** Calls the customer made, by method and path template. */
  calls: Record<string, number>;
  serverErrors: Record<string, number>;
  peakConnectedHosts: number;
  cpuSecondsPerInstall: Record<string, number>;
  /** The same, for the whole run. */
  cpuSeconds: Record<string, number>;
  cores: number;
  /** With FLEET_COUNT_DYNAMODB=1: every DynamoDB request counted, overall and by the function that asked. */
  dynamodbRequests?: { requests: Record<string, number>; byCaller: Record<string, number> };
}

/**
 * Installs per hour over the whole run, from the first cluster's creation to the last one's end:
 * the ramp and the tail are in it, so a burst of completions cannot pass for a rate.
 */
export function sustainedRate(outcomes: readonly ClusterOutcome[]): number {
  const installed = outcomes.filter((o) => !o.failure);
  if (installed.length === 0) return 0;
  const first = Math.min(...outcomes.map((o) => o.startedAt));
  const last = Math.max(...outcomes.map((o) => o.startedAt + Math.max(...Object.values(o.times).filter((t): t is number => t !== undefined))));
  return (installed.length / (last - first)) * 3_600_000;
}

/** DynamoDB Local behind bench/fleet/dynamodb-counter.ts: every request counted by operation and key prefix. */
async function countingDynamoDb(dataDir: string | undefined) {
  const dynamo = await startDynamoDbLocal({ port: await freePort('127.0.0.1'), ...(dataDir ? { dataDir } : {}) });
  const port = await freePort('127.0.0.1');
  const proxy = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'fleet', 'dynamodb-counter.ts'), String(port), dynamo.endpoint], {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  const listening = await new Promise<boolean>((resolve) => {
    proxy.once('message', () => resolve(true));
    proxy.once('exit', () => resolve(false));
    proxy.once('error', () => resolve(false));
  });
  if (!listening) {
    await dynamo.stop();
    throw new Error('the DynamoDB counting proxy (bench/fleet/dynamodb-counter.ts) did not start');
  }
  let output = '';
  proxy.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise((resolve) => proxy.once('exit', resolve));
  return {
    endpoint: `http://127.0.0.1:${port}`,
    async counts(): Promise<{ requests: Record<string, number>; byCaller: Record<string, number> }> {
      proxy.kill('SIGTERM');
      await exited;
      return JSON.parse(output) as { requests: Record<string, number>; byCaller: Record<string, number> };
    },
    async stop() {
      if (proxy.exitCode === null) proxy.kill('SIGKILL');
      await dynamo.stop();
    },
  };
}

/**
 * Settings from the environment (see above), or given (the e2e smoke test): `installPollSeconds`
 * is the install workflow's; `out: false` writes no JSON file.
 */
export async function fleet(overrides: Partial<CustomerSettings> & { installPollSeconds?: number; out?: string | false } = {}): Promise<FleetResult> {
  const { installPollSeconds, out: outOption, ...given } = overrides;
  const workDir = mkdtempSync(path.join(tmpdir(), 'bench-fleet-'));
  const previousPoll = process.env.INSTALL_POLL_SECONDS;
  const installPoll = installPollSeconds ?? process.env.FLEET_INSTALL_POLL_SECONDS;
  if (installPoll !== undefined) process.env.INSTALL_POLL_SECONDS = String(installPoll);
  // FLEET_COUNT_DYNAMODB=1: DynamoDB Local is started here, behind a counting proxy of its own process.
  // FLEET_DYNAMODB=memory: DynamoDB Local keeps the table in memory (-inMemory) instead of on disk as `npm start` does.
  const inMemory = process.env.FLEET_DYNAMODB === 'memory';
  let counter: Awaited<ReturnType<typeof countingDynamoDb>> | undefined;
  let memoryDynamo: Awaited<ReturnType<typeof startDynamoDbLocal>> | undefined;
  let runtime: Awaited<ReturnType<typeof startFleetRuntime>> | undefined;
  let customer: ReturnType<typeof spawn> | undefined;
  let stoppedAtMs: number | undefined;
  let removeStopHandlers: (() => void) | undefined;
  try {
    if (process.env.FLEET_COUNT_DYNAMODB === '1') counter = await countingDynamoDb(inMemory ? undefined : path.join(workDir, 'data', 'dynamodb'));
    else if (inMemory) memoryDynamo = await startDynamoDbLocal({ port: await freePort('127.0.0.1') });
    runtime = await startFleetRuntime(workDir, (counter ?? memoryDynamo)?.endpoint);
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
      inFlight: setting('FLEET_INSTALL_CONCURRENCY', 150),
      rampMs: setting('FLEET_RAMP_SECONDS', 300) * 1000,
      pollSeconds: setting('FLEET_POLL_SECONDS', 60),
      watchSeconds: setting('FLEET_WATCH_SECONDS', 15),
      controllerPollSeconds: setting('FLEET_CONTROLLER_POLL_SECONDS', 30),
      stageMs: setting('FLEET_STAGE_MS', 200),
      clusterTimeoutMs: setting('FLEET_CLUSTER_TIMEOUT_SECONDS', 1_800) * 1000,
      ztpBatch: 20,
      ztpBatchWaitMs: 2_000,
      connections: 128,
      startedAt: Date.now(),
      ...given,
    };
    const pollLabel = settings.pollSeconds === 60 ? 'upstream’s 60 s' : `${settings.pollSeconds} s (FASTER than upstream’s 60 s)`;
    console.log(
      `fleet: ${settings.clusters} clusters (${settings.mix}), ${settings.inFlight} in flight at once, agents poll at most every ${pollLabel}, SIMULATED hosts and installer (stages ${settings.stageMs} ms), controller reading its cluster every ${settings.controllerPollSeconds} s, automation every ${settings.watchSeconds} s, install workflow polling every ${process.env.INSTALL_POLL_SECONDS ?? 30} s, DynamoDB Local ${inMemory ? 'IN MEMORY (FLEET_DYNAMODB=memory)' : 'on disk as npm start runs it'}, ${availableParallelism()} cores`,
    );

    const cpu = new CpuMeter(runtime.functions);
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'fleet', 'customer.ts')], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    customer = child;
    // Over the IPC channel, not argv: the admin token and pull secret stay out of the process list.
    child.send({ type: 'settings', settings });
    cpu.watchCustomer(child.pid!);
    // A long run stopped by hand still reports what ended: the customer abandons the clusters in
    // flight and sends its latencies, and the summary and JSON below are written as usual.
    const stopEarly = () => {
      if (stoppedAtMs !== undefined) return;
      stoppedAtMs = Date.now();
      console.log(
        `\nstopping early at +${seconds(stoppedAtMs - settings.startedAt)}: the clusters in flight are abandoned; the report covers the clusters that ended`,
      );
      child.send({ type: 'stop' });
    };
    const stopSignals = ['SIGINT', 'SIGTERM'] as const;
    removeStopHandlers = () => {
      for (const signal of stopSignals) process.off(signal, stopEarly);
    };
    for (const signal of stopSignals) process.on(signal, stopEarly);
    const outcomes: ClusterOutcome[] = [];
    const troubles = new CustomerTroubles();
    const { serverErrors, agentErrors } = troubles;
    let latencies: Record<string, LatencySummary> = {};
    let calls: Record<string, number> = {};
    let peakConnected = 0;
    let connected = 0;
    const done = new Promise<void>((resolve, reject) => {
      child.on('error', reject);
      child.on('message', (message: CustomerReport) => {
        if (troubles.take(message)) return;
        switch (message.type) {
          case 'sample':
            connected = message.connected;
            peakConnected = Math.max(peakConnected, connected);
            return;
          case 'outcome':
            outcomes.push(message.outcome);
            return;
          case 'done':
            latencies = message.latencies;
            calls = message.calls;
            return resolve();
        }
      });
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the customer process exited ${code}`))));
    });
    const cpuSeconds = await cpu.during(done, () => {
      const installed = outcomes.filter((o) => !o.failure).length;
      const recent = outcomes.filter((o) => !o.failure && o.startedAt + o.times.installed! > Date.now() - 300_000).length;
      return `  +${seconds(Date.now() - settings.startedAt)}: ${installed} installed, ${outcomes.length - installed} failed, ${connected} hosts connected, ${(recent * 12).toFixed(0)} installs/h over the last 5 min`;
    });
    const dynamoRequests = await counter?.counts();
    const wallMs = Date.now() - settings.startedAt;

    // Clusters abandoned by an early stop neither installed nor failed.
    const ended = stoppedAtMs === undefined ? outcomes : outcomes.filter((o) => o.failure?.cause !== 'stopped');
    const abandoned = outcomes.length - ended.length;
    const installedOutcomes = ended.filter((o) => !o.failure);
    const durations = installedOutcomes.map((o) => o.times.installed!).sort((a, b) => a - b);
    const failures: Record<string, number> = {};
    for (const o of ended.filter((o) => o.failure)) failures[o.failure!.cause] = (failures[o.failure!.cause] ?? 0) + 1;
    const result: FleetResult = {
      settings: { ...settings, adminToken: undefined, pullSecret: undefined, sshPublicKey: undefined } as never,
      wallSeconds: wallMs / 1000,
      installsPerHour: sustainedRate(ended),
      installed: installedOutcomes.length,
      byKind: tally(installedOutcomes.map((o) => o.kind)),
      byChannel: tally(installedOutcomes.map((o) => o.channel)),
      failedInstalls: ended.length - installedOutcomes.length + (stoppedAtMs === undefined ? settings.clusters - outcomes.length : 0),
      ...(stoppedAtMs !== undefined
        ? {
            stoppedEarly: {
              afterSeconds: (stoppedAtMs - settings.startedAt) / 1000,
              abandonedInFlight: abandoned,
              neverStarted: settings.clusters - outcomes.length,
            },
          }
        : {}),
      failures,
      creationToInstalledSeconds: { p50: percentile(durations, 50) / 1000, p95: percentile(durations, 95) / 1000, max: (durations.at(-1) ?? 0) / 1000 },
      latencies,
      calls,
      serverErrors,
      peakConnectedHosts: peakConnected,
      cpuSecondsPerInstall: Object.fromEntries(
        Object.entries(cpuSeconds).map(([where, s]) => [where, installedOutcomes.length ? s / installedOutcomes.length : 0]),
      ),
      cpuSeconds,
      cores: availableParallelism(),
      ...(dynamoRequests ? { dynamodbRequests: dynamoRequests } : {}),
    };

    if (result.stoppedEarly)
      console.log(
        `\nSTOPPED EARLY after ${seconds(stoppedAtMs! - settings.startedAt)}: ${abandoned} clusters abandoned in flight, ${result.stoppedEarly.neverStarted} never started; everything below covers the clusters that ended`,
      );
    console.log(
      `\nclusters: ${ended.length} ended of ${settings.clusters} (${installedOutcomes.length} installed: ${JSON.stringify(result.byKind)}, ${JSON.stringify(result.byChannel)}) in ${seconds(wallMs)}; peak hosts connected at once: ${peakConnected}`,
    );
    console.log(
      `creation to installed: p50 ${result.creationToInstalledSeconds.p50.toFixed(1)} s, p95 ${result.creationToInstalledSeconds.p95.toFixed(1)} s, max ${result.creationToInstalledSeconds.max.toFixed(1)} s`,
    );
    const phases = (pick: (o: ClusterOutcome) => number | undefined) =>
      percentile(
        installedOutcomes
          .map(pick)
          .filter((v): v is number => v !== undefined)
          .sort((a, b) => a - b),
        50,
      ) / 1000;
    console.log(
      `  median phases: created ${phases((o) => o.times.created).toFixed(1)} s, ready ${phases((o) => o.times.ready).toFixed(1)} s, install started ${phases((o) => o.times.installStarted).toFixed(1)} s`,
    );
    console.log('API latency as the callers see it (ms)            count      p50      p99  worst minute p99      max');
    for (const [kind, s] of Object.entries(latencies).sort())
      console.log(
        `  ${kind.padEnd(44)}${String(s.count).padStart(9)}${s.p50.toFixed(1).padStart(9)}${s.p99.toFixed(1).padStart(9)}${s.worstMinuteP99.toFixed(1).padStart(18)}${s.max.toFixed(0).padStart(9)}`,
      );
    const serviceSeconds = Object.entries(cpuSeconds)
      .filter(([where]) => !where.startsWith('customer'))
      .reduce((sum, [, s]) => sum + s, 0);
    console.log(
      `CPU seconds per install, by where they went (the service used ${serviceSeconds.toFixed(0)} CPU s in ${seconds(wallMs)}: ${(serviceSeconds / (wallMs / 1000)).toFixed(2)} cores on average)`,
    );
    console.log(cpuSplit(result.cpuSecondsPerInstall));
    const perInstall = (n: number) => (installedOutcomes.length ? n / installedOutcomes.length : 0).toFixed(1);
    console.log(
      `calls per install (customer side): ${Object.entries(calls)
        .slice(0, 14)
        .map(([call, n]) => `${call} ${perInstall(n)}`)
        .join(', ')}`,
    );
    if (dynamoRequests) {
      console.log(
        `DynamoDB requests per install (FLEET_COUNT_DYNAMODB): ${Object.entries(dynamoRequests.requests)
          .slice(0, 24)
          .map(([request, n]) => `${request} ${perInstall(n)}`)
          .join(', ')}`,
      );
      console.log(
        `  by the function that asked: ${Object.entries(dynamoRequests.byCaller)
          .slice(0, 40)
          .map(([request, n]) => `${request} ${perInstall(n)}`)
          .join(', ')}`,
      );
    }
    if (Object.keys(serverErrors).length) console.log(`5xx answers: ${JSON.stringify(serverErrors)}`);
    if (Object.keys(failures).length) console.log(`failures by cause: ${JSON.stringify(failures)}`);
    for (const line of agentErrors.slice(0, 5)) console.log(`  agent error: ${line}`);
    const out = outOption ?? process.env.FLEET_OUT ?? path.join(tmpdir(), 'fleet.json');
    if (out !== false) {
      writeFileSync(out, `${JSON.stringify({ ...result, outcomes }, null, 2)}\n`);
      console.log(`result: ${out}`);
    }
    console.log(`installs per hour: ${result.installsPerHour.toFixed(0)}`);
    console.log(`failed installs: ${result.failedInstalls}`);
    return result;
  } finally {
    removeStopHandlers?.();
    if (customer && customer.exitCode === null && customer.signalCode === null) customer.kill('SIGKILL');
    await runtime?.stop();
    await counter?.stop();
    await memoryDynamo?.stop();
    if (previousPoll === undefined) delete process.env.INSTALL_POLL_SECONDS;
    else process.env.INSTALL_POLL_SECONDS = previousPoll;
    // The data directory holds what DynamoDB Local and S3 wrote: gigabytes after a long run.
    for (const entry of readdirSync(workDir)) rmSync(path.join(workDir, entry), { recursive: true, force: true });
    rmSync(workDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await fleet();
