import { describe, expect, it } from 'vitest';
import type { Host, ServiceEvent } from '../../lambdas/domain/core/entities.js';
import {
  buildEvent,
  EVENT_CATALOGUE,
  eventView,
  InvalidEventError,
  looksLikeSecret,
  type EventDefinition,
  type EventProps,
  type EventSubject,
  type PropertyType,
} from '../../lambdas/domain/events/events.js';
import catalogue from '../../lambdas/domain/events/catalogue.json' with { type: 'json' };
import serviceCatalogue from '../../lambdas/domain/events/service-catalogue.json' with { type: 'json' };
import type { EventFilter, PageRequest, Store } from '../../lambdas/ports/store.js';
import { listEvents, MAX_EVENTS_READ, type EventQuery } from '../../lambdas/usecases/events.js';

const CLUSTER = '0f9a1c52-1111-4e7a-9d3c-5b8e2f6a7c01';
const HOST = '0f9a1c52-3333-4e7a-9d3c-5b8e2f6a7c01';
const INFRA_ENV = '0f9a1c52-4444-4e7a-9d3c-5b8e2f6a7c01';
const AT = new Date('2024-08-15T12:55:31.616Z');
/** Complete props of cluster_status_updated, so each refusal below has exactly one cause. */
const READY = { cluster_status: 'ready', status_info: '' };

const SAMPLE: Record<Exclude<PropertyType, 'uuid' | 'optional-uuid'>, (name: string) => string | number | boolean> = {
  string: (name) => `<${name}>`,
  integer: () => 42,
  boolean: () => true,
};

/** Sample props and the subject an entry needs: every declared property, ids through the subject. */
function sampleFor(definition: EventDefinition): { props: EventProps; subject: EventSubject } {
  const props: Record<string, string | number | boolean> = {};
  const subject: EventSubject = { orgId: 'default' };
  for (const [name, type] of Object.entries(definition.properties)) {
    if (name === 'cluster_id') subject.clusterId = CLUSTER;
    else if (name === 'host_id') subject.hostId = HOST;
    else if (name === 'infra_env_id') subject.infraEnvId = INFRA_ENV;
    else if (name === 'severity') props[name] = 'warning';
    else if (type !== 'uuid' && type !== 'optional-uuid') props[name] = SAMPLE[type](name);
  }
  return { props, subject };
}

describe('the event catalogue', () => {
  it('holds every upstream event with its attribution, and our own after them', () => {
    expect(catalogue.events).toHaveLength(80);
    expect(EVENT_CATALOGUE.size).toBe(80 + serviceCatalogue.events.length);
    for (const entry of catalogue.events) expect(EVENT_CATALOGUE.get(entry.name)?.message).toBe(entry.message);
    expect(catalogue.source.repository).toBe('https://github.com/openshift/assisted-service');
    expect(catalogue.source.license).toMatch(/^Apache-2\.0/);
  });

  it('gives each event type the ids upstream requires', () => {
    for (const definition of EVENT_CATALOGUE.values()) {
      const { properties } = definition;
      if (definition.eventType === 'cluster') expect(properties.cluster_id, definition.name).toBe('uuid');
      if (definition.eventType === 'host') expect([properties.host_id, properties.infra_env_id], definition.name).toEqual(['uuid', 'uuid']);
      if (definition.eventType === 'infra-env') expect(properties.infra_env_id, definition.name).toBe('uuid');
    }
  });
});

