/**
 * Organisations and their members: renaming, roles, removal, leaving, invitations. Every change of
 * who belongs is one transaction over the organisation's record (conditional on its version, so
 * rules over all members are decided on one consistent read) and the member's own Membership
 * (what sign-in reads); a transaction that loses to a concurrent change is decided again.
 */
import { randomUUID } from 'node:crypto';
import { formatInvitationCode, parseInvitationCode } from '../domain/auth/api-token.js';
import type { Invitation, Membership, Organisation, OrganisationMember, Role } from '../domain/core/entities.js';
import { badRequest, conflict, forbidden, notFound } from '../domain/core/errors.js';
import { capacityProblem, lastAdminProblem, organisationNameProblem, sameEmail, withMember, withoutMember, type Members } from '../domain/auth/organisation.js';
import type { Clock } from '../ports/clock.js';
import {
  ConcurrentModificationError,
  creating,
  removing,
  replacing,
  storedOrCreated,
  TooMuchContentionError,
  type Store,
  type StoreWrite,
} from '../ports/store.js';
import { newSecret, secretHash, secretMatches } from './credential-secrets.js';
import { recordEvent } from './events.js';
import { actorName, type Principal, type UserPrincipal } from './principal.js';
import { forgetInfraEnvTokens } from './agent-tokens.js';
import { supersedingCredentialsOf } from './credential-holders.js';
import { backoffMs } from '../domain/core/backoff.js';
import { setTimeout as sleep } from 'node:timers/promises';

export interface OrganisationDeps {
  store: Store;
  clock: Clock;
}

/** How long an invitation code can be used. */
export const INVITATION_LIFETIME_DAYS = 7;

/** Decisions lost to a concurrent change of the same records are made again this many times. */
const DECISION_ATTEMPTS = 8;

/** Creates the organisation unless it exists; safe to call from several processes at once. */
export async function ensureOrganisation(
  deps: { store: Store; clock: Clock },
  orgId: string,
  name: string,
): Promise<{ organisation: Organisation; created: boolean }> {
  const { record: organisation, created } = await storedOrCreated(deps.store.organisations, { orgId }, () => ({
    orgId,
    name,
    createdAt: deps.clock.now().toISOString(),
  }));
  return { organisation, created };
}

/**
 * The organisation's members: its own record of them; for an organisation made before members
 * were kept there, the memberships that name it (read once, then written with the first change).
 */
export async function membersOf(deps: { store: Store }, organisation: Organisation): Promise<Members> {
  if (organisation.members) return organisation.members;
  const memberships = await deps.store.memberships.listByOrg(organisation.orgId);
  const users = await Promise.all(memberships.map((membership) => deps.store.users.get({ userId: membership.userId })));
  return Object.fromEntries(
    memberships.map((membership, index) => {
      const email = users[index]?.email;
      return [membership.userId, { role: membership.role, joinedAt: membership.createdAt, ...(email ? { email } : {}) }];
    }),
  );
}

/** Runs a decision again, on fresh reads, when its transaction lost to a concurrent change. */
export async function decidedAgainOnConflict<T>(what: string, decide: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await decide();
    } catch (error) {
      if (!(error instanceof ConcurrentModificationError)) throw error;
      if (attempt === DECISION_ATTEMPTS) throw new TooMuchContentionError(what, attempt);
      await sleep(backoffMs(attempt, { baseMs: 10 }));
    }
  }
}

/** The caller's own organisation; any other id is not found, as any other organisation's resource. */
async function callersOrganisation(deps: OrganisationDeps, principal: Principal, orgId: string): Promise<Organisation> {
  const organisation = orgId === principal.orgId ? await deps.store.organisations.get({ orgId }) : undefined;
  if (!organisation) throw notFound(`Organisation ${orgId} not found`);
  return organisation;
}

function requireAdmin(principal: UserPrincipal, what: string): void {
  if (principal.role !== 'admin') throw forbidden(`Only the organisation's admins may ${what}`);
}

async function audit(deps: OrganisationDeps, orgId: string, name: string, props: Record<string, string>): Promise<void> {
  await recordEvent(deps, { name, subject: { orgId }, props });
}

// ---- views --------------------------------------------------------------------------------------

/**
 * The organisation as its caller sees it, with who the caller is (their role, and their user id and
 * email, or the name of the API token they call with), so a client can say who is signed in.
 */
