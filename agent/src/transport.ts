/**
 * ApiTransport over HTTP(S): one keep-alive connection pool (undici) per process, shared by every
 * session a fleet runs; the agent's headers on every call; upstream's retry policies.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { Agent, EnvHttpProxyAgent, fetch, type Dispatcher } from 'undici';
import type { AgentLog, ApiCallOptions, ApiResponse, ApiTransport } from './contracts.js';

export interface RetryDelays {
  /** First delay between attempts; doubles each attempt up to maxMs, each wait drawn from [half, full]. */
  readonly baseMs: number;
  readonly maxMs: number;
}

/** Upstream's rehttp jitter: between 2 s and 10 s. */
export const UPSTREAM_RETRY_DELAYS: RetryDelays = { baseMs: 2_000, maxMs: 10_000 };

export interface TransportOptions {
  /** The service URL as given to --url (the API lives under `<url>/api/assisted-install`). */
  readonly url: string;
  /** Sent as X-Secret-Key. */
  readonly token?: string;
  readonly agentVersion?: string;
  /** PEM file added to the system trust store. */
  readonly caCertFile?: string;
  readonly insecure?: boolean;
  /** A pool to share (a fleet's sessions all use one); made from the options above when absent. */
  readonly dispatcher?: Dispatcher;
  readonly retryDelays?: RetryDelays;
  readonly log?: AgentLog;
  readonly random?: () => number;
  /** Told of every attempt's outcome (status 0: no answer), with its round trip: benches measure the service from the agents' side. */
  readonly onResponse?: (answer: { method: string; path: string; status: number; ms: number }) => void;
}

export interface PoolOptions {
  readonly caCertFile?: string;
  readonly insecure?: boolean;
  /** Sockets per origin; a fleet of hundreds queues on these instead of opening one per host. */
  readonly connections?: number;
}

const PROXY_VARIABLES = ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy'];

/** One pool for the process: keep-alive, upstream's 30 s dial timeout, the proxy from the environment. */
export function createConnectionPool(options: PoolOptions = {}): Dispatcher {
  const connect = {
    timeout: 30_000,
    ...(options.caCertFile ? { ca: [...rootCertificates, readFileSync(options.caCertFile, 'utf8')] } : {}),
    ...(options.insecure ? { rejectUnauthorized: false } : {}),
  };
  const agentOptions = {
    connect,
    connections: options.connections ?? null,
    keepAliveTimeout: 30_000,
    headersTimeout: 120_000,
    bodyTimeout: 300_000,
  };
  const proxied = PROXY_VARIABLES.some((name) => process.env[name]);
  return proxied ? new EnvHttpProxyAgent({ ...agentOptions, requestTls: connect, proxyTls: connect }) : new Agent(agentOptions);
}

interface RetryPolicy {
  retryable(status: number): number | undefined;
  networkAttempts: number;
}

/** Which statuses retry, and how many extra attempts each class gets. */
function policy(kind: ApiCallOptions['retry']): RetryPolicy {
  switch (kind ?? 'agent') {
    case 'none':
      return { retryable: () => undefined, networkAttempts: 0 };
    case 'installer':
      return {
        retryable: (status) => ([404, 423, 425].includes(status) ? 10 : status === 408 || status === 429 || status >= 500 ? 360 : undefined),
        networkAttempts: 360,
      };
    default:
      return { retryable: (status) => (status === 503 || status === 504 ? 3 : undefined), networkAttempts: 3 };
  }
}

class BufferedResponse implements ApiResponse {
  constructor(
    readonly status: number,
    readonly headers: Headers,
    private readonly body: Uint8Array,
  ) {}
  async text(): Promise<string> {
    return new TextDecoder().decode(this.body);
  }
  async json<T = unknown>(): Promise<T> {
    return JSON.parse(await this.text()) as T;
  }
  async bytes(): Promise<Uint8Array> {
    return this.body;
  }
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function networkCause(error: unknown): string {
  const err = error as { message?: string; cause?: { code?: string; message?: string } };
  return err.cause?.code ?? err.cause?.message ?? err.message ?? String(error);
}

/**
 * A FormData of the global fetch is not one undici's own fetch recognises; the global Response
 * encodes it (with its boundary), and bytes are also what a retry can send again.
 */
async function encodeBody(options: ApiCallOptions): Promise<{ body?: Uint8Array | string; contentType?: string }> {
  if (options.json !== undefined) return { body: JSON.stringify(options.json), contentType: 'application/json' };
  if (options.body === undefined) return {};
  if (options.body instanceof FormData) {
    const encoded = new Response(options.body);
    return { body: new Uint8Array(await encoded.arrayBuffer()), contentType: encoded.headers.get('content-type') ?? undefined };
  }
  return { body: options.body };
}

export function createTransport(options: TransportOptions): ApiTransport {
  const base = `${options.url.replace(/\/+$/, '')}/api/assisted-install`;
  const dispatcher = options.dispatcher ?? createConnectionPool(options);
  const delays = options.retryDelays ?? UPSTREAM_RETRY_DELAYS;
  const random = options.random ?? Math.random;
  const delayFor = (attempt: number) => {
    const ceiling = Math.min(delays.maxMs, delays.baseMs * 2 ** attempt);
    return Math.round(ceiling / 2 + (random() * ceiling) / 2);
  };

  return {
    async call(method, path, callOptions = {}) {
      const url = new URL(base + path);
      for (const [key, value] of Object.entries(callOptions.query ?? {})) url.searchParams.set(key, value);
      const { body, contentType } = await encodeBody(callOptions);
      const retry = policy(callOptions.retry);
      for (let attempt = 0; ; attempt++) {
        const headers: Record<string, string> = {
          Accept: 'application/json',
          'User-Agent': `assisted-agent/${options.agentVersion ?? 'unknown'}`,
          'X-Request-Id': randomUUID(),
          ...(contentType ? { 'Content-Type': contentType } : {}),
          ...(options.agentVersion ? { discovery_agent_version: options.agentVersion } : {}),
          ...(options.token ? { 'X-Secret-Key': options.token } : {}),
          ...callOptions.headers,
        };
        let outcome: { response: ApiResponse } | { failure: string; retries: number };
        let sent = performance.now();
        // An observer's failure is its own: it never turns an answer into a retry.
        const tell = (status: number) => {
          try {
            options.onResponse?.({ method, path, status, ms: performance.now() - sent });
          } catch {
            // ignored
          }
        };
        try {
          sent = performance.now();
          const response = await fetch(url, { method, headers, body, dispatcher, signal: callOptions.signal });
          const buffered = new BufferedResponse(response.status, new Headers([...response.headers]), new Uint8Array(await response.arrayBuffer()));
          tell(response.status);
          const retries = retry.retryable(response.status);
          outcome = retries === undefined ? { response: buffered } : { failure: `HTTP ${response.status}`, retries };
          if (retries !== undefined && attempt >= retries) return buffered;
        } catch (error) {
          if (callOptions.signal?.aborted) throw callOptions.signal.reason ?? error;
          tell(0);
          outcome = { failure: networkCause(error), retries: retry.networkAttempts };
          if (attempt >= retry.networkAttempts) throw new Error(`${method} ${url.pathname}: ${outcome.failure}`, { cause: error });
        }
        if ('response' in outcome) return outcome.response;
        const wait = delayFor(attempt);
        options.log?.debug('request failed; retrying', {
          method,
          path: url.pathname,
          failure: outcome.failure,
          attempt: attempt + 1,
          of: outcome.retries,
          retry_in_ms: wait,
        });
        await abortableSleep(wait, callOptions.signal);
      }
    },
  };
}
