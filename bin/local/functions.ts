import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import type { Context } from 'aws-lambda';

export interface FunctionSpec {
  name: string;
  entry: string;
  handler: string;
  kind: 'api' | 'task' | 'monitor';
  description?: string;
}

export interface StateMachineSpec {
  name: string;
  definition: string;
  substitutions: Record<string, string>;
}

export interface ScheduleSpec {
  name: string;
  function: string;
  /** EventBridge Scheduler expression: `rate(N unit)` or `cron(...)`. */
  expression: string;
}

/** A container task (ECS Fargate in AWS): a program run to completion with its environment. */
export interface ContainerSpec {
  name: string;
  entry: string;
  description?: string;
}

export interface ServiceCatalogue {
  functions: FunctionSpec[];
  containers?: ContainerSpec[];
  stateMachines: StateMachineSpec[];
  schedules: ScheduleSpec[];
}

export const projectRoot = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');

export function loadCatalogue(root = projectRoot): ServiceCatalogue {
  return JSON.parse(readFileSync(path.join(root, 'lambdas', 'functions.json'), 'utf8')) as ServiceCatalogue;
}

export type LambdaHandler = (event: unknown, context: Context) => Promise<unknown>;

/** A Lambda context like the one AWS passes, for handlers run in this process. */
export function lambdaContext(functionName: string, timeoutMs = 900_000): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** Invokes the same handler modules the Lambda bundles export, loading each on first use. */
export class LocalFunctions {
  private readonly loaded = new Map<string, Promise<LambdaHandler>>();
  private readonly specs: Map<string, FunctionSpec>;

  constructor(
    specs: FunctionSpec[],
    private readonly root = projectRoot,
    private readonly extra: Record<string, LambdaHandler> = {},
  ) {
    this.specs = new Map(specs.map((spec) => [spec.name, spec]));
  }

  has(name: string): boolean {
    return this.specs.has(name) || name in this.extra;
  }

  private load(name: string): Promise<LambdaHandler> {
    const extra = this.extra[name];
    if (extra) return Promise.resolve(extra);
    let handler = this.loaded.get(name);
    if (!handler) {
      const spec = this.specs.get(name);
      if (!spec) throw new Error(`no function named ${name}`);
      handler = import(pathToFileURL(path.join(this.root, spec.entry)).href).then((module) => {
        const exported = module[spec.handler] as LambdaHandler | undefined;
        if (typeof exported !== 'function') throw new Error(`${spec.entry} does not export ${spec.handler}`);
        return exported;
      });
      this.loaded.set(name, handler);
    }
    return handler;
  }

  async invoke(name: string, event: unknown): Promise<unknown> {
    const handler = await this.load(name);
    return handler(event, lambdaContext(name));
  }
}
