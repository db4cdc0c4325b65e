import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cluster, Host, ServiceEvent } from '../../lambdas/domain/core/entities.js';
import { ConcurrentModificationError, type Store } from '../../lambdas/ports/store.js';
import { causedBy, clusterWrite, recordEvent, recordEvents } from '../../lambdas/usecases/events.js';
import { WATCHED_HOST_PROJECTION } from '../../lambdas/adapters/dynamodb/store.js';
import { tableDesign } from '../../lambdas/adapters/dynamodb/schema.js';
import { GetItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { keys } from '../../lambdas/adapters/dynamodb/keys.js';
import { freshStore } from '../support/dynamo.js';
import { HANDED_ONCE_WINDOW_MS, longCheckClaim } from '../../lambdas/domain/agent/agent-protocol.js';

const now = '2026-11-22T00:00:00.000Z';

function cluster(orgId: string, clusterId: string): Omit<Cluster, 'version'> {
  return { orgId, clusterId, name: clusterId, status: 'pending-for-input', createdAt: now, updatedAt: now, attributes: { counter: 0 } };
}

function host(orgId: string, infraEnvId: string, hostId: string, extra: Partial<Host> = {}): Omit<Host, 'version'> {
  return { orgId, infraEnvId, hostId, status: 'discovering', createdAt: now, updatedAt: now, attributes: {}, ...extra };
}

/** Every command `client` sends until `stop`, with the capacity units it consumed (asked for with each: DynamoDB Local reports them). */
function countUnits(client: DynamoDBClient): { units: { command: string; units: number }[]; stop(): void } {
  const units: { command: string; units: number }[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      const consumed = (result.output as { ConsumedCapacity?: { CapacityUnits?: number } }).ConsumedCapacity;
      units.push({ command: context.commandName ?? '', units: consumed?.CapacityUnits ?? 0 });
      return result;
    },
    { step: 'initialize', name: 'countUnits' },
  );
  return { units, stop: () => client.middlewareStack.remove('countUnits') };
}

