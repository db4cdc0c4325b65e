/**
 * The customer side of `bench fleet-connected` (bench/fleet/connected.ts), in a process of its own
 * so that its CPU is not the service's: automation creates clusters through the REST API with the
 * admin token (a bounded number at once), downloads each infra-env's discovery.ign for its agent
 * token, and boots that infra-env's SIMULATED hosts (one fleet process, one connection pool). No
 * cluster is ever installed: every host keeps polling, at most every `pollSeconds`, until the hold
 * after the last registration has passed. Then, with the hosts still polling, it reads from the
 * service what it judged: each infra-env's hosts and their statuses, and each cluster's events
 * about a host moving to disconnected.
 *
 * Started by bench/fleet/connected.ts, which sends its settings as the first message over the IPC
 * channel (no admin token in the process list); reports to it over the same channel.
 */
import { createLog } from '../../agent/src/log.js';
import { Fleet } from '../../agent/src/simulate/fleet.js';
import { loadProfile } from '../../agent/src/simulate/profile.js';
import { createConnectionPool } from '../../agent/src/transport.js';
import { agentUnitOf } from '../support/agent-unit.js';
import { LatencyBook, callClass, percentile, type LatencySummary } from './contract.js';
import { counter, createClusterThroughRest, expectStatus, MACHINE_NETWORKS, Failure, pathTemplate, sleep as sleepUnlessAborted, userClient } from './rest.js';

export interface ConnectedSettings {
  url: string;
  adminToken: string;
  pullSecret: string;
  sshPublicKey: string;
  /** Cluster names are `<namePrefix>-<index>`. */
  namePrefix: string;
  clusters: number;
  hostsPerCluster: number;
  /** The agents' longest wait between polls (the service asks for 60 s). */
  pollSeconds: number;
  /** How long everyone is held connected after the last host registered. */
  holdMs: number;
  /** Clusters being created at once. */
  createConcurrency: number;
  /** From the start: every host registered by then, or the hold starts without the rest. */
  registerTimeoutMs: number;
  /** The service's reads at the end, at once. */
  checkConcurrency: number;
  connections: number;
  /** Epoch ms the run started: latency windows count from it. */
  startedAt: number;
}

/** The monitor's disconnection rule: a host silent this long is judged disconnected. */
export const DISCONNECTION_MS = 180_000;

export interface ConnectedOutcome {
  clustersCreated: number;
  creationFailures: Record<string, number>;
  hostsBooted: number;
  /** Hosts the agents saw registered (a host id from the service). */
  hostsRegistered: number;
  /** Epoch ms: the last host registered (or the registration deadline), the hold's start and end. */
  lastRegisteredAt: number;
  holdStartedAt: number;
  holdEndedAt: number;
  /** Agents whose session ended before the end (they stopped polling: a disconnection would be right). */
  agentsStopped: number;
  /** Per host, the longest time between two answered polls (from registration); ms. */
  pollGapMs: { p50: number; p99: number; max: number; over180s: number };
  agentPollFailures: number;
  /** What the service says at the end. */
  service: {
    hostsListed: number;
    statuses: Record<string, number>;
    /** Host ids in a disconnected status at the end. */
    disconnectedAtEnd: string[];
    /** Host ids with an event "updated status from … to disconnected" at any time. */
    disconnectionEvents: string[];
    /** Clusters whose hosts or events could not be read. */
    readFailures: number;
  };
  /** Of the hosts the service judged disconnected (at the end or ever): those whose agent kept polling on time. */
  falseDisconnects: string[];
  latencies: Record<string, LatencySummary>;
  /** The same, of the answers during the hold only (everyone registered). */
  holdLatencies: Record<string, LatencySummary>;
  calls: Record<string, number>;
}

export type ConnectedReport =
  | { type: 'sample'; at: number; running: number; registered: number; connected: number }
  | { type: 'phase'; at: number; phase: 'created' | 'registered' | 'holding' | 'checking' | 'stopping'; detail: string }
  | { type: 'server-error'; status: number; call: string }
  | { type: 'agent-error'; line: string }
  | { type: 'done'; outcome: ConnectedOutcome };

const settings = await new Promise<ConnectedSettings>((resolve) =>
  process.once('message', (message: { settings: ConnectedSettings }) => resolve(message.settings)),
);
const report = (message: ConnectedReport) => process.send?.(message);
const stopAll = new AbortController();
process.on('disconnect', () => stopAll.abort());
const sleep = (ms: number, signal: AbortSignal = stopAll.signal) => sleepUnlessAborted(ms, signal);

const latencies = new LatencyBook(settings.startedAt);
let holdLatencies: LatencyBook | undefined;
const pool = createConnectionPool({ connections: settings.connections });
const calls = new Map<string, number>();
const countCall = counter(calls);
const user = userClient(settings, latencies, countCall, report);

