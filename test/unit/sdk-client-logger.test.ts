import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { sdkLoggerWithoutPayloads } from '../../lambdas/adapters/sdk-client.js';

describe("the SDK clients' logger", () => {
  it("has no info nor error, so that the SDK does not filter each call's payload for them, and drops the rest", () => {
    expect('info' in sdkLoggerWithoutPayloads).toBe(false);
    expect('error' in sdkLoggerWithoutPayloads).toBe(false);
    expect(() => {
      sdkLoggerWithoutPayloads.debug('x');
      sdkLoggerWithoutPayloads.warn('x');
    }).not.toThrow();
  });

  it('is accepted by a client whose calls then succeed and fail as usual', async () => {
    // A handler standing in for the network: one answer, then one failure.
    let calls = 0;
    const client = new DynamoDBClient({
      region: 'us-east-1',
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
      endpoint: 'http://127.0.0.1:9',
      maxAttempts: 1,
      logger: sdkLoggerWithoutPayloads,
      requestHandler: {
        handle: async () => {
          calls += 1;
          const body =
            calls === 1 ? '{"Item":{"pk":{"S":"p"}}}' : '{"__type":"com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException","message":"no"}';
          const { Readable } = await import('node:stream');
          return {
            response: {
              statusCode: calls === 1 ? 200 : 400,
              headers: { 'content-type': 'application/x-amz-json-1.0' },
              body: Readable.from([Buffer.from(body)]),
            },
          };
        },
      } as never,
    });
    const read = await client.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'p' } } }));
    expect(read.Item).toEqual({ pk: { S: 'p' } });
    await expect(client.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'p' } } }))).rejects.toThrow('no');
  });
});
