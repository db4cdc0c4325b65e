/**
 * Reading the host's /proc, /sys, /dev and /etc under an optional root, so the same code reads this
 * machine or a fake tree in a test. Every read answers `undefined` instead of throwing: a file that
 * is missing or unreadable is an ordinary answer about the host.
 */
import { open, readFile, readdir, readlink, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';

export class HostFiles {
  constructor(private readonly root: string = '/') {}

  /** The real location of an absolute host path. */
  resolve(hostPath: string): string {
    return this.root === '/' ? hostPath : join(this.root, hostPath);
  }

  async text(hostPath: string): Promise<string | undefined> {
    try {
      return await readFile(this.resolve(hostPath), 'utf8');
    } catch {
      return undefined;
    }
  }

  /** First line, trimmed; sysfs attributes are one value per file. */
  async value(hostPath: string): Promise<string | undefined> {
    const text = await this.text(hostPath);
    if (text === undefined) return undefined;
    return text.split('\n', 1)[0]?.trim();
  }

  async list(hostPath: string): Promise<string[]> {
    try {
      return (await readdir(this.resolve(hostPath))).sort();
    } catch {
      return [];
    }
  }

  async link(hostPath: string): Promise<string | undefined> {
    try {
      return await readlink(this.resolve(hostPath));
    } catch {
      return undefined;
    }
  }

  /** The host path a symlink chain ends at (root prefix removed again). */
  async canonical(hostPath: string): Promise<string | undefined> {
    try {
      const real = await realpath(this.resolve(hostPath));
      if (this.root === '/') return real;
      const rootReal = await realpath(this.root);
      return real.startsWith(rootReal) ? real.slice(rootReal.length) || '/' : real;
    } catch {
      return undefined;
    }
  }

  async exists(hostPath: string): Promise<boolean> {
    try {
      await stat(this.resolve(hostPath));
      return true;
    } catch {
      return false;
    }
  }

  /** The first `length` bytes, or undefined when the file cannot be opened or read (e.g. not root). */
  async head(hostPath: string, length: number): Promise<Uint8Array | undefined> {
    let handle: Awaited<ReturnType<typeof open>> | undefined;
    try {
      handle = await open(this.resolve(hostPath), 'r');
      const buffer = new Uint8Array(length);
      const { bytesRead } = await handle.read(buffer, 0, length, 0);
      return buffer.subarray(0, bytesRead);
    } catch {
      return undefined;
    } finally {
      await handle?.close().catch(() => undefined);
    }
  }
}
