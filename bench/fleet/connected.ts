/**
 * Fleet scale (#22), the "connected" scenario: 10,000 hosts connected at once across ≥ 2,000
 * clusters at the 60 s poll interval, with 0 false disconnects and the host monitor's pass ≤ 5 s.
 * SIMULATED hosts (they run no commands) against everything else `npm start` runs; no cluster is
 * installed, every host keeps polling.
 *
 * This process is the service; the customer (automation creating clusters through REST, and one
 * fleet process booting every infra-env's hosts) runs in bench/fleet/connected-customer.ts, so the
 * CPU each side spends is told apart. The host monitor is the service's own: the `HostMonitor`
 * function on the runtime's schedule (every minute, as EventBridge Scheduler runs it); each of its
 * invocations is timed as the runtime answers it (LocalFunctions.observe), and what the pass
 * returned (hosts visited, moved to disconnected) is kept. Printed, and written as JSON: the peak
 * of hosts connected at once (registered, polling, a poll answered within the monitor's 3-minute
 * rule), clusters and hosts registered, false disconnects (hosts the service judged disconnected,
 * at the end or in any event, while their agent kept polling on time), the monitor's pass duration
 * over the hold (p50/max), agent poll latency (p50/p99), and CPU seconds by where they went.
 *
 *   npm run bench -- fleet-connected
 *
 * Settings (env): FLEET_CONNECTED_CLUSTERS (2000), FLEET_HOSTS_PER_CLUSTER (5: master×3 + worker×2;
 * 1: single-node), FLEET_POLL_SECONDS (the agents' longest wait between polls; upstream's 60),
 * FLEET_HOLD_MINUTES (held connected after the last host registered, 5: longer than the monitor's
 * 3-minute rule), FLEET_CREATE_CONCURRENCY (clusters being created at once, 8),
 * FLEET_REGISTER_TIMEOUT_MINUTES (from the start until every host registered, else the hold starts
 * without the rest, 60), FLEET_DYNAMODB=memory (DynamoDB Local keeps the table in memory instead of
 * on disk as `npm start` does), FLEET_OUT (the JSON file).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { startDynamoDbLocal } from '../../bin/local/dynamodb-local.js';
import { freePort } from '../../bin/local/net.js';
import { PULL_SECRET, sshPublicKey } from '../support/fixtures.js';
import { CustomerTroubles, percentile, type LatencySummary } from './contract.js';
import { cpuSplit, CpuMeter } from './cpu.js';
import { startFleetRuntime } from './runtime.js';
import type { ConnectedOutcome, ConnectedReport, ConnectedSettings } from './connected-customer.js';
import { seconds, setting } from '../support/settings.js';

/** One scheduled HostMonitor invocation, as the runtime answered it. */
export interface MonitorRun {
  /** Epoch ms it was answered. */
  at: number;
  ms: number;
  ok: boolean;
  /** What the pass returned (lambdas/usecases/host-monitor.ts MonitorPass). */
  pass?: { visited: number; judged: number; judgedWhole: number; moved: number; disconnected: number; failed: number };
}

export interface ConnectedResult {
  settings: Omit<ConnectedSettings, 'adminToken' | 'pullSecret' | 'sshPublicKey'>;
  wallSeconds: number;
  peakConnectedHosts: number;
  clusters: number;
  hostsRegistered: number;
  /** Hosts the service judged disconnected (at the end, or in an event) while their agent kept polling on time. */
  falseDisconnects: number;
  /** Every host the service judged disconnected, whatever its agent did. */
  judgedDisconnected: number;
  /** The monitor's own count of hosts it moved to disconnected, summed over its passes (the whole run). */
  monitorMovedToDisconnected: number;
  monitorPassSeconds: {
    hold: { passes: number; p50: number; max: number };
    wholeRun: { passes: number; p50: number; max: number };
    maxHostsVisited: number;
    failedInvocations: number;
    passesWithFailedClusters: number;
  };
  /** Agent polls as the agents saw them: over the hold (everyone registered), and over the whole run. */
  agentPollMs: { hold: PollLatency; wholeRun: PollLatency };
  latencies: Record<string, LatencySummary>;
  outcome: ConnectedOutcome;
  serverErrors: Record<string, number>;
  cpuSeconds: Record<string, number>;
  cores: number;
}

