/**
 * Install-config overrides, ignored validations and preflight requirements through the local
 * HTTP server with the real DynamoDB Local: happy paths against the upstream response schemas,
 * bad input (never a 5xx, never the pull secret in a reason), state rules and organisation scoping.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLUSTER_VALIDATION_IDS, HOST_VALIDATION_IDS } from '../../lambdas/domain/core/validation-ids.js';
import { loadOpenApiDocument } from '../../lambdas/handlers/api/openapi-document.js';
import { container } from '../../lambdas/platform/container.js';
import { issueAgentToken } from '../../lambdas/usecases/agent-tokens.js';
import { createApiToken } from '../../lambdas/usecases/api-tokens.js';
import { ensureOrganisation } from '../../lambdas/usecases/organisations.js';
import { PULL_SECRET, sshPublicKey } from '../support/fixtures.js';
import { expectMatchesSchema } from '../support/response-schema.js';
import { testRuntime } from '../support/runtime.js';
import type { ClusterStatus } from '../../lambdas/domain/cluster/cluster-facts.js';
import { upstreamError } from '../support/upstream-errors.js';

type Json = Record<string, any>;
type Reply = { status: number; body: any; text: string };

const SECRET_PARTS = ['not-a-real-password', Buffer.from('tester:not-a-real-password').toString('base64')];

describe('cluster settings API', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  let version: string;

  const call = async (method: string, path: string, body?: string, token = env.adminToken): Promise<Reply> => {
    const response = await fetch(`${env.runtime.url}/api/assisted-install/v2${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
      body,
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined, text };
  };
  /** The PATCH body is a JSON string whose content is the overrides. */
  const patchOverrides = (clusterId: string, overrides: string, token?: string) =>
    call('PATCH', `/clusters/${clusterId}/install-config`, JSON.stringify(overrides), token);

  async function newCluster(extra: Json = {}): Promise<Json> {
    const created = await call(
      'POST',
      '/clusters',
      JSON.stringify({ name: 'demo', openshift_version: version, pull_secret: PULL_SECRET, base_dns_domain: 'example.com', ...extra }),
    );
    expect(created.status, created.text).toBe(201);
    return created.body;
  }
  const setStatus = (clusterId: string, status: ClusterStatus, attributes: Json = {}) =>
    container().store.clusters.mutate({ orgId: 'default', clusterId }, (c) => ({ ...c, status, attributes: { ...c.attributes, ...attributes } }));

  beforeAll(async () => {
    env = await testRuntime();
    const versions = (await call('GET', '/openshift-versions')).body as Record<string, { default?: boolean }>;
    version = Object.entries(versions).find(([, v]) => v.default)?.[0] ?? Object.keys(versions)[0]!;
  }, 180_000);
  afterAll(async () => env?.close());

  describe('cluster document', () => {
    it("holds upstream's connectivity documents once the new cluster was judged, not in the registration's answer", async () => {
      const cluster = await newCluster();
      // Upstream's answer is the cluster as registered; its monitor's first pass stores the documents.
      expect(cluster.connectivity_majority_groups ?? null).toBeNull();
      expect(cluster.ip_collisions ?? null).toBeNull();
      const read = await call('GET', `/clusters/${cluster.id}`);
      expect(read.status, read.text).toBe(200);
      expect(JSON.parse(read.body.connectivity_majority_groups)).toEqual({ majority_groups: { IPv4: [], IPv6: [] }, l3_connected_addresses: {} });
      expect(read.body.ip_collisions).toBe('{}');
    });

    it('answers the supported platforms as upstream does: none alone without hosts, 404 for an unknown cluster', async () => {
      const cluster = await newCluster();
      const reply = await call('GET', `/clusters/${cluster.id}/supported-platforms`);
      expect(reply.status, reply.text).toBe(200);
      expectMatchesSchema('GetClusterSupportedPlatforms', 200, reply.body);
      expect(reply.body).toEqual(['none']);
      const unknown = await call('GET', '/clusters/00000000-0000-0000-0000-000000000000/supported-platforms');
      expect(unknown.status, unknown.text).toBe(404);
    });
  });

  describe('install config', () => {
    it('returns the generated install-config, with the real pull secret, as a JSON string', async () => {
      const key = sshPublicKey();
      const cluster = await newCluster({
        ssh_public_key: key,
        machine_networks: [{ cidr: '192.168.127.0/24' }],
        api_vips: [{ ip: '192.168.127.100' }],
        ingress_vips: [{ ip: '192.168.127.101' }],
      });
      const reply = await call('GET', `/clusters/${cluster.id}/install-config`);
      expect(reply.status, reply.text).toBe(200);
      expectMatchesSchema('v2GetClusterInstallConfig', 200, reply.body);
      expect(typeof reply.body).toBe('string');
      const config = JSON.parse(reply.body);
      expect(config).toMatchObject({
        apiVersion: 'v1',
        baseDomain: 'example.com',
        metadata: { name: 'demo' },
        controlPlane: { name: 'master', replicas: 0 },
        platform: { baremetal: { apiVIPs: ['192.168.127.100'], ingressVIPs: ['192.168.127.101'], hosts: [] } },
        fips: false,
        sshKey: key,
      });
      expect(config.pullSecret).toBe(PULL_SECRET);

      // The pull secret is the cluster owner's: read-only tokens see the rest without it (agents
      // may not call this operation at all).
      const { token: readOnly } = await createApiToken(container(), { orgId: 'default', name: 'install-config-viewer', role: 'read-only' });
      const infraEnvId = (await call('POST', '/infra-envs', JSON.stringify({ name: 'ic', pull_secret: PULL_SECRET, cluster_id: cluster.id }))).body
        .id as string;
      const agentToken = await issueAgentToken(container().config.agentSigningKeyPem, { orgId: 'default', infraEnvId });
      expect(
        (await fetch(`${env.runtime.url}/api/assisted-install/v2/clusters/${cluster.id}/install-config`, { headers: { 'X-Secret-Key': agentToken } })).status,
      ).toBe(401);
      for (const [who, headers] of [['read-only', { Authorization: `Bearer ${readOnly}` }]] as const) {
        const seen = await fetch(`${env.runtime.url}/api/assisted-install/v2/clusters/${cluster.id}/install-config`, { headers });
        expect(seen.status, who).toBe(200);
        const text = await seen.text();
        expect(text, who).not.toContain(PULL_SECRET.slice(20, 60));
        const redacted = JSON.parse(JSON.parse(text) as string);
        expect(redacted.pullSecret, who).toMatch(/^<redacted/);
        expect(redacted.sshKey, who).toBe(key);
      }
    });

    it('stores overrides (201, no body), merges them into the document and clears them with ""', async () => {
      const cluster = await newCluster();
      const overrides = '{"networking":{"networkType":"OVNKubernetes"},"fips":true,"capabilities":{"baselineCapabilitySet":"None"}}';
      const patched = await patchOverrides(cluster.id, overrides);
      expect(patched.status, patched.text).toBe(201);
      expect(patched.text).toBe('');

      const config = JSON.parse((await call('GET', `/clusters/${cluster.id}/install-config`)).body);
      expect(config).toMatchObject({
        fips: true,
        capabilities: { baselineCapabilitySet: 'None' },
        networking: { networkType: 'OVNKubernetes', clusterNetwork: [{ cidr: '10.128.0.0/14', hostPrefix: 23 }] },
      });
      const stored = await call('GET', `/clusters/${cluster.id}`);
      expectMatchesSchema('v2GetCluster', 200, stored.body);
      expect(stored.body.install_config_overrides).toBe(overrides);
      // Capability set None without Console drops the console from the monitored operators, as upstream.
      expect(stored.body.monitored_operators.map((o: Json) => o.name)).not.toContain('console');
      const events = await call('GET', `/events?cluster_id=${cluster.id}`);
      expect(events.body.map((e: Json) => e.name)).toContain('install_config_applied');

      expect((await patchOverrides(cluster.id, '')).status).toBe(201);
      const cleared = (await call('GET', `/clusters/${cluster.id}`)).body;
      expect(cleared).not.toHaveProperty('install_config_overrides');
      expect(cleared.monitored_operators.map((o: Json) => o.name)).toEqual(expect.arrayContaining(['console', 'cvo']));
      expect(JSON.parse((await call('GET', `/clusters/${cluster.id}/install-config`)).body).fips).toBe(false);
    });

    it('refuses overrides once the cluster is installing (409) and serves no install-config for day-2 clusters (400)', async () => {
      const cluster = await newCluster();
      await setStatus(cluster.id, 'installing');
      const refused = await patchOverrides(cluster.id, '{"fips":true}');
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ kind: 'Error', id: 409, code: '409' });
      // Reading stays possible while installing.
      expect((await call('GET', `/clusters/${cluster.id}/install-config`)).status).toBe(200);

      const day2 = await newCluster();
      await setStatus(day2.id, 'adding-hosts', { kind: 'AddHostsCluster' });
      const noConfig = await call('GET', `/clusters/${day2.id}/install-config`);
      expect(noConfig.status).toBe(400);
      expect(noConfig.body.reason).toMatch(/adds hosts/);
    });
  });

  describe('ignored validations', () => {
    it('starts empty, stores both lists (201) and replaces them on every PUT', async () => {
      const cluster = await newCluster();
      const initial = await call('GET', `/clusters/${cluster.id}/ignored-validations`);
      expect(initial.status).toBe(200);
      expectMatchesSchema('v2GetIgnoredValidations', 200, initial.body);
      expect(initial.body).toEqual({});

      const lists = { 'cluster-validation-ids': '["ntp-server-configured","odf-requirements-satisfied"]', 'host-validation-ids': '["all"]' };
      const set = await call('PUT', `/clusters/${cluster.id}/ignored-validations`, JSON.stringify(lists));
      expect(set.status, set.text).toBe(201);
      expectMatchesSchema('v2SetIgnoredValidations', 201, set.body);
      expect(set.body).toEqual(lists);
      expect((await call('GET', `/clusters/${cluster.id}/ignored-validations`)).body).toEqual(lists);
      expect((await call('GET', `/clusters/${cluster.id}`)).body).toMatchObject({
        ignored_cluster_validations: lists['cluster-validation-ids'],
        ignored_host_validations: '["all"]',
      });

      // "all" lets non-ignorable ids through, as upstream does.
      const withAll = await call('PUT', `/clusters/${cluster.id}/ignored-validations`, JSON.stringify({ 'host-validation-ids': '["all","connected"]' }));
      expect(withAll.status, withAll.text).toBe(201);
      expect(withAll.body).toEqual({ 'host-validation-ids': '["all","connected"]' });

      expect((await call('PUT', `/clusters/${cluster.id}/ignored-validations`, '{}')).body).toEqual({});
    });

    it('refuses changes once the cluster is installing, with 400 as upstream', async () => {
      const cluster = await newCluster();
      await setStatus(cluster.id, 'installing');
      const refused = await call('PUT', `/clusters/${cluster.id}/ignored-validations`, JSON.stringify({ 'host-validation-ids': '["all"]' }));
      expect(refused.status).toBe(400);
      expect(refused.body.reason).toMatch(/installing/);
      expect((await call('GET', `/clusters/${cluster.id}/ignored-validations`)).body).toEqual({});
    });

    it('knows exactly the validation ids openapi.yaml enumerates', () => {
      const schemas = (loadOpenApiDocument() as { components: { schemas: Record<string, { enum: string[] }> } }).components.schemas;
      expect([...CLUSTER_VALIDATION_IDS].sort()).toEqual([...schemas['cluster-validation-id']!.enum].sort());
      expect([...HOST_VALIDATION_IDS].sort()).toEqual([...schemas['host-validation-id']!.enum].sort());
    });
  });

  describe('preflight requirements', () => {
    it("gives the OCP minimums per role and every operator's requirements", async () => {
      const cluster = await newCluster({ olm_operators: [{ name: 'lvm' }] });
      const reply = await call('GET', `/clusters/${cluster.id}/preflight-requirements`);
      expect(reply.status, reply.text).toBe(200);
      expectMatchesSchema('v2GetPreflightRequirements', 200, reply.body);
      expect(reply.body.ocp).toEqual({
        master: {
          quantitative: {
            cpu_cores: 4,
            ram_mib: 16384,
            disk_size_gb: 100,
            installation_disk_speed_threshold_ms: 10,
            network_latency_threshold_ms: 100,
            packet_loss_percentage: 0,
          },
        },
        worker: {
          quantitative: {
            cpu_cores: 2,
            ram_mib: 8192,
            disk_size_gb: 100,
            installation_disk_speed_threshold_ms: 10,
            network_latency_threshold_ms: 1000,
            packet_loss_percentage: 10,
          },
        },
      });
      const names = reply.body.operators.map((o: Json) => o.operator_name);
      expect(names).toEqual(expect.arrayContaining(['lvm', 'odf', 'cnv', 'lso']));
    });

    it("uses the single-node minimums for a single-node cluster's master", async () => {
      const cluster = await newCluster({ control_plane_count: 1 });
      const reply = await call('GET', `/clusters/${cluster.id}/preflight-requirements`);
      expectMatchesSchema('v2GetPreflightRequirements', 200, reply.body);
      expect(reply.body.ocp.master.quantitative).toMatchObject({ ram_mib: 16384, disk_size_gb: 100 });
      expect(reply.body.ocp.master.quantitative).not.toHaveProperty('network_latency_threshold_ms');
    });
  });

  describe('bad input', () => {
    const missing = '6f1c2f0e-0000-4000-8000-000000000000';
    type Case = { name: string; method: string; path: (id: string) => string; body?: string; expected: number; reason?: RegExp };
    const ignored = (body: Json) => JSON.stringify(body);
    const overrides = (text: string) => JSON.stringify(text);
    const cases: Case[] = [
      { name: 'install-config bad UUID', method: 'GET', path: () => '/clusters/nope/install-config', expected: 400 },
      { name: 'install-config unknown cluster', method: 'GET', path: () => `/clusters/${missing}/install-config`, expected: 404 },
      {
        name: 'overrides body is an object, not a string',
        method: 'PATCH',
        path: (id) => `/clusters/${id}/install-config`,
        body: '{"fips":true}',
        expected: 400,
      },
      {
        name: 'overrides not JSON',
        method: 'PATCH',
        path: (id) => `/clusters/${id}/install-config`,
        body: overrides('{fips: true'),
        expected: 400,
        reason: /not valid JSON/,
      },
      { name: 'overrides a list', method: 'PATCH', path: (id) => `/clusters/${id}/install-config`, body: overrides('[1]'), expected: 400, reason: /object/ },
      {
        name: 'overrides unknown key',
        method: 'PATCH',
        path: (id) => `/clusters/${id}/install-config`,
        body: overrides('{"fipz":true}'),
        expected: 400,
        reason: /fipz/,
      },
      {
        name: 'overrides wrong type',
        method: 'PATCH',
        path: (id) => `/clusters/${id}/install-config`,
        body: overrides('{"controlPlane":{"replicas":"three"}}'),
        expected: 400,
        reason: /integer/,
      },
      {
        name: 'overrides pull secret of the wrong type',
        method: 'PATCH',
        path: (id) => `/clusters/${id}/install-config`,
        body: overrides(JSON.stringify({ pullSecret: JSON.parse(PULL_SECRET) })),
        expected: 400,
        reason: /pullSecret/,
      },
      {
        name: 'overrides bad trust bundle',
        method: 'PATCH',
        path: (id) => `/clusters/${id}/install-config`,
        body: overrides('{"additionalTrustBundle":"-----BEGIN CERTIFICATE-----\\nAAAA\\n-----END CERTIFICATE-----"}'),
        expected: 400,
        reason: /X.509/,
      },
      {
        name: 'overrides too long for the store',
        method: 'PATCH',
        path: (id) => `/clusters/${id}/install-config`,
        body: overrides(JSON.stringify({ featureGates: Array(20_000).fill('SomeGate=true') })),
        expected: 400,
        reason: /longer than/,
      },
      { name: 'overrides of an unknown cluster', method: 'PATCH', path: () => `/clusters/${missing}/install-config`, body: overrides('{}'), expected: 404 },
      { name: 'ignored validations unknown cluster', method: 'GET', path: () => `/clusters/${missing}/ignored-validations`, expected: 404 },
      { name: 'ignored validations bad UUID', method: 'PUT', path: () => '/clusters/xyz/ignored-validations', body: '{}', expected: 400 },
      {
        name: 'ignored validations not JSON',
        method: 'PUT',
        path: (id) => `/clusters/${id}/ignored-validations`,
        body: ignored({ 'cluster-validation-ids': '[ntp' }),
        expected: 400,
        reason: /not valid JSON/,
      },
      {
        name: 'ignored validations not a list',
        method: 'PUT',
        path: (id) => `/clusters/${id}/ignored-validations`,
        body: ignored({ 'host-validation-ids': '{"a":1}' }),
        expected: 400,
        reason: /list/,
      },
      {
        name: 'ignored validations unknown id',
        method: 'PUT',
        path: (id) => `/clusters/${id}/ignored-validations`,
        body: ignored({ 'host-validation-ids': '["has-min-cpu-corez"]' }),
        expected: 400,
        reason: /not a known host validation/,
      },
      {
        name: 'cluster id in the host list',
        method: 'PUT',
        path: (id) => `/clusters/${id}/ignored-validations`,
        body: ignored({ 'host-validation-ids': '["api-vips-valid"]' }),
        expected: 400,
        reason: /api-vips-valid/,
      },
      {
        name: 'non-ignorable host validation',
        method: 'PUT',
        path: (id) => `/clusters/${id}/ignored-validations`,
        body: ignored({ 'host-validation-ids': '["hostname-valid"]' }),
        expected: 400,
        reason: /cannot be ignored: hostname-valid/,
      },
      {
        name: 'non-ignorable cluster validation',
        method: 'PUT',
        path: (id) => `/clusters/${id}/ignored-validations`,
        body: ignored({ 'cluster-validation-ids': '["pull-secret-set"]' }),
        expected: 400,
        reason: /pull-secret-set/,
      },
      {
        name: 'ignored validations list too long',
        method: 'PUT',
        path: (id) => `/clusters/${id}/ignored-validations`,
        body: ignored({ 'host-validation-ids': JSON.stringify(Array(5_000).fill('all')) }),
        expected: 400,
        reason: /longer than/,
      },
      {
        name: 'ignored validations wrong field type',
        method: 'PUT',
        path: (id) => `/clusters/${id}/ignored-validations`,
        body: ignored({ 'cluster-validation-ids': ['all'] }),
        expected: 400,
      },
      { name: 'ignored validations of an unknown cluster', method: 'PUT', path: () => `/clusters/${missing}/ignored-validations`, body: '{}', expected: 404 },
      { name: 'preflight bad UUID', method: 'GET', path: () => '/clusters/123/preflight-requirements', expected: 400 },
      { name: 'preflight unknown cluster', method: 'GET', path: () => `/clusters/${missing}/preflight-requirements`, expected: 404 },
    ];

    it('refuses each with the expected 4xx and a reason, leaves the cluster unchanged and never leaks the pull secret', async () => {
      const cluster = await newCluster();
      const before = await container().store.clusters.get({ orgId: 'default', clusterId: cluster.id });
      const failures: string[] = [];
      for (const c of cases) {
        const { status, body, text } = await call(c.method, c.path(cluster.id), c.body);
        const problems: string[] = [];
        if (status !== c.expected) problems.push(`status ${status}, expected ${c.expected}`);
        if (status >= 500) problems.push('5xx');
        const error = upstreamError(body);
        if (!(error && error.code === String(status) && error.reason.length > 5)) problems.push(`body ${text}`);
        if (c.reason && !c.reason.test(error?.reason ?? '')) problems.push(`reason "${error?.reason}" does not match ${c.reason}`);
        if (SECRET_PARTS.some((part) => text.includes(part))) problems.push('the reply leaks the pull secret');
        if (problems.length) failures.push(`${c.name}: ${problems.join('; ')}`);
      }
      expect(failures).toEqual([]);
      expect((await container().store.clusters.get({ orgId: 'default', clusterId: cluster.id }))?.version).toBe(before?.version);
    });
  });

  describe('access', () => {
    it("answers 404 for another organisation's cluster on every operation, and 403 to read-only writers", async () => {
      const cluster = await newCluster();
      await ensureOrganisation(container(), 'org-other', 'Other');
      const { token: other } = await createApiToken(container(), { orgId: 'org-other', name: 'other', role: 'admin' });
      const operations: [string, string, string?][] = [
        ['GET', 'install-config'],
        ['PATCH', 'install-config', JSON.stringify('{"fips":true}')],
        ['GET', 'ignored-validations'],
        ['PUT', 'ignored-validations', JSON.stringify({ 'host-validation-ids': '["all"]' })],
        ['GET', 'preflight-requirements'],
      ];
      for (const [method, path, body] of operations) {
        const reply = await call(method, `/clusters/${cluster.id}/${path}`, body, other);
        expect(reply.status, `${method} ${path}`).toBe(404);
        expect(reply.body).toMatchObject({ kind: 'Error', id: 404 });
      }
      const { token: readOnly } = await createApiToken(container(), { orgId: 'default', name: 'viewer', role: 'read-only' });
      for (const [method, path, body] of operations) {
        const reply = await call(method, `/clusters/${cluster.id}/${path}`, body, readOnly);
        expect(reply.status, `${method} ${path}`).toBe(method === 'GET' ? 200 : 403);
      }
      expect((await call('GET', `/clusters/${cluster.id}`)).body).not.toHaveProperty('install_config_overrides');
    });
  });
});
