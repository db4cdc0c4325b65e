/**
 * The API function's two doors: payload 2.0 events (the agents' function URL) turned into the REST
 * API's 1.0 shape the middleware reads, and its answers turned back (lambdas/handlers/api/request-path.ts).
 */
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { isPayloadV2, MIN_COMPRESSED_BYTES, payloadV2Result, restEventOf } from '../../lambdas/handlers/api/request-path.js';
import { functionUrlEvent } from '../support/function-url-event.js';

describe('payload 2.0 events in the REST API shape', () => {
  it('tells the two formats apart', () => {
    expect(isPayloadV2(functionUrlEvent('GET', '/'))).toBe(true);
    expect(isPayloadV2({ httpMethod: 'GET', path: '/', headers: {} })).toBe(false);
    expect(isPayloadV2(undefined)).toBe(false);
  });

  it('keeps method, headers, body and its encoding; decodes the path once, as API Gateway and the local gateway do', () => {
    const body = Buffer.from('{"host_id":"x"}').toString('base64');
    const event = restEventOf(
      functionUrlEvent('POST', '/api/assisted-install/v2/infra-envs/a%20b/hosts', { 'X-Secret-Key': 'token', 'Content-Type': 'application/json' }, body, true),
    );
    expect(event).toMatchObject({
      httpMethod: 'POST',
      path: '/api/assisted-install/v2/infra-envs/a b/hosts',
      headers: { 'x-secret-key': 'token', 'content-type': 'application/json' },
      multiValueHeaders: { 'x-secret-key': ['token'] },
      body,
      isBase64Encoded: true,
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      requestContext: { requestId: 'c7c6d0a4-59a4-4e0e-9a5e-2c0f1f8a4c11', httpMethod: 'POST', identity: { sourceIp: '192.0.2.10' } },
    });
    // An escape that is not UTF-8 stays as sent (the handler refuses it as unroutable, not with a 500).
    expect(restEventOf(functionUrlEvent('GET', '/api/%E0%A4%A')).path).toBe('/api/%E0%A4%A');
  });

  it('decodes query values and keeps repeated ones apart (payload 2.0 joins them with commas)', () => {
    const event = restEventOf(functionUrlEvent('GET', '/x?timestamp=1700000000&categories=user&categories=metrics&name=a%2Cb%20c'));
    expect(event.multiValueQueryStringParameters).toEqual({ timestamp: ['1700000000'], categories: ['user', 'metrics'], name: ['a,b c'] });
    expect(event.queryStringParameters).toEqual({ timestamp: '1700000000', categories: 'metrics', name: 'a,b c' });
  });

  it('puts cookies back into their header', () => {
    const event = restEventOf({ ...functionUrlEvent('GET', '/'), cookies: ['a=1', 'b=2'] });
    expect(event.headers.cookie).toBe('a=1; b=2');
  });
});

describe('answers in the payload 2.0 shape', () => {
  const big = JSON.stringify({ instructions: Array.from({ length: 60 }, (_, i) => ({ step_type: 'connectivity-check', args: [`10.0.0.${i}`] })) });

  it('gzips a text answer of 1 KB or more for a caller that accepts it, and says so', () => {
    expect(Buffer.byteLength(big)).toBeGreaterThan(MIN_COMPRESSED_BYTES);
    const answer = payloadV2Result(
      { statusCode: 200, headers: { 'Content-Type': 'application/json', 'Content-Length': String(big.length) }, body: big },
      'gzip',
    );
    expect(answer.isBase64Encoded).toBe(true);
    expect(answer.headers).toMatchObject({ 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' });
    expect(answer.headers!['Content-Length']).toBeUndefined();
    const wire = Buffer.from(answer.body!, 'base64');
    expect(gunzipSync(wire).toString('utf8')).toBe(big);
    expect(wire.length).toBeLessThan(big.length / 4);
  });

  it('leaves alone small answers, binary ones, already encoded ones and callers that do not accept gzip', () => {
    const json = { 'Content-Type': 'application/json' };
    for (const acceptEncoding of [undefined, 'identity', 'br', 'gzip;q=0']) {
      expect(payloadV2Result({ statusCode: 200, headers: json, body: big }, acceptEncoding)).toEqual({
        statusCode: 200,
        headers: json,
        body: big,
        isBase64Encoded: false,
      });
    }
    expect(payloadV2Result({ statusCode: 200, headers: json, body: big }, 'deflate, gzip;q=0.5').headers!['Content-Encoding']).toBe('gzip');
    expect(payloadV2Result({ statusCode: 401, headers: json, body: '{"code":401}' }, 'gzip').body).toBe('{"code":401}');
    const iso = Buffer.alloc(4096, 7).toString('base64');
    expect(
      payloadV2Result({ statusCode: 200, headers: { 'Content-Type': 'application/octet-stream' }, body: iso, isBase64Encoded: true }, 'gzip'),
    ).toMatchObject({ body: iso, isBase64Encoded: true });
    const encoded = { 'Content-Type': 'application/json', 'Content-Encoding': 'br' };
    expect(payloadV2Result({ statusCode: 200, headers: encoded, body: big }, 'gzip').body).toBe(big);
  });

  it('joins repeated headers, keeps Set-Cookie apart', () => {
    const answer = payloadV2Result(
      { statusCode: 204, headers: { 'X-A': '1' }, multiValueHeaders: { 'X-B': ['2', '3'], 'Set-Cookie': ['a=1', 'b=2'] }, body: '' },
      undefined,
    );
    expect(answer).toEqual({ statusCode: 204, headers: { 'X-A': '1', 'X-B': '2, 3' }, cookies: ['a=1', 'b=2'], body: '', isBase64Encoded: false });
  });
});
