/**
 * API Gateway's WebSocket API, locally, on the API's port: `ws://HOST:PORT/live`. As in AWS, the
 * connection's routes invoke the function modules of lambdas/functions.json ($connect LiveConnect,
 * $disconnect LiveDisconnect, every message LiveMessage), and the service talks back through the
 * management API (`POST /@connections/{id}` sends, `DELETE` closes; 410 for a connection that is
 * gone), which this gateway answers on the same port. As AWS's, that API is IAM-authorised: a call
 * must carry a SigV4 signature (service `execute-api`) made with the runtime's key pair, or it is a 403.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { LocalRoute } from './api-gateway.js';
import { SignatureRefused, verifyJsonProtocolSignature, type KeyPair } from './sigv4.js';

export const LIVE_PATH = '/live';
/** API Gateway's limit on a WebSocket frame. */
const MAX_MESSAGE_BYTES = 128 * 1024;

type Invoke = (functionName: string, event: unknown) => Promise<unknown>;

export interface LiveGateway {
  /** The HTTP server's `upgrade` listener. */
  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** The management API (`/@connections/{id}`). */
  route: LocalRoute;
  close(): void;
}

const statusOf = (result: unknown): { statusCode: number; body: string; protocol?: string } => {
  const answer = (result ?? {}) as { statusCode?: number; body?: string; headers?: Record<string, string> };
  const protocol = Object.entries(answer.headers ?? {}).find(([name]) => name.toLowerCase() === 'sec-websocket-protocol')?.[1];
  return { statusCode: answer.statusCode ?? 200, body: answer.body ?? '', ...(protocol ? { protocol } : {}) };
};

/** API Gateway answers every failed IAM check on the management API with a 403 and `{"message"}`. */
function refuse(response: ServerResponse, error: SignatureRefused): void {
  response.writeHead(403, { 'Content-Type': 'application/json', 'x-amzn-ErrorType': error.type }).end(JSON.stringify({ message: error.message }));
}

export function startLiveGateway(options: { invoke: Invoke; credentials: KeyPair; log?: (message: string) => void }): LiveGateway {
  // The subprotocol $connect's answer selected for each handshake (as API Gateway takes it from the
  // integration's Sec-WebSocket-Protocol header): none unless it selected one.
  const selected = new WeakMap<IncomingMessage, string>();
  const server = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_MESSAGE_BYTES,
    handleProtocols: (_offered, request) => selected.get(request) ?? false,
  });
  const sockets = new Map<string, WebSocket>();
  const event = (connectionId: string, routeKey: string, extra: Record<string, unknown> = {}) => ({
    requestContext: {
      connectionId,
      routeKey,
      eventType: routeKey === '$connect' ? 'CONNECT' : routeKey === '$disconnect' ? 'DISCONNECT' : 'MESSAGE',
      stage: 'local',
      requestTimeEpoch: Date.now(),
      apiId: 'local-live',
    },
    isBase64Encoded: false,
    ...extra,
  });
  return {
    upgrade(request, socket, head) {
      const url = new URL(request.url ?? '/', 'http://local');
      if (url.pathname !== LIVE_PATH) {
        socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
        return;
      }
      const connectionId = randomBytes(12).toString('base64url');
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(',') : value]));
      const query = Object.fromEntries(url.searchParams);
      options
        .invoke('LiveConnect', event(connectionId, '$connect', { headers, queryStringParameters: Object.keys(query).length ? query : null }))
        .then((result) => {
          const { statusCode, body, protocol } = statusOf(result);
          if (statusCode !== 200) {
            const text = body || 'refused';
            socket.end(
              `HTTP/1.1 ${statusCode} Refused\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
            );
            return;
          }
          if (protocol) selected.set(request, protocol);
          server.handleUpgrade(request, socket, head, (ws) => {
            sockets.set(connectionId, ws);
            ws.on('message', (data: Buffer) => {
              options
                .invoke('LiveMessage', event(connectionId, 'subscribe', { body: data.toString('utf8') }))
                .catch((error: Error) => options.log?.(`live message failed: ${error.message}`));
            });
            ws.on('close', () => {
              sockets.delete(connectionId);
              options
                .invoke('LiveDisconnect', event(connectionId, '$disconnect'))
                .catch((error: Error) => options.log?.(`live disconnect failed: ${error.message}`));
            });
          });
        })
        .catch((error: Error) => {
          options.log?.(`live connect failed: ${error.message}`);
          socket.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
        });
    },
    route: async (request: IncomingMessage, response: ServerResponse) => {
      const match = /^\/@connections\/([A-Za-z0-9_-]+)$/.exec(new URL(request.url ?? '/', 'http://local').pathname);
      if (!match) return false;
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      try {
        await verifyJsonProtocolSignature(request, body, options.credentials, 'execute-api');
      } catch (error) {
        if (!(error instanceof SignatureRefused)) throw error;
        refuse(response, error);
        return true;
      }
      const ws = sockets.get(match[1]!);
      if (!ws || ws.readyState !== ws.OPEN) {
        response.writeHead(410, { 'Content-Type': 'application/json', 'x-amzn-ErrorType': 'GoneException' }).end('{"message":null}');
        return true;
      }
      if (request.method === 'DELETE') {
        ws.close(1008, 'closed by the service');
        response.writeHead(204).end();
        return true;
      }
      ws.send(body.toString('utf8'));
      response.writeHead(200).end();
      return true;
    },
    close() {
      for (const ws of sockets.values()) ws.terminate();
      server.close();
    },
  };
}