describe('DynamoDB store (real SDK client, DynamoDB Local)', () => {
  let store: Store;
  let drop: () => Promise<void>;
  let client: DynamoDBClient;
  let tableName: string;

  beforeAll(async () => {
    ({ store, drop, client, tableName } = await freshStore());
  });
  afterAll(async () => drop());

  it('creates a record once; a second create of the same key is a conflict', async () => {
    const created = await store.clusters.create(cluster('org-a', 'c1'));
    expect(created.version).toBe(1);
    await expect(store.clusters.create(cluster('org-a', 'c1'))).rejects.toBeInstanceOf(ConcurrentModificationError);
    expect(await store.clusters.get({ orgId: 'org-a', clusterId: 'c1' })).toMatchObject({ name: 'c1', version: 1 });
  });

  it('detects a conditional-write conflict: a write based on a stale version is rejected and changes nothing', async () => {
    const first = (await store.clusters.get({ orgId: 'org-a', clusterId: 'c1' }))!;
    const stale = structuredClone(first);
    const updated = await store.clusters.replace({ ...first, status: 'ready' });
    expect(updated.version).toBe(first.version + 1);
    await expect(store.clusters.replace({ ...stale, status: 'insufficient' })).rejects.toBeInstanceOf(ConcurrentModificationError);
    expect((await store.clusters.get({ orgId: 'org-a', clusterId: 'c1' }))!.status).toBe('ready');
  });

  it('loses no update when 200 writers change one item at once', async () => {
    await store.clusters.create(cluster('org-a', 'hot'));
    const key = { orgId: 'org-a', clusterId: 'hot' };
    await Promise.all(
      Array.from({ length: 200 }, (_, writer) =>
        store.clusters.mutate(key, (c) => ({
          ...c,
          attributes: {
            counter: (c.attributes.counter as number) + 1,
            writers: [...((c.attributes.writers as number[]) ?? []), writer],
          },
        })),
      ),
    );
    const final = (await store.clusters.get(key))!;
    expect(final.attributes.counter).toBe(200);
    expect(new Set(final.attributes.writers as number[]).size).toBe(200);
    expect(final.version).toBe(201);
  }, 120_000);

  it('keeps organisations apart: the same ids in another organisation are other records', async () => {
    await store.clusters.create(cluster('org-b', 'c1'));
    expect((await store.clusters.listByOrg('org-a')).map((c) => c.clusterId).sort()).toEqual(['c1', 'hot']);
    expect((await store.clusters.listByOrg('org-b')).map((c) => c.clusterId)).toEqual(['c1']);
    expect(await store.clusters.get({ orgId: 'org-c', clusterId: 'c1' })).toBeUndefined();
  });

  it('lists hosts by infra-env and by cluster, and only active hosts in the sparse index', async () => {
    await store.hosts.create(host('org-a', 'ie1', 'h1', { clusterId: 'c1', monitorShard: 3 }));
    await store.hosts.create(host('org-a', 'ie1', 'h2', { clusterId: 'c1' }));
    await store.hosts.create(host('org-a', 'ie2', 'h3', { monitorShard: 3 }));
    await store.hosts.create(host('org-b', 'ie1', 'h1', { clusterId: 'c1', monitorShard: 3 }));

    expect((await store.hosts.listByInfraEnv({ orgId: 'org-a', infraEnvId: 'ie1' })).map((h) => h.hostId).sort()).toEqual(['h1', 'h2']);
    expect((await store.hosts.listByCluster({ orgId: 'org-a', clusterId: 'c1' })).map((h) => h.hostId).sort()).toEqual(['h1', 'h2']);
    const active = await store.hosts.listActive(3);
    expect(active.items.map((h) => `${h.orgId}/${h.infraEnvId}/${h.hostId}`).sort()).toEqual(['org-a/ie1/h1', 'org-a/ie2/h3', 'org-b/ie1/h1']);

    // The index holds what the monitor reads, not whole records: a check-in shows, an inventory does not.
    await store.hosts.mutate({ orgId: 'org-a', infraEnvId: 'ie2', hostId: 'h3' }, (h) => ({
      ...h,
      attributes: { ...h.attributes, checked_in_at: now, inventory: '{"cpu":{}}' },
    }));
    const watched = (await store.hosts.listActive(3)).items.find((h) => h.hostId === 'h3')!;
    expect(watched).toMatchObject({ orgId: 'org-a', infraEnvId: 'ie2', hostId: 'h3', status: expect.any(String), version: 2, monitorShard: 3 });
    expect(watched.attributes).toEqual({ checked_in_at: now });
    expect((await store.hosts.get({ orgId: 'org-a', infraEnvId: 'ie2', hostId: 'h3' }))!.attributes).not.toHaveProperty('watch_checked_in_at');
    expect(await store.hosts.get({ orgId: 'org-a', infraEnvId: 'ie2', hostId: 'h3' })).not.toHaveProperty('watch_checked_in_at');

    // Leaving the monitored states removes the host from the sparse index.
    await store.hosts.mutate({ orgId: 'org-a', infraEnvId: 'ie1', hostId: 'h1' }, (h) => ({ ...h, monitorShard: undefined, status: 'installed' }));
    expect((await store.hosts.listActive(3)).items).toHaveLength(2);
  });

  it('stores a host of a 1,000-host cluster (its connectivity report alone over 400 KB of JSON) deflated, and reads back exactly what was written', async () => {
    const peer = (i: number) => ({
      host_id: `00000000-0000-0000-0000-${String(i).padStart(12, '0')}`,
      l2_connectivity: [
        {
          outgoing_nic: 'ens3',
          outgoing_ip_address: '10.0.0.1',
          remote_ip_address: `10.0.${i >> 8}.${i & 255}`,
          remote_mac: `52:54:00:00:${(i >> 8).toString(16).padStart(2, '0')}:${(i & 255).toString(16).padStart(2, '0')}`,
          successful: true,
        },
      ],
      l3_connectivity: [
        {
          outgoing_nic: 'ens3',
          remote_ip_address: `10.0.${i >> 8}.${i & 255}`,
          successful: true,
          average_rtt_ms: 0.3 + (i % 7) / 10,
          packet_loss_percentage: 0,
        },
      ],
      mtu_report: [{ outgoing_nic: 'ens3', remote_ip_address: `10.0.${i >> 8}.${i & 255}`, mtu_successful: true }],
    });
    const connectivity = JSON.stringify({ remote_hosts: Array.from({ length: 999 }, (_, i) => peer(i + 2)) });
    expect(connectivity.length).toBeGreaterThan(400 * 1024);
    const attributes = {
      connectivity,
      inventory: JSON.stringify({ hostname: 'big', disks: Array.from({ length: 40 }, (_, i) => ({ name: `sd${i}`, size_bytes: 1e12 })) }),
      role: 'worker' as const,
    };
    const key = { orgId: 'org-a', infraEnvId: 'ie-big', hostId: 'h-big' };
    await store.hosts.create(host('org-a', 'ie-big', 'h-big', { clusterId: 'c-big', attributes }));
    expect((await store.hosts.get(key))!.attributes).toEqual(attributes);
    expect((await store.hosts.listByCluster({ orgId: 'org-a', clusterId: 'c-big' }))[0]!.attributes).toEqual(attributes);
    // A liveness write keeps it whole; short texts stay readable in the item as they are.
    await store.hosts.mutate(key, (h) => ({ ...h, attributes: { ...h.attributes, checked_in_at: now } }));
    expect((await store.hosts.get(key))!.attributes).toEqual({ ...attributes, checked_in_at: now });
    const raw = (await client.send(new GetItemCommand({ TableName: tableName, Key: { pk: { S: keys.host(key).pk }, sk: { S: keys.host(key).sk } } }))).Item!;
    expect(raw.attributes!.M!.role).toEqual({ S: 'worker' });
    expect(raw.attributes!.M!.connectivity).toBeUndefined();
    expect(raw.packedWithDictionary1!.M!.connectivity!.B!.byteLength).toBeLessThan(connectivity.length / 5);
  });

  it('declares in the table design exactly what the active index must hold for the monitor', () => {
    const active = tableDesign.globalSecondaryIndexes.find((index) => index.indexName === 'active') as { nonKeyAttributes?: string[] };
    expect([...(active.nonKeyAttributes ?? [])].sort()).toEqual([...WATCHED_HOST_PROJECTION].sort());
  });

  it('binding a host to a cluster moves it into that cluster listing', async () => {
    await store.hosts.mutate({ orgId: 'org-a', infraEnvId: 'ie2', hostId: 'h3' }, (h) => ({ ...h, clusterId: 'c1' }));
    expect((await store.hosts.listByCluster({ orgId: 'org-a', clusterId: 'c1' })).map((h) => h.hostId).sort()).toEqual(['h1', 'h2', 'h3']);
  });

  it('reads events per cluster, host and infra-env in time order, page by page', async () => {
    const base = Date.parse(now);
    for (let i = 0; i < 5; i++) {
      const event: ServiceEvent = {
        orgId: 'org-a',
        eventId: `e${i}`,
        name: 'host_registration_succeeded',
        severity: 'info',
        category: 'user',
        message: `event ${i}`,
        eventTime: new Date(base + (5 - i) * 1000).toISOString(),
        clusterId: 'c1',
        infraEnvId: 'ie1',
        hostId: i % 2 === 0 ? 'h1' : 'h2',
      };
      await store.events.append(event);
    }
    const first = await store.events.list({ orgId: 'org-a', clusterId: 'c1' }, { limit: 3 });
    expect(first.items.map((e) => e.message)).toEqual(['event 4', 'event 3', 'event 2']);
    const rest = await store.events.list({ orgId: 'org-a', clusterId: 'c1' }, { limit: 3, cursor: first.next });
    expect(rest.items.map((e) => e.message)).toEqual(['event 1', 'event 0']);
    const newest = await store.events.list({ orgId: 'org-a', hostId: 'h1' }, { newestFirst: true });
    expect(newest.items.map((e) => e.message)).toEqual(['event 0', 'event 2', 'event 4']);
    expect((await store.events.list({ orgId: 'org-b', clusterId: 'c1' })).items).toEqual([]);
    expect((await store.events.list({ orgId: 'org-a', infraEnvId: 'ie1' })).items).toHaveLength(5);
  });

  it('appends events that happened together in batches, and lists them in the order given', async () => {
    const at = new Date(Date.parse(now) + 60_000);
    const clock = { now: () => at };
    const requests = Array.from({ length: 60 }, (_, i) => ({
      name: 'host_validation_fixed',
      subject: {
        orgId: 'org-a',
        clusterId: '5b0e2a4c-1f3d-4e6a-9c8b-7a6f5e4d3c2b',
        infraEnvId: '0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f',
        hostId: '9a1b4c52-7d1e-4f6a-8b2c-3d4e5f607182',
      },
      props: { host_name: 'h1', validation_id: `check-${String(i).padStart(2, '0')}` },
    }));
    const recorded = await recordEvents({ store, clock }, requests);
    expect(new Set(recorded.map((event) => event.eventTime))).toEqual(new Set([at.toISOString()]));
    const listed = await store.events.list({ orgId: 'org-a', clusterId: '5b0e2a4c-1f3d-4e6a-9c8b-7a6f5e4d3c2b' }, { limit: 100 });
    expect(listed.items.map((event) => event.message)).toEqual(recorded.map((event) => event.message));
    expect(listed.items[59]!.message).toContain('check-59');
  });

  it('records the events of one cause once, however often they are recorded (retried tasks, repeated stream records)', async () => {
    const clusterId = 'a3c7e1d2-6b4f-4e8a-9d1c-2f5e7a9b0c3d';
    const subject = { orgId: 'org-a', clusterId };
    const cause = clusterWrite({ clusterId, version: 7 });
    const announce = (at: number) =>
      recordEvents(
        { store, clock: { now: () => new Date(Date.parse(now) + at) } },
        causedBy(cause, [
          { name: 'cluster_status_updated', subject, props: { cluster_status: 'installed', status_info: 'Cluster is installed' } },
          { name: 'cluster_installation_completed', subject },
        ]),
      );
    const first = await announce(1_000);
    const again = await announce(1_002);
    expect(again.map((event) => event.eventId)).toEqual(first.map((event) => event.eventId));
    // One at a time too (the single-event path's conditional put).
    const single = { name: 'cluster_dns_records_created', subject, cause, props: { zone: 'example.com', names: 'api.c.example.com' } };
    await recordEvent({ store, clock: { now: () => new Date(Date.parse(now) + 1_004) } }, single);
    await recordEvent({ store, clock: { now: () => new Date(Date.parse(now) + 1_006) } }, single);
    const listed = await store.events.list(subject, { limit: 100 });
    expect(listed.items.map((event) => event.name)).toEqual(['cluster_status_updated', 'cluster_installation_completed', 'cluster_dns_records_created']);
    // Another version of the record is another cause: its events are recorded.
    await recordEvents(
      { store, clock: { now: () => new Date(Date.parse(now) + 2_000) } },
      causedBy(clusterWrite({ clusterId, version: 8 }), [{ name: 'cluster_installation_completed', subject }]),
    );
    expect((await store.events.list(subject, { limit: 100 })).items).toHaveLength(4);
    // Without a cause every recording is an event of its own.
    await recordEvent({ store, clock: { now: () => new Date(Date.parse(now) + 3_000) } }, { name: 'cluster_installation_completed', subject });
    await recordEvent({ store, clock: { now: () => new Date(Date.parse(now) + 3_000) } }, { name: 'cluster_installation_completed', subject });
    expect((await store.events.list(subject, { limit: 100 })).items).toHaveLength(6);
  });

  it('writes a check-in to the small liveness item alone (one write unit, no stream record of the host), and every read shows the later word', async () => {
    const key = { orgId: 'org-l', infraEnvId: 'ie1', hostId: 'h1' };
    const inventory = JSON.stringify({
      hostname: 'x'.repeat(3_000),
      disks: Array.from({ length: 40 }, (_, i) => ({ name: `sd${i}`, size_bytes: i * 1e9, serial: crypto.randomUUID() })),
    });
    await store.hosts.create(host('org-l', 'ie1', 'h1', { clusterId: 'cl', monitorShard: 5, attributes: { checked_in_at: now, timestamp: 1_000, inventory } }));
    const { units, stop } = countUnits(client);
    try {
      const later = '2026-11-22T00:01:00.000Z';
      await store.hosts.checkIn(key, { checkedInAt: later, timestamp: 1_060 });
      expect(units).toEqual([{ command: 'UpdateItemCommand', units: 1 }]);
      // The host item itself is untouched: same version, its own older check-in.
      const stored = await client.send(new GetItemCommand({ TableName: tableName, Key: { pk: { S: keys.host(key).pk }, sk: { S: 'HOST' } } }));
      expect(stored.Item?.attributes?.M?.checked_in_at?.S).toBe(now);
      expect(stored.Item?.version?.N).toBe('1');

      const expected = { checked_in_at: later, timestamp: 1_060 };
      expect((await store.hosts.get(key))!.attributes).toMatchObject(expected);
      expect((await store.hosts.listByCluster({ orgId: 'org-l', clusterId: 'cl' }))[0]!.attributes).toMatchObject(expected);
      expect((await store.hosts.listByInfraEnv({ orgId: 'org-l', infraEnvId: 'ie1' }))[0]!.attributes).toMatchObject(expected);
      // A listing without liveness is one query: the host items as stored, their own older check-in.
      units.length = 0;
      const withoutLiveness = await store.hosts.listByCluster({ orgId: 'org-l', clusterId: 'cl' }, { liveness: false });
      expect(withoutLiveness[0]!.attributes).toMatchObject({ checked_in_at: now, timestamp: 1_000, inventory });
      expect(units.map((u) => u.command)).toEqual(['QueryCommand']);
      expect((await store.hosts.listActive(5)).items.find((h) => h.orgId === 'org-l')!.attributes).toEqual({ checked_in_at: later });

      // Liveness only moves forward: a check-in answered late by another instance changes nothing.
      await store.hosts.checkIn(key, { checkedInAt: '2026-11-22T00:00:30.000Z', timestamp: 1_030 });
      expect((await store.hosts.get(key))!.attributes).toMatchObject(expected);
      // A host write keeps the later word (it writes it into the host item), and a later host word wins over the item.
      const written = await store.hosts.mutate(key, (h) => ({ ...h, status: 'known' }));
      expect(written!.attributes).toMatchObject(expected);
      const rewritten = await store.hosts.mutate(key, (h) => ({
        ...h,
        attributes: { ...h.attributes, checked_in_at: '2026-11-22T00:02:00.000Z', timestamp: 1_120 },
      }));
      expect((await store.hosts.get(key))!.attributes).toMatchObject({ checked_in_at: '2026-11-22T00:02:00.000Z', timestamp: 1_120 });
      expect(rewritten!.version).toBe(3);

      // Removing the host removes its liveness: nothing of it is left in its partition.
      await store.hosts.remove(key, 3);
      expect(await store.hosts.get(key)).toBeUndefined();
      const left = await client.send(new GetItemCommand({ TableName: tableName, Key: { pk: { S: keys.host(key).pk }, sk: { S: 'LIVENESS' } } }));
      expect(left.Item).toBeUndefined();
    } finally {
      stop();
    }
  });

  it("records a host's news version on its liveness item (one write unit), only forward, only once it checked in; the monitor's page shows it", async () => {
    const key = { orgId: 'org-n', infraEnvId: 'ie1', hostId: 'h1' };
    await store.hosts.create(host('org-n', 'ie1', 'h1', { clusterId: 'cl', monitorShard: 6, attributes: { checked_in_at: now } }));
    const watched = async () => (await store.hosts.listActive(6)).items.find((h) => h.orgId === 'org-n')!;
    // Never checked in: nothing to record on, and nothing is created (no orphan item).
    await store.hosts.recordNews(key, 1);
    expect((await watched()).newsVersion).toBeUndefined();
    await store.hosts.checkIn(key, { checkedInAt: '2026-11-22T00:01:00.000Z' });
    const { units, stop } = countUnits(client);
    try {
      await store.hosts.recordNews(key, 3);
      expect(units).toEqual([{ command: 'UpdateItemCommand', units: 1 }]);
    } finally {
      stop();
    }
    // A record delivered late (an older version) changes nothing; a later check-in keeps it.
    await store.hosts.recordNews(key, 2);
    await store.hosts.checkIn(key, { checkedInAt: '2026-11-22T00:02:00.000Z' });
    expect(await watched()).toMatchObject({ newsVersion: 3, attributes: { checked_in_at: '2026-11-22T00:02:00.000Z' } });
    // Host reads do not carry it: it is the monitor's.
    expect(await store.hosts.get(key)).not.toHaveProperty('newsVersion');
  });

  it('claims a check handed out once by a conditional write on the liveness item: one of many racing polls takes it, an answer frees it', async () => {
    const key = { orgId: 'org-m', infraEnvId: 'ie1', hostId: 'h1' };
    await store.hosts.create(host('org-m', 'ie1', 'h1', { attributes: { checked_in_at: now } }));
    const at = new Date(Date.parse(now) + 60_000);
    const claim = longCheckClaim('connectivity-check', at);
    const taken = await Promise.all(Array.from({ length: 20 }, () => store.hosts.claimLongCheck(key, 'connectivity-check', claim)));
    expect(taken.filter(Boolean)).toHaveLength(1);
    const marked = (await store.hosts.get(key))!;
    expect(marked.attributes.long_checks_handed_at).toEqual({ 'connectivity-check': claim.at });
    expect(marked.version).toBe(1);
    expect((await store.hosts.listByInfraEnv({ orgId: 'org-m', infraEnvId: 'ie1' }))[0]!.attributes.long_checks_handed_at).toEqual({
      'connectivity-check': claim.at,
    });
    // Inside its window no poll takes it; once the window passed, one does.
    expect(
      await store.hosts.claimLongCheck(
        key,
        'connectivity-check',
        longCheckClaim('connectivity-check', new Date(at.getTime() + HANDED_ONCE_WINDOW_MS['connectivity-check']! - 1)),
      ),
    ).toBe(false);
    expect(
      await store.hosts.claimLongCheck(
        key,
        'connectivity-check',
        longCheckClaim('connectivity-check', new Date(at.getTime() + HANDED_ONCE_WINDOW_MS['connectivity-check']!)),
      ),
    ).toBe(true);
    // A host write carries the marks it read, but reads show the liveness item's: an answer frees the check.
    await store.hosts.mutate(key, (h) => ({ ...h, status: 'known' }));
    await store.hosts.answerLongCheck(key, 'connectivity-check');
    expect((await store.hosts.get(key))!.attributes).not.toHaveProperty('long_checks_handed_at');
    expect(await store.hosts.claimLongCheck(key, 'connectivity-check', claim)).toBe(true);
    // An answer for a host that has none, or no item at all, writes nothing.
    await store.hosts.answerLongCheck({ orgId: 'org-m', infraEnvId: 'ie1', hostId: 'gone' }, 'free-network-addresses');
    const none = await client.send(
      new GetItemCommand({
        TableName: tableName,
        Key: { pk: { S: keys.host({ orgId: 'org-m', infraEnvId: 'ie1', hostId: 'gone' }).pk }, sk: { S: 'LIVENESS' } },
      }),
    );
    expect(none.Item).toBeUndefined();
  });

  it('takes a check-in and a claim in one write unit when both hold, and each alone when either does not', async () => {
    const key = { orgId: 'org-k', infraEnvId: 'ie1', hostId: 'h1' };
    await store.hosts.create(host('org-k', 'ie1', 'h1', { attributes: { checked_in_at: now } }));
    const { units, stop } = countUnits(client);
    try {
      const at = (seconds: number) => new Date(Date.parse(now) + seconds * 1_000);
      expect(
        await store.hosts.checkInClaiming(
          key,
          { checkedInAt: at(60).toISOString(), timestamp: 1_060 },
          'connectivity-check',
          longCheckClaim('connectivity-check', at(60)),
        ),
      ).toBe(true);
      expect(units).toEqual([{ command: 'UpdateItemCommand', units: 1 }]);
      expect((await store.hosts.get(key))!.attributes).toMatchObject({
        checked_in_at: at(60).toISOString(),
        timestamp: 1_060,
        long_checks_handed_at: { 'connectivity-check': at(60).toISOString() },
      });
      // The mark is held: the check-in is written all the same, the claim is not taken.
      expect(
        await store.hosts.checkInClaiming(key, { checkedInAt: at(65).toISOString() }, 'connectivity-check', longCheckClaim('connectivity-check', at(65))),
      ).toBe(false);
      expect((await store.hosts.get(key))!.attributes).toMatchObject({
        checked_in_at: at(65).toISOString(),
        long_checks_handed_at: { 'connectivity-check': at(60).toISOString() },
      });
      // A later check-in is stored: the claim is taken all the same, liveness stays where it was.
      expect(
        await store.hosts.checkInClaiming(
          key,
          { checkedInAt: at(62).toISOString() },
          'free-network-addresses',
          longCheckClaim('free-network-addresses', at(62)),
        ),
      ).toBe(true);
      expect((await store.hosts.get(key))!.attributes).toMatchObject({
        checked_in_at: at(65).toISOString(),
        long_checks_handed_at: { 'connectivity-check': at(60).toISOString(), 'free-network-addresses': at(62).toISOString() },
      });
      expect((await client.send(new GetItemCommand({ TableName: tableName, Key: { pk: { S: keys.host(key).pk }, sk: { S: 'HOST' } } }))).Item?.version?.N).toBe(
        '1',
      );
    } finally {
      stop();
    }
  });

  it("records a connectivity answer on the liveness item with the check's mark taken away (one write unit), only forward, and every read shows the later answer", async () => {
    const key = { orgId: 'org-c', infraEnvId: 'ie1', hostId: 'h1' };
    const report = JSON.stringify({
      remote_hosts: Array.from({ length: 40 }, (_, i) => ({
        host_id: crypto.randomUUID(),
        l3_connectivity: [{ remote_ip_address: `10.0.0.${i}`, successful: true, average_rtt_ms: 0.4 }],
      })),
    });
    await store.hosts.create(
      host('org-c', 'ie1', 'h1', {
        clusterId: 'cl',
        monitorShard: 3,
        attributes: { checked_in_at: now, connectivity: report, connectivity_checked_at: now, connectivity_stored_at: now },
      }),
    );
    await store.hosts.claimLongCheck(key, 'connectivity-check', longCheckClaim('connectivity-check', new Date(Date.parse(now) + 30_000)));
    const { units, stop } = countUnits(client);
    try {
      const later = '2026-11-22T00:03:00.000Z';
      expect(await store.hosts.answerConnectivityCheck(key, later)).toBe(true);
      expect(units).toEqual([{ command: 'UpdateItemCommand', units: 1 }]);
      const stored = await client.send(new GetItemCommand({ TableName: tableName, Key: { pk: { S: keys.host(key).pk }, sk: { S: 'HOST' } } }));
      expect(stored.Item?.version?.N).toBe('1');

      const expected = { connectivity_checked_at: later, connectivity_stored_at: now, connectivity: report };
      const read = (await store.hosts.get(key))!;
      expect(read.attributes).toMatchObject(expected);
      expect(read.attributes).not.toHaveProperty('long_checks_handed_at');
      expect((await store.hosts.listByCluster({ orgId: 'org-c', clusterId: 'cl' }))[0]!.attributes).toMatchObject(expected);
      expect((await store.hosts.listByInfraEnv({ orgId: 'org-c', infraEnvId: 'ie1' }))[0]!.attributes).toMatchObject(expected);
      // The monitor's watched copy carries only the check-in.
      expect((await store.hosts.listActive(3)).items.find((h) => h.orgId === 'org-c')!.attributes).toEqual({ checked_in_at: now });

      // The same answer delivered twice, or an earlier one late: nothing written, the caller takes the mark.
      expect(await store.hosts.answerConnectivityCheck(key, later)).toBe(false);
      expect(await store.hosts.answerConnectivityCheck(key, '2026-11-22T00:02:00.000Z')).toBe(false);
      expect((await store.hosts.get(key))!.attributes.connectivity_checked_at).toBe(later);
      // A host write keeps the later answer, and a later one of the host's own wins over the item.
      const written = await store.hosts.mutate(key, (h) => ({ ...h, status: 'known' }));
      expect(written!.attributes.connectivity_checked_at).toBe(later);
      await store.hosts.mutate(key, (h) => ({ ...h, attributes: { ...h.attributes, connectivity_checked_at: '2026-11-22T00:05:00.000Z' } }));
      expect((await store.hosts.get(key))!.attributes.connectivity_checked_at).toBe('2026-11-22T00:05:00.000Z');
    } finally {
      stop();
    }
  });

  it('removes only at the expected version', async () => {
    const key = { orgId: 'org-b', clusterId: 'c1' };
    await expect(store.clusters.remove(key, 7)).rejects.toBeInstanceOf(ConcurrentModificationError);
    await store.clusters.remove(key, 1);
    expect(await store.clusters.get(key)).toBeUndefined();
  });

  it('keeps manifests and workflow records in the cluster partition', async () => {
    await store.manifests.create({ orgId: 'org-a', clusterId: 'c1', folder: 'openshift', fileName: 'a.yaml', source: 'user', objectKey: 'k', createdAt: now });
    await store.workflows.create({ orgId: 'org-a', clusterId: 'c1', workflow: 'install', executionArn: 'arn', status: 'RUNNING', startedAt: now });
    expect((await store.manifests.listByCluster({ orgId: 'org-a', clusterId: 'c1' })).map((m) => m.fileName)).toEqual(['a.yaml']);
    expect((await store.workflows.listByCluster({ orgId: 'org-a', clusterId: 'c1' })).map((w) => w.status)).toEqual(['RUNNING']);
  });
});
