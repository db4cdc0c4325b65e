/**
 * The OIDC adapter when the issuer's keys cannot be had: not the caller's fault, so a 503 to retry
 * rather than a 401 that would send them to sign in again. Servers on loopback only.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import { createOidcIdentityVerifier } from '../../lambdas/adapters/oidc/verifier.js';
import { DomainError } from '../../lambdas/domain/core/errors.js';
import { freePort } from '../support/net.js';

async function tokenFor(issuer: string): Promise<string> {
  const { privateKey } = await generateKeyPair('ES256');
  return new SignJWT({ token_use: 'id', aud: 'client' })
    .setProtectedHeader({ alg: 'ES256', kid: 'k' })
    .setIssuer(issuer)
    .setSubject('s')
    .setExpirationTime('5m')
    .sign(privateKey);
}

async function refusalOf(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}

describe("OIDC verifier without the issuer's keys", () => {
  it('answers 503 when the JWKS is unreachable or broken, naming no token', async () => {
    const closed = `http://127.0.0.1:${await freePort()}/pool`;
    const token = await tokenFor(closed);
    const unreachable = await refusalOf(
      createOidcIdentityVerifier({ issuer: closed, clientIds: ['client'], jwksUrl: `${closed}/.well-known/jwks.json` }).verify(token),
    );
    expect(unreachable.kind).toBe('unavailable');
    expect(unreachable.message).toMatch(/signing keys could not be fetched/);
    expect(unreachable.message).not.toContain(token.split('.')[2]);

    const server = createServer((_request, response) => response.writeHead(500).end('down'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pool`;
      const broken = await refusalOf(
        createOidcIdentityVerifier({ issuer, clientIds: ['client'], jwksUrl: `${issuer}/.well-known/jwks.json` }).verify(await tokenFor(issuer)),
      );
      expect(broken.kind).toBe('unavailable');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  }, 20_000);

  it('refuses before fetching anything what the token itself rules out', async () => {
    const verifier = createOidcIdentityVerifier({
      issuer: 'http://127.0.0.1:9/pool',
      clientIds: ['client'],
      jwksUrl: 'http://127.0.0.1:9/pool/.well-known/jwks.json',
    });
    expect((await refusalOf(verifier.verify(await tokenFor('http://127.0.0.1:9/other')))).message).toMatch(/not issued by/);
    expect((await refusalOf(verifier.verify('a'.repeat(20_000)))).message).toMatch(/longer than/);
    expect((await refusalOf(verifier.verify('!!.??.xx'))).message).toMatch(/malformed/);
  });
});
