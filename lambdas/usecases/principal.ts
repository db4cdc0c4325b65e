import { forbidden } from '../domain/core/errors.js';
import type { Role } from '../domain/core/entities.js';

/**
 * A caller acting for an organisation with a role: through an API token (`tokenId`), or signed in
 * through the identity provider as a user (`userId`, domain/auth/identity.ts), with the role of their
 * membership. Exactly one of the two is set.
 */
export type UserPrincipal = { kind: 'user'; orgId: string; role: Role } & (
  | { tokenId: string; /** The member whose token it is (their tokens' tokens are theirs too). */ ownerUserId?: string; userId?: undefined; email?: undefined }
  | { userId: string; email?: string; tokenId?: undefined }
);

/** Who is calling, as established by authentication. Every use case scopes its reads by `orgId`. */
export type Principal = UserPrincipal | AgentPrincipal;

/**
 * An agent, held to one infra-env. `infraEnvCluster` is what authentication read of that infra-env
 * (the cluster it is bound to, `clusterId` absent for none), as fresh as local-caches.json's
 * 'infra-env-existence' says: an infra-env's cluster is set at its creation and only ever removed
 * as that cluster is deregistered. Absent, the infra-env is read where its cluster matters.
 */
export type AgentPrincipal = { kind: 'agent'; orgId: string; infraEnvId: string; infraEnvCluster?: { clusterId?: string } };

/** Agent operations admit only agent credentials (the router checks the scheme; this states the intent). */
export function requireAgent(principal: Principal): asserts principal is Extract<Principal, { kind: 'agent' }> {
  if (principal.kind !== 'agent') throw forbidden('This operation is for the discovery agent, with its X-Secret-Key');
}

/** Operations of people and their API tokens (the router admits only userAuth; this states the intent). */
export function requireSignedInUser(principal: Principal): asserts principal is UserPrincipal {
  if (principal.kind !== 'user') throw forbidden('This operation is for people and their API tokens, not for the discovery agent');
}

/**
 * Who made a resource, as upstream's `user_name`: a signed-in user's email (else their user id), an
 * API token's id, or `agent`.
 */
export function actorName(principal: Principal): string {
  if (principal.kind === 'agent') return 'agent';
  if (principal.tokenId !== undefined) return principal.tokenId;
  return principal.email ?? principal.userId;
}
