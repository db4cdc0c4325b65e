import { describe, expect, it } from 'vitest';
import { DomainError } from '../../lambdas/domain/core/errors.js';
import { errorResponse, mapError, RequestFormError, requestFormErrorResponse } from '../../lambdas/platform/http.js';
import { storageFault } from '../../lambdas/platform/storage-faults.js';
import { ConcurrentModificationError, TooMuchContentionError } from '../../lambdas/ports/store.js';

describe('error shapes', () => {
  it('uses infra_error for 401 and 403 and error for the rest, as upstream', () => {
    expect(JSON.parse(errorResponse(401, 'no').body)).toEqual({ code: 401, message: 'no' });
    expect(JSON.parse(errorResponse(403, 'no').body)).toEqual({ code: 403, message: 'no' });
    expect(JSON.parse(errorResponse(409, 'busy').body)).toEqual({ kind: 'Error', id: 409, href: '', code: '409', reason: 'busy' });
  });

  it("answers a refusal of the request's form (unparsable body, value outside the schema) as upstream's framework does: {code, message}", () => {
    expect(JSON.parse(requestFormErrorResponse(400, 'name in body is required').body)).toEqual({ code: 400, message: 'name in body is required' });
    expect(mapError(new RequestFormError(400, 'not JSON'), 'r')).toEqual({ statusCode: 400, reason: 'not JSON', internal: false, form: true });
  });

  it.each([
    ['bad-request', 400],
    ['unauthorized', 401],
    ['forbidden', 403],
    ['not-found', 404],
    ['conflict', 409],
    ['payload-too-large', 413],
    ['unsupported-media-type', 415],
    ['unavailable', 503],
  ] as const)('maps %s to %i with the message as the reason', (kind, status) => {
    expect(mapError(new DomainError(kind, 'why'), 'r1')).toEqual({ statusCode: status, reason: 'why', internal: false });
  });

  it('turns write contention into a retryable 503', () => {
    expect(mapError(new ConcurrentModificationError('host'), 'r').statusCode).toBe(503);
    expect(mapError(new TooMuchContentionError('host', 9), 'r').statusCode).toBe(503);
  });

  it('hides internal failures behind a generic reason carrying the request id', () => {
    const mapped = mapError(new Error('connect ECONNREFUSED 10.0.0.1 secret=hunter2'), 'req-42');
    expect(mapped).toEqual({ statusCode: 500, reason: 'internal error (request id req-42)', internal: true });
  });

  it('passes through exposed 4xx http errors, reporting malformed JSON as 400', () => {
    expect(mapError(Object.assign(new Error('Unsupported Media Type'), { statusCode: 415, expose: true }), 'r').statusCode).toBe(415);
    expect(mapError(Object.assign(new Error('bad json'), { statusCode: 422, expose: true }), 'r').statusCode).toBe(400);
    expect(mapError(Object.assign(new Error('boom'), { statusCode: 502, expose: false }), 'r').statusCode).toBe(500);
  });
});

describe('a store failing on its own side', () => {
  const serverFault = Object.assign(new Error('The request processing has failed because of an unknown error'), { name: 'InternalFailure', $fault: 'server' });

  it('is a 503 to retry where no storage directory is named (AWS), and a 500 stays a 500 for anything else', () => {
    expect(storageFault(serverFault, {})).toEqual({ statusCode: 503, reason: expect.stringMatching(/nothing was changed: retry/) });
    expect(storageFault(Object.assign(new Error('x'), { $fault: 'client' }), {})).toBeUndefined();
    expect(mapError(new TypeError('x'), 'r1')).toMatchObject({ statusCode: 500, internal: true });
  });

  it('names a full directory with a 507 (statfs says how much is free), and ignores one it cannot read', () => {
    const roomy = storageFault(serverFault, { STORAGE_DIRECTORIES: `/nonexistent-${process.pid}:${process.cwd()}` });
    expect(roomy?.statusCode).toBe(503);
    // /proc reports no free blocks at all.
    expect(storageFault(serverFault, { STORAGE_DIRECTORIES: `${process.cwd()}:/proc` })).toEqual({
      statusCode: 507,
      reason: expect.stringMatching(/no space left on device in \/proc/),
    });
  });
});
