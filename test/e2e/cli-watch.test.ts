/**
 * `assisted clusters watch` and `assisted events --follow` over the live changes WebSocket (issue
 * 48): the built CLI follows a SIMULATED single-node install, re-reading the cluster and its events
 * on each live message (its poll interval is set far longer than the install, so only the socket
 * can keep it up to date), and exits 0 once installed. With the socket unavailable, both say so on
 * stderr and poll instead.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli } from '../../cli/build.js';
import { EXIT } from '../../cli/exit-codes.js';
import { PULL_SECRET, sshPublicKey } from '../support/fixtures.js';
import { testRuntime } from '../support/runtime.js';
import { everyStageTaking } from '../../agent/src/simulate/durations.js';

const work = mkdtempSync(path.join(tmpdir(), 'assisted-cli-watch-'));
const bundle = path.join(work, 'assisted.mjs');
const configHome = path.join(work, 'config');
let stack: Awaited<ReturnType<typeof testRuntime>>;

interface Run {
  child: ChildProcess;
  /** What it printed so far. */
  stdout(): string;
  done: Promise<{ code: number; stdout: string; stderr: string }>;
}

/** Starts the CLI asynchronously (the service runs in this process); killed after `killAfterMs` at the latest. */
function start(args: string[], input = '', killAfterMs = 150_000): Run {
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_CONFIG_HOME: configHome };
  delete env.ASSISTED_URL;
  delete env.ASSISTED_TOKEN;
  delete env.ASSISTED_LIVE_URL;
  const child = spawn(process.execPath, [bundle, ...args], { cwd: work, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const done = new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
  child.stdin!.end(input);
  return { child, done, stdout: () => stdout };
}
const assisted = (args: string[], input?: string) => start(args, input).done;

/** Nothing listens on the discard port: the socket cannot connect. */
const UNREACHABLE_LIVE_URL = 'ws://127.0.0.1:9/live';

beforeAll(async () => {
  process.env.INSTALL_POLL_SECONDS = '1';
  [, stack] = await Promise.all([buildCli({ outfile: bundle }), testRuntime({ baseDomains: ['example.com'], settleFollowUps: false })]);
}, 180_000);
afterAll(async () => {
  delete process.env.INSTALL_POLL_SECONDS;
  await stack?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('assisted clusters watch / events --follow', () => {
  let clusterId = '';

  it('follows a simulated install over the live socket, printing statuses, host stages and events, and exits 0 when installed', async () => {
    const login = await assisted(['login', '--url', stack.runtime.url, '--token-stdin'], stack.adminToken);
    expect(login.code, login.stderr).toBe(EXIT.ok);
    writeFileSync(path.join(work, 'pull-secret.json'), PULL_SECRET);
    writeFileSync(path.join(work, 'id.pub'), sshPublicKey());
    const created = await assisted([
      'clusters',
      'create',
      '--name',
      'watched',
      '--base-domain',
      'example.com',
      '--pull-secret-file',
      'pull-secret.json',
      '--ssh-key-file',
      'id.pub',
      '--sno',
      '--machine-network',
      '192.168.116.0/24',
      '-o',
      'json',
    ]);
    expect(created.code, created.stderr).toBe(EXIT.ok);
    clusterId = (JSON.parse(created.stdout) as { id: string }).id;
    const infra = await assisted(['infra-envs', 'create', '--name', 'watched', '--cluster', clusterId, '--pull-secret-file', 'pull-secret.json']);
    expect(infra.code, infra.stderr).toBe(EXIT.ok);

    // Poll intervals of 10 minutes: whatever the watchers print after their first read came over the socket.
    const watch = start(['clusters', 'watch', 'watched', '--interval', '10m', '--timeout', '140s'], '', 160_000);
    const follow = start(['events', '--cluster', clusterId, '--follow', '--interval', '10m', '--timeout', '140s'], '', 160_000);

    const simulated = start(
      [
        'hosts',
        'simulate',
        '--infra-env',
        'watched',
        '--profiles-mix',
        'sno:1',
        '--max-poll-interval',
        '1',
        '--network',
        '192.168.116.0/24',
        '--install-durations',
        JSON.stringify(everyStageTaking(300)),
      ],
      '',
      200_000,
    );
    try {
      const ready = await assisted(['wait', clusterId, '--for', 'ready', '--timeout', '90s', '--interval', '1s']);
      expect(ready.code, ready.stderr).toBe(EXIT.ok);
      const install = await assisted(['clusters', 'install', clusterId]);
      expect(install.code, install.stderr).toBe(EXIT.ok);

      const watched = await watch.done;
      expect(watched.code, `${watched.stderr}\n${watched.stdout}`).toBe(EXIT.ok);
      expect(watched.stderr).not.toMatch(/polling/);
      expect(watched.stdout).toMatch(/^cluster ready: /m);
      expect(watched.stdout).toMatch(/^cluster (preparing-for-installation|installing)\b/m);
      expect(watched.stdout).toMatch(/^cluster installed\b/m);
      expect(watched.stdout).toMatch(/^host \S+: installing/m);
      expect(watched.stdout).toMatch(/^event \S+\s+info\s+Successfully registered cluster/m);
      expect(
        watched.stdout
          .trimEnd()
          .split('\n')
          .filter((line) => line.startsWith('event ')).length,
      ).toBeGreaterThan(3);

      // The follower, too, got the install's end without waiting out its interval; it then runs to its timeout, so it is stopped.
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline && !/Successfully completed installing cluster/.test(follow.stdout())) await sleep(200);
      follow.child.kill('SIGINT');
      const followed = await follow.done;
      expect(followed.stderr).not.toMatch(/polling/);
      expect(followed.stdout).toMatch(/Successfully registered cluster/);
      expect(followed.stdout).toMatch(/Successfully completed installing cluster/);
    } finally {
      watch.child.kill('SIGKILL');
      follow.child.kill('SIGKILL');
      simulated.child.kill('SIGINT');
      const timer = setTimeout(() => simulated.child.kill('SIGKILL'), 20_000);
      await simulated.done;
      clearTimeout(timer);
    }
  }, 300_000);

  it('polls, and says so on stderr, when the live socket cannot connect', async () => {
    expect(clusterId).not.toBe('');
    const watched = await assisted(['clusters', 'watch', clusterId, '--live-url', UNREACHABLE_LIVE_URL, '--interval', '1s', '--timeout', '30s']);
    expect(watched.code, watched.stderr).toBe(EXIT.ok);
    expect(watched.stderr).toMatch(/live changes unavailable at ws:\/\/127\.0\.0\.1:9\/live \(.+\): polling instead/);
    expect(watched.stdout).toMatch(/^cluster installed\b/m);

    // events --follow keeps polling to its timeout (exit 0), printing the events once.
    const started = Date.now();
    const followed = await assisted(['events', '--cluster', clusterId, '--follow', '--live-url', UNREACHABLE_LIVE_URL, '--interval', '1s', '--timeout', '3s']);
    expect(followed.code, followed.stderr).toBe(EXIT.ok);
    expect(followed.stderr).toMatch(/live changes unavailable .*: polling instead/);
    expect(followed.stdout.match(/Successfully registered cluster/g)).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(25_000);

    // $ASSISTED_LIVE_URL is the same setting, for AWS's separate WebSocket endpoint.
    const viaEnv = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [bundle, 'clusters', 'watch', clusterId, '--interval', '1s', '--timeout', '30s'], {
        cwd: work,
        env: { ...process.env, XDG_CONFIG_HOME: configHome, ASSISTED_LIVE_URL: UNREACHABLE_LIVE_URL },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stderr });
      });
    });
    expect(viaEnv.code, viaEnv.stderr).toBe(EXIT.ok);
    expect(viaEnv.stderr).toMatch(/polling instead/);
  }, 120_000);
});
