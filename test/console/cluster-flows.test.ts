/**
 * The upstream Assisted Installer UI (embedded by console/) driven in Debian's Chromium through the
 * whole flow against a local stack, with a fleet of SIMULATED hosts (agent/src/simulate) booted on
 * the infra-env whose discovery ISO the UI produced: HA (3 control plane + 2 workers, then day 2:
 * the installed cluster takes more hosts and the add-hosts wizard gives their ISO) and SNO.
 *
 * The wizard calls a few operations the API may not implement yet; while any is missing, the flows
 * are skipped and their names are in the suite title (see docs/console.md).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { createLog } from '../../agent/src/log.js';
import { Fleet } from '../../agent/src/simulate/fleet.js';
import { everyStageTaking } from '../../agent/src/simulate/durations.js';
import { loadProfile, type SimulationProfile } from '../../agent/src/simulate/profile.js';
import { operations } from '../../lambdas/handlers/api/operations/index.js';
import { container } from '../../lambdas/platform/container.js';
import { issueAgentToken } from '../../lambdas/usecases/agent-tokens.js';
import { PULL_SECRET, sshPublicKey } from '../support/fixtures.js';
import { testRuntime } from '../support/runtime.js';
import { ensureConsoleBuilt, openBrowser, signIn, type BrowserSession } from '../../bench/support/browser.js';

/** Operations the wizard needs beyond those every other test uses. */
const WIZARD_OPERATIONS = ['V2GetClusterUISettings', 'V2UpdateClusterUISettings', 'V2ListBundles'];
const missingOperations = WIZARD_OPERATIONS.filter((operationId) => !(operationId in operations));

type Json = Record<string, any>;
const API_VIP = '192.168.111.5';
const INGRESS_VIP = '192.168.111.4';
const INSTALL_TIMEOUT_MS = 300_000;

interface FlowContext {
  env: Awaited<ReturnType<typeof testRuntime>>;
  session: BrowserSession;
  api(method: string, route: string, body?: unknown): Promise<{ status: number; body: any }>;
}

