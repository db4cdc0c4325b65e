/**
 * Clusters by name. Every cluster write carries its name in gsi3 (keys.clusterIndexes), so a
 * lookup by name reads one index partition, however many clusters the organisation has. Clusters
 * written before that index existed do not carry it: the first lookup in an organisation without
 * the marker (keys.clusterNamesIndexed) gives each of its clusters the index attributes, once,
 * then writes the marker.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { forEachBounded } from '../../domain/core/bounded-concurrency.js';
import { LocalCache } from '../../ports/local-caches.js';
import { keys, type Item } from './keys.js';
import { queryAll } from './queries.js';

const BACKFILLS_IN_FLIGHT = 8;
const indexedOrganisations = new LocalCache<true>('cluster-names-indexed');

export async function ensureClusterNamesIndexed(doc: DynamoDBDocumentClient, table: string, orgId: string): Promise<void> {
  if (indexedOrganisations.peek(orgId)) return;
  const marker = await doc.send(new GetCommand({ TableName: table, Key: keys.clusterNamesIndexed({ orgId }), ConsistentRead: true }));
  if (!marker.Item) {
    const clusters = await queryAll(doc, table, { ...keys.clustersOf(orgId), projection: ['pk', 'sk', 'clusterId', 'name', 'gsi3pk'] }, (item) => item);
    const unindexed = clusters.filter((item) => item.gsi3pk === undefined && typeof item.name === 'string');
    await forEachBounded(unindexed, BACKFILLS_IN_FLIGHT, (item) => indexName(doc, table, orgId, item));
    await doc.send(new PutCommand({ TableName: table, Item: { ...keys.clusterNamesIndexed({ orgId }), entity: 'clusterNamesIndexed', orgId } }));
  }
  indexedOrganisations.set(orgId, true);
}

async function indexName(doc: DynamoDBDocumentClient, table: string, orgId: string, item: Item): Promise<void> {
  const name = item.name as string;
  const { gsi3pk, gsi3sk } = keys.clusterIndexes({ orgId, clusterId: item.clusterId as string, name });
  try {
    await doc.send(
      new UpdateCommand({
        TableName: table,
        Key: { pk: item.pk, sk: item.sk },
        UpdateExpression: 'SET gsi3pk = :pk, gsi3sk = :sk',
        // A cluster renamed meanwhile was indexed by its own write, and one deleted stays deleted.
        ConditionExpression: '#name = :name AND attribute_not_exists(gsi3pk)',
        ExpressionAttributeNames: { '#name': 'name' },
        ExpressionAttributeValues: { ':pk': gsi3pk, ':sk': gsi3sk, ':name': name },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}
