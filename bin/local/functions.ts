import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Context } from 'aws-lambda';
import type { DnsZones } from '../../lambdas/ports/dns.js';
import type { SyntheticBaseImages } from '../../lambdas/ports/synthetic-base-images.js';
import type { FunctionSpec } from '../../lib/catalogue.js';
import {
  deserializeError,
  RUNTIME_PORTS,
  serializeError,
  type FromInstance,
  type InstanceSpec,
  type RuntimePort,
  type ToInstance,
} from './instance/protocol.js';

/** The runtime's stand-ins that instances call through messages, by port. */
type RuntimePorts = Partial<Record<RuntimePort, DnsZones | SyntheticBaseImages>>;

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

/** The instance an invocation was routed to stopped before answering (a crash, or it was killed). */
export class FunctionInstanceCrashed extends Error {
  override name = 'FunctionInstanceCrashed';
}

/** No instance of the function could be started to take the invocation. */
export class FunctionUnavailable extends Error {
  override name = 'FunctionUnavailable';
}

/** How many Api instances run when ASSISTED_API_INSTANCES is not set: the cores, at least two. */
export function apiInstancesFromEnvironment(env: NodeJS.ProcessEnv = process.env): number {
  const configured = Number(env.ASSISTED_API_INSTANCES);
  if (Number.isInteger(configured) && configured >= 1) return configured;
  return Math.max(2, availableParallelism());
}

interface Invocation {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

interface Instance {
  id: number;
  worker: Worker;
  ready: Promise<void>;
  inFlight: Map<number, Invocation>;
  /** Takes no new invocations (a redeploy): it ends once its last one is answered. */
  retired: boolean;
  /** When it last took an invocation: idle instances take turns, least recently used first. */
  lastUsed: number;
  /** Being stopped as a crash would stop it (tests): takes no new invocations. */
  crashing: boolean;
  /** Its thread's CPU time as of its last answer, ms. */
  cpuMs: number;
  /** Its CPU time is already in the pool's total for stopped instances. */
  cpuCounted?: boolean;
}

/** How long a stop waits for a starting instance to finish loading before terminating it anyway. */
const STOP_GRACE_MS = 10_000;
const INSTANCE_BOOT = new URL('./instance/boot.mjs', import.meta.url);
/** Lambda's longest timeout; the local runtime gives every invocation this long. */
const INVOCATION_TIMEOUT_MS = 900_000;

export interface InstanceCounts {
  /** Instances started and not stopped (starting ones included). */
  instances: number;
  /** Invocations being answered. */
  inFlight: number;
  /** Instances that stopped unexpectedly since the runtime started (each was replaced). */
  crashed: number;
}

/**
 * The instances of one function. Each is a worker thread with its own module graph, so nothing
 * in memory is shared between instances or functions, as between Lambda containers. An
 * invocation goes to an idle instance; a pool below its size starts another; when every instance
 * is busy, the least busy takes it: two cores cannot hold the hundreds of containers Lambda would
 * start, so an instance here may answer several invocations at once (each still in its own memory
 * apart from the other instances).
 */
class FunctionPool {
  private readonly instances: Instance[] = [];
  private nextInstanceId = 0;
  private nextInvocationId = 0;
  private crashed = 0;
  private stopping = false;
  /** CPU time of instances that have stopped, ms. */
  private cpuMsOfStopped = 0;

  constructor(
    private readonly spec: FunctionSpec,
    private readonly size: number,
    private readonly hooks: { ports: RuntimePorts; instrumentation?: string; initializationType: string; log: (message: string) => void },
  ) {}

  counts(): InstanceCounts {
    const live = this.instances;
    return { instances: live.length, inFlight: live.reduce((sum, instance) => sum + instance.inFlight.size, 0), crashed: this.crashed };
  }

  /**
   * CPU time the function's instances have spent since the runtime started, ms, as each thread
   * reported it with its last answer (benches split a run's CPU by function with it).
   */
  cpuMs(): number {
    return this.instances.reduce((sum, instance) => sum + (instance.cpuCounted ? 0 : instance.cpuMs), this.cpuMsOfStopped);
  }

  /** Starts instances up to the pool's size and waits until they all serve. */
  async warm(): Promise<void> {
    while (this.active().length < this.size) this.startInstance();
    await Promise.all(this.active().map((instance) => instance.ready));
  }

