/**
 * The WebSocket API's routes (API Gateway's WebSocket API in AWS, the local gateway's /live here):
 * $connect authenticates (an API token or a sign-in session, in the Authorization header or, for
 * browsers, the `bearer.<token>` subprotocol: contracts/live-protocol.ts) and admits the connection
 * within the organisation's cap;
 * $disconnect forgets it; `subscribe` (and any other message) is answered on the connection.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { bearerFromSubprotocols, LIVE_SUBPROTOCOL, offersLiveSubprotocol } from '../../../contracts/live-protocol.js';
import { DomainError } from '../../domain/core/errors.js';
import { container } from '../../platform/container.js';
import { taskHandler } from '../../platform/middleware.js';
import { authenticateUser } from '../../usecases/api-tokens.js';
import { connect as admit, disconnect as forget, receive } from '../../usecases/live.js';

interface WebSocketEvent {
  requestContext: { connectionId: string; routeKey: string };
  headers?: Record<string, string | undefined>;
  body?: string | null;
}

function liveDeps() {
  const ports = container();
  if (!ports.liveConnections) throw new Error('LIVE_MANAGEMENT_URL is not set: the WebSocket API is not deployed with this function');
  return { ...ports, connections: ports.liveConnections, caps: ports.config.live.caps };
}

const answer = (statusCode: number, body = ''): APIGatewayProxyResult => ({ statusCode, body });

export const connect = taskHandler(async (event: WebSocketEvent): Promise<APIGatewayProxyResult> => {
  const headers = Object.fromEntries(Object.entries(event.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
  const offered = headers['sec-websocket-protocol'];
  const token = bearerFromSubprotocols(offered);
  const authorization = headers.authorization ?? (token ? `Bearer ${token}` : undefined);
  try {
    const principal = await authenticateUser(container(), authorization);
    const outcome = await admit(liveDeps(), principal, event.requestContext.connectionId);
    if (!outcome.accepted) return answer(outcome.status, outcome.reason);
    // A client that offered subprotocols fails the handshake unless one is selected; never the token's.
    return offersLiveSubprotocol(offered) ? { ...answer(200), headers: { 'Sec-WebSocket-Protocol': LIVE_SUBPROTOCOL } } : answer(200);
  } catch (error) {
    if (error instanceof DomainError && (error.kind === 'unauthorized' || error.kind === 'forbidden'))
      return answer(error.kind === 'unauthorized' ? 401 : 403, error.message);
    throw error;
  }
});

export const disconnect = taskHandler(async (event: WebSocketEvent): Promise<APIGatewayProxyResult> => {
  await forget(liveDeps(), event.requestContext.connectionId);
  return answer(200);
});

export const message = taskHandler(async (event: WebSocketEvent): Promise<APIGatewayProxyResult> => {
  const deps = liveDeps();
  const connectionId = event.requestContext.connectionId;
  let parsed: unknown;
  try {
    parsed = JSON.parse(event.body ?? '');
  } catch {
    parsed = undefined;
  }
  const { reply, close } = await receive(deps, connectionId, parsed);
  await deps.connections.post(connectionId, JSON.stringify(close ? { ...reply, closing: close } : reply));
  if (close) await deps.connections.close(connectionId);
  return answer(200);
});
