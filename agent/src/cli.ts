/**
 * assisted-agent: the discovery agent's entry point.
 *
 *   assisted-agent --url URL --infra-env-id ID [upstream flags…]          real host
 *   assisted-agent … --simulate PROFILE                                  one SIMULATED host
 *   assisted-agent fleet --url URL --infra-env-id ID --count N …          N SIMULATED hosts
 *   assisted-agent inventory [--gpu-config-file F]                       print this host's inventory
 *   assisted-agent host-id                                               print this host's id
 *
 * Flags follow upstream's agent (Go flag syntax too: `-url`, `--insecure=false`).
 */
import { existsSync, openSync, readSync, closeSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { AgentLog, StepRunner } from './contracts.js';
import { controlSteps } from './control-steps.js';
import { runCommand, type CommandRunner } from './exec.js';
import { deriveHostId } from './host-id.js';
import { installStep } from './installer/index.js';
import { collectInventory } from './inventory/index.js';
import { createLog, isLogLevel, type RootLog } from './log.js';
import { AgentSession, type SessionTiming } from './session.js';
import { Fleet } from './simulate/fleet.js';
import { parseStageDurations } from './simulate/durations.js';
import { loadProfile, profilesFromMix, type SimulationProfile } from './simulate/profile.js';
import { probeSteps } from './steps/index.js';
import { createTransport } from './transport.js';

export const AGENT_VERSION_DEFAULT = 'assisted-cloud/agent:dev';
const MEDIA_MOUNT = '/run/media/iso';

const BOOLEAN_FLAGS = ['insecure', 'with-text-logging', 'with-stdout-logging', 'with-journal-logging', 'help'] as const;
const STRING_FLAGS = [
  'url',
  'infra-env-id',
  'agent-version',
  'interval',
  'cacert',
  'host-id',
  'gpu-config-file',
  'simulate',
  'log-level',
  'max-poll-interval',
  'text-log-file',
  // fleet
  'count',
  'profile',
  'profiles-mix',
  'network',
  'first-host',
  'seed',
  'stagger-ms',
  'install-durations',
  'install-fail-at',
  'connections',
] as const;

export const USAGE = `usage:
  assisted-agent --url URL --infra-env-id ID [--agent-version IMAGE] [--interval SECONDS] [--cacert FILE] [--insecure]
                 [--host-id UUID] [--with-text-logging] [--with-stdout-logging] [--with-journal-logging]
                 [--gpu-config-file FILE] [--simulate PROFILE|FILE] [--log-level debug|info|warn|error]
                 [--max-poll-interval SECONDS]
  assisted-agent fleet --url URL --infra-env-id ID (--count N --profile master|worker|sno|undersized|FILE | --profiles-mix master:3,worker:2)
                 [--network 192.168.111.0/24] [--first-host 10] [--seed TEXT] [--stagger-ms MS] [--interval SECONDS] [--max-poll-interval SECONDS]
                 [--install-durations 'Writing image to disk=5000,default=1000' | JSON] [--install-fail-at STAGE] [--connections N]
  assisted-agent inventory [--gpu-config-file FILE]
  assisted-agent host-id [--host-id UUID]
The token is read from PULL_SECRET_TOKEN and sent as X-Secret-Key.`;

export class UsageError extends Error {}

type Flags = Partial<Record<(typeof STRING_FLAGS)[number], string>> & Partial<Record<(typeof BOOLEAN_FLAGS)[number], boolean>>;

/** Go's flag package accepts `-name`, `--name=value` and `--bool=false`; node's parseArgs only `--name`. */
function normalise(argv: readonly string[]): string[] {
  const known = new Set<string>([...BOOLEAN_FLAGS, ...STRING_FLAGS]);
  const out: string[] = [];
  for (const raw of argv) {
    let arg = raw;
    const single = /^-([a-z][a-z-]+)(=.*)?$/.exec(arg);
    if (single && known.has(single[1]!)) arg = `--${single[1]}${single[2] ?? ''}`;
    const bool = /^--([a-z-]+)=(true|false|1|0)$/i.exec(arg);
    if (bool && (BOOLEAN_FLAGS as readonly string[]).includes(bool[1]!)) {
      if (/^(true|1)$/i.test(bool[2]!)) out.push(`--${bool[1]}`);
      else out.push(`--no-${bool[1]}`);
      continue;
    }
    out.push(arg);
  }
  return out;
}

export function parseCommandLine(argv: readonly string[]): { command: 'agent' | 'fleet' | 'inventory' | 'host-id'; flags: Flags } {
  const [first, ...rest] = argv;
  const command = first === 'fleet' || first === 'inventory' || first === 'host-id' ? first : 'agent';
  const args = normalise(command === 'agent' ? argv : rest);
  const negatives = new Set(args.filter((a) => a.startsWith('--no-')).map((a) => a.slice(5)));
  const options = Object.fromEntries([
    ...STRING_FLAGS.map((name) => [name, { type: 'string' as const }]),
    ...BOOLEAN_FLAGS.map((name) => [name, { type: 'boolean' as const }]),
  ]);
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args: args.filter((a) => !(a.startsWith('--no-') && negatives.has(a.slice(5)))), options, strict: true, allowPositionals: false })
      .values as typeof values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  for (const name of negatives) values[name] = false;
  return { command, flags: values as Flags };
}

