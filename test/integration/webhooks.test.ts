/**
 * Webhooks (issue 48) end to end on loopback: an organisation registers an endpoint, the table's
 * stream turns cluster changes into signed deliveries to a real HTTP receiver, in order per
 * resource; with the receiver down nothing is lost, resends carry the same delivery id (the
 * receiver marks them duplicates), and a delivery past the retry window is dead-lettered with its
 * last error. Retry settings are shortened for the test (WEBHOOK_RETRY_*), the sweep runs every 200 ms.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../lambdas/domain/events/webhooks.js';
import { container } from '../../lambdas/platform/container.js';
import { PULL_SECRET } from '../support/fixtures.js';
import { expectMatchesSchema } from '../support/response-schema.js';
import { testRuntime } from '../support/runtime.js';

const API = '/api/assisted-install/v2';
const RETRY_SETTINGS = { WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_RETRY_MAX_MS: '400', WEBHOOK_RETRY_WINDOW_MS: '8000', WEBHOOK_TIMEOUT_MS: '2000' };

interface Received {
  id: string;
  body: { resource: { id: string }; status?: string; event: string };
  duplicate: boolean;
  signed: boolean;
}

/** A webhook receiver on loopback: checks each signature, marks a delivery id seen before as a duplicate, can refuse the first try of each delivery. */
class Receiver {
  received: Received[] = [];
  refuseFirstTry = false;
  secret = '';
  private server?: http.Server;
  private readonly tried = new Set<string>();
  port = 0;

  async start(port = 0): Promise<void> {
    this.server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const id = String(request.headers['x-assisted-delivery']);
        const signed = verifyWebhookSignature(
          this.secret,
          String(request.headers['x-assisted-timestamp']),
          body,
          String(request.headers['x-assisted-signature']),
        );
        const duplicate = this.received.some((seen) => seen.id === id);
        this.received.push({ id, body: JSON.parse(body), duplicate, signed });
        const refuse = this.refuseFirstTry && !this.tried.has(id);
        this.tried.add(id);
        response.writeHead(refuse ? 503 : 204).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }

  /** The first receipt of each delivery about a cluster, in arrival order: its statuses (the service's own moves, e.g. to pending-for-input, among them). */
  statusesOf(clusterId: string): string[] {
    return this.received.filter((r) => !r.duplicate && r.body.resource.id === clusterId && r.body.event === 'cluster-status').map((r) => r.body.status!);
  }

  /** Of those, the statuses the test wrote, in arrival order. */
  written(clusterId: string, path: readonly string[]): string[] {
    return this.statusesOf(clusterId).filter((status) => path.includes(status));
  }
}

