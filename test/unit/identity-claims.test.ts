import { describe, expect, it } from 'vitest';
import { claimProblem, defaultJwksUrl, identityOf, issuerProblem, looksLikeJwt, personalOrgIdOf, userIdOf } from '../../lambdas/domain/auth/identity.js';
import { parseApiToken } from '../../lambdas/domain/auth/api-token.js';
import { identityProviderFromEnvironment } from '../../lambdas/platform/config.js';

const ISSUER = 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Pool';
const settings = { issuer: ISSUER, clientIds: ['console-client', 'cli-client'] };

describe('identity token claim rules', () => {
  it('tells a JWT from an API token by its shape', () => {
    expect(looksLikeJwt('eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln')).toBe(true);
    expect(looksLikeJwt('eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.')).toBe(true);
    expect(looksLikeJwt('ac1.default.0123abcd.S3cr_et-x')).toBe(false);
    expect(looksLikeJwt('a.b')).toBe(false);
    expect(looksLikeJwt('a.b+c.d')).toBe(false);
    expect(looksLikeJwt('..')).toBe(false);
  });

  it('accepts the issuer only exactly as configured', () => {
    expect(issuerProblem({ iss: ISSUER }, settings)).toBeUndefined();
    for (const iss of [`${ISSUER}/`, ISSUER.toUpperCase(), 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Other', undefined, 42]) {
      expect(issuerProblem({ iss }, settings), String(iss)).toMatch(/not issued by the identity provider this service trusts/);
    }
  });

  it('judges an ID token by aud, a Cognito access token by client_id', () => {
    expect(claimProblem({ sub: 's', aud: 'console-client', token_use: 'id' }, settings)).toBeUndefined();
    expect(claimProblem({ sub: 's', aud: ['other', 'cli-client'] }, settings)).toBeUndefined();
    expect(claimProblem({ sub: 's', client_id: 'cli-client', token_use: 'access' }, settings)).toBeUndefined();
    expect(claimProblem({ sub: 's', aud: 'other-client', token_use: 'id' }, settings)).toMatch(/another application \(aud\)/);
    expect(claimProblem({ sub: 's', aud: [], token_use: 'id' }, settings)).toMatch(/another application \(aud\)/);
    // A token with an aud is judged by it alone: a client_id beside it does not let it in.
    expect(claimProblem({ sub: 's', aud: 'other-client', client_id: 'console-client' }, settings)).toMatch(/\(aud\)/);
    expect(claimProblem({ sub: 's', client_id: 'other-client', token_use: 'access' }, settings)).toMatch(/another application \(client_id\)/);
    expect(claimProblem({ sub: 's', token_use: 'access' }, settings)).toMatch(/neither aud nor client_id/);
  });

  it('takes token_use id or access when present, and needs a subject', () => {
    expect(claimProblem({ sub: 's', aud: 'console-client' }, settings)).toBeUndefined();
    for (const token_use of ['refresh', 'ID', '', 1]) {
      expect(claimProblem({ sub: 's', aud: 'console-client', token_use }, settings), String(token_use)).toMatch(/token_use/);
    }
    expect(claimProblem({ aud: 'console-client' }, settings)).toMatch(/no subject/);
    expect(claimProblem({ sub: '', aud: 'console-client' }, settings)).toMatch(/no subject/);
  });

  it('keeps a verified email only, and names users per issuer and subject', () => {
    expect(identityOf({ iss: ISSUER, sub: 's', email: 'a@example.com', email_verified: true, token_use: 'id' })).toEqual({
      issuer: ISSUER,
      subject: 's',
      email: 'a@example.com',
      tokenUse: 'id',
    });
    expect(identityOf({ iss: ISSUER, sub: 's', email: 'a@example.com', email_verified: false })).toEqual({ issuer: ISSUER, subject: 's' });
    expect(identityOf({ iss: ISSUER, sub: 's', token_use: 'access' })).toEqual({ issuer: ISSUER, subject: 's', tokenUse: 'access' });

    const id = userIdOf(ISSUER, 's');
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(userIdOf(ISSUER, 's')).toBe(id);
    expect(userIdOf(`${ISSUER}x`, 's')).not.toBe(id);
    expect(userIdOf(ISSUER, 's2')).not.toBe(id);
    // Not confusable by moving characters between issuer and subject.
    expect(userIdOf('ab', 'c')).not.toBe(userIdOf('a', 'bc'));
    // The personal organisation's id can be carried by an API token string.
    expect(parseApiToken(`ac1.${personalOrgIdOf(id)}.tok.secret`)?.orgId).toBe(personalOrgIdOf(id));
  });
});

describe('identity provider configuration', () => {
  it('is absent unless an issuer is set, and then needs client ids', () => {
    expect(identityProviderFromEnvironment({})).toBeUndefined();
    expect(() => identityProviderFromEnvironment({ IDENTITY_PROVIDER_CLIENT_IDS: 'a' })).toThrow(/need IDENTITY_PROVIDER_ISSUER/);
    expect(() => identityProviderFromEnvironment({ IDENTITY_PROVIDER_ISSUER: ISSUER })).toThrow(/IDENTITY_PROVIDER_CLIENT_IDS/);
  });

  it("defaults the JWKS to Cognito's layout and takes another where given", () => {
    expect(identityProviderFromEnvironment({ IDENTITY_PROVIDER_ISSUER: ISSUER, IDENTITY_PROVIDER_CLIENT_IDS: ' a, b ,' })).toEqual({
      issuer: ISSUER,
      clientIds: ['a', 'b'],
      jwksUrl: `${ISSUER}/.well-known/jwks.json`,
    });
    expect(defaultJwksUrl('https://idp.example.com/realms/x/')).toBe('https://idp.example.com/realms/x/.well-known/jwks.json');
    expect(
      identityProviderFromEnvironment({
        IDENTITY_PROVIDER_ISSUER: 'https://idp.example.com/realms/x',
        IDENTITY_PROVIDER_CLIENT_IDS: 'a',
        IDENTITY_PROVIDER_JWKS_URL: 'https://idp.example.com/realms/x/protocol/openid-connect/certs',
      })?.jwksUrl,
    ).toBe('https://idp.example.com/realms/x/protocol/openid-connect/certs');
  });

  it('refuses plain http except on loopback', () => {
    expect(() => identityProviderFromEnvironment({ IDENTITY_PROVIDER_ISSUER: 'http://idp.example.com', IDENTITY_PROVIDER_CLIENT_IDS: 'a' })).toThrow(/https/);
    expect(() => identityProviderFromEnvironment({ IDENTITY_PROVIDER_ISSUER: 'not a url', IDENTITY_PROVIDER_CLIENT_IDS: 'a' })).toThrow(/must be a URL/);
    expect(identityProviderFromEnvironment({ IDENTITY_PROVIDER_ISSUER: 'http://127.0.0.1:9000/pool', IDENTITY_PROVIDER_CLIENT_IDS: 'a' })?.jwksUrl).toBe(
      'http://127.0.0.1:9000/pool/.well-known/jwks.json',
    );
  });
});