function numberFlag(flags: Flags, name: keyof Flags, fallback: number): number {
  const text = flags[name];
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0) throw new UsageError(`--${name} must be a non-negative number, got ${JSON.stringify(text)}`);
  return value;
}

function required(flags: Flags, name: 'url' | 'infra-env-id'): string {
  const value = flags[name];
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}

/** `stage=ms,stage=ms` or a JSON object. */
export function parseDurations(text: string | undefined): Record<string, number> | undefined {
  try {
    return parseStageDurations(text);
  } catch (error) {
    throw new UsageError(`--install-durations: ${(error as Error).message}`);
  }
}

/** `--profiles-mix master:3,worker:2`, or `--count N --profile P`. */
export function fleetProfiles(flags: Flags): SimulationProfile[] {
  if (flags['profiles-mix']) {
    try {
      return profilesFromMix(flags['profiles-mix']);
    } catch (error) {
      if (error instanceof RangeError) throw new UsageError(`--profiles-mix: ${error.message}`);
      throw error;
    }
  }
  const count = numberFlag(flags, 'count', 1);
  if (!Number.isInteger(count) || count < 1) throw new UsageError('--count must be a positive integer');
  const profile = loadProfile(flags.profile ?? 'master');
  return Array.from({ length: count }, () => profile);
}

function makeLog(flags: Flags, fields?: Record<string, unknown>): RootLog {
  const level = flags['log-level'] ?? 'info';
  if (!isLogLevel(level)) throw new UsageError(`--log-level must be debug, info, warn or error`);
  // No journald client: under systemd, stdout is the journal, so journal logging means stdout.
  const toStdout = flags['with-stdout-logging'] === true || flags['with-journal-logging'] !== false;
  return createLog({
    level,
    stdout: toStdout || !flags['with-text-logging'],
    ...(flags['with-text-logging'] ? { textFile: flags['text-log-file'] ?? '/var/log/agent.log' } : {}),
    ...(fields ? { fields } : {}),
  });
}

function sessionTiming(flags: Flags): Partial<SessionTiming> {
  return {
    registerRetryMs: numberFlag(flags, 'interval', 60) * 1000,
    ...(flags['max-poll-interval'] !== undefined ? { maxPollIntervalMs: numberFlag(flags, 'max-poll-interval', 60) * 1000 } : {}),
  };
}

/**
 * Upstream's virtual-media check: the ISO the host booted from must still be readable, else steps
 * fail with exit code 256 and this explanation. Only when the host booted from full-ISO media.
 */
export function mediaCheck(exec: CommandRunner): (() => Promise<string | undefined>) | undefined {
  if (!existsSync(MEDIA_MOUNT)) return undefined;
  return async () => {
    const mount = await exec('findmnt', ['--noheadings', '--output', 'SOURCE', MEDIA_MOUNT], { timeoutMs: 10_000 });
    const source = mount.stdout.trim();
    if (mount.exitCode !== 0 || !source) return `the installation media is no longer mounted at ${MEDIA_MOUNT}: the virtual media may have been disconnected`;
    try {
      const fd = openSync(source, 'r');
      try {
        readSync(fd, Buffer.alloc(2), 0, 2, 0);
      } finally {
        closeSync(fd);
      }
      return undefined;
    } catch (error) {
      return `cannot read the installation media ${source} (mounted at ${MEDIA_MOUNT}): ${(error as Error).message}; the virtual media may have been disconnected`;
    }
  };
}

