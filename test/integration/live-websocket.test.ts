/**
 * Live changes over WebSocket on the local gateway (issue 48): ws://HOST:PORT/live runs the same
 * handler modules as AWS's WebSocket API; a subscriber of a cluster gets each change of it (kind,
 * id, version, changed fields) posted through the management API; an unknown or another
 * organisation's cluster is a 404; caps on connections per organisation and messages per second;
 * the management API checks SigV4 as AWS's does (unsigned or wrongly signed calls are 403s).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiGatewayManagementApiClient, GoneException, PostToConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi';
import WebSocket from 'ws';
import { LIVE_SUBPROTOCOL, liveSubprotocols } from '../../contracts/live-protocol.js';
import { createApiGatewayConnections } from '../../lambdas/adapters/apigateway/connections.js';
import { container } from '../../lambdas/platform/container.js';
import { PULL_SECRET } from '../support/fixtures.js';
import { testRuntime } from '../support/runtime.js';

const API = '/api/assisted-install/v2';
const CAPS = { LIVE_MAX_CONNECTIONS_PER_ORG: '3', LIVE_MAX_MESSAGES_PER_SECOND: '5' };

describe('live changes over WebSocket', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  const open: WebSocket[] = [];

  /** Opens a connection; resolves with it and its messages, or with the refusal's status. */
  const connect = (token: string, how: 'subprotocol' | 'url' = 'subprotocol') =>
    new Promise<{ ws?: WebSocket; messages: Record<string, any>[]; refused?: number; closed: Promise<{ code: number; reason: string }> }>((resolve) => {
      const base = `${env.runtime.url.replace('http', 'ws')}/live`;
      // As the console does (browsers cannot set headers): the token in a subprotocol, never in the URL.
      const ws = how === 'subprotocol' ? new WebSocket(base, liveSubprotocols(token)) : new WebSocket(`${base}?token=${encodeURIComponent(token)}`);
      const messages: Record<string, any>[] = [];
      const closed = new Promise<{ code: number; reason: string }>((done) => ws.on('close', (code, reason) => done({ code, reason: reason.toString() })));
      ws.on('message', (data) => messages.push(JSON.parse(data.toString())));
      ws.on('open', () => {
        open.push(ws);
        resolve({ ws, messages, closed });
      });
      ws.on('unexpected-response', (_request, response) => resolve({ messages, refused: response.statusCode, closed }));
      ws.on('error', () => undefined);
    });
  const until = async <T>(what: string, read: () => T, ok: (value: T) => boolean, timeoutMs = 20_000): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    while (!ok(read())) {
      if (Date.now() > deadline) throw new Error(`${what}: not reached; last ${JSON.stringify(read()).slice(0, 1000)}`);
      await sleep(50);
    }
    return read();
  };

  beforeAll(async () => {
    Object.assign(process.env, CAPS);
    env = await testRuntime({ settleFollowUps: false });
  }, 180_000);
  afterAll(async () => {
    for (const ws of open) ws.terminate();
    for (const name of Object.keys(CAPS)) delete process.env[name];
    await env?.close();
  });

  it('authenticates at connect, sends a subscriber each change of its cluster, refuses what it may not see, and enforces the caps', async () => {
    expect((await connect('not-a-token')).refused).toBe(401);
    // A token in the URL would land in access logs: it opens nothing.
    expect((await connect(env.adminToken, 'url')).refused).toBe(401);
    const created = await fetch(`${env.runtime.url}${API}/clusters`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${env.adminToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'live', openshift_version: '4.16', pull_secret: PULL_SECRET, base_dns_domain: 'example.com' }),
    }).then((response) => response.json() as Promise<{ id: string }>);
    const subscriber = await connect(env.adminToken);
    // The service selects the plain subprotocol, never echoing the one that carries the token.
    expect(subscriber.ws!.protocol).toBe(LIVE_SUBPROTOCOL);
    subscriber.ws!.send(JSON.stringify({ action: 'subscribe', cluster_id: created.id }));
    await until(
      'subscribed',
      () => subscriber.messages,
      (messages) => messages.some((m) => m.type === 'subscribed'),
    );
    subscriber.ws!.send(JSON.stringify({ action: 'subscribe', cluster_id: '00000000-0000-4000-8000-000000000000' }));
    await until(
      'a 404',
      () => subscriber.messages,
      (messages) => messages.some((m) => m.type === 'error' && m.status === 404),
    );

    const orgId = (
      (await fetch(`${env.runtime.url}${API}/organizations`, { headers: { Authorization: `Bearer ${env.adminToken}` } }).then((r) => r.json())) as {
        id: string;
      }[]
    )[0]!.id;
    const written = await container().store.clusters.mutate({ orgId, clusterId: created.id }, (cluster) => ({ ...cluster, status: 'ready' }));
    const change = await until(
      'the change',
      () => subscriber.messages.find((m) => m.type === 'change' && m.kind === 'cluster' && m.version === written!.version),
      Boolean,
    );
    expect(change).toMatchObject({ type: 'change', kind: 'cluster', id: created.id, changed: expect.arrayContaining(['status']), status: 'ready' });

    // Three connections are the organisation's cap here (the subscriber is one).
    const second = await connect(env.adminToken);
    await connect(env.adminToken);
    expect((await connect(env.adminToken)).refused).toBe(429);
    // A closed connection frees its place.
    second.ws!.close();
    await second.closed;
    await until(
      'a free place',
      () => 0,
      () => true,
    );
    const again = await until(
      'a connection admitted again',
      () => null,
      () => true,
    ).then(async () => {
      for (let attempt = 0; attempt < 40; attempt++) {
        const tried = await connect(env.adminToken);
        if (tried.ws) return tried;
        await sleep(100);
      }
      throw new Error('no place freed');
    });
    // More than 5 messages in a second: closed, saying why.
    for (let i = 0; i < 8; i++) again.ws!.send(JSON.stringify({ action: 'subscribe', org: true }));
    const closed = await again.closed;
    expect(again.messages.some((m) => m.type === 'error' && m.status === 429 && /messages per second/.test(m.reason))).toBe(true);
    expect(closed.code).toBe(1008);
  }, 120_000);

  it("answers the management API only when SigV4-signed with the runtime's key pair, as AWS does", async () => {
    // The first test's connections closed: the one left is this test's, and its id is the one stored.
    for (const ws of open.splice(0)) ws.terminate();
    const orgId = (
      (await fetch(`${env.runtime.url}${API}/organizations`, { headers: { Authorization: `Bearer ${env.adminToken}` } }).then((r) => r.json())) as {
        id: string;
      }[]
    )[0]!.id;
    const stored = () => container().store.liveConnections.listByOrg(orgId);
    const deadline = Date.now() + 20_000;
    while ((await stored()).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const subscriber = await connect(env.adminToken);
    subscriber.ws!.send(JSON.stringify({ action: 'subscribe', org: true }));
    await until(
      'subscribed',
      () => subscriber.messages,
      (messages) => messages.some((m) => m.type === 'subscribed'),
    );
    const storedConnections = await stored();
    expect(storedConnections).toHaveLength(1);
    const connectionId = storedConnections[0]!.connectionId;
    const target = `${env.runtime.url}/@connections/${connectionId}`;

    const unsigned = await fetch(target, { method: 'POST', body: '{"type":"forged"}' });
    expect(unsigned.status).toBe(403);
    expect(await unsigned.json()).toMatchObject({ message: expect.stringMatching(/Missing Authentication Token/) });
    expect((await fetch(target, { method: 'DELETE' })).status).toBe(403);

    const signedWith = (secretAccessKey: string) =>
      new ApiGatewayManagementApiClient({
        endpoint: env.runtime.url,
        region: process.env.AWS_REGION!,
        credentials: { accessKeyId: process.env.AWS_ACCESS_KEY_ID!, secretAccessKey },
      });
    const wrong = await signedWith('not-the-secret')
      .send(new PostToConnectionCommand({ ConnectionId: connectionId, Data: Buffer.from('{"type":"forged"}') }))
      .catch((error: { $metadata?: { httpStatusCode?: number } }) => error);
    expect((wrong as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode).toBe(403);

    // The service's own client (the fan-out's), with the runtime's credentials: sent, and a gone connection is a 410.
    const connections = createApiGatewayConnections({ endpoint: env.runtime.url, region: process.env.AWS_REGION! });
    expect(await connections.post(connectionId, '{"type":"signed"}')).toBe('sent');
    await until(
      'the signed message',
      () => subscriber.messages,
      (messages) => messages.some((m) => m.type === 'signed'),
    );
    expect(subscriber.messages.some((m) => m.type === 'forged')).toBe(false);
    const gone = await signedWith(process.env.AWS_SECRET_ACCESS_KEY!)
      .send(new PostToConnectionCommand({ ConnectionId: 'no-such-connection', Data: Buffer.from('{}') }))
      .catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(GoneException);
  }, 60_000);

  it('keeps every subscription of a burst: subscribe messages handled at once each keep theirs', async () => {
    for (const ws of open.splice(0)) ws.terminate();
    const headers = { Authorization: `Bearer ${env.adminToken}`, 'Content-Type': 'application/json' };
    const orgId = ((await fetch(`${env.runtime.url}${API}/organizations`, { headers }).then((r) => r.json())) as { id: string }[])[0]!.id;
    const stored = () => container().store.liveConnections.listByOrg(orgId);
    const deadline = Date.now() + 20_000;
    while ((await stored()).length > 0 && Date.now() < deadline) await sleep(100);
    const create = async (route: string, body: Record<string, unknown>) =>
      ((await fetch(`${env.runtime.url}${API}${route}`, { method: 'POST', headers, body: JSON.stringify(body) }).then((r) => r.json())) as { id: string }).id;
    const version = Object.entries(
      (await fetch(`${env.runtime.url}${API}/openshift-versions`, { headers }).then((r) => r.json())) as Record<string, { default?: boolean }>,
    ).find(([, v]) => v.default)![0];
    const clusterId = await create('/clusters', { name: 'burst', openshift_version: version, pull_secret: PULL_SECRET, base_dns_domain: 'example.com' });
    const infraEnvIds = [
      await create('/infra-envs', { name: 'burst-1', pull_secret: PULL_SECRET, cluster_id: clusterId }),
      await create('/infra-envs', { name: 'burst-2', pull_secret: PULL_SECRET, cluster_id: clusterId }),
    ];
    // As the console sends a cluster page's subscriptions: all at once, within the cap of 5 a second.
    const subscriber = await connect(env.adminToken);
    const asked = [{ cluster_id: clusterId }, ...infraEnvIds.map((id) => ({ infra_env_id: id })), { org: true }];
    for (const subscription of asked) subscriber.ws!.send(JSON.stringify({ action: 'subscribe', ...subscription }));
    await until(
      'four subscribed',
      () => subscriber.messages.filter((m) => m.type === 'subscribed'),
      (replies) => replies.length === asked.length,
    );
    const [connection] = await stored();
    expect([...connection!.subscriptions].sort()).toEqual([`cluster:${clusterId}`, ...infraEnvIds.map((id) => `infra-env:${id}`), 'org'].sort());
  }, 60_000);
});
