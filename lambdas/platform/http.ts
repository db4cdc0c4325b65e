import type { APIGatewayProxyResult } from 'aws-lambda';
import { DomainError, type ProblemKind } from '../domain/core/errors.js';
import { ConcurrentModificationError, TooMuchContentionError } from '../ports/store.js';
import { storageFault } from './storage-faults.js';

const STATUS: Record<ProblemKind, number> = {
  'bad-request': 400,
  unauthorized: 401,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  'payload-too-large': 413,
  unprocessable: 422,
  'unsupported-media-type': 415,
  unavailable: 503,
};

const JSON_HEADERS = { 'Content-Type': 'application/json' };

export function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): APIGatewayProxyResult {
  return { statusCode, headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) };
}

/** What a caught failure says: a library's own message, for a reason that tells the caller what was wrong with the request. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function noContent(): APIGatewayProxyResult {
  return { statusCode: 204, headers: {}, body: '' };
}

/**
 * Upstream's two error shapes: `infra_error` for 401/403 and `error` for every other status.
 * The reason goes to the caller as written, so it never carries internals or secrets.
 */
export function errorResponse(statusCode: number, reason: string): APIGatewayProxyResult {
  if (statusCode === 401 || statusCode === 403) return json(statusCode, { code: statusCode, message: reason });
  return json(statusCode, { kind: 'Error', id: statusCode, href: '', code: String(statusCode), reason });
}

/**
 * Upstream's answer to a request refused for its form before any operation runs (a body that does
 * not parse, a value its schema does not allow, a path or method no operation serves): its HTTP
 * framework's `{code, message}`, with the code a number, not the operations' `error`.
 */
export function requestFormErrorResponse(statusCode: number, message: string): APIGatewayProxyResult {
  return json(statusCode, { code: statusCode, message });
}

/** A request refused for its form (see requestFormErrorResponse), thrown where that is found. */
export class RequestFormError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'RequestFormError';
  }
}

export interface MappedError {
  statusCode: number;
  reason: string;
  /** Whether the failure is ours (logged with its stack) rather than the caller's. */
  internal: boolean;
  /** A refusal of the request's form, answered in that shape (requestFormErrorResponse). */
  form?: boolean;
}

/** Decides what a failure means to the caller. Anything unrecognised is an internal error with a generic reason. */
export function mapError(error: unknown, requestId: string): MappedError {
  if (error instanceof DomainError) return { statusCode: STATUS[error.kind], reason: error.message, internal: false };
  if (error instanceof RequestFormError) return { statusCode: error.statusCode, reason: error.message, internal: false, form: true };
  if (error instanceof ConcurrentModificationError || error instanceof TooMuchContentionError) {
    return { statusCode: 503, reason: `${error.message}; please retry`, internal: false };
  }
  if (isExposedClientError(error)) {
    // middy's body parser reports malformed JSON as 422; upstream answers 400 for any unparsable body.
    const statusCode = error.statusCode === 422 ? 400 : error.statusCode;
    return { statusCode, reason: typeof error.message === 'string' ? error.message : 'bad request', internal: false, form: true };
  }
  const fault = storageFault(error);
  // Still ours to look into (logged with its stack), but the caller is told what happened.
  if (fault) return { statusCode: fault.statusCode, reason: fault.reason, internal: true };
  return { statusCode: 500, reason: `internal error (request id ${requestId})`, internal: true };
}

/** An http-errors style error (as middy's HTTP middlewares throw) meant for the caller: a 4xx with `expose` set. */
function isExposedClientError(error: unknown): error is { statusCode: number; expose: unknown; message?: unknown } {
  return (
    typeof error === 'object' &&
    error !== null &&
    'statusCode' in error &&
    typeof error.statusCode === 'number' &&
    error.statusCode >= 400 &&
    error.statusCode < 500 &&
    'expose' in error &&
    !!error.expose
  );
}
