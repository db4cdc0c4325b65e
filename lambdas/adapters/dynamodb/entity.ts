import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  type DynamoDBDocumentClient,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { Versioned } from '../../domain/core/entities.js';
import { LocalCache } from '../../ports/local-caches.js';
import {
  ConcurrentModificationError,
  TooMuchContentionError,
  type EntityRepository,
  type Mutation,
  type Page,
  type PageRequest,
  type StoreWrite,
} from '../../ports/store.js';
import { stripKeys, type IndexAttributes, type Item, type ItemKey } from './keys.js';
import { packItem, unpackItem } from './packing.js';
import type { WriteGuard } from './host-liveness.js';
import { queryAll, queryPage, type IndexQuery } from './queries.js';
import { backoffMs } from '../../domain/core/backoff.js';
import { setTimeout as sleep } from 'node:timers/promises';

type TransactWriteItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export interface EntitySpec<T, K> {
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

export class DynamoEntity<T extends Versioned, K> implements EntityRepository<T, K> {
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
    const item: Item = {
      ...Object.fromEntries(Object.entries(record)),
      version,
      ...key,
      ...(this.spec.indexes?.(record) ?? {}),
      ...(expiresAt ? { ttl: Math.floor(expiresAt) } : {}),
      entity: this.spec.name,
    };
    return this.spec.packed ? packItem(item) : item;
  }

  private readonly fromItem = (item: Item): T => stripKeys<T>(this.spec.packed ? unpackItem(item) : item)!;
  /** A listed item: its texts are not remembered for writing back (see unpackItem). */
  private readonly fromListedItem = (item: Item): T => stripKeys<T>(this.spec.packed ? unpackItem(item, { remember: false }) : item)!;

  async get(key: K): Promise<T | undefined> {
    const itemKey = this.spec.key(key);
    const read = this.doc
      .send(new GetCommand({ TableName: this.table, Key: itemKey, ConsistentRead: true }))
      .then((result) => (result.Item ? this.fromItem(result.Item) : undefined));
    this.remember(
      itemKey,
      read.then((record) => (record ? structuredClone(record) : undefined)),
    );
    return read;
  }

  /** An eventually consistent read: not remembered (getRecent serves copies known to be the latest). */
  async getEventually(key: K): Promise<T | undefined> {
    const result = await this.doc.send(new GetCommand({ TableName: this.table, Key: this.spec.key(key) }));
    return result.Item ? this.fromItem(result.Item) : undefined;
  }

  async create(record: Omit<T, 'version'>): Promise<T> {
    const item = this.toItem(record, 1);
    try {
      await this.doc.send(new PutCommand({ TableName: this.table, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }));
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
        await sleep(backoffMs(attempt, { baseMs: 10 }));
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
    return queryAll<T>(this.doc, this.table, query, this.fromListedItem);
  }

  queryPage(query: IndexQuery, page?: PageRequest): Promise<Page<T>> {
    return queryPage<T>(this.doc, this.table, query, page, this.fromListedItem);
  }
}

function versionCondition(expected: number) {
  return {
    ConditionExpression: '#version = :expected',
    ExpressionAttributeNames: { '#version': 'version' },
    ExpressionAttributeValues: { ':expected': expected },
  };
}
