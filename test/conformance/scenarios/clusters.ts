/** Cluster creation across topologies, platforms, releases and architectures; updates of a created cluster. */
import { patch, settle, type Scenario } from '../scenario.js';
import {
  API_VIP,
  ARCHITECTURES,
  clusterBody,
  clusterLifecycle,
  INGRESS_VIP,
  MACHINE_NETWORK,
  PLATFORMS,
  SHORT_VERSIONS,
  SSH_KEY,
  VERSIONS,
  type Json,
} from './common.js';

/** The request fields each topology sets at creation. */
export const TOPOLOGIES: Record<string, Json> = {
  sno: { control_plane_count: 1 },
  'sno-ha-none': { high_availability_mode: 'None' },
  'compact-ha': { control_plane_count: 3 },
  'four-control-planes': { control_plane_count: 4 },
  'five-control-planes': { control_plane_count: 5 },
  'two-control-planes': { control_plane_count: 2 },
  'six-control-planes': { control_plane_count: 6 },
};

export function platformOf(type: (typeof PLATFORMS)[number]): Json {
  return type === 'external' ? { type, external: { platform_name: 'oci', cloud_controller_manager: 'External' } } : { type };
}

export function clusterScenarios(): Scenario[] {
  const scenarios: Scenario[] = [];
  // Topology × platform × release: what each creates (defaults, user-managed networking, validations).
  for (const [topology, fields] of Object.entries(TOPOLOGIES)) {
    for (const platform of PLATFORMS) {
      for (const version of ['4.14.71', '4.18.52', '4.20.33', '4.22.9']) {
        scenarios.push({
          id: `clusters/${topology}/${platform}/${version}`,
          area: 'clusters',
          steps: clusterLifecycle(clusterBody({ openshift_version: version, platform: platformOf(platform), ...fields })),
        });
      }
    }
  }
  // Releases and architectures: every release both offer × every architecture.
  for (const version of VERSIONS) {
    for (const arch of ARCHITECTURES) {
      scenarios.push({
        id: `clusters/arch/${version}/${arch}`,
        area: 'clusters',
        steps: clusterLifecycle(clusterBody({ openshift_version: arch === 'multi' ? `${version}-multi` : version, cpu_architecture: arch })),
      });
    }
  }
  for (const version of [...SHORT_VERSIONS, '4.22.9-multi', '4.99', '4.9.59', '3.11', 'latest', '']) {
    scenarios.push({ id: `clusters/version/${version || 'empty'}`, area: 'clusters', steps: clusterLifecycle(clusterBody({ openshift_version: version })) });
  }
  // SNO with VIPs, with and without user-managed networking; a VIP-less multi-node cluster with VIPs set later.
  for (const umn of [undefined, true, false]) {
    for (const vips of [false, true]) {
      scenarios.push({
        id: `clusters/sno-vips/${vips}/umn-${umn}`,
        area: 'clusters',
        steps: clusterLifecycle(
          clusterBody({
            control_plane_count: 1,
            ...(umn === undefined ? {} : { user_managed_networking: umn }),
            ...(vips ? { api_vips: [{ ip: API_VIP }], ingress_vips: [{ ip: INGRESS_VIP }], machine_networks: [{ cidr: MACHINE_NETWORK }] } : {}),
          }),
        ),
      });
    }
  }
  // Single fields at creation: accepted and refused values.
  const fieldCases: [string, Json][] = [
    ['name-long', { name: 'a'.repeat(54) }],
    ['name-too-long', { name: 'a'.repeat(55) }],
    ['name-upper', { name: 'UpperCase' }],
    ['name-underscore', { name: 'bad_name' }],
    ['name-leading-digit', { name: '1abc' }],
    ['name-empty', { name: '' }],
    ['name-dash-end', { name: 'abc-' }],
    ['domain-missing', { base_dns_domain: undefined }],
    ['domain-invalid', { base_dns_domain: 'bad_domain' }],
    ['domain-single-label', { base_dns_domain: 'local' }],
    ['domain-dash', { base_dns_domain: '-x.example.com' }],
    ['domain-long-label', { base_dns_domain: `${'a'.repeat(64)}.com` }],
    ['domain-numeric', { base_dns_domain: '123.456' }],
    ['ssh-valid', { ssh_public_key: SSH_KEY }],
    ['ssh-invalid', { ssh_public_key: 'ssh-rsa not-a-key' }],
    ['ssh-two-keys', { ssh_public_key: `${SSH_KEY}\n${SSH_KEY}` }],
    ['ssh-empty', { ssh_public_key: '' }],
    ['pull-secret-invalid-json', { pull_secret: 'nope' }],
    ['pull-secret-no-auths', { pull_secret: '{}' }],
    ['pull-secret-no-cloud', { pull_secret: '{"auths":{"quay.io":{"auth":"dXNlcjpwYXNz"}}}' }],
    ['pull-secret-bad-base64', { pull_secret: '{"auths":{"cloud.openshift.com":{"auth":"!!!"}}}' }],
    ['hyperthreading-none', { hyperthreading: 'none' }],
    ['hyperthreading-masters', { hyperthreading: 'masters' }],
    ['hyperthreading-workers', { hyperthreading: 'workers' }],
    ['hyperthreading-arbiters', { hyperthreading: 'arbiters' }],
    ['hyperthreading-bogus', { hyperthreading: 'sometimes' }],
    ['schedulable-masters', { schedulable_masters: true }],
    ['tags', { tags: 'a,b,c' }],
    ['tags-invalid', { tags: 'a b,c' }],
    ['tags-empty', { tags: '' }],
    ['ocp-release-image', { ocp_release_image: 'quay.io/openshift-release-dev/ocp-release:4.22.9-x86_64' }],
    ['ignition-endpoint', { ignition_endpoint: { url: 'https://ignition.example.com/config' } }],
    ['ignition-endpoint-bad', { ignition_endpoint: { url: 'not a url' } }],
    ['cpc-zero', { control_plane_count: 0 }],
    ['cpc-negative', { control_plane_count: -1 }],
    ['cpc-seven', { control_plane_count: 7 }],
    ['cpc-null', { control_plane_count: null }],
    ['ha-none-cpc-three', { high_availability_mode: 'None', control_plane_count: 3 }],
    ['ha-full-cpc-one', { high_availability_mode: 'Full', control_plane_count: 1 }],
    ['ha-bogus', { high_availability_mode: 'Half' }],
    ['platform-bogus', { platform: { type: 'openstack' } }],
    ['platform-external-no-name', { platform: { type: 'external' } }],
    ['platform-external-other', { platform: { type: 'external', external: { platform_name: 'my-cloud', cloud_controller_manager: '' } } }],
    ['platform-oci', { platform: { type: 'oci' } }],
    ['platform-nutanix-sno', { platform: { type: 'nutanix' }, control_plane_count: 1 }],
    ['platform-vsphere-sno', { platform: { type: 'vsphere' }, control_plane_count: 1 }],
    ['platform-none-ha', { platform: { type: 'none' }, control_plane_count: 3 }],
    ['s390x-baremetal', { cpu_architecture: 's390x', platform: { type: 'baremetal' } }],
    ['s390x-default-platform', { cpu_architecture: 's390x' }],
    ['ppc64le-default-platform', { cpu_architecture: 'ppc64le' }],
    ['arm64-vsphere', { cpu_architecture: 'arm64', platform: { type: 'vsphere' } }],
    ['arm64-nutanix', { cpu_architecture: 'arm64', platform: { type: 'nutanix' } }],
    ['umn-true', { user_managed_networking: true }],
    ['umn-false-sno', { user_managed_networking: false, control_plane_count: 1 }],
    ['umn-true-baremetal', { user_managed_networking: true, platform: { type: 'baremetal' } }],
    ['umn-false-none', { user_managed_networking: false, platform: { type: 'none' } }],
    ['unknown-field', { not_a_field: true }],
    ['null-name', { name: null }],
    ['number-name', { name: 42 }],
  ];
  for (const [name, fields] of fieldCases) {
    const body = clusterBody(fields);
    for (const [key, value] of Object.entries(fields)) if (value === undefined) delete body[key];
    scenarios.push({ id: `clusters/field/${name}`, area: 'clusters', steps: clusterLifecycle(body) });
  }
  // Updates of a created cluster: each field alone, then what both judge of it.
  const updates: [string, Json][] = [
    ['name', { name: 'renamed' }],
    ['name-invalid', { name: 'Bad_Name' }],
    ['domain', { base_dns_domain: 'other.example.org' }],
    ['domain-invalid', { base_dns_domain: 'x_y' }],
    ['ssh', { ssh_public_key: SSH_KEY }],
    ['ssh-invalid', { ssh_public_key: 'x' }],
    ['pull-secret', { pull_secret: '{"auths":{"cloud.openshift.com":{"auth":"dXNlcjpvdGhlcg==","email":"b@c.d"}}}' }],
    ['pull-secret-invalid', { pull_secret: '{' }],
    ['hyperthreading', { hyperthreading: 'masters' }],
    ['schedulable', { schedulable_masters: true }],
    ['tags', { tags: 'x,y' }],
    ['vips', { api_vips: [{ ip: API_VIP }], ingress_vips: [{ ip: INGRESS_VIP }] }],
    ['vips-same', { api_vips: [{ ip: API_VIP }], ingress_vips: [{ ip: API_VIP }] }],
    ['vips-with-network', { api_vips: [{ ip: API_VIP }], ingress_vips: [{ ip: INGRESS_VIP }], machine_networks: [{ cidr: MACHINE_NETWORK }] }],
    ['vips-outside-network', { api_vips: [{ ip: '10.9.9.9' }], ingress_vips: [{ ip: '10.9.9.8' }], machine_networks: [{ cidr: MACHINE_NETWORK }] }],
    ['umn-true', { user_managed_networking: true }],
    ['platform-none', { platform: { type: 'none' } }],
    ['platform-vsphere', { platform: { type: 'vsphere' } }],
    ['platform-nutanix', { platform: { type: 'nutanix' } }],
    ['platform-external', { platform: platformOf('external') }],
    ['cpc-one', { control_plane_count: 1 }],
    ['cpc-four', { control_plane_count: 4 }],
    ['cpc-five', { control_plane_count: 5 }],
    ['cpc-two', { control_plane_count: 2 }],
    ['network-type-sdn', { network_type: 'OpenShiftSDN' }],
    ['network-type-none', { network_type: 'None' }],
    ['cluster-network', { cluster_networks: [{ cidr: '10.132.0.0/14', host_prefix: 23 }] }],
    ['cluster-network-overlap', { cluster_networks: [{ cidr: '172.30.0.0/16', host_prefix: 23 }] }],
    ['service-network', { service_networks: [{ cidr: '172.31.0.0/16' }] }],
    ['ntp', { additional_ntp_source: 'clock.example.com,10.0.0.1' }],
    ['ntp-invalid', { additional_ntp_source: 'bad host!' }],
    ['proxy', { http_proxy: 'http://proxy.example.com:3128', https_proxy: 'http://proxy.example.com:3128', no_proxy: '.example.com' }],
    ['proxy-invalid', { http_proxy: 'ftp://proxy.example.com' }],
    ['empty', {}],
    ['unknown-field', { nonsense: 1 }],
    ['olm', { olm_operators: [{ name: 'lvm' }] }],
    ['olm-unknown', { olm_operators: [{ name: 'no-such-operator' }] }],
    ['olm-clear', { olm_operators: [] }],
    ['disk-encryption', { disk_encryption: { enable_on: 'all', mode: 'tpmv2' } }],
    ['vip-dhcp', { vip_dhcp_allocation: true }],
    ['load-balancer-user', { load_balancer: { type: 'user-managed' } }],
    ['ignition-endpoint', { ignition_endpoint: { url: 'https://ignition.example.com/config' } }],
  ];
  for (const [name, fields] of updates) {
    for (const topology of ['compact-ha', 'sno']) {
      scenarios.push({
        id: `clusters/update/${topology}/${name}`,
        area: 'cluster updates',
        steps: clusterLifecycle(clusterBody(TOPOLOGIES[topology]), [
          patch('V2UpdateCluster', '/clusters/{{cluster}}', fields),
          settle(),
          { op: 'v2GetCluster', method: 'GET', path: '/clusters/{{cluster}}' },
        ]),
      });
    }
  }
  return scenarios;
}
