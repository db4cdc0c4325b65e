/**
 * The embedded runtime's container tasks (bin/local/containers.ts): each task is a process of its
 * own, started by the task launcher (bin/local/task-launcher.mjs) rather than forked from the
 * runtime, with its output in the runtime's log, its exit code as the run's outcome, and nothing
 * left running once the runtime stops.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalContainerTasks } from '../../bin/local/containers.js';

const projectRoot = path.resolve(import.meta.dirname, '../..');
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('local container tasks', () => {
  let directory: string;
  let tasks: LocalContainerTasks;
  const logged: string[] = [];

  beforeAll(async () => {
    directory = mkdtempSync(path.join(tmpdir(), 'assisted-tasks-'));
    tasks = new LocalContainerTasks([{ name: 'greeter', entry: 'test/fixtures/container-tasks/task.ts' }], projectRoot, directory, (line) => logged.push(line));
    await tasks.prepareAll();
  }, 60_000);

  afterAll(async () => {
    await tasks.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  it('runs tasks side by side, each with its environment, its output logged under its name, its exit code reported', async () => {
    const runs = await Promise.all([0, 3, 0, 5].map((code, i) => tasks.run('greeter', { TASK_EXIT_CODE: String(code), TASK_GREETING: `run ${i}` })));
    expect(runs.map((run) => run.exitCode)).toEqual([0, 3, 0, 5]);
    expect(runs[1]!.outputTail).toMatch(/hello from run 1/);
    for (const i of [0, 1, 2, 3]) expect(logged).toContain(`[greeter] hello from run ${i}`);
  }, 60_000);

  it('answers an unknown task with 127 and runs again after the runtime stopped, killing what was running', async () => {
    expect(await tasks.run('nonesuch', {})).toMatchObject({ exitCode: 127 });
    const long = tasks.run('greeter', { TASK_WAIT_MS: '30000', TASK_GREETING: 'the long one' });
    let pid: number | undefined;
    for (let attempt = 0; attempt < 200 && pid === undefined; attempt++) {
      const line = logged.find((entry) => /^\[greeter\] pid \d+$/.test(entry) && alive(Number(entry.split(' ').at(-1))));
      if (line) pid = Number(line.split(' ').at(-1));
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(pid, 'the long task started').toBeDefined();
    await tasks.stop();
    const ended = await long;
    expect(ended.exitCode).not.toBe(0);
    for (let attempt = 0; attempt < 100 && alive(pid!); attempt++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(alive(pid!), 'the task was killed with the launcher').toBe(false);
    expect((await tasks.run('greeter', { TASK_GREETING: 'after the stop' })).exitCode).toBe(0);
  }, 60_000);
});
