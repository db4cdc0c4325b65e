/**
 * The floor under our database figures (issue #49, "know the floor"): what DynamoDB Local itself
 * takes, in java CPU-ms, for one call of each kind our hot paths make, measured on this machine in
 * the same run as the bench. A path's floor is then the sum over its calls (the counting proxy's
 * tally by operation and kind of item) of each call's floor: no code of ours can make the database
 * side of that path cheaper without making fewer or smaller calls.
 *
 * It starts a DynamoDB Local of its own with the runtime's flags (bin/local/dynamodb-local.ts), a
 * table as the stack declares it (ensureTable), items the size of ours (a host with its inventory is
 * ~37 KB; most others ~1 KB), and sends each kind of call `callsPerKind` times, 16 at once, through
 * a real SDK client; the java process's CPU is read from /proc around each kind.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import { freePort } from '../../bin/local/net.js';
import { startDynamoDbLocal } from '../../bin/local/dynamodb-local.js';
import { ensureTable } from '../../lambdas/adapters/dynamodb/schema.js';
import { eachBounded } from '../lifecycle/agents.js';
import { descendantsOf } from './process-tree.js';
import { cpuMsBetween, cpuTicks } from './process-cpu.js';

/** The kinds of call whose floor is measured; `large` is a host-sized item (~37 KB). */
export type FloorKind =
  | 'GetItem large'
  | 'GetItem small'
  | 'Query 3 small'
  | 'PutItem large conditional'
  | 'PutItem small conditional'
  | 'UpdateItem small conditional'
  | 'TransactWriteItems 2 small';

export interface DynamoDbFloor {
  /** java CPU-ms per call, by kind. */
  cpuMsPerCall: Record<FloorKind, number>;
  /** The client's median latency per call, by kind, 16 in flight. */
  p50Ms: Record<FloorKind, number>;
}

/** A host with its inventory is about this size; most other items are under 1 KB. */
const LARGE_BYTES = 37_000;

/** A host-like item: the keys and index keys a host has, and `bytes` of payload. */
function item(orgId: string, index: number, bytes: number): Record<string, AttributeValue> {
  const hostId = `host-${index}`;
  return {
    pk: { S: `ORG#${orgId}#INFRAENV#ie-${index % 3}#HOST#${hostId}` },
    sk: { S: 'HOST' },
    gsi1pk: { S: `ORG#${orgId}#INFRAENV#ie-${index % 3}` },
    gsi1sk: { S: `HOST#${hostId}` },
    gsi2pk: { S: `ORG#${orgId}#CLUSTER#c-${index % 3}` },
    gsi2sk: { S: `HOST#${hostId}` },
    version: { N: '1' },
    status: { S: 'known' },
    payload: { S: 'x'.repeat(bytes) },
  };
}

