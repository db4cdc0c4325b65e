/**
 * Debian's Chromium driven by playwright-core against a local stack, for the console tests and the
 * live bench, with every console message and every API response recorded so the tests can assert a
 * clean run. Screenshots go to test-results/console/<test>/NN-step.png.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const projectRoot = path.resolve(import.meta.dirname, '../..');
export const resultsDir = path.join(projectRoot, 'test-results', 'console');

/** Builds console/dist when a console source is newer than it (a no-op otherwise). */
export function ensureConsoleBuilt(): void {
  execFileSync(process.execPath, [path.join(projectRoot, 'console', 'scripts', 'ensure.mjs'), 'build'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 15 * 60_000,
  });
}

/**
 * Accessibility warnings PatternFly prints with console.error from inside the upstream UI library's
 * own components (not our code, not fixable here). Matched exactly; anything else fails the test.
 */
export const UPSTREAM_LIBRARY_WARNINGS = [
  'Switch: Switch requires at least one of label, aria-labelledby, or aria-label props to be specified',
  'Text input: Text input requires either an id or aria-label to be specified',
];

/**
 * React's development warning when one of the library's form inputs gets its value only after the
 * cluster loads (a race inside the library's own networking form; seen once in several runs).
 * Matched by its start: React appends the component stack.
 */
export const UPSTREAM_LIBRARY_WARNING_PREFIXES = ['Warning: A component is changing an uncontrolled input to be controlled.'];

export interface ApiCall {
  method: string;
  /** Path without query, e.g. /api/assisted-install/v2/clusters/<id>. */
  path: string;
  query: string;
  status: number;
  /** When the response arrived (ms since the epoch). */
  at?: number;
}

export interface BrowserSession {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  consoleErrors: string[];
  apiCalls: ApiCall[];
  /** Every non-API request that failed or answered >= 400 (assets, fonts). */
  failedRequests: string[];
  screenshot(step: string): Promise<string>;
  /** API calls that answered >= 400, other than those `expected` lets through. */
  failedApiCalls(expected?: (call: ApiCall) => boolean): ApiCall[];
  close(): Promise<void>;
}

export async function openBrowser(baseUrl: string, testName: string): Promise<BrowserSession> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (.ci/run does)`);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // The closed network refuses Chromium's own background connections; these flags stop it trying.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    // launch() gives Chromium a fresh, empty profile directory of its own and removes it on close.
    timeout: 60_000,
  });
  const context = await browser.newContext({ baseURL: baseUrl, viewport: { width: 1440, height: 1000 }, acceptDownloads: true });
  context.setDefaultTimeout(20_000);
  const page = await context.newPage();
  const consoleErrors: string[] = [];
  const apiCalls: ApiCall[] = [];
  const failedRequests: string[] = [];
  page.on('console', (message) => {
    if (message.type() !== 'error' || UPSTREAM_LIBRARY_WARNINGS.includes(message.text())) return;
    if (UPSTREAM_LIBRARY_WARNING_PREFIXES.some((prefix) => message.text().startsWith(prefix))) return;
    // The browser's own line for a failed response duplicates what apiCalls/failedRequests record.
    if (message.text().startsWith('Failed to load resource: the server responded with a status of')) return;
    consoleErrors.push(`${message.text()} @ ${message.location().url}`);
  });
  page.on('pageerror', (error) => consoleErrors.push(`uncaught: ${error.stack ?? error.message}`));
  context.on('response', (response) => {
    const url = new URL(response.url());
    if (url.origin !== new URL(baseUrl).origin) return;
    if (url.pathname.startsWith('/api/')) {
      apiCalls.push({ method: response.request().method(), path: url.pathname, query: url.search, status: response.status(), at: Date.now() });
    } else if (response.status() >= 400) {
      failedRequests.push(`${response.status()} ${url.pathname}`);
    }
  });
  context.on('requestfailed', (request) => {
    const failure = request.failure()?.errorText ?? 'failed';
    // Navigations away cancel in-flight polls; that is not the API failing.
    if (failure !== 'net::ERR_ABORTED') failedRequests.push(`${failure} ${request.method()} ${request.url()}`);
  });

  const shotsDir = path.join(resultsDir, testName);
  rmSync(shotsDir, { recursive: true, force: true });
  mkdirSync(shotsDir, { recursive: true });
  let shots = 0;
  return {
    browser,
    context,
    page,
    consoleErrors,
    apiCalls,
    failedRequests,
    async screenshot(step) {
      shots += 1;
      const file = path.join(shotsDir, `${String(shots).padStart(2, '0')}-${step}.png`);
      await page.screenshot({ path: file, fullPage: true });
      return file;
    },
    failedApiCalls(expected = () => false) {
      return apiCalls.filter((call) => call.status >= 400 && !expected(call));
    },
    async close() {
      writeFileSync(path.join(shotsDir, 'api-calls.json'), `${JSON.stringify(apiCalls, null, 1)}\n`);
      await browser.close().catch(() => undefined);
    },
  };
}

/** Signs in through the sign-in page and waits for the clusters list. */
export async function signIn(session: BrowserSession, token: string): Promise<void> {
  const { page } = session;
  // A navigation the page itself starts (a redirect after the previous test's state) can abort or
  // interrupt this one (Chromium reports either): then the page has settled on its own, and the
  // sign-in page is asked for once more.
  await page.goto('/').catch(async (error: Error) => {
    if (!/ERR_ABORTED|interrupted by another navigation/.test(error.message)) throw error;
    await page.waitForLoadState();
    await page.goto('/');
  });
  await page.getByLabel('API token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/assisted-installer/clusters', { timeout: 30_000 });
}
