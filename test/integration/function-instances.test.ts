/**
 * The embedded runtime behaves as Lambda does: each function in instances of its own (no memory
 * shared), an instance's crash fails only its in-flight requests, and cluster judgement follows
 * host writes through the table's DynamoDB stream, once per change however often it is delivered.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand, type _Record } from '@aws-sdk/client-dynamodb-streams';
import { toLambdaRecord } from '../../bin/local/streams-local.js';
import { isHostRecord } from '../../lambdas/platform/stream-records.js';
import { container } from '../../lambdas/platform/container.js';
import { API_VIP, apiClient, INGRESS_VIP, inventoryFixture, readyCluster, type ApiClient } from '../support/cluster-lab.js';
import { PULL_SECRET, AGENT_VERSION_HEADER } from '../support/fixtures.js';
import { issueAgentToken } from '../../lambdas/usecases/agent-tokens.js';
import { testRuntime } from '../support/runtime.js';
import { withRaceBeforeFirstClusterWrite } from '../support/store-races.js';

type Env = Awaited<ReturnType<typeof testRuntime>>;

const instanceOf = (response: { headers: Headers }) => response.headers.get('x-local-function-instance');

describe('function instances', () => {
  let env: Env;
  let api: ApiClient;

  beforeAll(async () => {
    env = await testRuntime({ apiInstances: 3 });
    api = apiClient(env.runtime.url, env.adminToken);
  }, 180_000);
  afterAll(async () => env?.close());

  it('runs the Api function as a pool of instances, counted by /healthz, and spreads consecutive requests over them', async () => {
    const healthAnswer = await fetch(`${env.runtime.url}/healthz`);
    expect([healthAnswer.headers.get('cache-control'), healthAnswer.headers.get('x-content-type-options')]).toEqual(['no-store', 'nosniff']);
    const health = (await healthAnswer.json()) as { functions: Record<string, { instances: number }> };
    expect(health.functions.Api!.instances).toBe(3);
    expect(Object.keys(health.functions)).toEqual(expect.arrayContaining(['Api', 'Images', 'HostMonitor', 'HostChanges', 'InstallPrepare', 'InstallFollow']));
    const answeredBy = new Set<string | null>();
    for (let i = 0; i < 6; i++) answeredBy.add(instanceOf(await api.call('GET', '/clusters', undefined, api.user())));
    expect([...answeredBy].sort()).toEqual(['Api#0', 'Api#1', 'Api#2']);
  });

  it('keeps what one instance remembers from the others, and each still answers right', async () => {
    // An agent's first request makes the instance that answers it remember its infra-env exists
    // (for up to a minute: agent-tokens EXISTENCE_TTL_MS). No other instance has seen it.
    const infraEnv = (await api.call('POST', '/infra-envs', { name: 'cache-probe', pull_secret: '{"auths":{"x":{"auth":"eDp5"}}}' }, api.user())).body
      .id as string;
    const token = {
      ...AGENT_VERSION_HEADER,
      'X-Secret-Key': await issueAgentToken(container().config.agentSigningKeyPem, { orgId: 'default', infraEnvId: infraEnv }),
    };
    const first = await api.call('POST', `/infra-envs/${infraEnv}/hosts`, { host_id: randomUUID() }, token);
    expect(first.status).toBe(201);
    const remembering = instanceOf(first)!;

    // The infra-env goes. Until every instance has answered the agent again: the one that
    // remembers it exists still lets the token in, and finds nothing (404); the others look it up
    // and refuse the token (401). No instance lets the agent act on it.
    expect((await api.call('DELETE', `/infra-envs/${infraEnv}`, undefined, api.user())).status).toBe(204);
    const answers = new Map<string, number>();
    for (let i = 0; i < 12 && answers.size < 3; i++) {
      const response = await api.call('POST', `/infra-envs/${infraEnv}/hosts`, { host_id: randomUUID() }, token);
      answers.set(instanceOf(response)!, response.status);
    }
    expect(answers.size).toBe(3);
    for (const [instance, status] of answers) expect([instance, status]).toEqual([instance, instance === remembering ? 404 : 401]);
  });

  it('fails only the requests in flight on an instance that crashes, in the upstream error shape, and replaces it', async () => {
    const deadline = Date.now() + 20_000;
    const statuses: number[] = [];
    const bodies: unknown[] = [];
    let stop = false;
    const load = Array.from({ length: 12 }, async () => {
      while (!stop && Date.now() < deadline) {
        const response = await api.call('GET', '/clusters', undefined, api.user());
        statuses.push(response.status);
        if (response.status !== 200) bodies.push(response.body);
      }
    });
    // Wait for load on every instance, then crash the busiest one.
    let killedInFlight = 0;
    while (Date.now() < deadline && killedInFlight === 0) {
      await sleep(100);
      if (statuses.length > 30) killedInFlight = await env.runtime.functions.killBusiest('Api');
    }
    await sleep(1_000);
    stop = true;
    await Promise.all(load);
    expect(killedInFlight).toBeGreaterThan(0);
    // Exactly the requests the instance had in flight failed, each with a clean 502 a client can act on.
    expect(statuses.filter((status) => status !== 200)).toEqual(Array(killedInFlight).fill(502));
    for (const body of bodies) expect(body).toMatchObject({ kind: 'Error', code: '502', reason: expect.stringMatching(/stopped before it answered; retry/) });
    // The next request succeeds, and the pool is whole again.
    expect((await api.call('GET', '/clusters', undefined, api.user())).status).toBe(200);
    const health = (await (await fetch(`${env.runtime.url}/healthz`)).json()) as { functions: Record<string, { instances: number; crashed: number }> };
    expect(health.functions.Api).toMatchObject({ instances: 3, crashed: 1 });
  });
});

describe('cluster judgement through the table stream', () => {
  let env: Env;
  let api: ApiClient;

  beforeAll(async () => {
    env = await testRuntime({ apiInstances: 3 });
    api = apiClient(env.runtime.url, env.adminToken);
  }, 180_000);
  afterAll(async () => env?.close());

  const clusterOf = async (clusterId: string) => (await api.call('GET', `/clusters/${clusterId}`, undefined, api.user())).body as Record<string, any>;

  it('answers the request that moved a host before its cluster is judged, and judges it from the stream within a second', async () => {
    const lab = await readyCluster(api, { hosts: ['master-0', 'master-1', 'master-2'], name: `async-${randomUUID().slice(0, 6)}` });
    // Requests answer before their follow-ups from here on, as in AWS. The write goes to the stream
    // while delivery is paused: it is answered, and its cluster is not judged yet.
    env.runtime.settings.settleFollowUps = false;
    await env.runtime.streams.pause();
    const moved = await api.call('PATCH', `/infra-envs/${lab.infraEnvId}/hosts/${lab.hostIds[0]}`, { host_role: 'worker' }, api.user());
    expect(moved.status).toBe(201);
    const before = await clusterOf(lab.clusterId);
    expect(before.status).toBe('ready');
    const resumedAt = Date.now();
    await env.runtime.streams.resume();
    let after = before;
    while (after.status === 'ready' && Date.now() - resumedAt < 5_000) after = await clusterOf(lab.clusterId);
    env.runtime.settings.settleFollowUps = true;
    expect(after.status).toBe('insufficient');
    expect(Date.now() - resumedAt).toBeLessThan(1_500);
  }, 180_000);

  it('changes nothing when stream records are delivered again, duplicated or out of order', async () => {
    const lab = await readyCluster(api, { hosts: ['master-0', 'master-1', 'master-2'], name: `replay-${randomUUID().slice(0, 6)}` });
    await env.runtime.streams.drained();
    // Every record of the stream so far, read through the Streams API as the mapping reads them.
    const streams = new DynamoDBStreamsClient({ region: 'us-east-1', endpoint: env.runtime.endpoints.dynamodb });
    const records: _Record[] = [];
    const shards = (await streams.send(new DescribeStreamCommand({ StreamArn: env.runtime.streams.streamArn }))).StreamDescription!.Shards!;
    for (const shard of shards) {
      let iterator = (
        await streams.send(
          new GetShardIteratorCommand({ StreamArn: env.runtime.streams.streamArn, ShardId: shard.ShardId!, ShardIteratorType: 'TRIM_HORIZON' }),
        )
      ).ShardIterator;
      for (let page = 0; iterator && page < 100; page++) {
        const read = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
        records.push(...(read.Records ?? []));
        if ((read.Records ?? []).length === 0) break;
        iterator = read.NextShardIterator;
      }
    }
    streams.destroy();
    const hostRecords = records.map((record) => toLambdaRecord(record, env.runtime.streams.streamArn)).filter(isHostRecord);
    const ofThisCluster = hostRecords.filter((record) => JSON.stringify(record.dynamodb?.NewImage ?? record.dynamodb?.OldImage).includes(lab.clusterId));
    expect(ofThisCluster.length).toBeGreaterThan(10);

    const snapshot = async () => {
      const { store } = container();
      const cluster = (await store.clusters.get({ orgId: 'default', clusterId: lab.clusterId }))!;
      const hosts = await store.hosts.listByCluster({ orgId: 'default', clusterId: lab.clusterId });
      const events = (await api.call('GET', `/events?cluster_id=${lab.clusterId}`, undefined, api.user())).body as unknown[];
      return {
        status: cluster.status,
        clusterVersion: cluster.version,
        hosts: hosts.map((host) => [host.hostId, host.status, host.version]).sort(),
        events: events.length,
      };
    };
    const settled = await snapshot();
    expect(settled.status).toBe('ready');
    // Replayed whole, duplicated, and reversed, in batches as the mapping sends them.
    const deliveries = [ofThisCluster, [...ofThisCluster, ...ofThisCluster], [...ofThisCluster].reverse()];
    for (const delivery of deliveries) {
      for (let start = 0; start < delivery.length; start += 100) {
        const answer = (await env.runtime.functions.invoke('HostChanges', { Records: delivery.slice(start, start + 100) })) as { batchItemFailures: unknown[] };
        expect(answer.batchItemFailures).toEqual([]);
      }
    }
    await env.runtime.streams.drained();
    expect(await snapshot()).toEqual(settled);
  }, 90_000);

  it('announces a cluster validation change once when two judgements of the cluster race (the later one is judged again on the written record)', async () => {
    const lab = await readyCluster(api, { hosts: ['master-0', 'master-1', 'master-2'], name: `race-${randomUUID().slice(0, 6)}` });
    await env.runtime.streams.drained();
    await env.runtime.streams.pause();
    try {
      const ports = container();
      const { refreshCluster } = await import('../../lambdas/usecases/cluster-refresh.js');
      const messages = async () =>
        ((await api.call('GET', `/events?cluster_id=${lab.clusterId}&order=ascending&limit=-1`, undefined, api.user())).body as { message: string }[]).map(
          (e) => e.message,
        );
      const key = { orgId: 'default', clusterId: lab.clusterId };
      // The cluster is insufficient (a host is), and stays so through the change raced below.
      await ports.store.hosts.mutate({ orgId: 'default', infraEnvId: lab.infraEnvId, hostId: lab.hostIds[0]! }, (h) => ({ ...h, status: 'insufficient' }));
      expect((await refreshCluster(ports, key))?.status).toBe('insufficient');
      const before = (await messages()).length;
      // A control plane host becomes a worker: too few masters, a validation change without a move.
      await ports.store.hosts.mutate({ orgId: 'default', infraEnvId: lab.infraEnvId, hostId: lab.hostIds[1]! }, (h) => ({
        ...h,
        attributes: { ...h.attributes, role: 'worker', suggested_role: 'worker' },
      }));
      // Another instance's judgement of the same change is written between this one's read and its write.
      const raced = withRaceBeforeFirstClusterWrite(ports.store, () => refreshCluster(ports, key));
      const judged = await refreshCluster({ ...ports, store: raced.store }, key);
      expect(raced.mutates()).toBeGreaterThan(0);
      expect(judged?.status).toBe('insufficient');
      const announced = (await messages()).slice(before);
      expect(
        announced.filter((m) => /^Cluster validation 'sufficient-masters-count' that used to succeed is now failing/.test(m)),
        announced.join('\n'),
      ).toHaveLength(1);
      expect(
        announced.filter((m) => /^Updated status of the cluster/.test(m)),
        announced.join('\n'),
      ).toEqual([]);
    } finally {
      await env.runtime.streams.resume();
    }
  }, 90_000);

  it('judges the hosts again in the request that changes a cluster setting their validations read', async () => {
    const lab = await readyCluster(api, { hosts: ['master-0', 'master-1', 'master-2'], name: `rejudge-${randomUUID().slice(0, 6)}` });
    await env.runtime.streams.drained();
    // Nothing else may judge them meanwhile: the answer to the PATCH must already show the verdicts.
    await env.runtime.streams.pause();
    try {
      const moved = await api.call(
        'PATCH',
        `/clusters/${lab.clusterId}`,
        { vip_dhcp_allocation: true, machine_networks: [{ cidr: '10.99.0.0/24' }] },
        api.user(),
      );
      expect(moved.status, moved.text).toBe(201);
      const hosts = moved.body.hosts as { status: string; validations_info: string }[];
      expect(hosts.map((host) => host.status)).toEqual(['insufficient', 'insufficient', 'insufficient']);
      for (const host of hosts) {
        const failing = Object.values(JSON.parse(host.validations_info) as Record<string, { id: string; status: string }[]>)
          .flat()
          .filter((v) => v.status === 'failure')
          .map((v) => v.id);
        expect(failing).toContain('belongs-to-machine-cidr');
      }
      // The VIPs now wait for a DHCP lease: a failing validation, not missing input.
      expect(moved.body.status).toBe('insufficient');
    } finally {
      await env.runtime.streams.resume();
    }
  }, 90_000);

  it("hands a poll the peers another instance stored, though the polled instance's own listing of the cluster is within its lifetime", async () => {
    // The scenario needs X's listing still within its 5 s when A polls again: on a loaded machine
    // the steps between can take longer, and then it is run again (a fresh cluster each time).
    const scenario = async () => {
      const versions = (await api.call('GET', '/openshift-versions', undefined, api.user())).body as Record<string, { default?: boolean }>;
      const name = `peers-${randomUUID().slice(0, 6)}`;
      const cluster = await api.call(
        'POST',
        '/clusters',
        {
          name,
          openshift_version: Object.entries(versions).find(([, v]) => v.default)![0],
          pull_secret: PULL_SECRET,
          base_dns_domain: 'example.com',
          api_vips: [{ ip: API_VIP }],
          ingress_vips: [{ ip: INGRESS_VIP }],
        },
        api.user(),
      );
      expect(cluster.status, cluster.text).toBe(201);
      const infraEnvId = (await api.call('POST', '/infra-envs', { name, pull_secret: PULL_SECRET, cluster_id: cluster.body.id }, api.user())).body.id as string;
      const agent = { ...AGENT_VERSION_HEADER, 'X-Secret-Key': await issueAgentToken(container().config.agentSigningKeyPem, { orgId: 'default', infraEnvId }) };
      const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
      const inventories = { [a]: inventoryFixture('master-0'), [b]: inventoryFixture('master-1'), [c]: inventoryFixture('master-2') };
      const hostPath = (id: string) => `/infra-envs/${infraEnvId}/hosts/${id}`;
      const poll = (id: string) => api.call('GET', `${hostPath(id)}/instructions?timestamp=${Math.floor(Date.now() / 1000)}`, undefined, agent);
      const reply = (id: string, step_type: string, output: unknown) =>
        api.call(
          'POST',
          `${hostPath(id)}/instructions`,
          { step_type, step_id: `${step_type}-${randomUUID().slice(0, 8)}`, output: JSON.stringify(output) },
          agent,
        );
      const checkedPeers = (answer: { body: { instructions: { step_type: string; args: string[] }[] } }) => {
        const check = answer.body.instructions.find((step) => step.step_type === 'connectivity-check');
        return check ? (JSON.parse(check.args[0]!) as { host_id: string }[]).map((peer) => peer.host_id).sort() : undefined;
      };
      // Consecutive requests go to the instance idle longest: after one lands on `instance`, the
      // other two take the next two, and the one after lands on `instance` again.
      const nextGoesTo = async (instance: string) => {
        for (let i = 0; i < 6 && instanceOf(await api.call('GET', '/clusters', undefined, api.user())) !== instance; i++);
        for (let i = 0; i < 2; i++) await api.call('GET', '/clusters', undefined, api.user());
      };

      for (const id of [a, b, c]) expect((await api.call('POST', `/infra-envs/${infraEnvId}/hosts`, { host_id: id }, agent)).status).toBe(201);
      for (const id of [a, b]) expect((await reply(id, 'inventory', inventories[id])).status).toBe(204);
      // A's poll lists the cluster on instance X and hands a check of the one peer with an inventory.
      const first = await poll(a);
      const polled = instanceOf(first)!;
      const listedAt = Date.now();
      expect(checkedPeers(first)).toEqual([b]);
      expect((await reply(a, 'connectivity-check', { remote_hosts: [] })).status).toBe(204);
      // C's inventory reaches another instance; its cluster's judgement (through the stream) sees the
      // cluster's address book change.
      await nextGoesTo(polled);
      await api.call('GET', '/clusters', undefined, api.user());
      const stored = await reply(c, 'inventory', inventories[c]);
      expect(stored.status).toBe(204);
      expect(instanceOf(stored)).not.toBe(polled);
      // X's copy of the cluster is at most 1 s old (recent-cluster-copies); its listing serves 5 s.
      await sleep(1_100);
      await nextGoesTo(polled);
      const second = await poll(a);
      expect(instanceOf(second)).toBe(polled);
      return { listingAgeMs: Date.now() - listedAt, peers: checkedPeers(second), expected: [b, c].sort() };
    };
    let outcome = await scenario();
    for (let attempt = 1; attempt < 3 && outcome.listingAgeMs >= 5_000; attempt++) outcome = await scenario();
    expect(outcome.listingAgeMs, 'the listing X made for the first poll must still be within its 5 s').toBeLessThan(5_000);
    expect(outcome.peers).toEqual(outcome.expected);
  }, 150_000);
});
