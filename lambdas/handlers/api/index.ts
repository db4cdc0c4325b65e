import { readFileSync } from 'node:fs';
import { OpenAPIBackend, type Context as OpenApiContext, type Document, type Operation } from 'openapi-backend';
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2, APIGatewayProxyResult, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { DomainError, unauthorized } from '../../domain/core/errors.js';
import { container } from '../../platform/container.js';
import { errorResponse, mapError, requestFormErrorResponse } from '../../platform/http.js';
import { audited, type AuditedRequest } from '../../usecases/audit.js';
import { initializedAheadOfTraffic } from '../../platform/initialization.js';
import { apiHandler, type ApiEvent } from '../../platform/middleware.js';
import { authenticateUser } from '../../usecases/api-tokens.js';
import { authenticateAgent, authenticateInfraEnvUrl } from '../../usecases/agent-tokens.js';
import { authorize, type Principal } from '../../usecases/principal.js';
import { describeValidationError } from './validation-messages.js';
import { asRouterDocument } from './router-document.js';
import { addRouterFormats } from './router-formats.js';
import { header } from './params.js';
import { headersSent, isPayloadV2, payloadV2Result, restEventOf, unroutablePath } from './request-path.js';
import { precompileOperationMatching } from './operation-matcher.js';
import { operations, publicOperations } from './operations/index.js';
import type { OperationContext, OperationId, Operation as OperationHandler, RequestBody } from './context.js';

export const API_ROOT = '/api/assisted-install';

type Args = [ApiEvent, Context];

function validationReason(c: OpenApiContext): string {
  return (c.validation.errors ?? []).slice(0, 5).map(describeValidationError).join('; ');
}

/** openapi-backend keeps a rejected security handler's error as `{ error }`. */
function securityError(result: unknown): unknown {
  return typeof result === 'object' && result !== null && 'error' in result ? result.error : undefined;
}

/**
 * The router's document: a deployed bundle carries it as JSON (OPENAPI_DOCUMENT, converted at build
 * time), read without loading a YAML parser; elsewhere openapi.yaml, parsed.
 */
async function routerDocument(): Promise<Document> {
  const file = process.env.OPENAPI_DOCUMENT;
  if (file?.endsWith('.json')) {
    const document: Document = JSON.parse(readFileSync(file, 'utf8'));
    return asRouterDocument(document);
  }
  return asRouterDocument((await import('./openapi-document.js')).loadRouterDefinition());
}

/** The media types openapi.yaml lets the operation take its body in. */
function bodyTypesOf(operation: Operation | undefined): string[] {
  const requestBody = operation?.requestBody;
  return requestBody && 'content' in requestBody ? Object.keys(requestBody.content) : [];
}

