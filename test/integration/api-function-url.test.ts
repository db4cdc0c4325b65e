/**
 * The API function answering the agents' function URL (payload format 2.0) as it answers the REST
 * API (1.0): the same operations, authentication headers and answers, called in this thread with
 * the local runtime's table, the 1.0 event built by the local gateway from the same request.
 */
import { randomUUID } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyResult, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toProxyEvent } from '../../bin/local/api-gateway.js';
import { catalogueAgentImages } from '../../lambdas/domain/catalogues/catalogues.js';
import { handler } from '../../lambdas/handlers/api/index.js';
import { container } from '../../lambdas/platform/container.js';
import { issueAgentToken } from '../../lambdas/usecases/agent-tokens.js';
import { inventory, PULL_SECRET } from '../support/fixtures.js';
import { functionUrlEvent } from '../support/function-url-event.js';
import { expectMatchesSchema } from '../support/response-schema.js';
import { testRuntime } from '../support/runtime.js';

type Json = Record<string, any>;
const API = '/api/assisted-install/v2';
const lambda = { awsRequestId: 'test-request', functionName: 'AgentApi', getRemainingTimeInMillis: () => 29_000 } as unknown as Context;

/** The 1.0 event the local gateway (as API Gateway's REST proxy) makes of the request. */
function restEvent(method: string, pathAndQuery: string, headers: Record<string, string>, body?: string) {
  const rawHeaders = Object.entries(headers).flat();
  const request = {
    url: pathAndQuery,
    method,
    rawHeaders,
    headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])),
    httpVersion: '1.1',
    socket: { remoteAddress: '127.0.0.1' },
  };
  return toProxyEvent(request as unknown as IncomingMessage, Buffer.from(body ?? ''));
}

/** The answer's body as the client reads it (inflated when it came gzipped). */
function text(answer: APIGatewayProxyResult | APIGatewayProxyStructuredResultV2): string {
  const bytes = answer.isBase64Encoded ? Buffer.from(answer.body ?? '', 'base64') : Buffer.from(answer.body ?? '', 'utf8');
  return (answer.headers?.['Content-Encoding'] === 'gzip' ? gunzipSync(bytes) : bytes).toString('utf8');
}