describe('buildEvent', () => {
  it.each([...EVENT_CATALOGUE.values()].map((definition) => [definition.name, definition] as const))(
    '%s renders with sample props and takes its severity from the catalogue',
    (name, definition) => {
      const { props, subject } = sampleFor(definition);
      const event = buildEvent(name, props, subject, AT, 'event-1');
      expect(event.severity).toBe(definition.properties.severity ? props.severity : definition.severity);
      expect(event).toMatchObject({
        orgId: 'default',
        eventId: 'event-1',
        name,
        category: definition.eventType === 'organisation' ? 'audit' : 'user',
        eventTime: AT.toISOString(),
      });
      expect(event.message).not.toMatch(/\{[a-z_]+\}/);
      for (const [property, value] of Object.entries(props)) {
        if (definition.message.includes(`{${property}}`)) expect(event.message).toContain(String(value));
      }
      expect(event.props).toBeUndefined();
    },
  );

  it('renders a host event with its ids and keeps only the ids the event declares', () => {
    const event = buildEvent(
      'host_status_updated',
      { host_name: 'master-0', src_status: 'discovering', new_status: 'known', info: '(Host is ready)', severity: 'info' },
      { orgId: 'default', hostId: HOST, infraEnvId: INFRA_ENV },
      AT,
      'e',
    );
    expect(event.message).toBe('Host master-0: updated status from discovering to known (Host is ready)');
    expect(event).toMatchObject({ hostId: HOST, infraEnvId: INFRA_ENV, severity: 'info' });
    expect(event.clusterId).toBeUndefined();
  });

  it('renders a referenced id and does not re-expand substituted text', () => {
    const event = buildEvent('cluster_status_updated', { cluster_status: '{cluster_id}', status_info: '' }, { orgId: 'o', clusterId: CLUSTER }, AT, 'e');
    expect(event.message).toBe('Updated status of the cluster to {cluster_id}');
    const validations = buildEvent('validations_ignored', {}, { orgId: 'o', clusterId: CLUSTER }, AT, 'e');
    expect(validations.message).toContain(`Cluster ${CLUSTER}:`);
  });

  it('takes severity from the catalogue, or from the severity property of the event that declares one', () => {
    const host = { orgId: 'o', hostId: HOST, infraEnvId: INFRA_ENV };
    const props = { host_name: 'h', src_status: 'known', new_status: 'disconnected', info: '' };
    expect(buildEvent('host_status_updated', { ...props, severity: 'warning' }, host, AT, 'e').severity).toBe('warning');
    expect(() => buildEvent('host_status_updated', { ...props, severity: 'loud' }, host, AT, 'e')).toThrow(InvalidEventError);
    expect(() => buildEvent('host_status_updated', props, host, AT, 'e')).toThrow(/needs property severity/);
    const failed = buildEvent('cluster_installation_failed', { failure_reason: 'boom' }, { orgId: 'o', clusterId: CLUSTER }, AT, 'e');
    expect(failed.severity).toBe('critical');
    expect(failed.message).toBe('Failed installing cluster. Reason: boom');
  });

  it('refuses unknown events, missing or unknown props, wrong types and misplaced ids', () => {
    const cluster = { orgId: 'o', clusterId: CLUSTER };
    const host = { orgId: 'o', hostId: HOST, infraEnvId: INFRA_ENV };
    const attempts: [() => unknown, RegExp][] = [
      [() => buildEvent('no_such_event', {}, cluster, AT, 'e'), /Unknown event/],
      [() => buildEvent('cluster_status_updated', {}, cluster, AT, 'e'), /needs property cluster_status/],
      [() => buildEvent('cluster_status_updated', { ...READY, extra: 'x' }, cluster, AT, 'e'), /has no property extra/],
      [() => buildEvent('cluster_status_updated', { ...READY, cluster_status: 7 }, cluster, AT, 'e'), /cluster_status must be of type string/],
      [() => buildEvent('cluster_status_updated', { ...READY, cluster_id: CLUSTER }, cluster, AT, 'e'), /as the subject's clusterId/],
      [() => buildEvent('cluster_status_updated', READY, { orgId: 'o' }, AT, 'e'), /needs property cluster_id/],
      [() => buildEvent('cluster_status_updated', READY, { orgId: 'o', clusterId: 'not-a-uuid' }, AT, 'e'), /cluster_id must be of type uuid/],
      [() => buildEvent('cluster_status_updated', READY, { ...cluster, hostId: HOST }, AT, 'e'), /does not carry host_id/],
      [() => buildEvent('cluster_status_updated', READY, { orgId: '', clusterId: CLUSTER }, AT, 'e'), /no organisation/],
      [() => buildEvent('reboots_for_node', { node_name: 'n', reboots: 1.5 }, host, AT, 'e'), /reboots must be of type integer/],
      // host_logs_uploaded mentions {cluster_id}, so its otherwise optional cluster becomes required.
      [() => buildEvent('host_logs_uploaded', { host_name: 'h' }, host, AT, 'e'), /needs property cluster_id/],
    ];
    for (const [attempt, reason] of attempts) {
      expect(attempt).toThrow(InvalidEventError);
      expect(attempt).toThrow(reason);
    }
  });

  it('allows the optional cluster of a host event when the message does not need it', () => {
    const host = { orgId: 'o', hostId: HOST, infraEnvId: INFRA_ENV };
    expect(buildEvent('host_media_disconnected', {}, host, AT, 'e').clusterId).toBeUndefined();
    expect(buildEvent('host_media_disconnected', {}, { ...host, clusterId: CLUSTER }, AT, 'e').clusterId).toBe(CLUSTER);
  });

  it.each(['pull_secret', 'password', 'kubeadmin_password', 'token', 'api_token', 'kubeadmin', 'ssh_private_key', 'kubeconfig', 'credentials'])(
    'refuses the secret-looking property %s before anything else',
    (property) => {
      expect(looksLikeSecret(property)).toBe(true);
      const attempt = () => buildEvent('cluster_status_updated', { ...READY, [property]: 'hunter2' }, { orgId: 'o', clusterId: CLUSTER }, AT, 'e');
      expect(attempt).toThrow(/looks like a secret/);
    },
  );

  it('finds no secret-looking property in the catalogue', () => {
    for (const definition of EVENT_CATALOGUE.values()) {
      for (const property of Object.keys(definition.properties)) expect(looksLikeSecret(property), `${definition.name}.${property}`).toBe(false);
    }
  });
});

describe('eventView', () => {
  it('shows the upstream event shape, omitting absent ids and props', () => {
    const event = buildEvent('cluster_status_updated', { cluster_status: 'ready', status_info: 'ok' }, { orgId: 'o', clusterId: CLUSTER }, AT, 'e');
    expect(eventView(event)).toEqual({
      name: 'cluster_status_updated',
      cluster_id: CLUSTER,
      severity: 'info',
      category: 'user',
      message: 'Updated status of the cluster to ready',
      event_time: '2024-08-15T12:55:31.616Z',
    });
  });

  it('serialises props as a JSON string and drops secret-looking ones that reached the store some other way', () => {
    const event: ServiceEvent = {
      orgId: 'o',
      eventId: 'e',
      name: 'x',
      severity: 'warning',
      category: 'metrics',
      message: 'm',
      eventTime: AT.toISOString(),
      hostId: HOST,
      infraEnvId: INFRA_ENV,
      props: { stage: 'Rebooting', pull_secret: 'hunter2' },
    };
    const view = eventView(event);
    expect(view).toMatchObject({ host_id: HOST, infra_env_id: INFRA_ENV, category: 'metrics' });
    expect(JSON.parse(view.props!)).toEqual({ stage: 'Rebooting' });
    expect(JSON.stringify(view)).not.toContain('hunter2');
  });
});

/** Just enough Store for listEvents: time-ordered per-scope listings with cursor paging, and host look-ups. */
function fakeStore(events: ServiceEvent[], hosts: Pick<Host, 'orgId' | 'infraEnvId' | 'hostId'>[]): Store {
  const list = async (filter: EventFilter, page: PageRequest = {}) => {
    const matches = events
      .filter((e) => e.orgId === filter.orgId)
      .filter((e) => (filter.hostId ? e.hostId === filter.hostId : filter.clusterId ? e.clusterId === filter.clusterId : e.infraEnvId === filter.infraEnvId))
      .sort((a, b) => (a.eventTime < b.eventTime ? -1 : a.eventTime > b.eventTime ? 1 : a.eventId < b.eventId ? -1 : 1));
    if (page.newestFirst) matches.reverse();
    const start = page.cursor ? Number(page.cursor) : 0;
    const end = start + (page.limit ?? matches.length);
    return { items: matches.slice(start, end), next: end < matches.length ? String(end) : undefined };
  };
  const get = async (key: { orgId: string; infraEnvId: string; hostId: string }) =>
    hosts.find((h) => h.orgId === key.orgId && h.infraEnvId === key.infraEnvId && h.hostId === key.hostId) as Host | undefined;
  // No cluster or infra-env records: scopes are known here only through their events.
  const none = async () => undefined;
  return { events: { list, append: async () => {} }, hosts: { get }, clusters: { get: none }, infraEnvs: { get: none } } as unknown as Store;
}

describe('listEvents (upstream filtering and counting, on a fake store)', () => {
  const HOST2 = '0f9a1c52-5555-4e7a-9d3c-5b8e2f6a7c01';
  const GONE1 = '1e45d128-4a69-4e71-9b50-b7e289a09d9a';
  const GONE2 = '2a635bca-29ac-44bc-92ad-ac38475abc12';
  const OTHER_CLUSTER = '0f9a1c52-6666-4e7a-9d3c-5b8e2f6a7c01';
  let n = 0;
  const ev = (severity: ServiceEvent['severity'], message: string, time: string, ids: Partial<ServiceEvent> = {}): ServiceEvent => ({
    orgId: 'default',
    eventId: `e${String(++n).padStart(2, '0')}`,
    name: 'n',
    severity,
    category: 'user',
    message,
    eventTime: time,
    clusterId: CLUSTER,
    ...ids,
  });
  const onHost = (hostId: string) => ({ hostId, infraEnvId: INFRA_ENV });
  // The data set of upstream's "Filtering" tests in internal/events/event_test.go, restated.
  const events = [
    ev('info', 'Installation completed', '2023-02-21T20:00:00.000Z', onHost(HOST)),
    ev('warning', 'Installation failed', '2023-02-22T06:00:00.000Z', onHost(HOST)),
    ev('error', 'Installation canceled', '2023-02-22T16:00:00.000Z', onHost(HOST2)),
    ev('critical', 'Upgrade failed', '2023-02-23T02:00:00.000Z', onHost(HOST2)),
    ev('info', 'Cluster installation prepare', '2023-02-22T00:00:00.000Z'),
    ev('warning', 'Cluster installation completed', '2023-02-22T10:00:00.000Z'),
    ev('error', 'Cluster installation not completed', '2023-02-22T10:00:00.000Z'),
    ev('info', 'Host cancel installation failed', '2023-02-22T06:00:00.000Z', onHost(GONE1)),
    ev('warning', 'Host disconnected', '2023-02-22T06:00:00.000Z', onHost(GONE2)),
    ev('critical', 'Cluster is not ready for installation', '2023-02-22T20:00:00.000Z', { clusterId: OTHER_CLUSTER }),
    ev('info', 'metrics only', '2023-02-22T21:00:00.000Z', { category: 'metrics' }),
  ];
  const store = fakeStore(
    events,
    [HOST, HOST2].map((hostId) => ({ orgId: 'default', infraEnvId: INFRA_ENV, hostId })),
  );
  const principal = { kind: 'user' as const, orgId: 'default', tokenId: 't', role: 'admin' as const };
  const list = (query: EventQuery) => listEvents({ store }, principal, query);
  const counts = (info: number, warning: number, error: number, critical: number) => ({ info, warning, error, critical });

  it.each<[string, EventQuery, number, ReturnType<typeof counts>, number]>([
    ['severities do not narrow the counts', { clusterId: CLUSTER, severities: ['warning'], limit: 2 }, 3, counts(3, 3, 2, 1), 2],
    [
      'message narrows the counts, severities do not',
      { clusterId: CLUSTER, severities: ['info'], message: 'installation', limit: 1 },
      3,
      counts(3, 2, 2, 0),
      1,
    ],
    ['substring message, case-insensitive', { clusterId: CLUSTER, message: 'FAILED' }, 3, counts(1, 1, 0, 1), 3],
    ['cluster-level events', { clusterId: CLUSTER, clusterLevel: true }, 3, counts(1, 1, 1, 0), 3],
    ['events of deleted hosts', { clusterId: CLUSTER, deletedHosts: true }, 2, counts(1, 1, 0, 0), 2],
    ['one host of the cluster', { clusterId: CLUSTER, hostIds: [HOST] }, 2, counts(1, 1, 0, 0), 2],
    ['cluster level or deleted hosts', { clusterId: CLUSTER, clusterLevel: true, deletedHosts: true }, 5, counts(2, 2, 1, 0), 5],
    ['cluster level or one host, host_id merged', { clusterId: CLUSTER, hostId: HOST, clusterLevel: true }, 5, counts(2, 2, 1, 0), 5],
    ['metrics category on request', { clusterId: CLUSTER, categories: ['metrics'] }, 1, counts(1, 0, 0, 0), 1],
  ])('%s', async (_name, query, eventCount, severityCounts, returned) => {
    const result = await list(query);
    expect(result.eventCount).toBe(eventCount);
    expect(result.severityCounts).toEqual(severityCounts);
    expect(result.events).toHaveLength(returned);
  });

  it('lists the union of several hosts in time order, without counts outside a cluster scope', async () => {
    const result = await list({ hostIds: [HOST2, HOST] });
    expect(result.events.map((e) => e.message)).toEqual(['Installation completed', 'Installation failed', 'Installation canceled', 'Upgrade failed']);
    expect(result.severityCounts).toEqual(counts(0, 0, 0, 0));
    expect(result.eventCount).toBe(4);
  });

  it('orders, pages and treats negative limit/offset as upstream does', async () => {
    const all = (await list({ clusterId: CLUSTER, order: 'descending' })).events.map((e) => e.event_time);
    expect(all).toEqual([...all].sort().reverse());
    expect((await list({ clusterId: CLUSTER, limit: 2, offset: 1 })).events).toHaveLength(2);
    expect((await list({ clusterId: CLUSTER, limit: -10 })).events).toHaveLength(9);
    expect((await list({ clusterId: CLUSTER, limit: 2, offset: -2 })).events.map((e) => e.message)).toEqual([
      'Installation completed',
      'Cluster installation prepare',
    ]);
    const none = await list({ clusterId: CLUSTER, limit: 0 });
    expect(none.events).toEqual([]);
    expect(none.eventCount).toBe(9);
  });

  it("answers an empty list without a scope, 404 for another organisation's cluster, and 400s bad paging", async () => {
    expect((await list({})).events).toEqual([]);
    await expect(listEvents({ store }, { ...principal, orgId: 'other' }, { clusterId: CLUSTER })).rejects.toMatchObject({ kind: 'not-found' });
    await expect(list({ clusterId: CLUSTER, limit: 1.5 })).rejects.toMatchObject({ kind: 'bad-request' });
    await expect(list({ clusterId: CLUSTER, offset: Number.NaN })).rejects.toMatchObject({ kind: 'bad-request' });
    await expect(list({ clusterId: CLUSTER, severities: ['loud'] })).rejects.toMatchObject({ kind: 'bad-request' });
  });

  it('reads every store page, up to the bound, from the end shown first', async () => {
    const many = Array.from({ length: MAX_EVENTS_READ + 50 }, (_, i) =>
      ev('info', `event ${i}`, new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString(), { clusterId: OTHER_CLUSTER }),
    );
    const big = fakeStore(many, []);
    const oldest = await listEvents({ store: big }, principal, { clusterId: OTHER_CLUSTER, limit: -1 });
    expect(oldest.eventCount).toBe(MAX_EVENTS_READ);
    expect(oldest.events[0]!.message).toBe('event 0');
    const newest = await listEvents({ store: big }, principal, { clusterId: OTHER_CLUSTER, order: 'descending', limit: 1 });
    expect(newest.events[0]!.message).toBe(`event ${MAX_EVENTS_READ + 49}`);
  });
});
