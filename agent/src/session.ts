/**
 * One host's conversation with the service (upstream's `agent` + `next_step_runner`, in one process):
 * register → poll instructions → run the steps concurrently, each under its timeout → post each reply
 * → wait `next_instruction_seconds` → poll again; `post_step_action: exit` means register again.
 *
 * Deliberate difference from upstream: where upstream blocks forever (409/404/401/403 on register,
 * 404 on poll) this session parks for a long bounded time (1 h by default), says so, and registers
 * again, so a host recovers without a restart once the cause is fixed.
 */
import type { AgentLog, ApiResponse, ApiTransport, StepContext, StepRequest, StepResult, StepRunner } from './contracts.js';
import { EXIT_MEDIA_DISCONNECTED, EXIT_VALIDATION_ERROR } from './contracts.js';
import type { CommandRunner } from './exec.js';
import { isUuid } from '../../contracts/input-checks.js';
import { sleep } from './sleep.js';

export interface BackoffSettings {
  readonly initialMs: number;
  readonly multiplier: number;
  /** Each wait is drawn from [d·(1−r), d·(1+r)]. */
  readonly randomization: number;
  readonly maxIntervalMs: number;
  /** After failing this long without a success the session registers again. */
  readonly maxElapsedMs: number;
}

export interface SessionTiming {
  /** --interval: between registration attempts that failed for a reason that may pass. */
  readonly registerRetryMs: number;
  /** How long the session parks where upstream would block forever. */
  readonly parkMs: number;
  /** Wait when the service's answer is not one this agent understands. */
  readonly incompatibleServerMs: number;
  readonly pollBackoff: BackoffSettings;
  /** Identical successful outputs of a step type are not posted again within this time. */
  readonly dedupeTtlMs: number;
  readonly defaultStepTimeoutMs: number;
  /** Per step type; `Infinity` means no timeout. */
  readonly stepTimeoutsMs: Readonly<Record<string, number>>;
  /** After a step's timeout aborts it, how long its runner gets to return before the timeout is replied. */
  readonly stepAbortGraceMs: number;
  /** When the agent stops, how long in-flight steps get to wind down. */
  readonly stopGraceMs: number;
  /** Upper bound on the wait between polls (not upstream: for tests and demos). */
  readonly maxPollIntervalMs?: number;
}

export const DEFAULT_TIMING: SessionTiming = {
  registerRetryMs: 60_000,
  parkMs: 3_600_000,
  incompatibleServerMs: 3_600_000,
  // cenkalti/backoff defaults, as upstream's step runner uses them.
  pollBackoff: { initialMs: 500, multiplier: 1.5, randomization: 0.5, maxIntervalMs: 60_000, maxElapsedMs: 15 * 60_000 },
  dedupeTtlMs: 3_600_000,
  defaultStepTimeoutMs: 10 * 60_000,
  stepTimeoutsMs: {
    inventory: 5 * 60_000,
    'connectivity-check': 5 * 60_000,
    'free-network-addresses': 10 * 60_000,
    'ntp-synchronizer': 2 * 60_000,
    'domain-resolution': 60_000,
    'tang-connectivity-check': 2 * 60_000,
    'api-vip-connectivity-check': 2 * 60_000,
    'verify-vips': 2 * 60_000,
    'dhcp-lease-allocate': 2 * 60_000,
    'installation-disk-speed-check': 15 * 60_000,
    'container-image-availability': 20 * 60_000,
    'stop-installation': 60_000,
    'upgrade-agent': 15 * 60_000,
    'logs-gather': 60 * 60_000,
    install: Number.POSITIVE_INFINITY,
  },
  stepAbortGraceMs: 5_000,
  stopGraceMs: 10_000,
};

/** Exit code of a step whose timeout passed (the `timeout` command's convention). */
export const EXIT_STEP_TIMEOUT = 124;

export interface Registration {
  /** The id to poll with: the service's, from next_step_runner_command.args[0]. */
  readonly hostId: string;
  readonly agentVersion?: string;
  readonly clusterId?: string;
  readonly host: Record<string, unknown>;
}

