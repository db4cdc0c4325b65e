/** What bench/fleet.ts and its customer process (bench/fleet/customer.ts) tell each other, and the latency book both read. */
import { percentile } from '../support/percentile.js';

export type ClusterKind = 'sno' | 'compact';

export interface CustomerSettings {
  url: string;
  adminToken: string;
  cliBundle: string;
  workDir: string;
  pullSecret: string;
  sshPublicKey: string;
  /** Cluster names are `<namePrefix>-<index>`. */
  namePrefix: string;
  clusters: number;
  mix: string;
  /** Clusters between creation and their end at once (FLEET_INSTALL_CONCURRENCY). */
  inFlight: number;
  /** The first `inFlight` clusters are created spread over this long. */
  rampMs: number;
  /** The longest wait between an agent's polls (the service asks for 60 s). */
  pollSeconds: number;
  /** How often the automation reads each of its clusters' status. */
  watchSeconds: number;
  /** How often the SIMULATED in-cluster controller reads its cluster (upstream's GeneralWaitInterval is 30 s). */
  controllerPollSeconds: number;
  /** Each SIMULATED installer and controller stage. */
  stageMs: number;
  clusterTimeoutMs: number;
  ztpBatch: number;
  ztpBatchWaitMs: number;
  connections: number;
  /** Epoch ms the run started: latency windows count from it. */
  startedAt: number;
}

export interface ClusterOutcome {
  index: number;
  kind: ClusterKind;
  channel: 'rest' | 'ztp';
  /** Epoch ms its creation started. */
  startedAt: number;
  hosts: number;
  /** ms after startedAt. */
  times: { created: number; ready?: number; installStarted?: number; installed?: number };
  failure?: { cause: string; detail: string };
}

export type CustomerReport =
  | { type: 'sample'; at: number; connected: number }
  | { type: 'outcome'; outcome: ClusterOutcome }
  | { type: 'server-error'; status: number; call: string }
  | { type: 'agent-error'; line: string }
  /** `calls`: how many calls of each method and path template the customer made. */
  | { type: 'done'; latencies: Record<string, LatencySummary>; calls: Record<string, number> };

export interface LatencySummary {
  count: number;
  p50: number;
  p99: number;
  max: number;
  /** The highest p99 of any minute of the run with at least 100 answers. */
  worstMinuteP99: number;
}

/** The class of an agent-side call, by its path: what the issue asks latency of. */
export function callClass(method: string, route: string): string {
  if (/\/hosts\/[^/]+\/instructions$/.test(route)) return method === 'GET' ? 'agent polls' : 'agent step replies';
  if (/\/infra-envs\/[^/]+\/hosts$/.test(route) && method === 'POST') return 'agent registrations';
  if (/\/(progress|logs-progress|logs|monitored-operators|uploads\/[^/]+|actions\/complete-installation)$/.test(route))
    return 'install progress and controller reports';
  return 'other agent and controller calls';
}

export { percentile };

/** Latencies by class, kept per minute of the run so "throughout" can be judged (the worst minute's p99). */
export class LatencyBook {
  private readonly minutes = new Map<string, number[][]>();

  constructor(private readonly startedAt: number) {}

  add(kind: string, ms: number): void {
    const minute = Math.floor((Date.now() - this.startedAt) / 60_000);
    let byMinute = this.minutes.get(kind);
    if (!byMinute) this.minutes.set(kind, (byMinute = []));
    (byMinute[minute] ??= []).push(ms);
  }

  summary(): Record<string, LatencySummary> {
    return Object.fromEntries(
      [...this.minutes].map(([kind, byMinute]) => {
        const all = byMinute.flatMap((minute) => minute ?? []).sort((a, b) => a - b);
        const worstMinuteP99 = Math.max(
          0,
          ...byMinute
            .filter((minute) => minute && minute.length >= 100)
            .map((minute) =>
              percentile(
                [...minute].sort((a, b) => a - b),
                99,
              ),
            ),
        );
        return [kind, { count: all.length, p50: percentile(all, 50), p99: percentile(all, 99), max: all.at(-1) ?? 0, worstMinuteP99 }];
      }),
    );
  }
}

/** What went wrong on the customer's side, as its processes report it: 5xx answers by call, and the first agent errors. */
export class CustomerTroubles {
  readonly serverErrors: Record<string, number> = {};
  readonly agentErrors: string[] = [];

  /** Takes the message if it is one of these; says whether it was. */
  take(message: { type: string; status?: number; call?: string; line?: string }): boolean {
    if (message.type === 'server-error') {
      const key = `${message.status} ${message.call}`;
      this.serverErrors[key] = (this.serverErrors[key] ?? 0) + 1;
      return true;
    }
    if (message.type === 'agent-error') {
      if (this.agentErrors.length < 20) this.agentErrors.push(message.line ?? '');
      return true;
    }
    return false;
  }
}
