import { describe, expect, it } from 'vitest';
import { DomainError } from '../../lambdas/domain/core/errors.js';
import { apiHostnameParts, createImportedClusterRecord, importAnswer, importedClusterNameProblem } from '../../lambdas/domain/cluster/imported-cluster.js';
import { applyClusterUpdate } from '../../lambdas/domain/cluster/cluster.js';
import { clusterView, clusterWireView } from '../../lambdas/domain/cluster/cluster-document.js';

const context = { orgId: 'o', clusterId: '0f9a1c52-1111-4e7a-9d3c-5b8e2f6a7c01', now: '2026-01-01T00:00:00.000Z', userName: 'u' };
const params = (overrides: Partial<{ name: string; api_vip_dnsname: string; openshift_version: string }> = {}) => ({
  name: 'sent',
  api_vip_dnsname: 'api.imp.example.com',
  openshift_cluster_id: '3b1a0a1e-0bd6-4b7c-9c4b-4f7c1bd6a001',
  ...overrides,
});

describe('imported clusters', () => {
  it('reads the name and base domain from an API host name, as upstream does, and nothing from any other', () => {
    expect(apiHostnameParts('api.imp.example.com')).toEqual({ clusterName: 'imp', baseDomain: 'example.com' });
    expect(apiHostnameParts('api.foo.a.b.c')).toEqual({ clusterName: 'foo', baseDomain: 'a.b.c' });
    // Upstream splits at the first two dots and checks nothing more.
    expect(apiHostnameParts('api..example.com')).toEqual({ clusterName: '', baseDomain: 'example.com' });
    expect(apiHostnameParts('api.foo.example.com:6443')).toEqual({ clusterName: 'foo', baseDomain: 'example.com:6443' });
    for (const other of ['api.foo', 'api-int.foo.example.com', 'API.foo.example.com', '192.168.111.5', '2001:db8::1', 'x', '']) {
      expect(apiHostnameParts(other), other).toBeUndefined();
    }
  });

  it("holds the name to upstream's baremetal rule, which admits an empty name and a leading digit", () => {
    for (const good of ['', 'a', '1abc', 'a-b', 'a'.repeat(253)]) expect(importedClusterNameProblem(good), good).toBeUndefined();
    for (const bad of ['Bad', 'a.b', '-a', 'a-', 'a_b', 'a'.repeat(254)]) expect(importedClusterNameProblem(bad), bad).toBeDefined();
  });

  it('is a day-2 cluster of what the import says', () => {
    const record = createImportedClusterRecord(params({ openshift_version: '4.18' }), context);
    expect(record).toMatchObject({ name: 'imp', status: 'adding-hosts', orgId: 'o', createdAt: context.now });
    expect(record.pullSecret).toBeUndefined();
    expect(record.attributes).toEqual({
      kind: 'AddHostsCluster',
      imported: true,
      openshift_cluster_id: '3b1a0a1e-0bd6-4b7c-9c4b-4f7c1bd6a001',
      api_vip_dns_name: 'api.imp.example.com',
      openshift_version: '4.18',
      base_dns_domain: 'example.com',
      platform: { type: 'baremetal', external: {} },
      disk_encryption: {},
      load_balancer: { type: 'cluster-managed' },
      api_vips: [],
      ingress_vips: [],
      cluster_networks: [],
      service_networks: [],
      machine_networks: [],
      monitored_operators: [],
      status_info: 'cluster is adding hosts to existing OCP cluster',
      user_name: 'u',
    });
    expect(clusterView({ ...record, version: 1 })).toMatchObject({ kind: 'AddHostsCluster', status: 'adding-hosts' });
    // Go's omitempty: upstream leaves pull_secret_set out while false.
    expect(clusterView({ ...record, version: 1 })).not.toHaveProperty('pull_secret_set');
  });

  it("takes an update of its pull secret without judging features it has no release for (upstream's 201)", () => {
    const record = { ...createImportedClusterRecord(params(), context), version: 1 };
    const PULL_SECRET = '{"auths":{"cloud.openshift.com":{"auth":"dXNlcjpwYXNz","email":"a@b.c"}}}';
    const updated = applyClusterUpdate(record, { pull_secret: PULL_SECRET }, context.now);
    expect(updated.pullSecret).toBe(PULL_SECRET);
    // As upstream's update leaves it: its (empty) feature usage recorded, no VIP DHCP setting.
    expect(updated.attributes.feature_usage).toBe('{}');
    expect(updated.attributes).not.toHaveProperty('schedulable_masters_forced_true');
    expect(updated.attributes).not.toHaveProperty('vip_dhcp_allocation');
  });

  it("reads back as upstream's stored import does: none of a new cluster's defaults, no feature usage, no pull secret flag, a zero image time", () => {
    const wire = clusterWireView({ ...createImportedClusterRecord(params({ name: '', api_vip_dnsname: '10.0.0.1' }), context), version: 1 });
    expect(wire).toMatchObject({
      disk_encryption: {},
      platform: { type: 'baremetal', external: {} },
      image_info: { created_at: '0001-01-01T00:00:00Z' },
      api_vips: [],
    });
    for (const absent of ['feature_usage', 'pull_secret_set', 'schedulable_masters_forced_true', 'name']) expect(wire, absent).not.toHaveProperty(absent);
  });

  it('answers the import itself as upstream builds it in memory: no lists, no defaults read back yet, the time of the import', () => {
    const answer = importAnswer(clusterWireView({ ...createImportedClusterRecord(params(), context), version: 1 }), context.now);
    expect(answer).toMatchObject({ platform: { type: 'baremetal' }, image_info: { created_at: context.now } });
    expect(answer.platform as object).not.toHaveProperty('external');
    for (const absent of [
      'api_vips',
      'monitored_operators',
      'operator_bundles',
      'disk_encryption',
      'ignition_endpoint',
      'progress',
      'feature_usage',
      'pull_secret_set',
    ])
      expect(answer, absent).not.toHaveProperty(absent);
  });

  it('keeps the name sent when the host name implies none, and refuses a name of the wrong form', () => {
    const kept = createImportedClusterRecord(params({ api_vip_dnsname: '10.0.0.1' }), context);
    expect(kept.name).toBe('sent');
    expect(kept.attributes).not.toHaveProperty('base_dns_domain');
    expect(() => createImportedClusterRecord(params({ api_vip_dnsname: 'api.Bad.example.com' }), context)).toThrow(DomainError);
    expect(() => createImportedClusterRecord(params({ name: 'a.b', api_vip_dnsname: 'x' }), context)).toThrow(/Cluster name format is not valid: 'a.b'/);
  });
});
