/**
 * POST /v2/clusters/import and POST /v2/events through the local HTTP server, with the answers
 * upstream's own service gave to the same requests:
 * - an import makes a day-2 cluster (AddHostsCluster, adding-hosts) holding what the import says,
 *   the name and base domain read from an `api.<name>.<domain>` host name; its 400s; its access
 *   rules (read-only 403, agents 401, another organisation 404);
 * - a worker joins the imported cluster as it joins any cluster adding hosts: an infra-env bound to
 *   it, registration as AddToExistingClusterHost, install on its own, added to the existing cluster;
 * - an agent's own events: stored with the service's time, listed with their name and props,
 *   metrics only when asked for; every 4xx, and ids out of the agent's reach are 404.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { container } from '../../lambdas/platform/container.js';
import { issueAgentToken } from '../../lambdas/usecases/agent-tokens.js';
import { createApiToken } from '../../lambdas/usecases/api-tokens.js';
import { ensureOrganisation } from '../../lambdas/usecases/organisations.js';
import { apiClient, eventually, infraEnvWithAgent, defaultVersion, inventoryFixture, type ApiClient, type Json } from '../support/cluster-lab.js';
import { PULL_SECRET, AGENT_VERSION_HEADER } from '../support/fixtures.js';
import { expectMatchesSchema } from '../support/response-schema.js';
import { testRuntime } from '../support/runtime.js';
import { osImageVersionFor } from '../../lambdas/domain/catalogues/catalogues.js';
import { upstreamError } from '../support/upstream-errors.js';

const OPENSHIFT_CLUSTER_ID = '3b1a0a1e-0bd6-4b7c-9c4b-4f7c1bd6a001';
const importBody = (overrides: Json = {}) => ({
  name: 'ignored',
  api_vip_dnsname: 'api.imp1.example.com',
  openshift_cluster_id: OPENSHIFT_CLUSTER_ID,
  ...overrides,
});

describe('imported clusters and agent events', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  let api: ApiClient;
  let readOnly: Record<string, string>;
  let otherOrg: Record<string, string>;

  beforeAll(async () => {
    env = await testRuntime();
    api = apiClient(env.runtime.url, env.adminToken);
    const ports = container();
    readOnly = { Authorization: `Bearer ${(await createApiToken(ports, { orgId: 'default', name: 'reader', role: 'read-only' })).token}` };
    await ensureOrganisation(ports, 'org-import-b', 'Organisation B');
    otherOrg = { Authorization: `Bearer ${(await createApiToken(ports, { orgId: 'org-import-b', name: 'b', role: 'admin' })).token}` };
  }, 180_000);
  afterAll(async () => env?.close());

  const importCluster = (body: unknown, headers?: Record<string, string>) => api.call('POST', '/clusters/import', body, headers ?? api.user());

  describe('POST /v2/clusters/import', () => {
    it('makes a day-2 cluster of what the import says, named after the API host name', async () => {
      const created = await importCluster(importBody());
      expect(created.status, created.text).toBe(201);
      expectMatchesSchema('v2ImportCluster', 201, created.body);
      const cluster = created.body as Json;
      // Upstream's answer, field by field (its zero times and null lists aside).
      expect(cluster).toMatchObject({
        kind: 'AddHostsCluster',
        status: 'adding-hosts',
        status_info: 'cluster is adding hosts to existing OCP cluster',
        imported: true,
        name: 'imp1',
        base_dns_domain: 'example.com',
        api_vip_dns_name: 'api.imp1.example.com',
        openshift_cluster_id: OPENSHIFT_CLUSTER_ID,
        platform: { type: 'baremetal' },
        load_balancer: { type: 'cluster-managed' },
        hosts: [],
        host_networks: [],
        href: `/api/assisted-install/v2/clusters/${cluster.id}`,
        image_info: { created_at: cluster.created_at },
      });
      // Go's omitempty: no pull secret, no pull_secret_set.
      expect(cluster).not.toHaveProperty('pull_secret_set');
      // No release, pull secret or networking of its own: the existing cluster has them.
      // Upstream's answer, built in memory, has its lists nil (null); read back, they are empty lists.
      for (const absent of [
        'api_vips',
        'ingress_vips',
        'cluster_networks',
        'service_networks',
        'machine_networks',
        'monitored_operators',
        'openshift_version',
        'ocp_release_image',
        'cpu_architecture',
        'control_plane_count',
        'network_type',
        'validations_info',
        'pull_secret_set',
        'feature_usage',
        'disk_encryption',
      ]) {
        expect(cluster, absent).not.toHaveProperty(absent);
      }
      const read = await api.call('GET', `/clusters/${cluster.id}`, undefined, api.user());
      expect(read.status).toBe(200);
      // Read back as upstream's stored record: empty lists and settings, Go's zero image time.
      expect(read.body).toMatchObject({
        id: cluster.id,
        api_vips: [],
        monitored_operators: [],
        disk_encryption: {},
        platform: { type: 'baremetal', external: {} },
        image_info: { created_at: '0001-01-01T00:00:00Z' },
      });
      const events = (await api.call('GET', `/events?cluster_id=${cluster.id}`, undefined, api.user())).body as Json[];
      expect(events.map((e) => [e.name, e.message])).toEqual([['cluster_registration_succeeded', 'Successfully registered cluster']]);
      // The same OpenShift cluster may be imported again, as upstream allows.
      expect((await importCluster(importBody())).status).toBe(201);
    });

    it("keeps the name sent when the host name is not the API's, and openshift_version as sent", async () => {
      for (const hostname of ['1.2.3.4', 'api-int.imp2.example.com', 'api.two-labels', '2001:db8::1', '']) {
        const created = await importCluster(importBody({ name: 'kept', api_vip_dnsname: hostname, openshift_version: '4.18' }));
        expect(created.status, `${hostname}: ${created.text}`).toBe(201);
        expect(created.body).toMatchObject({ name: 'kept', api_vip_dns_name: hostname });
        expect(created.body, hostname).not.toHaveProperty('base_dns_domain');
        expect(created.body.openshift_version, hostname).toBe('4.18');
      }
      // Upstream's baremetal name rule admits an empty name and a leading digit.
      expect((await importCluster(importBody({ name: '1abc', api_vip_dnsname: 'x' }))).body).toMatchObject({ name: '1abc' });
      // An empty name is left out, as upstream's omitempty does.
      const unnamed = await importCluster(importBody({ name: '', api_vip_dnsname: 'x' }));
      expect(unnamed.status).toBe(201);
      expect(unnamed.body).not.toHaveProperty('name');
    });

    it('answers 400 for what upstream refuses', async () => {
      const refused: [string, unknown][] = [
        ['no name', { api_vip_dnsname: 'api.a.example.com', openshift_cluster_id: OPENSHIFT_CLUSTER_ID }],
        ['no api_vip_dnsname', { name: 'a', openshift_cluster_id: OPENSHIFT_CLUSTER_ID }],
        ['no openshift_cluster_id', { name: 'a', api_vip_dnsname: 'api.a.example.com' }],
        ['an openshift_cluster_id that is no UUID', importBody({ openshift_cluster_id: 'not-a-uuid' })],
        ['a name that is no string', importBody({ name: 5 })],
        ['a name of the wrong form', importBody({ name: 'Bad_Name', api_vip_dnsname: 'foo.example.com' })],
        ['a dotted name', importBody({ name: 'a.b', api_vip_dnsname: 'x' })],
        ['a name of the wrong form in the API host name', importBody({ api_vip_dnsname: 'api.Bad_Name.example.com' })],
        ['a name longer than a DNS name', importBody({ name: 'a'.repeat(254), api_vip_dnsname: 'x' })],
      ];
      for (const [what, body] of refused) {
        const answer = await importCluster(body);
        expect(answer.status, `${what}: ${answer.text}`).toBe(400);
        expect(upstreamError(answer.body), what).toMatchObject({ code: '400' });
      }
      const badName = await importCluster(importBody({ api_vip_dnsname: 'api.Bad_Name.example.com' }));
      expect(badName.body.reason).toBe(
        "Cluster name format is not valid: 'Bad_Name'. Name must start and end with either a letter or number and consist of lower-case letters, numbers, and hyphens. Subdomains in cluster names are only valid with none platform.",
      );
    });

    it('is a write: read-only tokens 403, agents 401; another organisation does not see the cluster', async () => {
      expect((await importCluster(importBody(), readOnly)).status).toBe(403);
      const { agent } = await infraEnvWithAgent(api, await defaultVersion(api), null);
      expect((await importCluster(importBody(), agent)).status).toBe(401);
      const created = await importCluster(importBody());
      expect((await api.call('GET', `/clusters/${created.body.id}`, undefined, otherOrg)).status).toBe(404);
      expect((await api.call('POST', '/infra-envs', { name: 'b', pull_secret: PULL_SECRET, cluster_id: created.body.id }, otherOrg)).status).toBe(404);
      // Another organisation's import is its own cluster.
      const theirs = await importCluster(importBody(), otherOrg);
      expect(theirs.status).toBe(201);
      expect(theirs.body.org_id).toBe('org-import-b');
      expect((await api.call('GET', `/clusters/${theirs.body.id}`, undefined, api.user())).status).toBe(404);
    });
  });

  describe('adding a worker to an imported cluster', () => {
    it('registers, installs and adds the host through the day-2 flow', async () => {
      const cluster = (await importCluster(importBody({ api_vip_dnsname: 'api.day2.example.com' }))).body as Json;
      const infraEnv = await api.call('POST', '/infra-envs', { name: 'day2', pull_secret: PULL_SECRET, cluster_id: cluster.id }, api.user());
      expect(infraEnv.status, infraEnv.text).toBe(201);
      // An infra-env's version is its RHCOS image's minor, the latest when none is asked for (upstream's rule).
      expect(infraEnv.body.openshift_version).toBe(osImageVersionFor(undefined, 'x86_64'));
      const infraEnvId = infraEnv.body.id as string;
      const agent = { ...AGENT_VERSION_HEADER, 'X-Secret-Key': await issueAgentToken(container().config.agentSigningKeyPem, { orgId: 'default', infraEnvId }) };

      const hostId = randomUUID();
      const register = await api.call('POST', `/infra-envs/${infraEnvId}/hosts`, { host_id: hostId }, agent);
      expect(register.status, register.text).toBe(201);
      // A worker from its registration, as upstream's service registers it.
      expect(register.body).toMatchObject({ kind: 'AddToExistingClusterHost', cluster_id: cluster.id, role: 'worker', suggested_role: 'worker' });
      const reply = (type: string, output: unknown) =>
        api.call(
          'POST',
          `/infra-envs/${infraEnvId}/hosts/${hostId}/instructions`,
          { step_type: type, step_id: `${type}-1`, output: JSON.stringify(output) },
          agent,
        );
      expect((await reply('inventory', inventoryFixture('worker-0'))).status).toBe(204);
      const steps = (
        await api.call('GET', `/infra-envs/${infraEnvId}/hosts/${hostId}/instructions?timestamp=${Math.floor(Date.now() / 1000)}`, undefined, agent)
      ).body as Json;
      const connectivity = (steps.instructions as Json[]).find((s) => s.step_type === 'api-vip-connectivity-check');
      expect(connectivity, JSON.stringify(steps)).toBeDefined();
      // The worker's ignition comes from the existing cluster's API, as upstream asks for it.
      expect(JSON.parse(connectivity!.args[0]).url).toBe('http://api.day2.example.com:22624/config/worker');
      await reply('api-vip-connectivity-check', {
        is_success: true,
        url: 'http://api.day2.example.com:22624/config/worker',
        ignition: '{"ignition":{"version":"3.2.0"}}',
      });
      await reply('ntp-synchronizer', { ntp_sources: [{ source_name: 'clock.example.com', source_state: 'synced' }] });
      await reply('domain-resolution', {
        resolutions: [
          { domain_name: 'quay.io', ipv4_addresses: ['203.0.113.10'], ipv6_addresses: [], cnames: [] },
          { domain_name: 'api.day2.example.com', ipv4_addresses: ['192.168.111.5'], ipv6_addresses: [], cnames: [] },
          { domain_name: 'api-int.day2.example.com', ipv4_addresses: ['192.168.111.5'], ipv6_addresses: [], cnames: [] },
          { domain_name: 'console-openshift-console.apps.day2.example.com', ipv4_addresses: ['192.168.111.4'], ipv6_addresses: [], cnames: [] },
          { domain_name: 'validateNoWildcardDNS.day2.example.com', ipv4_addresses: [], ipv6_addresses: [], cnames: [] },
          { domain_name: 'validateNoWildcardDNS.day2.example.com.', ipv4_addresses: [], ipv6_addresses: [], cnames: [] },
        ],
      });
      const host = async () => (await api.call('GET', `/infra-envs/${infraEnvId}/hosts/${hostId}`, undefined, api.user())).body as Json;
      const known = await eventually(host, (h) => h.status === 'known', 5_000);
      const info = JSON.parse(known.validations_info ?? '{}') as Record<string, { id: string; status: string; message: string }[]>;
      expect(
        known.status,
        Object.values(info)
          .flat()
          .filter((v) => v.status !== 'success')
          .map((v) => `${v.id}: ${v.message}`)
          .join('; '),
      ).toBe('known');

      const install = await api.call('POST', `/infra-envs/${infraEnvId}/hosts/${hostId}/actions/install`, undefined, api.user());
      expect(install.status, install.text).toBe(202);
      expect(install.body.status).toBe('installing');
      const installSteps = (await api.call('GET', `/infra-envs/${infraEnvId}/hosts/${hostId}/instructions`, undefined, agent)).body as Json;
      const installStep = (installSteps.instructions as Json[]).find((s) => s.step_type === 'install');
      expect(installStep, JSON.stringify(installSteps)).toBeDefined();
      expect(JSON.parse(installStep!.args[0]).role).toBe('worker');
      for (const stage of ['Starting installation', 'Installing', 'Writing image to disk', 'Rebooting', 'Done']) {
        const put = await api.call('PUT', `/infra-envs/${infraEnvId}/hosts/${hostId}/progress`, { current_stage: stage }, agent);
        expect(put.status, `${stage}: ${put.text}`).toBe(200);
      }
      expect((await host()).status).toBe('added-to-existing-cluster');
      // The cluster stays open for more hosts.
      expect((await api.call('GET', `/clusters/${cluster.id}`, undefined, api.user())).body.status).toBe('adding-hosts');
    }, 60_000);
  });

  describe('POST /v2/events', () => {
    let clusterId: string;
    let infraEnvId: string;
    let agent: Record<string, string>;
    let hostId: string;
    const now = () => new Date().toISOString();
    const trigger = (body: unknown, headers = agent) => api.call('POST', '/events', body, headers);
    const listed = async (query: string) => (await api.call('GET', `/events?${query}`, undefined, api.user())).body as Json[];

    beforeAll(async () => {
      const lab = await infraEnvWithAgent(api, await defaultVersion(api), {});
      clusterId = lab.clusterId!;
      infraEnvId = lab.infraEnvId;
      agent = lab.agent;
      hostId = randomUUID();
      expect((await api.call('POST', `/infra-envs/${infraEnvId}/hosts`, { host_id: hostId }, agent)).status).toBe(201);
    });

    it("stores the agent's event with the service's time, and lists it with its name and props", async () => {
      const before = Date.now();
      const sent = await trigger({
        severity: 'warning',
        message: 'controller says hello',
        event_time: '2020-01-01T00:00:00Z',
        cluster_id: clusterId,
        name: 'my_event',
        props: '{"z":1,"a":{"y":2,"b":3}}',
      });
      expect(sent.status, sent.text).toBe(201);
      expect(sent.text).toBe('');
      const event = (await listed(`cluster_id=${clusterId}`)).find((e) => e.message === 'controller says hello');
      expect(event).toEqual({
        name: 'my_event',
        cluster_id: clusterId,
        severity: 'warning',
        category: 'user',
        message: 'controller says hello',
        event_time: expect.any(String),
        props: '{"a":{"b":3,"y":2},"z":1}',
      });
      expect(Date.parse(event!.event_time)).toBeGreaterThanOrEqual(before - 1_000);
    });

    it('reads props as upstream does and drops what it cannot read', async () => {
      const cases: [string, string | undefined][] = [
        ['["a","b"]', '{"a":"b"}'],
        ['["a",1,"c",true]', '{"a":1,"c":true}'],
        ['[{"k":"v"}]', '{"k":"v"}'],
        ['["a","b","c"]', undefined],
        ['[1,2]', undefined],
        ['"text"', undefined],
        ['{}', undefined],
        ['not json', undefined],
        ['{"password":"x","kept":1}', '{"kept":1}'],
      ];
      for (const [props, expected] of cases) {
        const message = `props ${props}`;
        expect((await trigger({ severity: 'info', message, event_time: now(), cluster_id: clusterId, props })).status, props).toBe(201);
        const event = (await listed(`cluster_id=${clusterId}`)).find((e) => e.message === message);
        expect(event?.props, props).toBe(expected);
        // Sent without a name, listed without one, as upstream's.
        expect(event, props).not.toHaveProperty('name');
      }
    });

    it('lists metrics events only when asked for, and puts events on hosts and the infra-env', async () => {
      expect((await trigger({ severity: 'error', message: 'a metric', event_time: now(), cluster_id: clusterId, category: 'metrics' })).status).toBe(201);
      expect((await listed(`cluster_id=${clusterId}`)).map((e) => e.message)).not.toContain('a metric');
      expect((await listed(`cluster_id=${clusterId}&categories=metrics`)).map((e) => [e.message, e.category])).toEqual([['a metric', 'metrics']]);

      expect(
        (
          await trigger({
            severity: 'critical',
            message: 'about the host',
            event_time: now(),
            cluster_id: clusterId,
            host_id: hostId,
            infra_env_id: infraEnvId,
          })
        ).status,
      ).toBe(201);
      expect((await listed(`host_ids=${hostId}`)).map((e) => e.message)).toContain('about the host');
      expect((await listed(`cluster_id=${clusterId}&host_ids=${hostId}`)).map((e) => e.message)).toEqual([
        expect.stringMatching(/Successfully registered$/),
        'about the host',
      ]);
      // An event naming nothing is the agent's infra-env's.
      expect((await trigger({ severity: 'info', message: 'about nothing', event_time: now() })).status).toBe(201);
      expect((await listed(`infra_env_id=${infraEnvId}`)).map((e) => e.message)).toContain('about nothing');
    });

    it('answers 400 for what upstream refuses, and for a message longer than it keeps', async () => {
      const valid = { severity: 'info', message: 'm', event_time: now(), cluster_id: clusterId };
      const { severity: _severity, ...noSeverity } = valid;
      const { message: _message, ...noMessage } = valid;
      const { event_time: _time, ...noTime } = valid;
      const refused: [string, unknown, RegExp?][] = [
        ['no severity', noSeverity],
        ['no message', noMessage],
        ['no event_time', noTime],
        ['an unknown severity', { ...valid, severity: 'debug' }],
        ['an event_time that is no time', { ...valid, event_time: 'yesterday' }],
        ['a cluster_id that is no UUID', { ...valid, cluster_id: 'nope' }],
        ['a request_id that is no UUID', { ...valid, request_id: 'nope' }],
        ['an unknown category', { ...valid, category: 'other' }],
        ['the audit category, which only the service writes', { ...valid, category: 'audit' }, /^category in body should be one of \[user metrics\]$/],
        ['a message longer than 4096 characters', { ...valid, message: 'x'.repeat(4_097) }, /at most 4096/],
        ['an array', []],
      ];
      for (const [what, body, reason] of refused) {
        const answer = await trigger(body);
        expect(answer.status, `${what}: ${answer.text}`).toBe(400);
        if (reason) expect(answer.body.reason, what).toMatch(reason);
      }
      // A message of exactly upstream's length is kept.
      expect((await trigger({ ...valid, message: 'x'.repeat(4_096) })).status).toBe(201);
    });

    it("is the agents': 404 for ids out of the agent's reach, 401 for users' tokens", async () => {
      const other = await infraEnvWithAgent(api, await defaultVersion(api), {});
      const otherHost = randomUUID();
      expect((await api.call('POST', `/infra-envs/${other.infraEnvId}/hosts`, { host_id: otherHost }, other.agent)).status).toBe(201);
      const theirs = await importCluster(importBody(), otherOrg);
      const base = { severity: 'info', message: 'out of reach', event_time: now() };
      for (const [what, ids] of [
        ["another organisation's cluster", { cluster_id: theirs.body.id }],
        ['another cluster of the organisation', { cluster_id: other.clusterId }],
        ['an unknown cluster', { cluster_id: randomUUID() }],
        ['another infra-env', { infra_env_id: other.infraEnvId }],
        ["another infra-env's host", { host_id: otherHost }],
        ['an unknown host', { host_id: randomUUID() }],
      ] as const) {
        const answer = await trigger({ ...base, ...ids });
        expect(answer.status, `${what}: ${answer.text}`).toBe(404);
      }
      expect((await listed(`cluster_id=${other.clusterId}`)).map((e) => e.message)).not.toContain('out of reach');
      for (const headers of [api.user(), readOnly, otherOrg]) expect((await trigger({ ...base, cluster_id: clusterId }, headers)).status).toBe(401);
    });
  });
});
