/**
 * Webhook deliveries in the table: each endpoint's deliveries about one resource form a queue (one
 * partition, sorted by the change's stream sequence number), a lease item in that partition lets
 * one sender at a time work the queue, and a sparse index (gsi3, `WEBHOOK-DUE`) holds the pending
 * ones by when they are due, for the retry sweep. Delivered and dead deliveries leave that index and
 * are kept 14 days for listing.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { WebhookDelivery } from '../../domain/events/webhooks.js';
import type { Store, WebhookQueue } from '../../ports/store.js';
import { stripKeys } from './keys.js';
import { queryPage } from './queries.js';

const KEPT_SECONDS = 14 * 86_400;
const DUE_PARTITION = 'WEBHOOK-DUE';

const queuePartition = (q: WebhookQueue) => `ORG#${q.orgId}#WEBHOOK#${q.webhookId}#QUEUE#${q.resource}`;
const deliveriesOf = (orgId: string, webhookId: string) => `ORG#${orgId}#WEBHOOK#${webhookId}#DELIVERIES`;

function itemOf(delivery: WebhookDelivery): Record<string, unknown> {
  const pk = queuePartition(delivery);
  return {
    ...delivery,
    pk,
    sk: `DELIVERY#${delivery.sequence}#${delivery.deliveryId}`,
    gsi1pk: deliveriesOf(delivery.orgId, delivery.webhookId),
    gsi1sk: `${delivery.createdAt}#${delivery.sequence}#${delivery.deliveryId}`,
    ...(delivery.state === 'pending' ? { gsi3pk: DUE_PARTITION, gsi3sk: `${delivery.nextAttemptAt ?? delivery.createdAt}#${pk}` } : {}),
    entity: 'webhookDelivery',
    ttl: Math.floor(Date.parse(delivery.createdAt) / 1000) + KEPT_SECONDS,
  };
}

export function webhookDeliveries(doc: DynamoDBDocumentClient, table: string): Store['webhookDeliveries'] {
  return {
    async enqueue(delivery) {
      try {
        await doc.send(new PutCommand({ TableName: table, Item: itemOf(delivery), ConditionExpression: 'attribute_not_exists(pk)' }));
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    },
    async pending(queue, limit) {
      // Delivered ones stay in the queue's partition until their TTL: read past them (a bounded number of pages).
      const found: WebhookDelivery[] = [];
      let start: Record<string, unknown> | undefined;
      for (let page = 0; page < 20 && found.length < limit; page++) {
        const result = await doc.send(
          new QueryCommand({
            TableName: table,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
            FilterExpression: '#state = :pending',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: { ':pk': queuePartition(queue), ':prefix': 'DELIVERY#', ':pending': 'pending' },
            ExclusiveStartKey: start,
          }),
        );
        found.push(...(result.Items ?? []).map((item) => stripKeys<WebhookDelivery>(item)!));
        start = result.LastEvaluatedKey;
        if (!start) break;
      }
      return found.slice(0, limit);
    },
    async record(delivery) {
      await doc.send(new PutCommand({ TableName: table, Item: itemOf(delivery) }));
    },
    async due(now, limit) {
      const result = await doc.send(
        new QueryCommand({
          TableName: table,
          IndexName: 'gsi3',
          KeyConditionExpression: 'gsi3pk = :pk AND gsi3sk <= :now',
          ExpressionAttributeValues: { ':pk': DUE_PARTITION, ':now': `${now}\uffff` },
          Limit: limit * 4,
        }),
      );
      const queues = new Map<string, WebhookQueue>();
      for (const item of result.Items ?? []) {
        const delivery = stripKeys<WebhookDelivery>(item)!;
        queues.set(queuePartition(delivery), { orgId: delivery.orgId, webhookId: delivery.webhookId, resource: delivery.resource });
        if (queues.size === limit) break;
      }
      return [...queues.values()];
    },
    listByWebhook: (key, page) =>
      queryPage<WebhookDelivery>(doc, table, { index: 'gsi1', pk: deliveriesOf(key.orgId, key.webhookId) }, { newestFirst: true, ...page }),
    async lease(queue, holder, until, now) {
      try {
        await doc.send(
          new PutCommand({
            TableName: table,
            Item: { pk: queuePartition(queue), sk: 'LEASE', holder, until, entity: 'webhookLease', ttl: Math.floor(Date.parse(until) / 1000) + 3600 },
            ConditionExpression: 'attribute_not_exists(pk) OR #until < :now OR holder = :holder',
            ExpressionAttributeNames: { '#until': 'until' },
            ExpressionAttributeValues: { ':now': now, ':holder': holder },
          }),
        );
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    },
    async release(queue, holder) {
      try {
        await doc.send(
          new DeleteCommand({
            TableName: table,
            Key: { pk: queuePartition(queue), sk: 'LEASE' },
            ConditionExpression: 'holder = :holder',
            ExpressionAttributeValues: { ':holder': holder },
          }),
        );
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    },
  };
}
