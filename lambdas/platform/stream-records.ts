/**
 * The table's stream records as the domain's changes. Images come as Lambda delivers them (binary
 * attributes base64-encoded) or as the Streams API returns them (bytes); either decodes the same.
 * It lives with the platform, not the DynamoDB adapter: the stream handler reads it, and handlers
 * reach the store's adapter only through the composition root.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord, StreamRecord } from 'aws-lambda';
import type { HostChange } from '../domain/host/host-changes.js';
import { hostOfItem } from '../adapters/dynamodb/store.js';
import { liveChangeOf, type LiveChange } from '../domain/events/live-changes.js';
import { stripKeys } from '../adapters/dynamodb/keys.js';
import { unpackItem } from '../adapters/dynamodb/packing.js';

/** An attribute value as a stream record holds it (binaries in base64 text, the way Lambda delivers them). */
type StreamValue = NonNullable<StreamRecord['NewImage']>[string];

/** Lambda's base64 text, or the Streams API's bytes, as bytes. */
const bytesOf = (value: string | Uint8Array): Uint8Array => (typeof value === 'string' ? Buffer.from(value, 'base64') : value);

/** Binary values back to bytes, wherever they are nested; an untyped empty value is the empty map it was. */
function withBytes(value: StreamValue): AttributeValue {
  // An empty map comes back from the Streams API's deserializer as a value with no type at all.
  if (Object.keys(value).length === 0) return { M: {} };
  if (value.B !== undefined) return { B: bytesOf(value.B) };
  if (value.BS !== undefined) return { BS: value.BS.map(bytesOf) };
  if (value.M !== undefined) return { M: attributesOf(value.M) };
  if (value.L !== undefined) return { L: value.L.map(withBytes) };
  return value;
}

function attributesOf(image: Record<string, StreamValue>): Record<string, AttributeValue> {
  return Object.fromEntries(Object.entries(image).map(([name, value]) => [name, withBytes(value)]));
}

function itemOf(image: Record<string, StreamValue> | undefined): Record<string, unknown> | undefined {
  return image ? unmarshall(attributesOf(image)) : undefined;
}

/** Whether a record is about a host item (the event source's filter keeps only those, but a replay may not). */
export function isHostRecord(record: DynamoDBRecord): boolean {
  return record.dynamodb?.Keys?.sk?.S === 'HOST';
}

/** The host changes among the records, in their order; other records are left out. */
export function hostChangesOf(records: readonly DynamoDBRecord[]): HostChange[] {
  return records.filter(isHostRecord).map((record) => {
    const before = itemOf(record.dynamodb?.OldImage);
    const after = itemOf(record.dynamodb?.NewImage);
    return {
      id: record.dynamodb?.SequenceNumber ?? record.eventID ?? '',
      ...(before ? { before: hostOfItem(before) } : {}),
      ...(after ? { after: hostOfItem(after) } : {}),
    };
  });
}

/** A record's change as live followers see it, with the stream's identity of the record. */
export interface StreamedLiveChange {
  change: LiveChange;
  /** The stream record's id: the same when the record is delivered again. */
  eventId: string;
  /** Its position in its shard: a resource's changes are in order by it. */
  sequenceNumber: string;
  /** When the change was written (the record's approximate creation time). */
  at: string;
}

/** The changes among the records that someone follows live (clusters, hosts, infra-envs, events), in their order. */
export function liveChangesOf(records: readonly DynamoDBRecord[]): StreamedLiveChange[] {
  return records.flatMap((record) => {
    const before = itemOf(record.dynamodb?.OldImage);
    const after = itemOf(record.dynamodb?.NewImage);
    const entity = (after ?? before)?.entity;
    const change = liveChangeOf(
      typeof entity === 'string' ? entity : undefined,
      before ? stripKeys<Record<string, unknown>>(unpackItem(before)) : undefined,
      after ? stripKeys<Record<string, unknown>>(unpackItem(after)) : undefined,
    );
    if (!change) return [];
    const seconds = record.dynamodb?.ApproximateCreationDateTime;
    return [
      {
        change,
        eventId: record.eventID ?? record.dynamodb?.SequenceNumber ?? '',
        sequenceNumber: record.dynamodb?.SequenceNumber ?? '0',
        at: new Date(typeof seconds === 'number' ? seconds * 1000 : Date.now()).toISOString(),
      },
    ];
  });
}
