/**
 * Users who sign in through an identity provider (Amazon Cognito in AWS, any OIDC issuer): the
 * claim rules a verified token must also meet, and the deterministic keys of a user and of the
 * personal organisation their first request creates. Pure: the signature, issuer, expiry and
 * not-before are the verifying library's (adapters/oidc), on the same settings.
 */
import { createHash } from 'node:crypto';

export interface IdentityProviderSettings {
  /** The `iss` every token must carry, exactly (Cognito: https://cognito-idp.<region>.amazonaws.com/<pool id>). */
  issuer: string;
  /** Accepted app clients: an ID token's `aud` or a Cognito access token's `client_id` must be one of them. */
  clientIds: readonly string[];
  /** Where the issuer publishes its signing keys (default: `<issuer>/.well-known/jwks.json`, Cognito's layout). */
  jwksUrl: string;
  /** How the console signs people in (authorization code + PKCE), when it should. */
  console?: ConsoleSignIn;
}

/**
 * The console's sign-in: a public client (no secret) of the identity provider, its authorization
 * and token endpoints, and optionally where to end the provider's session on sign-out. The console
 * reads these from the API (GetSignInSettings), so its build knows no provider.
 */
export interface ConsoleSignIn {
  clientId: string;
  authorizationUrl: string;
  tokenUrl: string;
  signOutUrl?: string;
  scopes: readonly string[];
}

/** Signatures accepted: asymmetric only (what an issuer's JWKS publishes). `none` and HS* never. */
export const ACCEPTED_ALGORITHMS: readonly string[] = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'];

/** Clock skew tolerated between the issuer and this service, for `exp` and `nbf`. */
export const CLOCK_TOLERANCE_SECONDS = 30;

/** Longer than any ID or access token an issuer hands out (Cognito's are 1–4 KB). */
export const MAX_IDENTITY_TOKEN_LENGTH = 16_384;

const SEGMENT = /^[A-Za-z0-9_-]+$/;

/**
 * Whether a bearer credential is a JWS in compact form (three base64url segments, the signature one
 * possibly empty as in `alg: none`). API tokens read `ac1.<org>.<id>.<secret>`: four segments.
 */
export function looksLikeJwt(credential: string): boolean {
  const segments = credential.split('.');
  return segments.length === 3 && SEGMENT.test(segments[0]!) && SEGMENT.test(segments[1]!) && (segments[2] === '' || SEGMENT.test(segments[2]!));
}

export function defaultJwksUrl(issuer: string): string {
  return `${issuer.replace(/\/+$/, '')}/.well-known/jwks.json`;
}

/** The claims of a verified token this service reads. */
export interface IdentityClaims {
  iss?: unknown;
  sub?: unknown;
  aud?: unknown;
  client_id?: unknown;
  token_use?: unknown;
  email?: unknown;
  email_verified?: unknown;
}

/** Who a verified token names. */
export interface VerifiedIdentity {
  issuer: string;
  subject: string;
  /** From the token (ID tokens carry it; Cognito access tokens do not); absent when the issuer says it is unverified. */
  email?: string;
  tokenUse?: 'id' | 'access';
}

/** Why the issuer's own claims refuse a token, in words the holder can act on; undefined when they do not. */
export function issuerProblem(claims: IdentityClaims, settings: Pick<IdentityProviderSettings, 'issuer'>): string | undefined {
  if (claims.iss === settings.issuer) return undefined;
  return `The identity token was not issued by the identity provider this service trusts (${settings.issuer}): sign in through it`;
}

/**
 * The rules a token meets beyond its signature, issuer and lifetime. Audience: an ID token names its
 * app client in `aud` (a string or a list); a Cognito access token has no `aud` and names it in
 * `client_id`. A token with an `aud` is judged by it alone. `token_use` (Cognito) must be `id` or
 * `access` when present.
 */
export function claimProblem(claims: IdentityClaims, settings: Pick<IdentityProviderSettings, 'clientIds'>): string | undefined {
  if (claims.token_use !== undefined && claims.token_use !== 'id' && claims.token_use !== 'access') {
    return 'The identity token is not an ID or access token (token_use): send the ID or access token of the sign-in';
  }
  if (typeof claims.sub !== 'string' || claims.sub === '') return 'The identity token names no subject (sub)';
  const audiences = claims.aud === undefined ? [] : Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  const accepted = (value: unknown) => typeof value === 'string' && settings.clientIds.includes(value);
  if (claims.aud !== undefined) {
    if (!audiences.some(accepted)) return "The identity token was issued for another application (aud): sign in through this service's console or app client";
    return undefined;
  }
  if (claims.client_id === undefined) return 'The identity token names no application (neither aud nor client_id)';
  if (!accepted(claims.client_id))
    return "The identity token was issued for another application (client_id): sign in through this service's console or app client";
  return undefined;
}

/** What the service keeps of a verified token's claims. */
export function identityOf(claims: IdentityClaims & { iss: string; sub: string }): VerifiedIdentity {
  const email =
    typeof claims.email === 'string' && claims.email !== '' && claims.email_verified !== false && claims.email_verified !== 'false' ? claims.email : undefined;
  const tokenUse = claims.token_use === 'id' || claims.token_use === 'access' ? claims.token_use : undefined;
  return { issuer: claims.iss, subject: claims.sub, ...(email ? { email } : {}), ...(tokenUse ? { tokenUse } : {}) };
}

/**
 * A user's id: the same for every token of one subject of one issuer, and different across issuers
 * (two user pools may hand out the same `sub`). 32 hex digits, usable in keys and API token strings.
 */
export function userIdOf(issuer: string, subject: string): string {
  return createHash('sha256')
    .update(JSON.stringify([issuer, subject]))
    .digest('hex')
    .slice(0, 32);
}

/**
 * The organisation a user's first request creates, named by the user's id so that every request of
 * that first moment, on any instance, creates the same one (the write is conditional on the key).
 */
export function personalOrgIdOf(userId: string): string {
  return `user-${userId}`;
}

/**
 * A further personal organisation for a user whose first one has other members now (they invited
 * someone there, then left): `another` is random, so that no one else's organisation is reused.
 */
export function anotherPersonalOrgIdOf(userId: string, another: string): string {
  return `${personalOrgIdOf(userId)}-${another}`;
}

export function personalOrgNameOf(identity: Pick<VerifiedIdentity, 'email'>): string {
  return identity.email ? `${identity.email}'s organisation` : 'Personal organisation';
}
