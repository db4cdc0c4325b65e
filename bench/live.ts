/**
 * `npm run bench -- live`: the live path's figures for the closing note of issue 48, on the local
 * runtime, written into docs/performance.md ("Live changes"):
 * - latency: from a change being written to the table to its message arriving at a subscribed
 *   WebSocket client (the stream, the LiveChanges fan-out, PostToConnection through the gateway);
 * - requests of an open console on a cluster's page (Debian's Chromium), live and polling (the
 *   socket refused), over the same period, idle and with a change every few seconds;
 * - the monthly cost in AWS of the live path per N open consoles, from those rates and the price
 *   constants below.
 * Settings: LIVE_BENCH_SAMPLES (writes timed, default 200), LIVE_BENCH_PERIOD_S (each console
 * window, default 60), LIVE_BENCH_CHANGE_EVERY_S (the busy windows' change interval, default 5).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { liveSubprotocols } from '../contracts/live-protocol.js';
import { startRuntime } from '../bin/local/runtime.js';
import { container } from '../lambdas/platform/container.js';
import { ensureConsoleBuilt, openBrowser, signIn } from './support/browser.js';
import { replaceDocsSection } from './docs-sections.js';
import { BENCH_PULL_SECRET } from './support/fixtures.js';
import { percentile } from './support/percentile.js';

const DOCS = path.resolve(import.meta.dirname, '../docs/performance.md');
const BEGIN = '<!-- live-bench:begin -->';
const END = '<!-- live-bench:end -->';

/**
 * AWS list prices, us-east-1, as published in 2025 on https://aws.amazon.com/api-gateway/pricing/
 * (WebSocket APIs), .../lambda/pricing/ and .../dynamodb/pricing/on-demand/ (not re-checked from
 * this machine, which has no network). Lambda's and DynamoDB's are read from bench/cost/prices.json.
 */
const WEBSOCKET_PER_MILLION_MESSAGES = 1.0; // first billion a month; metered in 32 KB units (ours are < 1 KB)
const WEBSOCKET_PER_MILLION_CONNECTION_MINUTES = 0.25;
/** API Gateway ends a WebSocket connection after 2 hours: each open console connects 12 times a day. */
const CONNECTS_PER_CONSOLE_DAY = 12;
/**
 * Assumptions, not measurements of AWS: a fan-out invocation's billed time (one Query of the
 * organisation's connections, then one PostToConnection per subscriber reached, in parallel), and
 * the $connect/subscribe invocations' (an authentication, a transaction).
 */
const FANOUT_BASE_MS = 30;
const FANOUT_MS_PER_POST = 2;
const CONNECT_MS = 40;
/** A connection item as stored (LIVE#<id>: org, role, actor, subscriptions, times). */
const CONNECTION_ITEM_BYTES = 400;
const MINUTES_PER_MONTH = 30 * 24 * 60;

interface Prices {
  perRequest: { apiGatewayRest: number; lambdaInvocation: number; dynamodbReadUnit: number; dynamodbWriteUnit: number };
  perGbSecond: { lambdaArm64: number };
}

