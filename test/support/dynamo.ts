import { randomUUID } from 'node:crypto';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { inject } from 'vitest';
import { ensureTable } from '../../lambdas/adapters/dynamodb/schema.js';
import { createDynamoStore } from '../../lambdas/adapters/dynamodb/store.js';
import type { Store } from '../../lambdas/ports/store.js';

/** A fresh table in the run's shared DynamoDB Local, through the real SDK client. */
export async function freshStore(options: { maxMutateAttempts?: number } = {}): Promise<{
  store: Store;
  client: DynamoDBClient;
  tableName: string;
  drop(): Promise<void>;
}> {
  const client = new DynamoDBClient({
    endpoint: inject('dynamodbEndpoint'),
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
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
