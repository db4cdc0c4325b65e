/**
 * The connected scenario of the cost bench (bench/cost.ts's header says what is measured): a
 * cluster of LIFECYCLE_HOSTS hosts discovered through the local runtime, its monitor passes, and
 * steady hours of known hosts in small clusters on a stepped service clock, every request counted
 * by the meter (bench/cost/meter.ts).
 */
import { serviceAgentImage } from '../support/agent-image.js';
import { readFileSync } from 'node:fs';
import { DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { Context } from 'aws-lambda';
import { keys } from '../../lambdas/adapters/dynamodb/keys.js';
import { handler as apiHandler } from '../../lambdas/handlers/api/index.js';
import { handler as hostChangesHandler } from '../../lambdas/handlers/streams/host-changes.js';
import type { Clock } from '../../lambdas/ports/clock.js';
import { systemClock } from '../../lambdas/ports/clock.js';
import { container, provide } from '../../lambdas/platform/container.js';
import { logger } from '../../lambdas/platform/observability.js';
import { issueAgentToken } from '../../lambdas/usecases/agent-tokens.js';
import { monitorHosts } from '../../lambdas/usecases/host-monitor.js';
import { agentClient, eachBounded } from '../lifecycle/agents.js';
import { itemSizeBytes } from '../lifecycle/capacity.js';
import { monitorBenchRuntime } from '../lifecycle/runtime.js';
import { defaultOpenshiftVersion, inventoryOf, registerCluster, repliesAfterInventory } from '../lifecycle/fleet.js';
import type { RequestCost } from './model.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { setting } from '../support/settings.js';
import { apiKind, countLogBytes, type Handler, measured, provideMeteredPorts, Recorder } from './meter.js';

/**
 * Step outputs that differ from one run to the next on a healthy host: a connectivity report's
 * round-trip times. Upstream's NTP report names sources and their states only, so it repeats.
 */
const CHANGING_OUTPUTS = new Set(['connectivity-check']);

/** A service clock the bench moves by hand: a steady hour of polls takes seconds. */
class SteppedClock implements Clock {
  private offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  advanceTo(at: number): void {
    this.offsetMs = Math.max(this.offsetMs, at - Date.now());
  }
}

export interface Measurements {
  costs: Record<string, RequestCost>;
  /** Per known host and hour of the steady phase. */
  perHostHour: Record<string, number>;
  pollSeconds: number;
  hosts: number;
  /** The steady hour's known hosts, the size of their clusters, and the unmeasured hours before it. */
  steady: { hosts: number; clusterSize: number; warmupHours: number };
  /** What one write of a steady host's item bills the table (its size in KB) and each index. */
  hostWrite: { units: Record<string, number> };
  /** The stream batches of one inventory reply, measured alone, by the number of hosts in its cluster: read units per batch, by command. */
  inventoryBatches: { hosts: number; batches: number; readUnits: number; readUnitsByCommand: Record<string, number>; dynamodbCalls: number }[];
}

/** The phase an inventory reply measured alone is recorded in, with the stream batches it causes. */
const inventoryBatchPhase = (hosts: number) => ` (inventory reply, ${hosts} hosts)`;

/**
 * What one write of a host's item bills the table and each index holding a copy (the item put
 * back with a new updatedAt, ReturnConsumedCapacity INDEXES): which part of a host write the
 * indexes' projections are.
 */
async function hostWriteByIndex(endpoint: string, key: { orgId: string; infraEnvId: string; hostId: string }): Promise<Measurements['hostWrite']> {
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1' });
  try {
    const TableName = container().config.tableName;
    const { Item } = await client.send(new GetItemCommand({ TableName, Key: marshall(keys.host(key)), ConsistentRead: true }));
    if (!Item) throw new Error('the steady host is gone');
    // What the item's billed size is made of (every read of the host pays it in 4 KB units).
    const sizes = Object.entries(Item)
      .map(([name, value]) => [name, itemSizeBytes({ [name]: value })] as const)
      .sort((a, b) => b[1] - a[1]);
    const packed = { ...(Item.packedAttributes?.M ?? {}), ...(Item.packedWithDictionary1?.M ?? {}) };
    const plain = Item.attributes?.M ?? {};
    console.log(
      `a steady host's item: ${itemSizeBytes(Item)} bytes; by attribute: ${sizes.map(([name, bytes]) => `${name} ${bytes}`).join(', ')}; packed: ${Object.entries(
        packed,
      )
        .map(([name, value]) => `${name} ${itemSizeBytes({ [name]: value })}`)
        .join(', ')}; largest plain: ${Object.entries(plain)
        .map(([name, value]) => [name, itemSizeBytes({ [name]: value })] as const)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 8)
        .map(([name, bytes]) => `${name} ${bytes}`)
        .join(', ')}`,
    );
    // An index is billed only where its copy changes: updatedAt moves, as it does with any host write.
    const { ConsumedCapacity } = await client.send(
      new PutItemCommand({ TableName, Item: { ...Item, updatedAt: { S: new Date().toISOString() } }, ReturnConsumedCapacity: 'INDEXES' }),
    );
    const table = ConsumedCapacity?.Table?.CapacityUnits ?? 0;
    const units: Record<string, number> = { total: ConsumedCapacity?.CapacityUnits ?? 0, table };
    const indexes = Object.entries(ConsumedCapacity?.GlobalSecondaryIndexes ?? {});
    for (const [name, consumed] of indexes) units[name] = consumed.CapacityUnits ?? 0;
    // DynamoDB Local names no index: what the table's own copy did not take, the indexes did.
    if (indexes.length === 0) units['indexes together'] = units.total! - table;
    return { units };
  } finally {
    client.destroy();
  }
}

export async function measureConnected(): Promise<Measurements> {
  const hostCount = setting('LIFECYCLE_HOSTS', 1_000);
  const sampleCount = Math.min(setting('COST_SAMPLE_HOSTS', 100), hostCount);
  const steadyCount = setting('COST_STEADY_HOSTS', 50);
  const steadyHours = setting('COST_STEADY_HOURS', 1);
  const warmupHours = setting('COST_WARMUP_HOURS', 1);
  const concurrency = 16;
  const neighbours = 8;
  const recorder = new Recorder();
  const clock = new SteppedClock();
  provide({ clock });
  const { runtime, close } = await monitorBenchRuntime('assisted-cost-', {
    apiInstances: 1,
    extraFunctions: {
      Api: measured(recorder, apiHandler as Handler, (event) => apiKind(event as never)) as never,
      HostChanges: measured(recorder, hostChangesHandler as Handler, () => 'stream batch (HostChanges)') as never,
    },
  });
  const restoreOutput = countLogBytes();
  const previousLevel = logger.getLevelName();
  // The deployed functions log at Powertools' default: the stack sets no level.
  logger.setLogLevel('INFO');
  const clients: { close(): void }[] = [];
  try {
    clients.push(...provideMeteredPorts(runtime.endpoints.dynamodb));

    // ---- a monitor pass with nothing to watch (the idle service's every minute)
    recorder.recording = true;
    const monitorPass = (kind: string) =>
      measured(
        recorder,
        () => monitorHosts({ store: container().store, clock }),
        () => kind,
      )({}, {} as Context);
    await monitorPass('monitor pass (idle)');

    const adminToken = readFileSync(runtime.adminTokenFile, 'utf8').trim();
    const user = agentClient(runtime.url, { Authorization: `Bearer ${adminToken}` }, 4);
    clients.push(user);
    const version = await defaultOpenshiftVersion(user);
    const { infraEnvId } = await registerCluster(user, 'cost', version);
    const agentToken = await issueAgentToken(container().config.agentSigningKeyPem, { orgId: runtime.orgId, infraEnvId });
    const agents = agentClient(runtime.url, { 'X-Secret-Key': agentToken }, 64);
    clients.push(agents);
    const hostsRoute = `/infra-envs/${infraEnvId}/hosts`;
    const agentImage = serviceAgentImage();
    const ids = Array.from({ length: hostCount }, () => crypto.randomUUID());
    /** An agent's poll and reply for the hosts of one infra-env, its clock reading the service's stepped one. */
    const agentCalls = (client: ReturnType<typeof agentClient>, route: string) => ({
      route,
      poll: (hostId: string) => client.call('GET', `${route}/${hostId}/instructions?timestamp=${Math.floor(clock.now().getTime() / 1000)}`),
      reply: async (hostId: string, step_type: string, output: unknown) =>
        (
          await client.call('POST', `${route}/${hostId}/instructions`, {
            step_type,
            step_id: `${step_type}-cost`,
            exit_code: 0,
            output: JSON.stringify(output),
          })
        ).status === 204,
    });
    const { poll, reply } = agentCalls(agents, hostsRoute);
    const discover = async (hostId: string, i: number, aroundInventory?: (send: () => Promise<boolean>) => Promise<boolean>) => {
      // The agent the service hands out: another version would be told to upgrade on every poll.
      let ok = (await agents.call('POST', hostsRoute, { host_id: hostId, discovery_agent_version: agentImage })).status === 201;
      ok = (await poll(hostId)).status === 200 && ok;
      const sendInventory = () => reply(hostId, 'inventory', inventoryOf(i));
      ok = (await (aroundInventory ? aroundInventory(sendInventory) : sendInventory())) && ok;
      for (const r of repliesAfterInventory(i, ids, 'cost', neighbours)) ok = (await reply(hostId, r.step_type, r.output)) && ok;
      return ok;
    };

    const steadyAgents = new Map<string, ReturnType<typeof agentCalls>>();
    const steadyPoll = (hostId: string) => steadyAgents.get(hostId)!.poll(hostId);
    const steadyReply = (hostId: string, step_type: string, output: unknown) => steadyAgents.get(hostId)!.reply(hostId, step_type, output);

    // ---- the cluster's first hosts, not counted; then the sample, one request at a time. On the
    // way, at each of STREAM_BATCH_SIZES, the host that makes the cluster that size sends its
    // inventory alone, with the stream drained before and after: the stream batches that reply
    // causes are priced apart, as 'stream batch (HostChanges) (inventory reply, N hosts)'. Whether
    // reads per change grow with the cluster is read from them (issue #49).
    const bulkCount = hostCount - sampleCount;
    const checkpoints = [
      ...new Set([
        ...(process.env.COST_STREAM_SIZES ?? '10,100')
          .split(',')
          .map(Number)
          .filter((size) => Number.isInteger(size) && size > 0 && size <= bulkCount),
        hostCount,
      ]),
    ].sort((a, b) => a - b);
    const inventoryAlone = (size: number) => async (send: () => Promise<boolean>) => {
      const was = { recording: recorder.recording, phase: recorder.phase };
      await runtime.streams.drained();
      recorder.recording = true;
      recorder.phase = inventoryBatchPhase(size);
      try {
        const ok = await send();
        await runtime.streams.drained();
        return ok;
      } finally {
        recorder.recording = was.recording;
        recorder.phase = was.phase;
      }
    };
    const discoverAt = (hostId: string, i: number) => discover(hostId, i, checkpoints.includes(i + 1) ? inventoryAlone(i + 1) : undefined);
    recorder.recording = false;
    let seededCount = 0;
    for (const size of [...checkpoints.filter((size) => size <= bulkCount), ...(bulkCount > 0 ? [bulkCount] : [])]) {
      // Up to the checkpoint's host, side by side; the checkpoint's host alone.
      const before = ids.slice(seededCount, size - 1);
      const seeded = await eachBounded(before, concurrency, (hostId, i) => discover(hostId, seededCount + i));
      if (seeded.errors) throw new Error(`${seeded.errors} hosts of ${before.length} failed discovery`);
      if (size - 1 >= seededCount && !(await discoverAt(ids[size - 1]!, size - 1))) throw new Error(`host ${size} failed discovery`);
      seededCount = size;
    }
    recorder.recording = true;
    const sample = await eachBounded(ids.slice(bulkCount), 1, (hostId, i) => discoverAt(hostId, bulkCount + i));
    if (sample.errors) throw new Error(`${sample.errors} sampled hosts failed discovery`);
    console.log(`${hostCount} hosts discovered (${sampleCount} of them measured one request at a time)`);
    const inventoryBatches = checkpoints.map((size) => {
      const kind = `stream batch (HostChanges)${inventoryBatchPhase(size)}`;
      const measured = recorder.cost(kind);
      return {
        hosts: size,
        batches: recorder.count(kind),
        readUnits: measured?.readUnits ?? 0,
        readUnitsByCommand: recorder.readUnitsByCommand(kind),
        dynamodbCalls: measured?.dynamodbCalls ?? 0,
      };
    });
    for (const batch of inventoryBatches) {
      const byCommand = Object.entries(batch.readUnitsByCommand)
        .map(([command, units]) => `${command} ${units.toFixed(1)}`)
        .join(', ');
      console.log(
        `stream batch RRU of an inventory reply, ${batch.hosts} hosts in its cluster: ${batch.readUnits.toFixed(1)} RRU (${byCommand || 'no reads'}; ${batch.batches} batch(es), ${batch.dynamodbCalls.toFixed(1)} calls each)`,
      );
    }

    // ---- monitor passes over the whole cluster: the first judges every new host; the cluster then
    // converges (verdicts that wait on peers, the stream's follow-ups of what the passes wrote) for
    // up to COST_CONVERGING_PASSES passes, each priced apart; what every further minute costs is
    // the first pass that writes nothing, the settled one (a connected host's steady state).
    await monitorPass(`monitor pass (${hostCount} hosts, first)`);
    await runtime.streams.drained();
    const convergingPasses = setting('COST_CONVERGING_PASSES', 5);
    for (let pass = 1; pass <= convergingPasses; pass++) {
      const kind = `monitor pass (${hostCount} hosts, converging ${pass})`;
      await monitorPass(kind);
      await runtime.streams.drained();
      const wrote = recorder.cost(kind)?.writeUnits ?? 0;
      console.log(`${kind}: ${(recorder.cost(kind)?.readUnits ?? 0).toFixed(1)} RRU, ${wrote.toFixed(1)} WRU`);
      if (wrote === 0) break;
      if (pass === convergingPasses) console.log(`the cluster had not settled after ${convergingPasses} passes: the next one is priced as every minute's`);
    }
    await monitorPass(`monitor pass (${hostCount} hosts)`);

    // ---- the steady hour's hosts: known hosts of small clusters (a SaaS fleet is mostly SNO and
    // three-node clusters, #22), each host reporting a full mesh. The big cluster's hosts reach 8
    // neighbours each and stay insufficient (no majority group), which is not a connected host's
    // steady state.
    recorder.recording = false;
    const clusterSize = Math.max(1, setting('COST_CLUSTER_HOSTS', 3));
    const steady: string[] = [];
    const steadyReplies = new Map<string, () => { step_type: string; output: unknown }[]>();
    for (let first = 0; first < steadyCount; first += clusterSize) {
      const name = `cost-${first / clusterSize}`;
      const { infraEnvId: envId } = await registerCluster(
        user,
        name,
        version,
        clusterSize === 1 ? { control_plane_count: 1, high_availability_mode: 'None', user_managed_networking: true, api_vips: [], ingress_vips: [] } : {},
      );
      const token = await issueAgentToken(container().config.agentSigningKeyPem, { orgId: runtime.orgId, infraEnvId: envId });
      const client = agentClient(runtime.url, { 'X-Secret-Key': token }, 8);
      clients.push(client);
      // Fleet-wide indexes after the big cluster's: distinct addresses, MACs and names.
      const members: string[] = [];
      for (let i = 0; i < Math.min(clusterSize, steadyCount - first); i++) members[hostCount + first + i] = crypto.randomUUID();
      for (const [index, hostId] of members.entries()) {
        if (hostId === undefined) continue;
        const route = `/infra-envs/${envId}/hosts`;
        const replies = () => repliesAfterInventory(index, members, name, clusterSize - 1);
        steadyReplies.set(hostId, replies);
        steadyAgents.set(hostId, agentCalls(client, route));
        if ((await client.call('POST', route, { host_id: hostId, discovery_agent_version: agentImage })).status !== 201)
          throw new Error('steady registration refused');
        // As an agent does: the first poll (its clock reading) before the inventory.
        if ((await steadyPoll(hostId)).status !== 200) throw new Error('steady first poll refused');
        if (!(await steadyReply(hostId, 'inventory', inventoryOf(index)))) throw new Error('steady inventory refused');
        steady.push(hostId);
      }
      for (const hostId of steady.slice(first)) for (const r of steadyReplies.get(hostId)!()) await steadyReply(hostId, r.step_type, r.output);
    }
    // Two rounds of polls and answers: verdicts that wait on peers settle.
    for (let round = 0; round < 2; round++) {
      for (const hostId of steady) {
        const steps = JSON.parse((await steadyPoll(hostId)).body) as { instructions?: { step_type: string }[] };
        for (const { step_type } of steps.instructions ?? []) {
          const answer = steadyReplies.get(hostId)!().find((r) => r.step_type === step_type);
          if (answer) await steadyReply(hostId, step_type, answer.output);
        }
      }
    }
    const statuses: Record<string, number> = {};
    let notKnown: string | undefined;
    for (const hostId of steady) {
      const view = JSON.parse((await user.call('GET', `${steadyAgents.get(hostId)!.route}/${hostId}`)).body) as { status?: string; validations_info?: string };
      const status = view.status ?? '?';
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (status !== 'known' && !notKnown) {
        const failing = Object.values(JSON.parse(view.validations_info ?? '{}') as Record<string, { id: string; status: string; message: string }[]>)
          .flat()
          .filter((v) => v.status !== 'success' && v.status !== 'disabled');
        notKnown = `${status}: ${failing.map((v) => `${v.id} (${v.status}: ${v.message})`).join('; ')}`;
      }
    }
    // The figures below are a known host's only when the hosts are known: say why not.
    if (notKnown) console.log(`a steady host is ${notKnown}`);
    console.log(
      `steady hosts (${steady.length}, clusters of ${clusterSize}): ${Object.entries(statuses)
        .map(([status, n]) => `${n} ${status}`)
        .join(', ')}`,
    );

    // ---- steady hours of those hosts, on the stepped clock
    const due = new Map(steady.map((id, i) => [id, clock.now().getTime() + (i / steady.length) * 60_000]));
    const handed: Record<string, number> = {};
    const pollSeconds: number[] = [];
    let turn = 0;
    const runFor = async (hours: number) => {
      const end = clock.now().getTime() + hours * 3_600_000;
      for (;;) {
        const [hostId, at] = [...due].reduce((a, b) => (b[1] < a[1] ? b : a));
        if (at >= end) break;
        clock.advanceTo(at);
        const answer = await steadyPoll(hostId);
        if (answer.status !== 200) throw new Error(`steady poll: ${answer.status} ${answer.body}`);
        const steps = JSON.parse(answer.body) as { next_instruction_seconds?: number; instructions?: { step_type: string }[] };
        const seconds = steps.next_instruction_seconds ?? 60;
        if (recorder.recording) pollSeconds.push(seconds);
        due.set(hostId, at + seconds * 1000);
        for (const { step_type } of steps.instructions ?? []) {
          if (recorder.recording) handed[step_type] = (handed[step_type] ?? 0) + 1;
          if (!CHANGING_OUTPUTS.has(step_type)) continue;
          // A healthy host's report again, with the figures that move between runs moved.
          const wobble = (turn++ % 7) / 10;
          const report = steadyReplies.get(hostId)!().find((r) => r.step_type === step_type)!.output;
          const output = JSON.parse(JSON.stringify(report).replaceAll('"average_rtt_ms":0.4', `"average_rtt_ms":${0.4 + wobble}`));
          if (!(await steadyReply(hostId, step_type, output))) throw new Error(`steady ${step_type} reply refused`);
        }
      }
      // What the stream still delivers for these hours' writes.
      await sleep(2_000);
    };
    // Unmeasured first: what a host writes every so many minutes (its stored connectivity figures)
    // is then as likely at any time of the measured hours as on a host connected for days, rather
    // than all at once after the settling rounds.
    await runFor(warmupHours);
    recorder.recording = true;
    recorder.phase = ' (steady)';
    await runFor(steadyHours);
    const hostWrite = await hostWriteByIndex(runtime.endpoints.dynamodb, {
      orgId: runtime.orgId,
      infraEnvId: steadyAgents.get(steady[0]!)!.route.split('/')[2]!,
      hostId: steady[0]!,
    });
    console.log(
      `one write of a steady host's item: ${Object.entries(hostWrite.units)
        .map(([name, units]) => `${name} ${units}`)
        .join(', ')} WRU`,
    );
    const hostHours = steadyCount * steadyHours;
    // Everything the hour's hosts asked for, each kind priced by its own measurements.
    const perHostHour = Object.fromEntries(
      recorder
        .kinds()
        .filter((kind) => kind.endsWith(recorder.phase))
        .map((kind) => [kind, recorder.count(kind) / hostHours]),
    );
    console.log(
      `steady hour of ${steadyCount} known hosts: steps handed per host-hour: ${Object.entries(handed)
        .map(([type, n]) => `${type} ${(n / hostHours).toFixed(1)}`)
        .join(', ')}`,
    );
    // Which reads a steady request's units are (what a connected host costs every minute).
    for (const kind of Object.keys(perHostHour)) {
      const byCommand = Object.entries(recorder.readUnitsByCommand(kind))
        .map(([command, units]) => `${command} ${units.toFixed(2)}`)
        .join(', ');
      console.log(`${kind}: RRU by command: ${byCommand || 'no reads'}`);
    }
    recorder.recording = false;
    const costs = Object.fromEntries(recorder.kinds().map((kind) => [kind, recorder.cost(kind)!]));
    pollSeconds.sort((a, b) => a - b);
    return {
      costs,
      perHostHour,
      pollSeconds: pollSeconds[pollSeconds.length >> 1] ?? 60,
      hosts: hostCount,
      steady: { hosts: steadyCount, clusterSize, warmupHours },
      hostWrite,
      inventoryBatches,
    };
  } finally {
    logger.setLogLevel(previousLevel as never);
    restoreOutput();
    for (const client of clients) client.close();
    await close();
    provide({ clock: systemClock });
  }
}
