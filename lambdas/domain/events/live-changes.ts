/**
 * What a change of a stored record means to those following it live (docs/api.md, "Live changes"):
 * the kind, id and version of what changed and the names of the fields that changed, for the
 * WebSocket subscribers; and the webhook event classes it raises. Pure: it compares the two images
 * of a stream record, as records (keys stripped, packed attributes unpacked).
 */
import { text } from '../../../contracts/json-shapes.js';

export type LiveKind = 'cluster' | 'host' | 'infra-env' | 'event';

export interface LiveChange {
  orgId: string;
  kind: LiveKind;
  id: string;
  /** The record's version after the change (absent for events and removals). */
  version?: number;
  /** Top-level and `attributes` fields whose value changed (wire names), sorted; `deleted` for a removal. */
  changed: string[];
  removed: boolean;
  clusterId?: string;
  infraEnvId?: string;
  status?: string;
  previousStatus?: string;
  statusInfo?: string;
  /** Validations whose status became `failure` in this change (ids). */
  newlyFailing: string[];
}

type Image = Record<string, unknown>;

const KIND_BY_ENTITY: Record<string, LiveKind> = { cluster: 'cluster', host: 'host', infraEnv: 'infra-env', event: 'event' };

/** Bookkeeping that changes with every write and says nothing to a subscriber. */
const NOT_CHANGES = new Set(['version', 'updatedAt', 'updated_at']);

function attributesOf(image: Image | undefined): Image {
  const attributes = image?.attributes;
  return attributes && typeof attributes === 'object' && !Array.isArray(attributes) ? (attributes as Image) : {};
}

function changedFields(before: Image | undefined, after: Image | undefined): string[] {
  const names = new Set<string>();
  const compare = (a: Image, b: Image, skip: Set<string>) => {
    for (const name of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (skip.has(name) || NOT_CHANGES.has(name)) continue;
      if (JSON.stringify(a[name]) !== JSON.stringify(b[name])) names.add(name);
    }
  };
  compare(before ?? {}, after ?? {}, new Set(['attributes']));
  compare(attributesOf(before), attributesOf(after), new Set());
  return [...names].sort();
}

/** The validation ids whose status is `failure` in a record's validations_info (upstream's JSON text, by group). */
export function failingValidations(image: Image | undefined): Set<string> {
  const raw = attributesOf(image).validations_info;
  const failing = new Set<string>();
  if (typeof raw !== 'string' || raw === '') return failing;
  try {
    const groups: unknown = JSON.parse(raw);
    if (!groups || typeof groups !== 'object') return failing;
    for (const list of Object.values(groups)) {
      if (!Array.isArray(list)) continue;
      for (const validation of list) if (validation?.status === 'failure' && typeof validation.id === 'string') failing.add(validation.id);
    }
  } catch {
    // A record whose validations do not parse has no verdicts to follow.
  }
  return failing;
}

function identityOf(kind: LiveKind, image: Image): string | undefined {
  switch (kind) {
    case 'cluster':
      return text(image.clusterId);
    case 'host':
      return text(image.hostId);
    case 'infra-env':
      return text(image.infraEnvId);
    case 'event':
      return text(image.eventId);
  }
}

/**
 * The change a stream record makes, from its images (either may be absent) and the item's entity
 * name; undefined for records nobody follows live (tokens, liveness items, workflow bookkeeping) or
 * that change nothing a subscriber sees.
 */
export function liveChangeOf(entity: string | undefined, before: Image | undefined, after: Image | undefined): LiveChange | undefined {
  const kind = entity ? KIND_BY_ENTITY[entity] : undefined;
  const image = after ?? before;
  if (!kind || !image) return undefined;
  const id = identityOf(kind, image);
  const orgId = text(image.orgId);
  if (!id || !orgId) return undefined;
  const removed = after === undefined;
  const changed = removed ? ['deleted'] : changedFields(before, after);
  if (changed.length === 0) return undefined;
  const status = text(after?.status);
  const previousStatus = text(before?.status);
  const failingBefore = failingValidations(before);
  const newlyFailing = [...failingValidations(after)].filter((validation) => !failingBefore.has(validation)).sort();
  const clusterId = text(image.clusterId);
  const infraEnvId = text(image.infraEnvId);
  const statusInfo = text(attributesOf(after).status_info);
  const version = typeof after?.version === 'number' ? after.version : undefined;
  return {
    orgId,
    kind,
    id,
    ...(version !== undefined && kind !== 'event' ? { version } : {}),
    changed,
    removed,
    ...(clusterId ? { clusterId } : {}),
    ...(infraEnvId ? { infraEnvId } : {}),
    ...(status ? { status } : {}),
    ...(previousStatus ? { previousStatus } : {}),
    ...(statusInfo ? { statusInfo } : {}),
    newlyFailing,
  };
}

/** The classes of webhook events an organisation can subscribe to. */
export const WEBHOOK_EVENT_CLASSES = ['cluster-status', 'host-status', 'installed', 'failed', 'validation-failing'] as const;
export type WebhookEventClass = (typeof WEBHOOK_EVENT_CLASSES)[number];

export const isWebhookEventClass = (value: string): value is WebhookEventClass => (WEBHOOK_EVENT_CLASSES as readonly string[]).includes(value);

/** The webhook event classes a change raises: a status change, the end of an installation, a validation that starts failing. */
export function webhookClassesOf(change: LiveChange): WebhookEventClass[] {
  if (change.removed || (change.kind !== 'cluster' && change.kind !== 'host')) return [];
  const classes: WebhookEventClass[] = [];
  const statusChanged = change.status !== undefined && change.status !== change.previousStatus;
  if (statusChanged) {
    classes.push(change.kind === 'cluster' ? 'cluster-status' : 'host-status');
    if (change.kind === 'cluster' && change.status === 'installed') classes.push('installed');
    if (change.status === 'error') classes.push('failed');
  }
  if (change.newlyFailing.length > 0) classes.push('validation-failing');
  return classes;
}

/** The resource a change is about, as webhooks and the audit log name it: `clusters/<id>`, `hosts/<id>`. */
export function resourceOf(change: Pick<LiveChange, 'kind' | 'id'>): string {
  const collection = { cluster: 'clusters', host: 'hosts', 'infra-env': 'infra-envs', event: 'events' }[change.kind];
  return `${collection}/${change.id}`;
}