export interface SessionHooks {
  onRegistered?(registration: Registration): void;
  /** Every answered poll; `lateMs` is how much later than scheduled it was sent, `durationMs` its round trip. */
  onPoll?(poll: { lateMs: number; durationMs: number; status: number; steps: number }): void;
  /** After a step's reply was posted (or skipped as a duplicate). */
  afterStep?(request: StepRequest, result: StepResult): void;
}

export interface SessionOptions {
  readonly api: ApiTransport;
  readonly infraEnvId: string;
  /** The id to register with. */
  readonly hostId: string;
  readonly agentVersion: string;
  readonly steps: Readonly<Record<string, StepRunner>>;
  readonly exec: CommandRunner;
  readonly log: AgentLog;
  readonly timing?: Partial<SessionTiming>;
  /** Upstream's virtual-media check: an error text when the boot ISO can no longer be read. */
  readonly mediaCheck?: () => Promise<string | undefined>;
  readonly hooks?: SessionHooks;
  readonly random?: () => number;
}

/** Upstream's error bodies: InfraError {code, message} for 401/403, Error {code, reason} otherwise; gateways send text. */
async function reasonOf(response: ApiResponse): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { reason?: unknown; message?: unknown };
    const reason = body.reason ?? body.message;
    if (typeof reason === 'string' && reason) return reason;
  } catch {
    // not JSON: the text itself is the best explanation there is
  }
  return text.trim().slice(0, 300) || `HTTP ${response.status}`;
}

class Backoff {
  private current: number;
  constructor(
    private readonly settings: BackoffSettings,
    private readonly random: () => number,
  ) {
    this.current = settings.initialMs;
  }
  reset(): void {
    this.current = this.settings.initialMs;
  }
  next(): number {
    const { randomization } = this.settings;
    const wait = this.current * (1 - randomization + 2 * randomization * this.random());
    this.current = Math.min(this.settings.maxIntervalMs, this.current * this.settings.multiplier);
    return Math.round(wait);
  }
}

type PollOutcome = 'register-again' | 'stopped';

/** The run of one step type: whether it is posting its reply, and the request handed meanwhile. */
interface StepSlot {
  run: Promise<void>;
  replying: boolean;
  again?: StepRequest;
}

export class AgentSession {
  private readonly timing: SessionTiming;
  private readonly random: () => number;
  private readonly lastOutputs = new Map<string, { output: string; at: number }>();
  private readonly running = new Map<string, StepSlot>();

  constructor(private readonly options: SessionOptions) {
    this.timing = {
      ...DEFAULT_TIMING,
      ...options.timing,
      stepTimeoutsMs: { ...DEFAULT_TIMING.stepTimeoutsMs, ...options.timing?.stepTimeoutsMs },
      pollBackoff: { ...DEFAULT_TIMING.pollBackoff, ...options.timing?.pollBackoff },
    };
    this.random = options.random ?? Math.random;
  }

  /** Runs until the signal aborts, then aborts in-flight steps and waits (bounded) for them. */
  async run(signal: AbortSignal): Promise<void> {
    try {
      while (!signal.aborted) {
        const registration = await this.register(signal);
        if (!registration) break;
        this.options.hooks?.onRegistered?.(registration);
        if ((await this.processSteps(registration, signal)) === 'stopped') break;
      }
    } finally {
      await this.drain();
    }
  }

  private get log(): AgentLog {
    return this.options.log;
  }

  private async park(reason: string, signal: AbortSignal): Promise<void> {
    const hours = this.timing.parkMs / 3_600_000;
    const when = hours >= 1 ? `${hours} h` : `${Math.round(this.timing.parkMs / 1000)} s`;
    this.log.error(`parked: ${reason}; will retry in ${when}`);
    await sleep(this.timing.parkMs, signal);
  }

