/**
 * Issue #4's lifecycle numbers against the local stack (phases 1 and 2 twice, side by side: one
 * Api instance, then ASSISTED_API_INSTANCES; see `lifecycle()`), with the load settings of
 * upstream-performance.md (1,000 hosts in one cluster, concurrency 16, closed loop):
 *
 * 1. registrations/s of new hosts in one cluster (the 1,000 hosts of the next steps);
 * 2. agent polls/s for those hosts once past discovery (inventory and the usual replies posted
 *    through the agent endpoints), beside DynamoDB Local's GetItem rate measured in the same run;
 * 3. one host-monitor pass over 1,000 and over 10,000 hosts of one cluster (those seeded straight
 *    through the Store port, each cluster in a table of its own), and their ratio;
 * 4. hosts falsely marked disconnected while every host polls on time and monitor passes run
 *    back to back: the service's clock (the Clock port) runs LIFECYCLE_TIME_FACTOR times faster,
 *    and the simulated agents poll at the service's `next_instruction_seconds` of that clock, so
 *    minutes of polling and the 3-minute disconnection timeout fit in seconds.
 *
 * Settings (env): LIFECYCLE_HOSTS (1000), LIFECYCLE_BIG_HOSTS (10000), BENCH_DURATION_MS (each
 * closed-loop measurement, 20000 as upstream), LIFECYCLE_CONCURRENCY (16), LIFECYCLE_CONNECTIVITY_PEERS
 * (peers in each connectivity report, 8), LIFECYCLE_TIME_FACTOR (10), LIFECYCLE_SIMULATED_MINUTES (6),
 * LIFECYCLE_SKIP (comma-separated: polls, scaling, disconnects).
 */
