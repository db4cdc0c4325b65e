import { ConditionalCheckFailedException, DynamoDBClient, TransactionCanceledException, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, type DynamoDBDocumentClient, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { badRequest } from '../../domain/core/errors.js';
import { DEFAULT_AUDIT_RETENTION_DAYS, matchesAuditFilter, type AuditEvent, type AuditFilter } from '../../domain/auth/audit.js';
import type {
  ApiToken,
  Cluster,
  Host,
  InfraEnv,
  Invitation,
  Manifest,
  Membership,
  Organisation,
  ServiceEvent,
  User,
  Versioned,
  WorkflowExecution,
} from '../../domain/core/entities.js';
import { WATCH_ATTRIBUTES } from '../../domain/host/host-watch.js';
import {
  ConcurrentModificationError,
  TooMuchContentionError,
  type ClusterIdentity,
  type ClusterKey,
  type HostKey,
  type InfraEnvKey,
  type InvitationKey,
  type ManifestKey,
  type OrgKey,
  type Page,
  type PageRequest,
  type Store,
  type StoreWrite,
  type TokenKey,
  type UserKey,
  type WatchedHostRecord,
  type WorkflowKey,
  type WebhookKey,
} from '../../ports/store.js';
import { ensureClusterNamesIndexed } from './cluster-name-index.js';
import { DynamoEntity, type EntitySpec } from './entity.js';
import { documentClient } from './document-client.js';
import { HostLivenessItems, livenessGuard, withLivenessItems } from './host-liveness.js';
import { keys, stripKeys, userKeys, watchCopyOf, type Item } from './keys.js';
import { unpackItem } from './packing.js';
import { webhookDeliveries } from './webhook-deliveries.js';
import { liveConnections } from './live-connections.js';
import type { Webhook } from '../../domain/events/webhooks.js';
import { decodeCursor, encodeCursor, queryAll, queryPage } from './queries.js';
import type { SdkClientOptions } from '../sdk-client.js';
import { backoffMs } from '../../domain/core/backoff.js';
import { setTimeout as sleep } from 'node:timers/promises';

/** What the active index is read for: a few hundred bytes per host instead of its inventory and replies. */
export const WATCHED_HOST_PROJECTION: readonly string[] = [
  'orgId',
  'infraEnvId',
  'hostId',
  'clusterId',
  'status',
  'version',
  'updatedAt',
  'monitorShard',
  ...WATCH_ATTRIBUTES.map(watchCopyOf),
];

/** What a cluster's identity is read for (ClusterIdentity): short attributes, never packed. */
const CLUSTER_IDENTITY_PROJECTION: readonly string[] = [
  'orgId',
  'clusterId',
  'name',
  'createdAt',
  'attributes.base_dns_domain',
  'attributes.openshift_cluster_id',
];

/** A projection holds no `attributes` map when the cluster has none of the projected ones. */
function clusterIdentityOf(item: Item): ClusterIdentity {
  const identity = stripKeys<ClusterIdentity>(item)!;
  return { ...identity, attributes: identity.attributes ?? {} };
}

/** A watched host as the active index holds it: its watched attributes back in their place. */
function watchedHostOf(item: Item): WatchedHostRecord {
  const attributes = Object.fromEntries(WATCH_ATTRIBUTES.flatMap((name) => (item[watchCopyOf(name)] === undefined ? [] : [[name, item[watchCopyOf(name)]]])));
  return { ...stripKeys<WatchedHostRecord>(item)!, attributes };
}

export interface DynamoStoreOptions extends SdkClientOptions<DynamoDBClient, DynamoDBClientConfig> {
  tableName: string;
  /** Shards of the active-hosts index: more shards spread monitor reads and writes. */
  activeShards?: number;
  /** Attempts `mutate` makes before reporting contention. */
  maxMutateAttempts?: number;
  /** Days events are kept before DynamoDB's TTL removes them. */
  eventRetentionDays?: number;
  /** Days audit records are kept before DynamoDB's TTL removes them (AUDIT_RETENTION_DAYS, default 400). */
  auditRetentionDays?: number;
}

/** Reads one audit listing makes at most to fill a page whose filter skips records. */
const AUDIT_LISTING_READS = 20;

/**
 * A page of the organisation's audit log, newest first: the time window is the index's key range,
 * resource and actor are applied to what it reads, and reading goes on until the page is full (a
 * bounded number of reads). The cursor is the key of the last record returned, so a page cut short
 * by the filter skips nothing.
 */
async function auditPage(doc: DynamoDBDocumentClient, table: string, filter: AuditFilter, page: PageRequest): Promise<Page<AuditEvent>> {
  const limit = Math.max(1, Math.min(page.limit ?? 100, 1000));
  const log = keys.auditLogOf(filter.orgId);
  let start: Item | undefined;
  try {
    start = page.cursor ? decodeCursor(page.cursor) : undefined;
  } catch {
    throw badRequest('cursor is not one this service handed out: send the `next` of the page before');
  }
  const items: AuditEvent[] = [];
  for (let read = 0; read < AUDIT_LISTING_READS; read++) {
    const result = await doc.send(
      new QueryCommand({
        TableName: table,
        IndexName: log.index,
        KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': log.pk, ':from': `${log.skPrefix}${filter.since ?? ''}`, ':to': `${log.skPrefix}${filter.until ?? ''}\uffff` },
        ScanIndexForward: false,
        Limit: limit,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of result.Items ?? []) {
      const event = stripKeys<AuditEvent>(item)!;
      if (!matchesAuditFilter(event, filter)) continue;
      items.push(event);
      if (items.length === limit) return { items, next: encodeCursor({ pk: item.pk, sk: item.sk, gsi1pk: item.gsi1pk, gsi1sk: item.gsi1sk }) };
    }
    start = result.LastEvaluatedKey;
    if (!start) return { items };
  }
  return { items, next: encodeCursor(start!) };
}

export { documentClient };

/** A host as the domain sees it, from its stored item (a read, or a stream record's image). */
export function hostOfItem(item: Item): Host {
  return stripKeys<Host>(unpackItem(item))!;
}

/** An invitation past its expiry is still listed (as expired) this long, then DynamoDB removes it. */
const INVITATION_KEPT_AFTER_EXPIRY_SECONDS = 30 * 86_400;

/** DynamoDB's limit on the writes of one BatchWriteItem, and how often unprocessed ones are retried. */
const BATCH_WRITE_LIMIT = 25;
const BATCH_WRITE_ATTEMPTS = 6;

/** The Store port on one DynamoDB table. */
export function createDynamoStore(options: DynamoStoreOptions): Store {
  const client = options.client ?? new DynamoDBClient(options.clientConfig ?? {});
  const doc = documentClient(client);
  const table = options.tableName;
  const attempts = options.maxMutateAttempts ?? 100;
  const activeShards = options.activeShards ?? 16;
  const retentionSeconds = (options.eventRetentionDays ?? 90) * 86_400;
  const auditRetentionSeconds = (options.auditRetentionDays ?? DEFAULT_AUDIT_RETENTION_DAYS) * 86_400;
  const eventItem = (event: ServiceEvent) => ({
    ...event,
    ...keys.event(event),
    ...keys.eventIndexes(event),
    entity: 'event',
    ttl: Math.floor(Date.parse(event.eventTime) / 1000) + retentionSeconds,
  });

  /** Every record kind lives in the one table and retries its writes alike. */
  const entity = <T extends Versioned, K>(spec: EntitySpec<T, K>) => new DynamoEntity(doc, table, spec, attempts);

  const organisations = entity<Organisation, OrgKey>({
    name: 'organisation',
    key: keys.organisation,
    keyOf: (r) => ({ orgId: r.orgId }),
  });

  const users = entity<User, UserKey>({
    name: 'user',
    key: userKeys.user,
    keyOf: (r) => ({ userId: r.userId }),
  });

  const memberships = entity<Membership, UserKey>({
    name: 'membership',
    key: userKeys.membership,
    keyOf: (r) => ({ userId: r.userId }),
    indexes: userKeys.membershipIndexes,
  });

  const apiTokens = entity<ApiToken, TokenKey>({
    name: 'apiToken',
    key: keys.apiToken,
    keyOf: (r) => ({ orgId: r.orgId, tokenId: r.tokenId }),
  });

  const invitations = entity<Invitation, InvitationKey>({
    name: 'invitation',
    key: keys.invitation,
    keyOf: (r) => ({ orgId: r.orgId, invitationId: r.invitationId }),
    expiresAt: (r) => Date.parse(r.expiresAt) / 1000 + INVITATION_KEPT_AFTER_EXPIRY_SECONDS,
  });

  const clusters = entity<Cluster, ClusterKey>({
    name: 'cluster',
    key: keys.cluster,
    keyOf: (r) => ({ orgId: r.orgId, clusterId: r.clusterId }),
    indexes: keys.clusterIndexes,
    remember: true,
    packed: true,
  });

  const infraEnvs = entity<InfraEnv, InfraEnvKey>({
    name: 'infraEnv',
    key: keys.infraEnv,
    keyOf: (r) => ({ orgId: r.orgId, infraEnvId: r.infraEnvId }),
    indexes: keys.infraEnvIndexes,
  });

  const hosts = entity<Host, HostKey>({
    name: 'host',
    key: keys.host,
    keyOf: (r) => ({ orgId: r.orgId, infraEnvId: r.infraEnvId, hostId: r.hostId }),
    indexes: keys.hostIndexes,
    packed: true,
    guard: (record) => livenessGuard(keys.host(record), record),
  });

  const webhooks = entity<Webhook, WebhookKey>({
    name: 'webhook',
    key: keys.webhook,
    keyOf: (r) => ({ orgId: r.orgId, webhookId: r.webhookId }),
  });

  const manifests = entity<Manifest, ManifestKey>({
    name: 'manifest',
    key: keys.manifest,
    keyOf: (r) => ({ orgId: r.orgId, clusterId: r.clusterId, folder: r.folder, fileName: r.fileName }),
  });

  const workflows = entity<WorkflowExecution, WorkflowKey>({
    name: 'workflowExecution',
    key: keys.workflow,
    keyOf: (r) => ({ orgId: r.orgId, clusterId: r.clusterId, workflow: r.workflow }),
  });

  return {
    activeShards,
    organisations,
    users,
    memberships: Object.assign(memberships, {
      listByOrg: (orgId: string) => memberships.queryAll(userKeys.membersOf(orgId)),
    }),
    apiTokens: Object.assign(apiTokens, {
      listByOrg: (orgId: string) => apiTokens.queryAll(keys.apiTokensOf(orgId)),
    }),
    invitations: Object.assign(invitations, {
      listByOrg: (orgId: string) => invitations.queryAll(keys.invitationsOf(orgId)),
    }),
    async transact(writes) {
      if (writes.length === 0) return;
      const entityOf = (write: StoreWrite) => {
        if (!(write.repository instanceof DynamoEntity)) throw new Error('a transaction writes through repositories of this store');
        return write.repository;
      };
      try {
        await doc.send(new TransactWriteCommand({ TransactItems: writes.map((write) => entityOf(write).transactItem(write)) }));
      } catch (error) {
        if (error instanceof TransactionCanceledException && error.CancellationReasons?.some((reason) => reason.Code === 'ConditionalCheckFailed')) {
          throw new ConcurrentModificationError('transaction');
        }
        throw error;
      } finally {
        for (const write of writes) entityOf(write).forgetWritten(write);
      }
    },
    clusters: Object.assign(clusters, {
      listByOrg: (orgId: string) => clusters.queryAll(keys.clustersOf(orgId)),
      listIdentitiesByOrg: (orgId: string) => queryAll(doc, table, { ...keys.clustersOf(orgId), projection: CLUSTER_IDENTITY_PROJECTION }, clusterIdentityOf),
      listIdentitiesNamed: async (orgId: string, name: string) => {
        await ensureClusterNamesIndexed(doc, table, orgId);
        return queryAll(doc, table, { ...keys.clustersNamed(orgId, name), projection: CLUSTER_IDENTITY_PROJECTION }, clusterIdentityOf);
      },
    }),
    infraEnvs: Object.assign(infraEnvs, {
      listByOrg: (orgId: string) => infraEnvs.queryAll(keys.infraEnvsOf(orgId)),
      listByCluster: (k: { orgId: string; clusterId: string }) => infraEnvs.queryAll(keys.infraEnvsOfCluster(k.orgId, k.clusterId)),
    }),
    // Assigned onto the repository: its own mutate reads through the liveness-aware get.
    hosts: Object.assign(
      hosts,
      withLivenessItems(
        {
          get: hosts.get.bind(hosts),
          remove: hosts.remove.bind(hosts),
          listByInfraEnv: (k) => hosts.queryAll(keys.hostsOfInfraEnv(k.orgId, k.infraEnvId)),
          listByCluster: (k) => hosts.queryAll(keys.hostsOfCluster(k.orgId, k.clusterId)),
          listActive: (shard, page) => queryPage(doc, table, { ...keys.activeHosts(shard), projection: WATCHED_HOST_PROJECTION }, page, watchedHostOf),
        },
        new HostLivenessItems(doc, table),
        keys.host,
        hostOfItem,
      ),
    ),
    manifests: Object.assign(manifests, {
      listByCluster: (k: { orgId: string; clusterId: string }) => manifests.queryAll(keys.manifestsOf(k.orgId, k.clusterId)),
    }),
    workflows: Object.assign(workflows, {
      listByCluster: (k: { orgId: string; clusterId: string }) => workflows.queryAll(keys.workflowsOf(k.orgId, k.clusterId)),
    }),
    webhooks: Object.assign(webhooks, {
      listByOrg: (orgId: string) => webhooks.queryAll(keys.webhooksOf(orgId)),
    }),
    webhookDeliveries: webhookDeliveries(doc, table),
    liveConnections: liveConnections(doc, table, () => Date.now()),
    auditLog: {
      async begin(event) {
        const item = {
          ...event,
          ...keys.auditRecord(event),
          ...keys.auditRecordIndexes(event),
          entity: 'audit',
          ttl: Math.floor(Date.parse(event.at) / 1000) + auditRetentionSeconds,
        };
        try {
          await doc.send(new PutCommand({ TableName: table, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }));
        } catch (error) {
          // This request's record is there already (the write was retried): the first one stands.
          if (!(error instanceof ConditionalCheckFailedException)) throw error;
        }
      },
      async finish(key, ended) {
        try {
          await doc.send(
            new UpdateCommand({
              TableName: table,
              Key: keys.auditRecord(key),
              UpdateExpression: 'SET outcome = :outcome, #resource = :resource',
              ConditionExpression: 'attribute_exists(pk)',
              ExpressionAttributeNames: { '#resource': 'resource' },
              ExpressionAttributeValues: { ':outcome': ended.outcome, ':resource': ended.resource },
            }),
          );
        } catch (error) {
          // Never begun (its first write failed, and the request with it): nothing to finish.
          if (!(error instanceof ConditionalCheckFailedException)) throw error;
        }
      },
      list: (filter, page = {}) => auditPage(doc, table, filter, page),
    },
    events: {
      async append(event) {
        try {
          await doc.send(new PutCommand({ TableName: table, Item: eventItem(event), ConditionExpression: 'attribute_not_exists(pk)' }));
        } catch (error) {
          // An event with this id is recorded already: ids are random or derived from the event's
          // cause, so it is this event, recorded again by a repeated cause. The first one stands.
          if (!(error instanceof ConditionalCheckFailedException)) throw error;
        }
      },
      async appendAll(events) {
        if (events.length <= 1) {
          if (events[0]) await this.append(events[0]);
          return;
        }
        // One request per 25 events instead of one per event. A batch takes no condition: an event's
        // id is random, or derived from its cause, and then an item it overwrites is the same event
        // (same id, cause, time and text) recorded before.
        for (let start = 0; start < events.length; start += BATCH_WRITE_LIMIT) {
          let requests = events.slice(start, start + BATCH_WRITE_LIMIT).map((event) => ({ PutRequest: { Item: eventItem(event) } }));
          for (let attempt = 0; requests.length > 0; attempt += 1) {
            if (attempt === BATCH_WRITE_ATTEMPTS) throw new TooMuchContentionError('events', BATCH_WRITE_ATTEMPTS);
            if (attempt > 0) await sleep(backoffMs(attempt, { baseMs: 25 }));
            const written = await doc.send(new BatchWriteCommand({ RequestItems: { [table]: requests } }));
            requests = (written.UnprocessedItems?.[table] ?? []) as typeof requests;
          }
        }
      },
      async list(filter, page) {
        const query = filter.audit
          ? keys.auditEventsOf(filter.orgId)
          : filter.hostId
            ? keys.eventsOfHost(filter.orgId, filter.hostId)
            : filter.clusterId
              ? keys.eventsOfCluster(filter.orgId, filter.clusterId)
              : filter.infraEnvId
                ? keys.eventsOfInfraEnv(filter.orgId, filter.infraEnvId)
                : undefined;
        if (!query) throw new Error('events are listed per cluster, host or infra-env');
        return queryPage<ServiceEvent>(doc, table, query, page);
      },
    },
  };
}
