/**
 * Two people in Debian's Chromium, signing up through the real sign-in flow (the local identity
 * stand-in: authorization code + PKCE, email verification through the local outbox): A invites B,
 * B joins as read-only, sees A's clusters but gets none of their secret-bearing files; A removes B,
 * and B's API token is refused on its next request.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureConsoleBuilt, openBrowser, type BrowserSession } from '../../bench/support/browser.js';
import { PULL_SECRET } from '../support/fixtures.js';
import { testRuntime } from '../support/runtime.js';

const PASSWORD = 'correct horse battery staple';

describe('console: people, organisations and invitations (Chromium)', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  const sessions: BrowserSession[] = [];

  const api = async (token: string, method: string, route: string, body?: unknown) => {
    const response = await fetch(`${env.runtime.url}/api/assisted-install/v2${route}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };

  /** The verification code the stand-in "mailed" to this address (its outbox is a folder). */
  const verificationCode = (email: string): string => {
    const outbox = env.runtime.identity!.outbox;
    const latest = readdirSync(outbox)
      .filter((name) => name.endsWith(`-${email}.txt`))
      .sort()
      .at(-1);
    if (!latest) throw new Error(`no verification message for ${email} in ${outbox}`);
    return /verification code is (\d{6})/.exec(readFileSync(path.join(outbox, latest), 'utf8'))![1]!;
  };

  /** Signs up on the stand-in's pages from the console's sign-in page, and verifies the email. */
  const signUp = async (session: BrowserSession, email: string) => {
    const { page } = session;
    await page.getByTestId('identity-sign-in').click();
    await page.getByRole('link', { name: 'Create one' }).click();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel(/^Password \(at least/).fill(PASSWORD);
    await page.getByLabel('Password again').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByLabel('Verification code').fill(verificationCode(email));
    await session.screenshot(`verify-${email.split('@')[0]}`);
    await page.getByRole('button', { name: 'Verify' }).click();
  };
  const sessionToken = (session: BrowserSession) => session.page.evaluate(() => sessionStorage.getItem('assisted-cloud.api-token')) as Promise<string>;

  beforeAll(async () => {
    ensureConsoleBuilt();
    env = await testRuntime({ settleFollowUps: false, identityStandIn: true });
  }, 600_000);
  afterAll(async () => {
    for (const session of sessions) await session.close();
    await env?.close();
  });

  it("A invites B, B joins read-only and sees but cannot take secrets, A removes B and B's token dies", async () => {
    const a = await openBrowser(env.runtime.url, 'organisations-a');
    sessions.push(a);
    await a.page.goto('/');
    await signUp(a, 'a@example.com');
    await a.page.waitForURL('**/assisted-installer/clusters', { timeout: 30_000 });
    const aToken = await sessionToken(a);
    expect(aToken.split('.')).toHaveLength(3);
    const cluster = await api(aToken, 'POST', '/clusters', {
      name: 'a-cluster',
      openshift_version: '4.16',
      pull_secret: PULL_SECRET,
      base_dns_domain: 'example.com',
    });
    expect(cluster.status).toBe(201);

    await a.page.getByRole('link', { name: 'Organisation' }).click();
    await a.page.getByTestId('organisation-name').waitFor();
    expect(await a.page.getByTestId('own-role').textContent()).toBe('admin');
    await a.page.getByLabel('Email').fill('b@example.com');
    await a.page.locator('#invite-role').selectOption('read-only');
    await a.page.getByRole('button', { name: 'Invite' }).click();
    const joinLink = await a.page.getByTestId('join-link').locator('input').inputValue();
    expect(joinLink).toMatch(/\/join#inv1\./);
    await a.screenshot('invited');

    const b = await openBrowser(env.runtime.url, 'organisations-b');
    sessions.push(b);
    await b.page.goto(joinLink);
    await b.page.getByText('You were invited to an organisation').waitFor();
    await signUp(b, 'b@example.com');
    await b.page.getByTestId('joined').waitFor({ timeout: 30_000 });
    expect(await b.page.getByTestId('joined').textContent()).toMatch(/as read-only/);
    await b.screenshot('joined');
    await b.page.getByRole('link', { name: 'Go to the clusters' }).click();
    await b.page.getByText('a-cluster').first().waitFor({ timeout: 30_000 });
    await b.screenshot('sees-a-cluster');

    const bToken = await sessionToken(b);
    const clusterId = cluster.body.id as string;
    for (const route of [
      `/clusters/${clusterId}/downloads/credentials?file_name=kubeconfig`,
      `/clusters/${clusterId}/downloads/credentials?file_name=kubeadmin-password`,
      `/clusters/${clusterId}/credentials`,
      `/clusters/${clusterId}/downloads/files?file_name=bootstrap.ign`,
    ]) {
      expect((await api(bToken, 'GET', route)).status, route).toBe(403);
    }
    const bApiToken = await api(bToken, 'POST', '/api-tokens', { name: 'b-automation', role: 'read-only' });
    expect(bApiToken.status).toBe(201);
    expect((await api(bApiToken.body.token, 'GET', '/clusters')).status).toBe(200);

    await a.page.reload();
    const bRow = a.page.getByTestId('member-b@example.com');
    expect(await bRow.textContent()).toContain('b@example.com');
    await bRow.getByRole('button', { name: 'Remove' }).click();
    await a.page.getByTestId('removal-dialog').getByRole('button', { name: 'Remove' }).click();
    await bRow.waitFor({ state: 'detached' });
    expect(await a.page.getByTestId('organisation-success').textContent()).toContain('b@example.com is no longer a member.');
    await a.screenshot('removed-b');
    expect((await api(bApiToken.body.token, 'GET', '/clusters')).status).toBe(401);
    // An invitation works once; B, signed in again, is in an organisation of their own, without A's clusters.
    expect((await api(bToken, 'GET', '/clusters')).body).toEqual([]);

    // A's own sign-out ends the provider's session too: signing in again asks for the password.
    await a.page.getByRole('button', { name: 'Account' }).click();
    await a.page.getByRole('menuitem', { name: 'Sign out' }).click();
    await a.page.getByRole('button', { name: 'Sign out' }).click();
    await a.page.getByTestId('identity-sign-in').click();
    await a.page.getByLabel('Password').waitFor();
    await a.screenshot('signed-out');

    for (const session of [a, b]) {
      expect(session.consoleErrors).toEqual([]);
      expect(session.failedRequests).toEqual([]);
    }
  }, 300_000);
});
