/**
 * A fleet of SIMULATED hosts in one process: each host a real session against the real API (its own
 * host id, MACs, address and hostname), with inventory and check results from its profile and the
 * fleet's shared network. Sessions share one connection pool; starts are staggered; every wait is a
 * timer, so hundreds of idle hosts cost a few hundred pending timers and nothing else.
 */
import { setMaxListeners } from 'node:events';
import type { Dispatcher } from 'undici';
import type { AgentLog, ApiTransport, StepRequest, StepRunner } from '../contracts.js';
import { runSimulatedController } from '../controller/index.js';
import type { CommandRunner } from '../exec.js';
import { SimulatedNodeRegistry, simulatedInstallStep } from '../installer/index.js';
import type { RootLog } from '../log.js';
import { AgentSession, type SessionTiming } from '../session.js';
import { sleep } from '../sleep.js';
import { createConnectionPool, createTransport, type RetryDelays, type TransportOptions } from '../transport.js';
import { ClusterView } from './cluster-view.js';
import { simulatedIdentity, type SimulatedIdentity } from './host.js';
import { FleetNetwork } from './network.js';
import type { SimulationProfile } from './profile.js';
import { simulatedSteps } from './steps.js';

export interface FleetOptions {
  readonly url: string;
  readonly infraEnvId: string;
  readonly token?: string;
  readonly agentVersion: string;
  readonly caCertFile?: string;
  readonly insecure?: boolean;
  /** One profile per host, in order. */
  readonly profiles: readonly SimulationProfile[];
  /** Explicit host ids by index (a single --simulate agent given --host-id). */
  readonly hostIds?: readonly (string | undefined)[];
  readonly network?: string;
  readonly firstHostOffset?: number;
  /** Identities derive from it; default the infra-env id. */
  readonly seed?: string;
  /** Between host starts; default spreads the starts over at most a few seconds. */
  readonly staggerMs?: number;
  readonly timing?: Partial<SessionTiming>;
  readonly retryDelays?: RetryDelays;
  /** Per-stage durations (ms) of the simulated installer and controller, by stage name. */
  readonly installDurationsMs?: Record<string, number>;
  /** A stage at which every simulated installation fails. */
  readonly installFailAt?: string;
  /** Start the simulated in-cluster controller when a bootstrap host installs (default true). */
  readonly controller?: boolean;
  /** Between the simulated controller's reads of the cluster (default its own 500 ms; upstream's controller waits 30 s). */
  readonly controllerPollMs?: number;
  readonly log: RootLog;
  /** Sockets to the service; hosts queue on them. */
  readonly connections?: number;
  /** A connection pool shared with other fleets (one process serving many infra-envs); left open when this fleet stops. */
  readonly dispatcher?: Dispatcher;
  /** Told of every answer the service gives this fleet's hosts and controllers (see TransportOptions.onResponse). */
  readonly onResponse?: TransportOptions['onResponse'];
}

export interface FleetHost {
  readonly identity: SimulatedIdentity;
  /** The id the service polls it by, once registered. */
  serviceHostId?: string;
  state: 'waiting' | 'running' | 'rebooted' | 'stopped';
}

export interface FleetMetrics {
  polls: number;
  failedPolls: number;
  replies: number;
  /** Lateness of each answered poll against its schedule, ms (bounded sample). */
  lateMs: number[];
  /** Round trip of each answered poll, ms (bounded sample). */
  pollMs: number[];
}

const LATENESS_SAMPLES = 20_000;

/** A CommandRunner for simulated hosts: they must never run anything on this machine. */
export const refuseCommands: CommandRunner = async (command) => ({
  exitCode: 127,
  stdout: '',
  stderr: `simulated host: ${command} is not run on this machine`,
  missing: true,
});

