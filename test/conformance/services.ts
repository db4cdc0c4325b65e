/**
 * Both services, side by side: ours as tests run it (test/support/runtime.ts: the embedded runtime
 * with a DynamoDB Local of its own, answers held until the follow-ups of each request are done),
 * upstream's from the shared tool (bench/support/upstream-service.ts, fast monitors).
 */
import { startUpstreamService, type UpstreamService } from '../../bench/support/upstream-service.js';
import { testRuntime } from '../support/runtime.js';
import { endpoint, ourAgentTokens, type ServiceEndpoint, type Side } from './client.js';

export interface BothServices {
  endpoints: Record<Side, ServiceEndpoint>;
  upstream: UpstreamService;
  stop(): Promise<void>;
}

export async function startBothServices(options: { apiInstances?: number } = {}): Promise<BothServices> {
  // Upstream first: it is the quicker to start and the likelier to be missing (PostgreSQL 15).
  const upstream = await startUpstreamService();
  let ours: Awaited<ReturnType<typeof testRuntime>>;
  try {
    ours = await testRuntime({ syntheticBaseImages: false, ...(options.apiInstances ? { apiInstances: options.apiInstances } : {}) });
  } catch (error) {
    await upstream.stop();
    throw error;
  }
  const endpoints: Record<Side, ServiceEndpoint> = {
    ours: endpoint('ours', ours.runtime.url, { userToken: ours.adminToken, agentToken: ourAgentTokens(ours.runtime.orgId) }),
    upstream: endpoint('upstream', upstream.url, {}),
  };
  return {
    endpoints,
    upstream,
    async stop() {
      await Promise.allSettled([endpoints.ours.close(), endpoints.upstream.close()]);
      await Promise.allSettled([ours.close(), upstream.stop()]);
    },
  };
}
