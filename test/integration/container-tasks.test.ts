/**
 * The embedded runtime's container tasks (bin/local/containers.ts): each task is a process of its
 * own, started by the task launcher (bin/local/task-launcher.mjs) rather than forked from the
 * runtime, with its output in the runtime's log, its exit code as the run's outcome, and nothing
 * left running once the runtime stops.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
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

  /** The pid a task printed first, once it is running. */
  async function startedTaskPid(after: number): Promise<number> {
    for (let attempt = 0; attempt < 200; attempt++) {
      const line = logged.slice(after).find((entry) => /^\[greeter\] pid \d+$/.test(entry));
      if (line) return Number(line.split(' ').at(-1));
      await sleep(50);
    }
    throw new Error('the task never printed its pid');
  }
  async function gone(pid: number): Promise<boolean> {
    for (let attempt = 0; attempt < 100 && alive(pid); attempt++) await sleep(50);
    return !alive(pid);
  }
  const launcherPids = () =>
    readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .filter((pid) => {
        try {
          return (
            readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('task-launcher.mjs') &&
            readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1] === String(process.pid)
          );
        } catch {
          return false;
        }
      })
      .map(Number);

  it('answers an unknown task with 127; a launcher that is terminated takes its tasks with it, and the next run starts another', async () => {
    expect(await tasks.run('nonesuch', {})).toMatchObject({ exitCode: 127 });
    const before = logged.length;
    const long = tasks.run('greeter', { TASK_WAIT_MS: '30000', TASK_GREETING: 'the long one' });
    const pid = await startedTaskPid(before);
    const [launcher] = launcherPids();
    expect(launcher, 'one launcher, a child of this process').toBeDefined();
    process.kill(launcher!, 'SIGTERM');
    expect((await long).exitCode).toBe(137);
    expect(await gone(pid), 'the task was killed with its launcher').toBe(true);
    expect((await tasks.run('greeter', { TASK_GREETING: 'after the launcher went' })).exitCode).toBe(0);
    expect(launcherPids()).not.toContain(launcher);
  }, 60_000);

  it('stops: what runs is killed, and nothing is started after', async () => {
    const before = logged.length;
    const long = tasks.run('greeter', { TASK_WAIT_MS: '30000', TASK_GREETING: 'the last one' });
    const pid = await startedTaskPid(before);
    await tasks.stop();
    expect((await long).exitCode).not.toBe(0);
    expect(await gone(pid), 'the task was killed with the launcher').toBe(true);
    expect(await tasks.run('greeter', {})).toMatchObject({ exitCode: 137, outputTail: expect.stringMatching(/stopping/) });
    expect(launcherPids()).toEqual([]);
  }, 60_000);
});
