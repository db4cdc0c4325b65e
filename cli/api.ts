/**
 * The typed REST client: openapi-fetch over the types openapi-typescript generated from
 * openapi.yaml (contracts/api.ts, `npm run generate:contracts`). Everything the CLI sends goes
 * through here, so authentication and the mapping of failures to exit codes live in one place.
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from '../contracts/api.js';
import { CliError, EXIT } from './exit-codes.js';
import { isUuid } from '../contracts/input-checks.js';

export type {
  Cluster,
  ClusterCreateParams,
  ClusterUpdateParams,
  Host,
  InfraEnv,
  InfraEnvCreateParams,
  InfraEnvUpdateParams,
  Schemas,
} from '../contracts/wire.js';
export type ApiClient = Client<paths>;

export const API_BASE_PATH = '/api/assisted-install';

export interface Credentials {
  url: string;
  token: string;
}

/** A client for the service at `url` (its root, e.g. http://127.0.0.1:8090) authenticating with a bearer token. */
export function apiClient(credentials: Credentials, fetchImpl: typeof fetch = globalThis.fetch): ApiClient {
  const client = createClient<paths>({ baseUrl: `${credentials.url.replace(/\/+$/, '')}${API_BASE_PATH}`, fetch: fetchImpl });
  const auth: Middleware = {
    onRequest({ request }) {
      request.headers.set('Authorization', `Bearer ${credentials.token}`);
      return request;
    },
  };
  client.use(auth);
  return client;
}

/** The reason a failed answer gives (upstream's `error.reason` or `infra_error.message`), else its status line. */
export function failureReason(error: unknown, response: Response): string {
  if (error && typeof error === 'object') {
    const record = error as Record<string, unknown>;
    for (const key of ['reason', 'message']) if (typeof record[key] === 'string' && record[key]) return record[key];
  }
  if (typeof error === 'string' && error.trim()) return error.trim().slice(0, 500);
  return `${response.status} ${response.statusText}`.trim();
}

/** 4xx is the caller's problem (exit 2); 5xx and 429 are the service's or transient (exit 3). */
export function exitCodeForStatus(status: number): number {
  return status >= 400 && status < 500 && status !== 429 && status !== 408 ? EXIT.apiRefused : EXIT.transient;
}

/** What a status means for this command, when the API's reason alone would leave the caller guessing. */
export type Hints = Partial<Record<number, string>>;

export function apiFailure(what: string, error: unknown, response: Response, hints: Hints = {}): CliError {
  const status = response.status;
  const hint = hints[status];
  return new CliError(`${what}: ${status} ${failureReason(error, response)}${hint ? `\n  ${hint}` : ''}`, exitCodeForStatus(status) as typeof EXIT.apiRefused);
}

/**
 * Runs one call and returns its data or throws a CliError that says what was being done. A
 * network failure (service down, refused connection) is exit 3, like a 5xx.
 */
export async function call<T>(what: string, request: () => Promise<{ data?: T; error?: unknown; response: Response }>, hints: Hints = {}): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await request();
  } catch (error) {
    if (error instanceof CliError) throw error;
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new CliError(`${what}: cannot reach the service (${cause?.code ?? cause?.message ?? (error as Error).message})`, EXIT.transient);
  }
  if (!result.response.ok) throw apiFailure(what, result.error, result.response, hints);
  return result.data as T;
}

/** An id as given, or the id of the one `kind` the listing names so (people know names, the API wants ids). */
async function idOfNamed(kind: string, idOrName: string, list: () => Promise<{ id: string; name?: string }[]>): Promise<string> {
  if (isUuid(idOrName)) return idOrName;
  const named = (await list()).filter((item) => item.name === idOrName);
  if (named.length === 1) return named[0]!.id;
  if (named.length === 0) throw new CliError(`no ${kind} is named "${idOrName}"`, EXIT.apiRefused);
  throw new CliError(`${named.length} ${kind}s are named "${idOrName}": give the id (${named.map((item) => item.id).join(', ')})`, EXIT.usage);
}

/** A cluster id, or the id of the one cluster with that name. */
export const resolveClusterId = (client: ApiClient, idOrName: string): Promise<string> =>
  idOfNamed('cluster', idOrName, () => call('listing clusters', () => client.GET('/v2/clusters')));

/** An infra-env id, or the id of the one infra-env with that name. */
export const resolveInfraEnvId = (client: ApiClient, idOrName: string): Promise<string> =>
  idOfNamed('infra-env', idOrName, () => call('listing infra-envs', () => client.GET('/v2/infra-envs')));
