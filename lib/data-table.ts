/** The DynamoDB table of the single-table design (lambdas/adapters/dynamodb/table.json), and what the functions may do with it. */
import { type RemovalPolicy, type Stack, Validations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type { TableDesign } from './catalogue.js';

/**
 * The table and its indexes, in the stack's own scope (their logical ids, and so the deployed
 * table, stay what they were when the stack built them itself).
 */
export function addDataTable(stack: Stack, design: TableDesign, options: { ephemeral: boolean; removalPolicy: RemovalPolicy }): dynamodb.Table {
  const str = (name: string) => ({ name, type: dynamodb.AttributeType.STRING });
  const table = new dynamodb.Table(stack, 'Table', {
    partitionKey: str(design.partitionKey),
    sortKey: str(design.sortKey),
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    timeToLiveAttribute: design.timeToLiveAttribute,
    ...(design.streamViewType ? { stream: dynamodb.StreamViewType[design.streamViewType] } : {}),
    encryption: dynamodb.TableEncryption.AWS_MANAGED,
    deletionProtection: !options.ephemeral,
    removalPolicy: options.removalPolicy,
  });
  for (const gsi of design.globalSecondaryIndexes) {
    table.addGlobalSecondaryIndex({
      indexName: gsi.indexName,
      partitionKey: str(gsi.partitionKey),
      sortKey: str(gsi.sortKey),
      ...(gsi.nonKeyAttributes
        ? { projectionType: dynamodb.ProjectionType.INCLUDE, nonKeyAttributes: gsi.nonKeyAttributes }
        : { projectionType: dynamodb.ProjectionType.ALL }),
    });
  }
  Validations.of(table).acknowledge({
    id: 'AwsSolutions-DDB4',
    reason:
      'Point-in-time recovery (35 days, continuous) is the backup of this table; an AWS Backup plan would add cost and no recovery point PITR lacks for staging.',
  });
  return table;
}

/** The table and each index by name: the GSIs are known (table.json), so no index/* wildcard. */
export const tableResources = (table: dynamodb.ITable, design: TableDesign): string[] => [
  table.tableArn,
  ...design.globalSecondaryIndexes.map((gsi) => `${table.tableArn}/index/${gsi.indexName}`),
];

/** What the DynamoDB store adapter does: items, queries, batches and transactions of them; no scans, no streams. */
export const TABLE_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:ConditionCheckItem',
  'dynamodb:DescribeTable',
];
