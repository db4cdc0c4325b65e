import type {
  ApiToken,
  Cluster,
  Host,
  HostAttributes,
  InfraEnv,
  Invitation,
  Manifest,
  Membership,
  Organisation,
  ServiceEvent,
  User,
  Versioned,
  WorkflowExecution,
} from '../domain/core/entities.js';
import type { WatchAttribute } from '../domain/host/host-watch.js';
import type { AuditEvent, AuditFilter, AuditOutcome } from '../domain/auth/audit.js';
import type { Webhook, WebhookDelivery } from '../domain/events/webhooks.js';

/** A WebSocket connection: who it authenticated as, what it follows, its message count this second. */
export interface LiveConnection {
  connectionId: string;
  orgId: string;
  role: import('../domain/core/entities.js').Role;
  /** The token id or user id it connected with. */
  actor: string;
  subscriptions: string[];
  connectedAt: string;
  window?: { second: number; count: number };
}

export interface WebhookKey {
  orgId: string;
  webhookId: string;
}
/** One endpoint's deliveries about one resource: sent in order, one at a time. */
export interface WebhookQueue {
  orgId: string;
  webhookId: string;
  resource: string;
}

/** What names a cluster: its keys, name, creation time, and the two attributes a cluster is looked up by. */
export type ClusterIdentity = Pick<Cluster, 'orgId' | 'clusterId' | 'name' | 'createdAt'> & {
  attributes: { base_dns_domain?: unknown; openshift_cluster_id?: unknown };
};

/** A watched host as the active index lists it: keys, status, version, updatedAt and WATCH_ATTRIBUTES. */
export type WatchedHostRecord = Pick<Host, 'orgId' | 'infraEnvId' | 'hostId' | 'clusterId' | 'status' | 'version' | 'updatedAt' | 'monitorShard'> & {
  attributes: Pick<HostAttributes, WatchAttribute>;
  /**
   * The latest version of the host whose change was news to its watchers (recordNews), when one
   * was recorded: a write of a later version that is not news asks the monitor for nothing.
   */
  newsVersion?: number;
};

/** Raised when a conditional write finds another version (or an existing record on create). */
export class ConcurrentModificationError extends Error {
  constructor(readonly entity: string) {
    super(`${entity} was changed by someone else; re-read and retry`);
    this.name = 'ConcurrentModificationError';
  }
}

/** Raised by `mutate` when it gave up after its bounded number of attempts. */
export class TooMuchContentionError extends Error {
  constructor(
    readonly entity: string,
    readonly attempts: number,
  ) {
    super(`${entity} could not be updated after ${attempts} attempts under contention`);
    this.name = 'TooMuchContentionError';
  }
}

export interface Page<T> {
  items: T[];
  /** Opaque cursor for the next page; absent on the last page. */
  next?: string;
}

export interface PageRequest {
  limit?: number;
  cursor?: string;
  /** Time-ordered listings read oldest first unless this is set. */
  newestFirst?: boolean;
}

/** What `mutate` callbacks return: the new record, or `undefined` to leave it unchanged. */
export type Mutation<T> = (current: T) => T | undefined;

/**
 * The record stored under `key`, creating it from `record` when there is none: when another writer
 * creates it at the same moment, the stored one wins. Safe from any number of processes at once.
 */
export async function storedOrCreated<T, K>(
  repository: Pick<EntityRepository<T, K>, 'get' | 'create'>,
  key: K,
  record: () => Omit<T, 'version'>,
): Promise<{ record: T; created: boolean }> {
  const existing = await repository.get(key);
  if (existing) return { record: existing, created: false };
  try {
    return { record: await repository.create(record()), created: true };
  } catch (error) {
    const stored = error instanceof ConcurrentModificationError ? await repository.get(key) : undefined;
    if (!stored) throw error;
    return { record: stored, created: false };
  }
}

/**
 * One write of a transaction (Store.transact), made by `creating`, `replacing` or `removing` on a
 * repository of the store: the same conditions as the repository's own create, replace and remove.
 */
