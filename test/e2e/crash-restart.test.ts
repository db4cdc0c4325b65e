/**
 * Crash consistency (#19): `kill -9` of the whole runtime mid-install, then a restart on the same
 * data directory, ends with an installed cluster whose events tell each happening once.
 *
 * The runtime runs as `npm start` runs it (node --import tsx bin/local.ts: its own DynamoDB Local,
 * s3rver, Step Functions stand-in, scheduler and stream poller) as a child process leading a process
 * group of its own, on a fresh data directory. A fleet of SIMULATED agents runs in this process and
 * goes on while the runtime is gone: polls back off, the installer's reports retry (bounded: 360
 * attempts of at most 2 s), as upstream's agent and installer do.
 *
 * One runtime, two single-node clusters of the same shape:
 * - `calm` installs first, uninterrupted: the reference story;
 * - `crash` installs next, and the runtime's process group is killed with SIGKILL twice. Each time
 *   every process the runtime started must be gone (DynamoDB Local's java included), then a new
 *   runtime starts on the same directory and port.
 *   1. While preparing: the install workflow runs the installer container (made slow to start, so
 *      the host's preparation checks are answered by then; a check's reply lost with the runtime is
 *      handed out again only after its 60 s window, a wait that tells nothing about events). The
 *      workflow is then put back at Prepare, as it stands when Prepare's answer was lost: Step
 *      Functions runs a task again then (at least once), and Prepare announces its steps again.
 *   2. While installing: the host reported `Waiting for bootkube` and waits. The stream's checkpoint
 *      is dropped too: the restart delivers every record of the table's stream again, both clusters'.
 *   Both kills land where no write is between its record and its events. A write and the events
 *   announcing it are two requests to the table, and a kill between them loses the events (a kill
 *   as soon as the host's `Writing image to disk` stage showed lost that stage's event): the cure is
 *   one transaction for both, in the store; until then a kill there would fail this test at random.
 * Then `crash` must be installed, with no transition announced twice (`repeatedTransitions`) and,
 * from the install on, the reference's events as often as the reference has them
 * (`compareStories`); `calm`'s events must be as they were before the crashes.
 *
 * DEBUG_CRASH=1 prints the steps as they happen; KEEP_DATA=1 keeps the data directory and the
 * stories (events.json) to look at.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { createLog } from '../../agent/src/log.js';
import { Fleet } from '../../agent/src/simulate/fleet.js';
import { loadProfile } from '../../agent/src/simulate/profile.js';
import { issueAgentToken } from '../../lambdas/usecases/agent-tokens.js';
import { apiClient, eventually, type ApiClient, type Json } from '../support/cluster-lab.js';
import { PULL_SECRET, sshPublicKey } from '../support/fixtures.js';
import { freePort, until } from '../support/net.js';

const root = path.resolve(import.meta.dirname, '../..');
const AGENT_IMAGE = 'quay.io/edge-infrastructure/assisted-installer-agent:latest';
const STAGES = [
  'Starting installation',
  'Installing',
  'Waiting for bootkube',
  'Writing image to disk',
  'Rebooting',
  'Done',
  'Waiting for cluster operators',
  'Adding router ca',
  'Waiting for olm operators csv initialization',
];
const STAGE_MS = 150;
/** The stage the second kill lands in: the installer waits, reporting nothing, then reads its ignition. */
const BOOTKUBE_MS = 2_000;
const ENDED = ['installed', 'error', 'cancelled'];
/**
 * Bounds for hangs, not for speed: npm start takes ~20 s and an install ~20 s on a busy 2-core
 * machine, but beside other suites on the same 2 cores both have been seen to take over a minute.
 */
const START_BOUND_MS = 180_000;
const STEP_BOUND_MS = 150_000;
/** The installer container task as the runtime runs it: its bundle in the data directory. */
const INSTALLER_TASK = /containers\/InstallationFiles\.mjs/;

// ------------------------------------------------------------------ the runtime as a process

interface RuntimeProcess {
  child: ChildProcess;
  /** Its process group: the child leads it (detached). */
  pgid: number;
  /** CPU time its processes had used when they were killed. */
  cpuSeconds?: number;
  output(): string;
}

