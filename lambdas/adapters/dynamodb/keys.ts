/**
 * Key layout of the single table. Every base-table partition key starts with the organisation,
 * so a request can only ever address records of the organisation its credentials carry.
 * docs/data-model.md explains the access patterns each key serves.
 */
import { WATCH_ATTRIBUTES, type WatchAttribute } from '../../domain/host/host-watch.js';
import type { ServiceEvent } from '../../domain/core/entities.js';

/** A stored item as the document client reads and writes it. */
export type Item = Record<string, unknown>;

export interface ItemKey {
  pk: string;
  sk: string;
}

export type IndexAttributes = Partial<Record<'gsi1pk' | 'gsi1sk' | 'gsi2pk' | 'gsi2sk' | 'gsi3pk' | 'gsi3sk' | 'activePk' | 'activeSk' | WatchCopy, string>>;

/**
 * A watched host's copy of an attribute the monitor reads, at the top level of the item: an index
 * can project only top-level attributes, and the active index projects just these.
 */
type WatchCopy = `watch_${WatchAttribute}`;
export const watchCopyOf = (name: WatchAttribute): WatchCopy => `watch_${name}`;

const org = (orgId: string) => `ORG#${orgId}`;
const clusterPartition = (orgId: string, clusterId: string) => `${org(orgId)}#CLUSTER#${clusterId}`;
const infraEnvPartition = (orgId: string, infraEnvId: string) => `${org(orgId)}#INFRAENV#${infraEnvId}`;
const clusterNamePartition = (orgId: string, name: string) => `${org(orgId)}#CLUSTER-NAME#${name}`;
const hostPartition = (orgId: string, infraEnvId: string, hostId: string) => `${infraEnvPartition(orgId, infraEnvId)}#HOST#${hostId}`;

