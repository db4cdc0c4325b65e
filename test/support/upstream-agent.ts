/**
 * Runs upstream's discovery agent (the binary every discovery image boots, from
 * ../shared/tools/upstream-agent) against a service in the root namespace, with nothing that could
 * reach a real network or disk:
 * - one network namespace (unshare -n) holding only loopback, whose first process is a forwarder
 *   from 127.0.0.1:PORT to a filesystem Unix socket that the test pipes to the service (network
 *   namespaces do not separate filesystem sockets);
 * - each agent in it through the tool's run-agent.sh: a mount+UTS namespace of its own, podman and
 *   nsenter shims, an nmap guard, and a sparse file as its only disk (seen as /dev/vdb).
 * Needs root.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { forwarderScript } from '../../bench/support/netns-agent.js';
import { setTimeout as sleep } from 'node:timers/promises';

export { agentUnitOf } from '../../bench/support/agent-unit.js';

const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

/** The tool's folder: UPSTREAM_AGENT_DIR, else shared/ beside the project (as on developer machines and in CI). */
export function upstreamAgentDir(): string {
  const dir = process.env.UPSTREAM_AGENT_DIR ?? path.resolve(projectRoot, '../shared/tools/upstream-agent');
  if (!existsSync(path.join(dir, 'run-agent.sh'))) {
    throw new Error(
      `upstream agent tool not found at ${dir}: it is shared/tools/upstream-agent beside the project (set UPSTREAM_AGENT_DIR to place it elsewhere)`,
    );
  }
  return dir;
}

export interface LoopbackNamespace {
  /** A process inside the namespace: `nsenter -t pid -n` runs there. */
  readonly pid: number;
  /** The service, as the agents inside reach it. */
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * A network namespace with loopback only, in which 127.0.0.1:`port` leads to the Unix socket
 * `socketPath`. `loopbackCidr` (e.g. 127.0.0.1/24) replaces lo's 127.0.0.1/8, so that the hosts'
 * network is one a free-addresses scan may be asked for; `extraLoopbackCidrs` are more addresses on lo.
 */
export async function startLoopbackNamespace(options: {
  socketPath: string;
  port: number;
  loopbackCidr?: string;
  extraLoopbackCidrs?: readonly string[];
}): Promise<LoopbackNamespace> {
  const cidr = options.loopbackCidr;
  if (cidr !== undefined && !/^127\.0\.0\.1\/(9|[12]\d|3[0-2])$/.test(cidr)) throw new Error(`lo keeps 127.0.0.1 in a narrower loopback network, not ${cidr}`);
  for (const extra of options.extraLoopbackCidrs ?? []) {
    if (!/^127\.\d+\.\d+\.\d+\/\d+$/.test(extra)) throw new Error(`only loopback addresses may be added to lo, not ${extra}`);
  }
  const script = [
    'set -e',
    'ip link set lo up',
    ...(cidr ? [`ip addr add ${cidr} dev lo`, 'ip addr del 127.0.0.1/8 dev lo'] : []),
    ...(options.extraLoopbackCidrs ?? []).map((extra) => `ip addr add ${extra} dev lo`),
    'exec node -e "$FORWARDER"',
  ].join('\n');
  const child: ChildProcess = spawn('unshare', ['-n', 'sh', '-c', script], {
    env: { ...process.env, FORWARDER: forwarderScript(options.port), BRIDGE_SOCKET: options.socketPath },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const errors: string[] = [];
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => errors.push(chunk));
  const url = `http://127.0.0.1:${options.port}`;
  // Bounded wait for the forwarder to listen inside the namespace.
  for (let attempt = 0; ; attempt++) {
    const probe = spawnSync(
      'nsenter',
      [
        '-t',
        String(child.pid),
        '-n',
        'node',
        '-e',
        `require('net').connect(${options.port},'127.0.0.1').on('connect',()=>process.exit(0)).on('error',()=>process.exit(1))`,
      ],
      { timeout: 5_000 },
    );
    if (probe.status === 0) break;
    if (attempt >= 50 || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`the loopback namespace did not come up: ${errors.join('')}`);
    }
    await sleep(100);
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    pid: child.pid!,
    url,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await Promise.race([exited, sleep(5_000)]);
    },
  };
}

export interface UpstreamAgent {
  readonly n: number;
  /** WORKDIR/agentN: podman-shim.log, nmap-guard.log, varlog/agent_next_step_runner.log... */
  readonly dir: string;
  /** Every podman call the agent made (the shim's log), one per line. */
  podmanCalls(): string[];
  /** The step runner's log: each step handed, its args and its reply. */
  stepLog(): string;
  /** The nmap guard's log: every nmap the agent ran and what the guard let through. */
  nmapLog(): string;
  /** Ends the agent's process tree (bounded: TERM, then KILL after ~10 s); the loop device is detached. */
  stop(): Promise<void>;
}

const readOr = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : '');

/**
 * Starts upstream agent #n in the namespace, as a discovery image's agent.service would start it:
 * `agent --url … --infra-env-id … --agent-version IMAGE` with PULL_SECRET_TOKEN = the agent token.
 */
