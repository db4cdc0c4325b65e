import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { sdkLoggerWithoutPayloads, withSignersKept } from '../../lambdas/adapters/sdk-client.js';

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

describe('withSignersKept', () => {
  it('builds one signer for every request of a client, which still reads the credentials at each signature', async () => {
    const { Readable } = await import('node:stream');
    let issued = 0;
    const authorizations: string[] = [];
    const client = new DynamoDBClient({
      region: 'eu-west-1',
      // Credentials about to expire: the SDK asks its provider again for each request.
      credentials: async () => ({ accessKeyId: `key-${++issued}`, secretAccessKey: 's', expiration: new Date(Date.now() + 1_000) }),
      endpoint: 'http://127.0.0.1:9',
      maxAttempts: 1,
      requestHandler: {
        handle: async (request: { headers: Record<string, string> }) => {
          authorizations.push(request.headers.authorization!);
          return { response: { statusCode: 200, headers: {}, body: Readable.from([Buffer.from('{}')]) } };
        },
      } as never,
    });
    const config = client.config as unknown as { signer: (scheme?: unknown) => Promise<unknown> };
    const sdkSigner = config.signer;
    let built = 0;
    config.signer = (scheme) => {
      built += 1;
      return sdkSigner(scheme);
    };
    withSignersKept(withSignersKept(client));
    for (let call = 0; call < 3; call++) await client.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: `p${call}` } } }));
    expect(built).toBe(1);
    expect(authorizations).toHaveLength(3);
    // The SDK asks for credentials more than once per request: each request signs with later ones.
    const keys = authorizations.map((header) => Number(/Credential=key-(\d+)\//.exec(header)?.[1]));
    expect(keys[0]).toBeLessThan(keys[1]!);
    expect(keys[1]).toBeLessThan(keys[2]!);
    for (const header of authorizations)
      expect(header).toMatch(/^AWS4-HMAC-SHA256 Credential=key-\d+\/\d{8}\/eu-west-1\/dynamodb\/aws4_request, SignedHeaders=.+, Signature=[0-9a-f]{64}$/);
  });
});