describe('API function behind a function URL', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  let infraEnvId: string;
  let agentHeaders: Record<string, string>;
  let userHeaders: Record<string, string>;

  const both = async (method: string, pathAndQuery: string, headers: Record<string, string>, body?: unknown) => {
    const raw = body === undefined ? undefined : JSON.stringify(body);
    const withType = raw === undefined ? headers : { ...headers, 'Content-Type': 'application/json' };
    const v1 = await handler(restEvent(method, pathAndQuery, withType, raw), lambda);
    const v2 = await handler(functionUrlEvent(method, pathAndQuery, withType, raw), lambda);
    return { v1, v2 };
  };

  beforeAll(async () => {
    env = await testRuntime();
    userHeaders = { Authorization: `Bearer ${env.adminToken}` };
    const call = async (method: string, path: string, body?: unknown) =>
      JSON.parse(
        text(
          await handler(
            functionUrlEvent(
              method,
              `${API}${path}`,
              { ...userHeaders, 'Content-Type': 'application/json' },
              body === undefined ? undefined : JSON.stringify(body),
            ),
            lambda,
          ),
        ),
      );
    const version = Object.keys(await call('GET', '/openshift-versions'))[0]!;
    const cluster = await call('POST', '/clusters', {
      name: 'function-url',
      openshift_version: version,
      pull_secret: PULL_SECRET,
      base_dns_domain: 'example.com',
    });
    infraEnvId = (await call('POST', '/infra-envs', { name: 'function-url', pull_secret: PULL_SECRET, cluster_id: cluster.id })).id;
    agentHeaders = {
      'X-Secret-Key': await issueAgentToken(container().config.agentSigningKeyPem, { orgId: 'default', infraEnvId }),
      discovery_agent_version: catalogueAgentImages().agent,
    };
  }, 180_000);
  afterAll(async () => env?.close());

  it('serves a user (Bearer) the same answer through both doors', async () => {
    const { v1, v2 } = await both('GET', `${API}/infra-envs/${infraEnvId}`, userHeaders);
    expect([v1.statusCode, v2.statusCode]).toEqual([200, 200]);
    const [a, b] = [JSON.parse(text(v1)), JSON.parse(text(v2))];
    expectMatchesSchema('GetInfraEnv', 200, b);
    expect(b).toEqual(a);
    expect(v2.headers).toMatchObject({ 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
  });

  it('registers and steers an agent (X-Secret-Key) through the function URL, gzipped when asked', async () => {
    const hostId = randomUUID();
    const registered = await handler(
      functionUrlEvent(
        'POST',
        `${API}/infra-envs/${infraEnvId}/hosts`,
        { ...agentHeaders, 'Content-Type': 'application/json' },
        JSON.stringify({ host_id: hostId, discovery_agent_version: agentHeaders.discovery_agent_version }),
      ),
      lambda,
    );
    expect(registered.statusCode, text(registered)).toBe(201);
    expectMatchesSchema('v2RegisterHost', 201, JSON.parse(text(registered)));

    // Upstream's Go agent asks for gzip (its transport does) and posts JSON, which a function URL passes as text.
    const instructions = `${API}/infra-envs/${infraEnvId}/hosts/${hostId}/instructions`;
    const poll = await handler(
      functionUrlEvent('GET', `${instructions}?timestamp=${Math.floor(Date.now() / 1000)}`, { ...agentHeaders, 'Accept-Encoding': 'gzip' }),
      lambda,
    );
    expect(poll.statusCode, text(poll)).toBe(200);
    expectMatchesSchema('v2GetNextSteps', 200, JSON.parse(text(poll)));
    const stepId = (JSON.parse(text(poll)) as Json).instructions[0].step_id as string;
    const reply = JSON.stringify({ step_type: 'inventory', step_id: stepId, exit_code: 0, output: inventory('function-url-0') });
    // A base64 body (a function URL encodes what it does not take for text) is read the same.
    const posted = await handler(
      functionUrlEvent('POST', instructions, { ...agentHeaders, 'Content-Type': 'application/json' }, Buffer.from(reply).toString('base64'), true),
      lambda,
    );
    expect(posted.statusCode, text(posted)).toBe(204);

    const host = await handler(
      functionUrlEvent('GET', `${API}/infra-envs/${infraEnvId}/hosts/${hostId}`, { ...userHeaders, 'Accept-Encoding': 'gzip, deflate, br' }),
      lambda,
    );
    expect(host.statusCode).toBe(200);
    expect(host.headers).toMatchObject({ 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' });
    expect(JSON.parse(text(host))).toMatchObject({ id: hostId, status: expect.any(String), inventory: expect.stringContaining('cpu') });
  });

  it('refuses the same way through both doors: no token, a bad token, an unknown path', async () => {
    for (const [headers, status] of [
      [{}, 401],
      [{ 'X-Secret-Key': 'not-a-token' }, 401],
    ] as const) {
      const { v1, v2 } = await both('GET', `${API}/infra-envs/${infraEnvId}/hosts/${randomUUID()}/instructions`, headers);
      expect([v1.statusCode, v2.statusCode]).toEqual([status, status]);
      expect(JSON.parse(text(v2))).toEqual(JSON.parse(text(v1)));
    }
    const { v1, v2 } = await both('GET', `${API}/infra-envs/..`, userHeaders);
    expect([v1.statusCode, v2.statusCode]).toEqual([400, 400]);
  });

  it('sends image paths on to the public URL, query and all', async () => {
    const path = `/api/assisted-images/images/${infraEnvId}?image_token=abc&type=full-iso`;
    const answer = await handler(functionUrlEvent('GET', path, {}), lambda);
    expect(answer).toMatchObject({ statusCode: 307, headers: { Location: `${container().config.publicUrl}${path}` } });
  });
});
