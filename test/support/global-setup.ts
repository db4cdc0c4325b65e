/**
 * One DynamoDB Local for the whole test run (not one per test): suites create their own
 * uniquely named tables in it. Its endpoint reaches the workers through `provide`.
 */
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../bin/local/dynamodb-local.js';
import net from 'node:net';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

let dynamo: DynamoDbLocal | undefined;

export async function setup(project: TestProject): Promise<void> {
  dynamo = await startDynamoDbLocal({ port: await freePort() });
  project.provide('dynamodbEndpoint', dynamo.endpoint);
}

export async function teardown(): Promise<void> {
  await dynamo?.stop();
}
