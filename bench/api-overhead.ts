/**
 * What routing (openapi-backend), request validation and agent authentication (ES256 JWT) cost
 * on the hot agent path: the Api function handling an agent's poll,
 * `GET /v2/infra-envs/{id}/hosts/{host_id}/instructions` with X-Secret-Key, against a bare handler
 * that calls the same use case directly. Both in this process, sequential, on the same DynamoDB
 * Local, so the ratio is the pipeline's overhead per request.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { lambdaContext } from '../bin/local/functions.js';
import { startRuntime } from '../bin/local/runtime.js';
import { container } from '../lambdas/platform/container.js';
import { issueAgentToken } from '../lambdas/usecases/agent-tokens.js';
import { getNextSteps, registerHost } from '../lambdas/usecases/agent.js';
import { registerInfraEnv } from '../lambdas/usecases/infra-envs.js';
import { randomUUID } from 'node:crypto';
import { BENCH_PULL_SECRET } from './support/fixtures.js';

async function timePerRequest(run: () => Promise<unknown>, durationMs: number): Promise<{ perRequestMs: number; requests: number }> {
  const warmEnd = Date.now() + Math.min(2_000, durationMs / 4);
  while (Date.now() < warmEnd) await run();
  let requests = 0;
  const started = performance.now();
  const end = Date.now() + durationMs;
  while (Date.now() < end) {
    await run();
    requests += 1;
  }
  return { perRequestMs: (performance.now() - started) / requests, requests };
}

export async function apiOverhead(options: { durationMs?: number } = {}): Promise<Record<string, number>> {
  const durationMs = options.durationMs ?? Number(process.env.BENCH_DURATION_MS ?? 10_000);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'assisted-bench-'));
  const runtime = await startRuntime({ port: 0, dnsPort: 0, dataDir });
  try {
    const ports = container();
    const principal = { kind: 'user' as const, orgId: runtime.orgId, tokenId: 'bench', role: 'admin' as const };
    const infraEnv = await registerInfraEnv(ports, principal, { name: 'bench', pull_secret: BENCH_PULL_SECRET });
    const infraEnvId = infraEnv.id as string;
    const agentToken = await issueAgentToken(ports.config.agentSigningKeyPem, { orgId: runtime.orgId, infraEnvId });
    const agent = { kind: 'agent' as const, orgId: runtime.orgId, infraEnvId };
    const hostId = randomUUID();
    await registerHost(ports, agent, infraEnvId, { host_id: hostId, discovery_agent_version: 'bench' });

    const event = {
      resource: '/{proxy+}',
      path: `/api/assisted-install/v2/infra-envs/${infraEnvId}/hosts/${hostId}/instructions`,
      httpMethod: 'GET',
      headers: { 'X-Secret-Key': agentToken, Accept: 'application/json', discovery_agent_version: 'bench' },
      multiValueHeaders: {},
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      pathParameters: null,
      stageVariables: null,
      requestContext: {} as APIGatewayProxyEvent['requestContext'],
      body: null,
      isBase64Encoded: false,
    } satisfies APIGatewayProxyEvent;

    // Loaded after the runtime set the functions' environment, as the runtime itself loads it.
    const { handler: apiHandler } = await import('../lambdas/handlers/api/index.js');
    const full = await timePerRequest(async () => {
      const result = await apiHandler(structuredClone(event) as never, lambdaContext('Api'));
      if (result.statusCode !== 200) throw new Error(`unexpected ${result.statusCode}: ${result.body}`);
    }, durationMs);
    const bare = await timePerRequest(async () => JSON.stringify(await getNextSteps(ports, agent, infraEnvId, hostId, { agentVersion: 'bench' })), durationMs);

    console.log(`Api function, agent poll GET .../instructions  ${full.perRequestMs.toFixed(2)} ms/request (${full.requests} requests)`);
    console.log(`bare handler, same use case                     ${bare.perRequestMs.toFixed(2)} ms/request (${bare.requests} requests)`);
    console.log(`ratio full / bare                               ${(full.perRequestMs / bare.perRequestMs).toFixed(2)}`);
    console.log(`overhead (routing + validation + auth)          ${(full.perRequestMs - bare.perRequestMs).toFixed(2)} ms/request`);
    return { fullMs: full.perRequestMs, bareMs: bare.perRequestMs, ratio: full.perRequestMs / bare.perRequestMs };
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