export class Fleet {
  readonly hosts: FleetHost[];
  readonly network: FleetNetwork;
  readonly metrics: FleetMetrics = { polls: 0, failedPolls: 0, replies: 0, lateMs: [], pollMs: [] };
  readonly api: ApiTransport;
  private readonly pool: Dispatcher;
  private readonly cluster: ClusterView;
  private readonly controllers = new Map<string, Promise<unknown>>();
  /** Where simulated hosts come up as nodes after their reboot, for the simulated controller. */
  private readonly nodes = new SimulatedNodeRegistry();
  private readonly stopAll = new AbortController();
  private running: Promise<void>[] = [];

  constructor(private readonly options: FleetOptions) {
    // Every host listens for the fleet's stop: hundreds of listeners are the design, not a leak.
    // (Not 0 for "unlimited": Node 20's getMaxListeners then throws inside undici's fetch.)
    setMaxListeners(1_000_000, this.stopAll.signal);
    this.network = new FleetNetwork(options.network ?? '192.168.111.0/24', options.firstHostOffset ?? 10);
    if (options.profiles.length > this.network.capacity) {
      throw new Error(
        `${options.profiles.length} hosts do not fit in ${this.network.cidr} from offset ${options.firstHostOffset ?? 10} (room for ${this.network.capacity}); pass a larger --network`,
      );
    }
    this.pool =
      options.dispatcher ?? createConnectionPool({ caCertFile: options.caCertFile, insecure: options.insecure, connections: options.connections ?? 64 });
    this.api = createTransport({
      url: options.url,
      token: options.token,
      agentVersion: options.agentVersion,
      dispatcher: this.pool,
      retryDelays: options.retryDelays,
      log: options.log,
      ...(options.onResponse ? { onResponse: options.onResponse } : {}),
    });
    this.cluster = new ClusterView(this.api, options.infraEnvId, options.log);
    const seed = options.seed ?? options.infraEnvId;
    const perPrefix = new Map<string, number>();
    this.hosts = options.profiles.map((profile, index) => {
      const prefix = profile.hostname_prefix ?? profile.name;
      const n = perPrefix.get(prefix) ?? 0;
      perPrefix.set(prefix, n + 1);
      const identity = simulatedIdentity({ seed, index, hostname: `${prefix}-${n}`, profile, network: this.network, hostId: options.hostIds?.[index] });
      this.network.add({ hostId: identity.hostId, hostname: identity.hostname, mac: identity.macs[0]!, macs: identity.macs, address: identity.address });
      return { identity, state: 'waiting' };
    });
  }

  resetMetrics(): void {
    Object.assign(this.metrics, { polls: 0, failedPolls: 0, replies: 0, lateMs: [], pollMs: [] });
  }

  /** Starts every host (staggered) and resolves when all have stopped. */
  async run(signal: AbortSignal): Promise<void> {
    const onStop = () => this.stopAll.abort();
    signal.addEventListener('abort', onStop, { once: true });
    const stagger = this.options.staggerMs ?? Math.min(200, 5_000 / Math.max(1, this.hosts.length));
    try {
      for (const host of this.hosts) {
        if (this.stopAll.signal.aborted) break;
        this.running.push(this.runHost(host));
        if (stagger > 0) await sleep(stagger, this.stopAll.signal);
      }
      await Promise.all(this.running);
      await Promise.allSettled([...this.controllers.values()]);
    } finally {
      signal.removeEventListener('abort', onStop);
      if (!this.options.dispatcher) await this.pool.close().catch(() => undefined);
    }
  }

  stop(): void {
    this.stopAll.abort();
  }

