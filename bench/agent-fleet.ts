/**
 * The agent's footprint and the simulated fleet's capacity, against the local stack (`npm start`'s
 * runtime, in its own process so this process measures only the agent side):
 * - the bundled agent's inventory: wall time and peak RSS of `node dist/agent.mjs inventory`;
 * - the bundled agent in REAL mode (loopback-only network namespace; root only): peak RSS while it
 *   collects and posts its inventory, and RSS idle between polls;
 * - SIMULATED fleet capacity, against a stand-in service in another process that answers at once (so
 *   the fleet is what is measured): hosts poll every BENCH_FLEET_POLL_S (default 5) seconds instead
 *   of 60, the fleet doubles from 100 hosts until polls run late (p99 lateness > 1 s) or fall behind
 *   (< 80 % of the expected rate), bounded by BENCH_FLEET_MAX (3200). The figure at 60 s polls is
 *   extrapolated from the sustained poll rate and from the fleet's CPU time per poll, printed as such;
 * - the same fleet (BENCH_FLEET_E2E_HOSTS, default 100) against the local stack, end to end.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildAgent } from '../agent/build.js';
import { createLog } from '../agent/src/log.js';
import { Fleet } from '../agent/src/simulate/fleet.js';
import { loadProfile } from '../agent/src/simulate/profile.js';
import { freePort } from '../bin/local/net.js';
import { issueAgentToken } from '../lambdas/usecases/agent-tokens.js';
import { spawnAgentInNetns, startBridge } from './support/netns-agent.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { BENCH_PULL_SECRET } from './support/fixtures.js';
import { serviceAgentImage } from './support/agent-image.js';
import { percentile } from './support/percentile.js';

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** The percentile of values in any order. */
const percentileOf = (values: number[], p: number): number =>
  percentile(
    [...values].sort((a, b) => a - b),
    p,
  );

/** VmRSS and VmHWM (peak) of a live process, bytes. */
function memoryOf(pid: number): { rss: number; peak: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
    return { rss: kib('VmRSS'), peak: kib('VmHWM') };
  } catch {
    return undefined;
  }
}

async function until<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(200);
  }
}

/**
 * The floor for the fleet: a stand-in service in its own process that answers at once (register 201;
 * every poll asks for inventory and NTP, as the service does for unbound hosts; replies 204), so what
 * limits the fleet is the fleet.
 */
const STAND_IN = `
const http = require('node:http');
const pollSeconds = Number(process.env.POLL_SECONDS);
http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const url = new URL(req.url, 'http://x');
    const register = /\\/hosts$/.test(url.pathname) && req.method === 'POST';
    if (register) {
      const body = JSON.parse(Buffer.concat(chunks).toString());
      res.writeHead(201, { 'Content-Type': 'application/json' });
      return res.end(JSON.stringify({ id: body.host_id, next_step_runner_command: { command: '', args: [JSON.stringify({ host_id: body.host_id, infra_env_id: 'x', agent_version: 'bench' })] } }));
    }
    if (req.method === 'GET') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const id = Math.random().toString(16).slice(2, 10);
      return res.end(JSON.stringify({ next_instruction_seconds: pollSeconds, post_step_action: 'continue', instructions: [
        { step_type: 'inventory', step_id: 'inventory-' + id, args: ['x'] },
        { step_type: 'ntp-synchronizer', step_id: 'ntp-synchronizer-' + id, args: [JSON.stringify({ ntp_source: 'clock.example.com' })] },
      ] }));
    }
    res.writeHead(204);
    res.end();
  });
}).listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\\n'));
`;

async function startStandIn(pollSeconds: number): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['-e', STAND_IN], {
    env: { ...process.env, PORT: String(port), POLL_SECONDS: String(pollSeconds) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`stand-in service exited ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

interface Stack {
  url: string;
  adminToken: string;
  signingKey: string;
  child: ChildProcess;
}

async function startStack(dataDir: string): Promise<Stack> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts'], {
    env: {
      ...process.env,
      ASSISTED_PORT: String(port),
      ASSISTED_DNS_PORT: String(await freePort()),
      ASSISTED_DATA_DIR: dataDir,
      ASSISTED_HOST: '127.0.0.1',
      NODE_NO_WARNINGS: '1',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await until(async () => ((await fetch(`${url}/healthz`).catch(() => undefined))?.status === 200 ? true : undefined), 180_000, 'local stack healthy');
  return {
    url,
    child,
    adminToken: readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim(),
    signingKey: readFileSync(path.join(dataDir, 'keys', 'agent-signing-key.pem'), 'utf8'),
  };
}

async function api(stack: Stack, method: string, route: string, body?: unknown): Promise<any> {
  const response = await fetch(`${stack.url}/api/assisted-install/v2${route}`, {
    method,
    headers: { Authorization: `Bearer ${stack.adminToken}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (response.status >= 300) throw new Error(`${method} ${route}: HTTP ${response.status} ${await response.text()}`);
  return response.json();
}

async function inventoryFootprint(bundle: string, runs = 3): Promise<{ medianMs: number; peakRss: number }> {
  const times: number[] = [];
  let peakRss = 0;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const child = spawn(process.execPath, [bundle, 'inventory'], { stdio: ['ignore', 'ignore', 'ignore'] });
    let peak = 0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, memoryOf(child.pid!)?.peak ?? 0);
    }, 5);
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    clearInterval(sampler);
    if (code !== 0) throw new Error(`agent inventory exited ${code}`);
    times.push(performance.now() - started);
    peakRss = Math.max(peakRss, peak);
  }
  return { medianMs: percentileOf(times, 50), peakRss };
}

