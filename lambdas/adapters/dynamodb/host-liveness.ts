/**
 * A host's liveness (when its agent last polled, and the clock reading it sent) in a small item of
 * its own beside the host: same partition, sort key `LIVENESS`, no index attributes. DynamoDB
 * bills a write by the whole item, and the host item (inventory, reports, verdicts, index copies
 * in two indexes that project everything) costs tens of write units; an agent polls every minute.
 * So a check-in writes this item alone (one write unit), and every read of a host puts the later
 * of the two readings back in its place: the domain sees one host, as before.
 *
 * The marks of checks handed out once (`long_checks_handed_at`: domain/agent/agent-protocol.ts) live
 * there too, one attribute per check type, claimed and cleared by conditional writes of a write
 * unit each: a poll that hands a connectivity check no longer rewrites the host to say so. So
 * does the time of a connectivity answer that changed nothing the host's record must keep
 * (`connectivity_checked_at`: domain/agent/step-replies.ts, connectivityReplyWrite), written with the
 * removal of that check's mark.
 *
 * The item has no `HOST` sort key, so the stream's event source filter drops its changes: a
 * check-in asks nothing of the host's cluster. A host write that carries a newer clock reading
 * (registration, a clock that moved: domain/agent/agent-protocol.ts) still goes through the host item.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DeleteCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Host } from '../../domain/core/entities.js';
import type { ClusterKey, HostKey, HostLiveness, InfraEnvKey, Page, PageRequest, Store, WatchedHostRecord } from '../../ports/store.js';
import { LONG_CHECKS, LONG_CHECKS_HANDED_AT } from '../../domain/agent/agent-protocol.js';
import { SILENCE_VERDICTS } from '../../domain/host/host-watch.js';
import type { Item, ItemKey } from './keys.js';
import { backoffMs } from '../../domain/core/backoff.js';
import { setTimeout as sleep } from 'node:timers/promises';

type HostRepository = Store['hosts'];

export const LIVENESS_SORT_KEY = 'LIVENESS';
/** How long an orphaned liveness item (its host deleted between a poll's read and its write) outlives its last check-in. */
const ORPHAN_TTL_SECONDS = 86_400;
/** BatchGetItem's limit on keys per request, and how often unprocessed keys are asked again. */
const BATCH_GET_LIMIT = 100;
const BATCH_GET_ATTEMPTS = 6;

export const livenessKey = (host: ItemKey): ItemKey => ({ pk: host.pk, sk: LIVENESS_SORT_KEY });

/** A conditional update of a liveness item (its table and key aside). */
type LivenessUpdate = Omit<UpdateCommandInput, 'TableName' | 'Key'> & { UpdateExpression: string; ConditionExpression: string };

/** A check-in's write: only forward. */
function checkInUpdate(liveness: HostLiveness): LivenessUpdate {
  return {
    UpdateExpression: `SET #at = :at, #ttl = :ttl, #entity = :entity${liveness.timestamp === undefined ? ' REMOVE #timestamp' : ', #timestamp = :timestamp'}`,
    ConditionExpression: 'attribute_not_exists(#at) OR #at < :at',
    ExpressionAttributeNames: { '#at': 'checked_in_at', '#ttl': 'ttl', '#entity': 'entity', '#timestamp': 'timestamp' },
    ExpressionAttributeValues: {
      ':at': liveness.checkedInAt,
      ':ttl': orphanTtl(liveness.checkedInAt),
      ':entity': 'hostLiveness',
      ...(liveness.timestamp === undefined ? {} : { ':timestamp': liveness.timestamp }),
    },
  };
}

/** A claim's condition: no mark, or one outside its window or from a later clock (the domain's longCheckClaim). */
function claimCondition(type: string, claim: { at: string; staleBefore: string }) {
  return {
    ConditionExpression: 'attribute_not_exists(#mark) OR #mark < :staleBefore OR #mark > :markAt',
    ExpressionAttributeNames: { '#mark': markAttribute(type) },
    ExpressionAttributeValues: { ':markAt': claim.at, ':staleBefore': claim.staleBefore },
  };
}

/** Each check type's mark, as an attribute of the liveness item. */
const markAttribute = (type: string) => `handed_at_${type}`;
const CONNECTIVITY_CHECKED_AT = 'connectivity_checked_at';
/** The latest host version that was news to its watchers (recordNews). */
const NEWS_VERSION = 'news_version';
const MARK_ATTRIBUTES = [...LONG_CHECKS].map(markAttribute);
const orphanTtl = (at: string) => Math.floor(Date.parse(at) / 1000) + ORPHAN_TTL_SECONDS;

