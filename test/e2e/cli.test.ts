/**
 * The built CLI (dist/assisted.mjs) as a process against the local stack, through a full SIMULATED
 * install with the CLI alone: login → clusters create (SNO) → clusters update (machine network) →
 * infra-envs create → image download → hosts simulate (one SIMULATED host, its token read from the
 * discovery ignition) → wait ready → install → wait installed → kubeconfig.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { buildCli } from '../../cli/build.js';
import { EXIT } from '../../cli/exit-codes.js';
import { PULL_SECRET, sshPublicKey } from '../support/fixtures.js';
import { testRuntime } from '../support/runtime.js';
import { everyStageTaking } from '../../agent/src/simulate/durations.js';

const work = mkdtempSync(path.join(tmpdir(), 'assisted-cli-'));
const bundle = path.join(work, 'assisted.mjs');
const configHome = path.join(work, 'config');
let stack: Awaited<ReturnType<typeof testRuntime>>;

/** Runs the CLI asynchronously: the service runs in this very process, a synchronous spawn would starve it. */
function assisted(args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, XDG_CONFIG_HOME: configHome };
    delete env.ASSISTED_URL;
    delete env.ASSISTED_TOKEN;
    const child = spawn(process.execPath, [bundle, ...args], { cwd: work, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
    child.stdin.end(input ?? '');
  });
}

/** Tests other than the login flow authenticate with flags, so each runs on its own. */
const asAdmin = () => ['--url', stack.runtime.url, '--token', stack.adminToken];

