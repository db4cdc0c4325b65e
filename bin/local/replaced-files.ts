/**
 * State files of the embedded runtime's stand-ins (executions, stream checkpoints, DNS zones,
 * accounts) are replaced whole: written to a temporary file, then renamed over the old one, so a
 * reader or a restart finds the old contents or the new, never a part of either.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface ReplaceOptions {
  /** Permission bits of a newly written file (default: the process's umask applied to 0o666). */
  mode?: number;
}

/** Replaces `file` with `contents` before returning: for rare writes a caller relies on at once. */
export function replaceFileSync(file: string, contents: string, options: ReplaceOptions = {}): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, contents, options.mode === undefined ? {} : { mode: options.mode });
  renameSync(temporary, file);
}

/**
 * Replaces files off the event loop, for state written at every step (an execution entering a state,
 * a stream checkpoint): a synchronous write and rename per step held the runtime's thread, which
 * also answers every API request, for a large share of its time under a fleet's load.
 *
 * At most one write per file is in flight, and each writes the newest contents asked for by then:
 * asks that arrive meanwhile are folded into one later write, and an older write can never land
 * after a newer one. The file lags its state by the writes in flight, so a process killed mid-step
 * resumes from a slightly earlier step; what is resumed that way runs again, which everything
 * driven by these files tolerates (tasks and deliveries are at least once). `flush()` waits until
 * every file holds its newest contents (at a stop).
 */
export class FileReplacer {
  private readonly pending = new Map<string, () => string>();
  private readonly writing = new Map<string, Promise<void>>();
  private failure?: Error;

  constructor(private readonly onError: (file: string, error: Error) => void = () => undefined) {}

  /** Asks for `file` to hold what `contents()` returns when its write starts. */
  replace(file: string, contents: () => string): void {
    this.pending.set(file, contents);
    if (!this.writing.has(file)) this.writing.set(file, this.drain(file));
  }

  /** Resolves once every file asked for so far holds its newest contents; rejects if a write failed. */
  async flush(): Promise<void> {
    while (this.writing.size > 0) await Promise.all(this.writing.values());
    const failure = this.failure;
    this.failure = undefined;
    if (failure) throw failure;
  }

  private async drain(file: string): Promise<void> {
    try {
      for (let contents = this.pending.get(file); contents; contents = this.pending.get(file)) {
        this.pending.delete(file);
        const temporary = `${file}.${process.pid}.tmp`;
        try {
          await mkdir(path.dirname(file), { recursive: true });
          await writeFile(temporary, contents());
          await rename(temporary, file);
        } catch (error) {
          this.failure ??= error as Error;
          this.onError(file, error as Error);
        }
      }
    } finally {
      this.writing.delete(file);
    }
  }
}
