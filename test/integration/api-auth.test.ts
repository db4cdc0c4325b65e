import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { container } from '../../lambdas/platform/container.js';
import { createApiToken, REFUSAL_PACE_MS, revokeApiToken } from '../../lambdas/usecases/api-tokens.js';
import { ensureOrganisation } from '../../lambdas/usecases/organisations.js';
import { testRuntime } from '../support/runtime.js';
import { upstreamError } from '../support/upstream-errors.js';

describe('API authentication and organisations', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  let url: string;
  const get = (token: string | undefined, path = '/api/assisted-install/v2/clusters') =>
    fetch(`${url}${path}`, { headers: token === undefined ? {} : { Authorization: `Bearer ${token}` } });

  beforeAll(async () => {
    env = await testRuntime();
    url = env.runtime.url;
    const ports = container();
    await ensureOrganisation(ports, 'org-b', 'Organisation B');
    const now = new Date().toISOString();
    await ports.store.clusters.create({
      orgId: 'default',
      clusterId: '0f9a1c52-1111-4e7a-9d3c-5b8e2f6a7c01',
      name: 'a-cluster',
      status: 'ready',
      createdAt: now,
      updatedAt: now,
      attributes: { openshift_version: '4.17' },
    });
    await ports.store.clusters.create({
      orgId: 'org-b',
      clusterId: '0f9a1c52-2222-4e7a-9d3c-5b8e2f6a7c01',
      name: 'b-cluster',
      status: 'ready',
      createdAt: now,
      updatedAt: now,
      attributes: {},
    });
  }, 180_000);
  afterAll(async () => env?.close());

  it("lists only the caller organisation's clusters, in the upstream cluster shape", async () => {
    const response = await get(env.adminToken);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/json');
    const clusters = (await response.json()) as Record<string, unknown>[];
    expect(clusters).toHaveLength(1);
    expect(clusters[0]).toMatchObject({
      kind: 'Cluster',
      id: '0f9a1c52-1111-4e7a-9d3c-5b8e2f6a7c01',
      href: '/api/assisted-install/v2/clusters/0f9a1c52-1111-4e7a-9d3c-5b8e2f6a7c01',
      name: 'a-cluster',
      status: 'ready',
      openshift_version: '4.17',
    });

    const { token: orgB } = await createApiToken(container(), { orgId: 'org-b', name: 'b', role: 'user' });
    const listB = (await (await get(orgB)).json()) as { name: string }[];
    expect(listB.map((c) => c.name)).toEqual(['b-cluster']);
  });

  it('answers 401 in the infra_error shape for missing, malformed, unknown and forged tokens', async () => {
    const [, org, id] = env.adminToken.split('.');
    for (const token of [undefined, 'nonsense', `ac1.${org}.${id}.wrongsecret`, `ac1.org-b.${id}.x`, 'ac1.nope.nope.nope']) {
      const response = await get(token);
      expect(response.status).toBe(401);
      const body = (await response.json()) as { code: number; message: string };
      expect(body.code).toBe(401);
      expect(body.message.length).toBeGreaterThan(10);
      expect(JSON.stringify(body)).not.toContain(env.adminToken.split('.')[3]);
    }
  });

  it('counts refusals of a known token and records one audit event a minute for them, not one per request', async () => {
    const ports = container();
    const { record } = await createApiToken(ports, { orgId: 'default', name: 'guessed', role: 'user' });
    const forged = `ac1.default.${record.tokenId}.wrongsecret`;
    await Promise.all(Array.from({ length: 30 }, () => get(forged).then((response) => expect(response.status).toBe(401))));
    expect((await ports.store.apiTokens.get({ orgId: 'default', tokenId: record.tokenId }))?.refusals?.count).toBe(30);
    const events = (await (await get(env.adminToken, '/api/assisted-install/v2/events?categories=audit')).json()) as { name: string; message: string }[];
    const refusals = events.filter((event) => event.name === 'sign_in_refused' && event.message.includes(record.tokenId));
    // Two at most: the 30 requests may straddle a minute's boundary.
    expect(refusals.length).toBeGreaterThanOrEqual(1);
    expect(refusals.length).toBeLessThanOrEqual(2);
    expect(refusals[0]!.message).toMatch(/refused so far; one event a minute at most/);
  });

  it('takes as long to refuse an unknown token id as a known one with a wrong secret (no existence oracle)', async () => {
    const { record } = await createApiToken(container(), { orgId: 'default', name: 'timed', role: 'user' });
    const medianMs = async (token: string) => {
      const times: number[] = [];
      for (let i = 0; i < 9; i++) {
        const started = performance.now();
        expect((await get(token)).status).toBe(401);
        times.push(performance.now() - started);
      }
      return times.sort((a, b) => a - b)[4]!;
    };
    const unknown = await medianMs('ac1.default.00000000000000000000000000000000.wrongsecret');
    const known = await medianMs(`ac1.default.${record.tokenId}.wrongsecret`);
    // Both are answered at the refusal pace (100 ms), which is longer than counting a refusal takes.
    expect(unknown).toBeGreaterThanOrEqual(REFUSAL_PACE_MS);
    expect(known).toBeGreaterThanOrEqual(REFUSAL_PACE_MS);
    expect(Math.abs(known - unknown)).toBeLessThan(REFUSAL_PACE_MS / 2);
  });

  it('refuses revoked and expired tokens with a reason the holder can act on', async () => {
    const ports = container();
    const { token, record } = await createApiToken(ports, { orgId: 'default', name: 'short-lived', role: 'read-only' });
    expect((await get(token)).status).toBe(200);
    await revokeApiToken(ports, 'default', record.tokenId);
    const revoked = await get(token);
    expect(revoked.status).toBe(401);
    expect(((await revoked.json()) as { message: string }).message).toMatch(/revoked/);

    const soon = new Date(Date.now() + 1_000).toISOString();
    const { token: expiring } = await createApiToken(ports, { orgId: 'default', name: 'expiring', role: 'user', expiresAt: soon });
    expect((await get(expiring)).status).toBe(200);
    await sleep(1_100);
    const expired = await get(expiring);
    expect(expired.status).toBe(401);
    expect(((await expired.json()) as { message: string }).message).toMatch(/expired/);
  });

  it('answers unknown paths, wrong methods and invalid parameters with upstream error bodies', async () => {
    const notFound = await get(env.adminToken, '/api/assisted-install/v2/nothing-here');
    expect(notFound.status).toBe(404);
    expect(await notFound.json()).toMatchObject({ code: 404, message: expect.stringContaining('nothing-here') });

    const wrongMethod = await fetch(`${url}/api/assisted-install/v2/clusters`, { method: 'PUT', headers: { Authorization: `Bearer ${env.adminToken}` } });
    expect(wrongMethod.status).toBe(405);

    const badUuid = await get(env.adminToken, '/api/assisted-install/v2/clusters?openshift_cluster_id=not-a-uuid');
    expect(badUuid.status).toBe(400);
    expect(upstreamError(await badUuid.json())?.reason).toMatch(/openshift_cluster_id/);
  });

  it('serves its OpenAPI document without credentials', async () => {
    const response = await fetch(`${url}/api/assisted-install/v2/openapi.yaml`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/yaml');
    const { parse } = await import('yaml');
    const document = parse(await response.text()) as { openapi: string; paths: Record<string, unknown> };
    expect(document.openapi).toMatch(/^3\./);
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/v2/clusters', '/v2/infra-envs', '/v2/events', '/v2/api-tokens']));
  });
});