const started: RuntimeProcess[] = [];

/**
 * OPENSHIFT_INSTALL for the runtime: an openshift-install that is not there (so the SIMULATED
 * installer makes the files), and that takes 3 s to say so to the installer container (it has
 * CLUSTER_ID; npm start's own probe at start does not wait) while the file `slow` lies beside it.
 * The installer container then runs for 3 s more than it would: long enough for the host's
 * preparation to end while it runs.
 */
const SLOW_MISSING_INSTALLER = '#!/bin/sh\n[ -n "$CLUSTER_ID" ] && [ -e "$(dirname "$0")/slow" ] && sleep 3\nexit 127\n';

async function startRuntimeProcess(dataDir: string, binDir: string, port: number, dnsPort: number): Promise<RuntimeProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts'], {
    cwd: root,
    env: {
      ...process.env,
      ASSISTED_PORT: String(port),
      ASSISTED_DNS_PORT: String(dnsPort),
      ASSISTED_DATA_DIR: dataDir,
      ASSISTED_BASE_DOMAINS: 'example.com',
      // The workflow looks at the installation every second instead of every 30.
      INSTALL_POLL_SECONDS: '1',
      ASSISTED_API_INSTANCES: '2',
      OPENSHIFT_INSTALL: path.join(binDir, 'openshift-install'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: the kill reaches everything it started, as a crash of the machine's service would.
    detached: true,
  });
  const lines: string[] = [];
  let partial = '';
  const spawnedAt = performance.now();
  const take = (chunk: Buffer) => {
    const text = partial + chunk.toString('utf8');
    const split = text.split('\n');
    partial = split.pop() ?? '';
    // Each line with when it came, in seconds since the spawn.
    const at = ((performance.now() - spawnedAt) / 1000).toFixed(1);
    lines.push(...split.map((line) => `+${at} ${line}`));
    if (lines.length > 2_000) lines.splice(0, lines.length - 2_000);
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  const closed = new Promise((resolve) => child.once('close', resolve));
  const runtime: RuntimeProcess = { child, pgid: child.pid!, output: () => [...lines, partial].join('\n') };
  started.push(runtime);
  const url = `http://127.0.0.1:${port}`;
  let health = '';
  await until(
    async () => {
      if (child.exitCode !== null || child.signalCode !== null) {
        // Its output may still be on its way after it exited.
        await Promise.race([closed, sleep(2_000)]);
        throw new Error(`the runtime exited (${child.exitCode ?? child.signalCode})`);
      }
      const answer = await fetch(`${url}/healthz`).catch(() => undefined);
      health = answer ? `${answer.status} ${await answer.text()}` : 'no answer';
      return answer?.status === 200;
    },
    START_BOUND_MS,
    `the runtime on ${url} to be healthy`,
  ).catch((error: Error) => {
    throw new Error(`${error.message}; /healthz: ${health}; torn S3 files: ${tornS3Files(dataDir).join(', ') || 'none'}\n${runtime.output().slice(-4_000)}`);
  });
  return runtime;
}

/** What npm start says its start took. */
const readyIn = (runtime: RuntimeProcess) => /ready in (\S+ s)/.exec(runtime.output())?.[1] ?? '?';

/** s3rver's metadata files that do not parse (a write the kill cut short). */
function tornS3Files(dataDir: string): string[] {
  const torn: string[] = [];
  const walk = (directory: string) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const file = path.join(directory, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (entry.name.endsWith('._S3rver_metadata.json')) {
        try {
          JSON.parse(readFileSync(file, 'utf8'));
        } catch {
          torn.push(path.relative(dataDir, file));
        }
      }
    }
  };
  if (existsSync(path.join(dataDir, 's3'))) walk(path.join(dataDir, 's3'));
  return torn;
}

interface ProcessEntry {
  pid: number;
  ppid: number;
  command: string;
}

