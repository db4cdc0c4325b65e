/** Captured command outputs (test/fixtures/agent-outputs) and a CommandRunner that replays them. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AgentLog } from '../../../agent/src/contracts.js';
import type { CommandResult, CommandRunner } from '../../../agent/src/exec.js';

export const FIXTURES = fileURLToPath(new URL('../../fixtures/agent-outputs/', import.meta.url));
export const fixture = (name: string) => readFileSync(`${FIXTURES}${name}`, 'utf8');

export const ok = (stdout: string): CommandResult => ({ exitCode: 0, stdout, stderr: '' });
export const exited = (exitCode: number, stdout = '', stderr = ''): CommandResult => ({ exitCode, stdout, stderr });
export const MISSING: CommandResult = { exitCode: 127, stdout: '', stderr: 'not found', missing: true };

export interface ScriptedRunner extends CommandRunner {
  readonly calls: string[][];
}

/**
 * Answers each command line from the first rule whose key prefixes it ("lsblk", "ip -j -d addr");
 * a command no rule names is reported missing, as on a host without that tool.
 */
export function scriptedRunner(rules: Record<string, CommandResult | ((args: readonly string[]) => CommandResult)>): ScriptedRunner {
  const calls: string[][] = [];
  const runner = (async (command: string, args: readonly string[]) => {
    calls.push([command, ...args]);
    const line = [command, ...args].join(' ');
    const key = Object.keys(rules)
      .sort((a, b) => b.length - a.length)
      .find((candidate) => line === candidate || line.startsWith(`${candidate} `));
    if (key === undefined) return MISSING;
    const rule = rules[key];
    return typeof rule === 'function' ? rule(args) : rule!;
  }) as ScriptedRunner;
  Object.defineProperty(runner, 'calls', { value: calls });
  return runner;
}

/** Every command reports "not installed". */
export const nothingInstalled: CommandRunner = async () => MISSING;

export interface RecordingLog extends AgentLog {
  readonly warnings: string[];
}

export function recordingLog(): RecordingLog {
  const warnings: string[] = [];
  return {
    warnings,
    debug: () => undefined,
    info: () => undefined,
    warn: (message) => void warnings.push(message),
    error: (message) => void warnings.push(`error: ${message}`),
  };
}
