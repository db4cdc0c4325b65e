/**
 * Container tasks of the embedded runtime (ECS Fargate tasks in AWS). Each task's image is what
 * lib/containers builds for Fargate: its entry bundled by esbuild, run by plain `node`. The bundle
 * is made once per runtime, in the background when the runtime warms its functions, so a task
 * starts without paying tsx's on-the-fly compilation on an installation's critical path.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { esbuildOptions } from '../../lib/esbuild-options.js';
import type { ContainerSpec } from '../../lib/catalogue.js';

export interface ContainerRun {
  exitCode: number;
  outputTail: string;
}

type LauncherMessage = { id: number } & ({ type: 'output'; text: string } | { type: 'exit'; code: number } | { type: 'error'; message: string });

interface PendingRun {
  output(text: string): void;
  end(run: ContainerRun): void;
}

/** A launcher process and the runs sent to it: only its own runs end when it goes. */
interface Launcher {
  process: ChildProcess;
  runs: Map<number, PendingRun>;
}

/** Neither exited nor killed. */
const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

export class LocalContainerTasks {
  private readonly images = new Map<string, Promise<string>>();
  private current: Launcher | undefined;
  private nextRunId = 1;
  private stopped = false;

  constructor(
    private readonly specs: ContainerSpec[],
    private readonly projectRoot: string,
    /** Where the bundles are written (the runtime's data directory). */
    private readonly directory: string,
    private readonly log: (message: string) => void,
  ) {}

  /** Bundles every task's image now rather than on its first run. */
  prepareAll(): Promise<void> {
    return Promise.all(
      this.specs.map((spec) =>
        this.image(spec).then(
          () => undefined,
          () => undefined,
        ),
      ),
    ).then(() => undefined);
  }

  /**
   * Runs a task to completion as a process of its own (started by the task launcher), with the
   * service's environment (the local endpoints) plus the task's overrides, as Fargate would run
   * the image. Its output goes to the runtime's log with the task's name, like a CloudWatch log stream.
   */
  async run(name: string, environment: Record<string, string>): Promise<ContainerRun> {
    const spec = this.specs.find((candidate) => candidate.name === name);
    if (!spec) return { exitCode: 127, outputTail: `no container task named ${name} in lambdas/functions.json` };
    let entry: string;
    try {
      entry = await this.image(spec);
    } catch (error) {
      return { exitCode: 125, outputTail: `the image of ${name} could not be built from ${spec.entry}: ${(error as Error).message}` };
    }
    if (this.stopped) return { exitCode: 137, outputTail: `the runtime is stopping: ${name} was not started` };
    const launcher = this.launcher();
    const id = this.nextRunId++;
    return new Promise<ContainerRun>((resolve) => {
      let tail = '';
      launcher.runs.set(id, {
        output: (text) => {
          tail = (tail + text).slice(-2_000);
          for (const line of text.split('\n').filter(Boolean)) this.log(`[${name}] ${line}`);
        },
        end: (run) => resolve(run.outputTail ? run : { ...run, outputTail: tail.trim().split('\n').slice(-5).join(' / ') }),
      });
      // The function's name, as a function's SDK clients carry it (bin/local/functions.ts), for the emulators' counts.
      // Node's compile cache beside the bundles: every run of a task after its first reads the bundle's
      // compiled code from there instead of compiling it again (the cache notices a rebuilt bundle).
      const env = { ...process.env, AWS_SDK_UA_APP_ID: name, NODE_COMPILE_CACHE: path.join(this.directory, 'compile-cache'), ...environment };
      launcher.process.send({ type: 'run', id, command: process.execPath, args: [entry], env });
    });
  }

  /** Stops the launcher and starts no other; tasks still running are killed with it, and their runs end as failed. */
  async stop(): Promise<void> {
    this.stopped = true;
    const launcher = this.current?.process;
    if (!launcher || !running(launcher) || launcher.pid === undefined) return;
    const exited = new Promise((resolve) => launcher.once('exit', resolve));
    if (launcher.connected) launcher.disconnect();
    const force = setTimeout(() => launcher.kill('SIGKILL'), 2_000);
    await exited;
    clearTimeout(force);
  }

  /** The process that starts tasks (bin/local/task-launcher.mjs), started on first need and again once one has gone. */
  private launcher(): Launcher {
    const current = this.current;
    if (current && running(current.process) && current.process.connected) return current;
    const child = spawn(process.execPath, [path.join(import.meta.dirname, 'task-launcher.mjs')], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: process.env,
    });
    const launcher: Launcher = { process: child, runs: new Map() };
    child.on('message', (message: LauncherMessage) => {
      const run = launcher.runs.get(message.id);
      if (!run) return;
      if (message.type === 'output') return run.output(message.text);
      launcher.runs.delete(message.id);
      run.end(message.type === 'exit' ? { exitCode: message.code, outputTail: '' } : { exitCode: 127, outputTail: message.message });
    });
    // Its tasks went with it (it kills them when it goes), or it never started (a spawn that fails
    // has an 'error' and no 'exit'): each of its runs ends as failed.
    const gone = (why: string) => {
      if (this.current === launcher) this.current = undefined;
      for (const [id, run] of launcher.runs) {
        launcher.runs.delete(id);
        run.end({ exitCode: 137, outputTail: `the task launcher ${why} while the task ran` });
      }
    };
    child.once('exit', (code, signal) => gone(`exited (${signal ?? code})`));
    child.on('error', (error) => {
      this.log(`task launcher: ${error.message}`);
      if (child.pid === undefined) gone(`could not be started (${error.message})`);
    });
    // A launcher whose channel closed takes no more runs: the next one starts a new launcher.
    child.once('disconnect', () => {
      if (this.current === launcher) this.current = undefined;
    });
    this.current = launcher;
    return launcher;
  }

  /** The bundled entry of a task, built on first need; a failed build is tried again next time. */
  private image(spec: ContainerSpec): Promise<string> {
    let image = this.images.get(spec.name);
    if (!image) {
      const outfile = path.join(this.directory, `${spec.name}.mjs`);
      mkdirSync(this.directory, { recursive: true, mode: 0o700 });
      const started = performance.now();
      image = build(esbuildOptions(this.projectRoot, spec.entry, outfile, false)).then(() => {
        this.log(`container image ${spec.name}: ${spec.entry} bundled in ${Math.round(performance.now() - started)} ms`);
        return outfile;
      });
      image.catch(() => this.images.delete(spec.name));
      this.images.set(spec.name, image);
    }
    return image;
  }
}