export function organisationView(
  organisation: Organisation,
  members: Members,
  principal: UserPrincipal,
  callersToken?: { name: string },
): Record<string, unknown> {
  const email = principal.userId !== undefined ? (principal.email ?? members[principal.userId]?.email) : undefined;
  return {
    id: organisation.orgId,
    name: organisation.name,
    created_at: organisation.createdAt,
    member_count: Object.keys(members).length,
    role: principal.role,
    ...(principal.userId !== undefined ? { user_id: principal.userId } : {}),
    ...(email ? { email } : {}),
    ...(principal.tokenId !== undefined ? { api_token_id: principal.tokenId } : {}),
    ...(callersToken ? { api_token_name: callersToken.name } : {}),
  };
}

/** The API token the caller calls with, if any (its name is part of the organisation's view). */
async function callersToken(deps: OrganisationDeps, principal: UserPrincipal): Promise<{ name: string } | undefined> {
  return principal.tokenId === undefined ? undefined : deps.store.apiTokens.get({ orgId: principal.orgId, tokenId: principal.tokenId });
}

export function memberView(userId: string, member: OrganisationMember): Record<string, unknown> {
  return { user_id: userId, role: member.role, joined_at: member.joinedAt, ...(member.email ? { email: member.email } : {}) };
}

export function invitationStatus(invitation: Invitation, now: Date): 'pending' | 'accepted' | 'revoked' | 'expired' {
  if (invitation.acceptedAt) return 'accepted';
  if (invitation.revokedAt) return 'revoked';
  return Date.parse(invitation.expiresAt) <= now.getTime() ? 'expired' : 'pending';
}

export function invitationView(invitation: Invitation, now: Date): Record<string, unknown> {
  return {
    id: invitation.invitationId,
    email: invitation.email,
    role: invitation.role,
    invited_by: invitation.invitedBy,
    created_at: invitation.createdAt,
    expires_at: invitation.expiresAt,
    status: invitationStatus(invitation, now),
    ...(invitation.acceptedAt ? { accepted_at: invitation.acceptedAt } : {}),
  };
}

// ---- the organisation ---------------------------------------------------------------------------

export async function getOrganisation(deps: OrganisationDeps, principal: UserPrincipal, orgId: string) {
  const organisation = await callersOrganisation(deps, principal, orgId);
  return organisationView(organisation, await membersOf(deps, organisation), principal, await callersToken(deps, principal));
}

export async function renameOrganisation(deps: OrganisationDeps, principal: UserPrincipal, orgId: string, name: string) {
  requireAdmin(principal, 'rename the organisation');
  const problem = organisationNameProblem(name);
  if (problem) throw badRequest(problem);
  await callersOrganisation(deps, principal, orgId);
  let oldName = '';
  const renamed = await deps.store.organisations.mutate({ orgId }, (organisation) => {
    oldName = organisation.name;
    return organisation.name === name.trim() ? undefined : { ...organisation, name: name.trim() };
  });
  if (!renamed) throw notFound(`Organisation ${orgId} not found`);
  if (oldName !== renamed.name) await audit(deps, orgId, 'organisation_renamed', { actor: actorName(principal), old_name: oldName, new_name: renamed.name });
  return organisationView(renamed, await membersOf(deps, renamed), principal, await callersToken(deps, principal));
}

// ---- members ------------------------------------------------------------------------------------

export async function listMembers(deps: OrganisationDeps, principal: UserPrincipal, orgId: string) {
  const organisation = await callersOrganisation(deps, principal, orgId);
  const members = await membersOf(deps, organisation);
  return Object.entries(members)
    .sort(([, a], [, b]) => a.joinedAt.localeCompare(b.joinedAt))
    .map(([userId, member]) => memberView(userId, member));
}

/** The member's own Membership write that goes with a change of the organisation's record. */
async function membershipInOrg(deps: OrganisationDeps, userId: string, orgId: string): Promise<Membership | undefined> {
  const membership = await deps.store.memberships.get({ userId });
  return membership?.orgId === orgId ? membership : undefined;
}

