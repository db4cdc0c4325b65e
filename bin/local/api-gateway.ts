import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { errorResponse } from '../../lambdas/platform/http.js';

/** API Gateway's own payload limit; the local stand-in enforces the same one. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

export type ProxyInvoke = (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;
/** Requests the runtime answers itself (health, console) before API Gateway semantics apply. */
export type LocalRoute = (request: IncomingMessage, response: ServerResponse) => Promise<boolean> | boolean;

const BINARY_TYPES = /^(application\/(octet-stream|gzip|x-gzip|x-tar|x-iso9660-image|zip|pdf)|multipart\/)/i;

class BodyTooLarge extends Error {}

/**
 * Reads the body up to the limit. Past it, the rest is drained (so the client can read our 413)
 * unless it goes on far beyond, when the connection is cut.
 */
function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > 4 * MAX_BODY_BYTES) request.destroy();
      else if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on('end', () => (size > MAX_BODY_BYTES ? reject(new BodyTooLarge()) : resolve(Buffer.concat(chunks))));
    request.on('error', reject);
  });
}

/** Builds the REST API (v1) proxy event API Gateway sends a Lambda for this request. */
export function toProxyEvent(request: IncomingMessage, body: Buffer): APIGatewayProxyEvent {
  const url = new URL(request.url ?? '/', 'http://local');
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    const name = request.rawHeaders[i]!;
    const value = request.rawHeaders[i + 1]!;
    headers[name] = value;
    (multiValueHeaders[name] ??= []).push(value);
  }
  const query: Record<string, string> = {};
  const multiQuery: Record<string, string[]> = {};
  for (const [name, value] of url.searchParams) {
    query[name] = value;
    (multiQuery[name] ??= []).push(value);
  }
  const contentType = request.headers['content-type'] ?? '';
  const binary = BINARY_TYPES.test(contentType);
  const hasQuery = Object.keys(query).length > 0;
  return {
    resource: '/{proxy+}',
    path: decodeURIComponent(url.pathname),
    httpMethod: request.method ?? 'GET',
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? query : null,
    multiValueQueryStringParameters: hasQuery ? multiQuery : null,
    pathParameters: { proxy: url.pathname.replace(/^\//, '') },
    stageVariables: null,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: undefined,
      protocol: `HTTP/${request.httpVersion}`,
      httpMethod: request.method ?? 'GET',
      identity: { sourceIp: request.socket.remoteAddress ?? '127.0.0.1', userAgent: request.headers['user-agent'] ?? null } as never,
      path: url.pathname,
      stage: 'local',
      requestId: randomUUID(),
      requestTimeEpoch: Date.now(),
      resourceId: 'local',
      resourcePath: '/{proxy+}',
    },
    body: body.length === 0 ? null : binary ? body.toString('base64') : body.toString('utf8'),
    isBase64Encoded: binary && body.length > 0,
  };
}

function writeResult(response: ServerResponse, result: APIGatewayProxyResult): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) headers[name] = values.map(String);
  const body = result.isBase64Encoded ? Buffer.from(result.body, 'base64') : Buffer.from(result.body ?? '', 'utf8');
  headers['Content-Length'] = String(body.length);
  response.writeHead(result.statusCode, headers);
  response.end(body);
}

function sendError(response: ServerResponse, status: number, reason: string): void {
  writeResult(response, errorResponse(status, reason));
}

export interface ApiGatewayOptions {
  host: string;
  port: number;
  invoke: ProxyInvoke;
  localRoutes?: LocalRoute[];
  log?: (message: string) => void;
}

export async function startApiGateway(options: ApiGatewayOptions): Promise<{ server: http.Server; url: string; close(): Promise<void> }> {
  const server = http.createServer(async (request, response) => {
    try {
      for (const route of options.localRoutes ?? []) if (await route(request, response)) return;
      const body = await readBody(request);
      writeResult(response, await options.invoke(toProxyEvent(request, body)));
    } catch (error) {
      if (response.headersSent) return response.destroy();
      if (error instanceof BodyTooLarge) return sendError(response, 413, `Request body exceeds ${MAX_BODY_BYTES} bytes`);
      // The function itself maps its own failures; reaching here means the invocation crashed.
      options.log?.(`api invocation failed: ${(error as Error).stack ?? error}`);
      sendError(response, 502, 'The API function failed to answer');
    }
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    server,
    url: `http://${address.address.includes(':') ? `[${address.address}]` : address.address}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
