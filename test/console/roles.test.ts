/**
 * The console for three people of one organisation, in Debian's Chromium, on one local stack (issue
 * 45, "the console tells the truth"): an admin (A), a user (B) and a read-only member (C), each
 * signed up through the local identity stand-in and joined by invitation.
 * - the header names the person (email), the organisation and the role, with a sign-out;
 * - a read-only member is told why and offered no action the API refuses (new cluster, deletion,
 *   adding hosts, simulated hosts), a user and an admin are;
 * - the organisation page marks the caller's own row "you", does not offer the only admin leaving
 *   or demotion, asks before a role change and says it is done;
 * - the tokens page names the organisation and offers roles up to the caller's own;
 * - the ISO dialog says the image is SYNTHETIC (no RHCOS imported) with the import command;
 * - "Boot simulated hosts" (local runtime) starts SIMULATED hosts that register and an event that says so.
 * Screenshots go to test-results/console/roles-{a,b,c}/.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureConsoleBuilt, openBrowser, type BrowserSession } from '../../bench/support/browser.js';
import { PULL_SECRET } from '../support/fixtures.js';
import { testRuntime } from '../support/runtime.js';

const PASSWORD = 'correct horse battery staple';
type Json = Record<string, any>;

describe('console: who is signed in, and what each role is offered (Chromium)', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  const sessions: BrowserSession[] = [];
  let aToken = '';
  let clusterId = '';
  let infraEnvId = '';
  const ORG_NAME = 'Example Lab';

  const api = async (token: string, method: string, route: string, body?: unknown) => {
    const response = await fetch(`${env.runtime.url}/api/assisted-install/v2${route}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Json) : undefined };
  };

  const verificationCode = (email: string): string => {
    const outbox = env.runtime.identity!.outbox;
    const latest = readdirSync(outbox)
      .filter((name) => name.endsWith(`-${email}.txt`))
      .sort()
      .at(-1);
    if (!latest) throw new Error(`no verification message for ${email} in ${outbox}`);
    return /verification code is (\d{6})/.exec(readFileSync(path.join(outbox, latest), 'utf8'))![1]!;
  };

  const signUp = async (session: BrowserSession, email: string) => {
    const { page } = session;
    await page.getByTestId('identity-sign-in').click();
    await page.getByRole('link', { name: 'Create one' }).click();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel(/^Password \(at least/).fill(PASSWORD);
    await page.getByLabel('Password again').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByLabel('Verification code').fill(verificationCode(email));
    await page.getByRole('button', { name: 'Verify' }).click();
  };

  /** The header's account toggle: who, which organisation, which role. */
  const header = async (session: BrowserSession) => {
    const caller = session.page.getByTestId('caller');
    await caller.waitFor();
    return {
      name: await caller.getByTestId('caller-name').textContent(),
      organisation: await caller.getByTestId('caller-organisation').textContent(),
      role: await caller.getByTestId('caller-role').textContent(),
    };
  };

  /** Opens a join link in a fresh browser, signs the person up and lands on the clusters list. */
  const joinAs = async (name: string, email: string, role: 'user' | 'read-only') => {
    const invited = await api(aToken, 'POST', `/organizations/${(await api(aToken, 'GET', '/organizations')).body![0].id}/invitations`, { email, role });
    expect(invited.status).toBe(201);
    const session = await openBrowser(env.runtime.url, `roles-${name}`);
    sessions.push(session);
    await session.page.goto(`/join#${encodeURIComponent(invited.body!.code as string)}`);
    await signUp(session, email);
    await session.page.getByTestId('joined').waitFor({ timeout: 30_000 });
    await session.page.getByRole('link', { name: 'Go to the clusters' }).click();
    await session.page.getByText('lab-cluster').first().waitFor({ timeout: 30_000 });
    return session;
  };

  beforeAll(async () => {
    ensureConsoleBuilt();
    env = await testRuntime({ settleFollowUps: false, identityStandIn: true });
  }, 600_000);
  afterAll(async () => {
    for (const session of sessions) await session.close();
    await env?.close();
  });

  it('an admin: header, organisation and tokens pages, every action offered', async () => {
    const a = await openBrowser(env.runtime.url, 'roles-a');
    sessions.push(a);
    await a.page.goto('/');
    await signUp(a, 'a@example.com');
    await a.page.waitForURL('**/assisted-installer/clusters', { timeout: 30_000 });
    aToken = (await a.page.evaluate(() => sessionStorage.getItem('assisted-cloud.api-token'))) as string;
    const organisation = (await api(aToken, 'GET', '/organizations')).body![0] as Json;
    expect((await api(aToken, 'PATCH', `/organizations/${organisation.id}`, { name: ORG_NAME })).status).toBe(200);
    const versions = (await api(aToken, 'GET', '/openshift-versions')).body as Json;
    const cluster = await api(aToken, 'POST', '/clusters', {
      name: 'lab-cluster',
      openshift_version: Object.entries(versions).find(([, v]) => (v as Json).default)![0],
      pull_secret: PULL_SECRET,
      base_dns_domain: 'example.com',
    });
    expect(cluster.status).toBe(201);
    clusterId = cluster.body!.id as string;
    const infraEnv = await api(aToken, 'POST', '/infra-envs', { name: 'lab-cluster', pull_secret: PULL_SECRET, cluster_id: clusterId, image_type: 'full-iso' });
    expect(infraEnv.status).toBe(201);
    infraEnvId = infraEnv.body!.id as string;

    await a.page.reload();
    expect(await header(a)).toEqual({ name: 'a@example.com', organisation: ORG_NAME, role: 'admin' });
    await a.page.getByRole('button', { name: 'Account' }).click();
    await a.page.getByTestId('caller-details').getByText(`admin in ${ORG_NAME}`).waitFor();
    await a.page.getByRole('menuitem', { name: 'Sign out' }).waitFor();
    await a.page.keyboard.press('Escape');
    await a.page.locator('#button-create-new-cluster').waitFor();
    expect(await a.page.getByTestId('read-only-notice').count()).toBe(0);
    await a.screenshot('clusters');

    // The organisation alone: its only admin is "you", not offered leaving nor demotion; no invitations yet.
    await a.page.getByRole('link', { name: 'Organisation' }).click();
    const own = a.page.getByTestId('member-a@example.com');
    await own.getByTestId('member-you').waitFor();
    expect(await own.getByRole('button', { name: /Remove|Leave/ }).count()).toBe(0);
    expect(await own.getByLabel('Role of a@example.com').isDisabled()).toBe(true);
    await own.getByTestId('only-admin-reason').waitFor();
    await a.page.getByTestId('invitations-empty').waitFor();
    await a.screenshot('organisation-alone');

    // The tokens page names the organisation; an admin may make tokens of any role; none yet.
    await a.page.getByRole('link', { name: 'API tokens' }).click();
    await expect.poll(() => a.page.getByTestId('organisation').textContent()).toBe(`${ORG_NAME} ${organisation.id}`);
    expect(await a.page.locator('#token-role option').evaluateAll((options: { value: string }[]) => options.map((o) => o.value))).toEqual([
      'user',
      'read-only',
      'admin',
    ]);
    await a.page.getByTestId('tokens-empty').waitFor();
    await a.screenshot('tokens');
  }, 300_000);

  it('a user: their name, role and organisation; cluster actions offered, token roles up to theirs', async () => {
    const b = await joinAs('b', 'b@example.com', 'user');
    expect(await header(b)).toEqual({ name: 'b@example.com', organisation: ORG_NAME, role: 'user' });
    await b.page.locator('#button-create-new-cluster').waitFor();
    expect(await b.page.getByTestId('read-only-notice').count()).toBe(0);
    await b.page.getByRole('link', { name: 'API tokens' }).click();
    await b.page.getByTestId('tokens-empty').waitFor();
    expect(await b.page.locator('#token-role option').evaluateAll((options: { value: string }[]) => options.map((o) => o.value))).toEqual([
      'user',
      'read-only',
    ]);
    await b.page.getByRole('link', { name: 'Organisation' }).click();
    await b.page.getByTestId('member-b@example.com').getByTestId('member-you').waitFor();
    // Not an admin: no role to change, nobody else to remove; leaving is theirs.
    expect(await b.page.getByLabel(/^Role of /).count()).toBe(0);
    expect(await b.page.getByTestId('member-a@example.com').getByRole('button').count()).toBe(0);
    await b.page.getByTestId('member-b@example.com').getByRole('button', { name: 'Leave' }).waitFor();
    await b.screenshot('organisation');
    expect(b.consoleErrors).toEqual([]);
    expect(b.failedApiCalls().map((c) => `${c.method} ${c.path} ${c.status}`)).toEqual([]);
    await b.close();
  }, 300_000);

  it('a read-only member: told why, and offered no action the API refuses', async () => {
    const c = await joinAs('c', 'c@example.com', 'read-only');
    expect(await header(c)).toEqual({ name: 'c@example.com', organisation: ORG_NAME, role: 'read-only' });
    await c.page.getByTestId('read-only-notice').waitFor();
    await c.page.getByTestId('cluster-row-lab-cluster').waitFor();
    expect(await c.page.locator('#button-create-new-cluster').isVisible()).toBe(false);
    expect(
      await c.page
        .getByTestId('clusters-table')
        .getByRole('button', { name: /Kebab toggle|Actions/ })
        .isVisible(),
    ).toBe(false);
    await c.screenshot('clusters');

    // The cluster's wizard in the library's viewer mode: no "Add hosts", no simulated hosts.
    await c.page.goto(`/assisted-installer/clusters/${clusterId}`);
    await c.page.getByRole('button', { name: 'Host discovery' }).click();
    await c.page.getByText('Host discovery', { exact: false }).first().waitFor();
    await c.page.waitForTimeout(1_000);
    expect(await c.page.getByRole('button', { name: /^Add hosts?$/ }).count()).toBe(0);
    expect(await c.page.getByTestId('simulated-hosts').count()).toBe(0);
    await c.screenshot('cluster-viewer');

    await c.page.getByRole('link', { name: 'API tokens' }).click();
    expect(await c.page.locator('#token-role option').evaluateAll((options: { value: string }[]) => options.map((o) => o.value))).toEqual(['read-only']);
    await c.page.getByRole('link', { name: 'Organisation' }).click();
    await c.page.getByTestId('member-c@example.com').getByTestId('member-you').waitFor();
    expect(await c.page.getByLabel(/^Role of /).count()).toBe(0);
    await c.screenshot('organisation');
    // Nor does the lab's route boot hosts for them: it asks the API for the discovery ignition as them.
    const cToken = (await c.page.evaluate(() => sessionStorage.getItem('assisted-cloud.api-token'))) as string;
    const boot = await fetch(`${env.runtime.url}/api/local/simulated-hosts`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${cToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ infra_env_id: infraEnvId, profiles_mix: 'master:1' }),
    });
    expect(boot.status).toBe(403);
    expect(c.consoleErrors).toEqual([]);
    expect(c.failedApiCalls().map((call) => `${call.method} ${call.path} ${call.status}`)).toEqual([]);
    await c.close();
  }, 300_000);

  it('the admin again: confirmed role changes, the SYNTHETIC image named, simulated hosts booted', async () => {
    const a = sessions[0]!;
    const { page } = a;
    await page.getByRole('link', { name: 'Organisation' }).click();
    const bRow = page.getByTestId('member-b@example.com');
    await bRow.getByLabel('Role of b@example.com').selectOption('read-only');
    const dialog = page.getByTestId('role-change-dialog');
    await dialog.getByText('Make b@example.com read-only?').waitFor();
    await a.screenshot('role-change-confirm');
    await dialog.getByRole('button', { name: 'Change role' }).click();
    await expect.poll(() => page.getByTestId('organisation-success').textContent()).toContain('b@example.com is now read-only.');
    await expect.poll(() => bRow.getByLabel('Role of b@example.com').inputValue()).toBe('read-only');
    // Cancelled, nothing changes.
    await bRow.getByLabel('Role of b@example.com').selectOption('admin');
    await page.getByTestId('role-change-dialog').getByRole('button', { name: 'Cancel' }).click();
    expect(await bRow.getByLabel('Role of b@example.com').inputValue()).toBe('read-only');
    // With another admin, A may step down or leave: offered once B is an admin.
    await bRow.getByLabel('Role of b@example.com').selectOption('admin');
    await page.getByTestId('role-change-dialog').getByRole('button', { name: 'Change role' }).click();
    await expect.poll(() => page.getByTestId('organisation-success').textContent()).toContain('b@example.com is now admin.');
    const own = page.getByTestId('member-a@example.com');
    expect(await own.getByLabel('Role of a@example.com').isDisabled()).toBe(false);
    await own.getByRole('button', { name: 'Leave' }).waitFor();
    await a.screenshot('organisation-two-admins');

    // The discovery ISO is made from a SYNTHETIC base (no RHCOS imported): the dialog says so.
    await page.goto(`/assisted-installer/clusters/${clusterId}`);
    await page.getByRole('button', { name: 'Host discovery' }).click();
    await page.getByRole('button', { name: /^Add hosts?$/ }).click();
    const isoDialog = page.getByRole('dialog');
    await isoDialog.getByRole('button', { name: 'Generate Discovery ISO' }).click();
    await isoDialog.getByText('Discovery ISO is ready to be downloaded').waitFor({ timeout: 90_000 });
    const notice = isoDialog.getByTestId('synthetic-image-notice');
    await notice.getByText('SYNTHETIC image: it will not boot').waitFor({ timeout: 30_000 });
    // The dialog's first read-only field is still the ISO's URL.
    expect(await isoDialog.locator('input[readonly]').first().inputValue()).toMatch(/\/images\/.*image_token=/);
    expect((await notice.getByTestId('import-iso-command').textContent())?.trim()).toMatch(
      /^npm run import-iso -- --version \S+ --arch x86_64 --type full-iso --file rhcos-live\.x86_64\.iso$/,
    );
    await a.screenshot('iso-synthetic');
    await isoDialog.getByTestId('close-iso-btn').click();

    // Boot simulated hosts: they register, and the cluster's events say they are SIMULATED.
    const lab = page.getByTestId('simulated-hosts');
    await lab.getByLabel('Simulated hosts by profile').fill('master:1,worker:1');
    await lab.getByRole('button', { name: 'Boot simulated hosts' }).click();
    await expect
      .poll(() => lab.getByTestId('simulated-hosts-running').textContent())
      .toMatch(/^2 SIMULATED hosts are running \(master:1,worker:1, network \S+, started by a@example\.com\)/);
    await expect
      .poll(async () => ((await api(aToken, 'GET', `/infra-envs/${infraEnvId}/hosts`)).body as unknown as Json[]).length, { timeout: 60_000 })
      .toBe(2);
    const events = (await api(aToken, 'GET', `/events?cluster_id=${clusterId}`)).body as unknown as Json[];
    expect(
      events
        .map((event) => event.message as string)
        .find((message) => message.startsWith('SIMULATED hosts: a@example.com started 2 simulated hosts (master:1,worker:1)')),
    ).toBeTruthy();
    await page.getByText('master-0', { exact: false }).first().waitFor({ timeout: 30_000 });
    await a.screenshot('simulated-hosts');
    await lab.getByRole('button', { name: 'Stop simulated hosts' }).click();
    await lab.getByRole('button', { name: 'Boot simulated hosts' }).waitFor();

    expect(a.consoleErrors).toEqual([]);
    expect(a.failedRequests).toEqual([]);
    expect(a.failedApiCalls().map((c) => `${c.method} ${c.path} ${c.status}`)).toEqual([]);
  }, 300_000);
});