  private async register(signal: AbortSignal): Promise<Registration | undefined> {
    const { api, infraEnvId, hostId, agentVersion } = this.options;
    while (!signal.aborted) {
      let response: ApiResponse;
      try {
        response = await api.call('POST', `/v2/infra-envs/${infraEnvId}/hosts`, {
          json: { host_id: hostId, discovery_agent_version: agentVersion },
          signal,
        });
      } catch (error) {
        if (signal.aborted) return undefined;
        this.log.warn(`cannot reach the service to register: ${(error as Error).message}; retrying in ${this.timing.registerRetryMs / 1000} s`);
        await sleep(this.timing.registerRetryMs, signal);
        continue;
      }
      switch (response.status) {
        case 201: {
          const registration = await this.readRegistration(response, signal);
          if (registration) {
            this.log.info('registered', { host_id: registration.hostId, cluster_id: registration.clusterId });
            return registration;
          }
          continue;
        }
        case 409:
          await this.park(`the cluster cannot accept new hosts in its current state: ${await reasonOf(response)}`, signal);
          continue;
        case 404:
          await this.park(`infra-env ${infraEnvId} does not exist, or this agent is not authorized for it: ${await reasonOf(response)}`, signal);
          continue;
        case 401:
          await this.park(`the service did not accept this agent's credentials (PULL_SECRET_TOKEN): ${await reasonOf(response)}`, signal);
          continue;
        case 403:
          await this.park(`the service does not allow this host to register: ${await reasonOf(response)}`, signal);
          continue;
        default:
          this.log.warn(`registration failed with HTTP ${response.status}: ${await reasonOf(response)}; retrying in ${this.timing.registerRetryMs / 1000} s`);
          await sleep(this.timing.registerRetryMs, signal);
      }
    }
    return undefined;
  }

  private async readRegistration(response: ApiResponse, signal: AbortSignal): Promise<Registration | undefined> {
    let body: Record<string, unknown>;
    try {
      body = await response.json<Record<string, unknown>>();
    } catch {
      body = {};
    }
    const command = body.next_step_runner_command as { args?: unknown[]; retry_seconds?: number } | undefined;
    if (!command) {
      this.log.error(
        `incompatible server version: the registration answer has no next_step_runner_command; retrying in ${this.timing.incompatibleServerMs / 1000} s`,
      );
      await sleep(this.timing.incompatibleServerMs, signal);
      return undefined;
    }
    let request: { host_id?: unknown; agent_version?: unknown } = {};
    try {
      request = JSON.parse(String(command.args?.[0] ?? '')) as typeof request;
    } catch {
      // reported below with the other invalid shapes
    }
    if (typeof request.host_id !== 'string' || !isUuid(request.host_id)) {
      const retryMs = command.retry_seconds && command.retry_seconds > 0 ? command.retry_seconds * 1000 : this.timing.incompatibleServerMs;
      this.log.error(
        `the service's step runner request has no valid host_id (${JSON.stringify(command.args?.[0] ?? null).slice(0, 200)}); registering again in ${retryMs / 1000} s`,
      );
      await sleep(retryMs, signal);
      return undefined;
    }
    return {
      hostId: request.host_id,
      ...(typeof request.agent_version === 'string' ? { agentVersion: request.agent_version } : {}),
      ...(typeof body.cluster_id === 'string' ? { clusterId: body.cluster_id } : {}),
      host: body,
    };
  }

