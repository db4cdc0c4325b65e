/**
 * One request, sent to both services at once: ours with the admin token (or the infra-env's agent
 * token), upstream's with no credentials (it runs with AUTH_TYPE=none and takes any X-Secret-Key).
 * Keep-alive connections, a bounded wait for each answer.
 */
import { Agent, request } from 'undici';
import { issueAgentToken } from '../../lambdas/usecases/agent-tokens.js';
import { container } from '../../lambdas/platform/container.js';

export type Side = 'ours' | 'upstream';
export const SIDES: readonly Side[] = ['ours', 'upstream'];

export interface Answer {
  status: number;
  body: unknown;
  text: string;
  ms: number;
}

export interface HttpRequest {
  method: string;
  /** Below /api/assisted-install/v2, with its query. */
  path: string;
  /** JSON body (serialized), or `raw` text sent as is (malformed bodies). */
  body?: unknown;
  raw?: string;
  /** Sent as the agent of this infra-env (X-Secret-Key) instead of as the user. */
  agentOf?: string;
  headers?: Record<string, string>;
}

const ANSWER_TIMEOUT_MS = 120_000;
const API_PREFIX = '/api/assisted-install/v2';

export interface ServiceEndpoint {
  side: Side;
  url: string;
  send(req: HttpRequest): Promise<Answer>;
  close(): Promise<void>;
}

export function endpoint(side: Side, url: string, credentials: { userToken?: string; agentToken?: (infraEnvId: string) => Promise<string> }): ServiceEndpoint {
  const dispatcher = new Agent({ connections: 64, keepAliveTimeout: 30_000, headersTimeout: ANSWER_TIMEOUT_MS, bodyTimeout: ANSWER_TIMEOUT_MS });
  return {
    side,
    url,
    async send(req) {
      const headers: Record<string, string> = { ...(req.body !== undefined || req.raw !== undefined ? { 'content-type': 'application/json' } : {}) };
      if (req.agentOf !== undefined) headers['x-secret-key'] = credentials.agentToken ? await credentials.agentToken(req.agentOf) : 'conformance-agent';
      else if (credentials.userToken) headers.authorization = `Bearer ${credentials.userToken}`;
      Object.assign(headers, req.headers);
      const started = performance.now();
      try {
        const answer = await request(`${url}${API_PREFIX}${req.path}`, {
          method: req.method as 'GET',
          headers,
          body: req.raw ?? (req.body === undefined ? undefined : JSON.stringify(req.body)),
          dispatcher,
        });
        const text = await answer.body.text();
        let body: unknown;
        if (text) {
          try {
            body = JSON.parse(text);
          } catch {
            body = text;
          }
        }
        return { status: answer.statusCode, body, text, ms: performance.now() - started };
      } catch (error) {
        // A transport failure is an answer of its own (status 0): it then differs from the other side's.
        return { status: 0, body: { transport_error: String((error as Error).message) }, text: String(error), ms: performance.now() - started };
      }
    },
    close: () => dispatcher.close(),
  };
}

/** Our agent tokens, as the service signs them (its key is in this process's environment once the runtime started). */
export function ourAgentTokens(orgId = 'default'): (infraEnvId: string) => Promise<string> {
  const cache = new Map<string, Promise<string>>();
  return (infraEnvId) => {
    let token = cache.get(infraEnvId);
    if (!token) {
      token = issueAgentToken(container().config.agentSigningKeyPem, { orgId, infraEnvId });
      cache.set(infraEnvId, token);
    }
    return token;
  };
}