export type StoreWrite =
  | { kind: 'create'; repository: object; record: object }
  | { kind: 'replace'; repository: object; record: Versioned }
  | { kind: 'remove'; repository: object; key: object; expectedVersion: number };

export const creating = <T, K>(repository: EntityRepository<T, K>, record: Omit<T, 'version'>): StoreWrite => ({
  kind: 'create',
  repository,
  record: record as object,
});
export const replacing = <T extends Versioned, K>(repository: EntityRepository<T, K>, record: T): StoreWrite => ({ kind: 'replace', repository, record });
export const removing = <T, K>(repository: EntityRepository<T, K>, key: K, expectedVersion: number): StoreWrite => ({
  kind: 'remove',
  repository,
  key: key as object,
  expectedVersion,
});

export interface EntityRepository<T, K> {
  get(key: K): Promise<T | undefined>;
  /** Creates the record with version 1; fails with ConcurrentModificationError if it exists. */
  create(record: Omit<T, 'version'>): Promise<T>;
  /** Writes the record if its stored version is still `record.version`; returns it with the next version. */
  replace(record: T): Promise<T>;
  /**
   * Read-modify-write with optimistic concurrency: re-reads and re-applies `change` when another
   * writer got there first. Returns undefined when the record does not exist. `justRead`, a copy
   * the caller read a moment ago, saves the first read: if it is stale, the conditional write
   * fails and the next attempt reads the record as usual.
   */
  mutate(key: K, change: Mutation<T>, justRead?: T): Promise<T | undefined>;
  /** Deletes the record; with `expectedVersion`, only if it is still at that version. */
  remove(key: K, expectedVersion?: number): Promise<void>;
}

/** What a poll says of its host: when it came (the service's time) and the host's clock then, if it sent it. */
export interface HostLiveness {
  checkedInAt: string;
  timestamp?: number;
}

export interface OrgKey {
  orgId: string;
}
export interface TokenKey {
  orgId: string;
  tokenId: string;
}
export interface InvitationKey {
  orgId: string;
  invitationId: string;
}
export interface ClusterKey {
  orgId: string;
  clusterId: string;
}
export interface InfraEnvKey {
  orgId: string;
  infraEnvId: string;
}
export interface HostKey {
  orgId: string;
  infraEnvId: string;
  hostId: string;
}
export interface ManifestKey {
  orgId: string;
  clusterId: string;
  folder: string;
  fileName: string;
}
export interface WorkflowKey {
  orgId: string;
  clusterId: string;
  workflow: string;
}
/** A user, and the user's one membership, by the id the verified identity gives (domain/auth/identity.ts). */
export interface UserKey {
  userId: string;
}

export interface EventFilter {
  orgId: string;
  /** The organisation's audit events (category `audit`), newest last, instead of a resource's. */
  audit?: boolean;
  clusterId?: string;
  hostId?: string;
  infraEnvId?: string;
}

