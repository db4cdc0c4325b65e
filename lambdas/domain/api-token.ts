import type { ApiToken, Role } from './entities.js';

/**
 * An API token reads `ac1.<orgId>.<tokenId>.<secret>`: the organisation and token id locate the
 * stored record (whose partition key starts with the organisation) and the secret proves possession.
 */
const PREFIX = 'ac1';
const PART = /^[A-Za-z0-9_-]+$/;

export interface TokenParts {
  orgId: string;
  tokenId: string;
  secret: string;
}

export function formatApiToken(parts: TokenParts): string {
  return [PREFIX, parts.orgId, parts.tokenId, parts.secret].join('.');
}

export function parseApiToken(token: string): TokenParts | undefined {
  const pieces = token.split('.');
  if (pieces.length !== 4 || pieces[0] !== PREFIX) return undefined;
  const [, orgId, tokenId, secret] = pieces as [string, string, string, string];
  if (![orgId, tokenId, secret].every((piece) => PART.test(piece))) return undefined;
  return { orgId, tokenId, secret };
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