async function realAgentFootprint(stack: Stack, bundle: string, workDir: string): Promise<{ inventoryPeakRss: number; idleRss: number } | string> {
  if (process.getuid?.() !== 0) return 'skipped: needs root for a network namespace';
  const infraEnv = await api(stack, 'POST', '/infra-envs', { name: 'bench-real', pull_secret: BENCH_PULL_SECRET });
  const socketPath = path.join(workDir, 'bridge.sock');
  const bridge: net.Server = await startBridge(socketPath, stack.url);
  const agent = spawnAgentInNetns({
    bundle,
    socketPath,
    env: { PULL_SECRET_TOKEN: await issueAgentToken(stack.signingKey, { orgId: 'default', infraEnvId: infraEnv.id }) },
    args: ['--infra-env-id', infraEnv.id, '--with-stdout-logging', '--log-level', 'debug'],
  });
  try {
    await until(() => (agent.output.some((l) => /step done step_type=inventory/.test(l)) ? true : undefined), 60_000, 'real agent inventory');
    const inventoryPeakRss = memoryOf(agent.child.pid!)?.peak ?? 0;
    // The next poll is next_instruction_seconds (60 s) away: the agent is idle now.
    await sleep(5_000);
    const samples: number[] = [];
    for (let i = 0; i < 10; i++) {
      samples.push(memoryOf(agent.child.pid!)?.rss ?? 0);
      await sleep(500);
    }
    return { inventoryPeakRss, idleRss: percentileOf(samples, 50) };
  } finally {
    await agent.stop(5_000);
    await new Promise<void>((resolve) => bridge.close(() => resolve()));
  }
}

interface FleetStep {
  hosts: number;
  expectedPolls: number;
  polls: number;
  lateP50: number;
  lateP99: number;
  pollP99: number;
  cpuMsPerPoll: number;
  cpuPercent: number;
  rss: number;
}

async function fleetStep(url: string, infraEnvId: string, token: string, hosts: number, pollSeconds: number, windowMs: number): Promise<FleetStep> {
  const fleet = new Fleet({
    url,
    infraEnvId,
    token,
    agentVersion: serviceAgentImage(),
    profiles: Array(hosts).fill(loadProfile('worker')),
    network: '10.128.0.0/16',
    seed: `bench-${hosts}-${Date.now()}`,
    staggerMs: (pollSeconds * 1000) / hosts,
    timing: { maxPollIntervalMs: pollSeconds * 1000 },
    controller: false,
    log: createLog({ level: 'error', sink: (line) => process.stderr.write(`${line}\n`) }),
  });
  const stop = new AbortController();
  const running = fleet.run(stop.signal);
  try {
    // Steady state: every host registered and sent its first inventory, and a period's polls came back.
    await sleep(pollSeconds * 1000);
    const settleBy = Date.now() + 120_000;
    for (;;) {
      fleet.resetMetrics();
      await sleep(pollSeconds * 1000);
      if (fleet.metrics.polls >= 0.9 * hosts || Date.now() > settleBy) break;
    }
    fleet.resetMetrics();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await sleep(windowMs);
    const elapsed = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const { polls, lateMs, pollMs } = fleet.metrics;
    return {
      hosts,
      expectedPolls: Math.round((hosts * elapsed) / (pollSeconds * 1000)),
      polls,
      lateP50: percentileOf(lateMs, 50),
      lateP99: percentileOf(lateMs, 99),
      pollP99: percentileOf(pollMs, 99),
      cpuMsPerPoll: polls ? cpuMs / polls : 0,
      cpuPercent: (100 * cpuMs) / elapsed,
      rss: process.memoryUsage().rss,
    };
  } finally {
    stop.abort();
    await running;
  }
}

const HEADER = '  hosts  polls/expected  late p50/p99 ms  poll rtt p99 ms  fleet cpu %  cpu ms/poll  fleet RSS';
const row = (step: FleetStep) =>
  `  ${String(step.hosts).padStart(5)}  ${`${step.polls}/${step.expectedPolls}`.padStart(14)}  ${`${step.lateP50}/${step.lateP99}`.padStart(15)}  ${String(step.pollP99).padStart(15)}  ${step.cpuPercent.toFixed(0).padStart(11)}  ${step.cpuMsPerPoll.toFixed(2).padStart(11)}  ${mib(step.rss)}`;

