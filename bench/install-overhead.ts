/**
 * Orchestration overhead of a simulated 5-host install (3 masters + 2 workers): the wall time from
 * the install action to `installed`, against the time the SIMULATED installer and controller spend
 * on purpose (their stage durations along the longest host's path). What is left is ours: the
 * workflow, the preparation checks, the installer task (a child process here), state changes,
 * polls. Run twice with different stage durations, the difference isolates the fixed overhead.
 *
 *   npm run bench install-overhead        (INSTALL_OVERHEAD_STAGE_MS=200,800 to change the stage times)
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLog } from '../agent/src/log.js';
import { Fleet } from '../agent/src/simulate/fleet.js';
import { everyStageTaking } from '../agent/src/simulate/durations.js';
import { loadProfile } from '../agent/src/simulate/profile.js';
import { startRuntime } from '../bin/local/runtime.js';
import { container } from '../lambdas/platform/container.js';
import { issueAgentToken } from '../lambdas/usecases/agent-tokens.js';
import { PULL_SECRET } from './support/fixtures.js';
import { serviceAgentImage } from './support/agent-image.js';
import { setTimeout as sleep } from 'node:timers/promises';

/** The longest path a host walks, in stages the simulation sleeps through (bootstrap: installer 10 + the controller's). */
const STAGES_ON_LONGEST_PATH = 10;
const FINALIZING_STEPS = 4;

async function oneInstall(stageMs: number): Promise<{ wallS: number; simulatedS: number }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-install-'));
  process.env.INSTALL_POLL_SECONDS = '1';
  const runtime = await startRuntime({ port: 0, dnsPort: 0, dataDir, baseDomains: ['example.com'] });
  const token = readFileSync(runtime.adminTokenFile, 'utf8').trim();
  const call = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(`${runtime.url}/api/assisted-install/v2${route}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return (await response.json().catch(() => ({}))) as Record<string, any>;
  };
  const stop = new AbortController();
  try {
    const versions = (await call('GET', '/openshift-versions')) as Record<string, { default?: boolean }>;
    const version = Object.entries(versions).find(([, v]) => v.default)![0];
    const cluster = await call('POST', '/clusters', {
      name: 'bench',
      openshift_version: version,
      pull_secret: PULL_SECRET,
      base_dns_domain: 'example.com',
      api_vips: [{ ip: '192.168.111.5' }],
      ingress_vips: [{ ip: '192.168.111.4' }],
    });
    const infraEnv = await call('POST', '/infra-envs', { name: 'bench', pull_secret: PULL_SECRET, cluster_id: cluster.id });
    const agentToken = await issueAgentToken(container().config.agentSigningKeyPem, { orgId: 'default', infraEnvId: infraEnv.id });
    const fleet = new Fleet({
      url: runtime.url,
      infraEnvId: infraEnv.id,
      token: agentToken,
      agentVersion: serviceAgentImage(),
      profiles: ['master', 'master', 'master', 'worker', 'worker'].map((name) => loadProfile(name)),
      staggerMs: 10,
      timing: { maxPollIntervalMs: 1_000 },
      installDurationsMs: everyStageTaking(stageMs),
      log: createLog({ level: 'error', sink: (line) => process.stderr.write(`${line}\n`) }),
    });
    const running = fleet.run(stop.signal);
    const deadline = Date.now() + 180_000;
    let status = '';
    while (status !== 'ready' && Date.now() < deadline) {
      status = (await call('GET', `/clusters/${cluster.id}`)).status as string;
      await sleep(200);
    }
    if (status !== 'ready') {
      const last = await call('GET', `/clusters/${cluster.id}`);
      const failing = Object.values(JSON.parse(String(last.validations_info ?? '{}')) as Record<string, { id: string; status: string }[]>)
        .flat()
        .filter((validation) => validation.status !== 'success')
        .map((validation) => `${validation.id} ${validation.status}`);
      const hosts = ((last.hosts ?? []) as { requested_hostname?: string; status: string; status_info?: string }[]).map(
        (host) => `${host.requested_hostname} ${host.status}: ${host.status_info}`,
      );
      throw new Error(`cluster never became ready (${status}; ${failing.join(', ')}); hosts: ${hosts.join('; ') || 'none'}`);
    }
    const started = performance.now();
    await call('POST', `/clusters/${cluster.id}/actions/install`);
    while (!['installed', 'error', 'cancelled'].includes(status) && Date.now() < deadline) {
      await sleep(100);
      status = (await call('GET', `/clusters/${cluster.id}`)).status as string;
    }
    const wallS = (performance.now() - started) / 1000;
    stop.abort();
    await running.catch(() => undefined);
    if (status !== 'installed') throw new Error(`install ended ${status}`);
    return { wallS, simulatedS: ((STAGES_ON_LONGEST_PATH + FINALIZING_STEPS) * stageMs) / 1000 };
  } finally {
    stop.abort();
    await runtime.stop();
    delete process.env.INSTALL_POLL_SECONDS;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function installOverhead(): Promise<void> {
  const stageTimes = (process.env.INSTALL_OVERHEAD_STAGE_MS ?? '200,800').split(',').map(Number);
  const runs: { stageMs: number; wallS: number; simulatedS: number }[] = [];
  for (const stageMs of stageTimes) {
    const run = await oneInstall(stageMs);
    runs.push({ stageMs, ...run });
    const overhead = run.wallS - run.simulatedS;
    console.log(
      `stage ${stageMs} ms: install→installed ${run.wallS.toFixed(1)} s, simulated work ${run.simulatedS.toFixed(1)} s, orchestration ${overhead.toFixed(1)} s (${((overhead / run.wallS) * 100).toFixed(0)}% of wall)`,
    );
  }
  if (runs.length >= 2) {
    const [a, b] = [runs[0]!, runs[runs.length - 1]!];
    const fixed = a.wallS - ((b.wallS - a.wallS) / (b.simulatedS - a.simulatedS)) * a.simulatedS;
    console.log(
      `fixed overhead (intercept of wall vs simulated time): ${fixed.toFixed(1)} s; for comparison upstream's monitors alone tick every 10 s (cluster) and 8 s (hosts)`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await installOverhead();
