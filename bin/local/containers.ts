/**
 * Container tasks of the embedded runtime (ECS Fargate tasks in AWS). Each task's image is what
 * lib/containers builds for Fargate: its entry bundled by esbuild, run by plain `node`. The bundle
 * is made once per runtime, in the background when the runtime warms its functions, so a task
 * starts in ~0.3 s instead of paying tsx's on-the-fly compilation (1–3 s on a busy machine) on an
 * installation's critical path.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { esbuildOptions } from '../../lib/esbuild-options.js';
import type { ContainerSpec } from './functions.js';

export interface ContainerRun {
  exitCode: number;
  outputTail: string;
}

type LauncherMessage = { id: number } & ({ type: 'output'; text: string } | { type: 'exit'; code: number } | { type: 'error'; message: string });

export class LocalContainerTasks {
  private readonly images = new Map<string, Promise<string>>();
  private running: ChildProcess | undefined;
  private nextRunId = 1;
  private readonly runs = new Map<number, { output(text: string): void; end(run: ContainerRun): void }>();

  constructor(
    private readonly specs: ContainerSpec[],
    private readonly projectRoot: string,
    /** Where the bundles are written (the runtime's data directory). */
    private readonly directory: string,
    private readonly log: (message: string) => void,
  ) {}

  /** Bundles every task's image now rather than on its first run. */
  prepareAll(): Promise<void> {
    return Promise.all(this.specs.map((spec) => this.image(spec).then(() => undefined, () => undefined))).then(() => undefined);
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
    const launcher = this.launcher();
    const id = this.nextRunId++;
    return new Promise<ContainerRun>((resolve) => {
      let tail = '';
      this.runs.set(id, {
        output: (text) => {
          tail = (tail + text).slice(-2_000);
          for (const line of text.split('\n').filter(Boolean)) this.log(`[${name}] ${line}`);
        },
        end: (run) => resolve(run.outputTail ? run : { ...run, outputTail: tail.trim().split('\n').slice(-5).join(' / ') }),
      });
      launcher.send({ type: 'run', id, command: process.execPath, args: [entry], env: { ...process.env, ...environment } });
    });
  }

  /** Stops the launcher; tasks still running are killed with it, and their runs end as failed. */
  async stop(): Promise<void> {
    const launcher = this.running;
    if (!launcher || launcher.exitCode !== null || launcher.signalCode !== null) return;
    const exited = new Promise((resolve) => launcher.once('exit', resolve));
    launcher.disconnect();
    const force = setTimeout(() => launcher.kill('SIGKILL'), 2_000);
    await exited;
    clearTimeout(force);
  }

  /** The process that starts tasks (bin/local/task-launcher.mjs), started on first need and again if it ever exits. */
  private launcher(): ChildProcess {
    if (this.running && this.running.exitCode === null && this.running.signalCode === null && this.running.connected) return this.running;
    const launcher = spawn(process.execPath, [path.join(import.meta.dirname, 'task-launcher.mjs')], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: process.env });
    launcher.on('message', (message: LauncherMessage) => {
      const run = this.runs.get(message.id);
      if (!run) return;
      if (message.type === 'output') return run.output(message.text);
      this.runs.delete(message.id);
      run.end(message.type === 'exit' ? { exitCode: message.code, outputTail: '' } : { exitCode: 127, outputTail: message.message });
    });
    launcher.once('exit', (code, signal) => {
      if (this.running === launcher) this.running = undefined;
      // Its tasks went with it (it kills them when it goes): each of their runs ends as failed.
      for (const [id, run] of this.runs) {
        this.runs.delete(id);
        run.end({ exitCode: 137, outputTail: `the task launcher exited (${signal ?? code}) while the task ran` });
      }
    });
    launcher.on('error', (error) => this.log(`task launcher: ${error.message}`));
    this.running = launcher;
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