  private async runHost(host: FleetHost): Promise<void> {
    const { identity } = host;
    const log = this.options.log.child({ host: identity.hostname });
    log.info(`SIMULATED HOST (profile ${identity.profile.name}): inventory and step results are not from this machine`, {
      host_id: identity.hostId,
      address: identity.address,
      mac: identity.macs[0],
    });
    const hostStop = new AbortController();
    const onFleetStop = () => hostStop.abort();
    this.stopAll.signal.addEventListener('abort', onFleetStop, { once: true });
    let installAbort: AbortController | undefined;
    let rebooted = false;

    const install = simulatedInstallStep({
      ...(this.options.installDurationsMs ? { durationsMs: this.options.installDurationsMs } : {}),
      ...(this.options.installFailAt ? { failAt: this.options.installFailAt } : {}),
      nodes: this.nodes,
      onRebooted: () => {
        rebooted = true;
      },
    });
    const steps: Record<string, StepRunner> = {
      ...simulatedSteps({ identity, network: this.network, cluster: this.cluster, firstHostAddress: this.hosts[0]!.identity.address }),
      install: async (request, context) => {
        this.maybeStartController(request, log);
        installAbort = new AbortController();
        const both = AbortSignal.any([context.signal, installAbort.signal]);
        try {
          return await install(request, { ...context, signal: both });
        } finally {
          installAbort = undefined;
        }
      },
      'stop-installation': async (request) => {
        if ((request.args ?? []).length !== 0) return { exit_code: -1, error: 'stop-installation takes no arguments' };
        installAbort?.abort(new Error('stop-installation'));
        return { exit_code: 0, output: '' };
      },
    };

    const session = new AgentSession({
      api: this.api,
      infraEnvId: this.options.infraEnvId,
      hostId: identity.hostId,
      agentVersion: this.options.agentVersion,
      steps,
      exec: refuseCommands,
      log,
      timing: this.options.timing,
      hooks: {
        onRegistered: (registration) => {
          host.serviceHostId = registration.hostId;
        },
        onPoll: ({ lateMs, durationMs, status }) => {
          if (status !== 200) {
            this.metrics.failedPolls += 1;
            return;
          }
          this.metrics.polls += 1;
          if (this.metrics.lateMs.length < LATENESS_SAMPLES) {
            this.metrics.lateMs.push(lateMs);
            this.metrics.pollMs.push(durationMs);
          }
        },
        afterStep: (request) => {
          this.metrics.replies += 1;
          if (request.step_type === 'install' && rebooted) {
            // The host rebooted into the installed system: its discovery agent is gone.
            log.info('simulated installation finished; the host has rebooted into its installed system and stops polling');
            host.state = 'rebooted';
            hostStop.abort();
          }
        },
      },
    });
    host.state = 'running';
    try {
      await session.run(hostStop.signal);
    } finally {
      this.stopAll.signal.removeEventListener('abort', onFleetStop);
      if (host.state === 'running') host.state = 'stopped';
    }
  }

  private maybeStartController(request: StepRequest, log: AgentLog): void {
    if (this.options.controller === false) return;
    let install: { cluster_id?: string; role?: string; control_plane_count?: number } = {};
    try {
      install = JSON.parse(request.args?.[0] ?? '{}') as typeof install;
    } catch {
      return;
    }
    const bootstrap = install.role === 'bootstrap' || install.control_plane_count === 1;
    if (!bootstrap || !install.cluster_id || this.controllers.has(install.cluster_id)) return;
    const clusterId = install.cluster_id;
    log.info('bootstrap host started installing: starting the SIMULATED in-cluster controller', { cluster_id: clusterId });
    const controllerLog = this.options.log.child({ component: 'simulated-controller', cluster_id: clusterId });
    this.controllers.set(
      clusterId,
      runSimulatedController({
        api: this.api,
        clusterId,
        log: controllerLog,
        signal: this.stopAll.signal,
        nodes: this.nodes,
        ...(this.options.installDurationsMs ? { durationsMs: this.options.installDurationsMs } : {}),
        ...(this.options.controllerPollMs !== undefined ? { pollMs: this.options.controllerPollMs } : {}),
      }).catch((error: Error) => {
        controllerLog.error(`simulated controller failed: ${error.message}`);
      }),
    );
  }
}
