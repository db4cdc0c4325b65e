import { readFileSync } from 'node:fs';
import { OpenAPIBackend, type Context as OpenApiContext, type Document } from 'openapi-backend';
import addFormats from 'ajv-formats';
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2, APIGatewayProxyResult, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { DomainError, unauthorized } from '../../domain/core/errors.js';
import { container } from '../../platform/container.js';
import { errorResponse } from '../../platform/http.js';
import { initializedAheadOfTraffic } from '../../platform/initialization.js';
import { apiHandler, type ApiEvent } from '../../platform/middleware.js';
import { authenticateUser } from '../../usecases/api-tokens.js';
import { authenticateAgent, authenticateInfraEnvUrl } from '../../usecases/agent-tokens.js';
import type { Principal } from '../../usecases/principal.js';
import { describeValidationError } from './validation-messages.js';
import { isPayloadV2, payloadV2Result, restEventOf, unroutablePath } from './request-path.js';
import { precompileOperationMatching } from './operation-matcher.js';
import { operations, publicOperations } from './operations/index.js';

export const API_ROOT = '/api/assisted-install';

type Args = [ApiEvent, Context];

function validationReason(c: OpenApiContext): string {
  return (c.validation.errors ?? []).slice(0, 5).map(describeValidationError).join('; ');
}

/**
 * The router's document: a deployed bundle carries it as JSON (OPENAPI_DOCUMENT, converted at build
 * time), read without loading a YAML parser; elsewhere openapi.yaml, parsed.
 */
async function routerDocument(): Promise<Record<string, unknown>> {
  const file = process.env.OPENAPI_DOCUMENT;
  if (file?.endsWith('.json')) return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  return (await import('./openapi-document.js')).loadOpenApiDocument();
}

function createRouter(document: Record<string, unknown>): OpenAPIBackend {
  const api = new OpenAPIBackend({
    definition: document as Document,
    apiRoot: API_ROOT,
    quick: true,
    validate: true,
    customizeAjv: (ajv) => {
      addFormats.default(ajv as never);
      // Formats upstream's swagger uses that ajv-formats does not define.
      ajv.addFormat('mac', /^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$/);
      ajv.addFormat('string', true);
      return ajv;
    },
  });

  api.registerSecurityHandler('userAuth', async (c: OpenApiContext, event: ApiEvent) =>
    authenticateUser(container(), (c.request.headers.authorization as string | undefined) ?? event.headers.authorization),
  );

  // The call is named so the token's lifetime and the cluster's state can be judged for it.
  api.registerSecurityHandler('agentAuth', async (c: OpenApiContext) =>
    authenticateAgent(container(), c.request.headers['x-secret-key'] as string | undefined, {
      operationId: c.operation?.operationId,
      params: c.request.params as Record<string, unknown>,
      query: c.request.query as Record<string, unknown>,
    }),
  );

  // Credentials in the URL or an image token, for an infra-env's own files (iPXE firmware and
  // image downloads send no headers). Absent, they decline quietly: another scheme may answer.
  const infraEnvInPath = (c: OpenApiContext) => (c.request.params as Record<string, string | undefined>).infra_env_id;
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
  api.registerSecurityHandler('imageAuth', async (c: OpenApiContext) => imageTokenPrincipal(c, c.request.headers['image-token'] as string | undefined));
  api.registerSecurityHandler('imageURLAuth', async (c: OpenApiContext, event: ApiEvent) => imageTokenPrincipal(c, urlCredential(event, 'image_token')));

  const handlers: Record<string, (c: OpenApiContext, ...args: Args) => Promise<APIGatewayProxyResult | void>> = {
    // Before security and validation: a body in a type the operation does not take is a 415.
    postRoutingHandler: async (c, event) => {
      const accepted = Object.keys((c.operation?.requestBody as { content?: object } | undefined)?.content ?? {});
      const contentType = String(event.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (event.rawBody && accepted.length > 0 && !accepted.some((type) => type === contentType || (type.endsWith('/*') && contentType.startsWith(type.slice(0, -1))))) {
        throw new DomainError('unsupported-media-type', `Content-Type ${contentType || '(none)'} is not accepted here; send ${accepted.join(' or ')}`);
      }
    },
    notImplemented: async (c) =>
      errorResponse(501, `assisted-cloud does not implement ${c.operation?.operationId ?? 'this operation'} yet`),
    notFound: async (c) => errorResponse(404, `No operation serves ${c.request.method.toUpperCase()} ${c.request.path}`),
    methodNotAllowed: async (c) => errorResponse(405, `${c.request.method.toUpperCase()} is not allowed on ${c.request.path}`),
    validationFail: async (c) => errorResponse(400, `Invalid request: ${validationReason(c)}`),
    unauthorizedHandler: async (c) => {
      // openapi-backend keeps a rejected security handler's error as `{ error }`.
      // Credentials in the URL decline quietly when absent, so their refusal, when there is one,
      // is the reason that applies (an expired pre-signed URL, not "send a bearer token").
      // Likewise the refusal of the credential the caller sent (an agent's X-Secret-Key), not another scheme's.
      const results = (c.security ?? {}) as Record<string, unknown>;
      const sent = c.request.headers['x-secret-key'] !== undefined && c.request.headers.authorization === undefined ? ['agentAuth'] : [];
      const failure = [...new Set(['urlAuth', 'imageURLAuth', 'imageAuth', ...sent, ...Object.keys(results)])]
        .map((scheme) => (results[scheme] as { error?: unknown } | undefined)?.error)
        .find((error) => error instanceof DomainError);
      throw failure ?? unauthorized('Authentication is required: send "Authorization: Bearer <api token>"');
    },
  };
  for (const [operationId, load] of Object.entries(operations)) {
    handlers[operationId] = async (c, event, lambda) => {
      const principal = Object.values(c.security ?? {}).find(
        (result): result is Principal => !!result && typeof result === 'object' && 'kind' in result,
      );
      if (!principal) throw unauthorized('Authentication is required');
      const operation = await load();
      return operation({ api: c, event, lambda, principal, ports: container() });
    };
  }
  for (const [operationId, load] of Object.entries(publicOperations)) {
    handlers[operationId] = async (c, event, lambda) => (await load())({ api: c, event, lambda, ports: container() });
  }
  api.register(handlers as never);
  api.init();
  precompileOperationMatching(api);
  return api;
}

/**
 * The query parameters that carry credentials (the urlAuth and imageURLAuth schemes): read by the
 * security handlers from the event, and not operation parameters, so not validated as such.
 */
const URL_CREDENTIALS = new Set(['api_key', 'image_token']);

function urlCredential(event: ApiEvent, name: string): string | undefined {
  return event.multiValueQueryStringParameters?.[name]?.[0] ?? event.queryStringParameters?.[name] ?? undefined;
}

/** Repeated parameters become arrays, single ones stay strings, as openapi-backend expects. */
function queryOf(event: ApiEvent): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {})) {
    if (URL_CREDENTIALS.has(name)) continue;
    if (values && values.length > 0) query[name] = values.length === 1 ? values[0]! : values;
  }
  return query;
}

