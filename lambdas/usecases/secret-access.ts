/**
 * The secret-level checks: which callers may receive credentials (agent tokens baked into images,
 * pull secrets, proxy passwords). The router checks an operation's access before its handler runs;
 * these are finer, about parts of an answer, so the use cases that build those answers apply them.
 */
import { roleAllows } from '../domain/auth/api-token.js';
import { forbidden } from '../domain/core/errors.js';
import { proxyUrlWithoutCredentials } from '../../contracts/input-checks.js';
import { isJsonObject } from '../../contracts/json-shapes.js';
import type { Principal } from './principal.js';

/**
 * Whether the caller may receive material that carries credentials: discovery ignitions and image
 * URLs (the agent token is baked in), install-config's pull secret, cluster ignitions. Read-only
 * tokens may not: anything they read could otherwise be turned into write access. Agents get what
 * their own infra-env and cluster need; their scope is checked where the resource is found.
 */
export function maySeeSecrets(principal: Principal): boolean {
  return principal.kind === 'agent' || roleAllows(principal.role, 'write');
}

/** The proxy URL fields of a cluster or infra-env view (the wire's names). */
const VIEW_PROXY_FIELDS = ['http_proxy', 'https_proxy'];
/** The proxy URL fields of an install config (the installer's names, under `proxy`). */
export const INSTALL_CONFIG_PROXY_FIELDS = ['httpProxy', 'httpsProxy'];

/**
 * A cluster or infra-env view (or, given its field names, an install config) as a caller who may
 * not see credentials gets it: proxy URLs, at the top and under `proxy`, keep their host but not
 * the user and password they carry (docs/api.md, read-only tokens).
 */
export function withoutProxyCredentials<T extends Record<string, unknown>>(view: T, proxyFields: readonly string[] = VIEW_PROXY_FIELDS): T {
  const redact = (record: Record<string, unknown>) => {
    for (const field of proxyFields) {
      const value = record[field];
      if (typeof value === 'string') record[field] = proxyUrlWithoutCredentials(value);
    }
  };
  const copy: Record<string, unknown> = { ...view };
  redact(copy);
  if (isJsonObject(copy.proxy)) {
    const proxy = { ...copy.proxy };
    redact(proxy);
    copy.proxy = proxy;
  }
  return copy as T;
}

/** The pull secret is the cluster owner's: users who may change the cluster, not agents or read-only tokens. */
export const mayReadPullSecret = (principal: Principal): boolean => principal.kind === 'user' && roleAllows(principal.role, 'write');

export function requireSecretAccess(principal: Principal, what: string): void {
  if (!maySeeSecrets(principal)) throw forbidden(`${what} carries credentials; a read-only token may not fetch it`);
}
