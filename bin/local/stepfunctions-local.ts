/**
 * The Step Functions stand-in: serves the Step Functions JSON API on loopback (so the real
 * SFNClient drives it), interprets the same ASL files with aws-local-stepfunctions, maps Task
 * states to local functions, supports the callback (task-token) pattern, and keeps executions
 * durable: every top-level state entered is written to disk, and a restart resumes each running
 * execution from the state it was in. Tasks are therefore at-least-once, as in AWS with retries.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { StateMachine } from 'aws-local-stepfunctions';
import { collectTaskStates, replaceDeep, waitDeadline, withAwsTaskTimeouts, type Definition, type Json, type StateDefinition } from './asl.js';
import { FileReplacer, removeLeftoverTemporaries } from './replaced-files.js';
import { SignatureRefused, verifyJsonProtocolSignature, type KeyPair } from './sigv4.js';

export { substitute } from './asl.js';

export const ACCOUNT = '000000000000';
export const REGION = 'us-east-1';
export const stateMachineArn = (name: string) => `arn:aws:states:${REGION}:${ACCOUNT}:stateMachine:${name}`;
export const localFunctionArn = (name: string) => `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${name}`;

/** Placeholder the context object carries for `$$.Task.Token`; replaced with a real token per task. */
const TOKEN_PLACEHOLDER = '__local_task_token__';

export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'ABORTED' | 'TIMED_OUT';

interface Cursor {
  state: string;
  input: Json;
  enteredAt: number;
  /** Wait states: when the wait ends, so a restart waits only for what is left. */
  waitUntil?: number;
  /** Callback tasks: the token handed out, and whether the task function has already been invoked. */
  token?: string;
  invoked?: boolean;
  /** A SendTaskSuccess/Failure that arrived while no run was waiting for it. */
  tokenResult?: { output?: Json; error?: string; cause?: string };
}

export interface ExecutionRecord {
  executionArn: string;
  stateMachineArn: string;
  name: string;
  input: Json;
  status: ExecutionStatus;
  startDate: number;
  stopDate?: number;
  output?: Json;
  error?: string;
  cause?: string;
  cursor?: Cursor;
  /** Top-level states entered, in order: the execution's history. */
  history: { state: string; enteredAt: number }[];
}

export type InvokeFunction = (functionName: string, payload: unknown) => Promise<unknown>;

/** Runs a container task to completion (ECS runTask.sync in AWS): its exit code, and the tail of its output for failures. */
export type RunContainer = (taskName: string, environment: Record<string, string>) => Promise<{ exitCode: number; outputTail: string }>;

export interface StepFunctionsLocalOptions {
  host: string;
  port: number;
  directory: string;
  /** Workflow name → ASL definition with substitutions already applied. */
  definitions: Record<string, Definition>;
  invoke: InvokeFunction;
  runContainer?: RunContainer;
  log?: (message: string) => void;
  /** The key pair every call must be signed with (SigV4), as Step Functions requires; the runtime's own. */
  credentials: KeyPair;
}

class ServiceError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

interface Waiter {
  resolve(output: Json): void;
  reject(error: Error): void;
}

class TaskFailed extends Error {
  constructor(error: string, cause: string) {
    super(cause);
    this.name = error;
  }
}

export class StepFunctionsLocal {
  private readonly executions = new Map<string, ExecutionRecord>();
  private readonly running = new Map<string, { abort(): void }>();
  private readonly waiters = new Map<string, Waiter>();
  private readonly machines = new Map<string, Definition>();
  private server?: http.Server;
  private stopping = false;
  private readonly files = new FileReplacer((file, error) => this.options.log?.(`could not save execution state ${path.basename(file)}: ${error.message}`));
  endpoint = '';

  constructor(private readonly options: StepFunctionsLocalOptions) {
    for (const [name, definition] of Object.entries(options.definitions)) {
      const copy = structuredClone(definition);
      withAwsTaskTimeouts(copy.States);
      this.machines.set(stateMachineArn(name), copy);
    }
    mkdirSync(options.directory, { recursive: true });
  }

