/**
 * One DynamoDB Local per test file, started by the first suite that asks for it and stopped after
 * the file: suites create their own uniquely named tables in it. A file never shares DynamoDB
 * Local with another, so one file's burst of writers (and whatever the JVM carries from it) never
 * slows the next one.
 */
import { afterAll } from 'vitest';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../bin/local/dynamodb-local.js';
import { freePort } from './net.js';

let started: Promise<DynamoDbLocal> | undefined;

/** This test file's DynamoDB Local endpoint (started on first use). */
export async function dynamodbEndpoint(): Promise<string> {
  started ??= freePort().then((port) => startDynamoDbLocal({ port }));
  return (await started).endpoint;
}

/** Registered for every file (vitest setupFiles): stops the file's DynamoDB Local, if it started one. */
export function stopDynamoDbLocalAfterFile(): void {
  afterAll(async () => {
    const running = started;
    started = undefined;
    await (await running?.catch(() => undefined))?.stop();
  }, 30_000);
}