  private async processSteps(registration: Registration, signal: AbortSignal): Promise<PollOutcome> {
    const { api, infraEnvId } = this.options;
    const hostPath = `/v2/infra-envs/${infraEnvId}/hosts/${registration.hostId}`;
    const backoff = new Backoff(this.timing.pollBackoff, this.random);
    let failingSince: number | undefined;
    let scheduledAt = Date.now();
    let restart = false;
    const requestRestart = () => {
      restart = true;
    };

    while (!signal.aborted) {
      const sentAt = Date.now();
      let failure: string;
      try {
        const response = await api.call('GET', `${hostPath}/instructions`, { query: { timestamp: String(Math.floor(sentAt / 1000)) }, signal });
        if (response.status === 200) {
          const steps = await response.json<{ instructions?: StepRequest[]; next_instruction_seconds?: number; post_step_action?: string }>();
          const instructions = steps.instructions ?? [];
          this.options.hooks?.onPoll?.({ lateMs: Math.max(0, sentAt - scheduledAt), durationMs: Date.now() - sentAt, status: 200, steps: instructions.length });
          backoff.reset();
          failingSince = undefined;
          const batch = instructions.map((request) => this.startStep(request, registration, signal, requestRestart));
          if (steps.post_step_action === 'exit') {
            await Promise.all(batch);
            this.log.info('the service asked the step runner to restart; registering again');
            return 'register-again';
          }
          const seconds = Math.max(0, Number(steps.next_instruction_seconds ?? 0) || 0);
          const waitMs = Math.min(seconds * 1000, this.timing.maxPollIntervalMs ?? Number.POSITIVE_INFINITY);
          scheduledAt = Date.now() + waitMs;
          await sleep(waitMs, signal);
          if (restart) {
            this.log.info('agent upgraded; registering again');
            return 'register-again';
          }
          continue;
        }
        this.options.hooks?.onPoll?.({ lateMs: Math.max(0, sentAt - scheduledAt), durationMs: Date.now() - sentAt, status: response.status, steps: 0 });
        if (response.status === 404) {
          this.lastOutputs.clear();
          await this.park(`host ${registration.hostId} or infra-env ${infraEnvId} is not known to the service: ${await reasonOf(response)}`, signal);
          return signal.aborted ? 'stopped' : 'register-again';
        }
        failure = `HTTP ${response.status}: ${await reasonOf(response)}`;
      } catch (error) {
        if (signal.aborted) break;
        failure = (error as Error).message;
      }
      this.lastOutputs.clear();
      const now = Date.now();
      failingSince ??= now;
      if (now - failingSince >= this.timing.pollBackoff.maxElapsedMs) {
        this.log.error(`polling has failed for ${Math.round((now - failingSince) / 1000)} s (${failure}); registering again`);
        return 'register-again';
      }
      const waitMs = backoff.next();
      this.log.warn(`polling for instructions failed (${failure}); retrying in ${(waitMs / 1000).toFixed(1)} s`);
      scheduledAt = Date.now() + waitMs;
      await sleep(waitMs, signal);
    }
    return 'stopped';
  }

  private timeoutFor(request: StepRequest): number {
    const fromArgs = (): number | undefined => {
      try {
        if (request.step_type === 'installation-disk-speed-check' && request.args?.[1]) return (Number(request.args[1]) + 60) * 1000;
        if (request.step_type === 'container-image-availability' && request.args?.[0]) {
          const seconds = Number((JSON.parse(request.args[0]) as { timeout?: number }).timeout);
          return seconds > 0 ? (seconds + 60) * 1000 : undefined;
        }
      } catch {
        // the runner reports the bad request itself
      }
      return undefined;
    };
    const found = fromArgs() ?? this.timing.stepTimeoutsMs[request.step_type] ?? this.timing.defaultStepTimeoutMs;
    return Number.isFinite(found) && found > 0 ? found : Number.POSITIVE_INFINITY;
  }

  /**
   * Starts one step unless one of its type still runs (upstream's long steps guard themselves the
   * same way). One handed while the last run posts its reply runs once that reply is sent: the
   * service asks again because it has stored the answer, whose response has not arrived yet, and
   * would otherwise wait for an answer that never comes (a connectivity check naming a new peer).
   */
  private startStep(request: StepRequest, registration: Registration, signal: AbortSignal, requestRestart: () => void): Promise<void> {
    const key = request.step_type;
    const busy = this.running.get(key);
    if (busy) {
      if (busy.replying) {
        busy.again = request;
        this.log.debug('step handed again while its last reply is posted; running it after that reply', { step_type: key, step_id: request.step_id });
      } else {
        this.log.debug('step from an earlier poll still running; not starting it twice', { step_type: key, step_id: request.step_id });
      }
      return busy.run;
    }
    const slot: StepSlot = { run: Promise.resolve(), replying: false };
    slot.run = this.runStep(request, registration, signal, requestRestart, () => (slot.replying = true)).finally(() => {
      this.running.delete(key);
      if (slot.again && !signal.aborted) void this.startStep(slot.again, registration, signal, requestRestart);
    });
    this.running.set(key, slot);
    return slot.run;
  }

