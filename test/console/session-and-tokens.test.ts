/**
 * The console's own pages in Debian's Chromium against a local stack: signing in with an API token
 * (and being refused with the server's reason for a wrong or revoked one), managing API tokens,
 * the about box and the OpenAPI link, an API refusal shown with its reason, signing out.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureConsoleBuilt, openBrowser, projectRoot, resultsDir, signIn, type BrowserSession } from '../../bench/support/browser.js';
import { testRuntime } from '../support/runtime.js';

describe('console: sign-in and API tokens (Chromium)', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  let session: BrowserSession;

  const api = async (method: string, route: string, token: string, body?: unknown) => {
    const response = await fetch(`${env.runtime.url}/api/assisted-install/v2${route}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };

  beforeAll(async () => {
    ensureConsoleBuilt();
    // Real-time flows: requests answer before their follow-ups, as in AWS.
    env = await testRuntime({ settleFollowUps: false });
  }, 600_000);
  afterAll(async () => {
    await session?.close();
    await env?.close();
  });

  it('serves the console at / with SPA fallback, without shadowing the API or /healthz', async () => {
    const root = await fetch(`${env.runtime.url}/`);
    expect(root.status).toBe(200);
    expect(root.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await root.text();
    expect(html).toContain('<div id="root"></div>');
    // The console's security headers (CloudFront sends the same in AWS); the browser tests below
    // fail on any CSP violation, as the console reports one as an error.
    expect(root.headers.get('content-security-policy')).toMatch(/default-src 'self'.*frame-ancestors 'none'/);
    expect(root.headers.get('content-security-policy')).not.toMatch(/unsafe-eval/);
    expect(root.headers.get('x-frame-options')).toBe('DENY');
    expect(root.headers.get('x-content-type-options')).toBe('nosniff');
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${env.runtime.url}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    await asset.arrayBuffer();

    const deepLink = await fetch(`${env.runtime.url}/assisted-installer/clusters/6e2a1d2c-0000-4000-8000-000000000000`);
    expect(deepLink.status).toBe(200);
    expect(await deepLink.text()).toBe(html);
    const missingAsset = await fetch(`${env.runtime.url}/assets/no-such-file.js`);
    expect(missingAsset.status).toBe(404);
    await missingAsset.text();
    // A path climbing out of console/dist is not served from disk: the API refuses its '..' segments.
    const escape = await fetch(`${env.runtime.url}/..%2f..%2fpackage.json`);
    expect(escape.status).toBe(400);
    const refusal = await escape.text();
    expect(refusal).not.toContain('"name": "assisted-cloud"');
    expect(JSON.parse(refusal).reason).toMatch(/'\.' or '\.\.' segments/);

    const unauthenticated = await fetch(`${env.runtime.url}/api/assisted-install/v2/clusters`);
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('cache-control')).toBe('no-store');
    expect(unauthenticated.headers.get('x-content-type-options')).toBe('nosniff');
    expect(((await unauthenticated.json()) as { message: string }).message).toMatch(/Bearer/);
    const health = await fetch(`${env.runtime.url}/healthz`);
    expect(health.headers.get('content-type')).toBe('application/json');
    await health.json();
  });

  it('records the first load: size and time to a usable sign-in page, cold cache', async () => {
    session = await openBrowser(env.runtime.url, 'session-and-tokens');
    const { page } = session;
    const assets: { path: string; bytes: number; gzipBytes: number }[] = [];
    const collecting = (response: import('playwright-core').Response) =>
      response.body().then(
        (body) => void assets.push({ path: new URL(response.url()).pathname, bytes: body.length, gzipBytes: gzipSync(body).length }),
        () => undefined,
      );
    const pending: Promise<void>[] = [];
    const onResponse = (response: import('playwright-core').Response) => void pending.push(collecting(response));
    page.on('response', onResponse);
    const started = performance.now();
    await page.goto('/');
    await page.getByLabel('API token').waitFor();
    const usableMs = Math.round(performance.now() - started);
    const timing = (await page.evaluate(
      "(() => { const n = performance.getEntriesByType('navigation')[0]; return { domContentLoadedMs: Math.round(n.domContentLoadedEventEnd), loadMs: Math.round(n.loadEventEnd) }; })()",
    )) as { domContentLoadedMs: number; loadMs: number };
    page.off('response', onResponse);
    await Promise.all(pending);
    const record = {
      url: '/',
      usableMs,
      ...timing,
      requests: assets.length,
      bytes: assets.reduce((sum, asset) => sum + asset.bytes, 0),
      gzipBytes: assets.reduce((sum, asset) => sum + asset.gzipBytes, 0),
      assets: assets.sort((a, b) => b.bytes - a.bytes),
    };
    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(path.join(resultsDir, 'first-load.json'), `${JSON.stringify(record, null, 2)}\n`);
    console.log(
      `console first load: ${record.requests} requests, ${(record.bytes / 1e6).toFixed(2)} MB (${(record.gzipBytes / 1e6).toFixed(2)} MB gzip), usable after ${usableMs} ms, load event ${timing.loadMs} ms`,
    );
    // Self-contained: everything the first page needs comes from the console's own origin (and the
    // API's sign-in settings, which say whether to offer the identity provider).
    const ownFiles = (asset: { path: string }) => asset.path === '/' || asset.path.startsWith('/assets/') || asset.path === '/logo.svg';
    // The settings call may still be under way when the token field shows: then it is not recorded.
    const others = new Set(assets.filter((asset) => !ownFiles(asset)).map((asset) => asset.path));
    expect([...others].filter((other) => other !== '/api/assisted-install/v2/sign-in/settings')).toEqual([]);
    expect(record.bytes).toBeGreaterThan(0);
  });

  it('refuses a wrong token with the server reason, then signs in with the admin token', async () => {
    const { page } = session;
    await page.goto('/');
    await session.screenshot('sign-in');
    await page.getByLabel('API token').fill('ai.default.0123456789abcdef0123456789abcdef.not-the-secret');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByTestId('sign-in-error').textContent()).toContain('The API token is malformed or unknown');
    await session.screenshot('wrong-token');
    expect(await page.evaluate('Object.keys(sessionStorage)')).toEqual([]);

    await signIn(session, env.adminToken);
    await page.getByText('Create new assisted cluster').waitFor();
    expect(await page.evaluate('Object.values(sessionStorage)')).toEqual([env.adminToken]);
    await session.screenshot('signed-in');
  });

  let createdToken = '';
  it('creates a token (shown once), lists it, and shows the organisation', async () => {
    const { page } = session;
    await page.getByRole('link', { name: 'API tokens' }).click();
    await page.getByRole('heading', { name: 'API tokens' }).waitFor();
    const organisation = (await api('GET', '/organizations', env.adminToken)).body as { id: string; name: string }[];
    await expect.poll(() => page.getByTestId('organisation').textContent()).toBe(`${organisation[0]!.name} ${env.runtime.orgId}`);
    await page.getByLabel('Name').fill('ci read-only');
    await page.getByLabel('Role').selectOption('read-only');
    await page.getByRole('button', { name: 'Create token' }).click();
    const shown = page.getByTestId('created-token').locator('input');
    await shown.waitFor();
    createdToken = await shown.inputValue();
    expect(createdToken).toMatch(/^\S{40,}$/);
    await session.screenshot('token-created');

    const listed = (await api('GET', '/api-tokens', env.adminToken)).body as { id: string; name: string; role: string }[];
    const entry = listed.find((token) => token.name === 'ci read-only');
    expect(entry?.role).toBe('read-only');
    await page.getByTestId(`token-row-${entry!.id}`).getByText('Active').waitFor();
    // Shown once: a fresh visit lists the token but never its secret.
    await page.reload();
    await page.getByTestId(`token-row-${entry!.id}`).waitFor();
    expect(await page.content()).not.toContain(createdToken);
  });

  it("shows the component versions in the about box and links the OpenAPI document from the masthead's help menu", async () => {
    const { page } = session;
    // A PatternFly masthead: the brand, the sections as navigation, help and account menus.
    const masthead = page.locator('header.pf-v6-c-masthead');
    await masthead.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: 'Clusters' }).waitFor();
    await masthead.getByRole('button', { name: 'Help' }).click();
    await page.getByRole('menuitem', { name: 'About' }).click();
    const about = page.getByRole('dialog');
    await about.getByText('Assisted Installer UI library').waitFor();
    // The library's own version, not the console's.
    const uiLibVersion = (
      JSON.parse(readFileSync(path.join(projectRoot, 'console/node_modules/@openshift-assisted/ui-lib/package.json'), 'utf8')) as { version: string }
    ).version;
    await about.getByText(uiLibVersion, { exact: true }).waitFor();
    // No line of the box overlaps another.
    const boxes = await about
      .locator('dl > dt, dl > dd')
      .evaluateAll((cells: { getBoundingClientRect(): { top: number; bottom: number; left: number; right: number } }[]) =>
        cells.map((cell) => {
          const { top, bottom, left, right } = cell.getBoundingClientRect();
          return { top, bottom, left, right };
        }),
      );
    expect(boxes.length).toBeGreaterThan(2);
    const overlapping = boxes.flatMap((a, i) =>
      boxes
        .slice(i + 1)
        .filter((b) => a.left < b.right && b.left < a.right && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5)
        .map(() => i),
    );
    expect(overlapping).toEqual([]);
    const versions = (await api('GET', '/component-versions', env.adminToken)).body as { versions?: Record<string, string> };
    for (const [name, version] of Object.entries(versions.versions ?? {})) {
      await about.getByText(name, { exact: true }).waitFor();
      await about.getByText(version, { exact: true }).first().waitFor();
    }
    await session.screenshot('about');
    await about.getByRole('button', { name: /close/i }).click();

    await masthead.getByRole('button', { name: 'Help' }).click();
    const href = await page.getByRole('menuitem', { name: /API reference \(OpenAPI\)/ }).getAttribute('href');
    await page.keyboard.press('Escape');
    expect(href).toBe('/api/assisted-install/v2/openapi.yaml');
    const document = await page.request.get(href!);
    expect(document.status()).toBe(200);
    expect(await document.text()).toMatch(/^openapi: 3\./m);
  });

  it('had no console errors and no failed API calls on the happy path', () => {
    expect(session.consoleErrors).toEqual([]);
    expect(session.failedRequests).toEqual([]);
    // The one refusal is the deliberate wrong token at sign-in.
    expect(session.failedApiCalls().map((call) => `${call.method} ${call.path} ${call.status}`)).toEqual([
      'GET /api/assisted-install/v2/component-versions 401',
    ]);
  });

  it('names a read-only API token in the header and does not offer it token management', async () => {
    const { page } = session;
    await page.getByRole('button', { name: 'Account' }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.getByLabel('API token').waitFor();
    expect(await page.evaluate('Object.keys(sessionStorage)')).toEqual([]);

    const callsBefore = session.apiCalls.length;
    await signIn(session, createdToken);
    expect(await page.getByTestId('caller-name').textContent()).toBe('API token "ci read-only"');
    expect(await page.getByTestId('caller-role').textContent()).toBe('read-only');
    await page.getByRole('link', { name: 'API tokens' }).click();
    await page.getByTestId('tokens-not-offered').waitFor();
    expect(await page.getByRole('button', { name: 'Create token' }).count()).toBe(0);
    // Nor does it ask the API what it would refuse.
    expect(session.apiCalls.slice(callsBefore).filter((call) => call.path.endsWith('/v2/api-tokens'))).toEqual([]);
    await session.screenshot('read-only-not-offered');
  });

  it('revokes a token from the tokens page', async () => {
    const { page } = session;
    const created = (await api('POST', '/api-tokens', env.adminToken, { name: 'to revoke', role: 'user' })).body as { id: string };
    // Start signed out, whatever the tests before left behind.
    await page.goto('/');
    await page.evaluate('sessionStorage.clear()');
    await signIn(session, env.adminToken);
    await page.getByRole('link', { name: 'API tokens' }).click();
    const row = page.getByTestId(`token-row-${created.id}`);
    await row.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await row.getByText('Revoked').waitFor();
    await session.screenshot('token-revoked');
    const listed = (await api('GET', '/api-tokens', env.adminToken)).body as { id: string; revoked_at?: string }[];
    expect(listed.find((token) => token.id === created.id)?.revoked_at).toBeTruthy();
  });
});
