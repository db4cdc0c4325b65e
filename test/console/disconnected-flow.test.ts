/**
 * The wizard's "disconnected/air-gapped" switch in Chromium, through to the ISO download: the
 * library creates a DisconnectedCluster, then its infra-env (without an image type), and its
 * Review step starts the ISO's download and at once deletes the infra-env and the cluster. The
 * flow must end on the cluster list without an error, with the ISO downloaded (a SYNTHETIC base
 * here, whose ignition is the SIMULATED unconfigured ignition) although the image request is
 * served after the deletions.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PULL_SECRET } from '../support/fixtures.js';
import { testRuntime } from '../support/runtime.js';
import { ensureConsoleBuilt, openBrowser, signIn, type BrowserSession } from '../../bench/support/browser.js';

describe('console: the disconnected (air-gapped) wizard (Chromium)', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  let session: BrowserSession;
  let work: string;
  const api = async (method: string, route: string) => {
    const response = await fetch(`${env.runtime.url}/api/assisted-install/v2${route}`, {
      method,
      headers: { Authorization: `Bearer ${env.adminToken}` },
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    return { status: response.status, body: text && (response.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text };
  };

  beforeAll(async () => {
    ensureConsoleBuilt();
    work = mkdtempSync(path.join(tmpdir(), 'disconnected-console-'));
    env = await testRuntime({ settleFollowUps: false });
    session = await openBrowser(env.runtime.url, 'disconnected-wizard');
  }, 600_000);
  afterAll(async () => {
    await session?.close();
    await env?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  }, 60_000);

  it('creates the disconnected cluster and its infra-env, downloads the ISO, deletes the cluster, and ends on the cluster list', async () => {
    const { page } = session;
    await signIn(session, env.adminToken);
    await page.getByRole('button', { name: /Create (New )?Cluster/ }).click();
    await page.locator('#disconnected-install-switch').check({ force: true });
    await page.getByRole('heading', { name: 'Basic information' }).waitFor();
    await session.screenshot('basic');
    await page.getByRole('button', { name: 'Next', exact: true }).click();

    await page.getByRole('heading', { name: 'Optional configurations' }).waitFor();
    const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;
    await page.waitForURL(UUID, { timeout: 20_000 });
    const clusterId = UUID.exec(page.url())![0];
    expect((await api('GET', `/clusters/${clusterId}`)).body).toMatchObject({
      kind: 'DisconnectedCluster',
      status: 'unmonitored',
      name: 'disconnected-cluster',
    });
    // No pull secret comes from OCM here: the step asks for one.
    const pullSecret = page.locator('textarea[name=pullSecret]');
    if (!(await pullSecret.isVisible())) await page.locator('#edit-pull-secret-checkbox').check();
    await pullSecret.fill(PULL_SECRET);
    await session.screenshot('optional-configurations');
    await page.getByRole('button', { name: 'Next', exact: true }).click();

    await page.getByRole('heading', { name: 'Review and download ISO' }).waitFor();
    const [infraEnv] = (await api('GET', `/infra-envs?cluster_id=${clusterId}`)).body as Record<string, any>[];
    expect(infraEnv).toMatchObject({ type: 'disconnected-iso', cluster_id: clusterId });
    expect(infraEnv!.download_url).toMatch(/\/api\/assisted-images\/images\/.*type=disconnected-iso/);
    await session.screenshot('review');

    // The library starts the download (file-saver) and deletes the cluster right after.
    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: 120_000 }),
      page.getByRole('button', { name: 'Download ISO', exact: true }).click(),
    ]);
    await page.waitForURL((url) => !url.pathname.includes(clusterId), { timeout: 30_000 });
    const file = path.join(work, 'disconnected.iso');
    await download.saveAs(file);
    expect(await download.failure()).toBeNull();
    expect(download.suggestedFilename()).toMatch(/disconnected-iso.*SYNTHETIC\.iso$/);
    const iso = readFileSync(file);
    expect(iso.subarray(0x8001, 0x8006).toString('latin1')).toBe('CD001');
    expect(execFileSync('isoinfo', ['-R', '-i', file, '-x', '/SYNTHETIC.TXT'], { encoding: 'utf8' })).toMatch(/OVE ISO/);
    await session.screenshot('after-download');

    // The library deleted the infra-env and the cluster; the download, which may reach the image
    // service after that, still completed (the images are purged once the image URL expires).
    expect((await api('GET', `/clusters/${clusterId}`)).status).toBe(404);
    expect((await api('GET', `/infra-envs/${infraEnv!.id}`)).status).toBe(404);

    const calls = session.apiCalls.map((call) => `${call.method} ${call.path.replace(/[0-9a-f-]{36}/g, '{id}')} ${call.status}`);
    expect(calls).toContain('POST /api/assisted-install/v2/clusters/disconnected 201');
    expect(calls).toContain('POST /api/assisted-install/v2/infra-envs/ 201');
    expect(calls).toContain('DELETE /api/assisted-install/v2/infra-envs/{id} 204');
    expect(calls).toContain('DELETE /api/assisted-install/v2/clusters/{id} 204');
    expect(session.failedApiCalls()).toEqual([]);
    expect(session.failedRequests).toEqual([]);
    expect(session.consoleErrors).toEqual([]);
  }, 300_000);
});
