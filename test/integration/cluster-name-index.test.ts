import { DeleteItemCommand, GetItemCommand, UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cluster } from '../../lambdas/domain/core/entities.js';
import { keys } from '../../lambdas/adapters/dynamodb/keys.js';
import type { Store } from '../../lambdas/ports/store.js';
import { freshStore } from '../support/dynamo.js';

const now = '2026-11-28T00:00:00.000Z';

function cluster(orgId: string, clusterId: string, name: string): Omit<Cluster, 'version'> {
  return { orgId, clusterId, name, status: 'pending-for-input', createdAt: now, updatedAt: now, attributes: { base_dns_domain: 'example.com' } };
}

const idsOf = (identities: { clusterId: string }[]) => identities.map((c) => c.clusterId).sort();

describe('clusters by name (DynamoDB Local, real SDK client)', () => {
  let store: Store;
  let client: DynamoDBClient;
  let tableName: string;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ store, client, tableName, drop } = await freshStore());
  });
  afterAll(async () => drop());

  it('finds the clusters of one name in their organisation, and follows a rename', async () => {
    await store.clusters.create(cluster('org-n', 'a1', 'edge-1'));
    await store.clusters.create(cluster('org-n', 'a2', 'edge-1'));
    await store.clusters.create(cluster('org-n', 'b1', 'edge-2'));
    await store.clusters.create(cluster('org-other', 'x1', 'edge-1'));

    expect(idsOf(await store.clusters.listIdentitiesNamed('org-n', 'edge-1'))).toEqual(['a1', 'a2']);
    expect(idsOf(await store.clusters.listIdentitiesNamed('org-other', 'edge-1'))).toEqual(['x1']);
    expect(await store.clusters.listIdentitiesNamed('org-n', 'edge-9')).toEqual([]);

    await store.clusters.mutate({ orgId: 'org-n', clusterId: 'a2' }, (c) => ({ ...c, name: 'edge-3' }));
    expect(idsOf(await store.clusters.listIdentitiesNamed('org-n', 'edge-1'))).toEqual(['a1']);
    expect(idsOf(await store.clusters.listIdentitiesNamed('org-n', 'edge-3'))).toEqual(['a2']);
  });

  it('indexes, once, the clusters written before the index existed', async () => {
    const orgId = 'org-before-the-index';
    for (const [id, name] of [
      ['o1', 'old-1'],
      ['o2', 'old-2'],
      ['o3', 'old-1'],
    ])
      await store.clusters.create(cluster(orgId, id!, name!));
    // As written by the service before this index: no gsi3 attributes, and no marker.
    for (const id of ['o1', 'o2', 'o3']) {
      await client.send(
        new UpdateItemCommand({ TableName: tableName, Key: marshall(keys.cluster({ orgId, clusterId: id })), UpdateExpression: 'REMOVE gsi3pk, gsi3sk' }),
      );
    }
    await client.send(new DeleteItemCommand({ TableName: tableName, Key: marshall(keys.clusterNamesIndexed({ orgId })) }));

    expect(idsOf(await store.clusters.listIdentitiesNamed(orgId, 'old-1'))).toEqual(['o1', 'o3']);
    expect(idsOf(await store.clusters.listIdentitiesNamed(orgId, 'old-2'))).toEqual(['o2']);
    const marker = await client.send(new GetItemCommand({ TableName: tableName, Key: marshall(keys.clusterNamesIndexed({ orgId })), ConsistentRead: true }));
    expect(marker.Item).toBeDefined();
    // The backfill wrote index attributes only: the records read back unchanged.
    const o1 = await store.clusters.get({ orgId, clusterId: 'o1' });
    expect(o1).toMatchObject({ name: 'old-1', version: 1, attributes: { base_dns_domain: 'example.com' } });
  });
});
