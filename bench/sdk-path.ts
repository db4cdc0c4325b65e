// Client-side CPU per DynamoDB call: lib-dynamodb's document client over the SDK as shipped, against
// the store's document client over the container's client (plain JSON bodies, handlers kept).
// usage (from the worktree): npx tsx bench/sdk-path.ts [iterations of 4 calls per round, 400] [rounds, 8]
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { deflateRawSync } from 'node:zlib';
import { startDynamoDbLocal } from '../bin/local/dynamodb-local.js';
import { ensureTable } from '../lambdas/adapters/dynamodb/schema.js';
import { documentClient } from '../lambdas/adapters/dynamodb/store.js';
import { withPlainJsonBodies } from '../lambdas/adapters/dynamodb/plain-json-protocol.js';
import { sdkLoggerWithoutPayloads } from '../lambdas/adapters/sdk-client.js';
import { unmeteredRetries } from '../lambdas/adapters/dynamodb/retries.js';

const calls = Number(process.argv[2] ?? 400);
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
async function run(label: string, doc: { send(command: unknown): Promise<unknown> }, table: string) {
  const one = async (n: number) => {
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
  };
  for (let n = 0; n < 40; n++) await one(n); // warm-up
  const before = process.cpuUsage();
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < calls) await one(next++);
    }),
  );
  const used = process.cpuUsage(before);
  const ms = (used.user + used.system) / 1000;
  console.log(
    `${label}: ${calls * 4} calls, client CPU ${ms.toFixed(0)} ms = ${(ms / (calls * 4)).toFixed(3)} CPU-ms per call (wall ${(performance.now() - started).toFixed(0)} ms)`,
  );
  return ms / (calls * 4);
}
const variants: { label: string; make(): { send(command: unknown): Promise<unknown> }; client?: DynamoDBClient }[] = [
  {
    label: 'lib-dynamodb over the SDK as shipped',
    make: () =>
      DynamoDBDocumentClient.from(new DynamoDBClient(settings), { marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false } }),
  },
  { label: "the store's document client over the SDK as shipped", make: () => documentClient(new DynamoDBClient(settings)) },
  { label: "the store's document client, handlers kept", make: () => documentClient(new DynamoDBClient({ ...settings, cacheMiddleware: true })) },
  { label: "the store's document client, plain JSON bodies", make: () => documentClient(withPlainJsonBodies(new DynamoDBClient(settings))) },
  {
    label: "the store's document client, plain JSON bodies, handlers kept (the container's)",
    make: () => documentClient(withPlainJsonBodies(new DynamoDBClient({ ...settings, cacheMiddleware: true }))),
  },
];
try {
  const tableMaker = new DynamoDBClient(settings);
  const results = variants.map(() => [] as number[]);
  const rounds = Number(process.argv[3] ?? 8);
  for (let round = 0; round < rounds; round++) {
    // Each round in another order, so that none is always first (JIT warm-up) or last.
    const order = variants.map((_, index) => (index + round * 2) % variants.length);
    for (const index of order) {
      const table = `t-${round}-${index}`;
      await ensureTable(tableMaker, table);
      results[index]!.push(await run(`round ${round + 1} ${variants[index]!.label}`, variants[index]!.make(), table));
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  // Other processes on the machine only ever add to a round's CPU: the least round is the cleanest figure.
  for (const [index, variant] of variants.entries()) {
    console.log(
      `CPU-ms per call, least ${Math.min(...results[index]!).toFixed(3)}, median ${median(results[index]!).toFixed(3)} over ${rounds} rounds: ${variant.label}`,
    );
  }
} finally {
  await dynamo.stop();
}
