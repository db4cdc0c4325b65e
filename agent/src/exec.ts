/**
 * Running host commands. Every probe goes through a CommandRunner so parsers are testable on
 * captured output and a missing tool is an answer ("not installed"), never a crash.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface CommandResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
  /** The executable was not found (ENOENT): the tool is not installed on this host. */
  readonly missing?: boolean;
  /** Killed because the timeout passed or the signal aborted. */
  readonly timedOut?: boolean;
}

export interface CommandOptions {
  readonly timeoutMs?: number;
  readonly input?: string | Uint8Array;
  readonly signal?: AbortSignal;
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
}

export type CommandRunner = (command: string, args: readonly string[], options?: CommandOptions) => Promise<CommandResult>;

const DEFAULT_TIMEOUT_MS = 60_000;
/** Output beyond this is cut: a runaway tool must not take the agent's memory. */
const MAX_OUTPUT_BYTES = 32 * 1024 * 1024;

export interface WatchedChild {
  readonly child: ChildProcess;
  /** Whether the watch killed it (timeout or abort). */
  readonly timedOut: () => boolean;
  /** Ends the watch; true the first time only, so a result is given once whatever ends the command. */
  readonly settle: () => boolean;
}

/**
 * Spawns a command that is killed (SIGKILL) once its timeout passes or the signal aborts: the one
 * watch both the step commands here and the installer's streamed commands run under.
 */
export function spawnWatched(
  command: string,
  args: readonly string[],
  options: { timeoutMs: number; signal?: AbortSignal; env?: NodeJS.ProcessEnv; cwd?: string; stdin: 'pipe' | 'ignore' },
): WatchedChild {
  let timedOut = false;
  let settled = false;
  const child = spawn(command, [...args], { env: options.env ?? process.env, cwd: options.cwd, stdio: [options.stdin, 'pipe', 'pipe'] });
  const kill = () => {
    timedOut = true;
    child.kill('SIGKILL');
  };
  const timer = setTimeout(kill, options.timeoutMs);
  options.signal?.addEventListener('abort', kill, { once: true });
  if (options.signal?.aborted) kill();
  return {
    child,
    timedOut: () => timedOut,
    settle: () => {
      if (settled) return false;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', kill);
      return true;
    },
  };
}

export const runCommand: CommandRunner = (command, args, options = {}) =>
  new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let outBytes = 0;
    const { child, timedOut, settle } = spawnWatched(command, args, {
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      signal: options.signal,
      env: options.env,
      cwd: options.cwd,
      stdin: 'pipe',
    });
    const finish = (result: CommandResult) => {
      if (settle()) resolve(result);
    };
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      outBytes += chunk.length;
      if (outBytes <= MAX_OUTPUT_BYTES) stdout += chunk;
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < 1024 * 1024) stderr += chunk;
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      finish({ exitCode: 127, stdout, stderr: stderr || `${command}: ${error.message}`, missing: error.code === 'ENOENT' });
    });
    child.on('close', (code, signal) => {
      finish({ exitCode: code ?? (signal ? 128 : 1), stdout, stderr, ...(timedOut() ? { timedOut: true } : {}) });
    });
    child.stdin?.on('error', () => undefined);
    if (options.input !== undefined) child.stdin?.end(options.input);
    else child.stdin?.end();
  });
