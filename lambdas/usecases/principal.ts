import { forbidden } from '../domain/errors.js';
import type { Role } from '../domain/entities.js';

/** Who is calling, as established by authentication. Every use case scopes its reads by `orgId`. */
export type Principal =
  | { kind: 'user'; orgId: string; tokenId: string; role: Role }
  | { kind: 'agent'; orgId: string; infraEnvId: string };

/** Agent operations admit only agent credentials (the router checks the scheme; this states the intent). */
export function requireAgent(principal: Principal): asserts principal is Extract<Principal, { kind: 'agent' }> {
  if (principal.kind !== 'agent') throw forbidden('This operation is for the discovery agent, with its X-Secret-Key');
}
