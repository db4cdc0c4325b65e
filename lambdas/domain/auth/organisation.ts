/**
 * The rules of an organisation's membership: who may join, change role or leave, decided on the
 * organisation's own record of its members (entities.ts `members`), so that each decision reads
 * one consistent record and is written conditionally on its version.
 */
import type { Organisation, OrganisationMember, Role } from '../core/entities.js';
import { displayTextProblem } from '../../../contracts/input-checks.js';

/**
 * An organisation's members live on its record (at most 400 KB in DynamoDB): this bound keeps the
 * record far below that, and is far above what one team needs.
 */
export const MAX_MEMBERS = 500;

export const MAX_ORGANISATION_NAME_LENGTH = 128;

const RANK: Record<Role, number> = { 'read-only': 0, user: 1, admin: 2 };

/** The lesser of two roles: what a user's own token may do once its owner's role is lower. */
export function lesserRole(a: Role, b: Role): Role {
  return RANK[a] <= RANK[b] ? a : b;
}

/** Whether `role` grants no more than `limit` (a member makes tokens of at most their own role). */
export function roleWithin(role: Role, limit: Role): boolean {
  return RANK[role] <= RANK[limit];
}

export type Members = Record<string, OrganisationMember>;

function adminsAmong(members: Members): string[] {
  return Object.entries(members)
    .filter(([, member]) => member.role === 'admin')
    .map(([userId]) => userId);
}

/**
 * Why this member may not stop being an admin (leave, be removed or demoted), if they may not: an
 * organisation whose other members would have no admin left. A sole member may leave (to join
 * another organisation): the organisation and its resources stay as they are.
 */
export function lastAdminProblem(members: Members, userId: string): string | undefined {
  if (members[userId]?.role !== 'admin') return undefined;
  const others = Object.keys(members).filter((id) => id !== userId);
  if (others.length === 0) return undefined;
  if (adminsAmong(members).some((id) => id !== userId)) return undefined;
  return 'The last admin of an organisation with other members cannot leave or stop being an admin: make another member an admin first';
}

export function withMember(organisation: Organisation, members: Members, userId: string, member: OrganisationMember): Organisation {
  return { ...organisation, members: { ...members, [userId]: member } };
}

export function withoutMember(organisation: Organisation, members: Members, userId: string): Organisation {
  const { [userId]: _leaving, ...rest } = members;
  return { ...organisation, members: rest };
}

/** Why the organisation cannot take one more member, if it cannot. */
export function capacityProblem(members: Members): string | undefined {
  return Object.keys(members).length >= MAX_MEMBERS ? `An organisation has at most ${MAX_MEMBERS} members; remove one before adding another` : undefined;
}

export function organisationNameProblem(name: string): string | undefined {
  const trimmed = name.trim();
  if (!trimmed) return 'An organisation needs a name';
  if (trimmed.length > MAX_ORGANISATION_NAME_LENGTH) return `An organisation's name has at most ${MAX_ORGANISATION_NAME_LENGTH} characters`;
  return displayTextProblem("The organisation's name", name);
}

/** Emails compare case-insensitively (as identity providers treat them). */
export const sameEmail = (a: string, b: string): boolean => a.trim().toLowerCase() === b.trim().toLowerCase();
