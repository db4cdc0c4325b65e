import { describe, expect, it } from 'vitest';
import { callerOf, roleWithin, withViewerPermissions, type CallersOrganisation } from '../../console/src/caller-rules.js';

const ORGANISATION: CallersOrganisation = { id: 'org-1', name: 'Example Lab', role: 'admin', member_count: 2, created_at: '2026-01-01T00:00:00Z' };
const CLUSTER_URL = '/api/assisted-install/v2/clusters/6e2a1d2c-0000-4000-8000-000000000000';

describe('console: who the caller is and what it is offered', () => {
  it('names a person by email and an API token by its name', () => {
    expect(callerOf({ ...ORGANISATION, user_id: 'u1', email: 'a@example.com' })).toMatchObject({ name: 'a@example.com', isPerson: true });
    expect(callerOf({ ...ORGANISATION, api_token_id: 't1', api_token_name: 'ci' })).toMatchObject({ name: 'API token "ci"', isPerson: false });
  });

  it('offers writes to users and admins, token management to admins and to people for themselves', () => {
    const as = (role: 'admin' | 'user' | 'read-only', person: boolean) =>
      callerOf({ ...ORGANISATION, role, ...(person ? { user_id: 'u1' } : { api_token_id: 't1' }) });
    expect([as('admin', false), as('user', false), as('read-only', false)].map((c) => [c.canWrite, c.isAdmin, c.canManageTokens])).toEqual([
      [true, true, true],
      [true, false, false],
      [false, false, false],
    ]);
    expect([as('user', true), as('read-only', true)].map((c) => c.canManageTokens)).toEqual([true, true]);
    expect((['read-only', 'user', 'admin'] as const).filter((role) => roleWithin(role, 'user'))).toEqual(['read-only', 'user']);
  });

  it("turns on the library's viewer mode on a cluster's document for read-only callers only", () => {
    const cluster = { id: 'c', status: 'ready' };
    expect(withViewerPermissions(CLUSTER_URL, 'get', cluster, 'read-only')).toEqual({ ...cluster, permissions: { canEdit: false } });
    expect(withViewerPermissions(`${CLUSTER_URL}?with_hosts=true`, 'get', cluster, 'read-only')).toEqual({ ...cluster, permissions: { canEdit: false } });
    expect(withViewerPermissions(CLUSTER_URL, 'get', cluster, 'user')).toBe(cluster);
    expect(withViewerPermissions(CLUSTER_URL, 'patch', cluster, 'read-only')).toBe(cluster);
    expect(withViewerPermissions(`${CLUSTER_URL}/hosts`, 'get', [], 'read-only')).toEqual([]);
    expect(withViewerPermissions('/api/assisted-install/v2/clusters', 'get', [cluster], 'read-only')).toEqual([cluster]);
  });
});
