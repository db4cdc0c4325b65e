/** What the step runners share: reading `args`, shaping replies, running tools, guarding overlaps. */
import { EXIT_VALIDATION_ERROR, type StepContext, type StepRequest, type StepResult } from '../contracts.js';
import type { CommandOptions, CommandResult } from '../exec.js';
import { decodeStepArgs, StepArgumentsError, type RequestStepType, type StepRequests } from '../../../contracts/step-requests.js';
import { encodeStepOutput, type OutputStepType, type StepOutputs } from '../../../contracts/step-replies.js';

/** The shell's "command not found": the tool a step needs is not installed. */
export const EXIT_TOOL_MISSING = 127;

/** A successful step, its output built against the type the service reads it as. */
export const succeed = <T extends OutputStepType>(stepType: T, output: StepOutputs[T]): StepResult => ({
  exit_code: 0,
  output: encodeStepOutput(stepType, output),
});
/** A failed step; `output` (encodeStepOutput) where upstream's agent still sends one. */
export const fail = (error: string, exitCode = EXIT_VALIDATION_ERROR, output?: string): StepResult => ({
  exit_code: exitCode,
  error,
  ...(output !== undefined ? { output } : {}),
});
export const toolMissing = (tool: string, stepType: string, purpose: string): StepResult =>
  fail(`${tool} is not installed on this host; ${stepType} needs it to ${purpose}`, EXIT_TOOL_MISSING);

export class StepArgumentError extends Error {}

/**
 * The request a step's args carry, read with the service's own definition of them
 * (contracts/step-requests.ts): what upstream's agent accepts, nothing looser.
 */
export function stepRequest<T extends RequestStepType>(stepType: T, request: StepRequest): StepRequests[T] {
  return decodeStepArgs(stepType, request.args);
}

/** `args[index]` parsed as JSON; a StepArgumentError says which argument and why. */
export function jsonArgument(request: StepRequest, index = 0): unknown {
  const text = request.args?.[index];
  if (text === undefined) throw new StepArgumentError(`${request.step_type} expects a JSON request in args[${index}]`);
  try {
    return JSON.parse(text);
  } catch {
    throw new StepArgumentError(`${request.step_type} args[${index}] is not valid JSON`);
  }
}

export function requireObject(value: unknown, what: string): Record<string, unknown> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new StepArgumentError(`${what} must be a JSON object`);
  return value as Record<string, unknown>;
}

export function requireString(object: Record<string, unknown>, key: string, what: string): string {
  const value = object[key];
  if (typeof value !== 'string' || value === '') throw new StepArgumentError(`${what} needs a non-empty "${key}"`);
  return value;
}

export function requireArray(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) throw new StepArgumentError(`${what} must be a JSON array`);
  return value;
}

/** Runs a step body, turning argument errors and anything unexpected into a reply: a step never throws. */
export async function guarded(request: StepRequest, context: StepContext, body: () => Promise<StepResult>): Promise<StepResult> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof StepArgumentError || error instanceof StepArgumentsError) return fail(error.message);
    const message = error instanceof Error ? error.message : String(error);
    context.log.error(`${request.step_type} failed unexpectedly`, { error: message });
    return fail(`${request.step_type} failed: ${message}`);
  }
}

/** context.exec with the step's abort signal. */
export function run(context: StepContext, command: string, args: readonly string[], options: CommandOptions = {}): Promise<CommandResult> {
  return context.exec(command, args, { signal: context.signal, ...options });
}

/** Whether a tool exists, asked the cheap way (its version), so a step can refuse before starting work. */
export async function toolPresent(context: StepContext, command: string, versionArgs: readonly string[] = ['--version']): Promise<boolean> {
  const result = await run(context, command, versionArgs, { timeoutMs: 10_000 });
  return !result.missing;
}

/**
 * Long checks (disk speed, image pulls, address scans) must not pile up when the service asks again
 * before the last run finished; upstream answers such a repeat with exit 0 and no output.
 */
export class SingleFlight {
  private readonly running = new Set<string>();

  async run(key: string, body: () => Promise<StepResult>): Promise<StepResult> {
    if (this.running.has(key)) return { exit_code: 0 };
    this.running.add(key);
    try {
      return await body();
    } finally {
      this.running.delete(key);
    }
  }
}

/** Runs `work` over `items` with at most `limit` at a time, results in input order. */
export async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
