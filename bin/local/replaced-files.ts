/**
 * State files of the embedded runtime's stand-ins (executions, stream checkpoints, DNS zones,
 * accounts) are replaced whole: written to a temporary file, then renamed over the old one, so a
 * reader or a restart finds the old contents or the new, never a part of either.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, rename, unlink, writeFile } from 'node:fs/promises';
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
 * after a newer one. `replace` answers once the file holds contents at least as new as the ask's:
 * what a caller tells others has happened (an execution started or stopped, a callback taken) it
 * awaits; a step it can redo it need not, and then a process killed mid-step resumes from a
 * slightly earlier step. A failed write is tried again by the next ask for that file, or by
 * `flush()`, which waits until every file holds its newest contents and throws for the files that
 * still cannot be written. After `close()` nothing more is written: a stopped runtime's files belong
 * to whoever starts on the directory next.
 */
export class FileReplacer {
  private readonly pending = new Map<string, { contents: () => string; waiters: Waiter[] }>();
  private readonly writing = new Map<string, Promise<void>>();
  private readonly failed = new Map<string, { contents: () => string; error: Error }>();
  private readonly directories = new Set<string>();
  private closed = false;

  constructor(private readonly onError: (file: string, error: Error) => void = () => undefined) {}

  /** Asks for `file` to hold what `contents()` returns when its write starts; resolves once it does. */
  replace(file: string, contents: () => string): Promise<void> {
    if (this.closed) return Promise.resolve();
    const ask = this.pending.get(file) ?? { contents, waiters: [] };
    ask.contents = contents;
    const written = new Promise<void>((resolve, reject) => ask.waiters.push({ resolve, reject }));
    // Callers that do not await must not leave an unhandled rejection behind; the error is reported by onError and flush.
    written.catch(() => undefined);
    this.pending.set(file, ask);
    if (!this.writing.has(file)) this.writing.set(file, this.drain(file));
    return written;
  }

  /** Resolves once every file asked for holds its newest contents; throws naming those that could not be written. */
  async flush(): Promise<void> {
    await this.settled();
    for (const [file, { contents }] of [...this.failed]) void this.replace(file, contents);
    await this.settled();
    if (this.failed.size > 0) {
      const [file, { error }] = [...this.failed][0]!;
      throw new Error(`${this.failed.size} state file(s) could not be written, ${path.basename(file)} among them: ${error.message}`);
    }
  }

  /** Until no write is in flight, including those asked for while waiting. */
  private async settled(): Promise<void> {
    while (this.writing.size > 0) await Promise.all(this.writing.values());
  }

  /** Writes what is asked for, then refuses further asks. */
  async close(): Promise<void> {
    try {
      await this.flush();
    } finally {
      this.closed = true;
    }
  }

  private async drain(file: string): Promise<void> {
    try {
      for (let ask = this.pending.get(file); ask; ask = this.pending.get(file)) {
        this.pending.delete(file);
        const temporary = `${file}.${process.pid}.tmp`;
        try {
          const directory = path.dirname(file);
          if (!this.directories.has(directory)) {
            await mkdir(directory, { recursive: true });
            this.directories.add(directory);
          }
          await writeFile(temporary, ask.contents());
          await rename(temporary, file);
          this.failed.delete(file);
          for (const waiter of ask.waiters) waiter.resolve();
        } catch (error) {
          await unlink(temporary).catch(() => undefined);
          this.failed.set(file, { contents: ask.contents, error: error as Error });
          try {
            this.onError(file, error as Error);
          } catch {
            // Reporting must not stop the writes of other asks.
          }
          for (const waiter of ask.waiters) waiter.reject(error);
        }
      }
    } finally {
      this.writing.delete(file);
    }
  }
}

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

/** Removes temporaries a killed process left beside its state files (they never replaced anything). */
export function removeLeftoverTemporaries(directory: string): void {
  for (const name of existsSync(directory) ? readdirSync(directory) : []) {
    if (/\.\d+\.tmp$/.test(name)) rmSync(path.join(directory, name), { force: true });
  }
}