  private active(): Instance[] {
    return this.instances.filter((instance) => !instance.retired && !instance.crashing);
  }

  private startInstance(): Instance {
    const spec: InstanceSpec = {
      functionName: this.spec.name,
      entry: this.spec.entry,
      handler: this.spec.handler,
      timeoutMs: INVOCATION_TIMEOUT_MS,
      ...(this.hooks.instrumentation ? { instrumentation: this.hooks.instrumentation } : {}),
    };
    // The environment as it is now, as a deployment fixes a function's configuration. The function's
    // name rides in the SDK's user agent (app/<name>), so the emulators' clients can be told apart.
    const worker = new Worker(INSTANCE_BOOT, {
      workerData: spec,
      env: {
        ...process.env,
        AWS_LAMBDA_INITIALIZATION_TYPE: this.hooks.initializationType,
        AWS_LAMBDA_FUNCTION_NAME: this.spec.name,
        AWS_SDK_UA_APP_ID: this.spec.name,
      },
      stdout: false,
      stderr: false,
    });
    let started: () => void = () => undefined;
    let failed: (error: Error) => void = () => undefined;
    const ready = new Promise<void>((resolve, reject) => {
      started = resolve;
      failed = reject;
    });
    ready.catch(() => undefined);
    const instance: Instance = { id: this.nextInstanceId++, worker, ready, inFlight: new Map(), retired: false, lastUsed: 0, crashing: false, cpuMs: 0 };
    this.instances.push(instance);

    worker.on('message', (message: FromInstance) => {
      switch (message.type) {
        case 'ready':
          if (message.cpuMs !== undefined) instance.cpuMs = message.cpuMs;
          return started();
        case 'failed-to-start':
          failed(new FunctionUnavailable(`${this.spec.name} could not start: ${message.error.message}`));
          void this.terminate(instance);
          return;
        case 'result':
        case 'error': {
          // A crashing instance answers nothing more: an answer it posted as it was stopped is
          // lost with it, as a container's would be, so exactly its in-flight invocations fail.
          if (instance.crashing) return;
          if (message.cpuMs !== undefined) instance.cpuMs = message.cpuMs;
          const invocation = instance.inFlight.get(message.id);
          instance.inFlight.delete(message.id);
          if (message.type === 'result') invocation?.resolve(message.value);
          else invocation?.reject(deserializeError(message.error));
          if (instance.retired && instance.inFlight.size === 0) void this.terminate(instance);
          return;
        }
        case 'port-call':
          return void this.answerPortCall(worker, message);
      }
    });
    worker.on('error', (error) => this.hooks.log(`${this.spec.name} instance ${instance.id} crashed: ${error.stack ?? error.message}`));
    worker.on('exit', (code) => {
      const index = this.instances.indexOf(instance);
      this.keepCpuOf(instance);
      if (index >= 0) this.instances.splice(index, 1);
      failed(new FunctionUnavailable(`${this.spec.name} instance ${instance.id} stopped while starting (exit ${code})`));
      const unexpected = !this.stopping && (!instance.retired || instance.crashing);
      if (unexpected) {
        this.crashed += 1;
        this.hooks.log(`${this.spec.name} instance ${instance.id} stopped (exit ${code}) with ${instance.inFlight.size} invocation(s) in flight; replacing it`);
      }
      for (const invocation of instance.inFlight.values()) {
        invocation.reject(
          this.stopping
            ? new FunctionUnavailable(`${this.spec.name} stopped with the runtime before answering`)
            : new FunctionInstanceCrashed(`the ${this.spec.name} function's instance stopped before answering`),
        );
      }
      instance.inFlight.clear();
      // A pool keeps its size: the replacement serves the next invocation, as Lambda starts a new container.
      if (unexpected && this.size > 1) void this.warm().catch(() => undefined);
    });
    return instance;
  }

  private terminate(instance: Instance): Promise<number> {
    this.keepCpuOf(instance);
    return instance.worker.terminate();
  }

  /** A stopped instance's CPU time stays in the pool's total. */
  private keepCpuOf(instance: Instance): void {
    if (instance.cpuCounted) return;
    instance.cpuCounted = true;
    this.cpuMsOfStopped += instance.cpuMs;
  }