function processTable(): ProcessEntry[] {
  return execFileSync('ps', ['-e', '-o', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((match): match is RegExpExecArray => !!match)
    .map((match) => ({ pid: Number(match[1]), ppid: Number(match[2]), command: match[3]!.slice(0, 200) }));
}

/** A process and every descendant, whatever their process group (DynamoDB Local's guard leads its own). */
function processTree(pid: number): ProcessEntry[] {
  const table = processTable();
  const tree = table.filter((entry) => entry.pid === pid);
  for (let i = 0; i < tree.length; i++) tree.push(...table.filter((entry) => entry.ppid === tree[i]!.pid));
  return tree;
}

/** CPU time the processes used so far (user + system, their threads included), from /proc. */
function cpuSeconds(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      // The fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
        .replace(/^.*\) /s, '')
        .split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // Gone already.
    }
  }
  return ticks / 100;
}

/** Processes anywhere on the machine whose command line names the data directory (DynamoDB Local's -dbPath, the installer's bundle). */
function processesNaming(dataDir: string): ProcessEntry[] {
  return processTable().filter((entry) => entry.command.includes(dataDir) && !/^ps /.test(entry.command));
}

/**
 * SIGKILL to the runtime's process group, as a crash takes a service down, then proof that nothing
 * it started is left: every process of its tree gone (DynamoDB Local's guard ends java when the
 * runtime's end of its pipe closes), and none naming the data directory. Returns what was running.
 */
async function killOutright(runtime: RuntimeProcess, dataDir: string): Promise<string[]> {
  const tree = processTree(runtime.pgid);
  runtime.cpuSeconds = cpuSeconds(tree.map((entry) => entry.pid));
  const exited = new Promise<void>((resolve) =>
    runtime.child.exitCode !== null || runtime.child.signalCode !== null ? resolve() : runtime.child.once('exit', () => resolve()),
  );
  process.kill(-runtime.pgid, 'SIGKILL');
  await exited;
  const alive = () => {
    const now = new Map(processTable().map((entry) => [entry.pid, entry.command]));
    return tree.filter((entry) => now.get(entry.pid) === entry.command);
  };
  await until(() => alive().length === 0, 15_000, 'every process of the killed runtime to be gone').catch((error: Error) => {
    throw new Error(
      `${error.message}: ${alive()
        .map((entry) => `${entry.pid} ${entry.command}`)
        .join('\n')}`,
    );
  });
  await until(() => processesNaming(dataDir).length === 0, 10_000, 'no process naming the data directory');
  return tree.map((entry) => entry.command);
}

// ------------------------------------------------------------------ clusters and fleets

async function createCluster(api: ApiClient, signingKeyPem: string, name: string, machineNetwork: string) {
  const versions = (await api.call('GET', '/openshift-versions', undefined, api.user())).body as Record<string, { default?: boolean }>;
  const version = Object.entries(versions).find(([, v]) => v.default)![0];
  const cluster = await api.call(
    'POST',
    '/clusters',
    {
      name,
      openshift_version: version,
      pull_secret: PULL_SECRET,
      base_dns_domain: 'example.com',
      ssh_public_key: sshPublicKey(),
      control_plane_count: 1,
      high_availability_mode: 'None',
      user_managed_networking: true,
      machine_networks: [{ cidr: machineNetwork }],
    },
    api.user(),
  );
  expect(cluster.status, cluster.text).toBe(201);
  const infraEnv = await api.call('POST', '/infra-envs', { name, pull_secret: PULL_SECRET, cluster_id: cluster.body.id }, api.user());
  expect(infraEnv.status, infraEnv.text).toBe(201);
  const token = await issueAgentToken(signingKeyPem, { orgId: 'default', infraEnvId: infraEnv.body.id });
  return { clusterId: cluster.body.id as string, infraEnvId: infraEnv.body.id as string, token };
}

function startFleet(url: string, infraEnvId: string, token: string, network: string, bootkubeMs = STAGE_MS) {
  const lines: string[] = [];
  const fleet = new Fleet({
    url,
    infraEnvId,
    token,
    agentVersion: AGENT_IMAGE,
    profiles: [loadProfile('sno')],
    network,
    staggerMs: 0,
    timing: { maxPollIntervalMs: 1_000 },
    // While the runtime is gone: calls fail fast to the session's backoff (polls), or retry for as
    // long as upstream's installer does (360 attempts of at most 2 s here: bounded).
    retryDelays: { baseMs: 300, maxMs: 2_000 },
    installDurationsMs: { ...Object.fromEntries(STAGES.map((stage) => [stage, STAGE_MS])), 'Waiting for bootkube': bootkubeMs },
    log: createLog({ level: 'info', sink: (line) => lines.push(line) }),
  });
  const stop = new AbortController();
  const running = fleet.run(stop.signal);
  return {
    fleet,
    lines,
    stop: async () => {
      stop.abort();
      await running.catch(() => undefined);
    },
  };
}

