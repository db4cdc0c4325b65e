import middy, { type MiddlewareObj } from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { errorResponse, mapError, messageOf, requestFormErrorResponse, RequestFormError } from './http.js';
import { logger, metrics } from './observability.js';

/** An API event whose JSON body (when it has one) has been parsed. */
export type ApiEvent = Omit<APIGatewayProxyEvent, 'body'> & { body: unknown; rawBody: string | null };
export type ApiHandler = (event: ApiEvent, context: Context) => Promise<APIGatewayProxyResult>;

const JSON_TYPE = /^application\/(.+\+)?json\s*($|;)/i;

/**
 * Go's encoding/json refuses documents nested deeper than this, so upstream answers them 400; here
 * such a document would overflow the stack of whatever walks it next (validation, JSON.stringify).
 */
export const MAX_JSON_NESTING = 10_000;

/**
 * DynamoDB stores numbers of magnitude 1e-130 to 1e125 with 38 digits, and the AWS SDK marshals
 * only integers JavaScript holds exactly: a number outside that, anywhere in a body (free-form
 * values included), would be refused by the store after the request was accepted.
 */
export function unstorableNumberIn(value: unknown): { path: string; value: number } | undefined {
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length > 0) {
    const [next, path] = stack.pop()!;
    if (typeof next === 'number') {
      const magnitude = Math.abs(next);
      if (!Number.isFinite(next) || magnitude > 9.99e124 || (magnitude !== 0 && magnitude < 1e-129) || (Number.isInteger(next) && !Number.isSafeInteger(next)))
        return { path, value: next };
    } else if (Array.isArray(next)) for (const [index, item] of next.entries()) stack.push([item, `${path}[${index}]`]);
    else if (next !== null && typeof next === 'object') for (const [key, item] of Object.entries(next)) stack.push([item, path ? `${path}.${key}` : key]);
  }
  return undefined;
}

/** Only a text with an exponent or a long run of digits can hold such a number: ordinary bodies are not walked. */
const MAY_HOLD_UNSTORABLE_NUMBER = /\d{16}|\d[eE][+-]?\d/;

/**
 * The deepest nesting of arrays and objects in a JSON text, counting only brackets outside strings.
 * A text shorter than twice the limit cannot exceed it, so ordinary bodies are not scanned.
 */
