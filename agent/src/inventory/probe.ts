/**
 * What every part of the inventory needs: the command runner, the host's files and a log that
 * says once per collection when a tool or file is missing and what is used instead.
 */
import type { AgentLog } from '../contracts.js';
import type { CommandRunner } from '../exec.js';
import { HostFiles } from './host-files.js';

export class InventoryProbe {
  readonly files: HostFiles;
  private readonly warned = new Set<string>();

  constructor(
    readonly exec: CommandRunner,
    readonly log: AgentLog,
    root = '/',
  ) {
    this.files = new HostFiles(root);
  }

  /** One warning per subject per collection, however many parts run into the same gap. */
  warnOnce(subject: string, message: string, fields?: Record<string, unknown>): void {
    if (this.warned.has(subject)) return;
    this.warned.add(subject);
    this.log.warn(message, fields);
  }

  /**
   * A tool's stdout, or undefined (with one warning naming the tool and the fallback) when it is not
   * installed or fails. `acceptExit` lists exit codes that still carry a usable answer.
   */
  async tool(command: string, args: readonly string[], fallback: string, acceptExit: readonly number[] = [0]): Promise<string | undefined> {
    const result = await this.exec(command, args, { timeoutMs: 30_000 });
    if (result.missing) {
      this.warnOnce(command, `${command} is not installed; ${fallback}`);
      return undefined;
    }
    if (result.timedOut || !acceptExit.includes(result.exitCode)) {
      const reason = result.timedOut ? 'timed out' : `exited ${result.exitCode}`;
      this.warnOnce(command, `${command} ${args.join(' ')} ${reason}; ${fallback}`, { stderr: result.stderr.trim().slice(0, 500) });
      return undefined;
    }
    return result.stdout;
  }
}

/** `{ [key]: value }` when the value says something, else nothing: spread into an inventory entry, a blank field is left out. */
export function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value ? ({ [key]: value } as Record<K, string>) : {};
}
