/**
 * The local stand-in for the identity provider (Amazon Cognito in AWS): an OpenID Connect provider
 * (oidc-provider, a certified implementation) mounted at `<runtime url>/identity`, with sign-up,
 * email verification and sign-in pages of its own. The console signs in against it exactly as it
 * does against Cognito's managed login: authorization code + PKCE, a public client, ID tokens the
 * API verifies against the issuer's JWKS. What differs is documented in docs/api.md ("The local
 * identity stand-in"): no mail is sent (verification codes go to files in the data directory), and
 * sessions live in memory (a restart signs people out of the provider, not out of the console).
 *
 * What it holds against an attacker, as Cognito does (identity-attempts.ts): password and code
 * guessing locked out per account and per source with doubling backoff; a code works only in the
 * interaction (the sign-up or sign-in flow) that asked for it; the same answers and the same hashing
 * work whether an account exists or not; hashing off the event loop, one at a time, at low priority
 * (identity-hashing.ts), so sign-ins never stall the API the same process serves.
 */
import { generateKeyPairSync, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import Provider, { type Configuration } from 'oidc-provider';
import type { LocalRoute } from './api-gateway.js';
import {
  ACCOUNT_ATTEMPTS,
  AttemptLimiter,
  CODE_SENDS,
  SOURCE_ATTEMPTS,
  WRONG_CODES_PER_CODE,
  lockoutText,
  newVerificationCode,
  type AttemptPolicy,
} from './identity-attempts.js';
import { scryptOffThread } from './identity-hashing.js';
import { memoryAdapterFactory } from './identity-memory-adapter.js';
import { replaceFileSync } from './replaced-files.js';

/** The console's client id, locally (in AWS the user pool's app client id). */
export const CONSOLE_CLIENT_ID = 'assisted-console';
/** The same policy lib/ gives the Cognito user pool: long rather than complicated. */
export const MIN_PASSWORD_LENGTH = 12;
/** The life of a sign-in interaction, and so of the code it asked for. */
const INTERACTION_SECONDS = 900;
const VERIFICATION_CODE_MINUTES = INTERACTION_SECONDS / 60;
const MOUNT = '/identity';
const MAX_FORM_BYTES = 8_192;

interface Account {
  sub: string;
  email: string;
  emailVerified: boolean;
  passwordHash: string;
  verification?: {
    codeHash: string;
    expiresAt: string;
    /** The interaction that asked for the code: the only one it works in. */
    interaction?: string;
    /** Wrong entries so far; at WRONG_CODES_PER_CODE the code is void. */
    wrongCodes?: number;
  };
  createdAt: string;
}

/** Accounts in one JSON file of the data directory, rewritten whole (atomically) on each change. */
class AccountFile {
  private accounts: Account[];
  constructor(private readonly file: string) {
    this.accounts = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Account[]) : [];
  }
  byEmail(email: string) {
    return this.accounts.find((account) => account.email === normalEmail(email));
  }
  bySub(sub: string) {
    return this.accounts.find((account) => account.sub === sub);
  }
  save(account: Account) {
    this.accounts = [...this.accounts.filter((other) => other.sub !== account.sub), account];
    replaceFileSync(this.file, JSON.stringify(this.accounts, null, 2), { mode: 0o600 });
  }
}

const normalEmail = (email: string) => email.trim().toLowerCase();

/** `signal`: the request's; a client that has gone is not hashed for. */
async function hashOf(secret: string, signal?: AbortSignal): Promise<string> {
  const salt = randomBytes(16).toString('hex');
  return `${salt}:${(await scryptOffThread(secret, salt, { signal })).toString('hex')}`;
}
/**
 * Whether `secret` hashes to `stored`. Without a stored hash (no such account, no code pending)
 * it hashes against a made-up one all the same, so the answer takes as long either way.
 */
let absentHash: Promise<string> | undefined;
async function matches(secret: string, stored: string | undefined, signal?: AbortSignal): Promise<boolean> {
  const [salt, hash] = (stored ?? (await (absentHash ??= hashOf(randomUUID())))).split(':');
  const presented = await scryptOffThread(secret, salt ?? '', { signal });
  const expected = Buffer.from(hash ?? '', 'hex');
  return stored !== undefined && presented.length === expected.length && timingSafeEqual(presented, expected);
}

