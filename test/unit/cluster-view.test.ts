/**
 * The cluster view emits the fields of openapi.yaml's `cluster` definition and nothing of the
 * service's own bookkeeping kept beside them in the record's attributes.
 */
import { describe, expect, it } from 'vitest';
import { CLUSTER_FIELDS, clusterView, createClusterRecord } from '../../lambdas/domain/cluster.js';
import type { Cluster } from '../../lambdas/domain/entities.js';
import { loadOpenApiDocument } from '../../lambdas/handlers/api/openapi-document.js';
import { PULL_SECRET } from '../support/fixtures.js';

const NOW = '2026-01-01T00:00:00.000Z';

function cluster(attributes: Record<string, unknown> = {}): Cluster {
  const record = createClusterRecord(
    { name: 'demo', openshift_version: '4.18.5', pull_secret: PULL_SECRET, base_dns_domain: 'example.com' },
    { orgId: 'org', clusterId: '11111111-1111-4111-8111-111111111111', now: NOW, release: { openshiftVersion: '4.18.5', releaseImage: 'quay.io/x', cpuArchitecture: 'x86_64' }, userName: 'u' },
  );
  return { ...record, attributes: { ...record.attributes, ...attributes }, version: 1 };
}

describe('clusterView', () => {
  it('knows the fields of the cluster definition in openapi.yaml', () => {
    const document = loadOpenApiDocument() as { components: { schemas: { cluster: { properties: Record<string, unknown> } } } };
    expect([...CLUSTER_FIELDS].sort()).toEqual(Object.keys(document.components.schemas.cluster.properties).sort());
  });

  it('leaves out the service\'s own attributes', () => {
    const internal = {
      install_attempt: 2,
      install_workflow_arn: 'arn:aws:states:eu-west-1:123456789012:execution:install:x',
      dns_records: [{ name: 'api.demo.example.com', value: '192.168.111.5' }],
      ui_settings: 'AI_UI:{}',
      kubeconfig_created_at: NOW,
      controller_completion: { is_success: true },
      last_installation_preparation: { status: 'success', reason: '' },
      installer_simulated: true,
    };
    const view = clusterView(cluster({ ...internal, install_started_at: NOW, api_vips: [{ ip: '192.168.111.5' }] }));
    for (const field of Object.keys(internal)) expect(view).not.toHaveProperty(field);
    expect(view).toMatchObject({ name: 'demo', base_dns_domain: 'example.com', install_started_at: NOW, api_vips: [{ ip: '192.168.111.5' }], pull_secret_set: true });
    expect(Object.keys(view).filter((field) => !CLUSTER_FIELDS.includes(field))).toEqual([]);
  });

  it('leaves out the moment the machine network was set (the cluster refresh hands it to the validations itself)', () => {
    expect(clusterView(cluster({ machine_network_cidr_updated_at: NOW }))).not.toHaveProperty('machine_network_cidr_updated_at');
  });
});