function createRouter(document: Document): OpenAPIBackend {
  const api = new OpenAPIBackend({
    definition: document,
    apiRoot: API_ROOT,
    quick: true,
    validate: true,
    customizeAjv: (ajv) => addRouterFormats(ajv),
  });

  api.registerSecurityHandler('userAuth', async (c: OpenApiContext, event: ApiEvent) =>
    authenticateUser(container(), header(c, 'authorization') ?? event.headers.authorization),
  );

  // The call is named so the token's lifetime and the cluster's state can be judged for it.
  api.registerSecurityHandler('agentAuth', async (c: OpenApiContext) =>
    authenticateAgent(container(), header(c, 'x-secret-key'), {
      operationId: c.operation?.operationId,
      params: c.request.params,
      query: c.request.query,
    }),
  );

  // Credentials in the URL or an image token, for an infra-env's own files (iPXE firmware and
  // image downloads send no headers). Absent, they decline quietly: another scheme may answer.
  const infraEnvInPath = (c: OpenApiContext): string | undefined => c.request.params.infra_env_id;
  api.registerSecurityHandler('urlAuth', async (c: OpenApiContext, event: ApiEvent) => {
    const apiKey = urlCredential(event, 'api_key');
    return apiKey ? authenticateInfraEnvUrl(container(), apiKey, infraEnvInPath(c)) : false;
  });
  const imageTokenPrincipal = async (c: OpenApiContext, token: string | undefined): Promise<Principal | false> => {
    const infraEnvId = infraEnvInPath(c);
    if (!token || !infraEnvId) return false;
    // Only image downloads carry image tokens: the discovery image use case is loaded by the first.
    const { authorizeImageToken } = await import('../../usecases/discovery-image.js');
    const { infraEnv } = await authorizeImageToken(container(), infraEnvId, token);
    return { kind: 'agent', orgId: infraEnv.orgId, infraEnvId };
  };
  api.registerSecurityHandler('imageAuth', async (c: OpenApiContext) => imageTokenPrincipal(c, header(c, 'image-token')));
  api.registerSecurityHandler('imageURLAuth', async (c: OpenApiContext, event: ApiEvent) => imageTokenPrincipal(c, urlCredential(event, 'image_token')));

  const handlers: Record<string, (c: OpenApiContext, ...args: Args) => Promise<APIGatewayProxyResult | undefined>> = {
    // Before security and validation: a body in a type the operation does not take is a 415.
    postRoutingHandler: async (c, event) => {
      const accepted = bodyTypesOf(c.operation);
      const contentType = String(event.headers['content-type'] ?? '')
        .split(';')[0]!
        .trim()
        .toLowerCase();
      if (
        event.rawBody &&
        accepted.length > 0 &&
        !accepted.some((type) => type === contentType || (type.endsWith('/*') && contentType.startsWith(type.slice(0, -1))))
      ) {
        throw new DomainError('unsupported-media-type', `Content-Type ${contentType || '(none)'} is not accepted here; send ${accepted.join(' or ')}`);
      }
      return undefined;
    },
    notImplemented: async (c) => errorResponse(501, `assisted-cloud does not implement ${c.operation?.operationId ?? 'this operation'} yet`),
    notFound: async (c) => requestFormErrorResponse(404, `No operation serves ${c.request.method.toUpperCase()} ${c.request.path}`),
    methodNotAllowed: async (c) => requestFormErrorResponse(405, `${c.request.method.toUpperCase()} is not allowed on ${c.request.path}`),
    validationFail: async (c) => requestFormErrorResponse(400, `Invalid request: ${validationReason(c)}`),
    unauthorizedHandler: async (c) => {
      // Credentials in the URL decline quietly when absent, so their refusal, when there is one,
      // is the reason that applies (an expired pre-signed URL, not "send a bearer token").
      // Likewise the refusal of the credential the caller sent (an agent's X-Secret-Key), not another scheme's.
      const results = c.security ?? {};
      const sent = c.request.headers['x-secret-key'] !== undefined && c.request.headers.authorization === undefined ? ['agentAuth'] : [];
      const failure = [...new Set(['urlAuth', 'imageURLAuth', 'imageAuth', ...sent, ...Object.keys(results)])]
        .map((scheme) => securityError(results[scheme]))
        .find((error) => error instanceof DomainError);
      throw failure ?? unauthorized('Authentication is required: send "Authorization: Bearer <api token>"');
    },
  };
  const registerOperation = <Id extends OperationId>(operationId: Id) => {
    const entry = operations[operationId];
    if (!entry) return;
    handlers[operationId] = async (c, event, lambda) => {
      const principal = Object.values(c.security ?? {}).find((result): result is Principal => !!result && typeof result === 'object' && 'kind' in result);
      if (!principal) throw unauthorized('Authentication is required');
      const ports = container();
      const run = async () => {
        // The operation's declared access, before its handler (or its module) is loaded; inside the
        // audited run, so that a refusal is on record too.
        authorize(principal, entry.access);
        // The handler is typed for the callers its access admits, which authorize has just checked.
        const operation = (await entry.load()) as OperationHandler<Id>;
        // openapi-backend matched the path against this operation's template: its params are the operation's.
        return operation({ api: c as OperationContext<Id>, event, body: validatedBody<Id>(event), lambda, principal, ports });
      };
      return audited(ports, principal, auditedRequestOf(c, event), (error) => mapError(error, event.requestContext.requestId), run);
    };
  };
  for (const operationId of Object.keys(operations)) if (isImplemented(operationId)) registerOperation(operationId);
  for (const [operationId, { load }] of Object.entries(publicOperations)) {
    handlers[operationId] = async (c, event, lambda) => (await load())({ api: c, event, lambda, ports: container() });
  }
  api.register(handlers as never);
  api.init();
  precompileOperationMatching(api);
  return api;
}

/** What the audit log records of a request (usecases/audit.ts): the operation, its resources, where it came from. */
function auditedRequestOf(c: OpenApiContext, event: ApiEvent): AuditedRequest {
  return {
    requestId: event.requestContext.requestId,
    operationId: c.operation?.operationId ?? 'unknown',
    method: event.httpMethod,
    path: c.operation?.path ?? event.path,
    params: c.request.params,
    sourceIp: event.requestContext.identity?.sourceIp ?? undefined,
    userAgent: header(c, 'user-agent') ?? event.headers['user-agent'] ?? undefined,
  };
}

const isImplemented = (operationId: string): operationId is OperationId => Object.hasOwn(operations, operationId);

/**
 * The request body as the operation's handler reads it. The router validates every request against
 * openapi.yaml (validate: true) before it calls a handler, and answers one whose body does not fit
 * the operation's schema (or is missing where the body is required) with a 400 (validationFail):
 * by then the body has the shape contracts/api.ts, generated from the same document, gives it.
 * API Gateway's "no body" is null; the contract's is undefined.
 */
function validatedBody<Id extends OperationId>(event: ApiEvent): RequestBody<Id> {
  return (event.body ?? undefined) as RequestBody<Id>;
}

/**
 * The query parameters that carry credentials (the urlAuth and imageURLAuth schemes): read by the
 * security handlers from the event, and not operation parameters, so not validated as such.
 */
const URL_CREDENTIALS = new Set(['api_key', 'image_token']);