interface PollLatency {
  count: number;
  p50: number;
  p99: number;
  max: number;
}
const pollLatency = (s: LatencySummary | undefined): PollLatency => ({ count: s?.count ?? 0, p50: s?.p50 ?? 0, p99: s?.p99 ?? 0, max: s?.max ?? 0 });

const passStats = (runs: readonly MonitorRun[]) => {
  const ms = runs.map((run) => run.ms).sort((a, b) => a - b);
  return { passes: ms.length, p50: percentile(ms, 50) / 1000, max: (ms.at(-1) ?? 0) / 1000 };
};

export async function fleetConnected(given: Partial<ConnectedSettings> = {}): Promise<ConnectedResult> {
  const workDir = mkdtempSync(path.join(tmpdir(), 'bench-fleet-connected-'));
  // FLEET_DYNAMODB=memory: DynamoDB Local keeps the table in memory (-inMemory) instead of on disk as `npm start` does.
  const inMemory = process.env.FLEET_DYNAMODB === 'memory';
  const memoryDynamo = inMemory ? await startDynamoDbLocal({ port: await freePort('127.0.0.1') }) : undefined;
  const runtime = await startFleetRuntime(workDir, memoryDynamo?.endpoint);
  const monitorRuns: MonitorRun[] = [];
  const stopObserving = runtime.functions.observe((record) => {
    if (record.name !== 'HostMonitor') return;
    monitorRuns.push({ at: Date.now(), ms: record.ms, ok: record.ok, ...(record.ok ? { pass: record.result as MonitorRun['pass'] } : {}) });
  });
  let customer: ReturnType<typeof spawn> | undefined;
  try {
    await runtime.warmed;
    const settings: ConnectedSettings = {
      url: runtime.url,
      adminToken: readFileSync(runtime.adminTokenFile, 'utf8').trim(),
      pullSecret: PULL_SECRET,
      sshPublicKey: sshPublicKey('fleet@example.com'),
      namePrefix: `conn${Date.now().toString(36)}`,
      clusters: setting('FLEET_CONNECTED_CLUSTERS', 2_000),
      hostsPerCluster: setting('FLEET_HOSTS_PER_CLUSTER', 5),
      pollSeconds: setting('FLEET_POLL_SECONDS', 60),
      holdMs: setting('FLEET_HOLD_MINUTES', 5) * 60_000,
      createConcurrency: setting('FLEET_CREATE_CONCURRENCY', 8),
      registerTimeoutMs: setting('FLEET_REGISTER_TIMEOUT_MINUTES', 60) * 60_000,
      checkConcurrency: 8,
      connections: 128,
      startedAt: Date.now(),
      ...given,
    };
    const pollLabel = settings.pollSeconds === 60 ? 'upstream’s 60 s' : `${settings.pollSeconds} s (FASTER than upstream’s 60 s)`;
    const shape = settings.hostsPerCluster === 1 ? 'single-node' : `master×3${settings.hostsPerCluster > 3 ? ` + worker×${settings.hostsPerCluster - 3}` : ''}`;
    console.log(
      `fleet-connected: ${settings.clusters} clusters of ${settings.hostsPerCluster} SIMULATED hosts (${shape}) = ${settings.clusters * settings.hostsPerCluster} hosts, never installed; agents poll at most every ${pollLabel}; held ${settings.holdMs / 60_000} min after the last registration; host monitor on the runtime's schedule; ${settings.createConcurrency} creations at once; DynamoDB Local ${inMemory ? 'IN MEMORY (FLEET_DYNAMODB=memory)' : 'on disk as npm start runs it'}; ${availableParallelism()} cores`,
    );

    const cpu = new CpuMeter(runtime.functions);
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'connected-customer.ts')], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    customer = child;
    // Over the IPC channel, not argv: the admin token and pull secret stay out of the process list.
    child.send({ type: 'settings', settings });
    cpu.watchCustomer(child.pid!);
    const troubles = new CustomerTroubles();
    const { serverErrors, agentErrors } = troubles;
    let peakConnected = 0;
    let last = { running: 0, registered: 0, connected: 0 };
    let outcome: ConnectedOutcome | undefined;
    // Bounded: creation and registration (their deadline), the hold, the reads at the end and a margin.
    const runDeadlineMs = settings.registerTimeoutMs + settings.holdMs + 30 * 60_000;
    const done = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the customer did not finish within ${runDeadlineMs / 60_000} min`)), runDeadlineMs);
      child.on('message', (message: ConnectedReport) => {
        if (troubles.take(message)) return;
        switch (message.type) {
          case 'sample':
            last = message;
            peakConnected = Math.max(peakConnected, message.connected);
            return;
          case 'phase':
            console.log(`  +${seconds(message.at - settings.startedAt)}: ${message.phase}: ${message.detail}`);
            return;
          case 'done':
            // Resolved now, while the customer still lives: once it has exited and been reaped, its CPU
            // would count again among this process's children (the installer tasks).
            outcome = message.outcome;
            clearTimeout(timer);
            return resolve();
        }
      });
      child.on('exit', (code) => {
        clearTimeout(timer);
        if (!outcome) reject(new Error(`the customer process exited ${code} without its outcome`));
      });
    });
    const cpuSeconds = await cpu.during(done, () => {
      const recent = monitorRuns.at(-1);
      return `  +${seconds(Date.now() - settings.startedAt)}: ${last.connected} hosts connected (${last.registered} registered, ${last.running} agents running); monitor passes ${monitorRuns.length}${recent ? `, last ${seconds(recent.ms)} over ${recent.pass?.visited ?? '?'} hosts` : ''}`;
    });
    const wallMs = Date.now() - settings.startedAt;
    // The customer closes its connections and ends; bounded.
    await new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve();
      }, 30_000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    const o = outcome!;

    const holdRuns = monitorRuns.filter((run) => run.at >= o.holdStartedAt && run.at <= o.holdEndedAt);
    const judged = new Set([...o.service.disconnectedAtEnd, ...o.service.disconnectionEvents]);
    const result: ConnectedResult = {
      settings: { ...settings, adminToken: undefined, pullSecret: undefined, sshPublicKey: undefined } as never,
      wallSeconds: wallMs / 1000,
      peakConnectedHosts: peakConnected,
      clusters: o.clustersCreated,
      hostsRegistered: o.hostsRegistered,
      falseDisconnects: o.falseDisconnects.length,
      judgedDisconnected: judged.size,
      monitorMovedToDisconnected: monitorRuns.reduce((sum, run) => sum + (run.pass?.disconnected ?? 0), 0),
      monitorPassSeconds: {
        hold: passStats(holdRuns),
        wholeRun: passStats(monitorRuns),
        maxHostsVisited: Math.max(0, ...monitorRuns.map((run) => run.pass?.visited ?? 0)),
        failedInvocations: monitorRuns.filter((run) => !run.ok).length,
        passesWithFailedClusters: monitorRuns.filter((run) => (run.pass?.failed ?? 0) > 0).length,
      },
      agentPollMs: { hold: pollLatency(o.holdLatencies['agent polls']), wholeRun: pollLatency(o.latencies['agent polls']) },
      latencies: o.latencies,
      outcome: o,
      serverErrors,
      cpuSeconds,
      cores: availableParallelism(),
    };

    console.log(
      `\nclusters: ${o.clustersCreated} created of ${settings.clusters}${Object.keys(o.creationFailures).length ? ` (failures: ${JSON.stringify(o.creationFailures)})` : ''}; hosts: ${o.hostsRegistered} registered of ${o.hostsBooted} booted; the service lists ${o.service.hostsListed}: ${JSON.stringify(o.service.statuses)}${o.service.readFailures ? `, ${o.service.readFailures} clusters UNREAD` : ''}`,
    );
    console.log(
      `held ${seconds(o.holdEndedAt - o.holdStartedAt)} after the last registration (+${seconds(o.lastRegisteredAt - settings.startedAt)}); run ${seconds(wallMs)}`,
    );
    console.log(
      `judged disconnected by the service: ${judged.size} (at the end ${o.service.disconnectedAtEnd.length}, in events ${o.service.disconnectionEvents.length}; the monitor's passes report ${result.monitorMovedToDisconnected} moves), of which their agents kept polling on time: ${o.falseDisconnects.length}`,
    );
    console.log(
      `agents: longest gap between a host's answered polls p50 ${seconds(o.pollGapMs.p50)}, p99 ${seconds(o.pollGapMs.p99)}, max ${seconds(o.pollGapMs.max)} (${o.pollGapMs.over180s} hosts ≥ 180 s); ${o.agentPollFailures} failed polls; ${o.agentsStopped} agents stopped before the end`,
    );
    const holdPasses = result.monitorPassSeconds.hold;
    console.log(
      `host monitor (HostMonitor on the runtime's schedule): over the hold ${holdPasses.passes} passes, p50 ${holdPasses.p50.toFixed(2)} s, max ${holdPasses.max.toFixed(2)} s; whole run ${result.monitorPassSeconds.wholeRun.passes} passes, max ${result.monitorPassSeconds.wholeRun.max.toFixed(2)} s; up to ${result.monitorPassSeconds.maxHostsVisited} hosts visited a pass${result.monitorPassSeconds.failedInvocations ? `; ${result.monitorPassSeconds.failedInvocations} invocations FAILED` : ''}${result.monitorPassSeconds.passesWithFailedClusters ? `; ${result.monitorPassSeconds.passesWithFailedClusters} passes with clusters that FAILED` : ''}`,
    );
    for (const run of monitorRuns) {
      const inHold = run.at >= o.holdStartedAt && run.at <= o.holdEndedAt;
      console.log(
        `  pass answered at +${seconds(run.at - settings.startedAt)}${inHold ? ' (hold)' : ''}: ${seconds(run.ms)}${run.pass ? `, visited ${run.pass.visited}, judged ${run.pass.judged} (${run.pass.judgedWhole} clusters whole), moved ${run.pass.moved}, to disconnected ${run.pass.disconnected}, failed ${run.pass.failed}` : run.ok ? '' : ', FAILED'}`,
      );
    }
    const table = (title: string, latencies: Record<string, LatencySummary>) => {
      console.log(`${title.padEnd(50)}count      p50      p99  worst minute p99      max`);
      for (const [kind, s] of Object.entries(latencies).sort())
        console.log(
          `  ${kind.padEnd(44)}${String(s.count).padStart(9)}${s.p50.toFixed(1).padStart(9)}${s.p99.toFixed(1).padStart(9)}${s.worstMinuteP99.toFixed(1).padStart(18)}${s.max.toFixed(0).padStart(9)}`,
        );
    };
    table('API latency as the callers see it, whole run (ms)', o.latencies);
    table('the same, during the hold only (ms)', o.holdLatencies);
    const serviceSeconds = Object.entries(cpuSeconds)
      .filter(([where]) => !where.startsWith('customer'))
      .reduce((sum, [, s]) => sum + s, 0);
    console.log(
      `CPU seconds by where they went (the service used ${serviceSeconds.toFixed(0)} CPU s in ${seconds(wallMs)}: ${(serviceSeconds / (wallMs / 1000)).toFixed(2)} cores on average)`,
    );
    console.log(cpuSplit(cpuSeconds));
    console.log(
      `calls (customer side): ${Object.entries(o.calls)
        .slice(0, 12)
        .map(([call, n]) => `${call} ${n}`)
        .join(', ')}`,
    );
    if (Object.keys(serverErrors).length) console.log(`5xx answers: ${JSON.stringify(serverErrors)}`);
    for (const line of agentErrors.slice(0, 5)) console.log(`  agent error: ${line}`);
    const out = process.env.FLEET_OUT ?? path.join(tmpdir(), 'fleet-connected.json');
    writeFileSync(out, `${JSON.stringify({ ...result, monitorRuns }, null, 2)}\n`);
    console.log(`result: ${out}`);
    console.log(
      `agent polls: p50 ${result.agentPollMs.hold.p50.toFixed(1)} ms, p99 ${result.agentPollMs.hold.p99.toFixed(1)} ms during the hold (whole run: p50 ${result.agentPollMs.wholeRun.p50.toFixed(1)} ms, p99 ${result.agentPollMs.wholeRun.p99.toFixed(1)} ms)`,
    );
    console.log(`hosts connected at once: ${peakConnected}`);
    console.log(`false disconnects: ${result.falseDisconnects}`);
    console.log(`monitor pass max: ${holdPasses.passes ? `${holdPasses.max.toFixed(2)} s` : 'n/a (no pass during the hold)'}`);
    return result;
  } finally {
    stopObserving();
    if (customer && customer.exitCode === null && customer.signalCode === null) customer.kill('SIGKILL');
    await runtime.stop();
    await memoryDynamo?.stop();
    // The data directory holds what DynamoDB Local and S3 wrote.
    for (const entry of readdirSync(workDir)) rmSync(path.join(workDir, entry), { recursive: true, force: true });
    rmSync(workDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await fleetConnected();
