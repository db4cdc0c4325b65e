/**
 * Container tasks of the embedded runtime (ECS Fargate tasks in AWS). Each task's image is what
 * lib/containers builds for Fargate: its entry bundled by esbuild, run by plain `node`. The bundle
 * is made once per runtime, in the background when the runtime warms its functions, so a task
 * starts in ~0.3 s instead of paying tsx's on-the-fly compilation (1–3 s on a busy machine) on an
 * installation's critical path.
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { esbuildOptions } from '../../lib/esbuild-options.js';
import type { ContainerSpec } from './functions.js';

export interface ContainerRun {
  exitCode: number;
  outputTail: string;
}

export class LocalContainerTasks {
  private readonly images = new Map<string, Promise<string>>();

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
   * Runs a task to completion as a child process, with the service's environment (the local
   * endpoints) plus the task's overrides, as Fargate would run the image. Its output goes to the
   * runtime's log with the task's name, like a CloudWatch log stream.
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
    return new Promise<ContainerRun>((resolve) => {
      const child = spawn(process.execPath, [entry], {
        env: { ...process.env, ...environment },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let tail = '';
      const take = (chunk: Buffer) => {
        const text = chunk.toString('utf8');
        tail = (tail + text).slice(-2_000);
        for (const line of text.split('\n').filter(Boolean)) this.log(`[${name}] ${line}`);
      };
      child.stdout.on('data', take);
      child.stderr.on('data', take);
      child.on('error', (error) => resolve({ exitCode: 127, outputTail: error.message }));
      child.on('close', (code) => resolve({ exitCode: code ?? 1, outputTail: tail.trim().split('\n').slice(-5).join(' / ') }));
    });
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
