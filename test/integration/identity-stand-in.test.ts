/**
 * The local identity stand-in (bin/local/identity-stand-in.ts) spoken to as a browser would, without
 * one: authorization code + PKCE through its sign-up, verification and sign-in pages, the ID token it
 * issues accepted by the API, and what it refuses (no PKCE, a wrong verifier, a short password, a
 * wrong code, a wrong password, an unverified account). And what it holds against an attacker
 * (issue 44): codes bound to the interaction that asked for them, lockouts of code and password
 * guessing per account and per source, the same answers for accounts that exist and those that do
 * not, and password hashing that leaves the API's latency alone.
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { setPriority } from 'node:os';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { hashingStats } from '../../bin/local/identity-hashing.js';
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
    const latest = readdirSync(outbox)
      .filter((name) => name.endsWith(`-${email}.txt`))
      .sort()
      .at(-1)!;
    return /verification code is (\d{6})/.exec(readFileSync(path.join(outbox, latest), 'utf8'))![1]!;
  };

  const interactionOf = (url: string) => /\/identity\/interaction\/([\w-]+)/.exec(url)![1]!;

  /** A new interaction in a browser of its own (its cookies), as the console starts one. */
  async function startInteraction() {
    const jar = new CookieJar();
    const { challenge, verifier } = pkce();
    const start = await browse(jar, authorizeUrl({ code_challenge: challenge, code_challenge_method: 'S256' }));
    const uid = interactionOf(start.url);
    const post = (action: 'sign-in' | 'sign-up' | 'verify', form: Record<string, string>) =>
      browse(jar, `${env.runtime.url}/identity/interaction/${uid}/${action}`, { method: 'POST', form });
    return { jar, uid, verifier, post };
  }
  const signedIn = (result: { url: string }) => new URL(result.url).searchParams.has('code');
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

  /** What the stand-in printed on the console while it started (oidc-provider warns there). */
  const warnings: string[] = [];

  beforeAll(async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => void warnings.push(args.join(' ')));
    try {
      env = await testRuntime({ identityStandIn: true });
    } finally {
      warn.mockRestore();
    }
    issuer = env.runtime.identity!.issuer;
    // The tests below fail on purpose many times from 127.0.0.1: the per-source limit has a test of its own.
    env.runtime.identity!.attempts.policies.source.freeFailures = 1_000;
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

    const short = await browse(jar, `${env.runtime.url}/identity/interaction/${uid}/sign-up`, {
      method: 'POST',
      form: { email: 'carol@example.com', password: 'short', repeat: 'short' },
    });
    expect(short.response.status).toBe(400);
    expect(short.text).toMatch(/at least 12 characters/);

    const signedUp = await browse(jar, `${env.runtime.url}/identity/interaction/${uid}/sign-up`, {
      method: 'POST',
      form: { email: 'Carol@Example.com', password: PASSWORD, repeat: PASSWORD },
    });
    expect(signedUp.text).toMatch(/verification code/);
    const wrong = await browse(jar, `${env.runtime.url}/identity/interaction/${uid}/verify`, {
      method: 'POST',
      form: { email: 'carol@example.com', code: '000000' },
    });
    expect(wrong.response.status).toBe(400);
    const done = await browse(jar, `${env.runtime.url}/identity/interaction/${uid}/verify`, {
      method: 'POST',
      form: { email: 'carol@example.com', code: verificationCode('carol@example.com') },
    });
    const callback = new URL(done.url);
    expect(callback.searchParams.get('state')).toBe('st');
    const code = callback.searchParams.get('code')!;

    const exchange = (codeVerifier: string) =>
      fetch(`${issuer}/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirectUri(),
          client_id: 'assisted-console',
          code_verifier: codeVerifier,
        }),
      });
    const refused = await exchange(pkce().verifier);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toBe('invalid_grant');
    // A code is single-use: after a refused exchange the provider may have burnt it, so start again.
    const jar2 = new CookieJar();
    const second = pkce();
    const again = await browse(jar2, authorizeUrl({ code_challenge: second.challenge, code_challenge_method: 'S256' }));
    const signedIn = await browse(jar2, `${env.runtime.url}/identity/interaction/${interactionOf(again.url)}/sign-in`, {
      method: 'POST',
      form: { email: 'carol@example.com', password: PASSWORD },
    });
    const secondCode = new URL(signedIn.url).searchParams.get('code')!;
    const tokens = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: secondCode,
        redirect_uri: redirectUri(),
        client_id: 'assisted-console',
        code_verifier: second.verifier,
      }),
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
    const wrong = await browse(jar, `${env.runtime.url}/identity/interaction/${uid}/sign-in`, {
      method: 'POST',
      form: { email: 'carol@example.com', password: 'not the password' },
    });
    expect(wrong.response.status).toBe(401);
    expect(wrong.text).toMatch(/email or password is wrong/);

    await browse(jar, `${env.runtime.url}/identity/interaction/${uid}/sign-up`, {
      method: 'POST',
      form: { email: 'dan@example.com', password: PASSWORD, repeat: PASSWORD },
    });
    // Signing in before verifying sends a new code and asks for it again.
    const unverified = await browse(jar, `${env.runtime.url}/identity/interaction/${uid}/sign-in`, {
      method: 'POST',
      form: { email: 'dan@example.com', password: PASSWORD },
    });
    expect(unverified.text).toMatch(/Verify your email/);
    expect(unverified.url).not.toContain('code=');
  });

  it('starts without oidc-provider telling anyone they MUST change something', () => {
    expect(warnings.filter((line) => /oidc-provider/.test(line))).toEqual([]);
  });

  it('takes a verification code only in the interaction that asked for it', async () => {
    const asker = await startInteraction();
    const signedUp = await asker.post('sign-up', { email: 'erin@example.com', password: PASSWORD, repeat: PASSWORD });
    expect(signedUp.text).toMatch(/Verify your email/);
    const code = verificationCode('erin@example.com');

    const other = await startInteraction();
    const elsewhere = await other.post('verify', { email: 'erin@example.com', code });
    expect(elsewhere.response.status).toBe(400);
    expect(elsewhere.text).toMatch(/wrong or expired/);
    expect(signedIn(elsewhere)).toBe(false);

    const here = await asker.post('verify', { email: 'erin@example.com', code });
    expect(signedIn(here)).toBe(true);
  });

  it('voids a code after 5 wrong entries and backs the account off; a new code then works', async () => {
    const flow = await startInteraction();
    await flow.post('sign-up', { email: 'frank@example.com', password: PASSWORD, repeat: PASSWORD });
    const code = verificationCode('frank@example.com');
    const wrongCode = code === '000000' ? '111111' : '000000';
    for (let attempt = 1; attempt <= 5; attempt++) {
      const wrong = await flow.post('verify', { email: 'frank@example.com', code: wrongCode });
      expect(wrong.response.status, `attempt ${attempt}`).toBe(attempt < 5 ? 400 : 429);
    }
    const tooLate = await flow.post('verify', { email: 'frank@example.com', code });
    expect(tooLate.response.status).toBe(429);
    expect(tooLate.text).toMatch(/Too many wrong codes|Too many failed attempts/);
    expect(signedIn(tooLate)).toBe(false);
    await sleep(1_100);
    // The void code stays void once the lockout has passed.
    const stillVoid = await flow.post('verify', { email: 'frank@example.com', code });
    expect(signedIn(stillVoid)).toBe(false);
    expect(stillVoid.text).toMatch(/wrong or expired.*try again in 2 seconds/s);

    // Signing in with the password sends a new code to this interaction, once the account's lockout (2 s now) has passed.
    await sleep(2_100);
    const again = await flow.post('sign-in', { email: 'frank@example.com', password: PASSWORD });
    expect(again.text).toMatch(/Verify your email/);
    const newCode = verificationCode('frank@example.com');
    expect(signedIn(await flow.post('verify', { email: 'frank@example.com', code: newCode }))).toBe(true);
  });

  it('locks out password guessing per account after 5 failures, the same for accounts that do not exist', async () => {
    env.runtime.identity!.attempts.clear();
    for (const email of ['carol@example.com', 'nobody-here@example.com']) {
      const flow = await startInteraction();
      const answers: number[] = [];
      for (let attempt = 0; attempt < 5; attempt++) answers.push((await flow.post('sign-in', { email, password: 'not the password at all' })).response.status);
      expect(answers, email).toEqual([401, 401, 401, 401, 429]);
      const locked = await flow.post('sign-in', { email, password: PASSWORD });
      expect(locked.response.status, email).toBe(429);
      expect(locked.text).toMatch(/Too many failed attempts.*try again in 1 second/);
    }
    await sleep(1_100);
    const flow = await startInteraction();
    expect(signedIn(await flow.post('sign-in', { email: 'carol@example.com', password: PASSWORD }))).toBe(true);
  });

  it('answers a sign-up for an existing account as for a new one, and mails the owner instead', async () => {
    const answer = async (email: string) => {
      const flow = await startInteraction();
      const result = await flow.post('sign-up', { email, password: PASSWORD, repeat: PASSWORD });
      return { status: result.response.status, text: result.text.replaceAll(email, 'EMAIL').replaceAll(flow.uid, 'UID') };
    };
    const existing = await answer('carol@example.com');
    const fresh = await answer('grace@example.com');
    expect(existing).toEqual(fresh);
    expect(existing.status).toBe(200);
    const outbox = env.runtime.identity!.outbox;
    const notice = readdirSync(outbox)
      .filter((name) => name.endsWith('-carol@example.com.txt'))
      .sort()
      .at(-1)!;
    expect(readFileSync(path.join(outbox, notice), 'utf8')).toMatch(/has an account already/);
  });

  it('takes as long to refuse an unknown account as a wrong password', async () => {
    const accounts = ['timing-a@example.com', 'timing-b@example.com'];
    for (const email of accounts) await (await startInteraction()).post('sign-up', { email, password: PASSWORD, repeat: PASSWORD });
    const flow = await startInteraction();
    const timed = async (email: string) => {
      const started = performance.now();
      const result = await flow.post('sign-in', { email, password: 'not the password at all' });
      expect(result.response.status).toBe(401);
      return performance.now() - started;
    };
    const known: number[] = [];
    const unknown: number[] = [];
    // Alternated, 4 failures per account (below its lockout).
    for (let round = 0; round < 8; round++) {
      known.push(await timed(accounts[round % 2]!));
      unknown.push(await timed(`ghost-${round}@example.com`));
    }
    const ratio = median(unknown) / median(known);
    console.log(`sign-in refusal medians: existing ${median(known).toFixed(1)} ms, unknown ${median(unknown).toFixed(1)} ms`);
    expect(ratio).toBeGreaterThan(0.6);
    expect(ratio).toBeLessThan(1 / 0.6);
  });

  it("keeps the API's median latency within 20 % of idle during 8 concurrent wrong-password sign-ins", async () => {
    const { policies } = env.runtime.identity!.attempts;
    const saved = { account: policies.account.freeFailures, source: policies.source.freeFailures };
    // Lockouts would stop the hashing this measures: off for this test.
    policies.account.freeFailures = policies.source.freeFailures = 1_000_000;
    // Accounts that exist, as in the probe (an unknown one is now hashed the same, but was not before).
    const loadAccounts = Array.from({ length: 8 }, (_, n) => `load-${n}@example.com`);
    for (const email of loadAccounts) await (await startInteraction()).post('sign-up', { email, password: PASSWORD, repeat: PASSWORD });
    const flows = await Promise.all(loadAccounts.map(() => startInteraction()));
    const apiLatency = async () => {
      const started = performance.now();
      const response = await fetch(`${env.runtime.url}/api/assisted-install/v2/clusters`, {
        headers: { Authorization: `Bearer ${env.adminToken}` },
        signal: AbortSignal.timeout(20_000),
      });
      await response.arrayBuffer();
      expect(response.status).toBe(200);
      return performance.now() - started;
    };
    // The attacker is another process, as it would be: its own client work stays off the event loop
    // the runtime shares with this test. Told 'on', each of its 8 flows posts a wrong password in a
    // loop (a line per answer); told 'off', it abandons the sign-ins in flight (the stand-in then
    // does not hash them) and says 'paused'.
    const attacker = `
      const flows = JSON.parse(process.env.FLOWS);
      let loading = false;
      let running = 0;
      let leave = new AbortController();
      const post = async ({ url, cookie, email }) => {
        const response = await fetch(url, { method: 'POST', signal: leave.signal, headers: { cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ email, password: 'not the password at all' }).toString() });
        await response.arrayBuffer();
        process.stdout.write(response.status + '\\n');
      };
      const loop = async (flow) => {
        running += 1;
        while (loading) await post(flow).catch((error) => { if (!leave.signal.aborted) throw error; });
        running -= 1;
        if (running === 0) process.stdout.write('paused\\n');
      };
      process.stdin.setEncoding('utf8').on('data', (text) => {
        for (const command of text.split('\\n').filter(Boolean)) {
          if (command === 'on' && !loading) { loading = true; leave = new AbortController(); flows.forEach(loop); }
          if (command === 'off') { loading = false; leave.abort(); }
          if (command === 'quit') process.exit(0);
        }
      });`;
    const flowSpecs = JSON.stringify(
      flows.map((flow, n) => ({ url: `${env.runtime.url}/identity/interaction/${flow.uid}/sign-in`, cookie: flow.jar.header(), email: loadAccounts[n] })),
    );
    let refusals = 0;
    const others: string[] = [];
    let paused: () => void = () => undefined;
    const load = spawn(process.execPath, ['--input-type=module', '-e', attacker], {
      env: { ...process.env, FLOWS: flowSpecs },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    // An attacker's client runs on the attacker's machine: here, at the lowest priority, so its own
    // CPU (on a 2-core machine that runs other work too) is not counted as the server's.
    setPriority(load.pid!, 19);
    load.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      for (const line of chunk.split('\n').filter(Boolean)) {
        if (line === '401') refusals += 1;
        else if (line === 'paused') paused();
        else others.push(line);
      }
    });
    const stopLoad = async () => {
      const done = new Promise<void>((resolve) => (paused = resolve));
      load.stdin!.write('off\n');
      await Promise.race([done, sleep(30_000)]);
      // The hash under way when the sign-ins were abandoned finishes on its own.
      await sleep(150);
    };
    const samples = async (count: number) => {
      const taken: number[] = [];
      for (let i = 0; i < count; i++) taken.push(await apiLatency());
      return taken;
    };
    try {
      await samples(10); // warm
      // Short alternating phases, pooled: the machine's other work (other tests, builds), which comes
      // and goes over seconds, falls on both sides alike, and the two medians compare what the
      // sign-ins add. Even so, with no sign-ins at all the ratio of two such medians ranged from
      // 0.95 to 1.5 on this project's shared 2-core machine at load averages of 12-18: a measurement
      // over the bound is taken again, at most 3 times. Noise passes no regression: scryptSync on
      // the event loop measured 40.
      const measure = async () => {
        const idle: number[] = [];
        const loaded: number[] = [];
        const refusedBefore = refusals;
        let hashedWhileMeasured = 0;
        const waitingWhileMeasured: number[] = [];
        for (let round = 0; round < 12; round++) {
          idle.push(...(await samples(8)));
          load.stdin!.write('on\n');
          // Measured once the 8 sign-ins are at the stand-in, waiting for their hash or in it.
          for (let waited = 0; hashingStats().waiting < 8 && waited < 5_000; waited += 10) await sleep(10);
          const before = hashingStats().hashed;
          loaded.push(...(await samples(8)));
          hashedWhileMeasured += hashingStats().hashed - before;
          waitingWhileMeasured.push(hashingStats().waiting);
          await stopLoad();
        }
        const ratio = median(loaded) / median(idle);
        console.log(
          `API p50 idle ${median(idle).toFixed(1)} ms, during 8 concurrent wrong sign-ins ${median(loaded).toFixed(1)} ms (${idle.length} samples each): ratio ${ratio.toFixed(2)}; ${refusals - refusedBefore} sign-ins refused, ${hashedWhileMeasured} hashes while measured, sign-ins waiting at the end of each ${waitingWhileMeasured.join(' ')}`,
        );
        // The load was real: 8 sign-ins at the stand-in throughout, hashed and refused meanwhile at
        // the pace its budget allows (a quarter of a core: on a busy machine a few per second).
        expect(others).toEqual([]);
        expect(median(waitingWhileMeasured)).toBeGreaterThanOrEqual(7);
        expect(refusals - refusedBefore).toBeGreaterThanOrEqual(2);
        expect(hashedWhileMeasured).toBeGreaterThanOrEqual(2);
        return ratio;
      };
      const ratios: number[] = [];
      for (let attempt = 0; attempt < 3 && !(ratios.at(-1)! <= 1.2); attempt++) ratios.push(await measure());
      expect(ratios.at(-1), `ratios ${ratios.map((r) => r.toFixed(2)).join(', ')}`).toBeLessThanOrEqual(1.2);
    } finally {
      load.stdin!.end('quit\n');
      if (load.exitCode === null) await Promise.race([once(load, 'exit'), sleep(10_000).then(() => load.kill('SIGKILL'))]);
      policies.account.freeFailures = saved.account;
      policies.source.freeFailures = saved.source;
      env.runtime.identity!.attempts.clear();
    }
  }, 180_000);

  it('locks out one source that fails across many accounts (password spraying)', async () => {
    const { policies, clear } = env.runtime.identity!.attempts;
    const saved = policies.source.freeFailures;
    clear();
    policies.source.freeFailures = 3;
    try {
      const flow = await startInteraction();
      const answers: number[] = [];
      for (const email of ['spray-1@example.com', 'spray-2@example.com', 'spray-3@example.com']) {
        answers.push((await flow.post('sign-in', { email, password: 'not the password at all' })).response.status);
      }
      expect(answers).toEqual([401, 401, 429]);
      // Even a right password from this source waits.
      const locked = await flow.post('sign-in', { email: 'carol@example.com', password: PASSWORD });
      expect(locked.response.status).toBe(429);
      await sleep(1_100);
      expect(signedIn(await flow.post('sign-in', { email: 'carol@example.com', password: PASSWORD }))).toBe(true);
    } finally {
      policies.source.freeFailures = saved;
      clear();
    }
  });
});