function urlCredential(event: ApiEvent, name: string): string | undefined {
  return event.multiValueQueryStringParameters?.[name]?.[0] ?? event.queryStringParameters?.[name] ?? undefined;
}

/**
 * A parameter that may repeat (explode: true, swagger's collectionFormat multi) becomes an array when
 * repeated; any other repeated parameter is read by its last value, as upstream's go-openapi router
 * reads it (`severities=warning&severities=error` is `error`; a list is comma-separated in one value).
 */
function queryOf(event: ApiEvent): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {})) {
    if (URL_CREDENTIALS.has(name)) continue;
    if (values && values.length > 0) query[name] = values.length > 1 && REPEATABLE_QUERY.has(name) ? values : values.at(-1)!;
  }
  return query;
}

/** Upstream's router cleans `//` (the UI library asks for /v2/clusters//default-config). */
const pathOf = (event: ApiEvent) => event.path.replace(/\/{2,}/g, '/');

/**
 * Built at init: every request is routed, validated and authenticated by it. Each operation's
 * request validator is compiled on its first use (docs/deploy.md has the cost), and each operation's
 * module is loaded by its first call (operations/index.ts): at init too when the container starts
 * ahead of traffic, so no request pays for either.
 */
const router = createRouter(await routerDocument());
/** The query parameters openapi.yaml lets repeat (explode: true): the same name is one in every operation that has it. */
const REPEATABLE_QUERY = new Set(
  router.router
    .getOperations()
    .flatMap((operation) => (operation.parameters ?? []) as { in?: string; name?: string; explode?: boolean }[])
    .filter((parameter) => parameter.in === 'query' && parameter.explode === true)
    .map((parameter) => parameter.name!),
);
if (initializedAheadOfTraffic()) {
  for (const operation of router.router.getOperations()) router.validator.getRequestValidatorsForOperation(operation.operationId!);
  await Promise.all([...Object.values(operations), ...Object.values(publicOperations)].map((entry) => entry.load()));
}

/** Whether openapi.yaml lets the operation this request is for take its body as text/plain. */
function takesText(event: ApiEvent): boolean {
  const operation = router.router.matchOperation({ method: event.httpMethod, path: pathOf(event), headers: {} });
  return bodyTypesOf(operation).includes('text/plain');
}

const restHandler = apiHandler(
  async (event, lambda) => {
    const badPath = unroutablePath(event.path);
    if (badPath) return errorResponse(400, `Invalid request: ${badPath}`);
    // openapi-backend validates only JSON bodies: a text body is handed to it as the JSON string it stands for.
    const text = typeof event.body === 'string' && takesText(event);
    const headers = headersSent(event.headers);
    // Every handler registered answers an APIGatewayProxyResult (or throws).
    const result: APIGatewayProxyResult = await router.handleRequest(
      {
        method: event.httpMethod,
        path: pathOf(event),
        query: queryOf(event),
        headers: text ? { ...headers, 'content-type': 'application/json' } : headers,
        // The text as sent: openapi-backend parses it itself, and a body that is a JSON string must stay one.
        body: text ? JSON.stringify(event.body) : (event.rawBody ?? undefined),
      },
      event,
      lambda,
    );
    return result;
  },
  { takesText },
);

/** The image service's paths: behind CloudFront and the REST API its own function answers them. */
const IMAGE_SERVICE_ROOT = '/api/assisted-images/';

/**
 * Image paths reaching the agents' function URL (the service URL the other functions hand out is
 * that URL, and image links are made from it): redirected, query and all, to the public URL, where
 * CloudFront sends them to the image service. Never to the URL the request came in on.
 */
function imageServiceRedirect(event: APIGatewayProxyEventV2, publicUrl: string): APIGatewayProxyStructuredResultV2 | undefined {
  if (!event.rawPath.startsWith(IMAGE_SERVICE_ROOT)) return undefined;
  const target = new URL(publicUrl);
  if (target.host === event.requestContext.domainName) return undefined;
  const query = event.rawQueryString ? `?${event.rawQueryString}` : '';
  return {
    statusCode: 307,
    headers: { Location: `${publicUrl}${event.rawPath}${query}`, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' },
    body: '',
  };
}

/**
 * One handler for both doors: REST API (payload 1.0) events from API Gateway and the embedded
 * runtime, and payload 2.0 events from the agents' function URL, answered in the shape each expects.
 */
export async function handler(event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult>;
export async function handler(event: APIGatewayProxyEventV2, context: Context): Promise<APIGatewayProxyStructuredResultV2>;
export async function handler(
  event: APIGatewayProxyEvent | APIGatewayProxyEventV2,
  context: Context,
): Promise<APIGatewayProxyResult | APIGatewayProxyStructuredResultV2> {
  if (!isPayloadV2(event)) return restHandler(event as never, context);
  const redirect = imageServiceRedirect(event, container().config.publicUrl);
  if (redirect) return redirect;
  const result = await restHandler(restEventOf(event) as never, context);
  return payloadV2Result(result, event.headers?.['accept-encoding']);
}
