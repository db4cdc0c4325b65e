import { LocalCache } from '../../ports/local-caches.js';
import { ConditionalCheckFailedException, DynamoDBClient, TransactionCanceledException, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  type QueryCommandInput,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';

type TransactWriteItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
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
} from '../../domain/entities.js';
import {
  ConcurrentModificationError,
  TooMuchContentionError,
  type EntityRepository,
  type Mutation,
  type Page,
  type PageRequest,
  type ClusterKey,
  type HostKey,
  type InfraEnvKey,
  type InvitationKey,
  type StoreWrite,
  type ManifestKey,
  type OrgKey,
  type Store,
  type TokenKey,
  type UserKey,
  type WatchedHostRecord,
  type WorkflowKey,
} from '../../ports/store.js';
import { WATCH_ATTRIBUTES } from '../../domain/host-watch.js';
import { KEY_ATTRIBUTES, keys, userKeys, watchCopyOf, type IndexAttributes, type ItemKey } from './keys.js';
import { packItem, unpackItem } from './packing.js';
import { HostLivenessItems, livenessGuard, withLivenessItems, type WriteGuard } from './host-liveness.js';

type Item = Record<string, unknown>;

/** What the active index is read for: a few hundred bytes per host instead of its inventory and replies. */
export const WATCHED_HOST_PROJECTION: readonly string[] = [
  'orgId', 'infraEnvId', 'hostId', 'clusterId', 'status', 'version', 'updatedAt', 'monitorShard',
  ...WATCH_ATTRIBUTES.map(watchCopyOf),
];

/** A watched host as the active index holds it: its watched attributes back in their place. */
function watchedHostOf(item: Item): WatchedHostRecord {
  const attributes = Object.fromEntries(WATCH_ATTRIBUTES.flatMap((name) => (item[watchCopyOf(name)] === undefined ? [] : [[name, item[watchCopyOf(name)]]])));
  return { ...stripKeys<WatchedHostRecord>(item)!, attributes };
}

export interface DynamoStoreOptions {
  tableName: string;
  client?: DynamoDBClient;
  clientConfig?: DynamoDBClientConfig;
  /** Shards of the active-hosts index: more shards spread monitor reads and writes. */
  activeShards?: number;
  /** Attempts `mutate` makes before reporting contention. */
  maxMutateAttempts?: number;
  /** Days events are kept before DynamoDB's TTL removes them. */
  eventRetentionDays?: number;
}

const MAX_PAGES = 1_000;

export function documentClient(client: DynamoDBClient): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
}

function stripKeys<T>(item: Item | undefined): T | undefined {
  if (!item) return undefined;
  const record: Item = { ...item };
  for (const attribute of KEY_ATTRIBUTES) delete record[attribute];
  return record as T;
}