import { readFileSync } from 'node:fs';
import { CreateTableCommand, DeleteTableCommand, DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { apiInstancesFromEnvironment } from '../bin/local/functions.js';
import { handler as apiHandler } from '../lambdas/handlers/api/index.js';
import type { Host } from '../lambdas/domain/core/entities.js';
import { systemClock } from '../lambdas/ports/clock.js';
import type { Store } from '../lambdas/ports/store.js';
import { container, provide } from '../lambdas/platform/container.js';
import { issueAgentToken } from '../lambdas/usecases/agent-tokens.js';
import { monitorHosts, type MonitorPass } from '../lambdas/usecases/host-monitor.js';
import { agentClient, CompressibleClock, eachBounded, type AgentClient } from './lifecycle/agents.js';
import { defaultOpenshiftVersion, inventoryOf, registerCluster, repliesAfterInventory } from './lifecycle/fleet.js';
import { monitorBenchRuntime } from './lifecycle/runtime.js';
import { seedCluster } from './lifecycle/seed.js';
import { ceilingFromFloors, describeCost, meteredDynamoClient, perRequest, type CapacityMeter, type CapacityTotals } from './lifecycle/capacity.js';
import { createDynamoStore } from '../lambdas/adapters/dynamodb/store.js';
import { closedLoop, describe, type LoadResult } from './load.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { seconds as formatSeconds, setting } from './support/settings.js';

const pad = (label: string) => label.padEnd(58);
const seconds = (ms: number) => formatSeconds(ms, 2);

function countBy(hosts: readonly Host[]): string {
  const counts = new Map<string, number>();
  for (const host of hosts) counts.set(host.status, (counts.get(host.status) ?? 0) + 1);
  return [...counts].map(([status, n]) => `${status} ${n}`).join(', ');
}

async function timedPass(store: Store, clock: CompressibleClock): Promise<{ ms: number; pass: MonitorPass }> {
  const started = performance.now();
  const pass = await monitorHosts({ store, clock });
  return { ms: performance.now() - started, pass };
}

const describePass = ({ ms, pass }: { ms: number; pass: MonitorPass }) =>
  `${seconds(ms)} (watched ${pass.visited}, judged ${pass.judged}${pass.judgedWhole ? ` in ${pass.judgedWhole} whole judgement(s)` : ' (due by time)'}, moved ${pass.moved}, failed ${pass.failed})`;

interface Phase {
  /** Api instances; ignored with `inProcessApi`. */
  apiInstances: number;
  /** The Api handler in this thread, so the service's clock can be compressed (the monitor phases). */
  inProcessApi: boolean;
  /** Measure polls (phase 2) or the monitor and disconnections (phases 3 and 4). */
  monitorPhases: boolean;
}

/**
 * Phases 1 and 2 side by side, with one Api instance and with ASSISTED_API_INSTANCES (each on a
 * runtime of its own, the same 1,000 hosts seeded through the agent endpoints), then phases 3
 * and 4 on a runtime whose Api handler runs in this thread (their clock is compressed).
 */
export async function lifecycle(): Promise<Record<string, unknown>> {
  const many = Math.max(2, apiInstancesFromEnvironment());
  const runs: Record<number, Record<string, unknown>> = {};
  for (const apiInstances of [1, many]) {
    console.log(`\n-- ${apiInstances} Api instance(s)`);
    runs[apiInstances] = await runLifecycle({ apiInstances, inProcessApi: false, monitorPhases: false });
  }
  const rows: [string, string, string][] = [
    ['registrations', 'registrations', '≥ 400/s (5× upstream 82/s)'],
    ['inventory replies', 'inventories', '≥ 468/s (upstream), p99 ≤ 250 ms'],
    ['other replies', 'others', ''],
    ['polls', 'polls', '≥ 600/s (5× upstream), p99 ≤ 100 ms'],
    ['DynamoDB Local GetItem (floor)', 'floor', ''],
    ['DynamoDB Local PutItem (floor)', 'writeFloor', ''],
  ];
  const cell = (result: LoadResult | undefined) =>
    (result ? `${result.perSecond.toFixed(0)}/s p50 ${result.p50Ms.toFixed(0)} p99 ${result.p99Ms.toFixed(0)} ms` : '-').padEnd(34);
  console.log(`\n${'side by side'.padEnd(32)}${'1 instance'.padEnd(34)}${`${many} instances`.padEnd(34)}ratio  aim`);
  for (const [label, key, aim] of rows) {
    const one = runs[1]![key] as LoadResult | undefined;
    const more = runs[many]![key] as LoadResult | undefined;
    const ratio = one && more ? (more.perSecond / one.perSecond).toFixed(2) : '-';
    console.log(`${label.padEnd(32)}${cell(one)}${cell(more)}${ratio.padEnd(7)}${aim}`);
  }
  console.log(`\n-- monitor passes and disconnections (Api handler in this thread: its clock is compressed)`);
  const monitor = await runLifecycle({ apiInstances: 1, inProcessApi: true, monitorPhases: true });
  printCeilings(runs[1]!, runs[many]!, many, monitor.costs as Record<string, CapacityTotals | undefined> | undefined);
  return { oneInstance: runs[1], manyInstances: runs[many], monitor };
}

/**
 * What DynamoDB Local itself allows each kind of request, beside what was served: its GetItem and
 * conditional PutItem rates (measured on the runtime of each side, at the bench's concurrency)
 * spent on the DynamoDB calls one request makes (counted on the in-thread run). A rate near its
 * ceiling is DynamoDB Local's floor, not the service's; the units say what DynamoDB would bill.
 */
function printCeilings(
  one: Record<string, unknown>,
  more: Record<string, unknown>,
  many: number,
  costs: Record<string, CapacityTotals | undefined> | undefined,
): void {
  const floorOf = (run: Record<string, unknown>) => {
    const reads = (run.floor as LoadResult | undefined)?.perSecond;
    const writes = (run.writeFloor as LoadResult | undefined)?.perSecond;
    return reads && writes ? { readsPerSecond: reads, writesPerSecond: writes } : undefined;
  };
  const floors = floorOf(one);
  if (!costs || !floors) return;
  console.log(`\n${'DynamoDB Local ceilings'.padEnd(32)}${`served (1 / ${many}${' instances)'.padEnd(30)}`}${'ceiling'.padEnd(12)}calls and units per request`);
  for (const [label, key] of [
    ['registrations', 'registrations'],
    ['inventory replies', 'inventories'],
    ['other replies', 'others'],
    ['polls', 'polls'],
  ] as const) {
    const cost = costs[key];
    if (!cost) continue;
    const served = [one[key], more[key]].map((result) => ((result as LoadResult | undefined)?.perSecond ?? NaN).toFixed(0)).join(' / ');
    console.log(`${label.padEnd(32)}${`${served}/s`.padEnd(30)}${`${ceilingFromFloors(cost, floors).toFixed(0)}/s`.padEnd(12)}${describeCost(cost)}`);
  }
}

async function runLifecycle(phase: Phase): Promise<Record<string, unknown>> {
  const hostCount = setting('LIFECYCLE_HOSTS', 1_000);
  const bigHostCount = setting('LIFECYCLE_BIG_HOSTS', 10_000);
  const durationMs = setting('BENCH_DURATION_MS', 20_000);
  const concurrency = setting('LIFECYCLE_CONCURRENCY', 16);
  const neighbours = setting('LIFECYCLE_CONNECTIVITY_PEERS', 8);
  const factor = setting('LIFECYCLE_TIME_FACTOR', 10);
  const simulatedMinutes = setting('LIFECYCLE_SIMULATED_MINUTES', 6);
  const skip = new Set((process.env.LIFECYCLE_SKIP ?? '').split(',').filter(Boolean));
  const results: Record<string, unknown> = {};

  const clock = new CompressibleClock();
  provide({ clock });
  const { runtime, close } = await monitorBenchRuntime('assisted-bench-', {
    apiInstances: phase.apiInstances,
    ...(phase.inProcessApi ? { extraFunctions: { Api: apiHandler as never } } : {}),
  });
  const clients: AgentClient[] = [];
  let meter: CapacityMeter | undefined;
  try {
    // The Api handler in this thread reaches DynamoDB through a client that counts consumed capacity.
    meter = phase.inProcessApi ? meteredDynamoClient(runtime.endpoints.dynamodb) : undefined;
    if (meter) provide({ store: createDynamoStore({ tableName: container().config.tableName, client: meter.client }) });
    const cost = (from: CapacityTotals | undefined, requests: number) => (meter && from ? perRequest(from, meter.totals(), requests) : undefined);
    const costs: Record<string, CapacityTotals | undefined> = {};
    const ports = container();
    const adminToken = readFileSync(runtime.adminTokenFile, 'utf8').trim();
    const user = agentClient(runtime.url, { Authorization: `Bearer ${adminToken}` }, 4);
    clients.push(user);
    const clusterName = 'bench';
    const { clusterId, infraEnvId } = await registerCluster(user, clusterName, await defaultOpenshiftVersion(user));
    const agentToken = await issueAgentToken(ports.config.agentSigningKeyPem, { orgId: runtime.orgId, infraEnvId });
    const agents = agentClient(runtime.url, { 'X-Secret-Key': agentToken }, Math.max(concurrency, 64));
    clients.push(agents);
    const hostsRoute = `/infra-envs/${infraEnvId}/hosts`;
    const ids = Array.from({ length: hostCount }, () => crypto.randomUUID());
    const hostTime = () => Math.floor(clock.now().getTime() / 1000);
    // Polls that were handed a connectivity check (the whole peer list), and their bytes.
    const checks = { count: 0, bytes: 0 };
    const poll = async (hostId: string) => {
      const answer = await agents.call('GET', `${hostsRoute}/${hostId}/instructions?timestamp=${hostTime()}`);
      if (answer.body.includes('"connectivity-check"')) {
        checks.count += 1;
        checks.bytes += Buffer.byteLength(answer.body);
      }
      return answer.status === 200;
    };
    const reply = async (hostId: string, step_type: string, output: unknown) =>
      (
        await agents.call('POST', `${hostsRoute}/${hostId}/instructions`, {
          step_type,
          step_id: `${step_type}-bench`,
          exit_code: 0,
          output: JSON.stringify(output),
        })
      ).status === 204;

    // ---- DynamoDB Local's own rate for conditional one-item writes, on a table of its own (no stream)
    if (!phase.monitorPhases) {
      results.writeFloor = await writeFloor(runtime.endpoints.dynamodb, concurrency, durationMs);
      console.log(`${pad('DynamoDB Local conditional PutItem (floor)')}${describe(results.writeFloor as LoadResult)}`);
    }

    // ---- 1. registrations
    let metered = meter?.totals();
    const registrations = await eachBounded(
      ids,
      concurrency,
      async (host_id) => (await agents.call('POST', hostsRoute, { host_id, discovery_agent_version: 'bench' })).status === 201,
    );
    costs.registrations = cost(metered, ids.length);
    console.log(`${pad(`host registrations, ${hostCount} new hosts in one cluster`)}${describe(registrations)}`);
    results.registrations = registrations;

    // ---- seeding through the agent endpoints: a first poll, the inventory, the usual replies
    const firstPolls = await eachBounded(ids, concurrency, poll);
    // Each host's first poll writes its check-in: not upstream's repeated polls of discovering hosts (2,784/s).
    console.log(`${pad('first poll of each new host (check-in written)')}${describe(firstPolls)}`);
    // Agents keep polling while they reply (each host every minute, as the service asks): without
    // it, hosts whose replies come more than 3 minutes after their last poll are rightly disconnected.
    const keepAlive = keepPolling(ids, poll, 60_000);
    metered = meter?.totals();
    const inventories = await eachBounded(ids, concurrency, (hostId, i) => reply(hostId, 'inventory', inventoryOf(i)));
    costs.inventories = cost(metered, ids.length);
    console.log(`${pad('inventory step replies')}${describe(inventories)}`);
    results.inventories = inventories;
    metered = meter?.totals();
    const others = await eachBounded(ids, concurrency, async (hostId, i) => {
      let ok = true;
      for (const r of repliesAfterInventory(i, ids, clusterName, neighbours)) ok = (await reply(hostId, r.step_type, r.output)) && ok;
      return ok;
    });
    costs.others = cost(metered, ids.length * 4);
    console.log(`${pad(`other step replies (4 per host, ${neighbours} peers each)`)}${describe({ ...others, perSecond: others.perSecond * 4 })}`);
    results.others = { ...others, perSecond: others.perSecond * 4 };
    await keepAlive.stop();
    console.log(`${pad('keep-alive polls meanwhile (each host every 60 s)')}${keepAlive.polls()} polls, ${keepAlive.errors()} errors`);
    if (registrations.errors + firstPolls.errors + inventories.errors + others.errors > 0) throw new Error('seeding through the agent endpoints failed');
    const clusterKey = { orgId: runtime.orgId, clusterId };
    console.log(`${pad('hosts after seeding')}${countBy(await ports.store.hosts.listByCluster(clusterKey))}`);

    // ---- 2. polls after inventory, beside the GetItem floor
    if (!phase.monitorPhases && !skip.has('polls')) {
      const dynamo = new DynamoDBClient({ endpoint: runtime.endpoints.dynamodb, region: 'us-east-1' });
      const [, orgId, tokenId] = adminToken.split('.');
      const key = { pk: { S: `ORG#${orgId}` }, sk: { S: `TOKEN#${tokenId}` } };
      const floor = await closedLoop(async () => !!(await dynamo.send(new GetItemCommand({ TableName: 'assisted', Key: key, ConsistentRead: true }))).Item, {
        concurrency,
        durationMs,
        warmupMs: 2_000,
      });
      dynamo.destroy();
      let turn = 0;
      Object.assign(checks, { count: 0, bytes: 0 });
      const polls = await closedLoop(() => poll(ids[turn++ % ids.length]!), { concurrency, durationMs, warmupMs: 2_000 });
      const handed = checks.count > 0 ? `${checks.count} (${(checks.bytes / checks.count / 1024).toFixed(0)} KB each)` : '0';
      console.log(`${pad('DynamoDB Local GetItem (floor)')}${describe(floor)}`);
      console.log(`${pad(`agent polls, ${hostCount} hosts after inventory, c=${concurrency}`)}${describe(polls)}`);
      console.log(`${pad('  of which handed a connectivity check (all peers)')}${handed}, warm-up included`);
      console.log(`${pad('ratio polls / GetItem floor')}${(polls.perSecond / floor.perSecond).toFixed(2)}`);
      console.log(`${pad('upstream: ~120/s (113 / 119 / 145); aim')}≥ 600/s`);
      Object.assign(results, { polls, floor, pollRatio: polls.perSecond / floor.perSecond });
    }
    if (!phase.monitorPhases) return results;

    // ---- what each request asks of DynamoDB (this thread's Api handler; keep-alive polls included above)
    if (meter) {
      metered = meter.totals();
      await eachBounded(ids, concurrency, poll);
      costs.polls = cost(metered, ids.length);
      for (const [label, key] of [
        ['registration', 'registrations'],
        ['inventory reply', 'inventories'],
        ['other reply', 'others'],
        ['poll after inventory', 'polls'],
      ] as const) {
        if (costs[key]) console.log(`${pad(`DynamoDB per ${label}`)}${describeCost(costs[key])}`);
      }
      results.costs = costs;
    }

    // ---- 3. monitor passes
    const apiPass = await timedPass(ports.store, clock);
    console.log(`${pad(`monitor pass, the ${hostCount} hosts above`)}${describePass(apiPass)}`);
    results.monitorPassApiMs = apiPass.ms;
    if (!skip.has('scaling')) {
      const dynamo = new DynamoDBClient({ endpoint: runtime.endpoints.dynamodb, region: 'us-east-1' });
      const cluster = (await ports.store.clusters.get(clusterKey))!;
      const infraEnv = (await ports.store.infraEnvs.get({ orgId: runtime.orgId, infraEnvId }))!;
      const steady: Record<number, number> = {};
      // Seeded hosts never poll. The service's clock runs 1,000 times slower from seeding through
      // the passes, so they count as having just checked in, as hosts polling on time would:
      // otherwise seeding and judging 10,000 new hosts outlast the 3-minute silence limit, and the
      // "steady" pass measures disconnecting them all. (It must still move: the monitor tells what
      // changed since its last pass by time.)
      clock.speedUp(0.001);
      for (const count of [hostCount, bigHostCount]) {
        const seeded = await seedCluster({ client: dynamo, tableName: `bench-monitor-${count}`, cluster, infraEnv, count, neighbours, clock });
        console.log(`${pad(`seeded ${count} hosts through the Store port`)}${seconds(seeded.seconds * 1000)} (${(count / seeded.seconds).toFixed(0)} hosts/s)`);
        const first = await timedPass(seeded.store, clock);
        console.log(`${pad(`monitor pass, ${count} new hosts (judges and writes each)`)}${describePass(first)}`);
        const passes = [await timedPass(seeded.store, clock), await timedPass(seeded.store, clock)];
        const best = passes.reduce((a, b) => (a.ms <= b.ms ? a : b));
        console.log(`${pad(`monitor pass, ${count} hosts, steady (best of 2)`)}${describePass(best)}`);
        console.log(`${pad('')}${countBy(await seeded.store.hosts.listByCluster(seeded.clusterKey))}`);
        steady[count] = best.ms;
      }
      clock.speedUp(1);
      dynamo.destroy();
      const ratio = steady[bigHostCount]! / steady[hostCount]!;
      console.log(`${pad(`ratio pass ${bigHostCount} / pass ${hostCount} hosts`)}${ratio.toFixed(2)} (linear: ${(bigHostCount / hostCount).toFixed(0)})`);
      console.log(`${pad('upstream: 72–101 s for 1,000 hosts; aim')}≤ 2 s, linear`);
      Object.assign(results, { monitorPassMs: steady[hostCount]!, monitorPassBigMs: steady[bigHostCount]!, monitorRatio: ratio });
    }

    // ---- 4. false disconnects while every host polls on time
    if (!skip.has('disconnects')) {
      const outcome = await pollOnTime({
        ids,
        poll: (hostId) => agents.call('GET', `${hostsRoute}/${hostId}/instructions?timestamp=${hostTime()}`),
        clock,
        factor,
        simulatedMinutes,
        concurrency: 64,
        store: ports.store,
      });
      const after = await ports.store.hosts.listByCluster(clusterKey);
      const disconnectedAtEnd = after.filter((h) => h.status === 'disconnected').length;
      console.log(
        `${pad(`polling on time, ${simulatedMinutes} simulated min at ×${factor}`)}${outcome.polls} polls, ${outcome.passes.length} monitor passes (longest ${seconds(Math.max(0, ...outcome.passes))} real), latest poll ${(outcome.maxLateMs / 1000).toFixed(1)} s (simulated) behind schedule, poll errors ${outcome.errors}`,
      );
      console.log(
        `${pad('hosts marked disconnected by the monitor / at the end')}${outcome.disconnected} / ${disconnectedAtEnd} of ${hostCount} (upstream: 435 / 366; must be 0)`,
      );
      Object.assign(results, { falseDisconnects: outcome.disconnected, disconnectedAtEnd, maxPollLateMs: outcome.maxLateMs });
    }
    return results;
  } finally {
    for (const client of clients) client.close();
    meter?.client.destroy();
    await close();
    provide({ clock: systemClock });
  }
}

/** Conditional PutItems of new 1 KB items (one WCU each, as a host's small writes) in a closed loop. */
async function writeFloor(endpoint: string, concurrency: number, durationMs: number): Promise<LoadResult> {
  const dynamo = new DynamoDBClient({ endpoint, region: 'us-east-1' });
  const TableName = `bench-write-floor-${crypto.randomUUID()}`;
  try {
    await dynamo.send(
      new CreateTableCommand({
        TableName,
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    const payload = 'x'.repeat(900);
    return await closedLoop(
      async () => {
        await dynamo.send(
          new PutItemCommand({
            TableName,
            Item: { pk: { S: `ORG#bench` }, sk: { S: `HOST#${crypto.randomUUID()}` }, payload: { S: payload }, version: { N: '0' } },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        return true;
      },
      { concurrency, durationMs, warmupMs: 2_000 },
    );
  } finally {
    await dynamo.send(new DeleteTableCommand({ TableName })).catch(() => undefined);
    dynamo.destroy();
  }
}

/** Polls every host once per `intervalMs`, spread evenly (at most 8 polls in flight), until stopped. */
function keepPolling(ids: readonly string[], poll: (hostId: string) => Promise<boolean>, intervalMs: number) {
  const MAX_IN_FLIGHT = 8;
  let stopped = false;
  let polls = 0;
  let errors = 0;
  const inFlight = new Set<Promise<void>>();
  const gapMs = intervalMs / Math.max(1, ids.length);
  const started = performance.now();
  const loop = (async () => {
    for (let n = 0; !stopped; n++) {
      // Poll n is due at n × gap: late polls go out at once, early ones wait for their time.
      const wait = started + n * gapMs - performance.now();
      if (wait > 0) await sleep(wait);
      while (inFlight.size >= MAX_IN_FLIGHT && !stopped) await Promise.race(inFlight);
      if (stopped) break;
      const one: Promise<void> = poll(ids[n % ids.length]!)
        .catch(() => false)
        .then((ok) => {
          polls += 1;
          if (!ok) errors += 1;
          inFlight.delete(one);
        });
      inFlight.add(one);
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      await Promise.all(inFlight);
    },
    polls: () => polls,
    errors: () => errors,
  };
}

/**
 * Every host polls when the service told it to (next_instruction_seconds of the service clock),
 * first polls spread over one interval; monitor passes run back to back meanwhile. Returns how
 * many hosts the passes moved to disconnected and how late the latest poll was.
 */
async function pollOnTime(options: {
  ids: readonly string[];
  poll: (hostId: string) => Promise<{ status: number; body: string }>;
  clock: CompressibleClock;
  factor: number;
  simulatedMinutes: number;
  concurrency: number;
  store: Store;
}): Promise<{ polls: number; errors: number; maxLateMs: number; disconnected: number; passes: number[] }> {
  const { clock } = options;
  clock.speedUp(options.factor);
  const start = clock.now().getTime();
  const end = start + options.simulatedMinutes * 60_000;
  const intervalMs = 60_000;
  const due = options.ids.map((_, i) => start + (i / options.ids.length) * intervalMs);
  const busy = new Array<boolean>(options.ids.length).fill(false);
  let polls = 0;
  let errors = 0;
  let maxLateMs = 0;
  let disconnected = 0;
  const passes: number[] = [];
  /** Short waits, so a stop is seen within 50 ms. */
  const nap = (ms: number) => sleep(Math.max(1, Math.min(ms, 50)));

  const pollers = Array.from({ length: options.concurrency }, async () => {
    while (clock.now().getTime() < end) {
      const now = clock.now().getTime();
      let next = -1;
      for (let i = 0; i < due.length; i++) if (!busy[i] && (next < 0 || due[i]! < due[next]!)) next = i;
      if (next < 0 || due[next]! > now) {
        await nap(next < 0 ? 5 : clock.realMs(due[next]! - now));
        continue;
      }
      busy[next] = true;
      maxLateMs = Math.max(maxLateMs, now - due[next]!);
      try {
        const response = await options.poll(options.ids[next]!);
        polls += 1;
        if (response.status !== 200) errors += 1;
        const seconds = response.status === 200 ? ((JSON.parse(response.body) as { next_instruction_seconds?: number }).next_instruction_seconds ?? 60) : 60;
        due[next] = clock.now().getTime() + seconds * 1000;
      } catch {
        errors += 1;
        due[next] = clock.now().getTime() + intervalMs;
      } finally {
        busy[next] = false;
      }
    }
  });
  const monitor = (async () => {
    while (clock.now().getTime() < end) {
      const started = performance.now();
      const pass = await monitorHosts({ store: options.store, clock });
      passes.push(performance.now() - started);
      disconnected += pass.disconnected;
    }
  })();
  await Promise.all([...pollers, monitor]);
  clock.speedUp(1);
  return { polls, errors, maxLateMs, disconnected, passes };
}
