/**
 * `npm run bench -- versus-upstream` (issue #49): our service beside upstream's assisted-service,
 * driven by the same client, on the agents' three hot requests:
 * - registrations: POST /infra-envs/{id}/hosts, one per host;
 * - inventory replies: one GET .../instructions and one inventory POST .../instructions per host
 *   (a pair is one reply);
 * - polls: GET .../instructions, VS_POLLS_PER_HOST per host, once the side has judged every host
 *   (no host left discovering; the status mix of each side is printed).
 * Each at VS_SHAPES (default `1x1000,300x3`: clusters x hosts), VS_ROUNDS (3) rounds, the order of
 * the sides alternating from one round to the next, each side started afresh (an empty database)
 * for each shape of each round. One keep-alive client, VS_CONCURRENCY (16) requests in flight.
 *
 * Per side and phase: rate, p50/p99, CPU-ms per request of the service and of its database (from
 * /proc/<pid>/stat: ours is its runtime process, every function instance's thread in it, and
 * DynamoDB Local's java; upstream's is its Go process, and PostgreSQL's postmaster and backends),
 * DB calls per request (ours: table requests counted by a proxy in front of DynamoDB Local, in a
 * process of its own; upstream: transactions from pg_stat_database, pg_stat_statements not being
 * loaded by the shared tool). CPU and DB calls run from the phase's start until VS_SETTLE_MS (11 s:
 * PostgreSQL publishes an idle backend's counts up to 10 s late) after its end, on both sides alike:
 * the follow-ups of the requests (our stream's judgements) and the monitors' passes meanwhile are in
 * them.
 *
 * The machine is shared: rates and CPU are noisy, the ratios of the two sides measured in turn are
 * what to read. Ends with one line per workload and shape:
 *   versus-upstream <workload> <CxH>: ours/upstream = R (ours A/s, upstream B/s)
 * R the median over rounds of each round's ratio, A and B the medians of the rates.
 */
import { randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { issueAgentToken } from '../lambdas/usecases/agent-tokens.js';
import { agentClient, eachBounded, type AgentClient } from './lifecycle/agents.js';
import { inventoryOf } from './lifecycle/fleet.js';
import type { LoadResult } from './load.js';
import { describeFloor, measureDynamoDbFloor, pathFloorMs, type DynamoDbFloor } from './support/dynamodb-floor.js';
import { startOurService } from './support/our-service.js';
import { cpuMsBetween, cpuTicks } from './support/process-cpu.js';
import { startUpstreamService } from './support/upstream-service.js';
import { median } from './support/percentile.js';

export type Workload = 'registrations' | 'inventory-replies' | 'polls';
export const WORKLOADS: readonly Workload[] = ['registrations', 'inventory-replies', 'polls'];
export type SideName = 'ours' | 'upstream';

export interface Shape {
  clusters: number;
  hostsPerCluster: number;
}

export interface VersusSettings {
  shapes: Shape[];
  rounds: number;
  concurrency: number;
  pollsPerHost: number;
  settleMs: number;
  /** Longest wait for a side to judge every host before its polls. */
  judgeTimeoutMs: number;
  /** Print each phase as it ends. */
  verbose: boolean;
  /** Both by default; one alone to profile it (OUR_SERVICE_NODE_ARGS='--cpu-prof ...'): no ratios then. */
  sides: SideName[];
  /** Calls of each kind to measure DynamoDB Local's floor with (0: not measured). */
  floorCalls: number;
}

export interface PhaseResult extends LoadResult {
  serviceCpuMsPerRequest: number;
  databaseCpuMsPerRequest: number;
  /** Undefined where the side's calls could not be counted. */
  dbCallsPerRequest: number | undefined;
  /** Ours: the calls per request by caller, operation and kind of item, most first. */
  dbCallKinds?: Record<string, number>;
  /** Ours: DynamoDB Local's own CPU-ms for those calls (bench/support/dynamodb-floor.ts), when measured. */
  databaseFloorMsPerRequest?: number;
}

export interface SideRun {
  side: SideName;
  round: number;
  shape: string;
  phases: Record<Workload, PhaseResult>;
  /** Host statuses when the polls began. */
  statusMix: Record<string, number>;
}

export interface Summary {
  workload: Workload;
  shape: string;
  ratio: number;
  ours: number;
  upstream: number;
}

export const shapeName = (shape: Shape) => `${shape.clusters}x${shape.hostsPerCluster}`;

export function parseShapes(text: string): Shape[] {
  return text.split(',').map((part) => {
    const match = /^(\d+)x(\d+)$/.exec(part.trim());
    if (!match) throw new Error(`VS_SHAPES: '${part}' is not CLUSTERSxHOSTS`);
    return { clusters: Number(match[1]), hostsPerCluster: Number(match[2]) };
  });
}

export function settingsFromEnvironment(env = process.env): VersusSettings {
  const number = (name: string, fallback: number) => (env[name] ? Number(env[name]) : fallback);
  return {
    shapes: parseShapes(env.VS_SHAPES ?? '1x1000,300x3'),
    rounds: number('VS_ROUNDS', 3),
    concurrency: number('VS_CONCURRENCY', 16),
    pollsPerHost: number('VS_POLLS_PER_HOST', 2),
    settleMs: number('VS_SETTLE_MS', 11_000),
    judgeTimeoutMs: number('VS_JUDGE_TIMEOUT_MS', 180_000),
    verbose: true,
    floorCalls: number('VS_FLOOR_CALLS', 400),
    sides: (env.VS_SIDES ?? 'ours,upstream').split(',').map((side) => {
      if (side !== 'ours' && side !== 'upstream') throw new Error(`VS_SIDES: '${side}' is neither ours nor upstream`);
      return side;
    }),
  };
}

const PULL_SECRET = '{"auths":{"cloud.openshift.com":{"auth":"dXNlcjpwYXNz","email":"a@b.c"}}}';
const OPENSHIFT_VERSION = '4.22.9';

/** One side, as the client sees it: one pool of keep-alive sockets for every request. */
interface Side {
  name: SideName;
  client: AgentClient;
  userHeaders: Record<string, string>;
  agentHeaders(infraEnvId: string): Promise<Record<string, string>>;
  servicePids(): number[];
  databasePids(): number[];
  dbCalls(): Promise<number | undefined>;
  /** Ours only: the calls by caller, operation and kind of item. */
  dbCallsByKind?(): Promise<Record<string, number> | undefined>;
  stop(): Promise<void>;
}

function cached(headersOf: (infraEnvId: string) => Promise<Record<string, string>>) {
  const known = new Map<string, Promise<Record<string, string>>>();
  return (infraEnvId: string) => {
    let headers = known.get(infraEnvId);
    if (!headers) known.set(infraEnvId, (headers = headersOf(infraEnvId)));
    return headers;
  };
}

async function startSide(name: SideName, concurrency: number): Promise<Side> {
  if (name === 'ours') {
    const service = await startOurService();
    const client = agentClient(service.url, {}, concurrency);
    return {
      name,
      client,
      userHeaders: { Authorization: `Bearer ${service.adminToken}` },
      agentHeaders: cached(async (infraEnvId) => ({ 'X-Secret-Key': await issueAgentToken(service.agentSigningKey, { orgId: service.orgId, infraEnvId }) })),
      servicePids: () => service.servicePids(),
      databasePids: () => service.databasePids(),
      dbCalls: () => service.dynamodbCalls(),
      dbCallsByKind: () => service.dynamodbCallsByKind(),
      stop: async () => {
        client.close();
        await service.stop();
      },
    };
  }
  // Upstream's own monitor periods (8 s and 10 s): it judges hosts only there.
  const service = await startUpstreamService({ monitorIntervals: null });
  const client = agentClient(service.url, {}, concurrency);
  const pgPort = () => Number(readFileSync(path.join(service.workdir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[3]);
  return {
    name,
    client,
    userHeaders: {},
    // AUTH_TYPE=none: any key.
    agentHeaders: async () => ({ 'X-Secret-Key': 'bench-agent' }),
    servicePids: () => service.pids().slice(0, 1),
    databasePids: () => service.pids().slice(1),
    dbCalls: async () => {
      try {
        const out = execFileSync(
          '/usr/lib/postgresql/15/bin/psql',
          [
            '-h',
            '127.0.0.1',
            '-p',
            String(pgPort()),
            '-U',
            'postgres',
            '-d',
            'postgres',
            '-qAt',
            '-c',
            "select xact_commit + xact_rollback from pg_stat_database where datname = 'installer'",
          ],
          { encoding: 'utf8', timeout: 10_000 },
        );
        return Number(out.trim());
      } catch {
        return undefined;
      }
    },
    stop: async () => {
      client.close();
      await service.stop();
    },
  };
}

interface Fleet {
  /** Per host: its infra-env and id, in registration order. */
  hosts: { infraEnvId: string; hostId: string; index: number }[];
  clusterIds: string[];
  infraEnvIds: string[];
}

/** A user's request, its JSON answer. */
async function json(side: Side, method: string, route: string, body?: unknown, expected = [200, 201]): Promise<any> {
  const answer = await side.client.call(method, route, body, side.userHeaders);
  if (!expected.includes(answer.status)) throw new Error(`${method} ${route}: ${answer.status} ${answer.body.slice(0, 300)}`);
  return answer.body ? JSON.parse(answer.body) : undefined;
}

/** The clusters and their infra-envs (not measured). */
async function createClusters(side: Side, shape: Shape, concurrency: number): Promise<Fleet> {
  const clusterIds: string[] = new Array(shape.clusters);
  const infraEnvIds: string[] = new Array(shape.clusters);
  const prefix = `vs${Date.now().toString(36)}`;
  const made = await eachBounded(
    Array.from({ length: shape.clusters }, (_, i) => i),
    concurrency,
    async (i) => {
      const cluster = await json(side, 'POST', '/clusters', {
        name: `${prefix}-${i}`,
        openshift_version: OPENSHIFT_VERSION,
        pull_secret: PULL_SECRET,
        base_dns_domain: 'example.com',
      });
      clusterIds[i] = cluster.id;
      const infraEnv = await json(side, 'POST', '/infra-envs', {
        name: `${prefix}-${i}-ie`,
        pull_secret: PULL_SECRET,
        cluster_id: cluster.id,
        cpu_architecture: 'x86_64',
        openshift_version: OPENSHIFT_VERSION,
      });
      infraEnvIds[i] = infraEnv.id;
      return true;
    },
  );
  if (made.errors) throw new Error(`${side.name}: ${made.errors} of ${shape.clusters} clusters could not be created`);
  const hosts = Array.from({ length: shape.clusters * shape.hostsPerCluster }, (_, index) => ({
    infraEnvId: infraEnvIds[Math.floor(index / shape.hostsPerCluster)]!,
    hostId: randomUUID(),
    index,
  }));
  return { hosts, clusterIds, infraEnvIds };
}

/** Runs one phase, with CPU and DB calls counted from its start to `settleMs` after its end. */
async function measure(side: Side, settleMs: number, run: () => Promise<LoadResult>, floor?: DynamoDbFloor): Promise<PhaseResult> {
  const cpuBefore = { service: cpuTicks(side.servicePids()), database: cpuTicks(side.databasePids()) };
  const callsBefore = await side.dbCalls();
  const kindsBefore = await side.dbCallsByKind?.();
  const load = await run();
  await sleep(settleMs);
  const cpuAfter = { service: cpuTicks(side.servicePids()), database: cpuTicks(side.databasePids()) };
  const callsAfter = await side.dbCalls();
  const kindsAfter = await side.dbCallsByKind?.();
  const requests = Math.max(1, load.requests);
  const kinds =
    kindsAfter && kindsBefore
      ? Object.fromEntries(
          Object.entries(kindsAfter)
            .map(([kind, n]): [string, number] => [kind, (n - (kindsBefore[kind] ?? 0)) / requests])
            .filter(([, n]) => n > 0)
            .sort((a, b) => b[1] - a[1]),
        )
      : undefined;
  return {
    ...(kinds ? { dbCallKinds: kinds } : {}),
    ...(kinds && floor ? { databaseFloorMsPerRequest: pathFloorMs(kinds, floor) } : {}),
    ...load,
    serviceCpuMsPerRequest: cpuMsBetween(cpuBefore.service, cpuAfter.service) / requests,
    databaseCpuMsPerRequest: cpuMsBetween(cpuBefore.database, cpuAfter.database) / requests,
    dbCallsPerRequest: callsBefore === undefined || callsAfter === undefined ? undefined : (callsAfter - callsBefore) / requests,
  };
}

const instructionsRoute = (host: Fleet['hosts'][number]) => `/infra-envs/${host.infraEnvId}/hosts/${host.hostId}/instructions`;

async function register(side: Side, host: Fleet['hosts'][number]): Promise<boolean> {
  const answer = await side.client.call(
    'POST',
    `/infra-envs/${host.infraEnvId}/hosts`,
    { host_id: host.hostId, discovery_agent_version: 'bench' },
    await side.agentHeaders(host.infraEnvId),
  );
  return answer.status === 201;
}

async function replyInventory(side: Side, host: Fleet['hosts'][number]): Promise<boolean> {
  const headers = await side.agentHeaders(host.infraEnvId);
  const poll = await side.client.call('GET', instructionsRoute(host), undefined, headers);
  if (poll.status !== 200) return false;
  const steps = (JSON.parse(poll.body) as { instructions?: { step_type: string; step_id: string }[] }).instructions ?? [];
  const stepId = steps.find((step) => step.step_type === 'inventory')?.step_id ?? `inventory-${host.hostId.slice(0, 8)}`;
  const reply = await side.client.call(
    'POST',
    instructionsRoute(host),
    { step_id: stepId, step_type: 'inventory', exit_code: 0, output: JSON.stringify(inventoryOf(host.index)) },
    headers,
  );
  return reply.status === 204;
}

async function pollOnce(side: Side, host: Fleet['hosts'][number]): Promise<boolean> {
  return (await side.client.call('GET', instructionsRoute(host), undefined, await side.agentHeaders(host.infraEnvId))).status === 200;
}

/** Host statuses, by status, read from each infra-env's host list. */
async function statusMix(side: Side, fleet: Fleet, concurrency: number): Promise<Record<string, number>> {
  const mix: Record<string, number> = {};
  await eachBounded(fleet.infraEnvIds, concurrency, async (infraEnvId) => {
    for (const host of (await json(side, 'GET', `/infra-envs/${infraEnvId}/hosts`)) as { status: string }[]) mix[host.status] = (mix[host.status] ?? 0) + 1;
    return true;
  });
  return mix;
}

/** Until no host is left discovering (each side judged every inventory), bounded. */
async function untilJudged(side: Side, fleet: Fleet, settings: VersusSettings): Promise<Record<string, number>> {
  const deadline = Date.now() + settings.judgeTimeoutMs;
  for (;;) {
    const mix = await statusMix(side, fleet, settings.concurrency);
    const counted = Object.values(mix).reduce((a, b) => a + b, 0);
    if (!mix.discovering && counted === fleet.hosts.length) return mix;
    if (Date.now() > deadline) throw new Error(`${side.name}: hosts not judged within ${settings.judgeTimeoutMs} ms: ${JSON.stringify(mix)}`);
    await sleep(1_000);
  }
}

const fixed = (value: number | undefined, digits = 1) => (value === undefined ? 'unavailable' : value.toFixed(digits));

export function describePhase(result: PhaseResult): string {
  const floor =
    result.databaseFloorMsPerRequest === undefined
      ? ''
      : ` (floor of its calls ${result.databaseFloorMsPerRequest.toFixed(2)}, ${(result.databaseCpuMsPerRequest / Math.max(result.databaseFloorMsPerRequest, 0.01)).toFixed(1)}x it)`;
  return `${result.perSecond.toFixed(1)}/s (${result.requests} in ${result.seconds.toFixed(1)} s, errors ${result.errors}), p50 ${result.p50Ms.toFixed(1)} ms, p99 ${result.p99Ms.toFixed(1)} ms, CPU ms/request service ${result.serviceCpuMsPerRequest.toFixed(2)} + database ${result.databaseCpuMsPerRequest.toFixed(2)}${floor}, DB calls/request ${fixed(result.dbCallsPerRequest)}`;
}

async function runSide(name: SideName, shape: Shape, round: number, settings: VersusSettings, floor?: DynamoDbFloor): Promise<SideRun> {
  const side = await startSide(name, settings.concurrency);
  try {
    const fleet = await createClusters(side, shape, settings.concurrency);
    const log = (workload: string, result: PhaseResult) => {
      if (settings.verbose) console.log(`round ${round} ${shapeName(shape)} ${name.padEnd(8)} ${workload.padEnd(17)} ${describePhase(result)}`);
      if (settings.verbose && result.dbCallKinds)
        console.log(
          `    DB calls/request by kind: ${Object.entries(result.dbCallKinds)
            .slice(0, 8)
            .map(([kind, n]) => `${kind} ${n.toFixed(2)}`)
            .join('; ')}`,
        );
    };
    const registrations = await measure(side, settings.settleMs, () => eachBounded(fleet.hosts, settings.concurrency, (host) => register(side, host)), floor);
    log('registrations', registrations);
    const inventoryReplies = await measure(
      side,
      settings.settleMs,
      () => eachBounded(fleet.hosts, settings.concurrency, (host) => replyInventory(side, host)),
      floor,
    );
    log('inventory-replies', inventoryReplies);
    const mix = await untilJudged(side, fleet, settings);
    if (settings.verbose)
      console.log(
        `round ${round} ${shapeName(shape)} ${name.padEnd(8)} statuses before polls: ${Object.entries(mix)
          .map(([status, n]) => `${status} ${n}`)
          .join(', ')}`,
      );
    const polls = Array.from({ length: settings.pollsPerHost }, () => fleet.hosts).flat();
    const pollResult = await measure(side, settings.settleMs, () => eachBounded(polls, settings.concurrency, (host) => pollOnce(side, host)), floor);
    log('polls', pollResult);
    return { side: name, round, shape: shapeName(shape), phases: { registrations, 'inventory-replies': inventoryReplies, polls: pollResult }, statusMix: mix };
  } finally {
    await side.stop();
  }
}

/** The median ratio over rounds, per workload and shape. */
export function summarise(runs: readonly SideRun[]): Summary[] {
  const summaries: Summary[] = [];
  const shapes = [...new Set(runs.map((run) => run.shape))];
  for (const workload of WORKLOADS) {
    for (const shape of shapes) {
      const rounds = [...new Set(runs.filter((run) => run.shape === shape).map((run) => run.round))];
      const ratios: number[] = [];
      const rates: Record<SideName, number[]> = { ours: [], upstream: [] };
      for (const round of rounds) {
        const ours = runs.find((run) => run.shape === shape && run.round === round && run.side === 'ours');
        const upstream = runs.find((run) => run.shape === shape && run.round === round && run.side === 'upstream');
        if (!ours || !upstream) continue;
        rates.ours.push(ours.phases[workload].perSecond);
        rates.upstream.push(upstream.phases[workload].perSecond);
        ratios.push(ours.phases[workload].perSecond / upstream.phases[workload].perSecond);
      }
      if (ratios.length) summaries.push({ workload, shape, ratio: median(ratios), ours: median(rates.ours), upstream: median(rates.upstream) });
    }
  }
  return summaries;
}

export function summaryLine(summary: Summary): string {
  return `versus-upstream ${summary.workload} ${summary.shape}: ours/upstream = ${summary.ratio.toFixed(2)} (ours ${summary.ours.toFixed(1)}/s, upstream ${summary.upstream.toFixed(1)}/s)`;
}

/** Medians over rounds of every figure, per side, workload and shape: docs/performance.md's table. */
export function table(runs: readonly SideRun[]): string {
  const rows = [
    '| workload | shape | side | rate /s | p50 ms | p99 ms | service CPU ms/req | DB CPU ms/req | DB floor ms/req | DB calls/req |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const workload of WORKLOADS) {
    for (const shape of [...new Set(runs.map((run) => run.shape))]) {
      for (const side of ['ours', 'upstream'] as const) {
        const phases = runs.filter((run) => run.shape === shape && run.side === side).map((run) => run.phases[workload]);
        if (!phases.length) continue;
        const m = (pick: (phase: PhaseResult) => number | undefined) => {
          const values = phases.map(pick).filter((value): value is number => value !== undefined);
          return values.length ? median(values) : undefined;
        };
        rows.push(
          `| ${workload} | ${shape} | ${side} | ${fixed(m((p) => p.perSecond))} | ${fixed(m((p) => p.p50Ms))} | ${fixed(m((p) => p.p99Ms))} | ${fixed(m((p) => p.serviceCpuMsPerRequest))} | ${fixed(m((p) => p.databaseCpuMsPerRequest))} | ${fixed(
            m((p) => p.databaseFloorMsPerRequest),
            2,
          )} | ${fixed(m((p) => p.dbCallsPerRequest))} |`,
        );
      }
    }
  }
  return rows.join('\n');
}

export async function versusUpstream(overrides: Partial<VersusSettings> = {}): Promise<{ runs: SideRun[]; summaries: Summary[] }> {
  const settings = { ...settingsFromEnvironment(), ...overrides };
  console.log(
    `versus-upstream: shapes ${settings.shapes.map(shapeName).join(', ')}, ${settings.rounds} round(s), concurrency ${settings.concurrency}, ${settings.pollsPerHost} poll(s) per host, settle ${settings.settleMs} ms`,
  );
  let floor: DynamoDbFloor | undefined;
  if (settings.floorCalls > 0 && settings.sides.includes('ours')) {
    floor = await measureDynamoDbFloor({ callsPerKind: settings.floorCalls, concurrency: settings.concurrency });
    console.log(`DynamoDB Local's floor on this machine, java CPU per call: ${describeFloor(floor)}`);
  }
  const runs: SideRun[] = [];
  for (let round = 1; round <= settings.rounds; round++) {
    const order = (round % 2 ? (['ours', 'upstream'] as const) : (['upstream', 'ours'] as const)).filter((side) => settings.sides.includes(side));
    for (const shape of settings.shapes) {
      for (const side of order) runs.push(await runSide(side, shape, round, settings, floor));
    }
  }
  const summaries = summarise(runs);
  if (settings.verbose) {
    console.log(`\nmedians over ${settings.rounds} round(s):\n${table(runs)}\n`);
    for (const run of runs.filter((r) => r.round === 1)) console.log(`statuses before polls, ${run.side} ${run.shape}: ${JSON.stringify(run.statusMix)}`);
  }
  for (const summary of summaries) console.log(summaryLine(summary));
  return { runs, summaries };
}
