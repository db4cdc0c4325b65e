/** Child processes of tests that start the runtime as a person does (npm start), and what they leave behind. */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** The pids of DynamoDB Local Java processes whose command line names `directory` (its -dbPath). */
export function javaProcessesFor(directory: string): string[] {
  try {
    return execFileSync('pgrep', ['-f', `^java .*DynamoDBLocal.jar.*${directory}`], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean);
  } catch {
    return [];
  }
}

/**
 * The pids of processes (of this user) started with `entry` (NAME=value) in their environment: every
 * process a runtime starts (its workers' esbuild, DynamoDB Local's guard and Java, container tasks)
 * inherits its ASSISTED_DATA_DIR, whatever process group or namespace it is in.
 */
export function processesWithEnvironment(entry: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').includes(entry)) found.push(Number(name));
    } catch {
      // Gone meanwhile, a kernel thread, or another user's.
    }
  }
  return found;
}

/** SIGKILL to the process group of each child still running (spawned `detached`, so each leads one). */
export function killProcessGroups(children: readonly ChildProcess[]): void {
  for (const child of children) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Its group is gone already.
    }
  }
}

/** The child's exit code once it exits, or an error (with its output) when it still runs after `ms`. */
export function exitCode(child: ChildProcess, ms: number, output: () => string = () => ''): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise<number | null>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not exit in ${ms} ms:\n${output()}`)), ms);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}