/** 1 host: single-node; 3 or more: three masters, the rest workers (5: master×3 + worker×2). */
function profilesOf(hosts: number): string[] {
  if (hosts === 1) return ['sno'];
  if (hosts < 3) throw new RangeError(`FLEET_HOSTS_PER_CLUSTER ${hosts}: 1 (single-node) or 3 and more (three masters, the rest workers)`);
  return [...Array<string>(3).fill('master'), ...Array<string>(hosts - 3).fill('worker')];
}
const PROFILES = profilesOf(settings.hostsPerCluster).map((name) => loadProfile(name));
const SNO = settings.hostsPerCluster === 1;
const NETWORK = SNO ? MACHINE_NETWORKS.singleNode : MACHINE_NETWORKS.compact;

// ---- what the agents see: per host, its answered polls
interface HostPolls {
  last: number;
  maxGap: number;
}
const polls = new Map<string, HostPolls>();
let agentPollFailures = 0;
const POLL_PATH = /\/hosts\/([^/]+)\/instructions$/;

const fleets: { fleet: Fleet; run: Promise<void>; clusterId: string; infraEnvId: string }[] = [];
const creationFailures: Record<string, number> = {};
const agentLog = createLog({ level: 'error', sink: (line) => report({ type: 'agent-error', line: line.slice(0, 500) }) });

async function oneCluster(index: number): Promise<void> {
  const name = `${settings.namePrefix}-${index}`;
  try {
    const { clusterId, infraEnvId } = await createClusterThroughRest(user, settings, name, SNO);
    const ignition = await user.call('GET', `/infra-envs/${infraEnvId}/downloads/files?file_name=discovery.ign`);
    expectStatus(ignition, 200, 'downloading discovery.ign');
    const { token, image } = agentUnitOf(ignition.text);
    const fleet = new Fleet({
      url: settings.url,
      infraEnvId,
      token,
      agentVersion: image,
      profiles: PROFILES,
      network: NETWORK,
      staggerMs: 50,
      timing: { maxPollIntervalMs: settings.pollSeconds * 1000 },
      dispatcher: pool,
      // Never installed: no controller either.
      controller: false,
      onResponse: ({ method, path: route, status, ms }) => {
        latencies.add(callClass(method, route), ms);
        holdLatencies?.add(callClass(method, route), ms);
        countCall(`${method} ${pathTemplate(route)}`);
        if (status >= 500) report({ type: 'server-error', status, call: `${method} ${pathTemplate(route)}` });
        const hostId = method === 'GET' ? POLL_PATH.exec(route)?.[1] : undefined;
        if (!hostId) return;
        if (status !== 200) {
          agentPollFailures += 1;
          return;
        }
        const now = Date.now();
        const seen = polls.get(hostId);
        if (!seen) polls.set(hostId, { last: now, maxGap: 0 });
        else {
          seen.maxGap = Math.max(seen.maxGap, now - seen.last);
          seen.last = now;
        }
      },
      log: agentLog,
    });
    fleets.push({
      fleet,
      clusterId,
      infraEnvId,
      run: fleet.run(stopAll.signal).catch((error: Error) => void report({ type: 'agent-error', line: `fleet of ${name}: ${error.message}` })),
    });
  } catch (error) {
    const cause = error instanceof Failure ? error.reason : `unexpected: ${(error as Error).message.slice(0, 120)}`;
    creationFailures[cause] = (creationFailures[cause] ?? 0) + 1;
    if (creationFailures[cause] === 1) report({ type: 'agent-error', line: `cluster ${name}: ${cause}: ${(error as Error).message.slice(0, 300)}` });
  }
}

const allHosts = () => fleets.flatMap(({ fleet }) => fleet.hosts);
/** Registered, its session running, and a poll answered within the disconnection rule's window. */
function connectedNow(now = Date.now()): number {
  let connected = 0;
  for (const host of allHosts()) {
    const seen = host.serviceHostId ? polls.get(host.serviceHostId) : undefined;
    if (host.state === 'running' && seen && now - seen.last < DISCONNECTION_MS) connected += 1;
  }
  return connected;
}

/** Runs `work` over `items`, `limit` at once. */
async function eachBounded<T>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length && !stopAll.signal.aborted) {
        const index = next++;
        await work(items[index]!, index);
      }
    }),
  );
}

/** What the service judged: statuses now, and every move to disconnected its events recorded. */
async function serviceView(): Promise<ConnectedOutcome['service']> {
  const view: ConnectedOutcome['service'] = { hostsListed: 0, statuses: {}, disconnectedAtEnd: [], disconnectionEvents: [], readFailures: 0 };
  const evented = new Set<string>();
  await eachBounded(fleets, settings.checkConcurrency, async ({ clusterId, infraEnvId }) => {
    try {
      const hosts = await user.call('GET', `/infra-envs/${infraEnvId}/hosts`);
      expectStatus(hosts, 200, 'listing hosts');
      for (const host of hosts.body as { id: string; status: string }[]) {
        view.hostsListed += 1;
        view.statuses[host.status] = (view.statuses[host.status] ?? 0) + 1;
        if (host.status.startsWith('disconnected')) view.disconnectedAtEnd.push(host.id);
      }
      // "Host h: updated status from known to disconnected (…)" (host_status_updated); never "from disconnected to …".
      const events = await user.call('GET', `/events?cluster_id=${clusterId}&message=${encodeURIComponent('to disconnected')}&limit=10000`);
      expectStatus(events, 200, 'listing events');
      for (const event of events.body as { host_id?: string; message: string }[])
        if (event.host_id && / to disconnected/i.test(event.message)) evented.add(event.host_id);
    } catch {
      view.readFailures += 1;
    }
  });
  view.disconnectionEvents = [...evented];
  return view;
}

