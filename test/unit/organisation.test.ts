import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatInvitationCode, parseApiToken, parseInvitationCode } from '../../lambdas/domain/auth/api-token.js';
import type { OrganisationMember, Role } from '../../lambdas/domain/core/entities.js';
import { displayTextProblem } from '../../contracts/input-checks.js';
import {
  capacityProblem,
  lastAdminProblem,
  lesserRole,
  MAX_MEMBERS,
  organisationNameProblem,
  roleWithin,
  sameEmail,
  withMember,
  withoutMember,
} from '../../lambdas/domain/auth/organisation.js';

const ROLES: Role[] = ['admin', 'user', 'read-only'];
const member = (role: Role): OrganisationMember => ({ role, joinedAt: '2026-11-27T00:00:00.000Z' });
const org = { orgId: 'o', name: 'O', createdAt: '2026-11-27T00:00:00.000Z', version: 1 };

describe('membership rules', () => {
  it('keeps an admin while others remain: whoever stops being an admin, an admin is left or nobody else is', () => {
    const members = fc.dictionary(fc.stringMatching(/^[0-9a-f]{4}$/), fc.constantFrom(...ROLES).map(member), { minKeys: 1, maxKeys: 6 });
    fc.assert(
      fc.property(members, fc.nat(), (all, pick) => {
        const ids = Object.keys(all);
        const leaving = ids[pick % ids.length]!;
        const problem = lastAdminProblem(all, leaving);
        const rest = withoutMember(org, all, leaving).members!;
        const restHasAdmin = Object.values(rest).some((m) => m.role === 'admin');
        if (problem === undefined) expect(Object.keys(rest).length === 0 || restHasAdmin || all[leaving]!.role !== 'admin').toBe(true);
        else expect(all[leaving]!.role === 'admin' && !restHasAdmin && Object.keys(rest).length > 0).toBe(true);
      }),
    );
  });

  it('lets a sole admin leave, and refuses the last admin of several', () => {
    expect(lastAdminProblem({ a: member('admin') }, 'a')).toBeUndefined();
    expect(lastAdminProblem({ a: member('admin'), b: member('read-only') }, 'a')).toMatch(/last admin/);
    expect(lastAdminProblem({ a: member('admin'), b: member('admin') }, 'a')).toBeUndefined();
    expect(lastAdminProblem({ a: member('admin'), b: member('user') }, 'b')).toBeUndefined();
  });

  it('orders roles: a token has at most its owner role, a member makes tokens within theirs', () => {
    expect(lesserRole('admin', 'read-only')).toBe('read-only');
    expect(lesserRole('user', 'admin')).toBe('user');
    expect(roleWithin('read-only', 'user')).toBe(true);
    expect(roleWithin('admin', 'user')).toBe(false);
    for (const a of ROLES) for (const b of ROLES) expect(roleWithin(lesserRole(a, b), a) && roleWithin(lesserRole(a, b), b)).toBe(true);
  });

  it('bounds members and names, and compares emails without case', () => {
    const full = Object.fromEntries(Array.from({ length: MAX_MEMBERS }, (_, i) => [`u${i}`, member('user')]));
    expect(capacityProblem(full)).toMatch(/at most 500 members/);
    expect(capacityProblem(withoutMember(org, full, 'u0').members!)).toBeUndefined();
    expect(withMember(org, {}, 'x', member('admin')).members).toEqual({ x: member('admin') });
    expect(organisationNameProblem('  ')).toMatch(/needs a name/);
    expect(organisationNameProblem('x'.repeat(129))).toMatch(/at most 128/);
    expect(sameEmail(' Bob@Example.com', 'bob@example.com')).toBe(true);
  });
});

describe('invitation codes', () => {
  it('round-trip, and are never taken for API tokens (or the reverse)', () => {
    const code = formatInvitationCode({ orgId: 'user-abc', invitationId: 'f'.repeat(32), secret: 'S3cr-t_' });
    expect(parseInvitationCode(` ${code} `)).toEqual({ orgId: 'user-abc', invitationId: 'f'.repeat(32), secret: 'S3cr-t_' });
    expect(parseApiToken(code)).toBeUndefined();
    expect(parseInvitationCode(`ac1.o.${'f'.repeat(32)}.s`)).toBeUndefined();
    expect(parseInvitationCode(`${code}.more`)).toBeUndefined();
    expect(parseInvitationCode('inv1.o.id.s e')).toBeUndefined();
  });
});

describe('names people read', () => {
  it('refuses lone surrogates, control and bidi-control characters, and takes any other text', () => {
    expect(displayTextProblem('name', 'Équipe réseau 🚀 東京')).toBeUndefined();
    expect(displayTextProblem('name', 'a\ud800b')).toMatch(/lone UTF-16 surrogate/);
    expect(displayTextProblem('name', 'gpj.\u202eexe')).toMatch(/U\+202E/);
    expect(displayTextProblem('name', 'a\u2066b')).toMatch(/U\+2066/);
    expect(displayTextProblem('name', 'line\nbreak')).toMatch(/U\+000A/);
    expect(organisationNameProblem('Acme\u202e')).toMatch(/bidirectional-control/);
  });
});
