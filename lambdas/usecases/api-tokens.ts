import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  bearerToken,
  formatApiToken,
  looksLikeApiToken,
  malformedCredentialReason,
  parseApiToken,
  roleAllows,
  tokenRejection,
} from '../domain/auth/api-token.js';
import type { ApiToken, Role } from '../domain/core/entities.js';
import { badRequest, forbidden, notFound, unauthorized } from '../domain/core/errors.js';
import { looksLikeJwt } from '../domain/auth/identity.js';
import { displayTextProblem } from '../../contracts/input-checks.js';
import { lesserRole, roleWithin } from '../domain/auth/organisation.js';
import type { Clock } from '../ports/clock.js';
import type { IdentityVerifier } from '../ports/identity.js';
import type { Store } from '../ports/store.js';
import { newSecret, secretHash, secretMatches } from './credential-secrets.js';
import { recordEvent } from './events.js';
import { actorName, requireRole, type Principal, type UserPrincipal } from './principal.js';
import { authenticateIdentityToken } from './users.js';

export interface TokenDeps {
  store: Store;
  clock: Clock;
}

/** The token as listed: everything but the secret and its hash. */
export type ApiTokenView = Omit<ApiToken, 'secretHash' | 'version'>;

export function viewOf(token: ApiToken): ApiTokenView {
  const { secretHash: _hash, version: _version, refusals: _refusals, ...view } = token;
  return view;
}

export async function createApiToken(
  deps: TokenDeps,
  request: { orgId: string; name: string; role: Role; expiresAt?: string; ownerUserId?: string },
): Promise<{ token: string; record: ApiTokenView }> {
  if (!request.name.trim()) throw badRequest('A token needs a name that says who or what uses it');
  const unshowable = displayTextProblem("The token's name", request.name);
  if (unshowable) throw badRequest(unshowable);
  if (request.expiresAt !== undefined) {
    const expiry = Date.parse(request.expiresAt);
    if (Number.isNaN(expiry)) throw badRequest(`expires_at "${request.expiresAt}" is not an ISO 8601 date-time`);
    if (expiry <= deps.clock.now().getTime()) throw badRequest('expires_at must be in the future');
  }
  const organisation = await deps.store.organisations.get({ orgId: request.orgId });
  if (!organisation) throw notFound(`Organisation ${request.orgId} does not exist`);
  const tokenId = randomUUID().replaceAll('-', '');
  const secret = newSecret();
  const record = await deps.store.apiTokens.create({
    orgId: request.orgId,
    tokenId,
    name: request.name.trim(),
    role: request.role,
    secretHash: secretHash(secret),
    createdAt: deps.clock.now().toISOString(),
    ...(request.expiresAt ? { expiresAt: new Date(request.expiresAt).toISOString() } : {}),
    ...(request.ownerUserId ? { ownerUserId: request.ownerUserId } : {}),
  });
  return { token: formatApiToken({ orgId: request.orgId, tokenId, secret }), record: viewOf(record) };
}

/** The `api-token` wire shape. */
export function tokenView(token: ApiTokenView): Record<string, unknown> {
  return {
    id: token.tokenId,
    name: token.name,
    role: token.role,
    org_id: token.orgId,
    created_at: token.createdAt,
    ...(token.expiresAt ? { expires_at: token.expiresAt } : {}),
    ...(token.revokedAt ? { revoked_at: token.revokedAt } : {}),
    ...(token.ownerUserId ? { owner_user_id: token.ownerUserId } : {}),
  };
}

/**
 * Who may hold API tokens of the organisation: its admins manage every token; a signed-in member
 * makes, lists and revokes tokens of their own, of at most their own role (their tokens act with at
 * most their role and die with their membership). A non-admin API token manages none.
 */
function mayManageAll(principal: UserPrincipal): boolean {
  return roleAllows(principal.role, 'manage-tokens');
}

function requireTokenHolder(principal: Principal): asserts principal is UserPrincipal {
  if (principal.kind === 'user' && (mayManageAll(principal) || principal.userId !== undefined)) return;
  requireRole(principal, 'manage-tokens');
}

/** POST /v2/api-tokens on behalf of the caller. */
export async function createCallersToken(deps: TokenDeps, principal: Principal, request: { name: string; role: Role; expiresAt?: string }) {
  requireTokenHolder(principal);
  if (!mayManageAll(principal) && !roleWithin(request.role, principal.role)) {
    throw forbidden(`Your role in the organisation is ${principal.role}: your tokens may have that role or a lesser one`);
  }
  // A token made with a member's token is that member's too, so that it dies with their membership.
  const owner = principal.userId ?? principal.ownerUserId;
  const created = await createApiToken(deps, { ...request, orgId: principal.orgId, ...(owner !== undefined ? { ownerUserId: owner } : {}) });
  await recordEvent(deps, {
    name: 'api_token_created',
    subject: { orgId: principal.orgId },
    props: { actor: actorName(principal), name: created.record.name, reference: created.record.tokenId, role: created.record.role },
  });
  return created;
}

/** GET /v2/api-tokens: every token for admins, a member's own otherwise. */
export async function listCallersTokens(deps: TokenDeps, principal: Principal): Promise<ApiTokenView[]> {
  requireTokenHolder(principal);
  const tokens = await listApiTokens(deps, principal.orgId);
  return mayManageAll(principal) ? tokens : tokens.filter((token) => token.ownerUserId === principal.userId);
}

