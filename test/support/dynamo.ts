import { randomUUID } from 'node:crypto';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { dynamodbEndpoint } from './dynamodb-local.js';
import { ensureTable } from '../../lambdas/adapters/dynamodb/schema.js';
import { createDynamoStore } from '../../lambdas/adapters/dynamodb/store.js';
import { unmeteredRetries } from '../../lambdas/adapters/dynamodb/retries.js';
import type { Store } from '../../lambdas/ports/store.js';

/** A fresh table in this test file's DynamoDB Local, through the real SDK client. */
export async function freshStore(options: { maxMutateAttempts?: number } = {}): Promise<{
  store: Store;
  client: DynamoDBClient;
  tableName: string;
  drop(): Promise<void>;
}> {
  const client = new DynamoDBClient({
    endpoint: await dynamodbEndpoint(),
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    // As the embedded runtime's clients: DynamoDB Local's lock time-outs retried without a quota.
    maxAttempts: 8,
    retryStrategy: unmeteredRetries(8),
  });
  const tableName = `test-${randomUUID()}`;
  await ensureTable(client, tableName);
  return {
    client,
    tableName,
    store: createDynamoStore({ tableName, client, ...options }),
    drop: async () => {
      await client.send(new DeleteTableCommand({ TableName: tableName }));
      client.destroy();
    },
  };
}
