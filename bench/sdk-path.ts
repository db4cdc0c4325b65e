// Client-side CPU per DynamoDB call: lib-dynamodb's document client over the SDK as shipped, against
// the store's document client over the container's client (plain JSON bodies, handlers kept).
// usage (from the worktree): npx tsx bench/sdk-path.ts [iterations of 4 calls per slice, 25] [slices per variant, 30]
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { deflateRawSync } from 'node:zlib';
import { startDynamoDbLocal } from '../bin/local/dynamodb-local.js';
import { ensureTable } from '../lambdas/adapters/dynamodb/schema.js';
import { documentClient } from '../lambdas/adapters/dynamodb/document-client.js';
import { withPlainJsonBodies } from '../lambdas/adapters/dynamodb/plain-json-protocol.js';
import { sdkLoggerWithoutPayloads, withSignersKept } from '../lambdas/adapters/sdk-client.js';
import { unmeteredRetries } from '../lambdas/adapters/dynamodb/retries.js';

const iterationsPerSlice = Number(process.argv[2] ?? 25);
const slices = Number(process.argv[3] ?? 30);
const dynamo = await startDynamoDbLocal({ port: 18000 + Math.floor(Math.random() * 1000) });
const settings = {
  endpoint: dynamo.endpoint,
  region: 'us-east-1',
  credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
  maxAttempts: 8,
  retryStrategy: unmeteredRetries(8),
  logger: sdkLoggerWithoutPayloads,
};
const inventoryText = JSON.stringify({
  hostname: 'h',
  disks: Array.from({ length: 40 }, (_, i) => ({
    id: `/dev/disk/by-id/${i}`,
    name: `sd${i}`,
    size_bytes: 1e12 + i,
    path: `/dev/sd${i}`,
    serial: `serial-${i}-${'x'.repeat(60)}`,
  })),
  interfaces: Array.from({ length: 10 }, (_, i) => ({ name: `eth${i}`, ipv4_addresses: [`10.0.${i}.1/24`], mac_address: `52:54:00:00:00:${i}` })),
});
const hostItem = (id: string) => ({
  pk: 'ORG#o#INFRAENV#i',
  sk: `HOST#${id}`,
  gsi1pk: 'CLUSTER#c',
  gsi1sk: `HOST#${id}`,
  version: 3,
  status: 'known',
  updatedAt: new Date().toISOString(),
  attributes: {
    requested_hostname: 'h',
    role: 'auto-assign',
    status_info: 'Host is ready',
    validations_info: JSON.stringify({ hardware: Array.from({ length: 12 }, (_, i) => ({ id: `v${i}`, status: 'success', message: 'fine '.repeat(5) })) }),
    ntp_sources: '[]',
    progress: { current_stage: '' },
  },
  packed: deflateRawSync(inventoryText),
  free_addresses: inventoryText.slice(0, 4000),
});
/** One iteration: a host item written, read, listed with two others, and its version counted up (4 calls). */
async function iteration(doc: { send(command: unknown): Promise<unknown> }, table: string, n: number): Promise<void> {
  const id = `h${n % 50}`;
  await doc.send(new PutCommand({ TableName: table, Item: hostItem(id) }));
  await doc.send(new GetCommand({ TableName: table, Key: { pk: 'ORG#o#INFRAENV#i', sk: `HOST#${id}` }, ConsistentRead: true }));
  await doc.send(
    new QueryCommand({
      TableName: table,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :h)',
      ExpressionAttributeValues: { ':pk': 'ORG#o#INFRAENV#i', ':h': 'HOST#h1' },
      Limit: 3,
    }),
  );
  await doc.send(
    new UpdateCommand({
      TableName: table,
      Key: { pk: 'ORG#o#INFRAENV#i', sk: `HOST#${id}` },
      UpdateExpression: 'SET #v = #v + :one',
      ExpressionAttributeNames: { '#v': 'version' },
      ExpressionAttributeValues: { ':one': 1 },
    }),
  );
}

/** The client CPU `iterations` iterations take, 8 in flight. */
async function slice(doc: { send(command: unknown): Promise<unknown> }, table: string, iterations: number): Promise<number> {
  const before = process.cpuUsage();
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < iterations) await iteration(doc, table, next++);
    }),
  );
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

const libraryOptions = { marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false } };
const allVariants: { label: string; make(): { send(command: unknown): Promise<unknown> } }[] = [
  { label: 'lib-dynamodb over the SDK as shipped (before session 28)', make: () => DynamoDBDocumentClient.from(new DynamoDBClient(settings), libraryOptions) },
  { label: "the store's document client over the SDK as shipped", make: () => documentClient(new DynamoDBClient(settings)) },
  { label: "the store's document client, handlers kept", make: () => documentClient(new DynamoDBClient({ ...settings, cacheMiddleware: true })) },
  { label: "the store's document client, plain JSON bodies", make: () => documentClient(withPlainJsonBodies(new DynamoDBClient(settings))) },
  {
    label: "the store's document client, plain JSON bodies, handlers kept",
    make: () => documentClient(withPlainJsonBodies(new DynamoDBClient({ ...settings, cacheMiddleware: true }))),
  },
  {
    label: "the store's document client, plain JSON bodies, handlers kept, one signer (the container's)",
    make: () => documentClient(withSignersKept(withPlainJsonBodies(new DynamoDBClient({ ...settings, cacheMiddleware: true })))),
  },
];

/** SDK_PATH_VARIANTS=3,5 measures only those (0-based), for a profile of one path. */
const chosen = process.env.SDK_PATH_VARIANTS?.split(',').map(Number);
const variants = chosen ? allVariants.filter((_, index) => chosen.includes(index)) : allVariants;

try {
  const tableMaker = new DynamoDBClient(settings);
  const prepared = [];
  for (const [index, variant] of variants.entries()) {
    const table = `t-${index}`;
    await ensureTable(tableMaker, table);
    const doc = variant.make();
    await slice(doc, table, 60); // warm-up: the JIT and the connection pool
    prepared.push({ doc, table, cpuMs: 0, calls: 0 });
  }
  // Short slices, interleaved in a rotating order: the machine's other load falls on every variant alike.
  for (let round = 0; round < slices; round++) {
    for (let step = 0; step < prepared.length; step++) {
      const entry = prepared[(step + round) % prepared.length]!;
      entry.cpuMs += await slice(entry.doc, entry.table, iterationsPerSlice);
      entry.calls += iterationsPerSlice * 4;
    }
  }
  const first = prepared[0]!.cpuMs / prepared[0]!.calls;
  for (const [index, variant] of variants.entries()) {
    const perCall = prepared[index]!.cpuMs / prepared[index]!.calls;
    console.log(
      `${perCall.toFixed(3)} client CPU-ms per call (${((100 * perCall) / first).toFixed(0)} % of the first; ${prepared[index]!.calls} calls): ${variant.label}`,
    );
  }
} finally {
  await dynamo.stop();
}
