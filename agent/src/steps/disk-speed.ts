/**
 * installation-disk-speed-check: etcd's question of a disk — how long does fdatasync take at the 99th
 * percentile — answered by two concurrent fio runs writing small blocks to the device, the worst
 * result counting. (It writes to the raw device, as upstream does: the service asks only for the
 * disk it will install to.)
 */
import type { StepContext, StepRequest, StepResult } from '../contracts.js';
import { parseFio } from './parsers/fio.js';
import { fail, guarded, run, stepRequest, succeed, toolMissing, SingleFlight } from './support.js';

const RUNS = 2;

const checks = new SingleFlight();

/** fio splits --filename on ':', so colons in the path (by-path names) are escaped. */
export const fioFilename = (path: string) => path.replaceAll(':', '\\:');

export function fioArguments(path: string): string[] {
  return ['--filename', fioFilename(path), '--name=test', '--rw=write', '--ioengine=sync', '--size=22m', '-bs=2300', '--fdatasync=1', '--output-format=json'];
}

export async function installationDiskSpeedCheck(request: StepRequest, context: StepContext): Promise<StepResult> {
  return guarded(request, context, async () => {
    const { path, timeout_seconds: timeoutSeconds } = stepRequest('installation-disk-speed-check', request);
    return checks.run(path, async () => {
      const results = await Promise.all(Array.from({ length: RUNS }, () => run(context, 'fio', fioArguments(path), { timeoutMs: timeoutSeconds * 1000 })));
      if (results.some((result) => result.missing)) return toolMissing('fio', 'installation-disk-speed-check', 'measure fdatasync latency');
      const errors: string[] = [];
      const latencies: number[] = [];
      for (const result of results) {
        if (result.timedOut) {
          errors.push(`fio did not finish within ${timeoutSeconds} s`);
          continue;
        }
        const parsed = parseFio(result.stdout);
        if (parsed.ok && result.exitCode === 0) latencies.push(parsed.syncP99Ns);
        else
          errors.push(
            parsed.ok ? `fio exited ${result.exitCode}: ${result.stderr.trim()}` : `${parsed.error}${result.stderr.trim() ? `: ${result.stderr.trim()}` : ''}`,
          );
      }
      if (latencies.length === 0) return fail(`disk speed check of ${path} failed: ${errors.join('; ')}`);
      if (errors.length > 0) context.log.warn('one disk speed run failed; the other counts', { path, errors });
      return succeed('installation-disk-speed-check', { io_sync_duration: Math.floor(Math.max(...latencies) / 1_000_000), path });
    });
  });
}
