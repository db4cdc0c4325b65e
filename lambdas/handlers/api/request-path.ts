import { gzipSync } from 'node:zlib';
import type {
  APIGatewayProxyEvent,
  APIGatewayProxyEventHeaders,
  APIGatewayProxyEventV2,
  APIGatewayProxyResult,
  APIGatewayProxyStructuredResultV2,
} from 'aws-lambda';

/**
 * Paths no operation may be routed by. openapi-backend trims whitespace from the path, drops
 * trailing slashes and decodes path parameters once more, and URL parsers resolve dot segments:
 * `DELETE /clusters/<id>%20` deleted cluster <id>, `…/hosts/..` reached UpdateInfraEnv, and `%25`
 * or a malformed escape failed with a 500. Such a path is refused before routing, with the reason.
 */
const MAX_ECHOED = 120;

export function unroutablePath(path: string): string | undefined {
  const shown = path.length > MAX_ECHOED ? `${path.slice(0, MAX_ECHOED)}…` : path;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this check refuses
  if (/[\s\u0000-\u001f\u007f]/.test(path))
    return `the path ${JSON.stringify(shown)} contains whitespace or control characters (a percent-encoded space or newline in an id?)`;
  if (path.split('/').some((segment) => segment === '.' || segment === '..'))
    return `the path ${JSON.stringify(shown)} contains '.' or '..' segments; name the resource directly`;
  if (path.includes('%'))
    return `the path ${JSON.stringify(shown)} contains '%' (a percent-encoded '%' or an escape that is not UTF-8); ids and names in paths never do`;
  return undefined;
}

/**
 * Payload format 2.0 events (a Lambda function URL, or an HTTP API) in the REST API (1.0) shape the
 * middleware and the operations read, built as API Gateway's REST proxy and the embedded runtime's
 * gateway build it (bin/local/api-gateway.ts): the path decoded once (an escape that is not UTF-8
 * stays as sent, and unroutablePath refuses it), query values decoded, repeated ones kept apart.
 */
export function isPayloadV2(event: unknown): event is APIGatewayProxyEventV2 {
  return typeof event === 'object' && event !== null && 'version' in event && event.version === '2.0';
}

/** The headers sent: API Gateway's map types a header as possibly absent, though none is. */
export function headersSent(headers: APIGatewayProxyEventHeaders | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(headers ?? {}).flatMap(([name, value]) => (value === undefined ? [] : [[name, value]])));
}

export function restEventOf(event: APIGatewayProxyEventV2): APIGatewayProxyEvent {
  const rawPath = event.rawPath || '/';
  let path = rawPath;
  try {
    path = decodeURIComponent(rawPath);
  } catch {
    // As sent: unroutablePath says why it cannot be routed.
  }
  // Payload 2.0 joins a repeated header's values with commas, which is also what the 1.0 shape's
  // single-value map would lose; cookies arrive apart and go back into their header.
  const headers = headersSent(event.headers);
  if (event.cookies?.length) headers.cookie = event.cookies.join('; ');
  const query: Record<string, string> = {};
  const multiQuery: Record<string, string[]> = {};
  for (const [name, value] of new URLSearchParams(event.rawQueryString ?? '')) {
    query[name] = value;
    (multiQuery[name] ??= []).push(value);
  }
  const hasQuery = Object.keys(query).length > 0;
  const http = event.requestContext.http;
  return {
    resource: '/{proxy+}',
    path,
    httpMethod: http.method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    queryStringParameters: hasQuery ? query : null,
    multiValueQueryStringParameters: hasQuery ? multiQuery : null,
    pathParameters: { proxy: rawPath.replace(/^\//, '') },
    stageVariables: null,
    requestContext: {
      accountId: event.requestContext.accountId,
      apiId: event.requestContext.apiId,
      authorizer: undefined,
      domainName: event.requestContext.domainName,
      protocol: http.protocol,
      httpMethod: http.method,
      identity: { sourceIp: http.sourceIp, userAgent: http.userAgent ?? null } as APIGatewayProxyEvent['requestContext']['identity'],
      path: rawPath,
      stage: event.requestContext.stage,
      requestId: event.requestContext.requestId,
      requestTimeEpoch: event.requestContext.timeEpoch,
      resourceId: event.routeKey,
      resourcePath: '/{proxy+}',
    },
    body: event.body ?? null,
    isBase64Encoded: event.isBase64Encoded && event.body !== undefined,
  };
}

/** Answers worth compressing: text of any kind (JSON, YAML, iPXE scripts); not ISOs, archives or images. */
const COMPRESSIBLE = /^(text\/|application\/(.+\+)?(json|yaml|xml)\b|application\/x-yaml\b)/i;
/** Below this, gzip's own 20 bytes and the CPU are not worth it (a 204, a short error). */
export const MIN_COMPRESSED_BYTES = 1024;

function acceptsGzip(acceptEncoding: string | undefined): boolean {
  return (acceptEncoding ?? '').split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return (coding === 'gzip' || coding === 'x-gzip' || coding === '*') && (q === undefined || Number(q.slice(2)) > 0);
  });
}

/**
 * The answer in payload 2.0's shape: headers one value each (repeated ones joined, as HTTP allows,
 * Set-Cookie apart), and a text body of 1 KB or more gzipped when the caller accepts it. Through
 * CloudFront or API Gateway nothing compressed an answer; straight from a function URL the bytes
 * are billed as data transfer out, and a connectivity check naming a big cluster's peers is tens of
 * kilobytes of repetitive JSON (upstream's Go agent asks for gzip and inflates it transparently).
 */
export function payloadV2Result(result: APIGatewayProxyResult, acceptEncoding: string | undefined): APIGatewayProxyStructuredResultV2 {
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) {
    if (name.toLowerCase() === 'set-cookie') cookies.push(...values.map(String));
    else headers[name] = values.map(String).join(', ');
  }
  const header = (name: string) => Object.keys(headers).find((key) => key.toLowerCase() === name);
  let body = result.body ?? '';
  let isBase64Encoded = result.isBase64Encoded ?? false;
  const contentType = headers[header('content-type') ?? ''] ?? '';
  const size = isBase64Encoded ? Buffer.byteLength(body, 'base64') : Buffer.byteLength(body);
  if (size >= MIN_COMPRESSED_BYTES && !header('content-encoding') && COMPRESSIBLE.test(contentType) && acceptsGzip(acceptEncoding)) {
    body = gzipSync(isBase64Encoded ? Buffer.from(body, 'base64') : Buffer.from(body, 'utf8')).toString('base64');
    isBase64Encoded = true;
    headers['Content-Encoding'] = 'gzip';
    const length = header('content-length');
    if (length) delete headers[length];
    const vary = header('vary');
    headers[vary ?? 'Vary'] = vary ? `${headers[vary]}, Accept-Encoding` : 'Accept-Encoding';
  }
  return { statusCode: result.statusCode, headers, body, isBase64Encoded, ...(cookies.length > 0 ? { cookies } : {}) };
}