const clusterOf = async (api: ApiClient, clusterId: string) => (await api.call('GET', `/clusters/${clusterId}`, undefined, api.user())).body as Json;

async function installWhenReady(api: ApiClient, clusterId: string): Promise<void> {
  const ready = await eventually(
    () => clusterOf(api, clusterId),
    (c) => c.status === 'ready',
    STEP_BOUND_MS,
    250,
  );
  expect(ready.status, ready.status_info).toBe('ready');
  const install = await api.call('POST', `/clusters/${clusterId}/actions/install`, undefined, api.user());
  expect(install.status, install.text).toBe(202);
}

async function eventsOf(api: ApiClient, clusterId: string): Promise<Json[]> {
  const answer = await api.call('GET', `/events?cluster_id=${clusterId}&order=ascending`, undefined, api.user());
  expect(answer.status, answer.text).toBe(200);
  return answer.body as Json[];
}

/** The install workflow's executions on disk (the Step Functions stand-in keeps one file each). */
function workflowCursors(dataDir: string): string[] {
  const directory = path.join(dataDir, 'stepfunctions');
  if (!existsSync(directory)) return [];
  return readdirSync(directory)
    .filter((file) => file.endsWith('.json'))
    .flatMap((file) => {
      try {
        const record = JSON.parse(readFileSync(path.join(directory, file), 'utf8')) as { stateMachineArn: string; status: string; cursor?: { state: string } };
        return record.stateMachineArn.endsWith(':install-cluster') && record.status === 'RUNNING' && record.cursor ? [record.cursor.state] : [];
      } catch {
        return []; // being renamed into place
      }
    });
}

/**
 * Puts the cluster's install execution back at its first task, Prepare, with the execution's input
 * (which is Prepare's): the record as it stands when Prepare's answer never reached the workflow.
 */
function rewindToPrepare(dataDir: string, clusterId: string): void {
  const directory = path.join(dataDir, 'stepfunctions');
  const file = readdirSync(directory).find((name) =>
    Buffer.from(name.replace(/\.json$/, ''), 'base64url')
      .toString('utf8')
      .includes(`install-${clusterId}-`),
  );
  expect(file, `no execution of cluster ${clusterId} in ${directory}`).toBeDefined();
  const record = JSON.parse(readFileSync(path.join(directory, file!), 'utf8')) as {
    status: string;
    input: unknown;
    cursor?: { state: string; input: unknown; enteredAt: number };
  };
  expect([record.status, record.cursor?.state]).toEqual(['RUNNING', 'GenerateInstallationFiles']);
  record.cursor = { state: 'Prepare', input: record.input, enteredAt: Date.now() };
  writeFileSync(path.join(directory, `${file!}.tmp`), JSON.stringify(record));
  renameSync(path.join(directory, `${file!}.tmp`), path.join(directory, file!));
}

// ------------------------------------------------------------------ comparing stories

/**
 * An event as two clusters of the same shape can be compared: who it is about (the cluster, or its
 * one host) and its name and message, with what differs between the two (names, ids, addresses)
 * replaced. Times are left out: they differ, and the store orders by them.
 */
function comparable(event: Json, names: Record<string, string>): string {
  let message = String(event.message);
  for (const [text, placeholder] of Object.entries(names)) message = message.split(text).join(placeholder);
  message = message
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>')
    .replace(/\b\d{1,3}(\.\d{1,3}){3}(\/\d+)?\b/g, '<ip>')
    // The simulated installer's run time, in the files event.
    .replace(/ in \d+ s\b/g, ' in <n> s');
  return `${event.host_id ? 'host' : 'cluster'} | ${event.name} | ${message}`;
}