/** The marks the liveness item holds; the host item's own copy (written before marks moved here, or carried along by a host write) is never read. */
function withMarks<T extends Pick<Host, 'attributes'>>(host: T, liveness: Item | undefined): T {
  const marks = Object.fromEntries(
    [...LONG_CHECKS].flatMap((type) => (typeof liveness?.[markAttribute(type)] === 'string' ? [[type, liveness[markAttribute(type)]]] : [])),
  );
  if (Object.keys(marks).length === 0 && !(LONG_CHECKS_HANDED_AT in host.attributes)) return host;
  const attributes: Record<string, unknown> = { ...host.attributes, [LONG_CHECKS_HANDED_AT]: marks };
  if (Object.keys(marks).length === 0) delete attributes[LONG_CHECKS_HANDED_AT];
  return { ...host, attributes };
}

/**
 * The host with its liveness item's word: the later of the two check-ins (with the clock reading
 * that came with it), the later of the two connectivity answers, and the item's marks.
 */
export function withLiveness<T extends Pick<Host, 'attributes'>>(host: T, liveness: Item | undefined): T {
  return withConnectivityAnswer(withCheckIn(withMarks(host, liveness), liveness), liveness);
}

function withConnectivityAnswer<T extends Pick<Host, 'attributes'>>(host: T, liveness: Item | undefined): T {
  const answeredAt = liveness?.[CONNECTIVITY_CHECKED_AT];
  if (typeof answeredAt !== 'string') return host;
  const own = host.attributes[CONNECTIVITY_CHECKED_AT];
  if (typeof own === 'string' && Date.parse(own) >= Date.parse(answeredAt)) return host;
  return { ...host, attributes: { ...host.attributes, [CONNECTIVITY_CHECKED_AT]: answeredAt } };
}

function withCheckIn<T extends Pick<Host, 'attributes'>>(host: T, liveness: Item | undefined): T {
  const checkedInAt = liveness?.checked_in_at;
  if (typeof checkedInAt !== 'string') return host;
  const own = host.attributes.checked_in_at;
  if (typeof own === 'string' && Date.parse(own) >= Date.parse(checkedInAt)) return host;
  return {
    ...host,
    attributes: { ...host.attributes, checked_in_at: checkedInAt, ...(typeof liveness?.timestamp === 'number' ? { timestamp: liveness.timestamp } : {}) },
  };
}

/** A condition on another item that a write must meet too (one transaction). */
export interface WriteGuard {
  Key: ItemKey;
  ConditionExpression: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
}

/**
 * A verdict that an agent fell silent, reached on a copy read before its latest check-in, is never
 * written: the check-in does not move the host's version, so the host's write carries the
 * condition that the liveness item is no later than what its verdict read (a transaction; such
 * verdicts are rare). A conflict makes the writer read again, and the fresh copy is connected.
 */
export function livenessGuard(hostKey: ItemKey, record: Pick<Host, 'status' | 'attributes'>): WriteGuard | undefined {
  const seen = record.attributes.checked_in_at;
  if (!SILENCE_VERDICTS.has(record.status) || typeof seen !== 'string') return undefined;
  return {
    Key: livenessKey(hostKey),
    ConditionExpression: 'attribute_not_exists(#at) OR #at <= :seen',
    ExpressionAttributeNames: { '#at': 'checked_in_at' },
    ExpressionAttributeValues: { ':seen': seen },
  };
}

/** Liveness and host reads and writes on one table, for the host repository. */
export class HostLivenessItems {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /**
   * Records a check-in unless a later one is stored: two polls answered by two instances may land
   * in either order, and liveness only moves forward.
   */
  async checkIn(hostKey: ItemKey, liveness: HostLiveness): Promise<void> {
    await this.updateIf(hostKey, checkInUpdate(liveness));
  }

