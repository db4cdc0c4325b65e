/** Custom manifests, install-config overrides, ignored validations and UI settings of a created cluster. */
import { del, get, patch, post, put, settle, type Scenario, type Step } from '../scenario.js';
import { clusterBody, clusterLifecycle, type Json } from './common.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');
const CONFIG_MAP = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: conformance\n  namespace: default\ndata:\n  a: b\n';
const MACHINE_CONFIG =
  'apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfig\nmetadata:\n  name: 99-conformance\n  labels:\n    machineconfiguration.openshift.io/role: master\nspec: {}\n';

export function manifestScenarios(): Scenario[] {
  const scenarios: Scenario[] = [];
  const withCluster = (id: string, area: string, steps: Step[], fields: Json = {}) =>
    scenarios.push({ id, area, steps: clusterLifecycle(clusterBody(fields), steps) });

  const manifestCases: [string, Json][] = [
    ['openshift-yaml', { folder: 'openshift', file_name: 'cm.yaml', content: b64(CONFIG_MAP) }],
    ['manifests-yml', { folder: 'manifests', file_name: 'mc.yml', content: b64(MACHINE_CONFIG) }],
    ['default-folder', { file_name: 'cm.yaml', content: b64(CONFIG_MAP) }],
    [
      'json',
      {
        folder: 'manifests',
        file_name: 'cm.json',
        content: b64(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'default' } })),
      },
    ],
    ['patch', { folder: 'openshift', file_name: 'cluster-network-02-config.yml.patch_conformance', content: b64('- op: add\n  path: /spec/x\n  value: 1\n') }],
    ['multi-document', { folder: 'manifests', file_name: 'two.yaml', content: b64(`${CONFIG_MAP}---\n${CONFIG_MAP.replace('conformance', 'second')}`) }],
    ['bad-folder', { folder: 'etc', file_name: 'cm.yaml', content: b64(CONFIG_MAP) }],
    ['bad-extension', { folder: 'manifests', file_name: 'cm.txt', content: b64(CONFIG_MAP) }],
    ['not-base64', { folder: 'manifests', file_name: 'cm.yaml', content: '%%%not base64%%%' }],
    ['invalid-yaml', { folder: 'manifests', file_name: 'cm.yaml', content: b64('a: [unclosed\n  b: c') }],
    ['invalid-json', { folder: 'manifests', file_name: 'cm.json', content: b64('{"a":') }],
    ['empty-content', { folder: 'manifests', file_name: 'cm.yaml', content: '' }],
    ['path-in-name', { folder: 'manifests', file_name: '../cm.yaml', content: b64(CONFIG_MAP) }],
    ['slash-in-name', { folder: 'manifests', file_name: 'a/cm.yaml', content: b64(CONFIG_MAP) }],
    ['no-name', { folder: 'manifests', content: b64(CONFIG_MAP) }],
    ['space-in-name', { folder: 'manifests', file_name: 'my cm.yaml', content: b64(CONFIG_MAP) }],
    ['yaml-without-kind', { folder: 'manifests', file_name: 'x.yaml', content: b64('a: b\n') }],
  ];
  for (const [name, body] of manifestCases) {
    withCluster(`manifests/create/${name}`, 'manifests', [
      post('V2CreateClusterManifest', '/clusters/{{cluster}}/manifests', body),
      get('V2ListClusterManifests', '/clusters/{{cluster}}/manifests'),
      get('V2ListClusterManifests', '/clusters/{{cluster}}/manifests?include_system_generated=true'),
      settle(),
    ]);
  }
  withCluster('manifests/lifecycle', 'manifests', [
    post('V2CreateClusterManifest', '/clusters/{{cluster}}/manifests', { folder: 'openshift', file_name: 'cm.yaml', content: b64(CONFIG_MAP) }),
    post('V2CreateClusterManifest', '/clusters/{{cluster}}/manifests', { folder: 'openshift', file_name: 'cm.yaml', content: b64(CONFIG_MAP) }),
    get('v2DownloadClusterManifest', '/clusters/{{cluster}}/manifests/files?folder=openshift&file_name=cm.yaml'),
    get('v2DownloadClusterManifest', '/clusters/{{cluster}}/manifests/files?folder=openshift&file_name=absent.yaml'),
    patch('V2UpdateClusterManifest', '/clusters/{{cluster}}/manifests', {
      folder: 'openshift',
      file_name: 'cm.yaml',
      updated_file_name: 'renamed.yaml',
      updated_content: b64(CONFIG_MAP.replace('a: b', 'a: c')),
    }),
    patch('V2UpdateClusterManifest', '/clusters/{{cluster}}/manifests', { folder: 'openshift', file_name: 'absent.yaml', updated_file_name: 'x.yaml' }),
    patch('V2UpdateClusterManifest', '/clusters/{{cluster}}/manifests', { folder: 'openshift', file_name: 'renamed.yaml', updated_folder: 'manifests' }),
    get('V2ListClusterManifests', '/clusters/{{cluster}}/manifests'),
    del('V2DeleteClusterManifest', '/clusters/{{cluster}}/manifests?folder=manifests&file_name=renamed.yaml'),
    del('V2DeleteClusterManifest', '/clusters/{{cluster}}/manifests?folder=manifests&file_name=renamed.yaml'),
    get('V2ListClusterManifests', '/clusters/{{cluster}}/manifests'),
  ]);
  // CNIs that need manifests: the custom-manifests validation before and after one.
  for (const networkType of ['CiscoACI', 'Cilium', 'Calico', 'None']) {
    withCluster(
      `manifests/cni/${networkType}`,
      'manifests',
      [post('V2CreateClusterManifest', '/clusters/{{cluster}}/manifests', { folder: 'manifests', file_name: 'cni.yaml', content: b64(CONFIG_MAP) }), settle()],
      { network_type: networkType },
    );
  }

  // install-config overrides: set, read back, and the install-config both render with them.
  const overrides: [string, unknown][] = [
    ['fips', { fips: true }],
    ['capabilities', { capabilities: { baselineCapabilitySet: 'None', additionalEnabledCapabilities: ['marketplace'] } }],
    ['networking', { networking: { networkType: 'OVNKubernetes' } }],
    ['cpu-partitioning', { cpuPartitioningMode: 'AllNodes' }],
    ['feature-set', { featureSet: 'TechPreviewNoUpgrade' }],
    ['unknown-key', { notAKey: 1 }],
    ['bad-type', { fips: 'yes' }],
    ['empty', {}],
    ['additional-trust-bundle', { additionalTrustBundle: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n' }],
    ['platform', { platform: { baremetal: { apiVIPs: ['192.168.111.50'] } } }],
    ['compute-replicas', { compute: [{ name: 'worker', replicas: 5 }] }],
    ['boot-artifacts', { bootstrapInPlace: { installationDisk: '/dev/sda' } }],
  ];
  for (const [name, value] of overrides) {
    withCluster(`install-config/${name}`, 'install-config', [
      patch('v2UpdateClusterInstallConfig', '/clusters/{{cluster}}/install-config', JSON.stringify(value)),
      get('v2GetCluster', '/clusters/{{cluster}}'),
      get('v2GetClusterInstallConfig', '/clusters/{{cluster}}/install-config', { compare: 'install-config' }),
    ]);
  }
  for (const [name, raw] of [
    ['not-json', 'not json'],
    ['json-array', '"[1,2]"'],
    ['json-number', '42'],
  ] as const) {
    withCluster(`install-config/raw/${name}`, 'install-config', [
      { op: 'v2UpdateClusterInstallConfig', method: 'PATCH', path: '/clusters/{{cluster}}/install-config', raw },
    ]);
  }
  for (const [name, fields] of [
    ['sno', { control_plane_count: 1 }],
    ['proxy', { http_proxy: 'http://proxy.example.com:3128', no_proxy: '.example.com' }],
    [
      'dual',
      {
        cluster_networks: [
          { cidr: '10.128.0.0/14', host_prefix: 23 },
          { cidr: 'fd01::/48', host_prefix: 64 },
        ],
        service_networks: [{ cidr: '172.30.0.0/16' }, { cidr: 'fd02::/112' }],
        machine_networks: [{ cidr: '192.168.111.0/24' }, { cidr: 'fd2e:6f44:5dd8:c956::/120' }],
      },
    ],
    ['hyperthreading-masters', { hyperthreading: 'masters' }],
    ['nutanix', { platform: { type: 'nutanix' } }],
    ['vsphere', { platform: { type: 'vsphere' } }],
    ['external', { platform: { type: 'external', external: { platform_name: 'oci', cloud_controller_manager: 'External' } } }],
    ['none', { platform: { type: 'none' } }],
  ] as const) {
    withCluster(`install-config/rendered/${name}`, 'install-config', [], fields);
  }

  // Ignored validations.
  const ignored: [string, Json][] = [
    ['all', { 'host-validation-ids': '["all"]', 'cluster-validation-ids': '["all"]' }],
    ['some', { 'host-validation-ids': '["has-min-cpu-cores","ntp-synced"]', 'cluster-validation-ids': '["api-vips-defined","ingress-vips-defined"]' }],
    ['not-ignorable', { 'host-validation-ids': '["connected"]', 'cluster-validation-ids': '["pull-secret-set"]' }],
    ['unknown-id', { 'host-validation-ids': '["no-such-validation"]' }],
    ['not-json', { 'host-validation-ids': 'not json' }],
    ['empty', { 'host-validation-ids': '[]', 'cluster-validation-ids': '[]' }],
    ['none', {}],
  ];
  for (const [name, body] of ignored) {
    withCluster(`ignored-validations/${name}`, 'ignored validations', [
      put('v2SetIgnoredValidations', '/clusters/{{cluster}}/ignored-validations', body),
      get('v2GetIgnoredValidations', '/clusters/{{cluster}}/ignored-validations'),
      settle(),
    ]);
  }
  // UI settings.
  for (const [name, body] of [
    ['object', '{"a":1}'],
    ['string', 'plain text'],
    ['empty', ''],
  ] as const) {
    withCluster(`ui-settings/${name}`, 'ui settings', [
      put('V2UpdateClusterUISettings', '/clusters/{{cluster}}/ui-settings', body),
      get('V2GetClusterUISettings', '/clusters/{{cluster}}/ui-settings'),
    ]);
  }
  return scenarios;
}
