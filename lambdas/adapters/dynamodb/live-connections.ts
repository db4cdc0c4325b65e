/**
 * WebSocket connections in the table: one item per connection (`LIVE#<id>`), listed per
 * organisation through gsi1 for the fan-out, removed by TTL if $disconnect never came. The cap on
 * an organisation's connections is a counter item updated in the same transaction as the
 * connection is added or removed, so two connects at once cannot both pass the last place.
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { LiveConnection, Store } from '../../ports/store.js';
import { stripKeys } from './keys.js';
import { queryAll } from './queries.js';

const connectionKey = (connectionId: string) => ({ pk: `LIVE#${connectionId}`, sk: 'CONNECTION' });
const counterKey = (orgId: string) => ({ pk: `ORG#${orgId}`, sk: 'LIVE-CONNECTIONS' });

export function liveConnections(doc: DynamoDBDocumentClient, table: string, now: () => number): Store['liveConnections'] {
  const ttlOf = (ttlSeconds: number) => Math.floor(now() / 1000) + ttlSeconds;
  const itemOf = (connection: LiveConnection, ttlSeconds: number) => ({
    ...connection,
    ...connectionKey(connection.connectionId),
    gsi1pk: `ORG#${connection.orgId}#LIVE`,
    gsi1sk: `CONNECTION#${connection.connectionId}`,
    entity: 'liveConnection',
    ttl: ttlOf(ttlSeconds),
  });
  return {
    async add(connection, cap, ttlSeconds) {
      try {
        await doc.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: { TableName: table, Item: itemOf(connection, ttlSeconds), ConditionExpression: 'attribute_not_exists(pk)' } },
              {
                Update: {
                  TableName: table,
                  Key: counterKey(connection.orgId),
                  UpdateExpression: 'ADD #open :one',
                  ConditionExpression: 'attribute_not_exists(#open) OR #open < :cap',
                  ExpressionAttributeNames: { '#open': 'open' },
                  ExpressionAttributeValues: { ':one': 1, ':cap': cap },
                },
              },
            ],
          }),
        );
        return true;
      } catch (error) {
        if (error instanceof TransactionCanceledException) return false;
        throw error;
      }
    },
    async get(connectionId) {
      const result = await doc.send(new GetCommand({ TableName: table, Key: connectionKey(connectionId) }));
      return stripKeys<LiveConnection>(result.Item);
    },
    async addSubscription(connectionId, subscription, ttlSeconds) {
      try {
        await doc.send(
          new UpdateCommand({
            TableName: table,
            Key: connectionKey(connectionId),
            UpdateExpression: 'SET #subscriptions = list_append(if_not_exists(#subscriptions, :none), :added), #ttl = :ttl',
            ConditionExpression: 'attribute_exists(pk) AND NOT contains(#subscriptions, :subscription)',
            ExpressionAttributeNames: { '#subscriptions': 'subscriptions', '#ttl': 'ttl' },
            ExpressionAttributeValues: { ':none': [], ':added': [subscription], ':subscription': subscription, ':ttl': ttlOf(ttlSeconds) },
          }),
        );
      } catch (error) {
        // Subscribed already, or the connection is gone.
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    },
    async extend(connectionId, ttlSeconds) {
      try {
        await doc.send(
          new UpdateCommand({
            TableName: table,
            Key: connectionKey(connectionId),
            UpdateExpression: 'SET #ttl = :ttl',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: { '#ttl': 'ttl' },
            ExpressionAttributeValues: { ':ttl': ttlOf(ttlSeconds) },
          }),
        );
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    },
    async countMessage(connectionId, second) {
      // Two conditional updates: the same second adds one; another second starts at one. Messages handled at once count each.
      for (let attempt = 0; attempt < 5; attempt++) {
        for (const [update, condition] of [
          ['SET #window.#count = #window.#count + :one', 'attribute_exists(pk) AND #window.#second = :second'],
          ['SET #window = :fresh', 'attribute_exists(pk) AND (attribute_not_exists(#window) OR #window.#second <> :second)'],
        ] as const) {
          try {
            const result = await doc.send(
              new UpdateCommand({
                TableName: table,
                Key: connectionKey(connectionId),
                UpdateExpression: update,
                ConditionExpression: condition,
                ExpressionAttributeNames: update.includes('#count')
                  ? { '#window': 'window', '#count': 'count', '#second': 'second' }
                  : { '#window': 'window', '#second': 'second' },
                ExpressionAttributeValues: update.includes(':one') ? { ':one': 1, ':second': second } : { ':fresh': { second, count: 1 }, ':second': second },
                ReturnValues: 'ALL_NEW',
              }),
            );
            return (result.Attributes?.window as { count?: number } | undefined)?.count ?? 1;
          } catch (error) {
            if (!(error instanceof ConditionalCheckFailedException)) throw error;
          }
        }
        const exists = await doc.send(new GetCommand({ TableName: table, Key: connectionKey(connectionId), ProjectionExpression: 'pk' }));
        if (!exists.Item) return undefined;
      }
      return undefined;
    },
    async remove(connectionId) {
      const result = await doc.send(new GetCommand({ TableName: table, Key: connectionKey(connectionId) }));
      const orgId = result.Item?.orgId;
      if (typeof orgId !== 'string') return;
      try {
        await doc.send(
          new TransactWriteCommand({
            TransactItems: [
              { Delete: { TableName: table, Key: connectionKey(connectionId), ConditionExpression: 'attribute_exists(pk)' } },
              {
                Update: {
                  TableName: table,
                  Key: counterKey(orgId),
                  UpdateExpression: 'ADD #open :minus',
                  ConditionExpression: '#open > :zero',
                  ExpressionAttributeNames: { '#open': 'open' },
                  ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
                },
              },
            ],
          }),
        );
      } catch (error) {
        // Removed already (a second $disconnect, or the fan-out found it gone first).
        if (!(error instanceof TransactionCanceledException)) throw error;
      }
    },
    listByOrg: (orgId) => queryAll(doc, table, { index: 'gsi1', pk: `ORG#${orgId}#LIVE`, skPrefix: 'CONNECTION#' }, (item) => stripKeys<LiveConnection>(item)!),
  };
}
