import { describe, expect, it } from 'vitest';
import { auditOutcome, auditResource, auditRetentionDays, isAudited, matchesAuditFilter, type AuditEvent } from '../../lambdas/domain/auth/audit.js';

const record = (resource: string, actor = { kind: 'token' as const, id: 't1', role: 'admin' as const }): AuditEvent => ({
  orgId: 'o',
  auditId: 'r',
  at: '2026-01-01T00:00:00.000Z',
  actor,
  operationId: 'x',
  method: 'POST',
  resource,
  source: {},
  outcome: { result: 'succeeded', status: 200 },
});

describe('the audit log', () => {
  it('records changes of people and tokens, not reads and not the agent', () => {
    expect(isAudited('POST', 'user')).toBe(true);
    expect(isAudited('delete', 'user')).toBe(true);
    expect(isAudited('GET', 'user')).toBe(false);
    expect(isAudited('HEAD', 'user')).toBe(false);
    expect(isAudited('POST', 'agent')).toBe(false);
  });

  it('names the resources a path names, and what a creation made under its collection', () => {
    expect(auditResource('/v2/clusters/{cluster_id}', { cluster_id: 'c1' })).toBe('clusters/c1');
    expect(auditResource('/v2/infra-envs/{infra_env_id}/hosts/{host_id}', { infra_env_id: 'i', host_id: 'h' })).toBe('infra-envs/i/hosts/h');
    expect(auditResource('/v2/clusters', {}, 'new')).toBe('clusters/new');
    expect(auditResource('/v2/clusters', {})).toBe('clusters');
    expect(auditResource('/v2/clusters/{cluster_id}/manifests', { cluster_id: 'c' })).toBe('clusters/c');
    expect(auditResource('/v2/api-tokens', {}, 'abc')).toBe('api-tokens/abc');
  });

  it('says how a request ended by its status, with the reason of a refusal', () => {
    expect(auditOutcome(201)).toEqual({ result: 'succeeded', status: 201 });
    expect(auditOutcome(403, 'no')).toEqual({ result: 'refused', status: 403, reason: 'no' });
    expect(auditOutcome(503, 'busy')).toEqual({ result: 'failed', status: 503, reason: 'busy' });
    expect(auditOutcome(200, 'ignored')).toEqual({ result: 'succeeded', status: 200 });
  });

  it('filters by whole resource segments and by actor id or email', () => {
    expect(matchesAuditFilter(record('clusters/c1'), { orgId: 'o', resource: 'clusters/c1' })).toBe(true);
    expect(matchesAuditFilter(record('clusters/c10'), { orgId: 'o', resource: 'clusters/c1' })).toBe(false);
    expect(matchesAuditFilter(record('infra-envs/i/hosts/h'), { orgId: 'o', resource: 'hosts/h' })).toBe(true);
    expect(matchesAuditFilter(record('infra-envs/i/hosts/h'), { orgId: 'o', resource: 'infra-envs/i' })).toBe(true);
    expect(matchesAuditFilter(record('clusters/c1'), { orgId: 'o', actor: 't1' })).toBe(true);
    expect(matchesAuditFilter(record('clusters/c1', { kind: 'user', id: 'u', role: 'admin', email: 'a@b.c' } as never), { orgId: 'o', actor: 'a@b.c' })).toBe(
      true,
    );
    expect(matchesAuditFilter(record('clusters/c1'), { orgId: 'o', actor: 't2' })).toBe(false);
  });

  it('keeps records 400 days unless AUDIT_RETENTION_DAYS says otherwise', () => {
    expect(auditRetentionDays(undefined)).toBe(400);
    expect(auditRetentionDays('30')).toBe(30);
    expect(() => auditRetentionDays('0')).toThrow(/at least 1/);
    expect(() => auditRetentionDays('1.5')).toThrow(/whole number/);
  });
});
