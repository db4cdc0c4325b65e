import { describe, expect, it } from 'vitest';
import {
  bearerToken,
  formatApiToken,
  looksLikeApiToken,
  malformedCredentialReason,
  parseApiToken,
  roleAllows,
  tokenRejection,
} from '../../lambdas/domain/auth/api-token.js';

describe('API token format', () => {
  it('round-trips organisation, token id and secret', () => {
    const parts = { orgId: 'default', tokenId: 'abc123', secret: 'S3cr_et-x' };
    expect(parseApiToken(formatApiToken(parts))).toEqual(parts);
  });

  it.each([
    ['', 'empty'],
    ['ac1.org.id', 'too few parts'],
    ['ac1.org.id.secret.extra', 'too many parts'],
    ['ac2.org.id.secret', 'unknown version'],
    ['ac1.org.id.sec ret', 'a space'],
    ['ac1.org/x.id.secret', 'a slash in the organisation'],
    ['ac1..id.secret', 'an empty part'],
  ])('rejects %j (%s)', (token) => {
    expect(parseApiToken(token)).toBeUndefined();
  });

  it('reads bearer credentials the way upstream does', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer abc')).toBe('abc');
    expect(bearerToken('  Bearer abc  ')).toBe('abc');
    expect(bearerToken('Basic abc')).toBeUndefined();
    expect(bearerToken('Bearer')).toBeUndefined();
    expect(bearerToken('Bearer a b')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });

  it('rejects revoked and expired tokens, accepts live ones', () => {
    const now = new Date('2026-11-22T00:00:00Z');
    expect(tokenRejection({}, now)).toBeUndefined();
    expect(tokenRejection({ expiresAt: '2026-11-22T00:00:01Z' }, now)).toBeUndefined();
    expect(tokenRejection({ expiresAt: '2026-11-22T00:00:00Z' }, now)).toBe('expired');
    expect(tokenRejection({ revokedAt: '2026-11-21T00:00:00Z', expiresAt: '2027-01-01T00:00:00Z' }, now)).toBe('revoked');
  });

  it('gives read-only tokens reads only and only admins token management', () => {
    expect(roleAllows('read-only', 'read')).toBe(true);
    expect(roleAllows('read-only', 'write')).toBe(false);
    expect(roleAllows('user', 'write')).toBe(true);
    expect(roleAllows('user', 'manage-tokens')).toBe(false);
    expect(roleAllows('admin', 'manage-tokens')).toBe(true);
  });

  it('says what a malformed credential looked like: an API token cut short, an identity token, or neither', () => {
    const cut = 'ac1.default.0123456789abcdef';
    expect(looksLikeApiToken(cut)).toBe(true);
    expect(malformedCredentialReason(cut, true)).toMatch(
      /^The API token is malformed or unknown: it has 3 of the 4 parts .*ac1\.<organisation>\.<id>\.<secret>.*cut short/,
    );
    expect(malformedCredentialReason('ac1.default.0123456789abcdef.', false)).toMatch(/^The API token is malformed or unknown: a part is empty/);
    const jwtCut = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0';
    expect(malformedCredentialReason(jwtCut, true)).toMatch(/^The identity token is malformed: it has 2 of the 3 parts a JWT has.*cut short/);
    expect(malformedCredentialReason(`${jwtCut}.c2ln`, false)).toMatch(/looks like an identity token \(a JWT\).*trusts no identity provider/);
    expect(malformedCredentialReason('ai.default.0123.secret', true)).toMatch(
      /^The API token is malformed or unknown: it is neither an API token \(ac1\.…\) nor an identity token/,
    );
    // Nothing of the credential itself is repeated back.
    expect(malformedCredentialReason(cut, true)).not.toContain('0123456789abcdef');
  });
});
