import type { ApiToken, Role } from '../core/entities.js';

/**
 * An API token reads `ac1.<orgId>.<tokenId>.<secret>`, an invitation code `inv1.<orgId>.<invitationId>.<secret>`:
 * the organisation and id locate the stored record (whose partition key starts with the
 * organisation) and the secret proves possession.
 */
const API_TOKEN_PREFIX = 'ac1';
const INVITATION_CODE_PREFIX = 'inv1';
const PART = /^[A-Za-z0-9_-]+$/;

export interface TokenParts {
  orgId: string;
  tokenId: string;
  secret: string;
}

interface CredentialParts {
  orgId: string;
  id: string;
  secret: string;
}

function formatCredential(prefix: string, parts: CredentialParts): string {
  return [prefix, parts.orgId, parts.id, parts.secret].join('.');
}

function parseCredential(prefix: string, credential: string): CredentialParts | undefined {
  const pieces = credential.split('.');
  if (pieces.length !== 4 || pieces[0] !== prefix) return undefined;
  const [, orgId, id, secret] = pieces;
  if (orgId === undefined || id === undefined || secret === undefined) return undefined;
  if (![orgId, id, secret].every((piece) => PART.test(piece))) return undefined;
  return { orgId, id, secret };
}

export function formatApiToken(parts: TokenParts): string {
  return formatCredential(API_TOKEN_PREFIX, { orgId: parts.orgId, id: parts.tokenId, secret: parts.secret });
}

export function parseApiToken(token: string): TokenParts | undefined {
  const parts = parseCredential(API_TOKEN_PREFIX, token);
  return parts && { orgId: parts.orgId, tokenId: parts.id, secret: parts.secret };
}

/** Whether a bearer credential starts the way every API token does (`ac1.`), whatever follows. */
export const looksLikeApiToken = (credential: string): boolean => credential.startsWith(`${API_TOKEN_PREFIX}.`);

/** Every JWT's header is a JSON object, and `{"` in base64url is `eyJ`. */
const looksLikeJwtStart = (credential: string): boolean => credential.startsWith('eyJ');

/**
 * Why a bearer credential that is neither a well-formed API token nor taken as an identity token
 * was refused, naming what it looked like, so that a token cut short when copied says so. It
 * counts parts and never repeats any, and says nothing of whether an organisation or token exists.
 */
export function malformedCredentialReason(credential: string, identityTokensAccepted: boolean): string {
  const parts = credential.split('.').length;
  if (looksLikeApiToken(credential)) {
    return parts === 4
      ? 'The API token is malformed or unknown: a part is empty or has characters an API token never has; was it cut short or changed when copied?'
      : `The API token is malformed or unknown: it has ${parts} of the 4 parts an API token has (${API_TOKEN_PREFIX}.<organisation>.<id>.<secret>); was it cut short when copied?`;
  }
  if (looksLikeJwtStart(credential)) {
    return identityTokensAccepted
      ? `The identity token is malformed: it has ${parts} of the 3 parts a JWT has (header.payload.signature); was it cut short when copied?`
      : 'The API token is malformed or unknown: this looks like an identity token (a JWT), and this service trusts no identity provider; use an API token';
  }
  return `The API token is malformed or unknown: it is neither an API token (${API_TOKEN_PREFIX}.…) nor an identity token (a JWT)`;
}

export interface InvitationCodeParts {
  orgId: string;
  invitationId: string;
  secret: string;
}

export function formatInvitationCode(parts: InvitationCodeParts): string {
  return formatCredential(INVITATION_CODE_PREFIX, { orgId: parts.orgId, id: parts.invitationId, secret: parts.secret });
}

export function parseInvitationCode(code: string): InvitationCodeParts | undefined {
  const parts = parseCredential(INVITATION_CODE_PREFIX, code.trim());
  return parts && { orgId: parts.orgId, invitationId: parts.id, secret: parts.secret };
}

/** Reads `Bearer <token>` the way upstream does: scheme case-insensitive, one space. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const match = /^Bearer (\S+)$/i.exec(authorization?.trim() ?? '');
  return match?.[1];
}

export type TokenRejection = 'revoked' | 'expired';

export function tokenRejection(token: Pick<ApiToken, 'revokedAt' | 'expiresAt'>, now: Date): TokenRejection | undefined {
  if (token.revokedAt) return 'revoked';
  if (token.expiresAt && Date.parse(token.expiresAt) <= now.getTime()) return 'expired';
  return undefined;
}

export const ROLES: readonly Role[] = ['admin', 'user', 'read-only'];

/** Which roles may perform a kind of action. */
export function roleAllows(role: Role, action: 'read' | 'write' | 'manage-tokens'): boolean {
  if (action === 'read') return true;
  if (action === 'write') return role === 'admin' || role === 'user';
  return role === 'admin';
}