/** Upstream's router cleans `//` (the UI library asks for /v2/clusters//default-config). */
const pathOf = (event: ApiEvent) => event.path.replace(/\/{2,}/g, '/');

/**
 * Built at init: every request is routed, validated and authenticated by it. Each operation's
 * request validator is compiled on its first use (~20 ms each, 1.6 s for all), and each operation's
 * module is loaded by its first call (operations/index.ts): at init too when the container starts
 * ahead of traffic, so no request pays for either.
 */
const router = createRouter(await routerDocument());
if (initializedAheadOfTraffic()) {
  for (const operation of router.router.getOperations()) router.validator.getRequestValidatorsForOperation(operation.operationId!);
  await Promise.all([...Object.values(operations), ...Object.values(publicOperations)].map((load) => load()));
}

/** Whether openapi.yaml lets the operation this request is for take its body as text/plain. */
function takesText(event: ApiEvent): boolean {
  const operation = router.router.matchOperation({ method: event.httpMethod, path: pathOf(event), headers: {} });
  return 'text/plain' in ((operation?.requestBody as { content?: object } | undefined)?.content ?? {});
}

const restHandler = apiHandler(
  async (event, lambda) => {
    const badPath = unroutablePath(event.path);
    if (badPath) return errorResponse(400, `Invalid request: ${badPath}`);
    // openapi-backend validates only JSON bodies: a text body is handed to it as the JSON string it stands for.
    const text = typeof event.body === 'string' && takesText(event);
    return (await router.handleRequest(
      {
        method: event.httpMethod,
        path: pathOf(event),
        query: queryOf(event),
        headers: text ? { ...(event.headers as Record<string, string>), 'content-type': 'application/json' } : (event.headers as Record<string, string>),
        // The text as sent: openapi-backend parses it itself, and a body that is a JSON string must stay one.
        body: text ? JSON.stringify(event.body) : (event.rawBody ?? undefined),
      },
      event,
      lambda,
    )) as APIGatewayProxyResult;
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
  return { statusCode: 307, headers: { Location: `${publicUrl}${event.rawPath}${query}`, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' }, body: '' };
}

/**
 * One handler for both doors: REST API (payload 1.0) events from API Gateway and the embedded
 * runtime, and payload 2.0 events from the agents' function URL, answered in the shape each expects.
 */
export async function handler(event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult>;
export async function handler(event: APIGatewayProxyEventV2, context: Context): Promise<APIGatewayProxyStructuredResultV2>;
export async function handler(event: APIGatewayProxyEvent | APIGatewayProxyEventV2, context: Context): Promise<APIGatewayProxyResult | APIGatewayProxyStructuredResultV2> {
  if (!isPayloadV2(event)) return restHandler(event as never, context);
  const redirect = imageServiceRedirect(event, container().config.publicUrl);
  if (redirect) return redirect;
  const result = await restHandler(restEventOf(event) as never, context);
  return payloadV2Result(result, event.headers?.['accept-encoding']);
}
