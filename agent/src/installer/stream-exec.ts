/**
 * Runs a command while its output is still arriving. The agent's CommandRunner (exec.ts) returns output
 * only at exit, but image writing takes minutes and its progress must reach the service as it happens.
 */
import { spawnWatched } from '../exec.js';

export interface StreamedCommandOptions {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  readonly env?: NodeJS.ProcessEnv;
  /** Called with every chunk of stdout and stderr text as it arrives. */
  readonly onOutput: (chunk: string) => void;
}

export interface StreamedCommandResult {
  readonly exitCode: number;
  /** The last few KiB of stderr (and stdout), for the error message. */
  readonly tail: string;
  readonly missing?: boolean;
  readonly timedOut?: boolean;
}

const TAIL_BYTES = 4096;

export function runStreamed(command: string, args: readonly string[], options: StreamedCommandOptions): Promise<StreamedCommandResult> {
  return new Promise((resolve) => {
    let tail = '';
    const { child, timedOut, settle } = spawnWatched(command, args, {
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      env: options.env,
      stdin: 'ignore',
    });
    const finish = (result: StreamedCommandResult) => {
      if (settle()) resolve(result);
    };
    const onChunk = (chunk: string) => {
      tail = (tail + chunk).slice(-TAIL_BYTES);
      options.onOutput(chunk);
    };
    child.stdout?.setEncoding('utf8').on('data', onChunk);
    child.stderr?.setEncoding('utf8').on('data', onChunk);
    child.on('error', (error: NodeJS.ErrnoException) => {
      finish({ exitCode: 127, tail: `${command}: ${error.message}`, missing: error.code === 'ENOENT' });
    });
    child.on('close', (code, signal) => {
      finish({ exitCode: code ?? (signal ? 128 : 1), tail, ...(timedOut() ? { timedOut: true } : {}) });
    });
  });
}
