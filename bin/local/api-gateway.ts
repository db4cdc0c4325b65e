import { randomUUID } from 'node:crypto';
import { appendFileSync, createReadStream, statSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import path from 'node:path';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import consoleSecurityHeaders from '../../console/security-headers.json' with { type: 'json' };
import { errorResponse } from '../../lambdas/platform/http.js';

/** How long stopping waits for requests in flight before cutting their connections. */
const GRACEFUL_CLOSE_MS = 5_000;

/** API Gateway's own payload limit; the local stand-in enforces the same one. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;
/** Time a client has to send its request headers, from the moment it connects. */
export const HEADERS_TIMEOUT_MS = 10_000;
/** Time a client has to send its whole request (a 10 MB body on a slow link included). */
const REQUEST_TIMEOUT_MS = 60_000;
/** The console's security headers, shared with CloudFront's response headers policy. */
const CONSOLE_SECURITY_HEADERS = consoleSecurityHeaders as Record<string, string>;

export type ProxyInvoke = (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;
/** Requests the runtime answers itself (health, console) before API Gateway semantics apply. */
export type LocalRoute = (request: IncomingMessage, response: ServerResponse) => Promise<boolean> | boolean;

const BINARY_TYPES = /^(application\/(octet-stream|gzip|x-gzip|x-tar|x-iso9660-image|zip|pdf)|multipart\/)/i;

class BodyTooLarge extends Error {}

/** A refused body is drained up to this much (bounded in time by REQUEST_TIMEOUT_MS too), then the connection is cut. */
const MAX_DRAINED_BYTES = 1024 * 1024 * 1024;

/**
 * Reads the body up to the limit. A body declared or found larger is refused at once: the 413 goes
 * out while what is still arriving is read and discarded, so the client, still sending, reads our
 * answer instead of a broken pipe.
 */
function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    const refuse = () => {
      refused = true;
      chunks.length = 0;
      reject(new BodyTooLarge());
    };
    if (Number(request.headers['content-length'] ?? 0) > MAX_BODY_BYTES) refuse();
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_DRAINED_BYTES) request.destroy();
      else if (refused) return;
      else if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      else refuse();
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/** Builds the REST API (v1) proxy event API Gateway sends a Lambda for this request. */
export function toProxyEvent(request: IncomingMessage, body: Buffer): APIGatewayProxyEvent {
  const url = new URL(request.url ?? '/', 'http://local');
  // The path as sent: API Gateway does not resolve '.' and '..' segments as URL parsing does (the
  // function refuses them), and an escape that is not UTF-8 reaches it undecoded.
  const rawPath = (request.url ?? '/').split('?')[0]!.replace(/^(?!\/)/, '/');
  const decodedPath = (() => {
    try {
      return decodeURIComponent(rawPath);
    } catch {
      return rawPath;
    }
  })();
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
    path: decodedPath,
    httpMethod: request.method ?? 'GET',
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? query : null,
    multiValueQueryStringParameters: hasQuery ? multiQuery : null,
    pathParameters: { proxy: rawPath.replace(/^\//, '') },
    stageVariables: null,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: undefined,
      protocol: `HTTP/${request.httpVersion}`,
      httpMethod: request.method ?? 'GET',
      identity: { sourceIp: request.socket.remoteAddress ?? '127.0.0.1', userAgent: request.headers['user-agent'] ?? null } as never,
      path: rawPath,
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

function writeResult(response: ServerResponse, result: APIGatewayProxyResult, method = 'GET'): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) headers[name] = values.map(String);
  const body = result.isBase64Encoded ? Buffer.from(result.body, 'base64') : Buffer.from(result.body ?? '', 'utf8');
  // A HEAD answer states the length of what a GET would send (the image service's HEAD does).
  if (!(method === 'HEAD' && headers['Content-Length'] !== undefined)) headers['Content-Length'] = String(body.length);
  response.writeHead(result.statusCode, headers);
  response.end(body);
}

function sendError(response: ServerResponse, status: number, reason: string): void {
  const answer = errorResponse(status, reason);
  writeResult(response, { ...answer, headers: { ...answer.headers, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' } });
}

/** The console build only holds these kinds of files. */
const STATIC_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

function fileAt(file: string): { size: number } | undefined {
  try {
    const stats = statSync(file);
    return stats.isFile() ? stats : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Serves the console's static build (what CloudFront serves from S3 in AWS) for every GET outside
 * the API and /healthz. Paths without a file are the single-page app's own routes and get
 * index.html; a missing asset (it has an extension) is a 404, so a stale page fails loudly.
 */
export function staticSiteRoute(root: string): LocalRoute {
  const base = path.resolve(root);
  return (request, response) => {
    const method = request.method ?? 'GET';
    const pathname = new URL(request.url ?? '/', 'http://local').pathname;
    if (pathname === '/api' || pathname.startsWith('/api/') || pathname === '/healthz') return false;
    if (method !== 'GET' && method !== 'HEAD') return false;
    let requested: string;
    try {
      requested = path.resolve(base, `.${decodeURIComponent(pathname)}`);
    } catch {
      return false;
    }
    if (requested !== base && !requested.startsWith(base + path.sep)) return false;
    let file = requested;
    let stats = fileAt(file);
    if (!stats && path.extname(pathname) === '') {
      file = path.join(base, 'index.html');
      stats = fileAt(file);
      if (!stats) {
        response.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8' });
        response.end('The console is not built: run `npm run build:console`.\n');
        return true;
      }
    }
    if (!stats) {
      response.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
      response.end('Not found\n');
      return true;
    }
    const hashedAsset = pathname.startsWith('/assets/');
    response.writeHead(200, {
      'Content-Type': STATIC_TYPES[path.extname(file)] ?? 'application/octet-stream',
      'Content-Length': String(stats.size),
      // Built asset names carry a content hash; index.html must always be re-read to pick up new ones.
      'Cache-Control': hashedAsset ? 'public, max-age=31536000, immutable' : 'no-cache',
      // What CloudFront's response headers policy adds in AWS (lib/console-site.ts).
      ...CONSOLE_SECURITY_HEADERS,
    });
    if (method === 'HEAD') response.end();
    else createReadStream(file).pipe(response);
    return true;
  };
}

export interface ApiGatewayOptions {
  host: string;
  port: number;
  invoke: ProxyInvoke;
  localRoutes?: LocalRoute[];
  log?: (message: string) => void;
}

/**
 * API Gateway's access log, locally: one JSON line per request (start time, method, path, status,
 * milliseconds, the instance that answered) appended to the file `ASSISTED_ACCESS_LOG` names.
 * Paths carry ids, never query strings (pre-signed URLs carry tokens there).
 */
function accessLogger(file: string | undefined): ((request: IncomingMessage, response: ServerResponse, startedAt: number) => void) | undefined {
  if (!file) return undefined;
  return (request, response, startedAt) => {
    const line = {
      at: new Date(startedAt).toISOString(),
      method: request.method,
      path: (request.url ?? '').split('?')[0]!.slice(0, 300),
      status: response.statusCode,
      ms: Date.now() - startedAt,
      instance: response.getHeader('X-Local-Function-Instance'),
    };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  };
}

export async function startApiGateway(options: ApiGatewayOptions): Promise<{ server: http.Server; url: string; close(): Promise<void> }> {
  const logAccess = accessLogger(process.env.ASSISTED_ACCESS_LOG);
  // Node times out headers only once a request has begun; a connection that never sends a byte
  // would stay open. Each connection gets HEADERS_TIMEOUT_MS for its first request's headers.
  const awaitingFirstRequest = new WeakMap<Socket, NodeJS.Timeout>();
  const server = http.createServer({ connectionsCheckingInterval: 1_000 }, async (request, response) => {
    clearTimeout(awaitingFirstRequest.get(request.socket));
    if (logAccess) {
      const startedAt = Date.now();
      response.once('finish', () => logAccess(request, response, startedAt));
    }
    try {
      for (const route of options.localRoutes ?? []) if (await route(request, response)) return;
      const body = await readBody(request);
      writeResult(response, await options.invoke(toProxyEvent(request, body)), request.method);
    } catch (error) {
      if (response.headersSent) return response.destroy();
      if (error instanceof BodyTooLarge) return sendError(response, 413, `Request body exceeds ${MAX_BODY_BYTES} bytes`);
      // The function itself maps its own failures; reaching here means the invocation crashed.
      const name = (error as Error).name;
      options.log?.(`api invocation failed: ${(error as Error).stack ?? error}`);
      if (name === 'FunctionUnavailable') return sendError(response, 503, 'The service cannot take this request right now; retry it shortly');
      if (name === 'FunctionInstanceCrashed')
        return sendError(response, 502, 'The function instance answering this request stopped before it answered; retry it');
      sendError(response, 502, 'The API function failed to answer');
    }
  });
  server.keepAliveTimeout = 65_000;
  // A connection that does not send its request headers in time is closed, as API Gateway closes
  // one that sends nothing; a slow or idle client cannot hold sockets open.
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  // Requests Node's parser refuses before any handler runs (an over-long URL or header block,
  // bytes that are not HTTP) get an answer in the upstream error shape, as API Gateway answers
  // them itself, instead of a bare status line.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable) return socket.destroy();
    const [status, reason] =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, `The request line and headers exceed ${http.maxHeaderSize} bytes; send long values in the body`]
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'The request did not arrive in time']
          : [400, 'The request is not valid HTTP'];
    const { body } = errorResponse(status, reason);
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  server.on('connection', (socket: Socket) => {
    const timer = setTimeout(() => socket.destroy(), HEADERS_TIMEOUT_MS);
    timer.unref();
    awaitingFirstRequest.set(socket, timer);
    socket.once('close', () => clearTimeout(timer));
  });
  // An upgrade (the live WebSocket) is a first request the handler above never sees: without this,
  // the first-request timer would cut every WebSocket HEADERS_TIMEOUT_MS after it opened.
  server.on('upgrade', (request: http.IncomingMessage) => clearTimeout(awaitingFirstRequest.get(request.socket)));
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
        // Requests in flight get their answers first (a lost answer can be a lost install step:
        // the service handed it out, the agent never saw it); only connections still busy after a
        // few seconds are cut.
        const cut = setTimeout(() => server.closeAllConnections(), GRACEFUL_CLOSE_MS);
        server.close(() => {
          clearTimeout(cut);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