async function until<T>(what: string, read: () => T | Promise<T>, ok: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${timeoutMs} ms; last: ${JSON.stringify(value).slice(0, 1500)}`);
    await sleep(100);
  }
}

describe('webhooks', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  const receiver = new Receiver();
  let orgId = '';
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${env.runtime.url}${API}${path}`, {
      method,
      headers: { Authorization: `Bearer ${env.adminToken}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined, text };
  };
  /** A cluster's status written as the service writes it, so that the table's stream carries the change. */
  const setStatus = (clusterId: string, status: string) =>
    container().store.clusters.mutate({ orgId, clusterId }, (cluster) => ({ ...cluster, status: status as never }));
  const newCluster = async (name: string) => {
    const created = await call('POST', '/clusters', { name, openshift_version: '4.16', pull_secret: PULL_SECRET, base_dns_domain: 'example.com' });
    expect(created.status, created.text).toBe(201);
    return created.body.id as string;
  };

  beforeAll(async () => {
    Object.assign(process.env, RETRY_SETTINGS);
    await receiver.start();
    env = await testRuntime({ settleFollowUps: false, scheduleOverrides: { 'webhook-retries': 200 } });
    orgId = (await call('GET', '/organizations')).body[0].id;
  }, 180_000);
  afterAll(async () => {
    for (const name of Object.keys(RETRY_SETTINGS)) delete process.env[name];
    await env?.close();
    await receiver.stop();
  });

  it('registers loopback endpoints only, shows the secret once, and delivers signed events in order per resource', async () => {
    for (const url of ['http://10.0.0.1/hook', 'https://example.com/hook', 'ftp://127.0.0.1/x', 'http://user:pw@127.0.0.1/x']) {
      const refused = await call('POST', '/webhooks', { url, events: ['cluster-status'] });
      expect(refused.status, url).toBe(400);
    }
    expect((await call('POST', '/webhooks', { url: 'http://127.0.0.1:1/x', events: ['nonsense'] })).status).toBe(400);
    const created = await call('POST', '/webhooks', { url: `http://127.0.0.1:${receiver.port}/hook`, events: ['cluster-status', 'installed'] });
    expect(created.status, created.text).toBe(201);
    expectMatchesSchema('CreateWebhook', 201, created.body);
    receiver.secret = created.body.secret;
    const listed = await call('GET', '/webhooks');
    expectMatchesSchema('ListWebhooks', 200, listed.body);
    expect(listed.text).not.toContain(created.body.secret);

    const first = await newCluster('hooked-1');
    const second = await newCluster('hooked-2');
    const path = ['ready', 'preparing-for-installation', 'installing', 'finalizing', 'installed'];
    for (const status of path) {
      await setStatus(first, status);
      await setStatus(second, status);
    }
    for (const clusterId of [first, second]) {
      await until(
        `deliveries of ${clusterId}`,
        () => receiver.written(clusterId, path),
        (statuses) => statuses.length === path.length,
      );
      expect(receiver.written(clusterId, path)).toEqual(path);
      expect(receiver.statusesOf(clusterId)[0]).toBe('insufficient');
    }
    await until(
      'installed events',
      () => receiver.received.filter((r) => r.body.event === 'installed').length,
      (count) => count === 2,
    );
    expect(receiver.received.every((r) => r.signed)).toBe(true);
    const deliveries = await call('GET', `/webhooks/${created.body.id}/deliveries`);
    expectMatchesSchema('ListWebhookDeliveries', 200, deliveries.body);
    expect(deliveries.body.deliveries.every((d: { state: string }) => d.state === 'delivered')).toBe(true);
  }, 120_000);

  it('loses nothing while the receiver is down: resends carry the same delivery id, and the order holds', async () => {
    const clusterId = await newCluster('hooked-3');
    await until(
      'the first delivery',
      () => receiver.statusesOf(clusterId),
      (statuses) => statuses.length >= 1,
    );
    await receiver.stop();
    const path = ['ready', 'preparing-for-installation', 'installing'];
    for (const status of path) await setStatus(clusterId, status);
    const webhookId = (await call('GET', '/webhooks')).body[0].id;
    const failing = await until(
      'a failed attempt on record',
      () => call('GET', `/webhooks/${webhookId}/deliveries`),
      (answer) => answer.body.deliveries.some((d: { state: string; last_error?: string }) => d.state === 'pending' && /ECONNREFUSED/.test(d.last_error ?? '')),
    );
    expect(failing.status).toBe(200);
    // Back, refusing the first try of each delivery: each is sent again with the same id.
    receiver.refuseFirstTry = true;
    await receiver.start(receiver.port);
    await until(
      `deliveries of ${clusterId}`,
      () => receiver.written(clusterId, path),
      (statuses) => statuses.length === path.length,
      60_000,
    );
    // Each refused first try is sent again after its backoff: the last one's resend may still be on its way.
    await until(
      `resends of ${clusterId}'s deliveries`,
      () => receiver.received.filter((r) => r.duplicate && r.body.resource.id === clusterId).length,
      (resent) => resent >= path.length,
      60_000,
    );
    expect(receiver.written(clusterId, path)).toEqual(path);
    const ofCluster = receiver.received.filter((r) => r.body.resource.id === clusterId);
    expect(ofCluster.filter((r) => r.duplicate).length).toBeGreaterThanOrEqual(path.length);
    // A duplicate is a resend of one received before, never a new id.
    for (const duplicate of ofCluster.filter((r) => r.duplicate)) expect(ofCluster.some((r) => !r.duplicate && r.id === duplicate.id)).toBe(true);
    expect(receiver.received.every((r) => r.signed)).toBe(true);
    receiver.refuseFirstTry = false;
  }, 120_000);

  it('dead-letters a delivery past the retry window, with its last error, and moves on', async () => {
    const dead = await call('POST', '/webhooks', { url: 'http://127.0.0.1:9/nobody', events: ['cluster-status'] });
    expect(dead.status, dead.text).toBe(201);
    const clusterId = await newCluster('hooked-4');
    await setStatus(clusterId, 'ready');
    const listed = await until(
      'dead-lettered deliveries',
      () => call('GET', `/webhooks/${dead.body.id}/deliveries`),
      (answer) => answer.body.deliveries.length >= 2 && answer.body.deliveries.every((d: { state: string }) => d.state === 'dead'),
      40_000,
    );
    expect(listed.body.deliveries[0]).toMatchObject({ state: 'dead', last_error: expect.stringMatching(/ECONNREFUSED/) });
    expect(listed.body.deliveries[0].attempts).toBeGreaterThan(1);
    expect((await call('DELETE', `/webhooks/${dead.body.id}`)).status).toBe(204);
    expect((await call('DELETE', `/webhooks/${dead.body.id}`)).status).toBe(404);
  }, 90_000);
});
