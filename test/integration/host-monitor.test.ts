/** The scheduled host monitor: what only time changes, visiting only watched hosts. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { container } from '../../lambdas/platform/container.js';
import { issueAgentToken } from '../../lambdas/usecases/agent-tokens.js';
import { refreshLoadedHost, loadSurroundings } from '../../lambdas/usecases/host-refresh.js';
import { monitorHosts } from '../../lambdas/usecases/host-monitor.js';
import { inventory, PULL_SECRET, AGENT_VERSION_HEADER } from '../support/fixtures.js';
import { testRuntime } from '../support/runtime.js';

describe('host monitor', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  let infraEnvId: string;
  let agent: Record<string, string>;

  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${env.runtime.url}/api/assisted-install/v2${path}`, {
      method,
      headers: { ...(body ? { 'Content-Type': 'application/json' } : {}), ...headers },
      body: body ? JSON.stringify(body) : undefined,
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
    agent = { ...AGENT_VERSION_HEADER, 'X-Secret-Key': await issueAgentToken(container().config.agentSigningKeyPem, { orgId: 'default', infraEnvId }) };
  }, 180_000);
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
    await container().store.hosts.mutate(key(silent), (h) => ({
      ...h,
      attributes: { ...h.attributes, checked_in_at: new Date(Date.now() - 4 * 60_000).toISOString() },
    }));

    const pass = await monitorHosts(container());
    expect(pass.failed).toBe(0);
    expect(pass.visited).toBeGreaterThanOrEqual(2);
    expect((await container().store.hosts.get(key(silent)))!.status).toBe('disconnected');
    expect((await container().store.hosts.get(key(polling)))!.status).not.toBe('disconnected');

    const events = (await call('GET', `/events?host_ids=${silent}&infra_env_id=${infraEnvId}`, undefined, { Authorization: `Bearer ${env.adminToken}` }))
      .body as { message: string }[];
    expect(events.some((e) => /to disconnected/.test(e.message))).toBe(true);
  });

  const key = (hostId: string) => ({ orgId: 'default', infraEnvId, hostId });
  const register = async (name: string) => {
    const hostId = randomUUID();
    expect((await call('POST', `/infra-envs/${infraEnvId}/hosts`, { host_id: hostId }, agent)).status).toBe(201);
    expect(
      (await call('POST', `/infra-envs/${infraEnvId}/hosts/${hostId}/instructions`, { step_type: 'inventory', output: inventory(name) }, agent)).status,
    ).toBe(204);
    return hostId;
  };
  const setCheckedIn = (hostId: string, msAgo: number) =>
    container().store.hosts.mutate(key(hostId), (h) => ({ ...h, attributes: { ...h.attributes, checked_in_at: new Date(Date.now() - msAgo).toISOString() } }));
  /** Passes until one judges nothing whole (the cluster settled, the stream's follow-ups of each pass's writes delivered first), at most five. */
  const settle = async () => {
    for (let i = 0; i < 5; i++) {
      await env.runtime.streams.drained();
      if ((await monitorHosts(container())).judgedWhole === 0) return;
    }
    throw new Error('the cluster never settled in 5 monitor passes');
  };

  it('on a quiet cluster loads only hosts whose deadlines may have passed; a change has the cluster judged whole once', async () => {
    const hostId = await register('quiet-node');
    await settle();
    const quiet = await monitorHosts(container());
    expect(quiet.judgedWhole).toBe(0);
    expect(quiet.judged).toBe(0);
    expect(quiet.visited).toBeGreaterThanOrEqual(1);

    // Only time changed: this host's silence passed the limit, so it alone is loaded and judged.
    await setCheckedIn(hostId, 4 * 60_000);
    const timed = await monitorHosts(container());
    expect(timed).toMatchObject({ judged: 1, judgedWhole: 0, disconnected: 1 });

    // A reply changed one host: its peers' verdicts may follow, so the next pass judges the cluster whole.
    const other = await register('changed-node');
    const changed = await monitorHosts(container());
    expect(changed.judgedWhole).toBe(1);
    expect(changed.judged).toBe(changed.visited);
    expect((await container().store.hosts.get(key(other)))!.status).not.toBe('disconnected');
  });

  it('judges a cluster whole again for news to its hosts (a hostname), not for a host refreshing what no peer reads', async () => {
    const hostId = randomUUID();
    expect((await call('POST', `/infra-envs/${infraEnvId}/hosts`, { host_id: hostId }, agent)).status).toBe(201);
    // Checked in: its liveness item exists, where its news version is kept.
    await container().store.hosts.checkIn(key(hostId), { checkedInAt: new Date().toISOString() });
    expect(
      (await call('POST', `/infra-envs/${infraEnvId}/hosts/${hostId}/instructions`, { step_type: 'inventory', output: inventory('news-node') }, agent)).status,
    ).toBe(204);
    await env.runtime.streams.drained();
    await settle();
    const write = async (attributes: Record<string, unknown>) => {
      await container().store.hosts.mutate(key(hostId), (h) => ({ ...h, updatedAt: new Date().toISOString(), attributes: { ...h.attributes, ...attributes } }));
      await env.runtime.streams.drained();
    };
    // Its own report, read by no peer: written, but no news (before #49 any write had the cluster judged whole).
    await write({ ntp_sources: JSON.stringify([{ source_name: `ntp-${randomUUID()}`, source_state: 'synced' }]) });
    expect((await monitorHosts(container())).judgedWhole).toBe(0);
    // A hostname peers read: news.
    await write({ requested_hostname: `renamed-${hostId.slice(0, 8)}` });
    expect((await monitorHosts(container())).judgedWhole).toBe(1);
  });

  it('brings a disconnected host back as soon as it polls, without waiting for a pass', async () => {
    const hostId = await register('returning-node');
    await setCheckedIn(hostId, 4 * 60_000);
    await monitorHosts(container());
    expect((await container().store.hosts.get(key(hostId)))!.status).toBe('disconnected');
    expect((await call('GET', `/infra-envs/${infraEnvId}/hosts/${hostId}/instructions`, undefined, agent)).status).toBe(200);
    expect((await container().store.hosts.get(key(hostId)))!.status).not.toBe('disconnected');
  });

  it('never writes a verdict reached on a stale copy: a host that polled after it was read stays connected', async () => {
    const hostId = await register('busy-node');
    await setCheckedIn(hostId, 4 * 60_000);
    const stale = (await container().store.hosts.get(key(hostId)))!;
    // The host polls between the monitor's read and its write.
    expect((await call('GET', `/infra-envs/${infraEnvId}/hosts/${hostId}/instructions`, undefined, agent)).status).toBe(200);
    const after = await refreshLoadedHost(container(), stale, await loadSurroundings(container().store, stale));
    expect(after!.status).not.toBe('disconnected');
    expect((await container().store.hosts.get(key(hostId)))!.status).not.toBe('disconnected');
  });

  it('fails a host left in installing for more than 20 minutes (its installer never started), not before', async () => {
    const hostId = await register('never-started');
    const seed = (minutesAgo: number) =>
      container().store.hosts.mutate(key(hostId), (h) => ({
        ...h,
        status: 'installing',
        attributes: { ...h.attributes, status_updated_at: new Date(Date.now() - minutesAgo * 60_000).toISOString(), checked_in_at: new Date().toISOString() },
      }));
    await seed(19);
    await monitorHosts(container());
    expect((await container().store.hosts.get(key(hostId)))!.status).toBe('installing');
    await seed(21);
    await monitorHosts(container());
    const failed = (await container().store.hosts.get(key(hostId)))!;
    expect([failed.status, failed.attributes.status_info]).toEqual(['error', 'Host failed to install due to timeout while starting installation']);
  });

  it('disconnects a pool host that stopped polling (disconnected-unbound) and brings it back when it polls', async () => {
    const user = { Authorization: `Bearer ${env.adminToken}` };
    const pool = (await call('POST', '/infra-envs', { name: 'pool', pull_secret: PULL_SECRET }, user)).body.id as string;
    const poolAgent = {
      ...AGENT_VERSION_HEADER,
      'X-Secret-Key': await issueAgentToken(container().config.agentSigningKeyPem, { orgId: 'default', infraEnvId: pool }),
    };
    const hostId = randomUUID();
    expect((await call('POST', `/infra-envs/${pool}/hosts`, { host_id: hostId }, poolAgent)).status).toBe(201);
    expect(
      (await call('POST', `/infra-envs/${pool}/hosts/${hostId}/instructions`, { step_type: 'inventory', output: inventory('pool-node') }, poolAgent)).status,
    ).toBe(204);
    const poolKey = { orgId: 'default', infraEnvId: pool, hostId };
    expect((await container().store.hosts.get(poolKey))!.status).toMatch(/-unbound$/);
    await container().store.hosts.mutate(poolKey, (h) => ({
      ...h,
      attributes: { ...h.attributes, checked_in_at: new Date(Date.now() - 4 * 60_000).toISOString() },
    }));
    await monitorHosts(container());
    expect((await container().store.hosts.get(poolKey))!.status).toBe('disconnected-unbound');
    expect(
      (await call('GET', `/infra-envs/${pool}/hosts/${hostId}/instructions?timestamp=${Math.floor(Date.now() / 1000)}`, undefined, poolAgent)).status,
    ).toBe(200);
    expect((await container().store.hosts.get(poolKey))!.status).not.toBe('disconnected-unbound');
  });

  it('registers a host being reset by the host table: while it reboots it stays resetting, otherwise it is discovered anew', async () => {
    for (const [stage, expected] of [
      ['Rebooting', 'resetting'],
      ['Installing', 'discovering'],
    ] as const) {
      const hostId = await register(`resetting-${stage}`);
      await container().store.hosts.mutate(key(hostId), (h) => ({
        ...h,
        status: 'resetting',
        attributes: { ...h.attributes, progress: { current_stage: stage } },
      }));
      const registered = await call('POST', `/infra-envs/${infraEnvId}/hosts`, { host_id: hostId }, agent);
      expect(registered.status).toBe(201);
      const events = (await call('GET', `/events?host_ids=${hostId}&infra_env_id=${infraEnvId}`, undefined, { Authorization: `Bearer ${env.adminToken}` }))
        .body as { message: string }[];
      const reset = events.filter((e) => e.message.includes('from resetting to'));
      if (expected === 'resetting') {
        expect(registered.body.status).toBe('resetting');
        expect(reset).toEqual([]);
      } else {
        // Discovered anew, then judged at once with the inventory it still has.
        expect(reset.map((e) => e.message)).toEqual([expect.stringContaining('from resetting to discovering')]);
        expect(registered.body.status).not.toBe('resetting');
      }
    }
  });

  it('times out the log collection of a failed host (it stays watched until then), then stops watching it', async () => {
    const hostId = await register('failed-node');
    const threeMinutesAgo = new Date(Date.now() - 3 * 60_000).toISOString();
    await container().store.hosts.mutate(key(hostId), (h) => ({
      ...h,
      status: 'error',
      attributes: { ...h.attributes, status_updated_at: threeMinutesAgo, logs_info: '' },
    }));
    const pass = await monitorHosts(container());
    expect(pass.failed).toBe(0);
    const after = (await container().store.hosts.get(key(hostId)))!;
    expect(after.attributes.logs_info).toBe('timeout');
    expect(after.monitorShard).toBeUndefined();
  });
});