  private async runStep(
    request: StepRequest,
    registration: Registration,
    signal: AbortSignal,
    requestRestart: () => void,
    onReplying: () => void,
  ): Promise<void> {
    const runner = this.options.steps[request.step_type];
    let result: StepResult;
    const started = Date.now();
    if (!runner) {
      result = { exit_code: EXIT_VALIDATION_ERROR, error: `failed to find action for step type ${request.step_type}` };
    } else {
      const mediaError = await this.options.mediaCheck?.();
      result = mediaError ? { exit_code: EXIT_MEDIA_DISCONNECTED, error: mediaError } : await this.runWithTimeout(runner, request, registration, signal);
      if (!mediaError && result.exit_code !== 0) {
        const after = await this.options.mediaCheck?.();
        if (after) result = { exit_code: EXIT_MEDIA_DISCONNECTED, error: after };
      }
    }
    if (signal.aborted) return;
    const fields = { step_type: request.step_type, step_id: request.step_id, exit_code: result.exit_code, ms: Date.now() - started };
    if (result.exit_code === 0) this.log.debug('step done', fields);
    else this.log.warn(`step failed: ${result.error ?? '(no error text)'}`, fields);
    onReplying();
    await this.reply(request, result, registration, signal);
    if (request.step_type === 'upgrade-agent' && result.exit_code === 0 && /"result"\s*:\s*"success"/.test(result.output ?? '')) requestRestart();
    this.options.hooks?.afterStep?.(request, result);
  }

  private async runWithTimeout(runner: StepRunner, request: StepRequest, registration: Registration, signal: AbortSignal): Promise<StepResult> {
    const timeoutMs = this.timeoutFor(request);
    const controller = new AbortController();
    const onStop = () => controller.abort(signal.reason);
    signal.addEventListener('abort', onStop, { once: true });
    const context: StepContext = {
      hostId: registration.hostId,
      infraEnvId: this.options.infraEnvId,
      api: this.options.api,
      exec: this.options.exec,
      log: this.log,
      signal: controller.signal,
    };
    const running = Promise.resolve()
      .then(() => runner(request, context))
      .catch(
        (error: unknown): StepResult => ({
          exit_code: EXIT_VALIDATION_ERROR,
          error: `step ${request.step_type} failed: ${(error as Error)?.message ?? String(error)}`,
        }),
      );
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      if (Number.isFinite(timeoutMs)) timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    try {
      const first = await Promise.race([running, timedOut]);
      if (first !== 'timeout') return first;
      controller.abort(new Error('step timeout'));
      const grace = new AbortController();
      await Promise.race([running, sleep(this.timing.stepAbortGraceMs, grace.signal)]);
      grace.abort();
      return { exit_code: EXIT_STEP_TIMEOUT, error: `step ${request.step_type} did not finish within ${Math.round(timeoutMs / 1000)} s and was stopped` };
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onStop);
    }
  }

  private async reply(request: StepRequest, result: StepResult, registration: Registration, signal: AbortSignal): Promise<void> {
    const type = request.step_type;
    const now = Date.now();
    if (result.exit_code === 0 && result.output !== undefined) {
      const last = this.lastOutputs.get(type);
      if (last && last.output === result.output && now - last.at < this.timing.dedupeTtlMs) {
        this.log.debug('output unchanged since the last reply; not sent', { step_type: type });
        return;
      }
    }
    const body = {
      step_type: type,
      step_id: request.step_id,
      ...(result.exit_code !== 0 ? { exit_code: result.exit_code } : {}),
      ...(result.output ? { output: result.output } : {}),
      ...(result.error ? { error: result.error } : {}),
    };
    try {
      const response = await this.options.api.call('POST', `/v2/infra-envs/${this.options.infraEnvId}/hosts/${registration.hostId}/instructions`, {
        json: body,
        signal,
      });
      if (response.status >= 200 && response.status < 300) {
        if (result.exit_code === 0 && result.output !== undefined) this.lastOutputs.set(type, { output: result.output, at: now });
        else this.lastOutputs.delete(type);
        return;
      }
      this.log.warn(`the service refused the ${type} reply: HTTP ${response.status}: ${await reasonOf(response)}`, { step_id: request.step_id });
    } catch (error) {
      if (signal.aborted) return;
      this.log.warn(`could not post the ${type} reply: ${(error as Error).message}`, { step_id: request.step_id });
    }
    this.lastOutputs.delete(type);
  }

  private async drain(): Promise<void> {
    if (this.running.size === 0) return;
    const grace = new AbortController();
    await Promise.race([Promise.allSettled([...this.running.values()].map((slot) => slot.run)), sleep(this.timing.stopGraceMs, grace.signal)]);
    grace.abort();
    if (this.running.size) this.log.warn('stopped with steps still winding down', { steps: [...this.running.keys()].join(',') });
  }
}