  /** Starts serving and resumes every execution that was running when the runtime stopped. */
  async start(): Promise<void> {
    // Every definition is checked whole once, so a bad edit fails at start and resumed runs can skip it.
    for (const [name, definition] of Object.entries(this.options.definitions)) {
      try {
        new StateMachine(structuredClone(definition) as never, { validationOptions: { checkPaths: false, checkArn: false } });
      } catch (error) {
        throw new Error(`state machine ${name}: ${(error as Error).message}`);
      }
    }
    removeLeftoverTemporaries(this.options.directory);
    for (const file of readdirSync(this.options.directory).filter((f) => f.endsWith('.json'))) {
      const record = JSON.parse(readFileSync(path.join(this.options.directory, file), 'utf8')) as ExecutionRecord;
      this.executions.set(record.executionArn, record);
    }
    this.server = http.createServer((request, response) => void this.serve(request, response));
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.options.port, this.options.host, () => resolve());
    });
    this.endpoint = `http://${this.options.host}:${(this.server.address() as AddressInfo).port}`;
    for (const record of this.executions.values()) {
      if (record.status === 'RUNNING') {
        this.options.log?.(`resuming ${record.executionArn} at ${record.cursor?.state ?? 'its start'}`);
        this.run(record);
      }
    }
  }

  /** Stops serving; running executions stay RUNNING on disk and resume on the next start. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const run of this.running.values()) run.abort();
    this.running.clear();
    await new Promise<void>((resolve) => {
      if (!this.server) return resolve();
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
    await this.files.close();
  }

  /**
   * The record on disk follows its state (see FileReplacer). What callers are answered about is
   * awaited; a state's entry is not, so resumed after a kill an execution may redo its last step.
   */
  private persist(record: ExecutionRecord): Promise<void> {
    const file = path.join(this.options.directory, `${Buffer.from(record.executionArn).toString('base64url')}.json`);
    return this.files.replace(file, () => JSON.stringify(record));
  }

  // ---- the Step Functions JSON protocol ------------------------------------------------------

  private async serve(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    try {
      await verifyJsonProtocolSignature(request, Buffer.concat(chunks), this.options.credentials, 'states');
    } catch (error) {
      if (!(error instanceof SignatureRefused)) throw error;
      const refusal = JSON.stringify({ __type: error.type, message: error.message });
      response.writeHead(error.status, { 'Content-Type': 'application/x-amz-json-1.0', 'Content-Length': Buffer.byteLength(refusal) });
      return void response.end(refusal);
    }
    const target = String(request.headers['x-amz-target'] ?? '');
    const action = target.replace(/^AWSStepFunctions\./, '');
    let status = 200;
    let body: unknown;
    try {
      const input = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>) : {};
      body = await this.dispatch(action, input);
    } catch (error) {
      status = 400;
      body = error instanceof ServiceError ? { __type: error.type, message: error.message } : { __type: 'InvalidRequest', message: (error as Error).message };
    }
    const text = JSON.stringify(body ?? {});
    response.writeHead(status, { 'Content-Type': 'application/x-amz-json-1.0', 'Content-Length': Buffer.byteLength(text) });
    response.end(text);
  }

  private async dispatch(action: string, input: Record<string, unknown>): Promise<unknown> {
    switch (action) {
      case 'StartExecution':
        return this.startExecution(String(input.stateMachineArn), input.name as string | undefined, String(input.input ?? '{}'));
      case 'DescribeExecution':
        return this.describe(String(input.executionArn));
      case 'StopExecution':
        return this.stopExecution(String(input.executionArn), input.error as string | undefined, input.cause as string | undefined);
      case 'SendTaskSuccess':
        return this.completeTask(String(input.taskToken), { output: JSON.parse(String(input.output ?? '{}')) as Json });
      case 'SendTaskFailure':
        return this.completeTask(String(input.taskToken), {
          error: (input.error as string | undefined) ?? 'TaskFailed',
          cause: (input.cause as string | undefined) ?? '',
        });
      case 'SendTaskHeartbeat':
        this.recordForToken(String(input.taskToken));
        return {};
      case 'ListExecutions':
        return {
          executions: [...this.executions.values()]
            .filter((r) => r.stateMachineArn === input.stateMachineArn && (!input.statusFilter || r.status === input.statusFilter))
            .map((r) => ({
              executionArn: r.executionArn,
              stateMachineArn: r.stateMachineArn,
              name: r.name,
              status: r.status,
              startDate: r.startDate / 1000,
              stopDate: r.stopDate && r.stopDate / 1000,
            })),
        };
      default:
        throw new ServiceError('UnknownOperationException', `the local Step Functions stand-in does not implement ${action}`);
    }
  }

  async startExecution(machineArn: string, requestedName: string | undefined, inputText: string): Promise<{ executionArn: string; startDate: number }> {
    if (!this.machines.has(machineArn)) throw new ServiceError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${machineArn}'`);
    let input: Json;
    try {
      input = JSON.parse(inputText) as Json;
    } catch {
      throw new ServiceError('InvalidExecutionInput', 'Invalid execution input: not JSON');
    }
    const name = requestedName ?? randomBytes(16).toString('hex');
    if (!/^[A-Za-z0-9_-]{1,80}$/.test(name)) throw new ServiceError('InvalidName', `Invalid Name: '${name}'`);
    const executionArn = `${machineArn.replace(':stateMachine:', ':execution:')}:${name}`;
    const existing = this.executions.get(executionArn);
    if (existing) {
      // As in AWS: the same name with the same input while running is the same execution.
      if (existing.status === 'RUNNING' && JSON.stringify(existing.input) === JSON.stringify(input)) {
        return { executionArn, startDate: existing.startDate / 1000 };
      }
      throw new ServiceError('ExecutionAlreadyExists', `Execution Already Exists: '${executionArn}'`);
    }
    const record: ExecutionRecord = {
      executionArn,
      stateMachineArn: machineArn,
      name,
      input,
      status: 'RUNNING',
      startDate: Date.now(),
      history: [],
    };
    this.executions.set(executionArn, record);
    try {
      // Started means on disk: an execution its caller was told of survives a kill.
      await this.persist(record);
    } catch (error) {
      this.executions.delete(executionArn);
      throw error;
    }
    this.run(record);
    return { executionArn, startDate: record.startDate / 1000 };
  }

  describe(executionArn: string): Record<string, unknown> {
    const record = this.executions.get(executionArn);
    if (!record) throw new ServiceError('ExecutionDoesNotExist', `Execution Does Not Exist: '${executionArn}'`);
    return {
      executionArn,
      stateMachineArn: record.stateMachineArn,
      name: record.name,
      status: record.status,
      startDate: record.startDate / 1000,
      stopDate: record.stopDate === undefined ? undefined : record.stopDate / 1000,
      input: JSON.stringify(record.input),
      output: record.output === undefined ? undefined : JSON.stringify(record.output),
      error: record.error,
      cause: record.cause,
    };
  }

  /** The execution's record as kept on disk, for tests and diagnostics. */
  record(executionArn: string): ExecutionRecord | undefined {
    return this.executions.get(executionArn);
  }

  private async stopExecution(executionArn: string, error?: string, cause?: string): Promise<{ stopDate: number }> {
    const record = this.executions.get(executionArn);
    if (!record) throw new ServiceError('ExecutionDoesNotExist', `Execution Does Not Exist: '${executionArn}'`);
    if (record.status === 'RUNNING') {
      const saved = this.finish(record, { status: 'ABORTED', error, cause });
      this.running.get(executionArn)?.abort();
      this.running.delete(executionArn);
      // Stopped means on disk: a kill must not bring a stopped execution back.
      await saved;
    }
    return { stopDate: (record.stopDate ?? Date.now()) / 1000 };
  }

  private recordForToken(token: string): ExecutionRecord {
    const arn = Buffer.from(token.split('.')[0] ?? '', 'base64url').toString('utf8');
    const record = this.executions.get(arn);
    if (record?.status !== 'RUNNING' || record.cursor?.token !== token) {
      throw new ServiceError('TaskTimedOut', 'Task Timed Out: the token is unknown or its task has already ended');
    }
    return record;
  }

  private async completeTask(token: string, result: NonNullable<Cursor['tokenResult']>): Promise<Record<string, never>> {
    const record = this.recordForToken(token);
    if (record.cursor!.tokenResult) throw new ServiceError('TaskTimedOut', 'Task Timed Out: the task has already been answered');
    // Kept with the cursor and on disk before the caller is answered: resumed after a kill, the
    // task takes this answer instead of waiting for a callback that was already acknowledged.
    record.cursor!.tokenResult = result;
    await this.persist(record);
    const waiter = this.waiters.get(token);
    if (waiter) {
      this.waiters.delete(token);
      if (result.error !== undefined) waiter.reject(new TaskFailed(result.error, result.cause ?? ''));
      else waiter.resolve(result.output ?? {});
    }
    return {};
  }

  private finish(record: ExecutionRecord, end: Pick<ExecutionRecord, 'status' | 'output' | 'error' | 'cause'>): Promise<void> {
    Object.assign(record, end, { stopDate: Date.now(), cursor: undefined });
    for (const [token, waiter] of this.waiters) {
      if (token.startsWith(`${Buffer.from(record.executionArn).toString('base64url')}.`)) {
        this.waiters.delete(token);
        waiter.reject(new TaskFailed('States.Aborted', 'execution ended'));
      }
    }
    this.options.log?.(`${record.executionArn} ${record.status.toLowerCase()}`);
    return this.persist(record);
  }

  // ---- running an execution ------------------------------------------------------------------

  private taskOverride(record: ExecutionRecord, stateName: string, state: StateDefinition) {
    const resource = String(state.Resource);
    const waitsForToken = resource.endsWith('.waitForTaskToken');
    return async (input: unknown): Promise<Json> => {
      if (resource.startsWith('arn:aws:states:::ecs:runTask')) return this.runContainerTask(resource, input);
      let functionName: string;
      let payload: unknown;
      if (resource.startsWith('arn:aws:states:::lambda:invoke')) {
        const parameters = (input ?? {}) as { FunctionName?: string; Payload?: unknown };
        functionName = String(parameters.FunctionName ?? '');
        payload = parameters.Payload ?? {};
      } else if (resource.startsWith('arn:aws:lambda:')) {
        functionName = resource;
        payload = input;
      } else {
        throw new TaskFailed('States.Runtime', `the local runtime cannot run resource ${resource}`);
      }
      const name = functionName.split(':function:').pop()!.split(':')[0]!;

      if (!waitsForToken) {
        const output = (await this.options.invoke(name, payload)) as Json;
        return resource.startsWith('arn:aws:states:::lambda:invoke') ? { Payload: output, StatusCode: 200 } : output;
      }

      // Let the event consumer record this state's entry first: the token belongs in that cursor.
      await new Promise((resolve) => setImmediate(resolve));
      const cursor = record.cursor!;
      if (cursor.state !== stateName || !cursor.token) {
        cursor.token = `${Buffer.from(record.executionArn).toString('base64url')}.${randomBytes(24).toString('base64url')}`;
        cursor.invoked = false;
        // On disk before anyone holds it: resumed after a kill, the task is invoked again with this token, not a new one.
        await this.persist(record);
      }
      const token = cursor.token;
      const result = new Promise<Json>((resolve, reject) => this.waiters.set(token, { resolve, reject }));
      if (cursor.tokenResult) {
        const early = cursor.tokenResult;
        this.waiters.delete(token);
        if (early.error !== undefined) throw new TaskFailed(early.error, early.cause ?? '');
        return early.output ?? {};
      }
      if (!cursor.invoked) {
        await this.options.invoke(name, replaceDeep(payload, TOKEN_PLACEHOLDER, token));
        cursor.invoked = true;
        void this.persist(record);
      }
      return result;
    };
  }

  /** ECS runTask(.sync): the task definition names a container task of the catalogue, run here as a process. */
  private async runContainerTask(resource: string, input: unknown): Promise<Json> {
    if (!resource.endsWith('.sync')) throw new TaskFailed('States.Runtime', 'the local runtime runs container tasks only to completion (runTask.sync)');
    if (!this.options.runContainer) throw new TaskFailed('States.Runtime', 'no container runner is configured');
    const parameters = (input ?? {}) as { TaskDefinition?: string; Overrides?: { ContainerOverrides?: { Environment?: { Name: string; Value: string }[] }[] } };
    const taskName = String(parameters.TaskDefinition ?? '')
      .split('task-definition/')
      .pop()!
      .split(':')[0]!;
    const environment = Object.fromEntries(
      (parameters.Overrides?.ContainerOverrides ?? []).flatMap((override) => override.Environment ?? []).map((entry) => [entry.Name, entry.Value]),
    );
    const result = await this.options.runContainer(taskName, environment);
    const task = { TaskDefinitionArn: parameters.TaskDefinition ?? '', LastStatus: 'STOPPED', Containers: [{ Name: taskName, ExitCode: result.exitCode }] };
    // As Step Functions does for .sync: a task whose essential container exits non-zero fails the state.
    if (result.exitCode !== 0) {
      throw new TaskFailed(
        'States.TaskFailed',
        JSON.stringify({ ...task, StoppedReason: `Essential container in task exited (${result.exitCode}): ${result.outputTail}` }),
      );
    }
    return { Tasks: [task] } as unknown as Json;
  }

  private run(record: ExecutionRecord): void {
    const definition = structuredClone(this.machines.get(record.stateMachineArn)!);
    const cursor = record.cursor;
    const waitTimeOverrides: Record<string, number> = {};
    let input: Json = record.input;
    if (cursor) {
      definition.StartAt = cursor.state;
      input = cursor.input;
      if (cursor.waitUntil !== undefined) waitTimeOverrides[cursor.state] = Math.max(0, cursor.waitUntil - Date.now());
    }
    const tasks = new Map<string, StateDefinition>();
    collectTaskStates(definition.States, tasks);
    const taskResourceLocalHandlers = Object.fromEntries([...tasks].map(([name, state]) => [name, this.taskOverride(record, name, state)]));
    const topLevel = new Set(Object.keys(definition.States));

    // Every definition was validated whole when the runtime started (see start()); validating it
    // again for each run (and each resumed segment, which starts mid-definition where earlier
    // states look unreachable) was a large share of the runtime thread's CPU in a fleet of installs (docs/scale.md).
    const machine = new StateMachine(definition as never, { validationOptions: { noValidate: true } });
    const execution = machine.run(input as never, {
      overrides: { taskResourceLocalHandlers: taskResourceLocalHandlers as never, waitTimeOverrides },
      noThrowOnAbort: true,
      context: {
        Execution: { Id: record.executionArn, Input: record.input, Name: record.name, StartTime: new Date(record.startDate).toISOString() },
        StateMachine: { Id: record.stateMachineArn },
        Task: { Token: TOKEN_PLACEHOLDER },
      },
    });
    this.running.set(record.executionArn, execution);
    let resumedAt = cursor?.state;

    void (async () => {
      for await (const event of execution.eventLogs) {
        if (this.stopping || record.status !== 'RUNNING') break;
        if (event.type === 'StateEntered' && event.index === undefined && topLevel.has(event.state.name)) {
          const name = event.state.name;
          if (resumedAt === name) {
            // Re-entering the state we resumed at: keep its wait deadline and task token.
            resumedAt = undefined;
            continue;
          }
          resumedAt = undefined;
          const state = definition.States[name]!;
          const enteredAt = event.timestamp;
          record.cursor = {
            state: name,
            input: event.state.input as Json,
            enteredAt,
            ...(state.Type === 'Wait' ? { waitUntil: waitDeadline(state, event.state.input as Json, enteredAt) } : {}),
          };
          record.history.push({ state: name, enteredAt });
          void this.persist(record);
        }
      }
    })();

    execution.result.then(
      (output) => {
        if (this.stopping || record.status !== 'RUNNING') return;
        this.running.delete(record.executionArn);
        void this.finish(record, { status: 'SUCCEEDED', output: output as Json });
      },
      (error: Error) => {
        if (this.stopping || record.status !== 'RUNNING') return;
        this.running.delete(record.executionArn);
        // The interpreter wraps what failed the execution (a Fail state, a task error) in ExecutionError.
        const root = error.name === 'ExecutionError' && error.cause instanceof Error ? error.cause : error;
        void this.finish(record, {
          status: root.name === 'StatesTimeoutError' || root.name === 'States.Timeout' ? 'TIMED_OUT' : 'FAILED',
          error: root.name,
          cause: root.message,
        });
      },
    );
  }
}