/** A key kept with the data so that ID tokens and sessions survive a restart of the runtime. */
function keptSecrets(directory: string): { signingKey: Record<string, unknown>; cookieKey: string } {
  const file = path.join(directory, 'provider-keys.json');
  if (!existsSync(file)) {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const signingKey = { ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), alg: 'RS256', use: 'sig' };
    writeFileSync(file, JSON.stringify({ signingKey, cookieKey: randomBytes(32).toString('hex') }), { mode: 0o600 });
  }
  return JSON.parse(readFileSync(file, 'utf8')) as { signingKey: Record<string, unknown>; cookieKey: string };
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(response: ServerResponse, status: number, title: string, body: string): void {
  response.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
  });
  response.end(pageHtml(title, body));
}

function pageHtml(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} · assisted-cloud</title>
<style>body{font-family:system-ui,sans-serif;background:#f0f0f0;margin:0}main{max-width:26rem;margin:4rem auto;background:#fff;padding:2rem;border-radius:8px}
label{display:block;margin:.75rem 0 .25rem}input{width:100%;padding:.5rem;box-sizing:border-box}button{margin-top:1rem;padding:.5rem 1rem}
.problem{color:#a30000}.hint{color:#555;font-size:.9rem}.badge{font-size:.75rem;background:#ffe9a8;padding:.15rem .4rem;border-radius:4px}</style></head>
<body><main><p class="badge">Local identity stand-in (in AWS: Amazon Cognito)</p><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
}

function readForm(request: IncomingMessage): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_FORM_BYTES) request.destroy(new Error('form too large'));
      else chunks.push(chunk);
    });
    request.on('end', () => resolve(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))));
    request.on('error', reject);
  });
}

export interface IdentityStandIn {
  issuer: string;
  clientId: string;
  /** What the Api instances read to trust it and to tell the console how to sign in. */
  environment: Record<string, string>;
  /** Where verification messages go instead of mail. */
  outbox: string;
  /**
   * The lockouts' policies, read at each attempt (a test may change them live), and a way to
   * forget every count.
   */
  attempts: { policies: { account: AttemptPolicy; source: AttemptPolicy; codeSends: AttemptPolicy }; clear(): void };
}

/**
 * The route the local API gateway serves under /identity; the provider is made once the runtime's
 * URL is known (`start`), and until then the route answers nothing.
 */