export async function changeMemberRole(deps: OrganisationDeps, principal: UserPrincipal, orgId: string, userId: string, role: Role) {
  requireAdmin(principal, "change members' roles");
  const { before, after } = await decidedAgainOnConflict('membership', async () => {
    const organisation = await callersOrganisation(deps, principal, orgId);
    const members = await membersOf(deps, organisation);
    const member = members[userId];
    if (!member) throw notFound(`Member ${userId} not found`);
    if (member.role === role) return { before: member, after: member };
    if (role !== 'admin') {
      const problem = lastAdminProblem(members, userId);
      if (problem) throw conflict(problem);
    }
    const membership = await membershipInOrg(deps, userId, orgId);
    const changed = { ...member, role };
    const writes: StoreWrite[] = [replacing(deps.store.organisations, withMember(organisation, members, userId, changed))];
    if (membership) writes.push(replacing(deps.store.memberships, { ...membership, role }));
    // A read-only member may not hold credentials: those they were handed stop working with the change.
    const superseded = role === 'read-only' ? await supersedingCredentialsOf(deps, orgId, userId) : { writes: [], infraEnvIds: [] };
    await deps.store.transact([...writes, ...superseded.writes]);
    for (const infraEnvId of superseded.infraEnvIds) forgetInfraEnvTokens(orgId, infraEnvId);
    return { before: member, after: changed };
  });
  if (before.role !== after.role) {
    await audit(deps, orgId, 'member_role_changed', {
      actor: actorName(principal),
      member: before.email ?? userId,
      old_role: before.role,
      new_role: after.role,
    });
  }
  return memberView(userId, after);
}

/**
 * Removes a member (an admin's act) or the caller themselves (leaving). Their API tokens of this
 * organisation are revoked; sign-in checks membership on every request as well, so a token whose
 * revocation had not been written yet is refused all the same.
 */
export async function removeMember(deps: OrganisationDeps, principal: UserPrincipal, orgId: string, userId: string): Promise<void> {
  const leaving = principal.userId === userId;
  if (!leaving) requireAdmin(principal, 'remove members');
  const removed = await decidedAgainOnConflict('membership', async () => {
    const organisation = await callersOrganisation(deps, principal, orgId);
    const members = await membersOf(deps, organisation);
    const member = members[userId];
    if (!member) throw notFound(`Member ${userId} not found`);
    const problem = lastAdminProblem(members, userId);
    if (problem) throw conflict(problem);
    const membership = await membershipInOrg(deps, userId, orgId);
    const writes: StoreWrite[] = [replacing(deps.store.organisations, withoutMember(organisation, members, userId))];
    if (membership) writes.push(removing(deps.store.memberships, { userId }, membership.version));
    // The credentials the member was handed stop working in the same write as the membership.
    const superseded = await supersedingCredentialsOf(deps, orgId, userId);
    await deps.store.transact([...writes, ...superseded.writes]);
    for (const infraEnvId of superseded.infraEnvIds) forgetInfraEnvTokens(orgId, infraEnvId);
    return member;
  });
  await revokeTokensOf(deps, orgId, userId);
  const who = removed.email ?? userId;
  if (leaving) await audit(deps, orgId, 'member_left', { member: who });
  else await audit(deps, orgId, 'member_removed', { actor: actorName(principal), member: who });
}

async function revokeTokensOf(deps: OrganisationDeps, orgId: string, userId: string): Promise<void> {
  const now = deps.clock.now().toISOString();
  const tokens = (await deps.store.apiTokens.listByOrg(orgId)).filter((token) => token.ownerUserId === userId && !token.revokedAt);
  for (const token of tokens) {
    await deps.store.apiTokens.mutate({ orgId, tokenId: token.tokenId }, (current) => (current.revokedAt ? undefined : { ...current, revokedAt: now }));
  }
}

// ---- invitations --------------------------------------------------------------------------------

export async function listInvitations(deps: OrganisationDeps, principal: UserPrincipal, orgId: string) {
  requireAdmin(principal, 'see invitations');
  await callersOrganisation(deps, principal, orgId);
  const now = deps.clock.now();
  const invitations = await deps.store.invitations.listByOrg(orgId);
  return invitations.sort((a, b) => a.createdAt.localeCompare(b.createdAt)).map((invitation) => invitationView(invitation, now));
}

/** An invitation and its code: the code is in this answer only (its hash is what is stored). */
export async function createInvitation(deps: OrganisationDeps, principal: UserPrincipal, orgId: string, request: { email: string; role: Role }) {
  requireAdmin(principal, 'invite people');
  const organisation = await callersOrganisation(deps, principal, orgId);
  const members = await membersOf(deps, organisation);
  const email = request.email.trim();
  if (Object.values(members).some((member) => member.email && sameEmail(member.email, email)))
    throw conflict(`${email} is already a member of this organisation`);
  const full = capacityProblem(members);
  if (full) throw conflict(full);
  const now = deps.clock.now();
  const invitationId = randomUUID().replaceAll('-', '');
  const secret = newSecret();
  const invitation = await deps.store.invitations.create({
    orgId,
    invitationId,
    email,
    role: request.role,
    secretHash: secretHash(secret),
    invitedBy: actorName(principal),
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + INVITATION_LIFETIME_DAYS * 86_400_000).toISOString(),
  });
  await audit(deps, orgId, 'invitation_created', { actor: actorName(principal), email, role: request.role, expires_at: invitation.expiresAt });
  return { ...invitationView(invitation, now), code: formatInvitationCode({ orgId, invitationId, secret }) };
}

