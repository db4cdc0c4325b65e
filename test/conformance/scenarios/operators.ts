/** Operators and bundles (catalogue reads, clusters created and updated with them), and disk encryption. */
import { get, patch, post, settle, type Scenario } from '../scenario.js';
import { BUNDLES, clusterBody, clusterLifecycle, OPERATORS, PULL_SECRET, type Json } from './common.js';

/** The cluster's monitored operators, as its agents read them (an agent-only operation: an infra-env first). */
const monitoredOperators = () => [
  post(
    'RegisterInfraEnv',
    '/infra-envs',
    { name: 'operators', pull_secret: PULL_SECRET, cluster_id: '{{cluster}}' },
    { save: { infraEnv: 'id' }, setup: true },
  ),
  get('V2ListOfClusterOperators', '/clusters/{{cluster}}/monitored-operators', { agentOf: '{{infraEnv}}' }),
];

export function operatorScenarios(): Scenario[] {
  const scenarios: Scenario[] = [];
  scenarios.push({ id: 'operators/supported', area: 'operators', steps: [get('V2ListSupportedOperators', '/supported-operators')] });
  scenarios.push({ id: 'operators/bundles', area: 'operators', steps: [get('V2ListBundles', '/operators/bundles')] });
  for (const query of [
    'openshift_version=4.22.9',
    'openshift_version=4.18.52&cpu_architecture=arm64',
    'openshift_version=4.22.9&platform_type=nutanix',
    'openshift_version=4.22.9&feature_ids=SNO',
    'openshift_version=4.14.71&cpu_architecture=s390x',
  ]) {
    scenarios.push({ id: `operators/bundles?${query}`, area: 'operators', steps: [get('V2ListBundles', `/operators/bundles?${query}`)] });
  }
  for (const bundle of [...BUNDLES, 'no-such-bundle'])
    scenarios.push({ id: `operators/bundle/${bundle}`, area: 'operators', steps: [get('V2GetBundle', `/operators/bundles/${bundle}`)] });
  for (const operator of [...OPERATORS, 'no-such-operator']) {
    scenarios.push({ id: `operators/properties/${operator}`, area: 'operators', steps: [get('V2ListOperatorProperties', `/supported-operators/${operator}`)] });
  }
  // Each operator on a multi-node and a single-node cluster: monitored operators, dependencies, validations.
  for (const operator of OPERATORS) {
    for (const cpc of [3, 1]) {
      scenarios.push({
        id: `operators/create/${operator}/cpc-${cpc}`,
        area: 'operators',
        steps: clusterLifecycle(clusterBody({ control_plane_count: cpc, olm_operators: [{ name: operator }] }), [...monitoredOperators()]),
      });
    }
    scenarios.push({
      id: `operators/update/${operator}`,
      area: 'operators',
      steps: clusterLifecycle(clusterBody(), [
        patch('V2UpdateCluster', '/clusters/{{cluster}}', { olm_operators: [{ name: operator }] }),
        settle(),
        ...monitoredOperators(),
      ]),
    });
  }
  const combos: [string, Json][] = [
    ['odf-lso', { olm_operators: [{ name: 'odf' }, { name: 'lso' }] }],
    ['cnv-lvm-sno', { olm_operators: [{ name: 'cnv' }, { name: 'lvm' }], control_plane_count: 1 }],
    ['mce-odf', { olm_operators: [{ name: 'mce' }, { name: 'odf' }] }],
    ['unknown', { olm_operators: [{ name: 'no-such-operator' }] }],
    ['duplicate', { olm_operators: [{ name: 'lvm' }, { name: 'lvm' }] }],
    ['with-properties', { olm_operators: [{ name: 'odf', properties: '{"deployment_type":"compact"}' }] }],
    ['bad-properties', { olm_operators: [{ name: 'odf', properties: 'not json' }] }],
    ['empty-name', { olm_operators: [{ name: '' }] }],
    ['old-release-openshift-ai', { olm_operators: [{ name: 'openshift-ai' }], openshift_version: '4.14.71' }],
    ['arm64-cnv', { olm_operators: [{ name: 'cnv' }], cpu_architecture: 'arm64' }],
    ['lso-sno', { olm_operators: [{ name: 'lso' }], control_plane_count: 1 }],
  ];
  for (const [name, fields] of combos)
    scenarios.push({ id: `operators/combo/${name}`, area: 'operators', steps: clusterLifecycle(clusterBody(fields), [...monitoredOperators()]) });
  for (const bundle of [...BUNDLES, 'no-such-bundle']) {
    for (const cpc of [3, 1]) {
      scenarios.push({
        id: `operators/bundle-create/${bundle}/cpc-${cpc}`,
        area: 'operators',
        steps: clusterLifecycle(clusterBody({ control_plane_count: cpc, operator_bundles: [{ id: bundle }] }), [...monitoredOperators()]),
      });
    }
    scenarios.push({
      id: `operators/bundle-update/${bundle}`,
      area: 'operators',
      steps: clusterLifecycle(clusterBody(), [
        patch('V2UpdateCluster', '/clusters/{{cluster}}', { operator_bundles: [{ id: bundle }] }),
        settle(),
        ...monitoredOperators(),
      ]),
    });
  }
  scenarios.push({
    id: 'operators/bundle-with-olm',
    area: 'operators',
    steps: clusterLifecycle(clusterBody({ operator_bundles: [{ id: 'virtualization' }], olm_operators: [{ name: 'lvm' }] })),
  });
  return scenarios;
}

export function diskEncryptionScenarios(): Scenario[] {
  const scenarios: Scenario[] = [];
  const tang = '[{"url":"http://tang.example.com:7500","thumbprint":"PLjNyRdGw03zlRoGjQYMahSZGu9"}]';
  for (const enableOn of ['none', 'all', 'masters', 'workers', 'arbiters', 'masters,workers', 'masters,arbiters', 'bogus']) {
    for (const [mode, extra] of [
      ['tpmv2', {}],
      ['tang', { tang_servers: tang }],
      ['tang', {}],
      ['bogus', {}],
    ] as [string, Json][]) {
      scenarios.push({
        id: `disk-encryption/${enableOn}/${mode}${Object.keys(extra).length ? '+servers' : ''}`,
        area: 'disk encryption',
        steps: clusterLifecycle(clusterBody({ disk_encryption: { enable_on: enableOn, mode, ...extra } })),
      });
    }
  }
  for (const [name, servers] of [
    ['invalid-json', 'not json'],
    ['empty-list', '[]'],
    ['no-thumbprint', '[{"url":"http://tang.example.com:7500"}]'],
    ['bad-url', '[{"url":"nope","thumbprint":"x"}]'],
  ] as const) {
    scenarios.push({
      id: `disk-encryption/tang-servers/${name}`,
      area: 'disk encryption',
      steps: clusterLifecycle(clusterBody({ disk_encryption: { enable_on: 'all', mode: 'tang', tang_servers: servers } })),
    });
  }
  for (const version of ['4.14.71', '4.18.52'])
    scenarios.push({
      id: `disk-encryption/sno/${version}`,
      area: 'disk encryption',
      steps: clusterLifecycle(clusterBody({ openshift_version: version, control_plane_count: 1, disk_encryption: { enable_on: 'all', mode: 'tpmv2' } })),
    });
  scenarios.push({
    id: 'disk-encryption/update',
    area: 'disk encryption',
    steps: clusterLifecycle(clusterBody(), [
      patch('V2UpdateCluster', '/clusters/{{cluster}}', { disk_encryption: { enable_on: 'masters', mode: 'tang', tang_servers: tang } }),
      settle(),
    ]),
  });
  return scenarios;
}
