/**
 * The seams between the agent's parts, fixed first so the runtime (loop, client, simulation), the
 * probes (inventory and check steps) and the installer can be built side by side.
 *
 * Wire shapes are the service's own (contracts/step-replies.ts, from upstream's swagger: Step,
 * StepReply, HostProgress...); everything declared here is what the agent itself needs.
 */
import type { Step, StepReply } from '../../contracts/step-replies.js';

/** One instruction from `GET .../instructions`. `args[0]` is usually a JSON-encoded request. */
export type StepRequest = Readonly<Step>;

/**
 * What a step answers, before it is posted as a StepReply. exit_code 0 with `output` a JSON string
 * (contracts/step-replies.ts encodeStepOutput) is success; upstream leaves a 0 exit code out.
 */
export type StepResult = Readonly<Required<Pick<StepReply, 'exit_code'>> & Pick<StepReply, 'output' | 'error'>>;

/** Upstream's special exit codes the service understands. */
export const EXIT_VALIDATION_ERROR = -1;
export const EXIT_IMAGE_PULL_FAILED = 2;
export const EXIT_MEDIA_DISCONNECTED = 256;

export interface AgentLog {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export interface ApiCallOptions {
  readonly query?: Record<string, string>;
  /** Sent as application/json. */
  readonly json?: unknown;
  /** Sent as is (multipart: pass a FormData; fetch sets the boundary). */
  readonly body?: FormData | Uint8Array | string;
  readonly headers?: Record<string, string>;
  /**
   * 'agent': upstream agent transport (3 retries on 503/504 and network errors, 2–10 s jitter);
   * 'installer': the installer's patient client (404/423/425 ×10; 408/429/5xx/network ×360);
   * 'none': one attempt. Default 'agent'.
   */
  readonly retry?: 'agent' | 'installer' | 'none';
  readonly signal?: AbortSignal;
}

export interface ApiResponse {
  readonly status: number;
  readonly headers: Headers;
  text(): Promise<string>;
  json<T = unknown>(): Promise<T>;
  bytes(): Promise<Uint8Array>;
}

/**
 * Calls to the service. `path` is relative to `<url>/api/assisted-install`, e.g.
 * `/v2/infra-envs/{id}/hosts/{host}/progress`. Implementations add X-Secret-Key, the
 * discovery_agent_version header and a fresh X-Request-Id; they reject only on network failure after
 * retries, never on an HTTP status (callers read `status`).
 */
export interface ApiTransport {
  call(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, options?: ApiCallOptions): Promise<ApiResponse>;
}

export interface StepContext {
  readonly hostId: string;
  readonly infraEnvId: string;
  readonly api: ApiTransport;
  readonly exec: import('./exec.js').CommandRunner;
  readonly log: AgentLog;
  /** Aborted when the step's timeout passes or the agent stops. */
  readonly signal: AbortSignal;
}

/** Runs one step type. Never throws: failures are a StepResult with a non-zero exit code and an error a person can read. */
export type StepRunner = (request: StepRequest, context: StepContext) => Promise<StepResult>;
