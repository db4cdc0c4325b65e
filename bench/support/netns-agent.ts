/**
 * Runs the bundled agent in REAL mode inside a new network namespace that has only loopback, talking
 * to a service in the root namespace. The bridge is a filesystem Unix socket (network namespaces do
 * not separate those): inside, a forwarder on 127.0.0.1 pipes each connection to the socket; outside,
 * the socket is piped to the service's loopback port. No packet of the agent's probes can reach a
 * real network. Needs root (unshare -n).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';

/** The port the agent uses inside the namespace; nothing else listens there. */
export const INSIDE_PORT = 8090;

/**
 * A node script that listens on 127.0.0.1:`port` and pipes each connection to the Unix socket in
 * $BRIDGE_SOCKET. It ends when its parent does (checked twice a second).
 */
export function forwarderScript(port: number): string {
  return `
const net = require('node:net');
net.createServer((client) => {
  const upstream = net.connect(process.env.BRIDGE_SOCKET);
  client.pipe(upstream).pipe(client);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
}).listen(${port}, '127.0.0.1');
const parent = process.ppid;
setInterval(() => { if (process.ppid !== parent) process.exit(0); }, 500);
`;
}

// Its parent becomes the agent (sh execs it); when the agent is gone, so is the forwarder.
const FORWARDER = forwarderScript(INSIDE_PORT);

/** Pipes connections on the socket file to the service's TCP port on loopback. */
export async function startBridge(socketPath: string, serviceUrl: string): Promise<net.Server> {
  const { port, hostname } = new URL(serviceUrl);
  const bridge = net.createServer((inside) => {
    const service = net.connect(Number(port), hostname);
    inside.pipe(service).pipe(inside);
    inside.on('error', () => service.destroy());
    service.on('error', () => inside.destroy());
  });
  await new Promise<void>((resolve) => bridge.listen(socketPath, resolve));
  return bridge;
}

export interface NetnsAgent {
  readonly child: ChildProcess;
  readonly output: string[];
  /** SIGTERM, then the exit code (bounded: SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<number | null>;
}

/** `node BUNDLE ARGS --url http://127.0.0.1:INSIDE_PORT` in a loopback-only namespace; the agent is the child process itself. */
export function spawnAgentInNetns(options: { bundle: string; socketPath: string; args: readonly string[]; env?: NodeJS.ProcessEnv }): NetnsAgent {
  const quoted = options.args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const script = [
    'set -e',
    'ip link set lo up',
    'node -e "$FORWARDER" &',
    // Bounded wait for the forwarder before the agent's first call.
    `for i in $(seq 1 50); do node -e "require('net').connect(${INSIDE_PORT},'127.0.0.1').on('connect',()=>process.exit(0)).on('error',()=>process.exit(1))" && break; sleep 0.1; done`,
    `exec node "$BUNDLE" ${quoted} --url http://127.0.0.1:${INSIDE_PORT}`,
  ].join('\n');
  const child = spawn('unshare', ['-n', 'sh', '-c', script], {
    env: { ...process.env, ...options.env, FORWARDER, BUNDLE: options.bundle, BRIDGE_SOCKET: options.socketPath },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const collect = (chunk: string) => output.push(...chunk.split('\n').filter(Boolean));
  child.stdout!.setEncoding('utf8').on('data', collect);
  child.stderr!.setEncoding('utf8').on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output,
    async stop(graceMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
