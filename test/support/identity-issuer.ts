/**
 * A loopback identity provider for API tests: it publishes a JWKS (as a Cognito user pool does at
 * `<issuer>/.well-known/jwks.json`) and signs ID tokens for any subject. Tests of the sign-in flow
 * itself use the local stand-in (bin/local/identity-stand-in.ts) through the browser instead.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey } from 'jose';

export interface IdentityIssuer {
  issuer: string;
  clientId: string;
  /** An ID token of `subject` with a verified `email`. */
  idToken(subject: string, email?: string): Promise<string>;
  /** The environment the Api instances read (set before the runtime starts them). */
  environment: Record<string, string>;
  close(): Promise<void>;
}

export async function startIdentityIssuer(clientId = 'console-client'): Promise<IdentityIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const keys = { keys: [{ ...(await exportJWK(publicKey)), kid: 'test-key', alg: 'RS256', use: 'sig' }] };
  const server: Server = createServer((request, response) => {
    const known = request.url === '/pool/.well-known/jwks.json';
    response.writeHead(known ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(known ? keys : {}));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pool`;
  const sign = (key: CryptoKey, subject: string, email?: string) =>
    new SignJWT({ token_use: 'id', aud: clientId, ...(email ? { email, email_verified: true } : {}) })
      .setProtectedHeader({ alg: 'RS256', kid: 'test-key' })
      .setIssuer(issuer)
      .setSubject(subject)
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(key);
  return {
    issuer,
    clientId,
    idToken: (subject, email) => sign(privateKey, subject, email),
    environment: { IDENTITY_PROVIDER_ISSUER: issuer, IDENTITY_PROVIDER_CLIENT_IDS: clientId },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
