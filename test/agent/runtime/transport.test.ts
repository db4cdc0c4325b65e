/** The transport's retry policies (upstream's agent and installer clients) and its headers. */
import { afterEach, describe, expect, it } from 'vitest';
import { createTransport } from '../../../agent/src/transport.js';
import { FakeService } from './fake-service.js';

const services: FakeService[] = [];
afterEach(async () => {
  for (const service of services.splice(0)) await service.stop();
});

async function serviceAnswering(statuses: number[]): Promise<FakeService> {
  let i = 0;
  const service = await new FakeService(() => ({ status: statuses[Math.min(i++, statuses.length - 1)]!, body: { code: 'x', reason: 'r' } })).start();
  services.push(service);
  return service;
}

const fast = { baseMs: 5, maxMs: 10 };

describe('agent transport', () => {
  it("'agent' retries 503/504 three times, nothing else", async () => {
    const busy = await serviceAnswering([503, 504, 503, 503, 200]);
    const api = createTransport({ url: busy.url, retryDelays: fast });
    expect((await api.call('GET', '/v2/x')).status).toBe(503);
    expect(busy.requests).toHaveLength(4);

    const failing = await serviceAnswering([500, 200]);
    expect((await createTransport({ url: failing.url, retryDelays: fast }).call('GET', '/v2/x')).status).toBe(500);
    expect(failing.requests).toHaveLength(1);
  });

  it("'installer' rides out 404 and 5xx until the service answers", async () => {
    const service = await serviceAnswering([404, 404, 502, 425, 200]);
    const response = await createTransport({ url: service.url, retryDelays: fast }).call('PUT', '/v2/p', { retry: 'installer', json: { a: 1 } });
    expect(response.status).toBe(200);
    expect(service.requests.map((r) => r.body)).toEqual(Array(5).fill('{"a":1}'));
  });

  it("'none' makes one attempt; a network failure rejects after the agent's retries", async () => {
    const service = await serviceAnswering([503]);
    expect((await createTransport({ url: service.url, retryDelays: fast }).call('GET', '/v2/x', { retry: 'none' })).status).toBe(503);
    expect(service.requests).toHaveLength(1);
    const port = service.port;
    await service.stop();
    await expect(createTransport({ url: `http://127.0.0.1:${port}`, retryDelays: fast }).call('GET', '/v2/x')).rejects.toThrow(
      /GET \/api\/assisted-install\/v2\/x: ECONNREFUSED/,
    );
  });

  it('sends the agent headers and query, under <url>/api/assisted-install', async () => {
    const service = await serviceAnswering([200]);
    await createTransport({ url: `${service.url}/`, token: 'tok', agentVersion: 'quay.io/a:1' }).call('GET', '/v2/infra-envs/i/hosts/h/instructions', {
      query: { timestamp: '42' },
    });
    const [request] = service.requests;
    expect(request!.path).toBe('/api/assisted-install/v2/infra-envs/i/hosts/h/instructions');
    expect(request!.query.get('timestamp')).toBe('42');
    expect(request!.headers).toMatchObject({ 'x-secret-key': 'tok', discovery_agent_version: 'quay.io/a:1', accept: 'application/json' });
  });
});
