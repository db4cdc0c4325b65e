/** Child processes of tests that start the runtime as a person does (npm start), and what they leave behind. */
import { execFileSync, type ChildProcess } from 'node:child_process';

/** The pids of DynamoDB Local Java processes whose command line names `directory` (its -dbPath). */
export function javaProcessesFor(directory: string): string[] {
  try {
    return execFileSync('pgrep', ['-f', `^java .*DynamoDBLocal.jar.*${directory}`], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
  } catch {
    return [];
  }
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
