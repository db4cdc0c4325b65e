/**
 * The Assisted service's REST API as the controller uses it: openapi-fetch over the types generated
 * from openapi.yaml (contracts/api.ts), with a bearer token. A failed call throws ServiceError,
 * which tells the caller's mistakes (4xx: an input error in a condition) from the service's (5xx,
 * unreachable: a backend error, retried with backoff).
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from '../contracts/api.js';

export type Rest = Client<paths>;
export const API_BASE_PATH = '/api/assisted-install';

export class ServiceError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    what: string,
  ) {
    super(`${what}: ${status ? `${status} ` : ''}${reason}`);
  }
  get isInput(): boolean {
    return this.status >= 400 && this.status < 500 && this.status !== 401 && this.status !== 403 && this.status !== 408 && this.status !== 429;
  }
}

export function restClient(url: string, token: () => string, fetchImpl: typeof fetch = globalThis.fetch): Rest {
  const client = createClient<paths>({ baseUrl: `${url.replace(/\/+$/, '')}${API_BASE_PATH}`, fetch: fetchImpl });
  const auth: Middleware = {
    onRequest({ request }) {
      request.headers.set('Authorization', `Bearer ${token()}`);
      return request;
    },
  };
  client.use(auth);
  return client;
}

function reasonOf(error: unknown, response: Response): string {
  if (error && typeof error === 'object') {
    const record = error as Record<string, unknown>;
    for (const key of ['reason', 'message']) if (typeof record[key] === 'string' && record[key]) return record[key];
  }
  if (typeof error === 'string' && error.trim()) return error.trim().slice(0, 500);
  return response.statusText || 'request failed';
}

/** Runs one call and returns its data, or throws ServiceError saying what was being done. */
export async function call<T>(what: string, request: () => Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await request();
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new ServiceError(0, `cannot reach the service (${cause?.code ?? cause?.message ?? (error as Error).message})`, what);
  }
  if (!result.response.ok) throw new ServiceError(result.response.status, reasonOf(result.error, result.response), what);
  return result.data as T;
}

/** call() for answers where 404 means "gone": undefined instead of an error. */
export async function callOrMissing<T>(what: string, request: () => Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T | undefined> {
  try {
    return await call(what, request);
  } catch (error) {
    if (error instanceof ServiceError && error.status === 404) return undefined;
    throw error;
  }
}
