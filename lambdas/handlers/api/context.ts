import type { Context as OpenApiContext } from 'openapi-backend';
import type { APIGatewayProxyResult, Context } from 'aws-lambda';
import type { ApiEvent } from '../../platform/middleware.js';
import type { Ports } from '../../platform/container.js';
import type { Principal } from '../../usecases/principal.js';

/** What every operation handler receives: the routed request, the caller, and the ports. */
export interface OperationRequest {
  api: OpenApiContext;
  event: ApiEvent;
  lambda: Context;
  principal: Principal;
  ports: Ports;
}

export type Operation = (request: OperationRequest) => Promise<APIGatewayProxyResult>;

/** An operation whose security is empty in openapi.yaml: it runs without a caller. */
export type PublicOperation = (request: Omit<OperationRequest, 'principal'>) => Promise<APIGatewayProxyResult>;
