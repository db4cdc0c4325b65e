/**
 * The agent's log: one line per event, `time level message key=value…`, to stdout (which systemd
 * puts in the journal) and optionally to a text file. Field values that look like credentials are
 * never written.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import type { AgentLog } from './contracts.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const SECRET_FIELD = /token|secret|password|passwd|authorization|pull_?secret|credential/i;

export interface LogOptions {
  readonly level?: LogLevel;
  /** Write lines to stdout (default true when no other sink is chosen). */
  readonly stdout?: boolean;
  /** Also append lines to this file (upstream's --with-text-logging). */
  readonly textFile?: string;
  /** Where lines go instead of stdout/file (tests, benchmarks). */
  readonly sink?: (line: string) => void;
  readonly fields?: Record<string, unknown>;
}

export interface RootLog extends AgentLog {
  child(fields: Record<string, unknown>): RootLog;
  close(): Promise<void>;
}

export function isLogLevel(value: string): value is LogLevel {
  return value in RANK;
}

function formatValue(key: string, value: unknown): string {
  if (SECRET_FIELD.test(key)) return '[redacted]';
  if (value instanceof Error) value = value.message;
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return /[\s"=]/.test(text) || text === '' ? JSON.stringify(text) : text;
}

export function formatLine(level: LogLevel, message: string, fields: Record<string, unknown>): string {
  const parts = [new Date().toISOString(), level.padEnd(5), message];
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    parts.push(`${key}=${formatValue(key, value)}`);
  }
  return parts.join(' ');
}

export function createLog(options: LogOptions = {}): RootLog {
  const threshold = RANK[options.level ?? 'info'];
  let file: WriteStream | undefined;
  const sinks: ((line: string) => void)[] = [];
  if (options.sink) sinks.push(options.sink);
  if (options.textFile) {
    file = createWriteStream(options.textFile, { flags: 'a', mode: 0o600 });
    file.on('error', (error) => {
      // A log file we cannot write must not stop the agent; say so once where it can be seen.
      process.stdout.write(
        `${formatLine('warn', 'text log file is not writable; logging to stdout only', { file: options.textFile, error: error.message })}\n`,
      );
      file = undefined;
    });
    sinks.push((line) => file?.write(`${line}\n`));
  }
  if (options.stdout ?? sinks.length === 0) sinks.push((line) => process.stdout.write(`${line}\n`));

  const make = (base: Record<string, unknown>): RootLog => {
    const emit = (level: LogLevel, message: string, fields?: Record<string, unknown>) => {
      if (RANK[level] < threshold) return;
      const line = formatLine(level, message, { ...base, ...fields });
      for (const sink of sinks) sink(line);
    };
    return {
      debug: (message, fields) => emit('debug', message, fields),
      info: (message, fields) => emit('info', message, fields),
      warn: (message, fields) => emit('warn', message, fields),
      error: (message, fields) => emit('error', message, fields),
      child: (fields) => make({ ...base, ...fields }),
      close: () => new Promise<void>((resolve) => (file ? file.end(resolve) : resolve())),
    };
  };
  return make(options.fields ?? {});
}