export const keys = {
  organisation: ({ orgId }: { orgId: string }): ItemKey => ({ pk: org(orgId), sk: 'ORG' }),

  apiToken: ({ orgId, tokenId }: { orgId: string; tokenId: string }): ItemKey => ({
    pk: org(orgId),
    sk: `TOKEN#${tokenId}`,
  }),
  apiTokensOf: (orgId: string) => ({ pk: org(orgId), skPrefix: 'TOKEN#' }),

  invitation: ({ orgId, invitationId }: { orgId: string; invitationId: string }): ItemKey => ({
    pk: org(orgId),
    sk: `INVITATION#${invitationId}`,
  }),
  invitationsOf: (orgId: string) => ({ pk: org(orgId), skPrefix: 'INVITATION#' }),

  cluster: ({ orgId, clusterId }: { orgId: string; clusterId: string }): ItemKey => ({
    pk: clusterPartition(orgId, clusterId),
    sk: 'CLUSTER',
  }),
  clusterIndexes: ({ orgId, clusterId, name }: { orgId: string; clusterId: string; name?: string }): IndexAttributes => ({
    gsi1pk: org(orgId),
    gsi1sk: `CLUSTER#${clusterId}`,
    ...(name !== undefined ? { gsi3pk: clusterNamePartition(orgId, name), gsi3sk: `CLUSTER#${clusterId}` } : {}),
  }),
  clustersOf: (orgId: string) => ({ index: 'gsi1', pk: org(orgId), skPrefix: 'CLUSTER#' }),
  clustersNamed: (orgId: string, name: string) => ({ index: 'gsi3', pk: clusterNamePartition(orgId, name), skPrefix: 'CLUSTER#' }),
  /** Present once every cluster of the organisation carries its name index (clusterIndexes' gsi3). */
  clusterNamesIndexed: ({ orgId }: { orgId: string }): ItemKey => ({ pk: org(orgId), sk: 'CLUSTER-NAMES-INDEXED' }),

  infraEnv: ({ orgId, infraEnvId }: { orgId: string; infraEnvId: string }): ItemKey => ({
    pk: infraEnvPartition(orgId, infraEnvId),
    sk: 'INFRAENV',
  }),
  infraEnvIndexes: (r: { orgId: string; infraEnvId: string; clusterId?: string }): IndexAttributes => ({
    gsi1pk: org(r.orgId),
    gsi1sk: `INFRAENV#${r.infraEnvId}`,
    ...(r.clusterId ? { gsi2pk: clusterPartition(r.orgId, r.clusterId), gsi2sk: `INFRAENV#${r.infraEnvId}` } : {}),
  }),
  infraEnvsOf: (orgId: string) => ({ index: 'gsi1', pk: org(orgId), skPrefix: 'INFRAENV#' }),
  infraEnvsOfCluster: (orgId: string, clusterId: string) => ({
    index: 'gsi2',
    pk: clusterPartition(orgId, clusterId),
    skPrefix: 'INFRAENV#',
  }),

  host: ({ orgId, infraEnvId, hostId }: { orgId: string; infraEnvId: string; hostId: string }): ItemKey => ({
    pk: hostPartition(orgId, infraEnvId, hostId),
    sk: 'HOST',
  }),
  hostIndexes: (r: {
    orgId: string;
    infraEnvId: string;
    hostId: string;
    clusterId?: string;
    monitorShard?: number;
    attributes?: Record<string, unknown>;
  }): IndexAttributes => ({
    gsi1pk: infraEnvPartition(r.orgId, r.infraEnvId),
    gsi1sk: `HOST#${r.hostId}`,
    ...(r.clusterId ? { gsi2pk: clusterPartition(r.orgId, r.clusterId), gsi2sk: `HOST#${r.hostId}` } : {}),
    ...(r.monitorShard !== undefined
      ? {
          activePk: `ACTIVE#${r.monitorShard}`,
          activeSk: hostPartition(r.orgId, r.infraEnvId, r.hostId),
          ...Object.fromEntries(
            WATCH_ATTRIBUTES.flatMap((name) => {
              const value = r.attributes?.[name];
              return typeof value === 'string' ? [[watchCopyOf(name), value]] : [];
            }),
          ),
        }
      : {}),
  }),
  hostsOfInfraEnv: (orgId: string, infraEnvId: string) => ({
    index: 'gsi1',
    pk: infraEnvPartition(orgId, infraEnvId),
    skPrefix: 'HOST#',
  }),
  hostsOfCluster: (orgId: string, clusterId: string) => ({
    index: 'gsi2',
    pk: clusterPartition(orgId, clusterId),
    skPrefix: 'HOST#',
  }),
  activeHosts: (shard: number) => ({ index: 'active', pk: `ACTIVE#${shard}` }),

  event: (e: Pick<ServiceEvent, 'orgId' | 'eventId'>): ItemKey => ({ pk: `${org(e.orgId)}#EVENT#${e.eventId}`, sk: 'EVENT' }),
  eventIndexes: (e: ServiceEvent): IndexAttributes => {
    const sort = `EVENT#${e.eventTime}#${e.eventId}`;
    return {
      ...(e.infraEnvId ? { gsi1pk: infraEnvPartition(e.orgId, e.infraEnvId), gsi1sk: sort } : {}),
      ...(e.clusterId ? { gsi2pk: clusterPartition(e.orgId, e.clusterId), gsi2sk: sort } : {}),
      ...(e.hostId ? { gsi3pk: `${org(e.orgId)}#HOST#${e.hostId}`, gsi3sk: sort } : {}),
      ...(e.category === 'audit' ? { gsi1pk: `${org(e.orgId)}#AUDIT`, gsi1sk: sort } : {}),
    };
  },
  eventsOfHost: (orgId: string, hostId: string) => ({ index: 'gsi3', pk: `${org(orgId)}#HOST#${hostId}`, skPrefix: 'EVENT#' }),
  eventsOfCluster: (orgId: string, clusterId: string) => ({
    index: 'gsi2',
    pk: clusterPartition(orgId, clusterId),
    skPrefix: 'EVENT#',
  }),
  auditEventsOf: (orgId: string) => ({ index: 'gsi1', pk: `${org(orgId)}#AUDIT`, skPrefix: 'EVENT#' }),
  eventsOfInfraEnv: (orgId: string, infraEnvId: string) => ({
    index: 'gsi1',
    pk: infraEnvPartition(orgId, infraEnvId),
    skPrefix: 'EVENT#',
  }),

  webhook: ({ orgId, webhookId }: { orgId: string; webhookId: string }): ItemKey => ({ pk: org(orgId), sk: `WEBHOOK#${webhookId}` }),
  webhooksOf: (orgId: string) => ({ pk: org(orgId), skPrefix: 'WEBHOOK#' }),

  /** Audit records: one partition each, listed per organisation by time through gsi1. */
  auditRecord: ({ orgId, auditId }: { orgId: string; auditId: string }): ItemKey => ({ pk: `${org(orgId)}#AUDIT-RECORD#${auditId}`, sk: 'AUDIT' }),
  auditRecordIndexes: (r: { orgId: string; auditId: string; at: string }): IndexAttributes => ({
    gsi1pk: `${org(r.orgId)}#AUDIT-LOG`,
    gsi1sk: `AUDIT#${r.at}#${r.auditId}`,
  }),
  auditLogOf: (orgId: string) => ({ index: 'gsi1', pk: `${org(orgId)}#AUDIT-LOG`, skPrefix: 'AUDIT#' }),

  manifest: (m: { orgId: string; clusterId: string; folder: string; fileName: string }): ItemKey => ({
    pk: clusterPartition(m.orgId, m.clusterId),
    sk: `MANIFEST#${m.folder}/${m.fileName}`,
  }),
  manifestsOf: (orgId: string, clusterId: string) => ({ pk: clusterPartition(orgId, clusterId), skPrefix: 'MANIFEST#' }),

  workflow: (w: { orgId: string; clusterId: string; workflow: string }): ItemKey => ({
    pk: clusterPartition(w.orgId, w.clusterId),
    sk: `WORKFLOW#${w.workflow}`,
  }),
  workflowsOf: (orgId: string, clusterId: string) => ({ pk: clusterPartition(orgId, clusterId), skPrefix: 'WORKFLOW#' }),
};