async function startFlow(testName: string): Promise<FlowContext> {
  // The install workflow re-judges the cluster every second instead of every 30 s.
  process.env.INSTALL_POLL_SECONDS = '1';
  // Real-time flows: requests answer before their follow-ups, as in AWS.
  const env = await testRuntime({ settleFollowUps: false });
  const session = await openBrowser(env.runtime.url, testName);
  const api = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(`${env.runtime.url}/api/assisted-install/v2${route}`, {
      method,
      headers: { Authorization: `Bearer ${env.adminToken}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
  return { env, session, api };
}

const next = (page: Page) => page.getByRole('button', { name: 'Next', exact: true }).click();

/** The cluster-details step: name, base domain, pull secret, and for SNO one control plane node. */
async function fillClusterDetails(page: Page, name: string, singleNode: boolean): Promise<void> {
  await page.locator('input[name=name]').fill(name);
  await page.locator('input[name=baseDnsDomain]').fill('example.com');
  if (singleNode) {
    await page.locator('#form-input-controlPlaneCount-field').click();
    await page.getByRole('menuitem', { name: /1 \(Single Node OpenShift\)/ }).click();
  }
  await page.locator('textarea[name=pullSecret]').fill(PULL_SECRET);
}

/** Picks a provisioning type in the add-hosts dialog (its dropdown keeps the infra-env's last one). */
async function chooseProvisioningType(dialog: ReturnType<Page['getByRole']>, label: RegExp): Promise<void> {
  // Reopened after a script or ISO was made, the dialog shows that download first.
  const toggle = dialog.getByTestId('discovery-image-type-dropdown-toggle');
  const back = dialog.getByRole('button', { name: 'Back', exact: true });
  await toggle.or(back).first().waitFor();
  if (await back.isVisible()) await back.click();
  await toggle.click();
  await dialog.page().getByRole('menuitem', { name: label }).click();
}

/** Generates the discovery ISO from the add-hosts dialog and returns the URL it shows. */
async function discoveryIsoUrl(flow: FlowContext, provisioningType?: RegExp): Promise<string> {
  const { page } = flow.session;
  await page.getByRole('button', { name: /^Add hosts?$/ }).click();
  const dialog = page.getByRole('dialog');
  if (provisioningType) await chooseProvisioningType(dialog, provisioningType);
  await dialog.locator('textarea').first().fill(sshPublicKey());
  await flow.session.screenshot('iso-form');
  await dialog.getByRole('button', { name: 'Generate Discovery ISO' }).click();
  await dialog.getByText('Discovery ISO is ready to be downloaded').waitFor({ timeout: 60_000 });
  const url = await dialog.locator('input[readonly]').first().inputValue();
  await flow.session.screenshot('iso-ready');
  await dialog.getByTestId('close-iso-btn').click();
  return url;
}

/**
 * The iPXE provisioning type of the add-hosts dialog: the script URL it shows (a presigned
 * download of the infra-env's ipxe-script), and the script behind it.
 */
async function ipxeScript(flow: FlowContext): Promise<{ url: string; script: string }> {
  const { page } = flow.session;
  await page.getByRole('button', { name: /^Add hosts?$/ }).click();
  const dialog = page.getByRole('dialog');
  await chooseProvisioningType(dialog, /^iPXE/);
  await dialog.locator('textarea').first().fill(sshPublicKey());
  await flow.session.screenshot('ipxe-form');
  // The library keeps the ISO wording on this button when iPXE is picked in the same dialog.
  await dialog.getByRole('button', { name: /^Generate (script file|Discovery ISO)$/ }).click();
  await dialog.getByText('iPXE script file is ready to be downloaded').waitFor({ timeout: 60_000 });
  const url = await dialog.locator('input[readonly]').first().inputValue();
  await flow.session.screenshot('ipxe-ready');
  await dialog.getByTestId('edit-ipxe-btn').click();
  // The URL is presigned: it works without the user's token, as a network boot server fetches it.
  const response = await fetch(url);
  expect(response.status, url).toBe(200);
  return { url, script: await response.text() };
}

/** Header texts of the page's tables that are cut short (an ellipsis or clipped overflow). */
function truncatedHeaders(page: Page): Promise<string[]> {
  interface Cell {
    textContent: string | null;
    scrollWidth: number;
    clientWidth: number;
    querySelector(selector: string): Cell | null;
  }
  return page.locator('thead th').evaluateAll((cells: Cell[]) =>
    cells
      .filter((th) => {
        const text = th.querySelector('.pf-v6-c-table__text') ?? th;
        return (text.textContent ?? '').trim() !== '' && (text.scrollWidth > text.clientWidth + 1 || th.scrollWidth > th.clientWidth + 1);
      })
      .map((th) => (th.textContent ?? '').trim()),
  );
}

/**
 * At 1280, 1440 and 1920 px: a screenshot, and no table header cut short. Ends at 1440 px, the
 * flows' width.
 */
async function checkWidths(flow: FlowContext, step: string): Promise<void> {
  const { page } = flow.session;
  for (const width of [1280, 1920, 1440]) {
    await page.setViewportSize({ width, height: 1000 });
    await page.waitForTimeout(300);
    await flow.session.screenshot(`${step}-${width}px`);
    expect(await truncatedHeaders(page), `${step} at ${width} px`).toEqual([]);
  }
}

/** The wizard's step list shows every step, the last one included, without scrolling. */
async function expectWholeStepList(page: Page): Promise<void> {
  const nav = page.locator('.pf-v6-c-wizard__nav');
  const { scrollHeight, clientHeight } = await nav.evaluate((element) => ({ scrollHeight: element.scrollHeight, clientHeight: element.clientHeight }));
  expect(scrollHeight, 'the step list scrolls').toBeLessThanOrEqual(clientHeight + 1);
  await expect
    .poll(() =>
      page
        .getByRole('button', { name: 'Review and create' })
        .or(page.getByText('Review and create', { exact: true }))
        .first()
        .isVisible(),
    )
    .toBe(true);
}

/** The day-2 add-hosts wizard: host details, then the ISO form; returns the URL it shows. */
async function day2DiscoveryIsoUrl(flow: FlowContext): Promise<string> {
  const { page } = flow.session;
  await page.getByRole('button', { name: 'Add hosts', exact: true }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: 'Next', exact: true }).click();
  await dialog.locator('textarea').first().fill(sshPublicKey());
  await flow.session.screenshot('day2-iso-form');
  await dialog.getByTestId('generate-discovery-iso-button').click();
  await dialog.getByText('Discovery ISO is ready to be downloaded').waitFor({ timeout: 60_000 });
  const url = await dialog.locator('input[readonly]').first().inputValue();
  await flow.session.screenshot('day2-iso-ready');
  await dialog.getByRole('button', { name: 'Close', exact: true }).last().click();
  return url;
}

function startFleet(flow: FlowContext, infraEnvId: string, token: string, profiles: SimulationProfile[], lines: string[]) {
  const fleet = new Fleet({
    url: flow.env.runtime.url,
    infraEnvId,
    token,
    agentVersion: 'quay.io/edge-infrastructure/assisted-installer-agent:latest',
    profiles,
    staggerMs: 20,
    // The service's own poll interval is 60 s; 3 s keeps the test short.
    timing: { maxPollIntervalMs: 3_000 },
    // SIMULATED installer and controller stages of 150 ms: the test is about the console, not waiting.
    installDurationsMs: everyStageTaking(150),
    log: createLog({ level: 'info', sink: (line) => lines.push(line) }),
  });
  const stop = new AbortController();
  const running = fleet.run(stop.signal);
  return {
    fleet,
    stop: async () => {
      stop.abort();
      await running;
    },
  };
}

function hostRow(page: Page, hostname: string) {
  return page.getByRole('row').filter({ has: page.getByText(hostname, { exact: true }) });
}

function hostnameOf(host: Json): string | undefined {
  return host.requested_hostname ?? (host.inventory ? (JSON.parse(host.inventory) as Json).hostname : undefined);
}

/** Failing validation messages of a host, from the API (what the UI must show). */
function failingValidations(host: Json): string[] {
  const info = JSON.parse(host.validations_info ?? '{}') as Record<string, { status: string; message: string }[]>;
  return Object.values(info)
    .flat()
    .filter((v) => v.status === 'failure')
    .map((v) => v.message);
}

/**
 * Next on a step that follows the hosts' verdicts (host discovery, storage), once the UI enables it:
 * it follows the hosts' and the cluster's verdicts, which the table's stream brings after the
 * user's last change (slower on a loaded machine), and the page's alerts
 * (any alert disables it). If it is not clicked within a minute, the failure tells the story of
 * that minute: each change of the button, the alerts shown, and the API's verdicts.
 */
async function nextOnceVerdictsAllow(flow: FlowContext, clusterId: string): Promise<void> {
  const { page } = flow.session;
  const button = page.getByRole('button', { name: 'Next', exact: true });
  const started = Date.now();
  const story: string[] = [];
  let last = '';
  while (Date.now() - started < 60_000) {
    if (await button.isEnabled()) {
      try {
        await button.click({ timeout: 2_000 });
        return;
      } catch {
        // Disabled again between the check and the click: the story below says why.
      }
    }
    const alerts = await page.locator('.pf-v6-c-alert__title').allInnerTexts();
    const cluster = (await flow.api('GET', `/clusters/${clusterId}`)).body as Json;
    const hosts = (await flow.api('GET', `/clusters/${clusterId}/hosts?with-inventory=true`)).body as Json[];
    const clusterFailing = Object.values(JSON.parse(cluster.validations_info ?? '{}') as Record<string, { id: string; status: string }[]>)
      .flat()
      .filter((v) => v.status !== 'success')
      .map((v) => `${v.id}=${v.status}`);
    const hostStates = hosts.map((h) => `${hostnameOf(h)} ${h.status} ${h.role}: ${failingValidations(h).join('; ')}`);
    const moment = `Next ${(await button.isEnabled()) ? 'enabled' : 'disabled'}; alerts [${alerts.join(' / ')}]; cluster ${cluster.status} (${clusterFailing.join(', ')}); hosts: ${hostStates.join(' | ')}`;
    if (moment !== last) story.push(`+${((Date.now() - started) / 1000).toFixed(1)} s ${moment}`);
    last = moment;
    await page.waitForTimeout(500);
  }
  await flow.session.screenshot('host-discovery-next-not-clicked');
  throw new Error(`Next on host discovery was not clicked within 60 s:\n${story.join('\n')}`);
}

async function installAndDownloadKubeconfig(flow: FlowContext, clusterId: string): Promise<void> {
  const { page } = flow.session;
  await page.getByRole('heading', { name: 'Review and create' }).waitFor();
  await flow.session.screenshot('review');
  await page.getByRole('button', { name: 'Install cluster' }).click();
  await page.getByText('Installation progress').waitFor({ timeout: 60_000 });
  await flow.session.screenshot('installing');
  await page.getByText('Installation completed successfully').waitFor({ timeout: INSTALL_TIMEOUT_MS });
  await flow.session.screenshot('installed');
  expect((await flow.api('GET', `/clusters/${clusterId}`)).body.status).toBe('installed');

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download kubeconfig' }).click()]);
  const kubeconfig = readFileSync((await download.path())!, 'utf8');
  expect(kubeconfig).toMatch(/^kind: Config$/m);
  expect(kubeconfig).toContain('clusters:');

  await page.getByRole('button', { name: 'View cluster events' }).click();
  const events = page.getByRole('dialog');
  await events.getByRole('grid').or(events.getByRole('table')).first().waitFor();
  await flow.session.screenshot('events');
  await events.getByRole('button', { name: 'Close' }).first().click();
}

function expectCleanRun(session: BrowserSession): void {
  expect(session.consoleErrors).toEqual([]);
  expect(session.failedRequests).toEqual([]);
  expect(session.failedApiCalls().map((call) => `${call.method} ${call.path}${call.query} ${call.status}`)).toEqual([]);
}

const title = missingOperations.length
  ? `console: cluster flows (skipped: the API does not implement ${missingOperations.join(', ')})`
  : 'console: cluster flows (Chromium, simulated hosts)';

// Each flow passed alone and in one of two full fresh-clone runs; under the full suite's load on 2
// cores one flow once waited past 300 s for "installed". One retry, until that is understood.
describe.skipIf(missingOperations.length > 0)(title, { retry: 1 }, () => {
  beforeAll(() => ensureConsoleBuilt(), 600_000);

  describe('HA: 3 control plane nodes + 2 workers', () => {
    let flow: FlowContext;
    let fleet: Awaited<ReturnType<typeof startFleet>> | undefined;
    const fleetLog: string[] = [];
    beforeAll(async () => {
      flow = await startFlow('ha-cluster');
    }, 120_000);
    afterAll(async () => {
      await fleet?.stop();
      await flow?.session.close();
      await flow?.env.close();
    });

    it('creates the cluster in the wizard, boots 5 simulated hosts from its ISO, fixes one, installs, downloads the kubeconfig, opens day 2', async () => {
      const { page } = flow.session;
      await signIn(flow.session, flow.env.adminToken);
      await page.getByRole('button', { name: /Create (New )?Cluster/ }).click();
      await fillClusterDetails(page, 'console-ha', false);
      await flow.session.screenshot('cluster-details');
      await next(page);
      await page.getByRole('heading', { name: 'Operators' }).waitFor();
      await flow.session.screenshot('operators');
      await expectWholeStepList(page);
      await next(page);
      await page.getByRole('heading', { name: 'Host discovery' }).waitFor();

      const clusterId = /clusters\/([0-9a-f-]{36})/.exec(page.url())?.[1];
      expect(clusterId).toBeDefined();
      const cluster = (await flow.api('GET', `/clusters/${clusterId}`)).body as Json;
      expect(cluster).toMatchObject({ name: 'console-ha', base_dns_domain: 'example.com', control_plane_count: 3 });

      const isoUrl = await discoveryIsoUrl(flow);
      const [infraEnv] = (await flow.api('GET', `/infra-envs?cluster_id=${clusterId}`)).body as Json[];
      expect(infraEnv).toBeDefined();
      expect(isoUrl).toBe(infraEnv!.download_url);

      // The ISO would carry this token to the hosts; the simulated hosts get it directly.
      const agentToken = await issueAgentToken(container().config.agentSigningKeyPem, { orgId: flow.env.runtime.orgId, infraEnvId: infraEnv!.id });
      fleet = startFleet(flow, infraEnv!.id, agentToken, [...Array(3).fill(loadProfile('master')), ...Array(2).fill(loadProfile('worker'))], fleetLog);

      for (const hostname of ['master-0', 'master-1', 'master-2', 'worker-0', 'worker-1']) await hostRow(page, hostname).waitFor({ timeout: 90_000 });
      const masterRow = hostRow(page, 'master-0');
      await masterRow.getByText('32.00 GiB').waitFor();
      await hostRow(page, 'worker-0').getByText('16.00 GiB').waitFor();
      await flow.session.screenshot('hosts-discovered');
      await checkWidths(flow, 'hosts-discovered');

      // Fix one host: give worker-1 a proper name and an explicit role.
      await hostRow(page, 'worker-1')
        .getByRole('button', { name: /kebab|actions/i })
        .click();
      await page.getByRole('menuitem', { name: 'Change hostname' }).click();
      const rename = page.getByRole('dialog');
      await rename.locator('input').first().fill('compute-1');
      await rename.getByRole('button', { name: 'Change' }).click();
      await hostRow(page, 'compute-1').waitFor({ timeout: 30_000 });
      await hostRow(page, 'compute-1')
        .getByRole('button', { name: /Auto-assign/ })
        .click();
      await page.getByRole('menuitem', { name: /^Worker/ }).click();
      await expect
        .poll(
          async () => ((await flow.api('GET', `/clusters/${clusterId}/hosts?with-inventory=true`)).body as Json[]).map((h) => `${hostnameOf(h)}:${h.role}`),
          {
            timeout: 30_000,
          },
        )
        .toContain('compute-1:worker');
      await flow.session.screenshot('host-fixed');

      await nextOnceVerdictsAllow(flow, clusterId!);
      await page.getByRole('heading', { name: 'Storage' }).waitFor();
      await flow.session.screenshot('storage');
      await nextOnceVerdictsAllow(flow, clusterId!);
      await page.getByRole('heading', { name: 'Networking' }).waitFor();

      // Until the VIPs are set every host is pending input; its status shows the API's reasons.
      const pending = ((await flow.api('GET', `/clusters/${clusterId}/hosts?with-inventory=true`)).body as Json[]).find((h) => hostnameOf(h) === 'master-0')!;
      const reasons = failingValidations(pending);
      expect(reasons.length).toBeGreaterThan(0);
      await hostRow(page, 'master-0')
        .getByRole('button', { name: /Pending input/ })
        .click();
      await page.getByText(reasons[0]!, { exact: false }).first().waitFor();
      await flow.session.screenshot('validation-messages');
      await page.keyboard.press('Escape');

      // The networking change re-judges the hosts in the same request: the answer the UI applies
      // already has them out of "Pending input", and the table shows it within one poll.
      const vipsSaved = page.waitForResponse(
        (response) =>
          response.request().method() === 'PATCH' &&
          response.url().endsWith(`/clusters/${clusterId}`) &&
          (response.request().postData() ?? '').includes(INGRESS_VIP),
        { timeout: 60_000 },
      );
      await page.locator('input[name="apiVips.0.ip"]').fill(API_VIP);
      await page.locator('input[name="ingressVips.0.ip"]').fill(INGRESS_VIP);
      const saved = await vipsSaved;
      expect(saved.status()).toBe(201);
      const savedAt = Date.now();
      const savedHosts = ((await saved.json()) as Json).hosts as Json[];
      expect(savedHosts.map((h) => h.status)).not.toContain('pending-for-input');
      await expect
        .poll(
          () =>
            hostRow(page, 'master-0')
              .getByRole('button', { name: /Pending input/ })
              .count(),
          { timeout: 15_000 },
        )
        .toBe(0);
      // The UI library polls every 10 s; its next poll at the latest shows the new verdicts.
      expect(Date.now() - savedAt).toBeLessThan(12_000);
      await flow.session.screenshot('networking-rejudged');
      await expect.poll(async () => (await flow.api('GET', `/clusters/${clusterId}`)).body.status, { timeout: 120_000 }).toBe('ready');
      await page.getByRole('button', { name: 'Next', exact: true }).and(page.locator(':not([disabled])')).waitFor({ timeout: 30_000 });
      await flow.session.screenshot('networking');
      await next(page);
      await installAndDownloadKubeconfig(flow, clusterId!);

      // Day 2: the installed cluster takes more hosts; the add-hosts dialog gives an ISO for them.
      await page.getByRole('button', { name: 'Add hosts', exact: true }).click();
      await expect.poll(async () => (await flow.api('GET', `/clusters/${clusterId}`)).body.status, { timeout: 30_000 }).toBe('adding-hosts');
      await page.getByRole('heading', { name: 'Host Discovery', exact: true }).waitFor({ timeout: 60_000 });
      await flow.session.screenshot('day2');
      const day2IsoUrl = await day2DiscoveryIsoUrl(flow);
      expect(day2IsoUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
      await flow.session.screenshot('day2-after-iso');

      expectCleanRun(flow.session);
      expect(fleetLog.filter((line) => /SIMULATED HOST/.test(line))).toHaveLength(5);
    }, 600_000);
  });

  describe('SNO: one node', () => {
    let flow: FlowContext;
    let fleet: Awaited<ReturnType<typeof startFleet>> | undefined;
    beforeAll(async () => {
      flow = await startFlow('sno-cluster');
    }, 120_000);
    afterAll(async () => {
      await fleet?.stop();
      await flow?.session.close();
      await flow?.env.close();
    });

    it('creates a single-node cluster, boots one simulated host, installs and downloads the kubeconfig', async () => {
      const { page } = flow.session;
      await signIn(flow.session, flow.env.adminToken);
      await page.getByRole('button', { name: /Create (New )?Cluster/ }).click();
      await fillClusterDetails(page, 'console-sno', true);
      await flow.session.screenshot('cluster-details');
      await next(page);
      await page.getByRole('heading', { name: 'Operators' }).waitFor();
      await next(page);
      await page.getByRole('heading', { name: 'Host discovery' }).waitFor();
      const clusterId = /clusters\/([0-9a-f-]{36})/.exec(page.url())?.[1];
      expect((await flow.api('GET', `/clusters/${clusterId}`)).body).toMatchObject({ name: 'console-sno', control_plane_count: 1 });

      const ipxe = await ipxeScript(flow);
      expect(ipxe.url).toContain('ipxe-script');
      expect(ipxe.script).toMatch(/^#!ipxe/);
      const isoUrl = await discoveryIsoUrl(flow, /^Full image file/);
      const [infraEnv] = (await flow.api('GET', `/infra-envs?cluster_id=${clusterId}`)).body as Json[];
      expect(isoUrl).toBe(infraEnv!.download_url);
      expect(ipxe.script).toContain(infraEnv!.id);
      const agentToken = await issueAgentToken(container().config.agentSigningKeyPem, { orgId: flow.env.runtime.orgId, infraEnvId: infraEnv!.id });
      fleet = startFleet(flow, infraEnv!.id, agentToken, [loadProfile('sno')], []);

      // The host's name comes with its first inventory.
      let snoHostname: string | undefined;
      await expect
        .poll(
          async () =>
            (snoHostname = ((await flow.api('GET', `/clusters/${clusterId}/hosts?with-inventory=true`)).body as Json[]).map(hostnameOf).find(Boolean)),
          {
            timeout: 90_000,
          },
        )
        .toBeDefined();
      await hostRow(page, snoHostname!).waitFor({ timeout: 60_000 });
      await flow.session.screenshot('host-discovered');

      await next(page);
      await page.getByRole('heading', { name: 'Storage' }).waitFor();
      await next(page);
      await page.getByRole('heading', { name: 'Networking' }).waitFor();
      // Single-node clusters manage their own networking: the step picks the host's subnet as the machine network.
      await expect.poll(async () => (await flow.api('GET', `/clusters/${clusterId}`)).body.status, { timeout: 120_000 }).toBe('ready');
      await page.getByRole('button', { name: 'Next', exact: true }).and(page.locator(':not([disabled])')).waitFor({ timeout: 30_000 });
      await flow.session.screenshot('networking');
      await next(page);
      await installAndDownloadKubeconfig(flow, clusterId!);

      // The cluster list, from the masthead's navigation: every column header whole.
      await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: 'Clusters' }).click();
      await page
        .getByRole('row')
        .filter({ has: page.getByText('console-sno', { exact: true }) })
        .waitFor();
      await checkWidths(flow, 'cluster-list');

      expectCleanRun(flow.session);
    }, 600_000);
  });
});
