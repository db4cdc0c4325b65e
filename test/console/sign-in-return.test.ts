/**
 * Signing in returns to the page the person opened, and only to a page of the console (issue 44):
 * opened as `http://HOST//evil.example/x`, the path reads as another host to a browser, and the
 * console used to send the browser there after the sign-in, by API token or as a person through the
 * identity stand-in. Debian's Chromium; any request to evil.example is answered here (the network
 * is closed) so that a redirect there shows as a page, not as a DNS failure.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureConsoleBuilt, openBrowser, type BrowserSession } from '../../bench/support/browser.js';
import { testRuntime } from '../support/runtime.js';

const PASSWORD = 'correct horse battery staple';
const CLUSTERS = '/assisted-installer/clusters';

describe('console: where signing in returns to (Chromium)', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  let session: BrowserSession;
  const evilVisits: string[] = [];

  const verificationCode = (email: string): string => {
    const outbox = env.runtime.identity!.outbox;
    const latest = readdirSync(outbox)
      .filter((name) => name.endsWith(`-${email}.txt`))
      .sort()
      .at(-1);
    if (!latest) throw new Error(`no verification message for ${email} in ${outbox}`);
    return /verification code is (\d{6})/.exec(readFileSync(path.join(outbox, latest), 'utf8'))![1]!;
  };

  /** Opens `address` signed out, in a tab with nothing kept from before. */
  const openSignedOut = async (address: string) => {
    await session.page.goto(`${env.runtime.url}/`);
    await session.page.evaluate(() => sessionStorage.clear());
    await session.page.goto(address);
    await session.page.getByLabel('API token').waitFor();
  };

  /** Where the tab settles after a sign-in: the console's clusters, or wherever it was sent. */
  const settled = async (leaving?: string) => {
    // `leaving`: the address signed in from; the sign-in page checks the token with the API before it
    // navigates, so until then the tab is still there (a slow first answer outlasted the wait below).
    await session.page.waitForURL(
      (url) =>
        url.href !== leaving &&
        url.pathname !== '/sign-in/callback' &&
        (url.origin !== new URL(env.runtime.url).origin || !url.pathname.startsWith('/identity/')),
      { timeout: 30_000 },
    );
    await session.page.waitForLoadState();
    // Give a late client-side redirect its chance to happen.
    await session.page.waitForTimeout(500);
    return new URL(session.page.url());
  };

  beforeAll(async () => {
    ensureConsoleBuilt();
    env = await testRuntime({ settleFollowUps: false, identityStandIn: true });
    session = await openBrowser(env.runtime.url, 'sign-in-return');
    await session.context.route(/^https?:\/\/evil\.example\//, (route) => {
      evilVisits.push(route.request().url());
      return route.fulfill({ status: 200, contentType: 'text/html', body: '<title>evil</title><h1>You were sent away</h1>' });
    });
  }, 600_000);
  afterAll(async () => {
    await session?.close();
    await env?.close();
  });

  for (const opened of ['//evil.example/x', '/\\evil.example/x', '/%2F%2Fevil.example/x']) {
    it(`signs in by API token from ${opened} and stays on the console`, async () => {
      await openSignedOut(`${env.runtime.url}${opened}`);
      const signedOutAt = session.page.url();
      await session.page.getByLabel('API token').fill(env.adminToken);
      await session.page.getByRole('button', { name: 'Sign in', exact: true }).click();
      const landed = await settled(signedOutAt);
      expect(landed.origin).toBe(new URL(env.runtime.url).origin);
      expect(landed.pathname).toBe(CLUSTERS);
      expect(evilVisits).toEqual([]);
    });
  }

  it('signs up and in as a person from //evil.example/x and stays on the console', async () => {
    await openSignedOut(`${env.runtime.url}//evil.example/x`);
    const { page } = session;
    await page.getByTestId('identity-sign-in').click();
    await page.getByRole('link', { name: 'Create one' }).click();
    await page.getByLabel('Email').fill('returner@example.com');
    await page.getByLabel(/^Password \(at least/).fill(PASSWORD);
    await page.getByLabel('Password again').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByLabel('Verification code').fill(verificationCode('returner@example.com'));
    await page.getByRole('button', { name: 'Verify' }).click();
    const landed = await settled();
    await session.screenshot('person-landed');
    expect(landed.origin).toBe(new URL(env.runtime.url).origin);
    expect(landed.pathname).toBe(CLUSTERS);
    expect(evilVisits).toEqual([]);
  });

  it('still returns to a page of the console that was opened signed out', async () => {
    await openSignedOut(`${env.runtime.url}/settings/api-tokens`);
    await session.page.getByLabel('API token').fill(env.adminToken);
    await session.page.getByRole('button', { name: 'Sign in', exact: true }).click();
    const landed = await settled();
    expect(landed.pathname).toBe('/settings/api-tokens');
    expect(session.consoleErrors).toEqual([]);
  });
});
