/**
 * The audit log through the API (issue 48): every change of a token or a person is on record with
 * who, what, when, from where and how it ended; reads and the agent are not; admins alone read it,
 * paged and filtered by resource, actor and time; records carry DynamoDB's TTL for the retention.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../lambdas/adapters/dynamodb/store.js';
import { dynamodbEndpoint } from '../support/dynamodb-local.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PULL_SECRET } from '../support/fixtures.js';
import { expectMatchesSchema } from '../support/response-schema.js';
import { testRuntime } from '../support/runtime.js';

const API = '/api/assisted-install/v2';

describe('audit log', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  const call = async (token: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${env.runtime.url}${API}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, 'User-Agent': 'audit-test/1', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined, text };
  };

  const tableName = `t-${randomUUID()}`;
  beforeAll(async () => {
    // The deployment's retention reaches the record's TTL (the default, 400 days, is unit-tested).
    process.env.AUDIT_RETENTION_DAYS = '30';
    env = await testRuntime({ tableName });
  }, 180_000);
  afterAll(async () => {
    delete process.env.AUDIT_RETENTION_DAYS;
    await env?.close();
  });

  it('records changes with who, what, when, from where and how they ended; admins read it, paged and filtered', async () => {
    const before = new Date().toISOString();
    const userToken = await call(env.adminToken, 'POST', '/api-tokens', { name: 'worker', role: 'user' });
    expect(userToken.status, userToken.text).toBe(201);
    const readOnly = await call(env.adminToken, 'POST', '/api-tokens', { name: 'viewer', role: 'read-only' });
    const created = await call(userToken.body.token, 'POST', '/clusters', {
      name: 'audited',
      openshift_version: '4.16',
      pull_secret: PULL_SECRET,
      base_dns_domain: 'example.com',
    });
    expect(created.status, created.text).toBe(201);
    const clusterId = created.body.id as string;
    expect((await call(userToken.body.token, 'PATCH', `/clusters/${clusterId}`, { name: 'audited-2' })).status).toBe(201);
    // A refused change is on record as refused, with its reason; reads are not recorded.
    expect((await call(readOnly.body.token, 'PATCH', `/clusters/${clusterId}`, { name: 'nope' })).status).toBe(403);
    expect((await call(userToken.body.token, 'GET', `/clusters/${clusterId}`)).status).toBe(200);

    const listed = await call(env.adminToken, 'GET', `/audit-events?resource=clusters/${clusterId}`);
    expect(listed.status, listed.text).toBe(200);
    expectMatchesSchema('ListAuditEvents', 200, listed.body);
    const events = listed.body.audit_events as Record<string, any>[];
    expect(events.map((e) => [e.operation_id, e.outcome.result])).toEqual([
      ['V2UpdateCluster', 'refused'],
      ['V2UpdateCluster', 'succeeded'],
      ['v2RegisterCluster', 'succeeded'],
    ]);
    expect(events[2]).toMatchObject({
      actor: { kind: 'token', id: userToken.body.id, role: 'user' },
      method: 'POST',
      resource: `clusters/${clusterId}`,
      source: { ip: '127.0.0.1', user_agent: 'audit-test/1' },
      outcome: { result: 'succeeded', status: 201 },
    });
    expect(events[0]).toMatchObject({ actor: { id: readOnly.body.id, role: 'read-only' }, outcome: { status: 403, reason: expect.stringMatching(/role/) } });
    expect(events[2]!.at >= before).toBe(true);
    // Nothing secret in the log: the created token's secret is not there.
    const all = await call(env.adminToken, 'GET', '/audit-events');
    expect(all.text).not.toContain(userToken.body.token);
    expect(all.body.audit_events.some((e: any) => e.operation_id === 'CreateApiToken' && e.resource === `api-tokens/${userToken.body.id}`)).toBe(true);

    // By actor, by time, paged.
    const byActor = await call(env.adminToken, 'GET', `/audit-events?actor=${readOnly.body.id}`);
    expect(byActor.body.audit_events).toHaveLength(1);
    const future = await call(env.adminToken, 'GET', `/audit-events?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`);
    expect(future.body.audit_events).toHaveLength(0);
    // A range that ends before it starts is a 400 (DynamoDB refused it: a 500 the accepted-request fuzz found).
    const backwards = await call(
      env.adminToken,
      'GET',
      `/audit-events?since=${encodeURIComponent('2030-01-01T00:00:00Z')}&until=${encodeURIComponent('2020-01-01T00:00:00Z')}`,
    );
    expect([backwards.status, backwards.body.reason]).toEqual([
      400,
      'since (2030-01-01T00:00:00.000Z) is after until (2020-01-01T00:00:00.000Z): no time is in that range',
    ]);
    const first = await call(env.adminToken, 'GET', '/audit-events?limit=2');
    expect(first.body.audit_events).toHaveLength(2);
    const second = await call(env.adminToken, 'GET', `/audit-events?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.audit_events[0].id).not.toBe(first.body.audit_events[1].id);
    expect([...first.body.audit_events, ...second.body.audit_events].map((e: any) => e.id)).toEqual(all.body.audit_events.slice(0, 4).map((e: any) => e.id));
    expect((await call(env.adminToken, 'GET', '/audit-events?cursor=bogus')).status).toBe(400);

    // Admins only.
    expect((await call(userToken.body.token, 'GET', '/audit-events')).status).toBe(403);
    expect((await call(readOnly.body.token, 'GET', '/audit-events')).status).toBe(403);

    // Kept for the retention setting: DynamoDB's TTL on the record.
    const orgId = (await call(env.adminToken, 'GET', '/organizations')).body[0].id;
    const client = new DynamoDBClient({
      endpoint: await dynamodbEndpoint(),
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    try {
      const stored = await documentClient(client).send(
        new GetCommand({ TableName: tableName, Key: { pk: `ORG#${orgId}#AUDIT-RECORD#${events[2]!.id}`, sk: 'AUDIT' } }),
      );
      expect(stored.Item?.ttl).toBe(Math.floor(Date.parse(events[2]!.at) / 1000) + 30 * 86_400);
    } finally {
      client.destroy();
    }
  });
});