async function api(url: string, token: string, method: string, route: string, body?: unknown): Promise<any> {
  const response = await fetch(`${url}/api/assisted-install/v2${route}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** Write → message latencies (ms) of `samples` writes of a cluster, one at a time. */
async function measureLatency(url: string, token: string, orgId: string, clusterId: string, samples: number): Promise<number[]> {
  const ws = new WebSocket(`${url.replace('http', 'ws')}/live`, liveSubprotocols(token));
  const arrivals = new Map<number, number>();
  let subscribed = false;
  ws.on('message', (data) => {
    const message = JSON.parse(data.toString()) as { type: string; kind?: string; version?: number };
    if (message.type === 'subscribed') subscribed = true;
    if (message.type === 'change' && message.kind === 'cluster' && message.version !== undefined) arrivals.set(message.version, performance.now());
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  ws.send(JSON.stringify({ action: 'subscribe', cluster_id: clusterId }));
  for (let waited = 0; !subscribed && waited < 10_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
  const latencies: number[] = [];
  try {
    for (let sample = 0; sample < samples; sample++) {
      const written = await container().store.clusters.mutate({ orgId, clusterId }, (cluster) => ({ ...cluster, name: `live-bench-${sample}` }));
      const writtenAt = performance.now();
      const version = written!.version;
      const deadline = Date.now() + 10_000;
      while (!arrivals.has(version) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1));
      if (!arrivals.has(version)) throw new Error(`no message for version ${version} in 10 s`);
      latencies.push(Math.max(0, arrivals.get(version)! - writtenAt));
    }
  } finally {
    ws.close();
  }
  return latencies;
}

interface Window {
  mode: 'live' | 'polling';
  busy: boolean;
  requestsPerMinute: number;
  pushesPerMinute: number;
}

/** An open console on the cluster's page for `periodMs`, live or with the socket refused, idle or with a change every `changeEveryMs`. */
async function consoleWindows(url: string, token: string, clusterId: string, periodMs: number, changeEveryMs: number): Promise<Window[]> {
  ensureConsoleBuilt();
  const session = await openBrowser(url, 'live-bench');
  const windows: Window[] = [];
  try {
    const { page } = session;
    let refuse = false;
    let pushes = 0;
    page.on('websocket', (socket) =>
      socket.on('framereceived', ({ payload }) => {
        if (String(payload).includes('"type":"change"')) pushes += 1;
      }),
    );
    await page.routeWebSocket(/\/live(\?|$)/, (socket) => {
      if (refuse) void socket.close({ code: 1013, reason: 'refused by the bench' });
      else socket.connectToServer();
    });
    await signIn(session, token);
    for (const mode of ['live', 'polling'] as const) {
      refuse = mode === 'polling';
      await page.goto(`/assisted-installer/clusters/${clusterId}`);
      await page.waitForFunction(
        (expected) => (globalThis as any).document.querySelector('[data-testid="live-indicator"]')?.getAttribute('data-live') === expected,
        mode === 'live' ? 'true' : 'false',
        { timeout: 30_000 },
      );
      // Settled: the page's first reads are not part of a window.
      await page.waitForTimeout(3_000);
      for (const busy of [false, true]) {
        const callsBefore = session.apiCalls.length;
        const pushesBefore = pushes;
        const end = Date.now() + periodMs;
        let change = 0;
        while (Date.now() < end) {
          const next = Math.min(end, Date.now() + (busy ? changeEveryMs : periodMs));
          if (busy) await api(url, token, 'PATCH', `/clusters/${clusterId}`, { name: `live-bench-${mode}-${change++}` });
          await page.waitForTimeout(Math.max(0, next - Date.now()));
        }
        const minutes = periodMs / 60_000;
        windows.push({ mode, busy, requestsPerMinute: (session.apiCalls.length - callsBefore) / minutes, pushesPerMinute: (pushes - pushesBefore) / minutes });
      }
    }
  } finally {
    await session.close();
  }
  return windows;
}

/** Consoles open in one organisation: each of its changes is one fan-out batch reaching them all. */
const CONSOLES_PER_ORG = 50;

/** Monthly dollars of the live path for `consoles` open consoles, each sent `messagesPerMinute`, in organisations of up to CONSOLES_PER_ORG watching the same clusters. */
function monthlyCost(prices: Prices, consoles: number, messagesPerMinute: number) {
  const perOrg = Math.min(consoles, CONSOLES_PER_ORG);
  const orgs = Math.ceil(consoles / perOrg);
  const messages = consoles * messagesPerMinute * MINUTES_PER_MONTH;
  const connects = consoles * CONNECTS_PER_CONSOLE_DAY * 30;
  const fanOutBatches = orgs * messagesPerMinute * MINUTES_PER_MONTH;
  const gbSecond = (ms: number, mb: number) => (ms / 1000) * (mb / 1024) * prices.perGbSecond.lambdaArm64;
  // Each connect also carries a subscribe and its answer.
  const webSocket =
    ((messages + connects * 2) / 1e6) * WEBSOCKET_PER_MILLION_MESSAGES + ((consoles * MINUTES_PER_MONTH) / 1e6) * WEBSOCKET_PER_MILLION_CONNECTION_MINUTES;
  const fanOutLambda = fanOutBatches * (prices.perRequest.lambdaInvocation + gbSecond(FANOUT_BASE_MS + FANOUT_MS_PER_POST * perOrg, 512));
  // $connect, subscribe, $disconnect: a function each (1,024 MB).
  const connectLambdas = connects * 3 * (prices.perRequest.lambdaInvocation + gbSecond(CONNECT_MS, 1024));
  // An eventually consistent Query reads half a unit per 4 KB; connect: a transaction of two items (2 write units each), subscribe: a put, disconnect: a transaction.
  const reads =
    fanOutBatches * Math.max(1, Math.ceil((perOrg * CONNECTION_ITEM_BYTES) / 4096)) * 0.5 * prices.perRequest.dynamodbReadUnit +
    connects * 2 * prices.perRequest.dynamodbReadUnit;
  const writes = connects * (4 + 1 + 4) * prices.perRequest.dynamodbWriteUnit;
  return { webSocket, fanOutLambda, connectLambdas, dynamodb: reads + writes, total: webSocket + fanOutLambda + connectLambdas + reads + writes };
}

export async function live(): Promise<Record<string, unknown>> {
  const samples = Number(process.env.LIVE_BENCH_SAMPLES ?? 200);
  const periodMs = Number(process.env.LIVE_BENCH_PERIOD_S ?? 60) * 1000;
  const changeEveryMs = Number(process.env.LIVE_BENCH_CHANGE_EVERY_S ?? 5) * 1000;
  const prices = JSON.parse(readFileSync(path.resolve(import.meta.dirname, 'cost/prices.json'), 'utf8')) as Prices;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'assisted-bench-live-'));
  // The console signs in with the admin API token (no identity provider's button beside it).
  const runtime = await startRuntime({ port: 0, dnsPort: 0, dataDir, identityStandIn: false });
  try {
    const token = runtime.createdAdminToken ?? readFileSync(runtime.adminTokenFile, 'utf8').trim();
    const versions = (await api(runtime.url, token, 'GET', '/openshift-versions')) as Record<string, { default?: boolean }>;
    const version = Object.entries(versions).find(([, v]) => v.default)![0];
    const cluster = await api(runtime.url, token, 'POST', '/clusters', {
      name: 'live-bench',
      openshift_version: version,
      pull_secret: BENCH_PULL_SECRET,
      base_dns_domain: 'example.com',
      control_plane_count: 1,
    });
    await api(runtime.url, token, 'POST', '/infra-envs', { name: 'live-bench', pull_secret: BENCH_PULL_SECRET, cluster_id: cluster.id });

    const latencies = (await measureLatency(runtime.url, token, runtime.orgId, cluster.id, samples)).sort((a, b) => a - b);
    const [p50, p95, p99] = [50, 95, 99].map((p) => percentile(latencies, p));
    console.log(
      `write → message at a subscribed client, ${latencies.length} writes: p50 ${p50!.toFixed(0)} ms, p95 ${p95!.toFixed(0)} ms, p99 ${p99!.toFixed(0)} ms, max ${latencies.at(-1)!.toFixed(0)} ms`,
    );

    const windows = await consoleWindows(runtime.url, token, cluster.id, periodMs, changeEveryMs);
    const of = (mode: Window['mode'], busy: boolean) => windows.find((w) => w.mode === mode && w.busy === busy)!;
    for (const w of windows)
      console.log(
        `console on a cluster page, ${w.mode.padEnd(7)} ${w.busy ? `a change every ${changeEveryMs / 1000} s` : 'idle'}: ${w.requestsPerMinute.toFixed(1)} requests/min (${w.pushesPerMinute.toFixed(1)} pushes/min)`,
      );
    const ratio = (busy: boolean) => of('polling', busy).requestsPerMinute / Math.max(of('live', busy).requestsPerMinute, 1 / (periodMs / 60_000));

    const busyMessages = of('live', true).pushesPerMinute;
    const costs = [1, 50, 1000].map((consoles) => ({ consoles, idle: monthlyCost(prices, consoles, 0), busy: monthlyCost(prices, consoles, busyMessages) }));
    const restSavedPerConsole =
      (of('polling', false).requestsPerMinute - of('live', false).requestsPerMinute) *
      MINUTES_PER_MONTH *
      (prices.perRequest.apiGatewayRest + prices.perRequest.lambdaInvocation);
    for (const row of costs)
      console.log(
        `${row.consoles} open consoles: $${row.idle.total.toFixed(2)}/month idle, $${row.busy.total.toFixed(2)}/month at ${busyMessages.toFixed(0)} messages/min each`,
      );

    const dollars = (value: number) => `$${value < 10 ? value.toFixed(2) : value.toFixed(0)}`;
    const section = [
      BEGIN,
      `Measured by \`npm run bench -- live\` (${new Date().toISOString().slice(0, 10)}, local runtime on the 2-core development machine; ${samples} writes, console windows of ${periodMs / 1000} s).`,
      '',
      '| live path | figure |',
      '|---|---|',
      `| write → message at a subscribed client (table write, stream, LiveChanges fan-out, PostToConnection) | p50 ${p50!.toFixed(0)} ms, p95 ${p95!.toFixed(0)} ms, p99 ${p99!.toFixed(0)} ms (${latencies.length} writes) |`,
      `| open console on a cluster page, idle: polling / live | ${of('polling', false).requestsPerMinute.toFixed(1)} / ${of('live', false).requestsPerMinute.toFixed(1)} requests/min (${ratio(false).toFixed(0)}× fewer live) |`,
      `| same, a change every ${changeEveryMs / 1000} s: polling / live | ${of('polling', true).requestsPerMinute.toFixed(1)} / ${of('live', true).requestsPerMinute.toFixed(1)} requests/min (${ratio(true).toFixed(1)}×; ${busyMessages.toFixed(0)} pushes/min) |`,
      '',
      `Monthly cost of the live path in AWS (us-east-1, on-demand list prices: WebSocket $${WEBSOCKET_PER_MILLION_MESSAGES} per million messages and $${WEBSOCKET_PER_MILLION_CONNECTION_MINUTES} per million connection-minutes; Lambda arm64 $${prices.perGbSecond.lambdaArm64} per GB-s and $${prices.perRequest.lambdaInvocation} per invocation; DynamoDB $${prices.perRequest.dynamodbReadUnit} per read unit and $${prices.perRequest.dynamodbWriteUnit} per write unit). Assumed: ${CONNECTS_PER_CONSOLE_DAY} reconnects a day (API Gateway's 2 h limit), a fan-out batch of ${FANOUT_BASE_MS} ms + ${FANOUT_MS_PER_POST} ms per post at 512 MB, ${CONNECT_MS} ms per connect/subscribe/disconnect at 1,024 MB, ${CONNECTION_ITEM_BYTES}-byte connection items read by one eventually consistent Query per batch; every console open all month, in organisations of up to ${CONSOLES_PER_ORG} consoles (each change one fan-out batch per organisation), sent the busy rate measured above (${busyMessages.toFixed(0)} messages/min) or none (idle).`,
      '',
      '| open consoles | idle: WebSocket + Lambda + DynamoDB | busy: WebSocket | busy: fan-out Lambda | busy: connect Lambdas | busy: DynamoDB | busy: total |',
      '|---|---|---|---|---|---|---|',
      ...costs.map(
        ({ consoles, idle, busy }) =>
          `| ${consoles} | ${dollars(idle.total)} | ${dollars(busy.webSocket)} | ${dollars(busy.fanOutLambda)} | ${dollars(busy.connectLambdas)} | ${dollars(busy.dynamodb)} | ${dollars(busy.total)} |`,
      ),
      '',
      `Against it: the REST requests an idle console no longer makes, ${dollars(restSavedPerConsole)} a month per console at API Gateway REST + Lambda invocation prices (before the Lambda's duration and DynamoDB reads of each).`,
      END,
    ].join('\n');
    replaceDocsSection(DOCS, BEGIN, END, section);
    console.log(`docs/performance.md "Live changes" updated`);
    return { p50, p95, p99, windows, costs };
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
