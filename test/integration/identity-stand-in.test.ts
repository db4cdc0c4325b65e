/**
 * The local identity stand-in (bin/local/identity-stand-in.ts) spoken to as a browser would, without
 * one: authorization code + PKCE through its sign-up, verification and sign-in pages, the ID token it
 * issues accepted by the API, and what it refuses (no PKCE, a wrong verifier, a short password, a
 * wrong code, a wrong password, an unverified account).
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRuntime } from '../support/runtime.js';

const PASSWORD = 'a long enough password';

/** Cookies by name, as a browser keeps them for the stand-in's origin. */
class CookieJar {
  private readonly cookies = new Map<string, string>();
  take(response: Response) {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
  }
  header() {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

describe('local identity stand-in', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  let issuer: string;
  const redirectUri = () => `${env.runtime.url}/sign-in/callback`;

  /** Requests with the jar's cookies, following redirects within the runtime until one leaves for the callback. */
  async function browse(jar: CookieJar, url: string, init: { method?: string; form?: Record<string, string> } = {}) {
    let next = url;
    let method = init.method ?? 'GET';
    let body: string | undefined = init.form ? new URLSearchParams(init.form).toString() : undefined;
    for (let hop = 0; hop < 12; hop++) {
      const response = await fetch(next, {
        method,
        redirect: 'manual',
        headers: { cookie: jar.header(), ...(body ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}) },
        body,
        signal: AbortSignal.timeout(20_000),
      });
      jar.take(response);
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !location) return { response, url: next, text: await response.text() };
      await response.arrayBuffer();
      next = new URL(location, next).toString();
      if (next.startsWith(redirectUri())) return { response, url: next, text: '' };
      method = 'GET';
      body = undefined;
    }
    throw new Error('too many redirects');
  }

  function pkce() {
    const verifier = randomBytes(32).toString('base64url');
    return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
  }

  const authorizeUrl = (params: Record<string, string>) =>
    `${issuer}/auth?${new URLSearchParams({ response_type: 'code', client_id: 'assisted-console', redirect_uri: redirectUri(), scope: 'openid email', state: 'st', ...params })}`;

  const verificationCode = (email: string) => {
    const outbox = env.runtime.identity!.outbox;
    const latest = readdirSync(outbox).filter((name) => name.endsWith(`-${email}.txt`)).sort().at(-1)!;
    return /verification code is (\d{6})/.exec(readFileSync(path.join(outbox, latest), 'utf8'))![1]!;
  };

  const interactionOf = (url: string) => /\/identity\/interaction\/([\w-]+)/.exec(url)![1]!;

  beforeAll(async () => {
    env = await testRuntime({ identityStandIn: true });
    issuer = env.runtime.identity!.issuer;
  }, 180_000);
  afterAll(async () => {
    await env?.close();
  });

  it('signs up, verifies the email and signs in with PKCE; the API takes the ID token', async () => {
    const jar = new CookieJar();
    const { challenge } = pkce();
    const start = await browse(jar, authorizeUrl({ code_challenge: challenge, code_challenge_method: 'S256' }));
    expect(start.text).toContain('Sign in');
    const uid = interactionOf(start.url);

    const short = await browse(jar, `${env.runtime.url}/identity/interaction/${uid}/sign-up`, { method: 'POST', form: { email: 'carol@example.com', password: 'short', repeat: 'short' } });
    expect(short.response.status).toBe(400);
    expect(short.text).toMatch(/at least 12 characters/);

    const signedUp = await browse(jar, `${env.runtime.url}/identity/interaction/${uid}/sign-up`, { method: 'POST', form: { email: 'Carol@Example.com', password: PASSWORD, repeat: PASSWORD } });
    expect(signedUp.text).toMatch(/verification code/);
    const wrong = await browse(jar, `${env.runtime.url}/identity/interaction/${uid}/verify`, { method: 'POST', form: { email: 'carol@example.com', code: '000000' } });
    expect(wrong.response.status).toBe(400);
    const done = await browse(jar, `${env.runtime.url}/identity/interaction/${uid}/verify`, { method: 'POST', form: { email: 'carol@example.com', code: verificationCode('carol@example.com') } });
    const callback = new URL(done.url);
    expect(callback.searchParams.get('state')).toBe('st');
    const code = callback.searchParams.get('code')!;

    const exchange = (codeVerifier: string) =>
      fetch(`${issuer}/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri(), client_id: 'assisted-console', code_verifier: codeVerifier }),
      });
    const refused = await exchange(pkce().verifier);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toBe('invalid_grant');
    // A code is single-use: after a refused exchange the provider may have burnt it, so start again.
    const jar2 = new CookieJar();
    const second = pkce();
    const again = await browse(jar2, authorizeUrl({ code_challenge: second.challenge, code_challenge_method: 'S256' }));
    const signedIn = await browse(jar2, `${env.runtime.url}/identity/interaction/${interactionOf(again.url)}/sign-in`, { method: 'POST', form: { email: 'carol@example.com', password: PASSWORD } });
    const secondCode = new URL(signedIn.url).searchParams.get('code')!;
    const tokens = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: secondCode, redirect_uri: redirectUri(), client_id: 'assisted-console', code_verifier: second.verifier }),
    });
    expect(tokens.status).toBe(200);
    const { id_token: idToken } = (await tokens.json()) as { id_token: string };
    const claims = JSON.parse(Buffer.from(idToken.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    expect(claims).toMatchObject({ iss: issuer, aud: 'assisted-console', email: 'carol@example.com', email_verified: true });

    const organisations = await fetch(`${env.runtime.url}/api/assisted-install/v2/organizations`, { headers: { Authorization: `Bearer ${idToken}` } });
    expect(organisations.status).toBe(200);
    expect(await organisations.json()).toEqual([expect.objectContaining({ name: "carol@example.com's organisation", role: 'admin' })]);
    // The console is told to sign in there.
    expect(await (await fetch(`${env.runtime.url}/api/assisted-install/v2/sign-in/settings`)).json()).toMatchObject({
      identity_provider: true,
      client_id: 'assisted-console',
      authorization_endpoint: `${issuer}/auth`,
      token_endpoint: `${issuer}/token`,
    });
  });

  it('refuses an authorization request without PKCE, a wrong password, and an unverified account until it is verified', async () => {
    const noPkce = await browse(new CookieJar(), authorizeUrl({}));
    expect(new URL(noPkce.url).searchParams.get('error')).toBe('invalid_request');

    const jar = new CookieJar();
    const { challenge } = pkce();
    const start = await browse(jar, authorizeUrl({ code_challenge: challenge, code_challenge_method: 'S256' }));
    const uid = interactionOf(start.url);
    const wrong = await browse(jar, `${env.runtime.url}/identity/interaction/${uid}/sign-in`, { method: 'POST', form: { email: 'carol@example.com', password: 'not the password' } });
    expect(wrong.response.status).toBe(401);
    expect(wrong.text).toMatch(/email or password is wrong/);

    await browse(jar, `${env.runtime.url}/identity/interaction/${uid}/sign-up`, { method: 'POST', form: { email: 'dan@example.com', password: PASSWORD, repeat: PASSWORD } });
    // Signing in before verifying sends a new code and asks for it again.
    const unverified = await browse(jar, `${env.runtime.url}/identity/interaction/${uid}/sign-in`, { method: 'POST', form: { email: 'dan@example.com', password: PASSWORD } });
    expect(unverified.text).toMatch(/Verify your email/);
    expect(unverified.url).not.toContain('code=');
  });
});
