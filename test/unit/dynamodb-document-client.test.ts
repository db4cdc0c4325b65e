import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { withPlainJsonBodies } from '../../lambdas/adapters/dynamodb/plain-json-protocol.js';
import { documentClient } from '../../lambdas/adapters/dynamodb/store.js';

interface Sent {
  target: string;
  body: Record<string, unknown>;
  headers: Record<string, string>;
  bytes: number;
}

/**
 * A client whose network is a stand-in: it records each request and answers `answer` (status,
 * body). `asTheStoreMakesIt`: with the container's settings (platform/container.ts): handlers kept,
 * item bodies as plain JSON.
 */
function recordingClient(answer: (target: string) => { status: number; body: string }, asTheStoreMakesIt = false) {
  const sent: Sent[] = [];
  const client = new DynamoDBClient({
    region: 'us-east-1',
    credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    endpoint: 'http://127.0.0.1:9',
    maxAttempts: 1,
    cacheMiddleware: asTheStoreMakesIt,
    requestHandler: {
      handle: async (request: { headers: Record<string, string>; body: string | Uint8Array }) => {
        const text = typeof request.body === 'string' ? request.body : Buffer.from(request.body as Uint8Array).toString('utf8');
        sent.push({ target: request.headers['x-amz-target']!, body: JSON.parse(text), headers: { ...request.headers }, bytes: Buffer.byteLength(text) });
        const { status, body } = answer(request.headers['x-amz-target']!);
        return {
          response: {
            statusCode: status,
            headers: { 'Content-Type': 'application/x-amz-json-1.0', 'X-Amzn-RequestId': 'r-1' },
            body: Readable.from([Buffer.from(body)]),
          },
        };
      },
    } as never,
  });
  return { client: asTheStoreMakesIt ? withPlainJsonBodies(client) : client, sent };
}

/** The reference: lib-dynamodb's own document client, with the store's options, over the SDK as it comes. */
const libraryDocumentClient = (client: DynamoDBClient) =>
  DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false } });

const packed = new Uint8Array([0, 1, 2, 250, 255]);
const item = {
  pk: 'ORG#o#CLUSTER#c',
  sk: 'CLUSTER',
  version: 7,
  ratio: 0.25,
  big: 12345678901234,
  name: 'a "quoted" name\nwith ünïcödé',
  enabled: true,
  nothing: null,
  packed,
  buffer: Buffer.from('deflated bytes'),
  tags: new Set(['x', 'y']),
  numbers: new Set([1, 2]),
  blobs: new Set([new Uint8Array([9, 8])]),
  list: [1, 'two', null, { deep: [true, { deeper: packed }] }],
  map: { empty: {}, emptyList: [], nested: { a: 'b', n: 0 } },
};

