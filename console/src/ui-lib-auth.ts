import type { AxiosError, AxiosInstance } from 'axios';
import { Api } from '@openshift-assisted/ui-lib/ocm';
import { callersRole } from './caller';
import { withViewerPermissions } from './caller-rules';
import { readEnded, readStarted } from './live-polling';
import { currentToken, reasonOf, signOut } from './session';

/**
 * The library builds some URLs from a base ending in '/' plus a suffix starting with one
 * (`/v2/clusters//default-config`); upstream's Go router cleans such paths, our API routes them
 * literally. Only the path part is touched, never a scheme's '//'.
 */
export function collapseRepeatedSlashes(url: string): string {
  const queryAt = url.search(/[?#]/);
  const [pathPart, rest] = queryAt === -1 ? [url, ''] : [url.slice(0, queryAt), url.slice(queryAt)];
  const scheme = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.exec(pathPart)?.[0] ?? '';
  return scheme + pathPart.slice(scheme.length).replace(/\/{2,}/g, '/') + rest;
}

/** Marks the reads counted for live-polling.ts, so that each is uncounted once, however it ends. */
const COUNTED_READ = Symbol('counted read');
type CountedConfig = { [COUNTED_READ]?: boolean };

function endCountedRead(config: CountedConfig | undefined): void {
  if (!config?.[COUNTED_READ]) return;
  config[COUNTED_READ] = false;
  readEnded();
}

/**
 * Adds our bearer token to every request of the UI library's API clients and ends the session when
 * the API stops accepting the token. Its reads (GET) are counted for the live polls (live-polling.ts).
 *
 * The library's own `setAuthInterceptor` is not used: it also switches the library into the
 * console.redhat.com mode, which calls OCM's account-management API (/api/accounts_mgmt) and
 * Sentry, neither of which exists here. Decorating the library's clients directly keeps the
 * standalone behaviour with our authentication.
 */
export function authenticateUiLibClients(): void {
  for (const client of [Api.client, Api.clientWithoutCaseConverter] as AxiosInstance[]) {
    client.interceptors.request.use((config) => {
      if (config.url) config.url = collapseRepeatedSlashes(config.url);
      const token = currentToken();
      if (token) config.headers = { ...(config.headers as Record<string, string>), Authorization: `Bearer ${token}` };
      if ((config.method ?? 'get').toLowerCase() === 'get') {
        (config as CountedConfig)[COUNTED_READ] = true;
        readStarted();
      }
      return config;
    });
    client.interceptors.response.use(
      (response) => {
        endCountedRead(response.config as CountedConfig);
        response.data = withViewerPermissions(response.config.url, response.config.method, response.data, callersRole());
        return response;
      },
      (error: AxiosError) => {
        endCountedRead(error.config as CountedConfig | undefined);
        if (error.response?.status === 401) signOut(reasonOf(401, error.response.data));
        return Promise.reject(error);
      },
    );
  }
}