/**
 * Events that announce one happening twice, whatever the reference says:
 * - a status event repeating the previous status event of its subject (the cluster "to installed"
 *   twice in a row; a host "from installing to installing-in-progress" twice): a subject cannot
 *   enter the status it is in;
 * - a validation turning failed (or fixed) twice in a row for one subject: it can only flip.
 */
function repeatedTransitions(events: Json[]): string[] {
  const found: string[] = [];
  const last = new Map<string, string>();
  for (const event of events) {
    const name = String(event.name);
    const subject = String(event.host_id ?? 'cluster');
    let track: string | undefined;
    if (/_status_updated$/.test(name) && /^(cluster|host)_/.test(name)) track = `${subject} status`;
    const validation = /_validation_(failed|fixed)$/.exec(name) && /validation '([^']+)'/.exec(String(event.message));
    if (validation) track = `${subject} validation ${validation[1]}`;
    if (!track) continue;
    if (last.get(track) === event.message) found.push(`${event.event_time} ${event.message}`);
    last.set(track, String(event.message));
  }
  return found;
}

function countsOf(keys: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return counts;
}

/** The events from the install on: before it, no kill had happened, and validation flips follow the timing of discovery. */
function fromInstall(events: Json[]): Json[] {
  const start = events.findIndex((event) => event.message === 'Updated status of the cluster to preparing-for-installation');
  expect(start, story(events)).toBeGreaterThanOrEqual(0);
  return events.slice(start);
}

/**
 * The crashed install's story against the reference's, from the install on, as multisets of
 * comparable events: `repeated` are events the crashed one has more often than the reference (an
 * announcement recorded twice), `missing` less often (an announcement lost), `unexpected` events the
 * reference never has.
 */
function compareStories(reference: string[], crashed: string[]) {
  const expected = countsOf(reference);
  const got = countsOf(crashed);
  const repeated: string[] = [];
  const missing: string[] = [];
  const unexpected: string[] = [];
  for (const [key, count] of got) {
    const wanted = expected.get(key) ?? 0;
    if (wanted === 0) unexpected.push(key);
    else if (count > wanted) repeated.push(`${count} times (reference: ${wanted}): ${key}`);
  }
  for (const [key, wanted] of expected) {
    const count = got.get(key) ?? 0;
    if (count < wanted) missing.push(`${count} times (reference: ${wanted}): ${key}`);
  }
  return { repeated, missing, unexpected };
}

const story = (events: Json[]) => events.map((e) => `${e.event_time} ${e.host_id ? 'host ' : ''}${e.name}: ${e.message}`).join('\n');

// ------------------------------------------------------------------ the test

