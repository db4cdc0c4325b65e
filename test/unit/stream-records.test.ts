import { describe, expect, it } from 'vitest';
import { marshall } from '@aws-sdk/util-dynamodb';
import { deflateRawSync } from 'node:zlib';
import type { DynamoDBRecord } from 'aws-lambda';
import { hostChangesOf } from '../../lambdas/platform/stream-records.js';

const item = (status: string, extra: Record<string, unknown> = {}) => ({
  pk: 'ORG#o#INFRAENV#i#HOST#h',
  sk: 'HOST',
  orgId: 'o',
  infraEnvId: 'i',
  hostId: 'h',
  clusterId: 'c',
  status,
  version: 2,
  createdAt: 't',
  updatedAt: 't',
  attributes: { role: 'master', marks: {} },
  ...extra,
});

describe('stream records as host changes', () => {
  it('decodes images as Lambda delivers them: base64 binaries unpacked, empty maps kept, keys dropped', () => {
    const inventory = JSON.stringify({ hostname: 'master-0', padding: 'x'.repeat(2_000) });
    const packed = { packedAttributes: { inventory: deflateRawSync(inventory) } };
    const image = (status: string) => {
      const typed = marshall(item(status, packed), { removeUndefinedValues: true }) as Record<string, any>;
      typed.packedAttributes.M.inventory.B = Buffer.from(typed.packedAttributes.M.inventory.B).toString('base64');
      // The Streams API's deserializer hands an empty map back with no type.
      typed.attributes.M.marks = {};
      return typed;
    };
    const record = {
      eventName: 'MODIFY',
      dynamodb: {
        Keys: { pk: { S: 'ORG#o#INFRAENV#i#HOST#h' }, sk: { S: 'HOST' } },
        SequenceNumber: '42',
        OldImage: image('known'),
        NewImage: image('insufficient'),
      },
    } as unknown as DynamoDBRecord;
    const [change] = hostChangesOf([record]);
    expect(change!.id).toBe('42');
    expect(change!.before).toMatchObject({ status: 'known', clusterId: 'c', attributes: { role: 'master', marks: {}, inventory } });
    expect(change!.after!.status).toBe('insufficient');
    expect(change!.after).not.toHaveProperty('pk');
    expect(change!.after).not.toHaveProperty('packedAttributes');
  });

  it('leaves out records of anything but hosts', () => {
    const record = {
      eventName: 'INSERT',
      dynamodb: { Keys: { pk: { S: 'ORG#o#CLUSTER#c' }, sk: { S: 'CLUSTER' } }, SequenceNumber: '1', NewImage: marshall({ pk: 'x', sk: 'CLUSTER' }) },
    } as unknown as DynamoDBRecord;
    expect(hostChangesOf([record])).toEqual([]);
  });
});
