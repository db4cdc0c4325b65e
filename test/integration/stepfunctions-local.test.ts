import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  DescribeExecutionCommand,
  SendTaskFailureCommand,
  SendTaskSuccessCommand,
  SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import { afterEach, describe, expect, it } from 'vitest';
import { sleep, until } from '../support/net.js';
import { localFunctionArn, stateMachineArn, StepFunctionsLocal, substitute } from '../../bin/local/stepfunctions-local.js';

const definition = substitute(readFileSync(path.join(import.meta.dirname, '../fixtures/statemachines/approval.asl.json'), 'utf8'), {
  CountFunction: localFunctionArn('Count'),
  RequestApprovalFunction: localFunctionArn('RequestApproval'),
});

const KEYS = { accessKeyId: 'local-key', secretAccessKey: 'local-secret' };

describe('Step Functions stand-in (real SFNClient, durable executions)', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  function harness(directory: string) {
    const calls = { count: 0, approvals: [] as { token: string; count: number }[] };
    const runtime = new StepFunctionsLocal({
      host: '127.0.0.1',
      port: 0,
      directory,
      definitions: { approval: definition },
      invoke: async (name, payload) => {
        if (name === 'Count') {
          calls.count += 1;
          const input = payload as { count?: number; pauseSeconds: number };
          return { ...input, count: (input.count ?? 0) + 1 };
        }
        if (name === 'RequestApproval') {
          calls.approvals.push(payload as { token: string; count: number });
          return {};
        }
        throw new Error(`unknown function ${name}`);
      },
      credentials: KEYS,
    });
    return { runtime, calls };
  }

  async function start(directory: string) {
    const h = harness(directory);
    await h.runtime.start();
    const client = new SFNClient({ endpoint: h.runtime.endpoint, region: 'us-east-1', credentials: KEYS });
    cleanups.push(async () => {
      client.destroy();
      await h.runtime.stop();
    });
    return { ...h, client };
  }

  function tempDir() {
    const directory = mkdtempSync(path.join(tmpdir(), 'sfn-'));
    cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
    return directory;
  }

  it('runs Task, Choice, Wait and a callback task to completion', async () => {
    const { client, calls } = await start(tempDir());
    const { executionArn } = await client.send(
      new StartExecutionCommand({ stateMachineArn: stateMachineArn('approval'), name: 'run-1', input: JSON.stringify({ pauseSeconds: 0 }) }),
    );
    const approval = await until(() => calls.approvals[0]);
    expect(calls.count).toBe(3);
    expect(approval.count).toBe(3);
    expect((await client.send(new DescribeExecutionCommand({ executionArn }))).status).toBe('RUNNING');

    await client.send(new SendTaskSuccessCommand({ taskToken: approval.token, output: JSON.stringify({ approvedBy: 'test' }) }));
    const done = await until(async () => {
      const d = await client.send(new DescribeExecutionCommand({ executionArn }));
      return d.status === 'RUNNING' ? undefined : d;
    });
    expect(done.status).toBe('SUCCEEDED');
    expect(JSON.parse(done.output!)).toEqual({ pauseSeconds: 0, count: 3, approval: { approvedBy: 'test' } });
  });

  it('refuses calls that are unsigned, signed with another key pair or secret, or altered after signing, as Step Functions does', async () => {
    const { runtime, client } = await start(tempDir());
    const start_ = (credentials: typeof KEYS) =>
      new SFNClient({ endpoint: runtime.endpoint, region: 'us-east-1', credentials, maxAttempts: 1 })
        .send(new StartExecutionCommand({ stateMachineArn: stateMachineArn('approval'), name: 'intruder', input: '{"pauseSeconds":0}' }))
        .then(
          () => 'accepted',
          (error: Error) => error.name,
        );
    expect(await start_({ accessKeyId: 'other', secretAccessKey: KEYS.secretAccessKey })).toBe('UnrecognizedClientException');
    expect(await start_({ accessKeyId: KEYS.accessKeyId, secretAccessKey: 'guess' })).toBe('InvalidSignatureException');
    const unsigned = await fetch(runtime.endpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': 'AWSStepFunctions.ListExecutions' },
      body: JSON.stringify({ stateMachineArn: stateMachineArn('approval') }),
    });
    expect([unsigned.status, ((await unsigned.json()) as { __type: string }).__type]).toEqual([403, 'MissingAuthenticationTokenException']);
    // A signed request whose body was changed on the way: the signature covers the payload.
    let signedHeaders: Record<string, string> = {};
    const recorder = new SFNClient({ endpoint: runtime.endpoint, region: 'us-east-1', credentials: KEYS, maxAttempts: 1 });
    recorder.middlewareStack.add(
      (next) => async (args) => {
        signedHeaders = { ...(args.request as { headers: Record<string, string> }).headers };
        return next(args);
      },
      { step: 'finalizeRequest', priority: 'low' },
    );
    await recorder.send(new DescribeExecutionCommand({ executionArn: 'arn:aws:states:us-east-1:000000000000:execution:approval:none' })).catch(() => undefined);
    const altered = await fetch(runtime.endpoint, {
      method: 'POST',
      headers: { ...signedHeaders, 'Content-Type': 'application/x-amz-json-1.0' },
      body: JSON.stringify({ executionArn: 'arn:aws:states:us-east-1:000000000000:execution:approval:nope' }),
    });
    expect(((await altered.json()) as { __type: string }).__type).toBe('InvalidSignatureException');
    expect(await start_(KEYS)).toBe('accepted');
    expect((await client.send(new DescribeExecutionCommand({ executionArn: 'arn:aws:states:us-east-1:000000000000:execution:approval:intruder' }))).name).toBe(
      'intruder',
    );
  });

  it('is idempotent on the execution name and rejects a reused name with other input', async () => {
    const { client } = await start(tempDir());
    const input = JSON.stringify({ pauseSeconds: 30 });
    const first = await client.send(new StartExecutionCommand({ stateMachineArn: stateMachineArn('approval'), name: 'same', input }));
    const second = await client.send(new StartExecutionCommand({ stateMachineArn: stateMachineArn('approval'), name: 'same', input }));
    expect(second.executionArn).toBe(first.executionArn);
    await expect(
      client.send(new StartExecutionCommand({ stateMachineArn: stateMachineArn('approval'), name: 'same', input: '{"pauseSeconds":1}' })),
    ).rejects.toMatchObject({ name: 'ExecutionAlreadyExists' });
  });

  it('fails the execution when the callback reports failure', async () => {
    const { client, calls } = await start(tempDir());
    const { executionArn } = await client.send(
      new StartExecutionCommand({ stateMachineArn: stateMachineArn('approval'), input: JSON.stringify({ pauseSeconds: 0 }) }),
    );
    const approval = await until(() => calls.approvals[0]);
    await client.send(new SendTaskFailureCommand({ taskToken: approval.token, error: 'Rejected', cause: 'not today' }));
    const done = await until(async () => {
      const d = await client.send(new DescribeExecutionCommand({ executionArn }));
      return d.status === 'RUNNING' ? undefined : d;
    });
    expect(done.status).toBe('FAILED');
    expect(done.error).toBe('Rejected');
  });

  it('has on disk what its caller is told of when the answer arrives: a start, a handed-out token, an answered callback, a stop', async () => {
    const directory = tempDir();
    const { client, calls } = await start(directory);
    const onDisk = (arn: string) => JSON.parse(readFileSync(path.join(directory, `${Buffer.from(arn).toString('base64url')}.json`), 'utf8'));
    const { executionArn } = await client.send(
      new StartExecutionCommand({ stateMachineArn: stateMachineArn('approval'), name: 'told', input: JSON.stringify({ pauseSeconds: 0 }) }),
    );
    expect(onDisk(executionArn!)).toMatchObject({ status: 'RUNNING', name: 'told' });
    // The token was saved before the function that holds it was invoked.
    const approval = await until(() => calls.approvals[0]);
    expect(onDisk(executionArn!).cursor.token).toBe(approval.token);

    await client.send(new SendTaskSuccessCommand({ taskToken: approval.token, output: '{"approvedBy":"disk"}' }));
    const saved = onDisk(executionArn!);
    expect(saved.status === 'SUCCEEDED' || saved.cursor?.tokenResult?.output?.approvedBy === 'disk', JSON.stringify(saved)).toBe(true);
    // An answered task takes no second answer.
    await expect(client.send(new SendTaskSuccessCommand({ taskToken: approval.token, output: '{}' }))).rejects.toMatchObject({ name: 'TaskTimedOut' });

    const stopped = await client.send(
      new StartExecutionCommand({ stateMachineArn: stateMachineArn('approval'), name: 'stopped', input: JSON.stringify({ pauseSeconds: 30 }) }),
    );
    await client.send(new StopExecutionCommand({ executionArn: stopped.executionArn, error: 'Cancelled', cause: 'by the test' }));
    expect(onDisk(stopped.executionArn!)).toMatchObject({ status: 'ABORTED', error: 'Cancelled' });
  });

  it('resumes after a restart mid-wait, waiting only for what is left, and keeps the callback token', async () => {
    const directory = tempDir();
    const first = await start(directory);
    const startedAt = Date.now();
    const { executionArn } = await first.client.send(
      new StartExecutionCommand({ stateMachineArn: stateMachineArn('approval'), name: 'durable', input: JSON.stringify({ pauseSeconds: 4 }) }),
    );
    await until(() => first.runtime.record(executionArn!)?.cursor?.state === 'Pause' || undefined);
    await sleep(2_000);
    await first.runtime.stop();
    expect(first.calls.approvals).toHaveLength(0);

    // A new process: everything it knows comes from the directory.
    const second = await start(directory);
    const approval = await until(() => second.calls.approvals[0]);
    const waited = Date.now() - startedAt;
    // Waiting the whole 4 s again after the restart would end past 6 s; the margin below that absorbs a loaded machine.
    expect(waited).toBeGreaterThanOrEqual(4_000);
    expect(waited).toBeLessThan(5_800);
    // Completed Count tasks are not run again after the restart.
    expect(second.calls.count).toBe(0);

    // Restart while waiting for the callback: the task function is not invoked again and the token stays valid.
    await second.runtime.stop();
    const third = await start(directory);
    await until(() => third.runtime.record(executionArn!)?.cursor?.invoked || undefined);
    await sleep(200);
    expect(third.calls.approvals).toHaveLength(0);
    await third.client.send(new SendTaskSuccessCommand({ taskToken: approval.token, output: '{"ok":true}' }));
    const done = await until(async () => {
      const d = await third.client.send(new DescribeExecutionCommand({ executionArn }));
      return d.status === 'RUNNING' ? undefined : d;
    });
    expect(done.status).toBe('SUCCEEDED');
    expect(JSON.parse(done.output!).approval).toEqual({ ok: true });
    expect(third.runtime.record(executionArn!)!.history.map((h) => h.state)).toEqual([
      'Prepare',
      'Enough',
      'Prepare',
      'Enough',
      'Prepare',
      'Enough',
      'Pause',
      'AwaitApproval',
      'Done',
    ]);
  });
});
