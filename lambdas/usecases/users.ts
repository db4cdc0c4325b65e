/**
 * People signed in through the identity provider: from a verified token to the principal, the
 * user's first request giving them a personal organisation (as OCM does) with them as its admin.
 */
import { randomUUID } from 'node:crypto';
import type { Membership, OrganisationMember } from '../domain/core/entities.js';
import { anotherPersonalOrgIdOf, personalOrgIdOf, personalOrgNameOf, userIdOf, type VerifiedIdentity } from '../domain/auth/identity.js';
import { withMember } from '../domain/auth/organisation.js';
import type { Clock } from '../ports/clock.js';
import type { IdentityVerifier } from '../ports/identity.js';
import { creating, replacing, storedOrCreated, type Store } from '../ports/store.js';
import { decidedAgainOnConflict, membersOf } from './organisations.js';
import type { Principal } from './principal.js';

export interface UserDeps {
  store: Store;
  clock: Clock;
}

/**
 * The user's membership, made on their first request (and on their next request after they were
 * removed from their organisation): the user record, a personal organisation with them as its only
 * admin, and their membership, the last two in one transaction that creates the membership only if
 * there is none. Any number of such requests at once, on any number of instances, end with one
 * membership; each answers with the one that was stored. The personal organisation is the one
 * named after the user, unless someone else is a member of it by now.
 */
export async function membershipOf(deps: UserDeps, identity: VerifiedIdentity): Promise<Membership> {
  const userId = userIdOf(identity.issuer, identity.subject);
  return decidedAgainOnConflict('membership', async () => {
    const existing = await deps.store.memberships.get({ userId });
    if (existing) return existing;
    const now = deps.clock.now().toISOString();
    await storedOrCreated(deps.store.users, { userId }, () => ({
      userId,
      issuer: identity.issuer,
      subject: identity.subject,
      ...(identity.email ? { email: identity.email } : {}),
      createdAt: now,
    }));
    const member: OrganisationMember = { role: 'admin', joinedAt: now, ...(identity.email ? { email: identity.email } : {}) };
    const personal = await deps.store.organisations.get({ orgId: personalOrgIdOf(userId) });
    const personalMembers = personal ? await membersOf(deps, personal) : {};
    const reusable = Object.keys(personalMembers).every((id) => id === userId);
    const orgId = personal && !reusable ? anotherPersonalOrgIdOf(userId, randomUUID().slice(0, 8)) : personalOrgIdOf(userId);
    const organisationWrite =
      personal && reusable
        ? replacing(deps.store.organisations, withMember(personal, personalMembers, userId, member))
        : creating(deps.store.organisations, { orgId, name: personalOrgNameOf(identity), createdAt: now, members: { [userId]: member } });
    const membership = { userId, orgId, role: 'admin' as const, createdAt: now };
    await deps.store.transact([organisationWrite, creating(deps.store.memberships, membership)]);
    return { ...membership, version: 1 };
  });
}

/** A verified identity token's principal: the user, their organisation and their role there. */
export async function authenticateIdentityToken(deps: UserDeps & { identity: IdentityVerifier }, token: string): Promise<Extract<Principal, { kind: 'user' }>> {
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