export async function revokeInvitation(deps: OrganisationDeps, principal: UserPrincipal, orgId: string, invitationId: string): Promise<void> {
  requireAdmin(principal, 'withdraw invitations');
  await callersOrganisation(deps, principal, orgId);
  const now = deps.clock.now().toISOString();
  let withdrawn = false;
  const invitation = await deps.store.invitations.mutate({ orgId, invitationId }, (current) => {
    if (current.acceptedAt) throw conflict('This invitation was accepted already; remove the member instead');
    if (current.revokedAt) return undefined;
    withdrawn = true;
    return { ...current, revokedAt: now };
  });
  if (!invitation) throw notFound(`Invitation ${invitationId} not found`);
  if (withdrawn) await audit(deps, orgId, 'invitation_revoked', { actor: actorName(principal), email: invitation.email });
}

/**
 * The signed-in caller joins the invitation's organisation with its role, leaving their current
 * one, in one transaction: the invitation is used, both organisations' records and the caller's
 * membership change together or not at all.
 */
export async function acceptInvitation(deps: OrganisationDeps, principal: UserPrincipal, code: string) {
  if (principal.userId === undefined) throw forbidden('An invitation is accepted by a person signed in through the identity provider, not with an API token');
  const userId = principal.userId;
  const parts = parseInvitationCode(code);
  const unknown = () => notFound('This invitation code is not valid: check that it was copied whole, or ask for a new invitation');
  if (!parts) throw unknown();
  const { target, source, invitation } = await decidedAgainOnConflict('invitation', async () => {
    const invitation = await deps.store.invitations.get({ orgId: parts.orgId, invitationId: parts.invitationId });
    if (!invitation || !secretMatches(parts.secret, invitation.secretHash)) throw unknown();
    const now = deps.clock.now();
    const status = invitationStatus(invitation, now);
    if (status === 'accepted') throw conflict('This invitation was used already; ask for a new one');
    if (status === 'revoked') throw conflict('This invitation was withdrawn; ask for a new one');
    if (status === 'expired') throw conflict(`This invitation expired at ${invitation.expiresAt}; ask for a new one`);
    if (!principal.email || !sameEmail(principal.email, invitation.email)) {
      throw forbidden('This invitation is for another email address: sign in with the verified address it was sent to');
    }
    const membership = await deps.store.memberships.get({ userId });
    if (membership?.orgId === invitation.orgId) throw conflict('You are a member of this organisation already');
    const target = await deps.store.organisations.get({ orgId: invitation.orgId });
    if (!target) throw unknown();
    const targetMembers = await membersOf(deps, target);
    const full = capacityProblem(targetMembers);
    if (full) throw conflict(full);
    const source = membership ? await deps.store.organisations.get({ orgId: membership.orgId }) : undefined;
    const writes: StoreWrite[] = [replacing(deps.store.invitations, { ...invitation, acceptedAt: now.toISOString(), acceptedBy: userId })];
    if (source) {
      const sourceMembers = await membersOf(deps, source);
      const problem = lastAdminProblem(sourceMembers, userId);
      if (problem) throw conflict(`${problem} (you would leave "${source.name}" to join another organisation)`);
      writes.push(replacing(deps.store.organisations, withoutMember(source, sourceMembers, userId)));
    }
    const joined: OrganisationMember = { role: invitation.role, joinedAt: now.toISOString(), email: principal.email };
    const joinedTarget = withMember(target, targetMembers, userId, joined);
    writes.push(replacing(deps.store.organisations, joinedTarget));
    const nextMembership = { userId, orgId: invitation.orgId, role: invitation.role, createdAt: now.toISOString() };
    writes.push(membership ? replacing(deps.store.memberships, { ...membership, ...nextMembership }) : creating(deps.store.memberships, nextMembership));
    await deps.store.transact(writes);
    return { target: joinedTarget, source, invitation };
  });
  await audit(deps, target.orgId, 'member_joined', { member: principal.email ?? userId, role: invitation.role, inviter: invitation.invitedBy });
  if (source) {
    await revokeTokensOf(deps, source.orgId, userId);
    await audit(deps, source.orgId, 'member_left', { member: principal.email ?? userId });
  }
  const member: UserPrincipal = { kind: 'user', orgId: target.orgId, role: invitation.role, userId, ...(principal.email ? { email: principal.email } : {}) };
  return organisationView(target, target.members ?? {}, member);
}
