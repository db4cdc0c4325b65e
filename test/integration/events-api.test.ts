import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventView } from '../../lambdas/domain/events/events.js';
import { container } from '../../lambdas/platform/container.js';
import { createApiToken } from '../../lambdas/usecases/api-tokens.js';
import { recordEvent } from '../../lambdas/usecases/events.js';
import { ensureOrganisation } from '../../lambdas/usecases/organisations.js';
import { expectMatchesSchema } from '../support/response-schema.js';
import { testRuntime } from '../support/runtime.js';
import { upstreamError } from '../support/upstream-errors.js';

const CLUSTER = '0f9a1c52-1111-4e7a-9d3c-5b8e2f6a7c01';
const CLUSTER_B = '0f9a1c52-2222-4e7a-9d3c-5b8e2f6a7c01';
const HOST = '0f9a1c52-3333-4e7a-9d3c-5b8e2f6a7c01';
const GONE_HOST = '0f9a1c52-5555-4e7a-9d3c-5b8e2f6a7c01';
const INFRA_ENV = '0f9a1c52-4444-4e7a-9d3c-5b8e2f6a7c01';
const T0 = Date.parse('2024-08-15T12:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);

describe('GET /v2/events', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  let orgBToken: string;
  let readOnlyToken: string;

  const get = async (query: string, token = env.adminToken) => {
    const response = await fetch(`${env.runtime.url}/api/assisted-install/v2/events?${query}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    const body = (await response.json()) as unknown;
    // Every successful listing in this file is held to upstream's `event-list` schema.
    if (response.status === 200) expectMatchesSchema('v2ListEvents', 200, body);
    const header = (name: string) => Number(response.headers.get(name));
    return {
      status: response.status,
      body,
      events: body as EventView[],
      messages: Array.isArray(body) ? (body as EventView[]).map((e) => e.message) : [],
      counts: [header('Severity-Count-Info'), header('Severity-Count-Warning'), header('Severity-Count-Error'), header('Severity-Count-Critical')],
      eventCount: header('Event-Count'),
    };
  };

  beforeAll(async () => {
    env = await testRuntime();
    // Records written past the service (a seeded scene): the table's stream does not follow them.
    await env.runtime.streams.pause();
    const ports = container();
    await ensureOrganisation(ports, 'org-b', 'Organisation B');
    const now = new Date().toISOString();
    await ports.store.clusters.create({ orgId: 'default', clusterId: CLUSTER, name: 'a', status: 'ready', createdAt: now, updatedAt: now, attributes: {} });
    await ports.store.clusters.create({ orgId: 'org-b', clusterId: CLUSTER_B, name: 'b', status: 'ready', createdAt: now, updatedAt: now, attributes: {} });
    // HOST still exists; GONE_HOST has events but no record, which is what deleted_hosts looks for.
    await ports.store.hosts.create({
      orgId: 'default',
      infraEnvId: INFRA_ENV,
      hostId: HOST,
      clusterId: CLUSTER,
      status: 'known',
      createdAt: now,
      updatedAt: now,
      attributes: {},
    });

    const cluster = { orgId: 'default', clusterId: CLUSTER };
    const host = { orgId: 'default', clusterId: CLUSTER, infraEnvId: INFRA_ENV, hostId: HOST };
    const seeds: Parameters<typeof recordEvent>[1][] = [
      { name: 'cluster_registration_succeeded', subject: cluster, props: { cluster_kind: 'Cluster' }, at: at(0) },
      { name: 'infra_env_registered', subject: { orgId: 'default', infraEnvId: INFRA_ENV }, at: at(1) },
      { name: 'host_registration_succeeded', subject: host, props: { host_name: 'master-0' }, at: at(2) },
      {
        name: 'cluster_validation_failed',
        subject: cluster,
        props: { validation_id: 'api-vips-defined', validation_msg: 'm', failure_message: 'API VIPs are undefined' },
        at: at(3),
      },
      {
        name: 'host_status_updated',
        subject: host,
        props: { host_name: 'master-0', src_status: 'known', new_status: 'disconnected', info: '', severity: 'warning' },
        at: at(4),
      },
      { name: 'host_media_disconnected', subject: { ...host, hostId: GONE_HOST }, at: at(5) },
      { name: 'cluster_installation_failed', subject: cluster, props: { failure_reason: 'Installation FAILED on bootstrap' }, at: at(6) },
      // Another organisation's events, one of them about an id that is also ours: never ours to see.
      { name: 'cluster_deregister_failed', subject: { orgId: 'org-b', clusterId: CLUSTER }, props: { error: 'org-b only' }, at: at(7) },
      { name: 'cluster_registration_succeeded', subject: { orgId: 'org-b', clusterId: CLUSTER_B }, props: { cluster_kind: 'Cluster' }, at: at(8) },
    ];
    for (const seed of seeds) await recordEvent(ports, seed);

    orgBToken = (await createApiToken(ports, { orgId: 'org-b', name: 'b', role: 'user' })).token;
    readOnlyToken = (await createApiToken(ports, { orgId: 'default', name: 'reader', role: 'read-only' })).token;
    await env.runtime.streams.resume({ skipWritten: true });
  }, 180_000);
  afterAll(async () => env?.close());

  const clusterMessages = [
    'Successfully registered cluster',
    'Host master-0: Successfully registered',
    "Cluster validation 'api-vips-defined' API VIPs are undefined",
    'Host master-0: updated status from known to disconnected ',
    expect.stringMatching(/^Unable to read from the discovery media/),
    'Failed installing cluster. Reason: Installation FAILED on bootstrap',
  ];

  it("lists a cluster's events oldest first in the upstream shape, with severity and event counts", async () => {
    const result = await get(`cluster_id=${CLUSTER}`);
    expect(result.status).toBe(200);
    expect(result.messages).toEqual(clusterMessages);
    expect(result.counts).toEqual([2, 2, 1, 1]);
    expect(result.eventCount).toBe(6);
    expect(result.events[5]).toEqual({
      name: 'cluster_installation_failed',
      cluster_id: CLUSTER,
      severity: 'critical',
      category: 'user',
      message: 'Failed installing cluster. Reason: Installation FAILED on bootstrap',
      event_time: at(6).toISOString(),
    });
    expect(result.events[1]).toMatchObject({ host_id: HOST, infra_env_id: INFRA_ENV, cluster_id: CLUSTER });
    expect(JSON.stringify(result.body)).not.toContain('org-b');
  });

  it('orders descending and pages with limit and offset, counting every page', async () => {
    const descending = await get(`cluster_id=${CLUSTER}&order=descending`);
    expect(descending.messages).toEqual([...clusterMessages].reverse());

    const page = await get(`cluster_id=${CLUSTER}&limit=2&offset=1`);
    expect(page.messages).toEqual(clusterMessages.slice(1, 3));
    expect(page.eventCount).toBe(6);
    expect(page.counts).toEqual([2, 2, 1, 1]);

    const lenient = await get(`cluster_id=${CLUSTER}&limit=-5&offset=-3`);
    expect(lenient.messages).toHaveLength(6);
    const none = await get(`cluster_id=${CLUSTER}&limit=0`);
    expect(none.events).toEqual([]);
    expect(none.eventCount).toBe(6);
  });

  it('filters by severities after counting, comma-separated; of a repeated parameter only the last counts, as upstream', async () => {
    const result = await get(`cluster_id=${CLUSTER}&severities=error,critical`);
    expect(result.events.map((e) => e.severity)).toEqual(['error', 'critical']);
    expect(result.eventCount).toBe(2);
    expect(result.counts).toEqual([2, 2, 1, 1]);
    // Upstream's binding reads the last occurrence of a repeated array parameter.
    const repeated = await get(`cluster_id=${CLUSTER}&severities=error&severities=critical`);
    expect(repeated.events.map((e) => e.severity)).toEqual(['critical']);
    expect(repeated.eventCount).toBe(1);
    expect(repeated.counts).toEqual([2, 2, 1, 1]);
  });

  it('filters by message substring, case-insensitively, and counts only what matches', async () => {
    const result = await get(`cluster_id=${CLUSTER}&message=${encodeURIComponent('failed on')}`);
    expect(result.messages).toEqual(['Failed installing cluster. Reason: Installation FAILED on bootstrap']);
    expect(result.counts).toEqual([0, 0, 0, 1]);
  });

  it('selects cluster-level events, hosts and deleted hosts within a cluster', async () => {
    const clusterLevel = await get(`cluster_id=${CLUSTER}&cluster_level=true`);
    expect(clusterLevel.events.map((e) => e.name)).toEqual(['cluster_registration_succeeded', 'cluster_validation_failed', 'cluster_installation_failed']);
    expect(clusterLevel.events.every((e) => e.host_id === undefined)).toBe(true);

    const oneHost = await get(`cluster_id=${CLUSTER}&host_ids=${HOST}`);
    expect(oneHost.events.map((e) => e.host_id)).toEqual([HOST, HOST]);
    expect(oneHost.counts).toEqual([1, 1, 0, 0]);

    const deleted = await get(`cluster_id=${CLUSTER}&deleted_hosts=true`);
    expect(deleted.events.map((e) => e.host_id)).toEqual([GONE_HOST]);

    const either = await get(`cluster_id=${CLUSTER}&host_id=${HOST}&cluster_level=true`);
    expect(either.eventCount).toBe(5);
  });

  it('lists hosts (the union of host_ids and host_id) and infra-envs without a cluster', async () => {
    const hosts = await get(`host_ids=${GONE_HOST},${HOST}`);
    expect(hosts.events.map((e) => e.name)).toEqual(['host_registration_succeeded', 'host_status_updated', 'host_media_disconnected']);
    expect(hosts.counts).toEqual([0, 0, 0, 0]);
    expect(hosts.eventCount).toBe(3);
    expect((await get(`host_id=${HOST}&host_ids=${GONE_HOST}`)).eventCount).toBe(3);

    const infraEnv = await get(`infra_env_id=${INFRA_ENV}&order=descending`);
    expect(infraEnv.events.map((e) => e.name)).toEqual([
      'host_media_disconnected',
      'host_status_updated',
      'host_registration_succeeded',
      'infra_env_registered',
    ]);
  });

  it("never shows another organisation's events: its clusters and infra-envs, like unknown ones, are 404", async () => {
    const mine = await get(`cluster_id=${CLUSTER}`, orgBToken);
    expect(mine.messages).toEqual(['Failed to deregister cluster. Error: org-b only']);
    expect((await get(`cluster_id=${CLUSTER_B}`, orgBToken)).messages).toEqual(['Successfully registered cluster']);

    for (const query of [`cluster_id=${CLUSTER_B}`, 'cluster_id=0f9a1c52-9999-4e7a-9d3c-5b8e2f6a7c01', 'infra_env_id=0f9a1c52-9999-4e7a-9d3c-5b8e2f6a7c01']) {
      const result = await get(query);
      expect(result.status, query).toBe(404);
      expect(result.body).toMatchObject({ kind: 'Error', id: 404 });
    }
    const unscoped = await get('');
    expect(unscoped.status).toBe(200);
    expect(unscoped.events).toEqual([]);
  });

  it('lets read-only tokens read and refuses requests without a token', async () => {
    expect((await get(`cluster_id=${CLUSTER}`, readOnlyToken)).eventCount).toBe(6);
    const anonymous = await fetch(`${env.runtime.url}/api/assisted-install/v2/events?cluster_id=${CLUSTER}`);
    expect(anonymous.status).toBe(401);
  });

  it.each([
    ['limit=abc', /limit/],
    ['offset=1.5', /offset/],
    ['order=sideways', /order/],
    ['severities=info,loud', /severities/],
    ['cluster_level=maybe', /cluster_level/],
    ['host_ids=not-a-uuid', /host_ids/],
  ])('answers 400 for %s', async (query, reason) => {
    const result = await get(`cluster_id=${CLUSTER}&${query}`);
    expect(result.status).toBe(400);
    expect(upstreamError(result.body)).toMatchObject({ code: '400', reason: expect.stringMatching(reason) });
  });

  it('answers 400 for a cluster_id that is not a UUID', async () => {
    const result = await get('cluster_id=not-a-uuid');
    expect(result.status).toBe(400);
  });
});