beforeAll(async () => {
  process.env.INSTALL_POLL_SECONDS = '1';
  await buildCli({ outfile: bundle });
  stack = await testRuntime({ baseDomains: ['example.com'], settleFollowUps: false });
}, 120_000);
afterAll(async () => {
  delete process.env.INSTALL_POLL_SECONDS;
  await stack?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('the assisted CLI', () => {
  it('runs as `npx assisted` right after npm install, from its sources, with no build step', async () => {
    const root = path.resolve(import.meta.dirname, '../..');
    const result = await new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
      const child = spawn('npx', ['--no-install', 'assisted', '--help'], {
        cwd: root,
        env: { ...process.env, XDG_CONFIG_HOME: configHome },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout });
      });
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: assisted /m);
  });

  it('takes a single-node cluster from creation to installed', async () => {
    const login = await assisted(['login', '--url', stack.runtime.url, '--token-stdin'], stack.adminToken);
    expect(login.code, login.stderr).toBe(EXIT.ok);
    const configFile = path.join(configHome, 'assisted', 'config.yaml');
    expect(statSync(configFile).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(configFile)).mode & 0o777).toBe(0o700);
    expect(login.stderr).not.toContain(stack.adminToken);

    writeFileSync(path.join(work, 'pull-secret.json'), PULL_SECRET);
    writeFileSync(path.join(work, 'id.pub'), sshPublicKey());
    const created = await assisted([
      'clusters',
      'create',
      '--name',
      'cli-sno',
      '--base-domain',
      'example.com',
      '--pull-secret-file',
      'pull-secret.json',
      '--ssh-key-file',
      'id.pub',
      '--sno',
      '-o',
      'json',
    ]);
    expect(created.code, created.stderr).toBe(EXIT.ok);
    const cluster = JSON.parse(created.stdout) as { id: string; status: string; control_plane_count: number };
    expect(cluster.control_plane_count).toBe(1);
    // The machine network comes later, from the CLI too: refused in words first, then set.
    const badNetwork = await assisted(['clusters', 'update', 'cli-sno', '--machine-network', '192.168.115.0/33']);
    expect(badNetwork.code).toBe(EXIT.apiRefused);
    expect(badNetwork.stderr).toMatch(/machine_networks\/0\/cidr: must be an IPv4 or IPv6 network in CIDR notation/);
    expect(badNetwork.stderr).not.toMatch(/\^\(/);
    expect((await assisted(['clusters', 'update', 'cli-sno'])).code).toBe(EXIT.usage);
    const updated = await assisted(['clusters', 'update', 'cli-sno', '--machine-network', '192.168.115.0/24', '-o', 'json']);
    expect(updated.code, updated.stderr).toBe(EXIT.ok);
    expect((JSON.parse(updated.stdout) as { machine_networks: { cidr: string }[] }).machine_networks.map((n) => n.cidr)).toEqual(['192.168.115.0/24']);

    const infra = await assisted(['infra-envs', 'create', '--name', 'cli-sno', '--cluster', 'cli-sno', '--pull-secret-file', 'pull-secret.json', '-o', 'yaml']);
    expect(infra.code, infra.stderr).toBe(EXIT.ok);
    const infraEnv = YAML.parse(infra.stdout) as { id: string; cluster_id: string };
    expect(infraEnv.cluster_id).toBe(cluster.id);

    const listed = await assisted(['clusters', 'list']);
    expect(listed.stdout).toMatch(new RegExp(`^${cluster.id}\\s+cli-sno\\s+\\S+\\s+(insufficient|pending-for-input)`, 'm'));

    // A fresh data directory has no RHCOS image: the runtime builds a SYNTHETIC base ISO on first
    // use, and the CLI says the ISO does not boot.
    const image = await assisted(['image', 'download', infraEnv.id, '-f', 'discovery.iso', '-o', 'json']);
    expect(image.code, image.stderr).toBe(EXIT.ok);
    const iso = readFileSync(path.join(work, 'discovery.iso'));
    expect(iso.subarray(0x8001, 0x8006).toString('latin1')).toBe('CD001');
    expect(JSON.parse(image.stdout)).toMatchObject({ file: 'discovery.iso', bytes: iso.length, synthetic: true });
    expect(image.stderr).toMatch(/verified|not verified/);
    expect(image.stderr).toMatch(/SYNTHETIC image: .*does not boot/);
    const imageEvents = await assisted(['events', '--infra-env', infraEnv.id]);
    expect(imageEvents.stdout).toMatch(/SYNTHETIC base ISO \(not RHCOS, does not boot\)/);

    // The simulated host, from the CLI too: it reads its service URL and token from the discovery ignition.
    const simulated = spawn(
      process.execPath,
      [
        bundle,
        'hosts',
        'simulate',
        '--infra-env',
        'cli-sno',
        '--profiles-mix',
        'sno:1',
        '--max-poll-interval',
        '1',
        '--network',
        '192.168.115.0/24',
        '--install-durations',
        JSON.stringify(everyStageTaking(150)),
      ],
      {
        cwd: work,
        env: { ...process.env, XDG_CONFIG_HOME: configHome },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let simulatedLog = '';
    simulated.stderr.on('data', (chunk: Buffer) => (simulatedLog += chunk));
    const simulatedExit = new Promise<number | null>((resolve) => simulated.on('close', resolve));
    const running = {
      stop: async () => {
        simulated.kill('SIGINT');
        const timer = setTimeout(() => simulated.kill('SIGKILL'), 20_000);
        const code = await simulatedExit;
        clearTimeout(timer);
        return code;
      },
    };
    try {
      const ready = await assisted(['wait', cluster.id, '--for', 'ready', '--timeout', '90s', '--interval', '1s']);
      expect(ready.code, `${ready.stderr}\n${(await assisted(['hosts', 'list', '--cluster', cluster.id])).stdout}\n${simulatedLog.slice(-3000)}`).toBe(EXIT.ok);
      expect(ready.stderr).toMatch(/ready/);

      const hosts = await assisted(['hosts', 'list', '--cluster', cluster.id]);
      expect(hosts.stdout).toMatch(/^ID\s+HOSTNAME\s+ROLE\s+STATUS\s+STAGE\s+FAILING VALIDATIONS$/m);
      expect(hosts.stdout).toMatch(/\sknown(\s|$)/);

      const install = await assisted(['clusters', 'install', 'cli-sno']);
      expect(install.code, install.stderr).toBe(EXIT.ok);
      const installed = await assisted(['wait', 'cli-sno', '--for', 'installed', '--timeout', '100s', '--interval', '1s', '-o', 'json']);
      expect(installed.code, installed.stderr).toBe(EXIT.ok);
      expect(JSON.parse(installed.stdout).status).toBe('installed');
      expect(installed.stderr).toMatch(/installing/);
    } finally {
      expect(await running.stop(), simulatedLog.slice(-2000)).toBe(0);
    }
    expect(simulatedLog).toMatch(/^SIMULATED hosts: 1 \(sno:1\)/m);
    expect(simulatedLog).not.toContain(' error ');

    const kubeconfig = await assisted(['kubeconfig', cluster.id]);
    expect(kubeconfig.code, kubeconfig.stderr).toBe(EXIT.ok);
    const parsed = YAML.parse(kubeconfig.stdout) as { clusters: { cluster: { server: string } }[]; users: { user: Record<string, string> }[] };
    expect(parsed.clusters[0]!.cluster.server).toBe('https://api.cli-sno.example.com:6443');
    expect(parsed.users[0]!.user['client-certificate-data']).toBeTruthy();

    const events = await assisted(['events', '--cluster', cluster.id]);
    expect(events.stdout).toMatch(/Successfully registered cluster/);
    expect(events.stdout).toMatch(/installed|Successfully completed installing cluster/);

    const waitingForever = await assisted(['wait', cluster.id, '--for', 'ready', '--timeout', '5s', '--interval', '1s']);
    expect(waitingForever.code).toBe(EXIT.unexpectedState);
  }, 300_000);

  it('exits with the documented codes on refusals and usage errors', async () => {
    const missing = await assisted([...asAdmin(), 'clusters', 'show', '00000000-0000-4000-8000-000000000000']);
    expect(missing.code).toBe(EXIT.apiRefused);
    expect(missing.stderr).toMatch(/^assisted: reading cluster 00000000-0000-4000-8000-000000000000: 404/);
    expect((await assisted(['clusters', 'frobnicate'])).code).toBe(EXIT.usage);
    const down = await assisted(['clusters', 'list', '--url', 'http://127.0.0.1:9', '--token', 'unused']);
    expect(down.code).toBe(EXIT.transient);
    const tokens = await assisted([...asAdmin(), 'tokens', 'create', '--name', 'ci', '--role', 'read-only', '-o', 'json']);
    expect(tokens.code, tokens.stderr).toBe(EXIT.ok);
    const token = JSON.parse(tokens.stdout) as { id: string; token: string };
    const listing = await assisted([...asAdmin(), 'tokens', 'list']);
    expect(listing.stdout).toMatch(new RegExp(`^${token.id}\\s+ci\\s+read-only`, 'm'));
    expect(listing.stdout).not.toContain(token.token);
    writeFileSync(path.join(work, 'pull-secret.json'), PULL_SECRET);
    const readOnly = await assisted([
      'clusters',
      'create',
      '--name',
      'x',
      '--base-domain',
      'example.com',
      '--pull-secret-file',
      'pull-secret.json',
      '--url',
      stack.runtime.url,
      '--token',
      token.token,
    ]);
    expect(readOnly.code).toBe(EXIT.apiRefused);
    expect((await assisted([...asAdmin(), 'tokens', 'revoke', token.id])).code).toBe(EXIT.ok);
    expect((await assisted(['clusters', 'list', '--url', stack.runtime.url, '--token', token.token])).code).toBe(EXIT.apiRefused);
  }, 180_000);

  it('ends quietly, successfully, when its reader closes the pipe early (| head -1)', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, XDG_CONFIG_HOME: configHome };
    const child = spawn(process.execPath, [bundle, ...asAdmin(), 'clusters', 'list', '-o', 'json'], { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
    // The reader is gone before the CLI writes its first line.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(timer);
    expect({ code, stderr }).toEqual({ code: EXIT.ok, stderr: '' });
  }, 90_000);

  it('accepts each shipped ZTP example (examples/ztp) with ztp apply --dry-run', async () => {
    const { EXAMPLE_KINDS, examplesDir } = await import('../../bin/ztp-examples.js');
    for (const kind of EXAMPLE_KINDS) {
      const dry = await assisted([...asAdmin(), 'ztp', 'apply', path.join(examplesDir, kind), '--dry-run']);
      expect(dry.code, `${kind}: ${dry.stderr}`).toBe(EXIT.ok);
      expect(dry.stdout, kind).toMatch(/^POST \/v2\/clusters$/m);
      expect(dry.stdout, kind).toMatch(/^POST \/v2\/infra-envs$/m);
    }
  }, 90_000);

  it('applies ZTP manifests and reports their status as AgentClusterInstall conditions', async () => {
    const { exampleManifests } = await import('../../cli/ztp/examples.js');
    const dir = path.join(work, 'ztp');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(dir, { recursive: true });
    for (const { file, text } of exampleManifests('ha', { pullSecret: PULL_SECRET, sshPublicKey: sshPublicKey(), name: 'cli-ha' }))
      writeFileSync(path.join(dir, file), text);
    const dry = await assisted([...asAdmin(), 'ztp', 'apply', dir, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(EXIT.ok);
    expect(dry.stdout).toMatch(/^POST \/v2\/clusters$/m);
    expect(dry.stdout).toContain('"pull_secret": "<redacted>"');
    const applied = await assisted([...asAdmin(), 'ztp', 'apply', dir]);
    expect(applied.code, applied.stderr).toBe(EXIT.ok);
    expect(applied.stdout).toMatch(/cluster cli-ha \(.+\): created/);
    const again = await assisted([...asAdmin(), 'ztp', 'apply', dir]);
    expect(again.code, again.stderr).toBe(EXIT.ok);
    expect(again.stdout).toMatch(/cluster cli-ha \(.+\): unchanged\ninfra-env cli-ha \(.+\): unchanged/);
    const status = await assisted([...asAdmin(), 'ztp', 'status', dir]);
    expect(status.stdout).toMatch(/^SpecSynced\tTrue\tSyncOK\t/m);
    expect(status.stdout).toMatch(/^RequirementsMet\tFalse\tInsufficientAgents\tThe cluster currently requires 5 agents but only 0 have registered$/m);
    writeFileSync(path.join(dir, 'zz.yaml'), 'kind: [oops\n');
    const broken = await assisted([...asAdmin(), 'ztp', 'apply', dir]);
    expect(broken.code).toBe(EXIT.invalidInput);
    expect(broken.stderr).toMatch(/zz\.yaml: document 1: YAML syntax error at line \d+, column \d+: /);
    expect(readFileSync(path.join(dir, 'zz.yaml'), 'utf8')).toBe('kind: [oops\n');
  }, 180_000);

  it('builds its client on types generated from the current openapi.yaml', async () => {
    const check = await new Promise<number>((resolve) => {
      const child = spawn(
        process.execPath,
        [
          path.join('node_modules', 'openapi-typescript', 'bin', 'cli.js'),
          'openapi.yaml',
          '--default-non-nullable',
          'false',
          '-o',
          'contracts/api.ts',
          '--check',
        ],
        { stdio: 'ignore' },
      );
      child.on('close', (code) => resolve(code ?? -1));
    });
    expect(check, 'contracts/api.ts is stale: run `npm run generate:contracts`').toBe(0);
  }, 180_000);
});