export async function agentFleet(): Promise<Record<string, unknown>> {
  const pollSeconds = Number(process.env.BENCH_FLEET_POLL_S ?? 5);
  const maxHosts = Number(process.env.BENCH_FLEET_MAX ?? 3200);
  const windowMs = Number(process.env.BENCH_DURATION_MS ?? 15_000);
  const workDir = mkdtempSync(path.join(tmpdir(), 'assisted-bench-agent-'));
  const stack = await startStack(path.join(workDir, 'data'));
  try {
    const { outfile: bundle, bytes } = await buildAgent({ outfile: path.join(workDir, 'agent.mjs') });
    console.log(`bundle dist/agent.mjs                           ${mib(bytes)}`);

    const inventory = await inventoryFootprint(bundle);
    console.log(`inventory collection (agent.mjs inventory)      ${inventory.medianMs.toFixed(0)} ms median of 3, peak RSS ${mib(inventory.peakRss)}`);

    const real = await realAgentFootprint(stack, bundle, workDir);
    if (typeof real === 'string') console.log(`real agent RSS                                  ${real}`);
    else {
      console.log(`real agent RSS, peak through its inventory      ${mib(real.inventoryPeakRss)}`);
      console.log(`real agent RSS, idle between polls              ${mib(real.idleRss)}`);
    }

    console.log(
      `simulated fleet against a stand-in service that answers at once (the fleet's own limit), polls every ${pollSeconds} s (not 60), ${windowMs / 1000} s per step:`,
    );
    console.log(HEADER);
    const standIn = await startStandIn(pollSeconds);
    let sustained: FleetStep | undefined;
    let smallest: FleetStep | undefined;
    try {
      for (let hosts = 100; hosts <= maxHosts; hosts *= 2) {
        const step = await fleetStep(standIn.url, 'bench', 'bench', hosts, pollSeconds, windowMs);
        console.log(row(step));
        smallest ??= step;
        if (!(step.lateP99 <= 1_000 && step.polls >= 0.8 * step.expectedPolls)) {
          if (step.pollP99 > 1_000)
            console.log('  (poll round trips > 1 s: the single-process stand-in may be the bottleneck at this size, not only the fleet)');
          break;
        }
        sustained = step;
      }
    } finally {
      standIn.child.kill('SIGTERM');
    }
    const result: Record<string, unknown> = { inventoryMs: inventory.medianMs, inventoryPeakRss: inventory.peakRss, ...(typeof real === 'string' ? {} : real) };
    if (sustained) {
      const atSixty = Math.round((sustained.hosts * 60) / pollSeconds);
      const perCore = sustained.cpuMsPerPoll > 0 ? Math.round(60_000 / sustained.cpuMsPerPoll) : Infinity;
      console.log(
        `sustained ${sustained.hosts} hosts at ${pollSeconds} s polls (${(sustained.hosts / pollSeconds).toFixed(0)} polls/s)${sustained.hosts * 2 > maxHosts ? ` — the ramp's limit (BENCH_FLEET_MAX=${maxHosts}), not the fleet's` : ''}`,
      );
      console.log(
        `extrapolated to 60 s polls                      ≈ ${atSixty} hosts by poll rate; ≈ ${perCore} hosts per CPU core by fleet CPU time per poll`,
      );
      const perHost = smallest && sustained.hosts > smallest.hosts ? (sustained.rss - smallest.rss) / (sustained.hosts - smallest.hosts) : undefined;
      if (perHost !== undefined)
        console.log(
          `fleet RSS per simulated host                    ≈ ${(perHost / 1024).toFixed(0)} KiB (so ${atSixty} hosts would hold ≈ ${mib(perHost * atSixty)})`,
        );
      Object.assign(result, { sustainedHosts: sustained.hosts, pollSeconds, hostsAt60s: atSixty, hostsPerCoreAt60s: perCore, rssPerHost: perHost });
    } else console.log('  the fleet did not keep up even at 100 hosts');

    const e2eHosts = Number(process.env.BENCH_FLEET_E2E_HOSTS ?? 100);
    const infraEnv = await api(stack, 'POST', '/infra-envs', { name: 'bench-fleet', pull_secret: BENCH_PULL_SECRET });
    const token = await issueAgentToken(stack.signingKey, { orgId: 'default', infraEnvId: infraEnv.id });
    console.log(`the same fleet against the local stack (service, DynamoDB Local and fleet share this machine), ${e2eHosts} hosts:`);
    const e2e = await fleetStep(stack.url, infraEnv.id, token, e2eHosts, pollSeconds, windowMs);
    console.log(HEADER);
    console.log(row(e2e));
    result.e2e = e2e;
    return result;
  } finally {
    stack.child.kill('SIGTERM');
    await Promise.race([new Promise((resolve) => stack.child.once('exit', resolve)), sleep(20_000)]);
    if (stack.child.exitCode === null) stack.child.kill('SIGKILL');
    rmSync(workDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && /agent-fleet\.ts$/.test(process.argv[1])) {
  await agentFleet();
  process.exit(0);
}