export const KEY_ATTRIBUTES = [
  'pk',
  'sk',
  'gsi1pk',
  'gsi1sk',
  'gsi2pk',
  'gsi2sk',
  'gsi3pk',
  'gsi3sk',
  'activePk',
  'activeSk',
  ...WATCH_ATTRIBUTES.map(watchCopyOf),
  'entity',
  'ttl',
] as const;

/**
 * Users and their memberships: the one partition family that does not start with an organisation.
 * A user is found by the identity a verified token names, before any organisation is known (as
 * an API token's string carries its organisation); the membership beside the user says which one.
 * One membership item per user is what keeps a user in one organisation at a time. An
 * organisation's members are listed through gsi1 (`ORG#o` / `MEMBER#u`).
 */
const userPartition = (userId: string) => `USER#${userId}`;
export const userKeys = {
  user: ({ userId }: { userId: string }): ItemKey => ({ pk: userPartition(userId), sk: 'USER' }),
  membership: ({ userId }: { userId: string }): ItemKey => ({ pk: userPartition(userId), sk: 'MEMBERSHIP' }),
  membershipIndexes: (r: { orgId: string; userId: string }): IndexAttributes => ({ gsi1pk: `ORG#${r.orgId}`, gsi1sk: `MEMBER#${r.userId}` }),
  membersOf: (orgId: string) => ({ index: 'gsi1', pk: `ORG#${orgId}`, skPrefix: 'MEMBER#' }),
};

/** A record as the domain sees it: its item without the table's key and index attributes. */
export function stripKeys<T>(item: Item | undefined): T | undefined {
  if (!item) return undefined;
  const record: Item = { ...item };
  for (const attribute of KEY_ATTRIBUTES) delete record[attribute];
  return record as T;
}
