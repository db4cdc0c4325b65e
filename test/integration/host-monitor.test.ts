/** The scheduled host monitor: what only time changes, visiting only watched hosts. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { container } from '../../lambdas/platform/container.js';
import { issueAgentToken } from '../../lambdas/usecases/agent-tokens.js';
import { monitorHosts } from '../../lambdas/usecases/host-monitor.js';
import { inventory, PULL_SECRET } from '../support/fixtures.js';
import { testRuntime } from '../support/runtime.js';

describe('host monitor', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  let infraEnvId: string;
  let agent: Record<string, string>;

  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${env.runtime.url}/api/assisted-install/v2${path}`, {
      method, headers: { ...(body ? { 'Content-Type': 'application/json' } : {}), ...headers }, body: body ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };

  beforeAll(async () => {
    env = await testRuntime();
    const user = { Authorization: `Bearer ${env.adminToken}` };
    const version = Object.keys((await call('GET', '/openshift-versions', undefined, user)).body)[0];
    const cluster = (await call('POST', '/clusters', { name: 'monitored', openshift_version: version, pull_secret: PULL_SECRET }, user)).body;
    infraEnvId = (await call('POST', '/infra-envs', { name: 'monitored', pull_secret: PULL_SECRET, cluster_id: cluster.id }, user)).body.id;
    agent = { 'X-Secret-Key': await issueAgentToken(container().config.agentSigningKeyPem, { orgId: 'default', infraEnvId }) };
  }, 60_000);
  afterAll(async () => env?.close());

  it('marks a host that stopped polling disconnected, and leaves hosts that poll alone', async () => {
    const silent = randomUUID();
    const polling = randomUUID();
    for (const [index, hostId] of [silent, polling].entries()) {
      expect((await call('POST', `/infra-envs/${infraEnvId}/hosts`, { host_id: hostId }, agent)).status).toBe(201);
      await call('POST', `/infra-envs/${infraEnvId}/hosts/${hostId}/instructions`, { step_type: 'inventory', output: inventory(`node-${index}`) }, agent);
    }
    const key = (hostId: string) => ({ orgId: 'default', infraEnvId, hostId });
    const before = (await container().store.hosts.get(key(silent)))!;
    expect(before.monitorShard).toBeTypeOf('number');
    expect(before.status).not.toBe('disconnected');
    // The silent host's last poll was four minutes ago; the other polled just now.
    await container().store.hosts.mutate(key(silent), (h) => ({ ...h, attributes: { ...h.attributes, checked_in_at: new Date(Date.now() - 4 * 60_000).toISOString() } }));

    const pass = await monitorHosts(container());
    expect(pass.failed).toBe(0);
    expect(pass.visited).toBeGreaterThanOrEqual(2);
    expect((await container().store.hosts.get(key(silent)))!.status).toBe('disconnected');
    expect((await container().store.hosts.get(key(polling)))!.status).not.toBe('disconnected');

    const events = (await call('GET', `/events?host_ids=${silent}&infra_env_id=${infraEnvId}`, undefined, { Authorization: `Bearer ${env.adminToken}` })).body as { message: string }[];
    expect(events.some((e) => /to disconnected/.test(e.message))).toBe(true);
  });
});
