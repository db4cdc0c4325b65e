/**
 * One DynamoDB Local for the whole test run (not one per test): suites create their own
 * uniquely named tables in it. Its endpoint reaches the workers through `provide`.
 */
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../bin/local/dynamodb-local.js';
import { freePort } from './net.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
  }
}

let dynamo: DynamoDbLocal | undefined;

export async function setup(project: TestProject): Promise<void> {
  dynamo = await startDynamoDbLocal({ port: await freePort() });
  project.provide('dynamodbEndpoint', dynamo.endpoint);
}

export async function teardown(): Promise<void> {
  await dynamo?.stop();
}