  /** Records a news version where the host's liveness item exists and holds no later one. */
  async recordNews(hostKey: ItemKey, version: number): Promise<void> {
    await this.updateIf(hostKey, {
      UpdateExpression: 'SET #news = :version',
      ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(#news) OR #news < :version)',
      ExpressionAttributeNames: { '#news': NEWS_VERSION },
      ExpressionAttributeValues: { ':version': version },
    });
  }

  /** Takes the mark where none inside its window is stored: `claim` is the domain's longCheckClaim. */
  async claimLongCheck(hostKey: ItemKey, type: string, claim: { at: string; staleBefore: string }): Promise<boolean> {
    const condition = claimCondition(type, claim);
    return this.updateIf(hostKey, {
      UpdateExpression: 'SET #mark = :markAt, #ttl = if_not_exists(#ttl, :ttl), #entity = :entity',
      ConditionExpression: condition.ConditionExpression,
      ExpressionAttributeNames: { ...condition.ExpressionAttributeNames, '#ttl': 'ttl', '#entity': 'entity' },
      ExpressionAttributeValues: { ...condition.ExpressionAttributeValues, ':ttl': orphanTtl(claim.at), ':entity': 'hostLiveness' },
    });
  }

  /**
   * The check-in and the claim in one write (one write unit instead of two) when both conditions
   * hold; when either fails, each alone, so that neither waits on the other.
   */
  async checkInClaiming(hostKey: ItemKey, liveness: HostLiveness, type: string, claim: { at: string; staleBefore: string }): Promise<boolean> {
    const checkIn = checkInUpdate(liveness);
    const mark = claimCondition(type, claim);
    const both = await this.updateIf(hostKey, {
      UpdateExpression: checkIn.UpdateExpression.replace('SET ', 'SET #mark = :markAt, '),
      ConditionExpression: `(${checkIn.ConditionExpression}) AND (${mark.ConditionExpression})`,
      ExpressionAttributeNames: { ...checkIn.ExpressionAttributeNames, ...mark.ExpressionAttributeNames },
      ExpressionAttributeValues: { ...checkIn.ExpressionAttributeValues, ...mark.ExpressionAttributeValues },
    });
    if (both) return true;
    await this.checkIn(hostKey, liveness);
    return this.claimLongCheck(hostKey, type, claim);
  }

  /**
   * The connectivity answer's time, unless a later one is stored (answers delivered twice or
   * out of order), and the check's mark taken away with it: one write unit.
   */
  async answerConnectivityCheck(hostKey: ItemKey, at: string): Promise<boolean> {
    return this.updateIf(hostKey, {
      UpdateExpression: 'SET #at = :at, #ttl = if_not_exists(#ttl, :ttl), #entity = :entity REMOVE #mark',
      ConditionExpression: 'attribute_not_exists(#at) OR #at < :at',
      ExpressionAttributeNames: { '#at': CONNECTIVITY_CHECKED_AT, '#ttl': 'ttl', '#entity': 'entity', '#mark': markAttribute('connectivity-check') },
      ExpressionAttributeValues: { ':at': at, ':ttl': orphanTtl(at), ':entity': 'hostLiveness' },
    });
  }

  async answerLongCheck(hostKey: ItemKey, type: string): Promise<void> {
    await this.updateIf(hostKey, {
      UpdateExpression: 'REMOVE #mark',
      // Never creates an item: a host without one has no mark to take away.
      ConditionExpression: 'attribute_exists(#mark)',
      ExpressionAttributeNames: { '#mark': markAttribute(type) },
    });
  }

  /** The host's liveness item updated where the update's condition holds: whether it did. */
  private async updateIf(hostKey: ItemKey, update: LivenessUpdate): Promise<boolean> {
    try {
      await this.doc.send(new UpdateCommand({ TableName: this.table, Key: livenessKey(hostKey), ...update }));
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  /** The host item and its liveness item in one strongly consistent query of their partition. */
  async readBoth(hostKey: ItemKey): Promise<{ host?: Item; liveness?: Item }> {
    const result = await this.doc.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': 'pk' },
        ExpressionAttributeValues: { ':pk': hostKey.pk },
        ConsistentRead: true,
      }),
    );
    const items = result.Items ?? [];
    return { host: items.find((item) => item.sk === hostKey.sk), liveness: items.find((item) => item.sk === LIVENESS_SORT_KEY) };
  }

