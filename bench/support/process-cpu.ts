/** Processes' CPU time as the kernel counts it (/proc/<pid>/stat), for benches that measure a phase. */
import { readFileSync } from 'node:fs';

/** Linux's USER_HZ: /proc times are in these ticks. */
const TICKS_PER_SECOND = 100;

/** CPU ticks (user + system) of each live process. */
export function cpuTicks(pids: readonly number[]): Map<number, number> {
  const ticks = new Map<number, number>();
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks.set(pid, Number(fields[11]) + Number(fields[12]));
    } catch {
      // Gone.
    }
  }
  return ticks;
}

/** CPU ms spent between two readings; a process that appeared meanwhile counts from zero. */
export function cpuMsBetween(before: Map<number, number>, after: Map<number, number>): number {
  let ticks = 0;
  for (const [pid, now] of after) ticks += Math.max(0, now - (before.get(pid) ?? 0));
  return (ticks / TICKS_PER_SECOND) * 1000;
}