export interface Store {
  organisations: EntityRepository<Organisation, OrgKey>;
  /** People signed in through the identity provider; found by the identity, not by an organisation. */
  users: EntityRepository<User, UserKey>;
  /** Each user's one membership (organisation and role). */
  memberships: EntityRepository<Membership, UserKey> & {
    listByOrg(orgId: string): Promise<Membership[]>;
  };
  apiTokens: EntityRepository<ApiToken, TokenKey> & {
    listByOrg(orgId: string): Promise<ApiToken[]>;
  };
  invitations: EntityRepository<Invitation, InvitationKey> & {
    listByOrg(orgId: string): Promise<Invitation[]>;
  };
  /**
   * Writes all of these or none (at most 100, each on another record): a failed condition on any
   * of them is a ConcurrentModificationError and nothing is written.
   */
  transact(writes: readonly StoreWrite[]): Promise<void>;
  clusters: EntityRepository<Cluster, ClusterKey> & {
    listByOrg(orgId: string): Promise<Cluster[]>;
    /**
     * Every cluster of the organisation by what names it, and nothing else: finding one cluster by
     * name or OpenShift id reads a few attributes per cluster instead of every cluster whole.
     */
    listIdentitiesByOrg(orgId: string): Promise<ClusterIdentity[]>;
    /**
     * The organisation's clusters of this name, from an index by name: the cost does not grow
     * with the organisation (automation looks each cluster up by name on every apply).
     */
    listIdentitiesNamed(orgId: string, name: string): Promise<ClusterIdentity[]>;
    /**
     * A copy this instance read or wrote within the recent-cluster-copies bound (local-caches.json),
     * else a fresh read: for paths where a second-old cluster is as good as a fresh one (agent
     * polls), so a fleet polling one cluster does not read it once per poll. This instance's own
     * writes show at once.
     */
    getRecent(key: ClusterKey): Promise<Cluster | undefined>;
    /**
     * An eventually consistent read (half a strongly consistent one's read units): it may not show
     * a write of the last second or so. For decisions that a copy that old leaves as they would be
     * had the request come that much earlier, and that write nothing on this record.
     */
    getEventually(key: ClusterKey): Promise<Cluster | undefined>;
  };
  infraEnvs: EntityRepository<InfraEnv, InfraEnvKey> & {
    listByOrg(orgId: string): Promise<InfraEnv[]>;
    listByCluster(key: ClusterKey): Promise<InfraEnv[]>;
    /**
     * An eventually consistent read (half a strongly consistent one's read units): it may not show
     * a write of the last second or so. For decisions that a copy that old leaves as they would be
     * had the request come that much earlier, and that write nothing on this record.
     */
    getEventually(key: InfraEnvKey): Promise<InfraEnv | undefined>;
  };
  hosts: EntityRepository<Host, HostKey> & {
    listByInfraEnv(key: InfraEnvKey): Promise<Host[]>;
    /**
     * `liveness: false` leaves out the liveness items (when each agent last polled, its long
     * checks' marks): half the reads, for callers that read only the hosts' status and inventory.
     */
    listByCluster(key: ClusterKey, options?: { liveness?: boolean }): Promise<Host[]>;
    /**
     * Hosts the monitors must watch, from one shard of the sparse active index: only what the
     * monitor's time judgement reads (WatchedHostRecord), not the whole record.
     */
    listActive(shard: number, page?: PageRequest): Promise<Page<WatchedHostRecord>>;
    /**
     * Records that the host's agent polled (and the clock it reported), without rewriting the host:
     * every read of the host shows the later of this and the host's own `checked_in_at`/`timestamp`.
     * A check-in older than the one stored changes nothing.
     */
    checkIn(key: HostKey, liveness: HostLiveness): Promise<void>;
    /**
     * Records that this version of the host changed something its watchers read
     * (domain/host/host-changes.ts isNewsToWatchers), beside its liveness: listActive shows the
     * latest as `newsVersion`. Only forward (an older version than the one recorded changes
     * nothing), and only for a host that has checked in (no liveness item: nothing is recorded, and
     * the monitor goes by the host's updatedAt as before).
     */
    recordNews(key: HostKey, version: number): Promise<void>;
    /**
     * Marks a check of this type handed out (`long_checks_handed_at` in the host's attributes) if
     * no mark inside its window is stored, in one conditional write; whether this call took it.
     * Two polls answered by two instances never both take it.
     */
    claimLongCheck(key: HostKey, type: string, claim: { at: string; staleBefore: string }): Promise<boolean>;
    /**
     * A check-in and a claim (as checkIn and claimLongCheck) in one write when both hold, else
     * each as those would: whether this call took the mark.
     */
    checkInClaiming(key: HostKey, liveness: HostLiveness, type: string, claim: { at: string; staleBefore: string }): Promise<boolean>;
    /** Takes the mark of an answered check away (nothing when there is none or the host is gone). */
    answerLongCheck(key: HostKey, type: string): Promise<void>;
    /**
     * Records that the host answered its connectivity check at `at` with nothing its record must
     * keep, without rewriting the host, and takes the check's mark away, in one write: every read
     * of the host shows the later of this and the host's own `connectivity_checked_at`. False, and
     * nothing written, when an answer as late is already recorded (the caller takes the mark away).
     */
    answerConnectivityCheck(key: HostKey, at: string): Promise<boolean>;
  };
  events: {
    append(event: ServiceEvent): Promise<void>;
    /** Several events in as few requests as the store allows; all are written or it throws. */
    appendAll(events: readonly ServiceEvent[]): Promise<void>;
    /** Events of one cluster, host or infra-env (the most specific filter wins), in time order. */
    list(filter: EventFilter, page?: PageRequest): Promise<Page<ServiceEvent>>;
  };
  /** The audit log (domain/auth/audit.ts): kept for the deployment's retention, then removed by DynamoDB's TTL. */
  auditLog: {
    /** Records a request before it acts; a record of this request id already there stays as it is. */
    begin(event: AuditEvent): Promise<void>;
    /** How the request ended, and the resource it turned out to act on (a creation's new id). */
    finish(key: { orgId: string; auditId: string }, ended: { outcome: AuditOutcome; resource: string }): Promise<void>;
    /** The organisation's records, newest first, within the filter's time window, the rest of the filter applied. */
    list(filter: AuditFilter, page?: PageRequest): Promise<Page<AuditEvent>>;
  };
  liveConnections: {
    /** Stores the connection unless the organisation has `cap` already: whether it was stored. Kept `ttlSeconds` at most (API Gateway closes a connection after 2 h). */
    add(connection: LiveConnection, cap: number, ttlSeconds: number): Promise<boolean>;
    get(connectionId: string): Promise<LiveConnection | undefined>;
    /**
     * Adds a subscription to the connection and keeps it `ttlSeconds` more, in one update: subscribe
     * messages handled at once each keep theirs (a read-then-put lost all but one). A no-op when the
     * connection has it already or is gone.
     */
    addSubscription(connectionId: string, subscription: string, ttlSeconds: number): Promise<void>;
    /** Keeps the connection `ttlSeconds` more, changing nothing else (a no-op when it is gone). */
    extend(connectionId: string, ttlSeconds: number): Promise<void>;
    /** Counts one message of the connection in this second, atomically: the count so far this second (undefined when the connection is gone). */
    countMessage(connectionId: string, second: number): Promise<number | undefined>;
    remove(connectionId: string): Promise<void>;
    listByOrg(orgId: string): Promise<LiveConnection[]>;
  };
  webhooks: EntityRepository<Webhook, WebhookKey> & {
    listByOrg(orgId: string): Promise<Webhook[]>;
  };
  webhookDeliveries: {
    /** Adds the delivery to its queue unless one of its id is there (a repeated change): whether it was added. */
    enqueue(delivery: WebhookDelivery): Promise<boolean>;
    /** The queue's pending deliveries, oldest first. */
    pending(queue: WebhookQueue, limit: number): Promise<WebhookDelivery[]>;
    /** Stores an attempt's outcome (state, attempts, times, last error). */
    record(delivery: WebhookDelivery): Promise<void>;
    /** Queues whose oldest pending delivery is due by `now` (ISO time), at most `limit`. */
    due(now: string, limit: number): Promise<WebhookQueue[]>;
    /** The endpoint's deliveries, newest first. */
    listByWebhook(key: WebhookKey, page?: PageRequest): Promise<Page<WebhookDelivery>>;
    /** Takes the queue for `holder` until `until` unless another holder's lease is still running at `now`: whether it was taken. */
    lease(queue: WebhookQueue, holder: string, until: string, now: string): Promise<boolean>;
    release(queue: WebhookQueue, holder: string): Promise<void>;
  };
  manifests: EntityRepository<Manifest, ManifestKey> & {
    listByCluster(key: ClusterKey): Promise<Manifest[]>;
  };
  workflows: EntityRepository<WorkflowExecution, WorkflowKey> & {
    listByCluster(key: ClusterKey): Promise<WorkflowExecution[]>;
  };
  /** Number of shards of the active-hosts index; monitors visit each. */
  readonly activeShards: number;
}