describe('kill -9 of the runtime mid-install', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'assisted-crash-'));
  const binDir = mkdtempSync(path.join(tmpdir(), 'assisted-crash-bin-'));
  writeFileSync(path.join(binDir, 'openshift-install'), SLOW_MISSING_INSTALLER, { mode: 0o755 });
  afterAll(async () => {
    for (const runtime of started) {
      try {
        process.kill(-runtime.pgid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    await until(() => processesNaming(dataDir).length === 0, 10_000, 'no process naming the data directory').catch(() => undefined);
    // KEEP_DATA=1 keeps the data directory (and the two stories, events.json) to look at.
    if (process.env.KEEP_DATA) console.log(`data directory kept: ${dataDir}`);
    else rmSync(dataDir, { recursive: true, force: true });
    rmSync(binDir, { recursive: true, force: true });
  });

  it('ends installed after two crashes, with the events of an uncrashed install and none twice', async () => {
    const t0 = performance.now();
    const timeline: string[] = [];
    const mark = (what: string) => {
      timeline.push(`${((performance.now() - t0) / 1000).toFixed(1)} s ${what}`);
      if (process.env.DEBUG_CRASH) console.log(timeline.at(-1));
    };
    const port = await freePort();
    const dnsPort = await freePort();
    const url = `http://127.0.0.1:${port}`;

    let runtime = await startRuntimeProcess(dataDir, binDir, port, dnsPort);
    mark(`runtime up (${readyIn(runtime)})`);
    const api = apiClient(url, readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim());
    const signingKeyPem = readFileSync(path.join(dataDir, 'keys', 'agent-signing-key.pem'), 'utf8');

    // The reference: the same shape and fleet, installed without interruption. The other cluster's
    // host is discovered meanwhile (nothing is killed before the reference is installed).
    const calm = await createCluster(api, signingKeyPem, 'calm', '192.168.120.0/24');
    const calmFleet = startFleet(url, calm.infraEnvId, calm.token, '192.168.120.0/24');
    let crash: Awaited<ReturnType<typeof createCluster>>;
    let fleet: ReturnType<typeof startFleet> | undefined;
    try {
      await installWhenReady(api, calm.clusterId);
      crash = await createCluster(api, signingKeyPem, 'crash', '192.168.121.0/24');
      fleet = startFleet(url, crash.infraEnvId, crash.token, '192.168.121.0/24', BOOTKUBE_MS);
      const done = await eventually(
        () => clusterOf(api, calm.clusterId),
        (c) => ENDED.includes(c.status),
        STEP_BOUND_MS,
        250,
      );
      expect(done.status, `${done.status_info}\n${calmFleet.lines.slice(-20).join('\n')}`).toBe('installed');
    } catch (error) {
      await fleet?.stop();
      throw error;
    } finally {
      await calmFleet.stop();
    }
    mark('calm installed');
    const calmEvents = await eventsOf(api, calm.clusterId);
    writeFileSync(path.join(binDir, 'slow'), '');
    const killed: string[][] = [];
    const resumedAt: string[] = [];
    try {
      await installWhenReady(api, crash.clusterId);
      mark('crash install started');

      // First kill, while preparing: the workflow runs the installer container (a process of the
      // runtime's, slow to start here: see SLOW_MISSING_INSTALLER) and the host has passed its
      // preparation checks. (A check's reply lost with the runtime is handed out again only once
      // its 60 s window passed: a minute of waiting that says nothing about events.)
      await until(
        async () =>
          workflowCursors(dataDir).includes('GenerateInstallationFiles') &&
          processTree(runtime.pgid).some((entry) => INSTALLER_TASK.test(entry.command)) &&
          ((await clusterOf(api, crash.clusterId)).hosts as Json[])?.[0]?.status === 'preparing-successful',
        STEP_BOUND_MS,
        'the workflow to run the installer container once the host is prepared',
      );
      killed.push(await killOutright(runtime, dataDir));
      mark(`killed while the installer ran (${killed[0]!.length} processes, ${runtime.cpuSeconds} s of CPU)`);
      rmSync(path.join(binDir, 'slow'));
      // At worst the kill also lost Prepare's answer: Step Functions then runs it again (its Retry),
      // and everything after it. The execution is put back at Prepare, as its record would stand.
      rewindToPrepare(dataDir, crash.clusterId);
      runtime = await startRuntimeProcess(dataDir, binDir, port, dnsPort);
      mark(`runtime up again (${readyIn(runtime)})`);
      if (process.env.DEBUG_CRASH) console.log(runtime.output());
      resumedAt.push(...[...runtime.output().matchAll(/resuming \S+ at (\S+)/g)].map((m) => m[1]!));

      // Second kill, while installing: the host reported Waiting for bootkube and waits (no report in flight).
      const waiting = await eventually(
        () =>
          api.call(
            'GET',
            `/events?cluster_id=${crash.clusterId}&message=${encodeURIComponent('installation stage Waiting for bootkube')}`,
            undefined,
            api.user(),
          ),
        (answer) => answer.status === 200 && (answer.body as Json[]).length > 0,
        STEP_BOUND_MS,
        100,
      );
      expect((waiting.body as Json[]).length, waiting.text).toBe(1);
      killed.push(await killOutright(runtime, dataDir));
      mark(`killed while the host waited for bootkube (${killed[1]!.length} processes, ${runtime.cpuSeconds} s of CPU)`);
      // At worst the kill also loses the stream's checkpoint: the restart then delivers every record
      // of the table's stream again, both clusters' (at least once, as Lambda may).
      rmSync(path.join(dataDir, 'streams'), { recursive: true, force: true });
      runtime = await startRuntimeProcess(dataDir, binDir, port, dnsPort);
      mark(`runtime up again, its stream read from the start (${readyIn(runtime)})`);
      resumedAt.push(...[...runtime.output().matchAll(/resuming \S+ at (\S+)/g)].map((m) => m[1]!));

      const done = await eventually(
        () => clusterOf(api, crash.clusterId),
        (c) => ENDED.includes(c.status),
        STEP_BOUND_MS,
        250,
      );
      expect(done.status, `${done.status_info}\n${fleet.lines.slice(-30).join('\n')}\n${runtime.output().slice(-3_000)}`).toBe('installed');
      mark('crash installed');
    } finally {
      await fleet.stop();
    }
    // The replayed stream reached its end before the stories are read: nothing delivered for 2 s, nothing in flight.
    let replayed = -1;
    let quietSince = Date.now();
    await until(
      async () => {
        const health = (await (await fetch(`${url}/healthz`)).json()) as {
          streams: Record<string, { delivered: number }>;
          functions: Record<string, { inFlight: number }>;
        };
        const delivered = Object.values(health.streams).reduce((sum, stream) => sum + stream.delivered, 0);
        if (delivered !== replayed || health.functions.HostChanges!.inFlight > 0) {
          replayed = delivered;
          quietSince = Date.now();
        }
        return Date.now() - quietSince >= 2_000;
      },
      60_000,
      'the stream to be drained',
    );
    mark(`stream drained (${replayed} records delivered since the last start)`);

    // What the kills took down: the runtime with its DynamoDB Local (java, under its guard) both
    // times, and the installer's process the first time; the workflow resumed where it was.
    for (const processes of killed)
      expect(
        processes.some((command) => /java .*DynamoDBLocal/.test(command)),
        processes.join('\n'),
      ).toBe(true);
    expect(
      killed[0]!.some((command) => INSTALLER_TASK.test(command)),
      killed[0]!.join('\n'),
    ).toBe(true);
    expect(resumedAt[0]).toBe('Prepare');
    expect(['WaitBeforeLooking', 'Follow', 'Ended']).toContain(resumedAt[1]);

    const crashEvents = await eventsOf(api, crash.clusterId);
    const calmAfter = await eventsOf(api, calm.clusterId);
    if (process.env.KEEP_DATA) writeFileSync(path.join(dataDir, 'events.json'), JSON.stringify({ calm: calmEvents, crash: crashEvents, calmAfter }, null, 2));
    const keyFor = (name: string, cluster: { clusterId: string; infraEnvId: string }) => (event: Json) =>
      comparable(event, { [cluster.clusterId]: '<cluster-id>', [cluster.infraEnvId]: '<infra-env-id>', [`${name}.example.com`]: '<name>.example.com' });
    const calmKey = keyFor('calm', calm);
    const crashKey = keyFor('crash', crash);
    const compared = compareStories(fromInstall(calmEvents).map(calmKey), fromInstall(crashEvents).map(crashKey));
    console.log(
      `crash/restart: ${timeline.join('; ')}; events: calm ${calmEvents.length} (${fromInstall(calmEvents).length} from the install on), crash ${crashEvents.length} (${fromInstall(crashEvents).length}); ` +
        `repeated ${compared.repeated.length}, missing ${compared.missing.length}, unexpected ${compared.unexpected.length}; killed ${killed.map((k) => k.length).join(' + ')} processes; resumed at ${resumedAt.join(', ')}`,
    );
    const both = `calm:\n${story(calmEvents)}\n\ncrash:\n${story(crashEvents)}`;

    // No announcement twice: neither in the reference (the rule is not tuned to the crash) nor after the crashes.
    expect(repeatedTransitions(calmEvents), story(calmEvents)).toEqual([]);
    expect(repeatedTransitions(crashEvents), story(crashEvents)).toEqual([]);
    // From the install on, the same events as the uncrashed install, as often.
    expect(compared, both).toEqual({ repeated: [], missing: [], unexpected: [] });
    // The restarts and the replayed stream found nothing more to say about the cluster installed before them.
    expect(calmAfter.map(calmKey), `${story(calmEvents)}\n\nafter the crashes:\n${story(calmAfter)}`).toEqual(calmEvents.map(calmKey));
  }, 900_000);
});