async function main(): Promise<void> {
  const phase = (name: Extract<ConnectedReport, { type: 'phase' }>['phase'], detail: string) => report({ type: 'phase', at: Date.now(), phase: name, detail });
  const sampler = setInterval(() => {
    const hosts = allHosts();
    report({
      type: 'sample',
      at: Date.now(),
      running: hosts.filter((h) => h.state === 'running').length,
      registered: hosts.filter((h) => h.serviceHostId).length,
      connected: connectedNow(),
    });
  }, 1_000);
  const deadline = settings.startedAt + settings.registerTimeoutMs;
  const deadlineSignal = AbortSignal.any([stopAll.signal, AbortSignal.timeout(Math.max(0, deadline - Date.now()))]);

  // ---- clusters created, a bounded number at once, each one's hosts booted as soon as it exists
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(settings.createConcurrency, settings.clusters) }, async () => {
      while (next < settings.clusters && !deadlineSignal.aborted) await oneCluster(next++);
    }),
  );
  phase(
    'created',
    `${fleets.length} clusters created of ${settings.clusters}${Object.keys(creationFailures).length ? `; failures ${JSON.stringify(creationFailures)}` : ''}`,
  );

  // ---- every host registered (or the deadline)
  const booted = fleets.length * PROFILES.length;
  while (!deadlineSignal.aborted && allHosts().filter((h) => h.serviceHostId).length < booted) await sleep(1_000, deadlineSignal);
  const lastRegisteredAt = Date.now();
  const registered = allHosts().filter((h) => h.serviceHostId).length;
  phase('registered', `${registered} of ${booted} hosts registered${registered < booted ? ' (REGISTRATION DEADLINE passed)' : ''}`);

  // ---- everyone held connected, polling
  const holdStartedAt = Date.now();
  holdLatencies = new LatencyBook(holdStartedAt);
  phase('holding', `holding ${settings.holdMs / 60_000} min`);
  await sleep(settings.holdMs);
  const holdEndedAt = Date.now();
  const holdSummary = holdLatencies.summary();
  holdLatencies = undefined;

  // ---- the service's judgement, read while the hosts still poll
  phase('checking', 'reading each infra-env’s hosts and each cluster’s disconnection events');
  const service = await serviceView();
  clearInterval(sampler);

  // Judged before the agents stop: a false disconnect is one of a host whose agent still polls, and polled on time throughout.
  const agentsStopped = allHosts().filter((h) => h.serviceHostId && h.state !== 'running').length;
  const byServiceId = new Map(
    allHosts()
      .filter((h) => h.serviceHostId)
      .map((h) => [h.serviceHostId!, h]),
  );
  const onTime = (hostId: string, now = Date.now()) => {
    const seen = polls.get(hostId);
    return byServiceId.get(hostId)?.state === 'running' && !!seen && seen.maxGap < DISCONNECTION_MS && now - seen.last < DISCONNECTION_MS;
  };
  const falseDisconnects = [...new Set([...service.disconnectedAtEnd, ...service.disconnectionEvents])].filter((hostId) => onTime(hostId));
  const gaps = [...polls.values()].map((p) => p.maxGap).sort((a, b) => a - b);

  phase('stopping', 'stopping the agents');
  stopAll.abort();
  // Bounded: each agent gives its steps 10 s to wind down (SessionTiming.stopGraceMs).
  let stopTimer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.all(fleets.map((f) => f.run)), new Promise<void>((resolve) => (stopTimer = setTimeout(resolve, 60_000)))]);
  clearTimeout(stopTimer);
  report({
    type: 'done',
    outcome: {
      clustersCreated: fleets.length,
      creationFailures,
      hostsBooted: booted,
      hostsRegistered: registered,
      lastRegisteredAt,
      holdStartedAt,
      holdEndedAt,
      agentsStopped,
      pollGapMs: { p50: percentile(gaps, 50), p99: percentile(gaps, 99), max: gaps.at(-1) ?? 0, over180s: gaps.filter((g) => g >= DISCONNECTION_MS).length },
      agentPollFailures,
      service,
      falseDisconnects,
      latencies: latencies.summary(),
      holdLatencies: holdSummary,
      calls: Object.fromEntries([...calls].sort((a, b) => b[1] - a[1])),
    },
  });
  await pool.close().catch(() => undefined);
}

await main();
process.disconnect?.();