  /** The liveness items of these hosts (listings come from indexes, which hold host items only), by partition key. */
  async readMany(hostKeys: readonly ItemKey[]): Promise<Map<string, Item>> {
    const found = new Map<string, Item>();
    const partitions = [...new Set(hostKeys.map((key) => key.pk))];
    for (let start = 0; start < partitions.length; start += BATCH_GET_LIMIT) {
      let wanted: Item[] = partitions.slice(start, start + BATCH_GET_LIMIT).map((pk) => ({ pk, sk: LIVENESS_SORT_KEY }));
      for (let attempt = 0; wanted.length > 0; attempt += 1) {
        if (attempt === BATCH_GET_ATTEMPTS) throw new Error(`liveness of ${wanted.length} hosts still unread after ${BATCH_GET_ATTEMPTS} attempts`);
        if (attempt > 0) await sleep(backoffMs(attempt, { baseMs: 25 }));
        const result = await this.doc.send(
          new BatchGetCommand({
            RequestItems: {
              [this.table]: {
                Keys: wanted,
                ProjectionExpression: [
                  'pk',
                  'checked_in_at',
                  CONNECTIVITY_CHECKED_AT,
                  NEWS_VERSION,
                  '#timestamp',
                  ...MARK_ATTRIBUTES.map((_, i) => `#mark${i}`),
                ].join(', '),
                ExpressionAttributeNames: { '#timestamp': 'timestamp', ...Object.fromEntries(MARK_ATTRIBUTES.map((name, i) => [`#mark${i}`, name])) },
              },
            },
          }),
        );
        for (const item of result.Responses?.[this.table] ?? []) found.set(item.pk as string, item);
        wanted = result.UnprocessedKeys?.[this.table]?.Keys ?? [];
      }
    }
    return found;
  }

  async remove(hostKey: ItemKey): Promise<void> {
    await this.doc.send(new DeleteCommand({ TableName: this.table, Key: livenessKey(hostKey) }));
  }
}

interface HostListings {
  get(key: HostKey): Promise<Host | undefined>;
  remove(key: HostKey, expectedVersion?: number): Promise<void>;
  listByInfraEnv(key: InfraEnvKey): Promise<Host[]>;
  listByCluster(key: ClusterKey, options?: { liveness?: boolean }): Promise<Host[]>;
  listActive(shard: number, page?: PageRequest): Promise<Page<WatchedHostRecord>>;
}

/**
 * The host repository's reads with each host's liveness in its place, its removal taking the
 * liveness item along, and the check-in that writes the liveness item alone.
 */
export function withLivenessItems(
  base: HostListings,
  items: HostLivenessItems,
  hostKey: (key: HostKey) => ItemKey,
  hostOfItem: (item: Item) => Host,
): HostListings & Pick<HostRepository, 'checkIn' | 'recordNews' | 'claimLongCheck' | 'checkInClaiming' | 'answerLongCheck' | 'answerConnectivityCheck'> {
  const merged = async <T extends HostKey & Pick<Host, 'attributes'>>(records: T[]): Promise<T[]> => {
    if (records.length === 0) return records;
    const found = await items.readMany(records.map(hostKey));
    return records.map((record) => withLiveness(record, found.get(hostKey(record).pk)));
  };
  return {
    async get(key) {
      const { host, liveness } = await items.readBoth(hostKey(key));
      return host ? withLiveness(hostOfItem(host), liveness) : undefined;
    },
    async remove(key, expectedVersion) {
      await base.remove(key, expectedVersion);
      await items.remove(hostKey(key));
    },
    listByInfraEnv: async (key) => merged(await base.listByInfraEnv(key)),
    listByCluster: async (key, options) => (options?.liveness === false ? base.listByCluster(key) : merged(await base.listByCluster(key))),
    async listActive(shard, page) {
      const listed = await base.listActive(shard, page);
      if (listed.items.length === 0) return listed;
      const found = await items.readMany(listed.items.map(hostKey));
      return {
        ...listed,
        items: listed.items.map((record) => {
          const liveness = found.get(hostKey(record).pk);
          // Watched records carry only the watched attributes: of the liveness, the check-in and the news.
          const watched = withLiveness(record, liveness ? { checked_in_at: liveness.checked_in_at } : undefined);
          const newsVersion = liveness?.[NEWS_VERSION];
          return typeof newsVersion === 'number' ? { ...watched, newsVersion } : watched;
        }),
      };
    },
    recordNews: (key, version) => items.recordNews(hostKey(key), version),
    checkIn: (key, liveness) => items.checkIn(hostKey(key), liveness),
    claimLongCheck: (key, type, claim) => items.claimLongCheck(hostKey(key), type, claim),
    checkInClaiming: (key, liveness, type, claim) => items.checkInClaiming(hostKey(key), liveness, type, claim),
    answerLongCheck: (key, type) => items.answerLongCheck(hostKey(key), type),
    answerConnectivityCheck: (key, at) => items.answerConnectivityCheck(hostKey(key), at),
  };
}