/** The real host's steps: probes, control steps and the installer; inventory honours --gpu-config-file. */
export function realSteps(options: { gpuConfigFile?: string; log: AgentLog }): Record<string, StepRunner> {
  const inventory: StepRunner = async (_request, context) => {
    const collected = await collectInventory({
      exec: context.exec,
      log: context.log,
      ...(options.gpuConfigFile ? { gpuConfigFile: options.gpuConfigFile } : {}),
    });
    return { exit_code: 0, output: JSON.stringify(collected) };
  };
  return { ...probeSteps, ...controlSteps(), inventory, install: installStep };
}

function stopSignal(log: AgentLog): AbortSignal {
  const controller = new AbortController();
  let stops = 0;
  const stop = (signal: NodeJS.Signals) => {
    stops += 1;
    if (stops > 1) process.exit(130);
    log.info(`${signal}: stopping (steps in flight are aborted)`);
    controller.abort();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  return controller.signal;
}

async function runAgent(flags: Flags): Promise<void> {
  const url = required(flags, 'url');
  const infraEnvId = required(flags, 'infra-env-id');
  const agentVersion = flags['agent-version'] ?? AGENT_VERSION_DEFAULT;
  const token = process.env.PULL_SECRET_TOKEN;
  const log = makeLog(flags);
  if (!token) log.warn('PULL_SECRET_TOKEN is empty: the service will likely refuse this agent');
  const signal = stopSignal(log);

  if (flags.simulate) {
    const profile = loadProfile(flags.simulate);
    const real = deriveHostId({ ...(flags['host-id'] ? { override: flags['host-id'] } : {}) });
    const fleet = new Fleet({
      url,
      infraEnvId,
      agentVersion,
      token,
      caCertFile: flags.cacert,
      insecure: flags.insecure === true,
      profiles: [profile],
      // The simulated host is not this machine: its id differs from the real agent's unless given.
      hostIds: [flags['host-id'] ? real.hostId : undefined],
      seed: `${real.hostId}/${profile.name}`,
      network: flags.network,
      timing: sessionTiming(flags),
      log,
      installDurationsMs: parseDurations(flags['install-durations']),
      installFailAt: flags['install-fail-at'],
    });
    await fleet.run(signal);
    await log.close();
    return;
  }

  const derived = deriveHostId({ ...(flags['host-id'] ? { override: flags['host-id'] } : {}), log });
  log.info('assisted-agent starting', { version: agentVersion, url, infra_env_id: infraEnvId, host_id: derived.hostId, host_id_from: derived.source });
  const api = createTransport({ url, token, agentVersion, caCertFile: flags.cacert, insecure: flags.insecure === true, log });
  const session = new AgentSession({
    api,
    infraEnvId,
    hostId: derived.hostId,
    agentVersion,
    steps: realSteps({ gpuConfigFile: flags['gpu-config-file'], log }),
    exec: runCommand,
    log,
    timing: sessionTiming(flags),
    mediaCheck: mediaCheck(runCommand),
    hooks: {
      onRegistered: (registration) => {
        if (registration.agentVersion && registration.agentVersion !== agentVersion) {
          handOver(registration.agentVersion, agentVersion, log);
        }
      },
    },
  });
  await session.run(signal);
  await log.close();
}

/**
 * The service names a different agent image (after upgrade-agent): when the unit reads its image
 * from AGENT_IMAGE_ENV_FILE, write the new one there and exit so systemd starts it; otherwise say so.
 */
function handOver(wanted: string, running: string, log: AgentLog): void {
  const file = process.env.AGENT_IMAGE_ENV_FILE;
  if (!file) {
    log.warn(`the service names agent ${wanted}; this is ${running} and nothing here can switch images (AGENT_IMAGE_ENV_FILE unset); continuing`);
    return;
  }
  writeFileSync(file, `AGENT_IMAGE=${wanted}\n`);
  log.info(`the service names agent ${wanted}; handing over (exit for systemd to restart with it)`);
  process.exit(0);
}

/**
 * The agent image a host booted from the infra-env's discovery image would run: the one its
 * discovery ignition's agent unit names (the service builds images with the agent it expects, and
 * tells any other to upgrade). Read with the agent token, as a booted host could.
 */
export async function agentVersionOfInfraEnv(options: {
  url: string;
  infraEnvId: string;
  token?: string;
  caCertFile?: string;
  insecure?: boolean;
  log: AgentLog;
}): Promise<string | undefined> {
  const api = createTransport({ url: options.url, token: options.token, caCertFile: options.caCertFile, insecure: options.insecure, log: options.log });
  try {
    const response = await api.call('GET', `/v2/infra-envs/${options.infraEnvId}/downloads/files`, { query: { file_name: 'discovery.ign' }, retry: 'none' });
    if (response.status !== 200) return undefined;
    const ignition = decodeURIComponent(await response.text());
    return /--agent-version[ =]([^"\\\s]+)/.exec(ignition)?.[1];
  } catch {
    return undefined;
  }
}

async function runFleetCommand(flags: Flags): Promise<void> {
  const log = makeLog(flags);
  const signal = stopSignal(log);
  const profiles = fleetProfiles(flags);
  const url = required(flags, 'url');
  const infraEnvId = required(flags, 'infra-env-id');
  let agentVersion = flags['agent-version'];
  if (agentVersion === undefined) {
    agentVersion = await agentVersionOfInfraEnv({
      url,
      infraEnvId,
      token: process.env.PULL_SECRET_TOKEN,
      caCertFile: flags.cacert,
      insecure: flags.insecure === true,
      log,
    });
    if (agentVersion)
      log.info(`simulated hosts report agent ${agentVersion}, the one the infra-env's discovery ignition names (--agent-version to choose another)`);
    else
      log.warn(
        `the infra-env's discovery ignition could not be read to learn its agent image; simulated hosts report ${AGENT_VERSION_DEFAULT}, and a service expecting another tells them to upgrade (pass --agent-version)`,
      );
  }
  const fleet = new Fleet({
    url,
    infraEnvId,
    agentVersion: agentVersion ?? AGENT_VERSION_DEFAULT,
    token: process.env.PULL_SECRET_TOKEN,
    caCertFile: flags.cacert,
    insecure: flags.insecure === true,
    profiles,
    network: flags.network,
    firstHostOffset: numberFlag(flags, 'first-host', 10),
    seed: flags.seed,
    ...(flags['stagger-ms'] !== undefined ? { staggerMs: numberFlag(flags, 'stagger-ms', 0) } : {}),
    timing: sessionTiming(flags),
    installDurationsMs: parseDurations(flags['install-durations']),
    installFailAt: flags['install-fail-at'],
    connections: numberFlag(flags, 'connections', 64),
    log,
  });
  log.info(`SIMULATED FLEET: ${profiles.length} simulated hosts on ${fleet.network.cidr}; none of their results come from this machine`);
  await fleet.run(signal);
  await log.close();
}

export async function main(argv: readonly string[]): Promise<number> {
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv);
    if (parsed.flags.help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    switch (parsed.command) {
      case 'fleet':
        await runFleetCommand(parsed.flags);
        return 0;
      case 'inventory': {
        const log = createLog({ level: 'warn', sink: (line) => process.stderr.write(`${line}\n`) });
        const inventory = await collectInventory({
          exec: runCommand,
          log,
          ...(parsed.flags['gpu-config-file'] ? { gpuConfigFile: parsed.flags['gpu-config-file'] } : {}),
        });
        process.stdout.write(`${JSON.stringify(inventory, null, 2)}\n`);
        return 0;
      }
      case 'host-id':
        process.stdout.write(`${JSON.stringify(deriveHostId({ ...(parsed.flags['host-id'] ? { override: parsed.flags['host-id'] } : {}) }))}\n`);
        return 0;
      default:
        await runAgent(parsed.flags);
        return 0;
    }
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n${USAGE}\n`);
      return 2;
    }
    throw error;
  }
}

const invokedDirectly = process.argv[1] && /(?:cli\.ts|agent\.mjs)$/.test(process.argv[1]);
if (invokedDirectly) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: Error) => {
      process.stderr.write(`assisted-agent: ${error.stack ?? error.message}\n`);
      process.exit(1);
    },
  );
}
