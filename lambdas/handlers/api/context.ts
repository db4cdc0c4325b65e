import type { Context as OpenApiContext } from 'openapi-backend';
import type { APIGatewayProxyResult, Context } from 'aws-lambda';
import type { operations } from '../../../contracts/api.js';
import type { ApiEvent } from '../../platform/middleware.js';
import type { Ports } from '../../platform/container.js';
import type { Access, AgentPrincipal, Principal, UserPrincipal } from '../../usecases/principal.js';

export type OperationId = keyof operations;

/**
 * What the middleware leaves in the event's body for a request body of this shape (openapi.yaml's,
 * as contracts/api.ts has it): JSON parsed, opaque text as sent (jsonBody in platform/middleware.ts);
 * any other content (multipart uploads) stays the text of the request, which openapi.yaml does not type.
 */
type BodyOf<RequestBody> = RequestBody extends { content: infer Content }
  ? (Content extends { 'application/json': infer Json } ? Json : unknown) | (Content extends { 'text/plain': infer Text } ? Text : never)
  : undefined;

/** The operation's request body: absent where openapi.yaml gives it none or makes it optional. */
export type RequestBody<Id extends OperationId> = BodyOf<operations[Id]['requestBody']>;

/** The caller an operation of this access receives: the router has checked it (authorize) before the handler runs. */
export type PrincipalOf<A extends Access> = A extends 'agent' ? AgentPrincipal : A extends 'write' | 'people' ? UserPrincipal : Principal;

/** The path parameters of operation Id, by name, as openapi.yaml declares them (contracts/api.ts). */
export type PathParameters<Id extends OperationId> = operations[Id]['parameters'] extends { path: infer Path } ? Path : Record<never, never>;

/** openapi-backend's context for a request routed to operation Id: its path parameters are that operation's. */
export type OperationContext<Id extends OperationId = OperationId> = Omit<OpenApiContext, 'request'> & {
  request: Omit<OpenApiContext['request'], 'params'> & { params: PathParameters<Id> };
};

/** What every operation handler receives: the routed request, its validated body, the caller, and the ports. */
export interface OperationRequest<Id extends OperationId = OperationId, Caller extends Principal = Principal> {
  api: OperationContext<Id>;
  event: ApiEvent;
  /** event.body, validated against the operation's request body in openapi.yaml before the handler runs. */
  body: RequestBody<Id>;
  lambda: Context;
  principal: Caller;
  ports: Ports;
}

/**
 * The handler of operation Id (without it, of one that reads no body), for callers of the access
 * its entry in operations/index.ts declares (without it, any caller).
 */
export type Operation<Id extends OperationId = OperationId, A extends Access = Access> = (
  request: OperationRequest<Id, PrincipalOf<A>>,
) => Promise<APIGatewayProxyResult>;

/** Each operation's handler, by operationId. */
export type OperationHandlers = { [Id in OperationId]: Operation<Id> };

/** An operation whose security is empty in openapi.yaml: it runs without a caller, and takes no body. */
export type PublicOperation = (request: Omit<OperationRequest, 'principal' | 'body'>) => Promise<APIGatewayProxyResult>;
