import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import design from './table.json' with { type: 'json' };

export const tableDesign = design;

/**
 * Creates the table as the CDK stack declares it, when it is missing. Used by the embedded
 * runtime and the tests; in AWS the stack owns the table.
 */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<'created' | 'exists'> {
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    // A table made before the stream existed gets it now: its changes are followed from here on.
    if (!Table?.StreamSpecification?.StreamEnabled) {
      await client.send(
        new UpdateTableCommand({
          TableName: tableName,
          StreamSpecification: { StreamEnabled: true, StreamViewType: design.streamViewType as 'NEW_AND_OLD_IMAGES' },
        }),
      );
    }
    return 'exists';
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  const attributes = new Set<string>([design.partitionKey, design.sortKey]);
  for (const index of design.globalSecondaryIndexes) {
    attributes.add(index.partitionKey);
    attributes.add(index.sortKey);
  }
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      StreamSpecification: { StreamEnabled: true, StreamViewType: design.streamViewType as 'NEW_AND_OLD_IMAGES' },
      AttributeDefinitions: [...attributes].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      KeySchema: [
        { AttributeName: design.partitionKey, KeyType: 'HASH' },
        { AttributeName: design.sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: design.globalSecondaryIndexes.map((index) => ({
        IndexName: index.indexName,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: 'nonKeyAttributes' in index ? { ProjectionType: 'INCLUDE', NonKeyAttributes: index.nonKeyAttributes } : { ProjectionType: 'ALL' },
      })),
    }),
  );
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: design.timeToLiveAttribute, Enabled: true },
    }),
  );
  return 'created';
}