  private async answerPortCall(worker: Worker, message: Extract<FromInstance, { type: 'port-call' }>): Promise<void> {
    let reply: ToInstance;
    try {
      const target = this.hooks.ports[message.port] as Record<string, (...args: unknown[]) => Promise<unknown>> | undefined;
      const allowed = (RUNTIME_PORTS[message.port] as readonly string[] | undefined) ?? [];
      if (!target || !allowed.includes(message.method)) throw new Error(`no local ${message.port}.${message.method}`);
      const value = await target[message.method]!(...message.args);
      reply = { type: 'port-result', id: message.id, value };
    } catch (error) {
      reply = { type: 'port-result', id: message.id, error: serializeError(error) };
    }
    try {
      worker.postMessage(reply);
    } catch {
      // The instance stopped meanwhile; its invocation is already answered as crashed.
    }
  }

  /**
   * An idle instance, the one idle longest: consecutive invocations land on different instances,
   * so whatever one instance remembers is never what the next one sees (Lambda may reuse the same
   * warm container; rotating makes cross-instance behaviour show in every test).
   */
  private choose(): Instance {
    const active = this.active();
    const idle = active.filter((instance) => instance.inFlight.size === 0).sort((a, b) => a.lastUsed - b.lastUsed)[0];
    if (idle) return idle;
    if (active.length < this.size) return this.startInstance();
    return active.reduce((least, instance) => (instance.inFlight.size < least.inFlight.size ? instance : least));
  }

  async invoke(event: unknown, answeredBy?: (instanceId: number) => void): Promise<unknown> {
    if (this.stopping) throw new FunctionUnavailable(`${this.spec.name} is stopping`);
    const instance = this.choose();
    instance.lastUsed = performance.now();
    answeredBy?.(instance.id);
    const id = this.nextInvocationId++;
    const answer = new Promise<unknown>((resolve, reject) => instance.inFlight.set(id, { resolve, reject }));
    try {
      await instance.ready;
    } catch (error) {
      instance.inFlight.delete(id);
      answer.catch(() => undefined);
      throw error;
    }
    if (!instance.inFlight.has(id)) return answer; // stopped while starting: already rejected
    instance.worker.postMessage({ type: 'invoke', id, event } satisfies ToInstance);
    return answer;
  }

  /** New invocations go to new instances (a new deployment's configuration); old ones finish theirs first. */
  redeploy(): void {
    for (const instance of this.active()) {
      instance.retired = true;
      if (instance.inFlight.size === 0) void this.terminateOnceStarted(instance);
    }
  }

  /** Stops the busiest instance at once, as a crash would (tests); returns how many invocations it had in flight. */
  async killBusiest(): Promise<number> {
    const instance = this.active().reduce<Instance | undefined>(
      (busiest, candidate) => (!busiest || candidate.inFlight.size > busiest.inFlight.size ? candidate : busiest),
      undefined,
    );
    if (!instance) return 0;
    instance.crashing = true;
    const inFlight = instance.inFlight.size;
    await this.terminate(instance);
    return inFlight;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.instances.map((instance) => this.terminateOnceStarted(instance)));
  }

  /**
   * Stops an instance once it has finished loading its modules, waiting at most STOP_GRACE_MS. A
   * thread terminated while V8 is still settling its async modules can abort the whole process
   * ("Check failed: (location_) != nullptr" in AsyncModuleExecutionFulfilled: npm start stopped by
   * SIGINT while its functions still warmed, under load), so starting threads are let finish first.
   */
  private async terminateOnceStarted(instance: Instance): Promise<number> {
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([
      instance.ready.catch(() => undefined),
      new Promise<void>((resolve) => {
        grace = setTimeout(resolve, STOP_GRACE_MS);
      }),
    ]);
    clearTimeout(grace);
    return this.terminate(instance);
  }
}

export interface LocalFunctionsOptions {
  /** Instances of the Api function (ASSISTED_API_INSTANCES); every other function has one at a time. */
  apiInstances?: number;
  /** The DNS stand-in, which instances reach through messages. */
  dns?: DnsZones;
  /** The SYNTHETIC base ISO source, reached the same way (when the runtime offers it). */
  syntheticBaseImages?: SyntheticBaseImages;
  /** Tests only: a module URL every instance imports before its handler (see InstanceSpec). */
  instrumentation?: string;
  /**
   * Instances are started ahead of traffic, as provisioned concurrency starts them
   * (AWS_LAMBDA_INITIALIZATION_TYPE=provisioned-concurrency): a handler may then spend its init
   * on work its first requests would pay. Otherwise each starts as an on-demand container.
   */
  provisioned?: boolean;
  log?: (message: string) => void;
}