export function startUpstreamAgent(options: {
  namespace: LoopbackNamespace;
  n: number;
  infraEnvId: string;
  token: string;
  /** The --agent-version image (the one in discovery.ign). */
  image: string;
  workDir: string;
  /** A sparse file: the agent's only disk. */
  diskImage: string;
  /** Extra environment for run-agent.sh (e.g. SHIM_IMAGES=absent). */
  env?: Record<string, string>;
  /** Seconds between registration retries (the agent's --interval). */
  intervalSeconds?: number;
}): UpstreamAgent {
  const tool = upstreamAgentDir();
  const dir = path.join(options.workDir, `agent${options.n}`);
  const child = spawn(
    'nsenter',
    [
      '-t',
      String(options.namespace.pid),
      '-n',
      '--',
      path.join(tool, 'run-agent.sh'),
      options.namespace.url,
      options.infraEnvId,
      options.token,
      options.workDir,
      String(options.n),
      '--interval',
      String(options.intervalSeconds ?? 2),
    ],
    {
      env: { ...process.env, DISK_IMAGE: options.diskImage, AGENT_IMAGE: options.image, ...options.env },
      stdio: ['ignore', 'ignore', 'ignore'],
      detached: false,
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    n: options.n,
    dir,
    podmanCalls: () => readOr(path.join(dir, 'podman-shim.log')).split('\n').filter(Boolean),
    stepLog: () => readOr(path.join(dir, 'varlog', 'agent_next_step_runner.log')),
    nmapLog: () => readOr(path.join(dir, 'nmap-guard.log')),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        // The agent's own tree first: run-agent.sh then returns and its exit trap detaches the loop
        // device. (Signalling run-agent.sh itself again while that trap runs would cut it short.)
        const agentPid = readOr(path.join(dir, 'agent.pid')).trim();
        if (agentPid) spawnSync(path.join(tool, 'stop.sh'), [agentPid], { timeout: 30_000 });
        await Promise.race([exited, sleep(15_000)]);
        if (child.exitCode === null && child.signalCode === null) {
          const runPid = readOr(path.join(dir, 'run.pid')).trim();
          spawnSync(path.join(tool, 'stop.sh'), [runPid || String(child.pid)], { timeout: 30_000 });
          await Promise.race([exited, sleep(15_000)]);
        }
      }
      // Whatever happened above, no loop device stays attached to this agent's disk.
      const attached = spawnSync('losetup', ['-j', options.diskImage], { encoding: 'utf8' }).stdout ?? '';
      for (const device of attached
        .split('\n')
        .map((line) => line.split(':')[0]!)
        .filter(Boolean))
        spawnSync('losetup', ['-d', device]);
    },
  };
}

/** Step-runner log lines about one step type: what was handed and what was replied. */
export function stepLines(log: string, stepType: string): { created: string[]; replies: string[] } {
  const lines = log.split('\n');
  return {
    created: lines.filter((line) => line.includes(`Creating execution step for ${stepType} `)),
    replies: lines.filter((line) => new RegExp(`Sending step <${stepType}-[0-9a-f]{8}> reply`).test(line)),
  };
}

/**
 * A STAND-IN tang server inside the namespace (no tang package here): GET /adv/<thumbprint> answers
 * a JWS-shaped advertisement, as the agent's tang check reads it (200, JSON with payload and
 * signatures). It proves the step's plumbing, not any cryptography.
 */
export async function startStandInTang(namespace: LoopbackNamespace, port: number): Promise<{ url: string; stop(): void }> {
  const script = `
const http = require('node:http');
const b64 = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
http.createServer((request, response) => {
  if (request.method !== 'GET' || !/^\\/adv\\/[^/]+$/.test(request.url)) { response.writeHead(404); response.end(); return; }
  response.writeHead(200, { 'Content-Type': 'application/jose+json' });
  response.end(JSON.stringify({ payload: b64({ keys: [{ alg: 'ES512', kty: 'EC', crv: 'P-521', key_ops: ['verify'] }] }), signatures: [{ protected: b64({ alg: 'ES512', cty: 'jwk-set+json' }), signature: 'stand-in' }] }));
}).listen(${port}, '127.0.0.1');
const parent = process.ppid;
setInterval(() => { if (process.ppid !== parent) process.exit(0); }, 500);
`;
  const child = spawn('nsenter', ['-t', String(namespace.pid), '-n', 'node', '-e', script], { stdio: 'ignore' });
  for (let attempt = 0; ; attempt++) {
    const probe = spawnSync(
      'nsenter',
      [
        '-t',
        String(namespace.pid),
        '-n',
        'node',
        '-e',
        `require('net').connect(${port},'127.0.0.1').on('connect',()=>process.exit(0)).on('error',()=>process.exit(1))`,
      ],
      { timeout: 5_000 },
    );
    if (probe.status === 0) break;
    if (attempt >= 50 || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error('the stand-in tang server did not start');
    }
    await sleep(100);
  }
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM') };
}