export function identityStandInRoute(): {
  route: LocalRoute;
  start(options: { url: string; dataDir: string; log: (message: string) => void }): IdentityStandIn;
} {
  let handler: ((request: IncomingMessage, response: ServerResponse) => Promise<void>) | undefined;
  const route: LocalRoute = async (request, response) => {
    const pathname = new URL(request.url ?? '/', 'http://local').pathname;
    if (!handler || (pathname !== MOUNT && !pathname.startsWith(`${MOUNT}/`))) return false;
    await handler(request, response);
    return true;
  };
  return {
    route,
    start({ url, dataDir, log }) {
      const directory = path.join(dataDir, 'identity');
      const outbox = path.join(directory, 'outbox');
      mkdirSync(outbox, { recursive: true, mode: 0o700 });
      const accounts = new AccountFile(path.join(directory, 'accounts.json'));
      const { signingKey, cookieKey } = keptSecrets(directory);
      const issuer = `${url}${MOUNT}`;
      const origins = new Set([url, url.replace('://127.0.0.1:', '://localhost:')]);
      const configuration: Configuration = {
        adapter: memoryAdapterFactory(),
        clients: [
          {
            client_id: CONSOLE_CLIENT_ID,
            token_endpoint_auth_method: 'none',
            application_type: 'web',
            grant_types: ['authorization_code'],
            response_types: ['code'],
            redirect_uris: [...origins].map((origin) => `${origin}/sign-in/callback`),
            post_logout_redirect_uris: [...origins].map((origin) => `${origin}/`),
          },
        ],
        pkce: { required: () => true },
        // The console's token request is cross-origin only when it is opened at the other loopback name.
        clientBasedCORS: (_ctx, origin) => origins.has(origin),
        jwks: { keys: [signingKey as never] },
        cookies: { keys: [cookieKey] },
        claims: { openid: ['sub'], email: ['email', 'email_verified'] },
        // The ID token carries the email itself (the API reads it from there), as Cognito's does.
        conformIdTokenClaims: false,
        features: {
          devInteractions: { enabled: false },
          rpInitiatedLogout: {
            enabled: true,
            // The library's own page loads a web font from the internet; this one is self-contained.
            logoutSource: (ctx, form) => {
              ctx.type = 'html';
              ctx.body = pageHtml(
                'Sign out',
                `<p>Sign out of the identity stand-in on this browser too?</p>${form}
<button autofocus type="submit" form="op.logoutForm" value="yes" name="logout">Sign out</button> <button type="submit" form="op.logoutForm">Stay signed in</button>`,
              );
            },
          },
        },
        ttl: { IdToken: 3_600, AccessToken: 3_600, AuthorizationCode: 300, Interaction: INTERACTION_SECONDS, Session: 86_400, Grant: 86_400 },
        interactions: { url: (_ctx, interaction) => `${MOUNT}/interaction/${interaction.uid}` },
        findAccount: (_ctx, sub) => {
          const account = accounts.bySub(sub);
          return account ? { accountId: sub, claims: () => ({ sub, email: account.email, email_verified: account.emailVerified }) } : undefined;
        },
        renderError: (ctx, out) => {
          ctx.type = 'html';
          ctx.body = `<!doctype html><title>Sign-in problem</title><p>${escapeHtml(String(out.error_description ?? out.error))}</p><p><a href="/">Back to the console</a></p>`;
        },
      };
      const provider = new Provider(issuer, configuration);
      const callback = provider.callback();

      const signInForm = (uid: string, problem?: string, email = '') =>
        `${problem ? `<p class="problem">${escapeHtml(problem)}</p>` : ''}
<form method="post" action="${MOUNT}/interaction/${uid}/sign-in"><label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(email)}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required><button type="submit">Sign in</button></form>
<p class="hint">No account yet? <a href="${MOUNT}/interaction/${uid}?create=1">Create one</a></p>`;
      const signUpForm = (uid: string, problem?: string, email = '') =>
        `${problem ? `<p class="problem">${escapeHtml(problem)}</p>` : ''}
<form method="post" action="${MOUNT}/interaction/${uid}/sign-up"><label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(email)}">
<label for="password">Password (at least ${MIN_PASSWORD_LENGTH} characters)</label><input id="password" name="password" type="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}">
<label for="repeat">Password again</label><input id="repeat" name="repeat" type="password" autocomplete="new-password" required><button type="submit">Create account</button></form>
<p class="hint">Have an account? <a href="${MOUNT}/interaction/${uid}">Sign in</a></p>`;
      // The same words whether the message holds a code or says the address has an account already.
      const verifyForm = (uid: string, email: string, problem?: string) =>
        `${problem ? `<p class="problem">${escapeHtml(problem)}</p>` : ''}<p>We sent a message to ${escapeHtml(email)}: it holds a verification code, unless this address has an account already (then it says so). Locally no mail is sent: the message is a file in <code>${escapeHtml(outbox)}</code>.</p>
<form method="post" action="${MOUNT}/interaction/${uid}/verify"><input type="hidden" name="email" value="${escapeHtml(email)}"><label for="code">Verification code</label>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required><button type="submit">Verify</button></form>
<p class="hint">The code works on this page only, for ${VERIFICATION_CODE_MINUTES} minutes. No code, or it no longer works? <a href="${MOUNT}/interaction/${uid}">Sign in</a> again for a new one.</p>`;

      const attempts = {
        account: new AttemptLimiter({ ...ACCOUNT_ATTEMPTS }),
        source: new AttemptLimiter({ ...SOURCE_ATTEMPTS }),
        codeSends: new AttemptLimiter({ ...CODE_SENDS }),
      };
      const sourceOf = (request: IncomingMessage) => request.socket.remoteAddress ?? 'unknown';
      /** How long an attempt on `key` (sign-in:<email>, verify:<email>) from this source must wait. */
      const waitFor = (request: IncomingMessage, key: string) => Math.max(attempts.account.waitFor(key), attempts.source.waitFor(sourceOf(request)));
      /** Counts a failure against the account's key and the source; answers the lockout it starts, if any. */
      const failed = (request: IncomingMessage, key: string) => Math.max(attempts.account.fail(key), attempts.source.fail(sourceOf(request)));
      const tooMany = (ms: number) => `Too many failed attempts for this account or from this address: try again in ${lockoutText(ms)}.`;

      /** Writes a message to the outbox (mail, locally), under the address it goes to. */
      const mail = (email: string, subject: string, text: string) => {
        const file = path.join(outbox, `${Date.now()}-${email.replace(/[^a-z0-9@._-]/g, '_')}.txt`);
        writeFileSync(file, `To: ${email}\nSubject: ${subject}\n\n${text}\n`, { mode: 0o600 });
        log(`identity stand-in: a message for ${email} is in ${file} (no mail is sent locally)`);
      };
      /** A new code for `account`, good in interaction `uid` only; the account as it is to be saved. */
      const withNewCode = async (account: Account, uid: string): Promise<Account> => {
        const code = newVerificationCode();
        mail(
          account.email,
          'Your assisted-cloud verification code',
          `Your verification code is ${code}. It expires in ${VERIFICATION_CODE_MINUTES} minutes, and works only on the page that asked for it.`,
        );
        const expiresAt = new Date(Date.now() + VERIFICATION_CODE_MINUTES * 60_000).toISOString();
        return { ...account, verification: { codeHash: await hashOf(code), expiresAt, interaction: uid, wrongCodes: 0 } };
      };
      /** Messages to one address are limited too: a wait instead of a flood of mail. */
      const sendsRefused = (response: ServerResponse, uid: string, email: string): boolean => {
        const wait = attempts.codeSends.waitFor(email);
        if (wait)
          page(response, 429, 'Verify your email', verifyForm(uid, email, `Too many messages were sent to this address: try again in ${lockoutText(wait)}.`));
        else attempts.codeSends.fail(email);
        return wait > 0;
      };

      const interaction = async (request: IncomingMessage, response: ServerResponse, uid: string, action: string | undefined): Promise<void> => {
        const details = await provider.interactionDetails(request, response);
        if (details.uid !== uid)
          return page(response, 400, 'Sign-in expired', `<p>This sign-in page is stale. <a href="/">Start again from the console</a>.</p>`);
        const finishLogin = (accountId: string) =>
          provider.interactionFinished(request, response, { login: { accountId } }, { mergeWithLastSubmission: false });
        if (details.prompt.name === 'consent') {
          // The console is the service's own client: what it asks for is granted without a question.
          const grant = details.grantId
            ? await provider.Grant.find(details.grantId)
            : new provider.Grant({ accountId: details.session!.accountId!, clientId: details.params.client_id as string });
          grant!.addOIDCScope(String(details.params.scope ?? 'openid'));
          return provider.interactionFinished(request, response, { consent: { grantId: await grant!.save() } }, { mergeWithLastSubmission: true });
        }
        if (request.method === 'GET') {
          const create = new URL(request.url ?? '/', 'http://local').searchParams.has('create');
          return page(response, 200, create ? 'Create an account' : 'Sign in', create ? signUpForm(uid) : signInForm(uid));
        }
        const form = await readForm(request);
        const email = normalEmail(form.get('email') ?? '');
        // A client that leaves before its answer (closing the connection) is not hashed for.
        const abandoned = new AbortController();
        response.on('close', () => response.writableFinished || abandoned.abort());
        const { signal } = abandoned;
        if (action === 'sign-in') {
          const key = `sign-in:${email}`;
          const wait = waitFor(request, key);
          if (wait) return page(response, 429, 'Sign in', signInForm(uid, tooMany(wait), email));
          const account = accounts.byEmail(email);
          // An unknown email is hashed all the same (matches), so the refusal takes as long.
          if (!(await matches(form.get('password') ?? '', account?.passwordHash, signal)) || !account) {
            const lockout = failed(request, key);
            return page(
              response,
              lockout ? 429 : 401,
              'Sign in',
              signInForm(uid, `The email or password is wrong.${lockout ? ` ${tooMany(lockout)}` : ''}`, email),
            );
          }
          attempts.account.succeed(key);
          if (!account.emailVerified) {
            if (sendsRefused(response, uid, email)) return;
            accounts.save(await withNewCode(account, uid));
            return page(response, 200, 'Verify your email', verifyForm(uid, email));
          }
          return finishLogin(account.sub);
        }
        if (action === 'sign-up') {
          const password = form.get('password') ?? '';
          const problem = !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)
            ? 'Enter an email address, such as name@example.com'
            : password.length < MIN_PASSWORD_LENGTH
              ? `The password needs at least ${MIN_PASSWORD_LENGTH} characters`
              : password !== form.get('repeat')
                ? 'The two passwords differ'
                : undefined;
          if (problem) return page(response, 400, 'Create an account', signUpForm(uid, problem, email));
          // From here on the answer is the same whether the address has an account (Cognito's
          // "prevent user existence errors"): its owner is told by mail instead, and nothing changes.
          if (sendsRefused(response, uid, email)) return;
          const passwordHash = await hashOf(password, signal);
          const existing = accounts.byEmail(email);
          if (existing) {
            // The code a new account gets is hashed too: the same work, so the same time.
            await hashOf(newVerificationCode(), signal);
            mail(
              email,
              'Someone tried to create an assisted-cloud account with your address',
              'This address has an account already, so no new one was made. If it was you, sign in with your password. If not, nothing changed and you need do nothing.',
            );
          } else {
            accounts.save(await withNewCode({ sub: randomUUID(), email, emailVerified: false, passwordHash, createdAt: new Date().toISOString() }, uid));
          }
          return page(response, 200, 'Verify your email', verifyForm(uid, email));
        }
        if (action === 'verify') {
          const key = `verify:${email}`;
          const wait = waitFor(request, key);
          if (wait) return page(response, 429, 'Verify your email', verifyForm(uid, email, tooMany(wait)));
          const account = accounts.byEmail(email);
          const asked = account?.verification;
          // Only the code this interaction asked for, while it lasts; any other is "wrong or expired".
          const pending = asked && asked.interaction === uid && Date.parse(asked.expiresAt) > Date.now() ? asked : undefined;
          if (!(await matches((form.get('code') ?? '').trim(), pending?.codeHash, signal)) || !account || !pending) {
            let problem = 'The code is wrong or expired.';
            let voided = false;
            if (account && pending) {
              const wrongCodes = (pending.wrongCodes ?? 0) + 1;
              voided = wrongCodes >= WRONG_CODES_PER_CODE;
              accounts.save({ ...account, verification: voided ? undefined : { ...pending, wrongCodes } });
              if (voided) problem = 'Too many wrong codes: this code no longer works. Sign in again for a new one.';
            }
            const lockout = failed(request, key);
            return page(
              response,
              lockout || voided ? 429 : 400,
              'Verify your email',
              verifyForm(uid, email, `${problem}${lockout ? ` ${tooMany(lockout)}` : ''}`),
            );
          }
          attempts.account.succeed(key);
          accounts.save({ ...account, emailVerified: true, verification: undefined });
          return finishLogin(account.sub);
        }
        return page(response, 404, 'Not found', '<p>There is no such page.</p>');
      };

      handler = async (request, response) => {
        const pathname = new URL(request.url ?? '/', 'http://local').pathname;
        const match = /^\/identity\/interaction\/([\w-]+)(?:\/(sign-in|sign-up|verify))?$/.exec(pathname);
        try {
          if (match) return await interaction(request, response, match[1]!, match[2]);
          // Mounted: the provider sees its own paths, and the mount in the issuer's URL.
          (request as IncomingMessage & { originalUrl?: string }).originalUrl = request.url;
          request.url = (request.url ?? '/').slice(MOUNT.length) || '/';
          await callback(request, response);
        } catch (error) {
          if (response.destroyed) return; // the client left; nobody to answer
          log(`identity stand-in: ${(error as Error).message}`);
          if (!response.headersSent)
            page(response, 400, 'Sign-in problem', `<p>${escapeHtml((error as Error).message)}</p><p><a href="/">Start again from the console</a></p>`);
        }
      };

      return {
        issuer,
        clientId: CONSOLE_CLIENT_ID,
        outbox,
        attempts: {
          policies: { account: attempts.account.policy, source: attempts.source.policy, codeSends: attempts.codeSends.policy },
          clear: () => {
            for (const limiter of Object.values(attempts)) limiter.clear();
          },
        },
        environment: {
          IDENTITY_PROVIDER_ISSUER: issuer,
          IDENTITY_PROVIDER_CLIENT_IDS: CONSOLE_CLIENT_ID,
          IDENTITY_PROVIDER_JWKS_URL: `${issuer}/jwks`,
          IDENTITY_PROVIDER_CONSOLE_CLIENT_ID: CONSOLE_CLIENT_ID,
          IDENTITY_PROVIDER_AUTHORIZATION_URL: `${issuer}/auth`,
          IDENTITY_PROVIDER_TOKEN_URL: `${issuer}/token`,
          IDENTITY_PROVIDER_SIGN_OUT_URL: `${issuer}/session/end`,
        },
      };
    },
  };
}