export async function measureDynamoDbFloor(options: { callsPerKind?: number; concurrency?: number; inMemory?: boolean } = {}): Promise<DynamoDbFloor> {
  const calls = options.callsPerKind ?? 400;
  const concurrency = options.concurrency ?? 16;
  const workDir = mkdtempSync(path.join(tmpdir(), 'dynamodb-floor-'));
  const port = await freePort('127.0.0.1');
  const dataDir = path.join(workDir, 'dynamodb');
  const dynamo = await startDynamoDbLocal({ port, ...(options.inMemory ? {} : { dataDir }) });
  const client = new DynamoDBClient({
    endpoint: dynamo.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  const table = 'floor';
  try {
    await ensureTable(client, table);
    const orgId = randomUUID();
    const large = Array.from({ length: calls }, (_, i) => item(orgId, i, LARGE_BYTES));
    const small = Array.from({ length: calls }, (_, i) => item(`${orgId}-s`, i, 800));
    const indexes = Array.from({ length: calls }, (_, i) => i);
    const key = (record: Record<string, AttributeValue>) => ({ pk: record.pk!, sk: record.sk! });
    const bump = (record: Record<string, AttributeValue>) => ({
      TableName: table,
      Key: key(record),
      UpdateExpression: 'SET #v = #v + :one, #s = :s',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#v': 'version', '#s': 'status' },
      ExpressionAttributeValues: { ':one': { N: '1' }, ':s': { S: 'insufficient' } },
    });
    const kinds: [FloorKind, (i: number) => Promise<unknown>][] = [
      [
        'PutItem large conditional',
        (i) => client.send(new PutItemCommand({ TableName: table, Item: large[i]!, ConditionExpression: 'attribute_not_exists(pk)' })),
      ],
      [
        'PutItem small conditional',
        (i) => client.send(new PutItemCommand({ TableName: table, Item: small[i]!, ConditionExpression: 'attribute_not_exists(pk)' })),
      ],
      ['GetItem large', (i) => client.send(new GetItemCommand({ TableName: table, Key: key(large[i]!) }))],
      ['GetItem small', (i) => client.send(new GetItemCommand({ TableName: table, Key: key(small[i]!) }))],
      [
        'Query 3 small',
        (i) =>
          client.send(
            new QueryCommand({
              TableName: table,
              IndexName: 'gsi2',
              KeyConditionExpression: 'gsi2pk = :pk',
              ExpressionAttributeValues: { ':pk': small[i]!.gsi2pk! },
              Limit: 3,
            }),
          ),
      ],
      ['UpdateItem small conditional', (i) => client.send(new UpdateItemCommand(bump(small[i]!)))],
      [
        'TransactWriteItems 2 small',
        (i) => client.send(new TransactWriteItemsCommand({ TransactItems: [{ Update: bump(small[i]!) }, { Update: bump(small[(i + 1) % calls]!) }] })),
      ],
    ];
    const pids = () => [dynamo.process.pid!, ...descendantsOf(dynamo.process.pid!)];
    // A first pass warms the JIT and the SQLite pages the way a running service's are; the second is measured.
    await eachBounded(indexes.slice(0, Math.min(100, calls)), concurrency, async (i) => {
      await client.send(new GetItemCommand({ TableName: table, Key: { pk: { S: `warm-${i}` }, sk: { S: 'X' } } }));
      return true;
    });
    const cpuMsPerCall = {} as Record<FloorKind, number>;
    const p50Ms = {} as Record<FloorKind, number>;
    for (const [kind, call] of kinds) {
      const before = cpuTicks(pids());
      const result = await eachBounded(indexes, concurrency, async (i) => {
        await call(i);
        return true;
      });
      if (result.errors) throw new Error(`DynamoDB floor: ${result.errors} of ${calls} ${kind} calls failed`);
      cpuMsPerCall[kind] = cpuMsBetween(before, cpuTicks(pids())) / calls;
      p50Ms[kind] = result.p50Ms;
    }
    return { cpuMsPerCall, p50Ms };
  } finally {
    client.destroy();
    await dynamo.stop();
    rmSync(workDir, { recursive: true, force: true });
  }
}

/**
 * The floor kind of one tallied call (`caller: Operation SUBJECT`, bench/fleet/dynamodb-counter.ts):
 * items keyed as a host (`… HOST`) are host-sized, every other item small; a Query is priced as
 * a small three-item query, a batch or a transaction as two small updates. Undefined for
 * operations outside the hot paths (table administration, scans).
 */
export function floorKindOf(tallied: string): FloorKind | undefined {
  const [, operation = '', subject = ''] = /^(?:[^:]*: )?(\S+) ?(.*)$/.exec(tallied) ?? [];
  const hostSized = / HOST$/.test(subject) || subject === 'HOST';
  switch (operation) {
    case 'GetItem':
      return hostSized ? 'GetItem large' : 'GetItem small';
    case 'Query':
      return 'Query 3 small';
    case 'PutItem':
      return hostSized ? 'PutItem large conditional' : 'PutItem small conditional';
    case 'UpdateItem':
    case 'DeleteItem':
      return 'UpdateItem small conditional';
    case 'TransactWriteItems':
    case 'BatchWriteItem':
    case 'BatchGetItem':
    case 'TransactGetItems':
      return 'TransactWriteItems 2 small';
    default:
      return undefined;
  }
}

/** A path's database floor in java CPU-ms per request, from its calls per request by kind. */
export function pathFloorMs(callsPerRequestByKind: Record<string, number>, floor: DynamoDbFloor): number {
  let total = 0;
  for (const [tallied, perRequest] of Object.entries(callsPerRequestByKind)) {
    const kind = floorKindOf(tallied);
    if (kind) total += perRequest * floor.cpuMsPerCall[kind];
  }
  return total;
}

export function describeFloor(floor: DynamoDbFloor): string {
  return Object.entries(floor.cpuMsPerCall)
    .map(([kind, ms]) => `${kind} ${ms.toFixed(2)} CPU-ms (p50 ${floor.p50Ms[kind as FloorKind].toFixed(1)} ms)`)
    .join('; ');
}
