import { roleAllows } from '../domain/auth/api-token.js';
import { forbidden } from '../domain/core/errors.js';
import type { Role } from '../domain/core/entities.js';

/**
 * A caller acting for an organisation with a role: through an API token (`tokenId`), or signed in
 * through the identity provider as a user (`userId`, domain/auth/identity.ts), with the role of their
 * membership. Exactly one of the two is set.
 */
export type UserPrincipal = { kind: 'user'; orgId: string; role: Role } & (
  | { tokenId: string /** The member whose token it is (their tokens' tokens are theirs too). */; ownerUserId?: string; userId?: undefined; email?: undefined }
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

/** Whether the caller's role (an agent: its standing, which only reads) allows a kind of action. */
export function requireRole(principal: Principal, action: 'read' | 'write' | 'manage-tokens'): void {
  const allowed = principal.kind === 'agent' ? action === 'read' : roleAllows(principal.role, action);
  if (!allowed) {
    const whose = principal.kind === 'user' && principal.userId !== undefined ? 'Your role in the organisation' : "This token's role";
    throw forbidden(`${whose} may not ${action === 'manage-tokens' ? 'manage API tokens' : action}`);
  }
}

/**
 * Who may call an operation, declared once per operation (handlers/api/operations/index.ts) and
 * checked by the router before the operation's handler runs. openapi.yaml's security says which
 * credentials are accepted at all; this says what each kind of caller may do with them:
 * - 'read': every caller the credentials admit: people of any role, agents within their infra-env;
 * - 'write': people whose role may change things (admin, user), never an agent;
 * - 'people': people and their API tokens, of any role, never an agent (finer rules in the use case);
 * - 'agent': the discovery agent only;
 * - 'agent or write': the agent, or people who may write.
 * Finer checks (who may receive a secret, manage tokens, administer the organisation) stay in the use cases.
 */
export type Access = 'read' | 'write' | 'people' | 'agent' | 'agent or write';

/** Refuses a caller the operation's access does not admit (403, in the words each refusal always had). */
export function authorize(principal: Principal, access: Access): void {
  switch (access) {
    case 'read':
    case 'write':
      requireRole(principal, access);
      return;
    case 'people':
      requireSignedInUser(principal);
      return;
    case 'agent':
      requireAgent(principal);
      return;
    case 'agent or write':
      if (principal.kind === 'user') requireRole(principal, 'write');
      return;
  }
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
