/** Messages between the local runtime and one function instance (a worker thread). */

/** What a worker is started with: which handler of which module it serves. */
export interface InstanceSpec {
  functionName: string;
  entry: string;
  handler: string;
  /** Milliseconds a single invocation may run, as the Lambda timeout. */
  timeoutMs: number;
  /** Tests only: a module imported first in each instance, to register loader hooks that observe it. */
  instrumentation?: string;
}

export interface SerializedError {
  name: string;
  message: string;
  stack?: string;
}

export type ToInstance = { type: 'invoke'; id: number; event: unknown } | { type: 'port-result'; id: number; value?: unknown; error?: SerializedError };

export type FromInstance =
  | { type: 'ready'; cpuMs?: number }
  | { type: 'failed-to-start'; error: SerializedError }
  | { type: 'result'; id: number; value: unknown; cpuMs?: number }
  | { type: 'error'; id: number; error: SerializedError; cpuMs?: number }
  /** A call of a port whose local stand-in lives in the runtime's own thread (the DNS zones, SYNTHETIC base ISOs). */
  | { type: 'port-call'; id: number; port: RuntimePort; method: string; args: unknown[] };

/** Ports served by the runtime's thread, with the methods instances may call. */
export const RUNTIME_PORTS = { dns: ['upsert', 'remove', 'list'], syntheticBaseImages: ['provide'] } as const;
export type RuntimePort = keyof typeof RUNTIME_PORTS;

export function serializeError(error: unknown): SerializedError {
  if (error instanceof Error) return { name: error.name, message: error.message, ...(error.stack ? { stack: error.stack } : {}) };
  return { name: 'Error', message: String(error) };
}

/** An Error with the name and message the instance threw, as Lambda reports errorType and errorMessage. */
export function deserializeError(serialized: SerializedError): Error {
  const error = new Error(serialized.message);
  error.name = serialized.name;
  if (serialized.stack) error.stack = serialized.stack;
  return error;
}
