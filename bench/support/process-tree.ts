/** A process's children and descendants, from `pgrep -P` (for CPU and socket accounting of a process tree). */
import { execFileSync } from 'node:child_process';

/** The direct children of a process; none when it has none (pgrep exits 1) or is gone. */
export function childrenOf(pid: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** Every descendant of a process, each child followed by its own descendants. */
export function descendantsOf(pid: number): number[] {
  return childrenOf(pid).flatMap((child) => [child, ...descendantsOf(child)]);
}