/** Every command the store sends, with inputs that hold every kind of attribute value (`round` varies them). */
const commands = (round = 1) => [
  new PutCommand({ TableName: 't', Item: { ...item, round, absent: undefined }, ConditionExpression: 'attribute_not_exists(pk)', ReturnValues: undefined }),
  new GetCommand({
    TableName: 't',
    Key: { pk: `p${round}`, sk: 's' },
    ConsistentRead: true,
    ProjectionExpression: '#a, b',
    ExpressionAttributeNames: { '#a': 'a' },
  }),
  new UpdateCommand({
    TableName: 't',
    Key: { pk: 'p', sk: 's' },
    UpdateExpression: 'SET #v = :v, packed = :b',
    ExpressionAttributeNames: { '#v': 'version' },
    ExpressionAttributeValues: { ':v': 8, ':b': packed, ':l': [null, 1], ':unset': undefined },
    ReturnValues: 'ALL_NEW',
  }),
  new DeleteCommand({ TableName: 't', Key: { pk: 'p', sk: 's' }, ConditionExpression: 'version = :v', ExpressionAttributeValues: { ':v': 1 } }),
  new QueryCommand({
    TableName: 't',
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': 'x' },
    Limit: 50,
    ExclusiveStartKey: { pk: 'p', sk: 's' },
    ScanIndexForward: false,
  }),
  new BatchGetCommand({ RequestItems: { t: { Keys: [{ pk: 'p', sk: 's' }], ProjectionExpression: 'pk' } } }),
  new BatchWriteCommand({ RequestItems: { t: [{ PutRequest: { Item: item } }, { DeleteRequest: { Key: { pk: 'p', sk: 's' } } }] } }),
  new TransactWriteCommand({
    TransactItems: [
      { Put: { TableName: 't', Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
      { Update: { TableName: 't', Key: { pk: 'p', sk: 's' }, UpdateExpression: 'SET a = :a', ExpressionAttributeValues: { ':a': packed } } },
      { ConditionCheck: { TableName: 't', Key: { pk: 'p', sk: 'q' }, ConditionExpression: 'attribute_exists(pk)' } },
    ],
  }),
];

/** An item holding every kind of attribute value, binary ones nested too. */
const storedItem = {
  pk: { S: 'p' },
  n: { N: '42.5' },
  b: { B: Buffer.from(packed).toString('base64') },
  bs: { BS: [Buffer.from([1]).toString('base64'), Buffer.from([2, 3]).toString('base64')] },
  ss: { SS: ['a', 'b'] },
  ns: { NS: ['1', '2'] },
  t: { BOOL: true },
  z: { NULL: true },
  l: { L: [{ S: 'x' }, { M: { B: { S: 'an attribute named B' }, deep: { B: Buffer.from([7]).toString('base64') } } }] },
  m: { M: { BS: { SS: ['an attribute named BS'] } } },
};
const binaryKey = { pk: { S: 'p' }, sk: { B: Buffer.from([5]).toString('base64') } };
const capacity = { TableName: 't', CapacityUnits: 1.5 };
/** What DynamoDB answers each operation, with every member its output has (the SDK reads no other). */
const answers: Record<string, object> = {
  PutItem: { Attributes: storedItem, ConsumedCapacity: capacity, ItemCollectionMetrics: { ItemCollectionKey: binaryKey, SizeEstimateRangeGB: [1, 2] } },
  GetItem: { Item: storedItem, ConsumedCapacity: capacity },
  UpdateItem: { Attributes: storedItem, ConsumedCapacity: capacity },
  DeleteItem: { Attributes: storedItem, ConsumedCapacity: capacity },
  Query: { Items: [storedItem, { pk: { S: 'q' } }], Count: 2, ScannedCount: 3, LastEvaluatedKey: binaryKey, ConsumedCapacity: capacity },
  BatchGetItem: { Responses: { t: [storedItem] }, UnprocessedKeys: { t: { Keys: [binaryKey], ProjectionExpression: 'pk' } }, ConsumedCapacity: [capacity] },
  BatchWriteItem: { UnprocessedItems: { t: [{ PutRequest: { Item: storedItem } }, { DeleteRequest: { Key: binaryKey } }] }, ConsumedCapacity: [capacity] },
  TransactWriteItems: { ConsumedCapacity: [capacity] },
};
function answerTo(target: string): string {
  const answer = answers[target.split('.')[1]!];
  if (!answer) throw new Error(`no answer to ${target} in this test`);
  return JSON.stringify(answer);
}

describe("the store's document client (document-client.ts) over a client with plain JSON item bodies (plain-json-protocol.ts)", () => {
  it('sends the same requests as lib-dynamodb and the SDK write, transactions with an idempotency token of their own', async () => {
    const bySdk = recordingClient(() => ({ status: 200, body: '{}' }));
    const plain = recordingClient(() => ({ status: 200, body: '{}' }), true);
    // Twice: the second round goes through the handlers the first built, with its own inputs.
    for (const round of [1, 2]) {
      for (const command of commands(round)) await libraryDocumentClient(bySdk.client).send(command as never);
      for (const command of commands(round)) await documentClient(plain.client).send(command as never);
    }
    expect(plain.sent.map((sent) => sent.target)).toEqual(bySdk.sent.map((sent) => sent.target));
    for (const [index, sent] of plain.sent.entries()) {
      const expected = bySdk.sent[index]!;
      const { ClientRequestToken: ours, ...body } = sent.body;
      const { ClientRequestToken: theirs, ...expectedBody } = expected.body;
      expect(body, sent.target).toEqual(expectedBody);
      expect(typeof ours === 'string', sent.target).toBe(typeof theirs === 'string');
      expect(sent.headers['content-type']).toBe(expected.headers['content-type']);
      expect(Number(sent.headers['content-length']), sent.target).toBe(sent.bytes);
    }
    expect(plain.sent.at(-1)!.body.ClientRequestToken).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('reads the same outputs as lib-dynamodb and the SDK read, binary values as Uint8Array', async () => {
    const bySdk = recordingClient((target) => ({ status: 200, body: answerTo(target) }));
    const plain = recordingClient((target) => ({ status: 200, body: answerTo(target) }), true);
    for (const [index, command] of commands().entries()) {
      const expected = await libraryDocumentClient(bySdk.client).send(command as never);
      const actual = await documentClient(plain.client).send(commands()[index] as never);
      expect(actual).toEqual(expected);
    }
    const read = (await documentClient(plain.client).send(new GetCommand({ TableName: 't', Key: { pk: 'p' } }))) as { Item: Record<string, unknown> };
    expect(read.Item.b).toBeInstanceOf(Uint8Array);
    expect(Buffer.isBuffer(read.Item.b)).toBe(false);
    expect([...(read.Item.b as Uint8Array)]).toEqual([...packed]);
    expect((read as unknown as { $metadata: { requestId: string; httpStatusCode: number } }).$metadata).toMatchObject({
      requestId: 'r-1',
      httpStatusCode: 200,
    });
  });

  it('leaves errors to the SDK: the same exception, with its cancellation reasons', async () => {
    const failure = JSON.stringify({
      __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
      Message: 'Transaction cancelled',
      CancellationReasons: [{ Code: 'None' }, { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' }],
    });
    const bySdk = recordingClient(() => ({ status: 400, body: failure }));
    const plain = recordingClient(() => ({ status: 400, body: failure }), true);
    const expected = await libraryDocumentClient(bySdk.client)
      .send(commands().at(-1) as never)
      .catch((error: unknown) => error);
    const actual = await documentClient(plain.client)
      .send(commands().at(-1) as never)
      .catch((error: unknown) => error);
    expect(actual).toBeInstanceOf((expected as object).constructor);
    expect((actual as { name: string }).name).toBe('TransactionCanceledException');
    expect((actual as { CancellationReasons: unknown }).CancellationReasons).toEqual((expected as { CancellationReasons: unknown }).CancellationReasons);
  });

  it('wraps a client once', async () => {
    const plain = recordingClient(() => ({ status: 200, body: '{}' }), true);
    withPlainJsonBodies(plain.client);
    await documentClient(plain.client).send(new PutCommand({ TableName: 't', Item: { pk: 'p', packed } }));
    expect(plain.sent[0]!.body).toEqual({ TableName: 't', Item: { pk: { S: 'p' }, packed: { B: Buffer.from(packed).toString('base64') } } });
  });
});
