/**
 * People signed in through the identity provider: from a verified token to the principal, the
 * user's first request giving them a personal organisation (as OCM does) with them as its admin.
 */
import type { Membership } from '../domain/entities.js';
import { personalOrgIdOf, personalOrgNameOf, userIdOf, type VerifiedIdentity } from '../domain/identity.js';
import type { Clock } from '../ports/clock.js';
import type { IdentityVerifier } from '../ports/identity.js';
import { storedOrCreated, type Store } from '../ports/store.js';
import { ensureOrganisation } from './organisations.js';
import type { Principal } from './principal.js';

export interface UserDeps {
  store: Store;
  clock: Clock;
}

/**
 * The user's membership, made on their first request: the user record, their personal
 * organisation and their membership as its admin. Every write is conditional on a key the identity
 * determines, so any number of first requests at once, on any number of instances, end with one
 * organisation and one membership; each request answers with the membership that was stored.
 * A request that stops half way leaves what the next one completes.
 */
export async function membershipOf(deps: UserDeps, identity: VerifiedIdentity): Promise<Membership> {
  const userId = userIdOf(identity.issuer, identity.subject);
  const existing = await deps.store.memberships.get({ userId });
  if (existing) return existing;

  const now = deps.clock.now().toISOString();
  await storedOrCreated(deps.store.users, { userId }, () => ({ userId, issuer: identity.issuer, subject: identity.subject, ...(identity.email ? { email: identity.email } : {}), createdAt: now }));
  const orgId = personalOrgIdOf(userId);
  await ensureOrganisation(deps, orgId, personalOrgNameOf(identity));
  return (await storedOrCreated(deps.store.memberships, { userId }, () => ({ userId, orgId, role: 'admin' as const, createdAt: now }))).record;
}

/** A verified identity token's principal: the user, their organisation and their role there. */
export async function authenticateIdentityToken(
  deps: UserDeps & { identity: IdentityVerifier },
  token: string,
): Promise<Extract<Principal, { kind: 'user' }>> {
  const identity = await deps.identity.verify(token);
  const membership = await membershipOf(deps, identity);
  return {
    kind: 'user',
    orgId: membership.orgId,
    role: membership.role,
    userId: membership.userId,
    ...(identity.email ? { email: identity.email } : {}),
  };
}