/** An invocation once answered, as observers are told of it (benches time the scheduled functions' runs with it). */
export interface InvocationRecord {
  name: string;
  /** From the invocation's arrival here to its answer, ms. */
  ms: number;
  ok: boolean;
  /** What the function returned, when it answered without error. */
  result?: unknown;
}

/**
 * The functions of lambdas/functions.json, each in instances of its own (FunctionPool). Functions
 * given in-process (`extra`, tests only) run in the caller's thread.
 */
export class LocalFunctions {
  private readonly pools: Map<string, FunctionPool>;
  private readonly observers = new Set<(record: InvocationRecord) => void>();

  constructor(
    specs: FunctionSpec[],
    private readonly extra: Record<string, LambdaHandler> = {},
    options: LocalFunctionsOptions = {},
  ) {
    const hooks = {
      ports: { ...(options.dns ? { dns: options.dns } : {}), ...(options.syntheticBaseImages ? { syntheticBaseImages: options.syntheticBaseImages } : {}) },
      ...(options.instrumentation ? { instrumentation: options.instrumentation } : {}),
      initializationType: options.provisioned ? 'provisioned-concurrency' : 'on-demand',
      log: options.log ?? (() => undefined),
    };
    const apiInstances = options.apiInstances ?? apiInstancesFromEnvironment();
    this.pools = new Map(
      specs.filter((spec) => !(spec.name in extra)).map((spec) => [spec.name, new FunctionPool(spec, spec.name === 'Api' ? apiInstances : 1, hooks)]),
    );
  }

  has(name: string): boolean {
    return this.pools.has(name) || name in this.extra;
  }

  /** Tells `listener` of every invocation once it is answered; returns what stops that. */
  observe(listener: (record: InvocationRecord) => void): () => void {
    this.observers.add(listener);
    return () => void this.observers.delete(listener);
  }

  /** `answeredBy` learns which instance took the invocation (the local gateway names it in a response header). */
  async invoke(name: string, event: unknown, answeredBy?: (instance: string) => void): Promise<unknown> {
    if (this.observers.size === 0) return this.invokeUnobserved(name, event, answeredBy);
    const started = performance.now();
    const tell = (record: Omit<InvocationRecord, 'name' | 'ms'>) => {
      const ms = performance.now() - started;
      for (const observer of this.observers) {
        try {
          observer({ name, ms, ...record });
        } catch {
          // An observer's trouble is not the invocation's.
        }
      }
    };
    try {
      const result = await this.invokeUnobserved(name, event, answeredBy);
      tell({ ok: true, result });
      return result;
    } catch (error) {
      tell({ ok: false });
      throw error;
    }
  }

  private async invokeUnobserved(name: string, event: unknown, answeredBy?: (instance: string) => void): Promise<unknown> {
    const extra = this.extra[name];
    if (extra) return extra(event, lambdaContext(name));
    const pool = this.pools.get(name);
    if (!pool) throw new Error(`no function named ${name}`);
    return pool.invoke(event, answeredBy ? (id) => answeredBy(`${name}#${id}`) : undefined);
  }

  /** Starts a function's instances before its first invocation (the API's, so the first requests are not cold). */
  async warm(name: string): Promise<void> {
    await this.pools.get(name)?.warm();
  }

  /** Per function: instances running, invocations in flight, instances that crashed. */
  counts(): Record<string, InstanceCounts> {
    return Object.fromEntries([...this.pools].map(([name, pool]) => [name, pool.counts()]));
  }

  /** Per function: CPU ms its instances have spent (FunctionPool.cpuMs). */
  cpuMs(): Record<string, number> {
    return Object.fromEntries([...this.pools].map(([name, pool]) => [name, pool.cpuMs()]));
  }

  /** Every function takes the environment anew (a deployment): later invocations go to new instances. */
  redeploy(): void {
    for (const pool of this.pools.values()) pool.redeploy();
  }

  /** Stops a function's busiest instance as a crash would (tests); returns the invocations it had in flight. */
  async killBusiest(name: string): Promise<number> {
    return (await this.pools.get(name)?.killBusiest()) ?? 0;
  }

  async stop(): Promise<void> {
    await Promise.all([...this.pools.values()].map((pool) => pool.stop()));
  }
}