/** DELETE /v2/api-tokens/{id}: any token for admins, a member's own otherwise (another's is not found). */
export async function revokeCallersToken(deps: TokenDeps, principal: Principal, tokenId: string): Promise<void> {
  requireTokenHolder(principal);
  const token = await deps.store.apiTokens.get({ orgId: principal.orgId, tokenId });
  if (!token || (!mayManageAll(principal) && token.ownerUserId !== principal.userId)) throw notFound(`API token ${tokenId} does not exist`);
  const revoked = await revokeApiToken(deps, principal.orgId, tokenId, token);
  if (!token.revokedAt) {
    await recordEvent(deps, {
      name: 'api_token_revoked',
      subject: { orgId: principal.orgId },
      props: { actor: actorName(principal), name: revoked.name, reference: revoked.tokenId },
    });
  }
}

export async function listApiTokens(deps: TokenDeps, orgId: string): Promise<ApiTokenView[]> {
  const tokens = await deps.store.apiTokens.listByOrg(orgId);
  return tokens.map(viewOf).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/** `justRead`: the token as the caller read it a moment ago, which saves mutate's first read. */
export async function revokeApiToken(deps: TokenDeps, orgId: string, tokenId: string, justRead?: ApiToken): Promise<ApiTokenView> {
  const now = deps.clock.now().toISOString();
  const revoked = await deps.store.apiTokens.mutate({ orgId, tokenId }, (token) => (token.revokedAt ? undefined : { ...token, revokedAt: now }), justRead);
  if (!revoked) throw notFound(`API token ${tokenId} does not exist`);
  return viewOf(revoked);
}

/**
 * Establishes the caller from an `Authorization: Bearer` header: an identity provider's token (a
 * JWT, when the service trusts an identity provider: usecases/users.ts) or an API token. Every
 * API-token failure reads the same apart from revoked/expired, which the holder can act on; none
 * says whether an organisation exists.
 */
export async function authenticateUser(deps: TokenDeps & { identity?: IdentityVerifier }, authorization: string | undefined): Promise<Principal> {
  const raw = bearerToken(authorization);
  if (!raw) {
    throw unauthorized(`Authorization header must be "Bearer <api token>"${deps.identity ? ' or "Bearer <identity token>"' : ''}`);
  }
  // An API token cut to three parts would pass for a JWT: its 'ac1.' start says what it is.
  if (deps.identity && looksLikeJwt(raw) && !looksLikeApiToken(raw)) return authenticateIdentityToken({ ...deps, identity: deps.identity }, raw);
  const started = Date.now();
  try {
    return await authenticateApiToken(deps, raw);
  } catch (error) {
    // Every refusal of an API token is answered at the same pace, so that how long it took (a
    // refused known token is counted, an unknown one is not) does not tell which token ids exist.
    await sleep(Math.max(0, started + REFUSAL_PACE_MS - Date.now()));
    throw error;
  }
}

/** How long any API-token refusal takes at least: longer than counting a refusal does. */
export const REFUSAL_PACE_MS = 100;

async function authenticateApiToken(deps: TokenDeps & { identity?: IdentityVerifier }, raw: string): Promise<Principal> {
  const parts = parseApiToken(raw);
  if (!parts) throw unauthorized(malformedCredentialReason(raw, Boolean(deps.identity)));
  const token = await deps.store.apiTokens.get({ orgId: parts.orgId, tokenId: parts.tokenId });
  if (!token) throw unauthorized('The API token is malformed or unknown');
  const refuse = async (reason: string, told: string) => {
    await recordRefusal(deps, token, reason);
    return unauthorized(told);
  };
  if (!secretMatches(parts.secret, token.secretHash)) throw await refuse('its secret is wrong', 'The API token is malformed or unknown');
  const rejection = tokenRejection(token, deps.clock.now());
  if (rejection) throw await refuse(`it was ${rejection}`, `The API token was ${rejection}; create a new one`);
  if (token.ownerUserId === undefined) return { kind: 'user', orgId: token.orgId, tokenId: token.tokenId, role: token.role };
  // A member's token acts with at most their current role, and only while they are a member.
  const membership = await deps.store.memberships.get({ userId: token.ownerUserId });
  if (membership?.orgId !== token.orgId) {
    throw await refuse('its owner is no longer a member of the organisation', "The API token's owner is no longer a member of its organisation");
  }
  return { kind: 'user', orgId: token.orgId, tokenId: token.tokenId, ownerUserId: token.ownerUserId, role: lesserRole(token.role, membership.role) };
}

/**
 * Counts a refusal on the token (a conditional write) and records an audit event for the first
 * refusal of each minute only, with the count so far: anyone who knows a token id can make
 * refusals, and an event per request would let them fill the organisation's event list.
 */
async function recordRefusal(deps: TokenDeps, token: ApiToken, reason: string): Promise<void> {
  const minute = deps.clock.now().toISOString().slice(0, 16);
  let firstOfMinute = false;
  const counted = await deps.store.apiTokens.mutate(
    { orgId: token.orgId, tokenId: token.tokenId },
    (current) => {
      firstOfMinute = current.refusals?.lastMinute !== minute;
      return { ...current, refusals: { count: (current.refusals?.count ?? 0) + 1, lastMinute: minute } };
    },
    token,
  );
  if (!counted || !firstOfMinute) return;
  await recordEvent(deps, {
    name: 'sign_in_refused',
    subject: { orgId: token.orgId },
    props: { name: token.name, reference: token.tokenId, reason, refusals: counted.refusals?.count ?? 1 },
  });
}

/**
 * Users act within their token's role. Agents reach only the operations whose security admits
 * agentAuth, scoped to their infra-env by the lookups; among those they may read.
 */
