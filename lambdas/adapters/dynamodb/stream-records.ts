/**
 * The table's stream records as the domain's changes. Images come as Lambda delivers them (binary
 * attributes base64-encoded) or as the Streams API returns them (bytes); either decodes the same.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { HostChange } from '../../domain/host/host-changes.js';
import { hostOfItem } from './store.js';

type Image = Record<string, unknown>;

/** Binary values back to bytes, wherever they are nested; an untyped empty value is the empty map it was. */
function withBytes(value: unknown): unknown {
  if (!value || typeof value !== 'object') return value;
  const typed = value as Record<string, unknown>;
  // An empty map comes back from the Streams API's deserializer as a value with no type at all.
  if (Object.keys(typed).length === 0) return { M: {} };
  if ('B' in typed) return { B: typeof typed.B === 'string' ? Buffer.from(typed.B, 'base64') : typed.B };
  if ('BS' in typed) return { BS: (typed.BS as unknown[]).map((item) => (typeof item === 'string' ? Buffer.from(item, 'base64') : item)) };
  if ('M' in typed) return { M: Object.fromEntries(Object.entries(typed.M as Image).map(([name, nested]) => [name, withBytes(nested)])) };
  if ('L' in typed) return { L: (typed.L as unknown[]).map(withBytes) };
  return typed;
}

function itemOf(image: Image | undefined): Record<string, unknown> | undefined {
  if (!image) return undefined;
  const typed = Object.fromEntries(Object.entries(image).map(([name, value]) => [name, withBytes(value)])) as Record<string, AttributeValue>;
  return unmarshall(typed);
}

/** Whether a record is about a host item (the event source's filter keeps only those, but a replay may not). */
export function isHostRecord(record: DynamoDBRecord): boolean {
  return (record.dynamodb?.Keys as Record<string, { S?: string }> | undefined)?.sk?.S === 'HOST';
}

/** The host changes among the records, in their order; other records are left out. */
export function hostChangesOf(records: readonly DynamoDBRecord[]): HostChange[] {
  return records.filter(isHostRecord).map((record) => {
    const before = itemOf(record.dynamodb?.OldImage as Image | undefined);
    const after = itemOf(record.dynamodb?.NewImage as Image | undefined);
    return {
      id: record.dynamodb?.SequenceNumber ?? record.eventID ?? '',
      ...(before ? { before: hostOfItem(before) } : {}),
      ...(after ? { after: hostOfItem(after) } : {}),
    };
  });
}