export function jsonNestingExceeds(text: string, limit: number = MAX_JSON_NESTING): boolean {
  if (text.length <= 2 * limit) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

export interface ApiHandlerOptions {
  /**
   * Whether the operation the request is for takes opaque text (the router knows, from its OpenAPI
   * document). Such a body that is labelled JSON but does not parse is kept as the text it is:
   * upstream's UI library sends `AI_UI:{...}` as application/json, and upstream stores what arrives.
   */
  takesText?: (event: ApiEvent) => boolean;
}

/**
 * Parses JSON bodies and leaves every other body as text, so an operation that takes a PEM or a
 * multipart upload sees its bytes. Malformed JSON is the caller's mistake (a 400 that says where),
 * unless the operation takes text.
 */
function jsonBody(options: ApiHandlerOptions): MiddlewareObj<ApiEvent> {
  return {
    before: (request) => {
      const event = request.event;
      // Before this runs the body is API Gateway's: the request's text, or null.
      const sent = typeof event.body === 'string' ? event.body : null;
      const raw = event.isBase64Encoded && sent ? Buffer.from(sent, 'base64').toString('utf8') : sent;
      event.rawBody = raw;
      const contentType = event.headers?.['content-type'] ?? '';
      if (!raw || !JSON_TYPE.test(contentType)) return;
      if (jsonNestingExceeds(raw)) throw new RequestFormError(400, `The request body nests arrays and objects more than ${MAX_JSON_NESTING} levels deep`);
      try {
        event.body = JSON.parse(raw);
      } catch (error) {
        if (options.takesText?.(event)) {
          event.body = raw;
          return;
        }
        throw new RequestFormError(400, `The request body is not valid JSON: ${messageOf(error)}`);
      }
      if (MAY_HOLD_UNSTORABLE_NUMBER.test(raw)) {
        const unstorable = unstorableNumberIn(event.body);
        if (unstorable !== undefined) {
          // A refusal of the body's form, as upstream's framework refuses a number its field's Go type cannot hold.
          throw new RequestFormError(
            400,
            `${unstorable.path || 'The request body'} holds the number ${unstorable.value}, which the service cannot store: integers up to 2^53 - 1, other numbers of magnitude 1e-129 to 1e125`,
          );
        }
      }
    },
  };
}

/** Turns every failure into upstream's error shapes; only our own failures are logged with a stack. */
function errorMapper(): MiddlewareObj<ApiEvent, APIGatewayProxyResult> {
  return {
    onError: (request) => {
      const requestId = request.context.awsRequestId;
      const mapped = mapError(request.error, requestId);
      if (mapped.internal) logger.error('request failed', { error: request.error, answered: { statusCode: mapped.statusCode, reason: mapped.reason } });
      else logger.info('request rejected', { statusCode: mapped.statusCode, reason: mapped.reason });
      metrics.addMetric(mapped.internal ? 'InternalErrors' : 'RejectedRequests', 'Count', 1);
      request.response = mapped.form ? requestFormErrorResponse(mapped.statusCode, mapped.reason) : errorResponse(mapped.statusCode, mapped.reason);
    },
  };
}

/**
 * Headers every API answer carries: no content sniffing, and no caching anywhere between the
 * service and the caller (answers carry tokens, pull secrets, kubeconfigs, agent tokens baked into
 * images). A handler that chose its own Cache-Control keeps it.
 */
function responseHeaders(): MiddlewareObj<ApiEvent, APIGatewayProxyResult> {
  const add = (request: { response: APIGatewayProxyResult | null | undefined }) => {
    if (!request.response) return;
    const headers = { ...(request.response.headers ?? {}) };
    const has = (name: string) => Object.keys(headers).some((key) => key.toLowerCase() === name);
    if (!has('cache-control')) headers['Cache-Control'] = 'no-store';
    headers['X-Content-Type-Options'] = 'nosniff';
    request.response = { ...request.response, headers };
  };
  return { after: add, onError: add };
}

/**
 * Counts every invocation and publishes the metrics at the end of it. With metrics switched off
 * (POWERTOOLS_METRICS_DISABLED, as the embedded runtime does) nothing is published, and nothing
 * warns about an empty publication on every call.
 */
function withMetrics<E, R>(): MiddlewareObj<E, R>[] {
  if (process.env.POWERTOOLS_METRICS_DISABLED === 'true') return [];
  const publish: MiddlewareObj<E, R> = logMetrics(metrics);
  const count: MiddlewareObj<E, R> = { before: () => void metrics.addMetric('Invocations', 'Count', 1) };
  return [publish, count];
}

/** The stack every API function shares: context-aware logging, metrics, header normalising, JSON, errors. */
export function apiHandler(handler: ApiHandler, options: ApiHandlerOptions = {}) {
  return (
    middy<ApiEvent, APIGatewayProxyResult>()
      .use(injectLambdaContext(logger, { resetKeys: true }))
      .use(withMetrics())
      .use(httpHeaderNormalizer())
      // Before errorMapper: middy runs onError in reverse order, so this sees the mapped error answer.
      .use(responseHeaders())
      .use(jsonBody(options))
      .use(errorMapper())
      .handler(handler)
  );
}

/** The stack for non-HTTP functions (monitors, workflow tasks): logging and metrics; errors propagate. */
export function taskHandler<I, O>(handler: (input: I, context: Context) => Promise<O>) {
  return middy<I, O>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(withMetrics())
    .handler(handler);
}