/** A host as the domain sees it, from its stored item (a read, or a stream record's image). */
export function hostOfItem(item: Item): Host {
  return stripKeys<Host>(unpackItem(item))!;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Full-jitter exponential backoff: spreads the retries of writers that collided on one item so
 * the number of attempts stays near linear in the number of writers instead of quadratic.
 */
function backoffMs(attempt: number): number {
  const cap = Math.min(2_000, 10 * 2 ** attempt);
  return Math.random() * cap;
}

interface EntitySpec<T, K> {
  name: string;
  key(key: K): ItemKey;
  keyOf(record: T | Omit<T, 'version'>): K;
  indexes?(record: T | Omit<T, 'version'>): IndexAttributes;
  /** Keep the latest copy this process read or wrote, for getRecent (small, hot records only). */
  remember?: boolean;
  /** Store long text attributes deflated (see packing.ts). */
  packed?: boolean;
  /**
   * A condition another item must still meet for this record's replacement to be written: then
   * both go in one transaction, and a failed condition is a conflict (mutate reads anew).
   */
  guard?(record: T): WriteGuard | undefined;
  /** When DynamoDB may delete the record (epoch seconds, the table's TTL attribute). */
  expiresAt?(record: T | Omit<T, 'version'>): number;
}


class DynamoEntity<T extends Versioned, K> implements EntityRepository<T, K> {
  constructor(
    protected readonly doc: DynamoDBDocumentClient,
    protected readonly table: string,
    protected readonly spec: EntitySpec<T, K>,
    private readonly maxAttempts: number,
  ) {}

  /** The latest copy this instance read or wrote, by item key (spec.remember only). */
  private readonly remembered = new LocalCache<Promise<T | undefined>>('recent-cluster-copies');

  private remember(key: ItemKey, record: Promise<T | undefined>): void {
    if (!this.spec.remember) return;
    const id = `${key.pk}|${key.sk}`;
    this.remembered.set(id, record);
    record.catch(() => this.remembered.peek(id) === record && this.remembered.forget(id));
  }

  private forget(key: ItemKey): void {
    this.remembered.forget(`${key.pk}|${key.sk}`);
  }

  /**
   * A copy read or written by this instance within the cache's bound, else a fresh read. Writes of
   * this instance replace the copy at once; other instances' writes show within the bound.
   */
  getRecent(key: K): Promise<T | undefined> {
    const itemKey = this.spec.key(key);
    const known = this.remembered.peek(`${itemKey.pk}|${itemKey.sk}`);
    if (known) return known.then((record) => (record ? structuredClone(record) : undefined));
    return this.get(key);
  }

  private toItem(record: T | Omit<T, 'version'>, version: number): Item {
    const key = this.spec.key(this.spec.keyOf(record));
    const expiresAt = this.spec.expiresAt?.(record);
    const item = { ...(record as Item), version, ...key, ...(this.spec.indexes?.(record) ?? {}), ...(expiresAt ? { ttl: Math.floor(expiresAt) } : {}), entity: this.spec.name };
    return this.spec.packed ? packItem(item) : item;
  }

  private readonly fromItem = (item: Item): T => stripKeys<T>(this.spec.packed ? unpackItem(item) : item)!;

  async get(key: K): Promise<T | undefined> {
    const itemKey = this.spec.key(key);
    const read = this.doc.send(new GetCommand({ TableName: this.table, Key: itemKey, ConsistentRead: true })).then((result) => (result.Item ? this.fromItem(result.Item) : undefined));
    this.remember(itemKey, read.then((record) => (record ? structuredClone(record) : undefined)));
    return read;
  }

  async create(record: Omit<T, 'version'>): Promise<T> {
    const item = this.toItem(record, 1);
    try {
      await this.doc.send(
        new PutCommand({ TableName: this.table, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) throw new ConcurrentModificationError(this.spec.name);
      throw error;
    }
    const created = { ...record, version: 1 } as T;
    this.remember(this.spec.key(this.spec.keyOf(record)), Promise.resolve(structuredClone(created)));
    return created;
  }

  private versionedPut(record: T) {
    return { TableName: this.table, Item: this.toItem(record, record.version + 1), ...versionCondition(record.version) };
  }

  /** This write as one item of a transaction (Store.transact): the conditions of create, replace and remove. */
  transactItem(write: StoreWrite): TransactWriteItem {
    if (this.spec.guard) throw new Error(`${this.spec.name} records are not written in transactions: their replacement carries a guard of its own`);
    if (write.kind === 'create') {
      return { Put: { TableName: this.table, Item: this.toItem(write.record as Omit<T, 'version'>, 1), ConditionExpression: 'attribute_not_exists(pk)' } };
    }
    if (write.kind === 'replace') return { Put: this.versionedPut(write.record as T) };
    return { Delete: { TableName: this.table, Key: this.spec.key(write.key as K), ...versionCondition(write.expectedVersion) } };
  }

  /** After a transaction: what this process remembered of the record may be older than what is stored. */
  forgetWritten(write: StoreWrite): void {
    this.forget(this.spec.key(write.kind === 'remove' ? (write.key as K) : this.spec.keyOf(write.record as T)));
  }

  async replace(record: T): Promise<T> {
    const next = record.version + 1;
    const put = this.versionedPut(record);
    const guard = this.spec.guard?.(record);
    try {
      if (guard) await this.doc.send(new TransactWriteCommand({ TransactItems: [{ Put: put }, { ConditionCheck: { TableName: this.table, ...guard } }] }));
      else await this.doc.send(new PutCommand(put));
    } catch (error) {
      // Whatever this process remembered is older than what another writer stored.
      this.forget(this.spec.key(this.spec.keyOf(record)));
      if (error instanceof ConditionalCheckFailedException) throw new ConcurrentModificationError(this.spec.name);
      if (error instanceof TransactionCanceledException && error.CancellationReasons?.some((reason) => reason.Code === 'ConditionalCheckFailed')) {
        throw new ConcurrentModificationError(this.spec.name);
      }
      throw error;
    }
    const written = { ...record, version: next };
    this.remember(this.spec.key(this.spec.keyOf(record)), Promise.resolve(structuredClone(written)));
    return written;
  }

  async mutate(key: K, change: Mutation<T>, justRead?: T): Promise<T | undefined> {
    for (let attempt = 0; attempt < this.maxAttempts; attempt++) {
      const current = attempt === 0 && justRead ? justRead : await this.get(key);
      if (!current) return undefined;
      const changed = change(structuredClone(current));
      if (changed === undefined) return current;
      try {
        return await this.replace({ ...changed, version: current.version });
      } catch (error) {
        if (!(error instanceof ConcurrentModificationError)) throw error;
        await sleep(backoffMs(attempt));
      }
    }
    throw new TooMuchContentionError(this.spec.name, this.maxAttempts);
  }

  async remove(key: K, expectedVersion?: number): Promise<void> {
    this.forget(this.spec.key(key));
    try {
      await this.doc.send(
        new DeleteCommand({
          TableName: this.table,
          Key: this.spec.key(key),
          ...(expectedVersion === undefined ? {} : versionCondition(expectedVersion)),
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) throw new ConcurrentModificationError(this.spec.name);
      throw error;
    }
  }

  queryAll(query: IndexQuery): Promise<T[]> {
    return queryAll<T>(this.doc, this.table, query, this.fromItem);
  }

  queryPage(query: IndexQuery, page?: PageRequest): Promise<Page<T>> {
    return queryPage<T>(this.doc, this.table, query, page, this.fromItem);
  }
}

function versionCondition(expected: number) {
  return { ConditionExpression: '#version = :expected', ExpressionAttributeNames: { '#version': 'version' }, ExpressionAttributeValues: { ':expected': expected } };
}

interface IndexQuery {
  index?: string;
  pk: string;
  skPrefix?: string;
  /** Attribute paths to read (top-level names, or `parent.child`), instead of whole items. */
  projection?: readonly string[];
}

/** Reads every page of a query; listings served this way are bounded per parent. */
async function queryAll<T>(doc: DynamoDBDocumentClient, table: string, query: IndexQuery, fromItem: (item: Item) => T): Promise<T[]> {
  const items: T[] = [];
  let start: Item | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await doc.send(new QueryCommand({ ...queryInput(table, query), ExclusiveStartKey: start }));
    for (const item of result.Items ?? []) items.push(fromItem(item));
    start = result.LastEvaluatedKey;
    if (!start) return items;
  }
  throw new Error(`query of ${query.pk} exceeded ${MAX_PAGES} pages`);
}

async function queryPage<T>(
  doc: DynamoDBDocumentClient,
  table: string,
  query: IndexQuery,
  page: PageRequest = {},
  fromItem: (item: Item) => T = (item) => stripKeys<T>(item)!,
): Promise<Page<T>> {
  const result = await doc.send(
    new QueryCommand({
      ...queryInput(table, query),
      Limit: page.limit,
      ScanIndexForward: !page.newestFirst,
      ExclusiveStartKey: page.cursor ? decodeCursor(page.cursor) : undefined,
    }),
  );
  return {
    items: (result.Items ?? []).map(fromItem),
    next: result.LastEvaluatedKey ? encodeCursor(result.LastEvaluatedKey) : undefined,
  };
}

function queryInput(table: string, query: IndexQuery): QueryCommandInput {
  const partitionAttribute = query.index ? (query.index === 'active' ? 'activePk' : `${query.index}pk`) : 'pk';
  const sortAttribute = query.index ? (query.index === 'active' ? 'activeSk' : `${query.index}sk`) : 'sk';
  const names: Record<string, string> = query.skPrefix ? { '#pk': partitionAttribute, '#sk': sortAttribute } : { '#pk': partitionAttribute };
  let projection: string | undefined;
  if (query.projection) {
    const placeholders = new Map<string, string>();
    const placeholder = (name: string) => {
      let found = placeholders.get(name);
      if (!found) placeholders.set(name, (found = `#p${placeholders.size}`));
      names[found] = name;
      return found;
    };
    projection = query.projection.map((path) => path.split('.').map(placeholder).join('.')).join(', ');
  }
  return {
    TableName: table,
    IndexName: query.index,
    KeyConditionExpression: query.skPrefix ? '#pk = :pk AND begins_with(#sk, :prefix)' : '#pk = :pk',
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: query.skPrefix ? { ':pk': query.pk, ':prefix': query.skPrefix } : { ':pk': query.pk },
    ...(projection ? { ProjectionExpression: projection } : {}),
  };
}

function encodeCursor(key: Item): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

function decodeCursor(cursor: string): Item {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Item;
  } catch {
    // fall through to the error below
  }
  throw new InvalidCursorError();
}

export class InvalidCursorError extends Error {
  constructor() {
    super('the page cursor is not one this service issued');
    this.name = 'InvalidCursorError';
  }
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
  const eventItem = (event: ServiceEvent) => ({
    ...event,
    ...keys.event(event),
    ...keys.eventIndexes(event),
    entity: 'event',
    ttl: Math.floor(Date.parse(event.eventTime) / 1000) + retentionSeconds,
  });

  const organisations = new DynamoEntity<Organisation, OrgKey>(doc, table, {
    name: 'organisation',
    key: keys.organisation,
    keyOf: (r) => ({ orgId: r.orgId }),
  }, attempts);

  const users = new DynamoEntity<User, UserKey>(doc, table, {
    name: 'user',
    key: userKeys.user,
    keyOf: (r) => ({ userId: r.userId }),
  }, attempts);

  const memberships = new DynamoEntity<Membership, UserKey>(doc, table, {
    name: 'membership',
    key: userKeys.membership,
    keyOf: (r) => ({ userId: r.userId }),
    indexes: userKeys.membershipIndexes,
  }, attempts);

  const apiTokens = new DynamoEntity<ApiToken, TokenKey>(doc, table, {
    name: 'apiToken',
    key: keys.apiToken,
    keyOf: (r) => ({ orgId: r.orgId, tokenId: r.tokenId }),
  }, attempts);

  const invitations = new DynamoEntity<Invitation, InvitationKey>(doc, table, {
    name: 'invitation',
    key: keys.invitation,
    keyOf: (r) => ({ orgId: r.orgId, invitationId: r.invitationId }),
    expiresAt: (r) => Date.parse(r.expiresAt) / 1000 + INVITATION_KEPT_AFTER_EXPIRY_SECONDS,
  }, attempts);

  const clusters = new DynamoEntity<Cluster, ClusterKey>(doc, table, {
    name: 'cluster',
    key: keys.cluster,
    keyOf: (r) => ({ orgId: r.orgId, clusterId: r.clusterId }),
    indexes: keys.clusterIndexes,
    remember: true,
    packed: true,
  }, attempts);

  const infraEnvs = new DynamoEntity<InfraEnv, InfraEnvKey>(doc, table, {
    name: 'infraEnv',
    key: keys.infraEnv,
    keyOf: (r) => ({ orgId: r.orgId, infraEnvId: r.infraEnvId }),
    indexes: keys.infraEnvIndexes,
  }, attempts);

  const hosts = new DynamoEntity<Host, HostKey>(doc, table, {
    name: 'host',
    key: keys.host,
    keyOf: (r) => ({ orgId: r.orgId, infraEnvId: r.infraEnvId, hostId: r.hostId }),
    indexes: keys.hostIndexes,
    packed: true,
    guard: (record) => livenessGuard(keys.host(record), record),
  }, attempts);

  const manifests = new DynamoEntity<Manifest, ManifestKey>(doc, table, {
    name: 'manifest',
    key: keys.manifest,
    keyOf: (r) => ({ orgId: r.orgId, clusterId: r.clusterId, folder: r.folder, fileName: r.fileName }),
  }, attempts);

  const workflows = new DynamoEntity<WorkflowExecution, WorkflowKey>(doc, table, {
    name: 'workflowExecution',
    key: keys.workflow,
    keyOf: (r) => ({ orgId: r.orgId, clusterId: r.clusterId, workflow: r.workflow }),
  }, attempts);

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
        return write.repository as DynamoEntity<Versioned, unknown>;
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
    }),
    infraEnvs: Object.assign(infraEnvs, {
      listByOrg: (orgId: string) => infraEnvs.queryAll(keys.infraEnvsOf(orgId)),
      listByCluster: (k: { orgId: string; clusterId: string }) => infraEnvs.queryAll(keys.infraEnvsOfCluster(k.orgId, k.clusterId)),
    }),
    // Assigned onto the repository: its own mutate reads through the liveness-aware get.
    hosts: Object.assign(hosts, withLivenessItems({
      get: hosts.get.bind(hosts),
      remove: hosts.remove.bind(hosts),
      listByInfraEnv: (k) => hosts.queryAll(keys.hostsOfInfraEnv(k.orgId, k.infraEnvId)),
      listByCluster: (k) => hosts.queryAll(keys.hostsOfCluster(k.orgId, k.clusterId)),
      listActive: (shard, page) => queryPage(doc, table, { ...keys.activeHosts(shard), projection: WATCHED_HOST_PROJECTION }, page, watchedHostOf),
    }, new HostLivenessItems(doc, table), keys.host, hostOfItem)),
    manifests: Object.assign(manifests, {
      listByCluster: (k: { orgId: string; clusterId: string }) => manifests.queryAll(keys.manifestsOf(k.orgId, k.clusterId)),
    }),
    workflows: Object.assign(workflows, {
      listByCluster: (k: { orgId: string; clusterId: string }) => workflows.queryAll(keys.workflowsOf(k.orgId, k.clusterId)),
    }),
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
            if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 2 ** attempt * 25));
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
