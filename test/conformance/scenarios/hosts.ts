/**
 * Host flows through the agent endpoints: topologies brought to discovery with the fixture
 * inventories and a healthy lab's replies, hosts that fail validations, every step reply type
 * (valid, failed, malformed), and the user's host operations.
 */
import { del, get, patch, post, put, settle, waitFor, type Scenario, type Step } from '../scenario.js';
import {
  API_VIP,
  API_VIP_V6,
  assignRoles,
  clusterBody,
  clusterWithInfraEnv,
  hostInventory,
  hostsDiscovered,
  INGRESS_VIP,
  INGRESS_VIP_V6,
  labHosts,
  MACHINE_NETWORK,
  MACHINE_NETWORK_V6,
  registerHost,
  healthyReplies,
  stepReply,
  AGENT_VERSION,
  type Json,
  type LabHost,
} from './common.js';

const VIPS = { api_vips: [{ ip: API_VIP }], ingress_vips: [{ ip: INGRESS_VIP }] };
const DUAL = {
  cluster_networks: [
    { cidr: '10.128.0.0/14', host_prefix: 23 },
    { cidr: 'fd01::/48', host_prefix: 64 },
  ],
  service_networks: [{ cidr: '172.30.0.0/16' }, { cidr: 'fd02::/112' }],
  machine_networks: [{ cidr: MACHINE_NETWORK }, { cidr: MACHINE_NETWORK_V6 }],
  api_vips: [{ ip: API_VIP }, { ip: API_VIP_V6 }],
  ingress_vips: [{ ip: INGRESS_VIP }, { ip: INGRESS_VIP_V6 }],
};

/** A cluster with `hosts` discovered, judged, then compared host by host, with its install-config and events. */
function hostFlow(fields: Json, hosts: LabHost[], more: Step[] = []): { hosts: number; steps: Step[] } {
  const body = clusterBody(fields);
  const lab = {
    clusterName: body.name as string,
    ...(fields.control_plane_count === 1 && !fields.api_vips ? { apiVip: hosts[0]?.ipv4, ingressVip: hosts[0]?.ipv4 } : {}),
  };
  return {
    hosts: hosts.length,
    steps: [
      ...clusterWithInfraEnv(body),
      ...hostsDiscovered(hosts, lab),
      ...assignRoles(hosts),
      ...(hosts.some((h) => h.role) ? [settle()] : []),
      ...hosts.map((_, i) => get('v2GetHost', `/infra-envs/{{infraEnv}}/hosts/{{host${i}}}`)),
      get('v2GetCluster', '/clusters/{{cluster}}'),
      get('v2GetClusterInstallConfig', '/clusters/{{cluster}}/install-config', { compare: 'install-config' }),
      ...more,
      get('v2ListEvents', '/events?cluster_id={{cluster}}', { compare: 'event-names' }),
    ],
  };
}

export function hostScenarios(): Scenario[] {
  const scenarios: Scenario[] = [];
  const flow = (id: string, fields: Json, hosts: LabHost[], more: Step[] = []) =>
    scenarios.push({ id: `hosts/${id}`, area: 'host flows', ...hostFlow(fields, hosts, more) });

  // Where auto-assign hosts contend for fewer control-plane (or arbiter) places than there are
  // hosts, the hosts that win are lighter than those that lose: upstream's monitor takes hosts
  // lightest first, and among hosts of equal weight in its database's row order, which moves as
  // rows are updated, so a tie for a place would be decided differently from run to run.
  const five = [...labHosts(3, { fixture: 'worker-0' }), ...labHosts(2, { first: 3 })];
  for (const version of ['4.18.52', '4.22.9']) {
    flow(`sno/${version}`, { openshift_version: version, control_plane_count: 1 }, labHosts(1));
    flow(`sno-umn-false/${version}`, { openshift_version: version, control_plane_count: 1, user_managed_networking: false, ...VIPS }, labHosts(1));
    flow(`compact/${version}`, { openshift_version: version, ...VIPS }, labHosts(3));
    flow(`ha/${version}`, { openshift_version: version, ...VIPS }, five);
    flow(
      `ha-roles/${version}`,
      { openshift_version: version, ...VIPS },
      five.map((h, i) => ({ ...h, role: i < 3 ? 'master' : 'worker' })),
    );
    flow(`four-cp/${version}`, { openshift_version: version, control_plane_count: 4, ...VIPS }, labHosts(4));
    flow(`five-cp/${version}`, { openshift_version: version, control_plane_count: 5, ...VIPS }, labHosts(5));
    flow(`umn/${version}`, { openshift_version: version, user_managed_networking: true }, labHosts(3));
    flow(`dual-stack/${version}`, { openshift_version: version, ...DUAL }, labHosts(3, { dualStack: true }));
    flow(`no-vips/${version}`, { openshift_version: version }, labHosts(3));
    flow(`two-hosts/${version}`, { openshift_version: version, ...VIPS }, labHosts(2));
  }
  for (const version of ['4.19.42', '4.22.9']) {
    flow(`arbiter/${version}`, { openshift_version: version, control_plane_count: 2, ...VIPS }, [
      ...labHosts(2, { fixture: 'worker-0', role: 'master' }),
      ...labHosts(1, { first: 2, role: 'arbiter' }),
    ]);
    flow(`arbiter-auto/${version}`, { openshift_version: version, control_plane_count: 2, ...VIPS }, [
      ...labHosts(2, { fixture: 'worker-0' }),
      ...labHosts(1, { first: 2 }),
    ]);
  }
  for (const version of ['4.20.33', '4.22.9']) {
    const fencing = (i: number) =>
      patch('v2UpdateHost', `/infra-envs/{{infraEnv}}/hosts/{{host${i}}}`, {
        fencing_credentials: { address: `https://bmc${i}.example.com`, username: 'admin', password: 'secret', certificate_verification: 'Disabled' },
      });
    flow(`two-node-fencing/${version}`, { openshift_version: version, control_plane_count: 2, ...VIPS }, labHosts(2, { role: 'master' }), [
      fencing(0),
      fencing(1),
      settle(),
      get('v2GetHost', '/infra-envs/{{infraEnv}}/hosts/{{host0}}'),
    ]);
    flow(`two-node-no-fencing/${version}`, { openshift_version: version, control_plane_count: 2, ...VIPS }, labHosts(2, { role: 'master' }));
  }
  for (const platform of ['none', 'vsphere', 'nutanix', 'external']) {
    const type = platform === 'external' ? { type: 'external', external: { platform_name: 'oci', cloud_controller_manager: 'External' } } : { type: platform };
    flow(`platform/${platform}`, { platform: type, ...(platform === 'none' || platform === 'external' ? {} : VIPS) }, labHosts(3));
  }
  flow('ntp-configured', { additional_ntp_source: 'clock.example.com', ...VIPS }, labHosts(3));
  flow('proxy', { http_proxy: 'http://proxy.example.com:3128', no_proxy: '.example.com', ...VIPS }, labHosts(3));
  flow('odf', { olm_operators: [{ name: 'odf' }], ...VIPS }, labHosts(3));
  flow('lvm-sno', { olm_operators: [{ name: 'lvm' }], control_plane_count: 1 }, labHosts(1));
  flow('cnv', { olm_operators: [{ name: 'cnv' }], ...VIPS }, labHosts(3));
  flow('disk-encryption-tpm', { disk_encryption: { enable_on: 'all', mode: 'tpmv2' }, ...VIPS }, labHosts(3));
  flow('ignore-validations', { ...VIPS }, labHosts(3, { fixture: 'undersized' }), [
    {
      op: 'v2SetIgnoredValidations',
      method: 'PUT',
      path: '/clusters/{{cluster}}/ignored-validations',
      body: { 'host-validation-ids': '["has-min-cpu-cores","has-min-memory","has-cpu-cores-for-role","has-memory-for-role"]' },
    },
    settle(),
  ]);

  // Hosts that fail validations.
  for (const fixture of ['undersized', 'no-eligible-disk', 'worker-0']) {
    flow(`failing/${fixture}`, { ...VIPS }, labHosts(3, { fixture }));
    flow(`failing-sno/${fixture}`, { control_plane_count: 1 }, labHosts(1, { fixture }));
  }
  flow('failing/ipv6-host-in-ipv4-cluster', { ...VIPS }, labHosts(1, { fixture: 'ipv6-only', ipv6Only: true }));
  flow('failing/vips-outside-hosts-network', { api_vips: [{ ip: '10.9.9.9' }], ingress_vips: [{ ip: '10.9.9.8' }] }, labHosts(3));
  flow(
    'failing/duplicate-hostnames',
    { ...VIPS },
    labHosts(3).map((h) => ({ ...h, hostname: 'same-name' })),
  );
  flow(
    'failing/localhost-name',
    { ...VIPS },
    labHosts(3).map((h, i) => (i === 0 ? { ...h, hostname: 'localhost' } : h)),
  );

  // Every step reply type, valid, failed and malformed, on the first host of a three-host cluster.
  const hosts = labHosts(3);
  const base = (extra: Step[]): Step[] => {
    const body = clusterBody(VIPS);
    return [
      ...clusterWithInfraEnv(body),
      ...hosts.flatMap((h, i) => registerHost(i, h)),
      ...healthyReplies(0, hosts, { clusterName: body.name }),
      ...extra,
      settle(),
      get('v2GetHost', '/infra-envs/{{infraEnv}}/hosts/{{host0}}'),
    ];
  };
  const replies: [string, string, unknown][] = [
    ['inventory', 'valid-again', hostInventory(hosts[0]!)],
    ['inventory', 'no-disks', { ...hostInventory(hosts[0]!), disks: [] }],
    ['inventory', 'no-interfaces', { ...hostInventory(hosts[0]!), interfaces: [] }],
    ['inventory', 'wrong-types', { cpu: 'eight', memory: [] }],
    [
      'connectivity-check',
      'all-failing',
      {
        remote_hosts: [1, 2].map((j) => ({
          host_id: `{{host${j}}}`,
          l2_connectivity: [],
          l3_connectivity: [{ outgoing_nic: 'enp1s0', remote_ip_address: hosts[j]!.ipv4, successful: false }],
        })),
      },
    ],
    ['connectivity-check', 'empty', { remote_hosts: [] }],
    ['free-network-addresses', 'vips-taken', [{ network: MACHINE_NETWORK, free_addresses: ['192.168.111.100'] }]],
    ['free-network-addresses', 'empty', []],
    ['domain-resolution', 'nothing-resolves', { resolutions: [] }],
    [
      'domain-resolution',
      'wildcard',
      { resolutions: [{ domain_name: 'validateNoWildcardDNS.x.example.com', ipv4_addresses: ['1.2.3.4'], ipv6_addresses: [], cnames: [] }] },
    ],
    ['ntp-synchronizer', 'unreachable', { ntp_sources: [{ source_name: 'clock.example.com', source_state: 'unreachable' }] }],
    ['ntp-synchronizer', 'empty', { ntp_sources: [] }],
    ['installation-disk-speed-check', 'fast', { io_sync_duration: 2, path: '/dev/sda' }],
    ['installation-disk-speed-check', 'slow', { io_sync_duration: 50, path: '/dev/sda' }],
    ['container-image-availability', 'failed-pull', { images: [{ name: 'quay.io/openshift-release-dev/ocp-release:4.22.9-x86_64', result: 'failure' }] }],
    ['tang-connectivity-check', 'success', { is_success: true, tang_server_response: [] }],
    ['tang-connectivity-check', 'failure', { is_success: false }],
    ['api-vip-connectivity-check', 'success', { is_success: true, url: 'http://192.168.111.5:22624/config/worker' }],
    ['api-vip-connectivity-check', 'failure', { is_success: false, download_error: 'connection refused' }],
    ['verify-vips', 'ok', [{ vip: API_VIP, vip_type: 'api', verification: 'succeeded' }]],
    ['upgrade-agent', 'success', { agent_image: 'quay.io/edge-infrastructure/assisted-installer-agent:latest', result: 'success' }],
    [
      'dhcp-lease-allocate',
      'leases',
      { api_vip_address: '192.168.111.50', ingress_vip_address: '192.168.111.51', api_vip_lease: 'lease', ingress_vip_lease: 'lease' },
    ],
    ['logs-gather', 'done', { uploaded_bytes: 10, files: ['a.log'] }],
    ['stop-installation', 'done', {}],
    ['free-network-addresses', 'wrong-shape', { network: 'x' }],
  ];
  for (const [type, name, output] of replies) {
    scenarios.push({ id: `hosts/reply/${type}/${name}`, area: 'step replies', hosts: 3, steps: base([stepReply(0, type, output)]) });
  }
  for (const type of [
    'inventory',
    'connectivity-check',
    'free-network-addresses',
    'domain-resolution',
    'ntp-synchronizer',
    'installation-disk-speed-check',
    'container-image-availability',
    'tang-connectivity-check',
    'api-vip-connectivity-check',
    'verify-vips',
    'upgrade-agent',
    'dhcp-lease-allocate',
    'logs-gather',
  ]) {
    scenarios.push({ id: `hosts/reply/${type}/not-json`, area: 'step replies', hosts: 3, steps: base([stepReply(0, type, 'not json {')]) });
    scenarios.push({
      id: `hosts/reply/${type}/failed`,
      area: 'step replies',
      hosts: 3,
      steps: base([stepReply(0, type, '', { exit_code: 1, error: 'command failed' })]),
    });
  }
  // A step reply with no body at all (docs/compatibility.md, upstream-drops-empty-step-reply): one host is enough.
  scenarios.push({
    id: 'hosts/reply/no-body',
    area: 'step replies',
    hosts: 1,
    steps: [
      ...clusterWithInfraEnv(clusterBody(VIPS)),
      post(
        'v2RegisterHost',
        '/infra-envs/{{infraEnv}}/hosts',
        { host_id: '{{host0}}', discovery_agent_version: AGENT_VERSION },
        { agentOf: '{{infraEnv}}', setup: true },
      ),
      post('v2PostStepReply', '/infra-envs/{{infraEnv}}/hosts/{{host0}}/instructions', undefined, { agentOf: '{{infraEnv}}' }),
    ],
  });
  scenarios.push({ id: 'hosts/reply/unknown-type', area: 'step replies', hosts: 3, steps: base([stepReply(0, 'no-such-step', {})]) });
  scenarios.push({
    id: 'hosts/reply/no-step-type',
    area: 'step replies',
    hosts: 3,
    steps: base([
      post('v2PostStepReply', '/infra-envs/{{infraEnv}}/hosts/{{host0}}/instructions', { step_id: 'x', output: '{}' }, { agentOf: '{{infraEnv}}' }),
    ]),
  });
  scenarios.push({
    id: 'hosts/reply/unknown-host',
    area: 'step replies',
    hosts: 3,
    steps: base([
      post(
        'v2PostStepReply',
        '/infra-envs/{{infraEnv}}/hosts/0f0f0f0f-0000-4000-8000-000000000000/instructions',
        { step_type: 'inventory', step_id: 'inventory-1', output: '{}' },
        { agentOf: '{{infraEnv}}' },
      ),
    ]),
  });

  // Registration edge cases.
  const registration: [string, Json][] = [
    ['no-host-id', {}],
    ['host-id-not-uuid', { host_id: 'abc' }],
    ['no-agent-version', { host_id: '{{host0}}' }],
  ];
  for (const [name, body] of registration) {
    scenarios.push({
      id: `hosts/register/${name}`,
      area: 'host flows',
      hosts: 1,
      steps: [
        ...clusterWithInfraEnv(clusterBody()),
        post('v2RegisterHost', '/infra-envs/{{infraEnv}}/hosts', body, { agentOf: '{{infraEnv}}' }),
        // Listed once both judged the host: ours at registration, upstream's monitor a pass later.
        settle(),
        get('v2ListHosts', '/infra-envs/{{infraEnv}}/hosts'),
      ],
    });
  }
  scenarios.push({
    id: 'hosts/register/twice',
    area: 'host flows',
    hosts: 1,
    steps: [
      ...clusterWithInfraEnv(clusterBody()),
      ...registerHost(0, labHosts(1)[0]!),
      ...registerHost(0, labHosts(1)[0]!),
      settle(),
      get('v2GetHost', '/infra-envs/{{infraEnv}}/hosts/{{host0}}'),
    ],
  });
  scenarios.push({
    id: 'hosts/register/unknown-infra-env',
    area: 'host flows',
    hosts: 1,
    steps: [
      post(
        'v2RegisterHost',
        '/infra-envs/0f0f0f0f-0000-4000-8000-000000000000/hosts',
        { host_id: '{{host0}}' },
        { agentOf: '0f0f0f0f-0000-4000-8000-000000000000' },
      ),
    ],
  });
  // A pool host (infra-env without a cluster), bound and unbound.
  scenarios.push({
    id: 'hosts/pool/bind-unbind',
    area: 'host flows',
    hosts: 1,
    steps: [
      post('RegisterInfraEnv', '/infra-envs', { name: 'pool', pull_secret: clusterBody().pull_secret }, { save: { infraEnv: 'id' }, setup: true }),
      ...registerHost(0, labHosts(1)[0]!),
      { kind: 'settle', infraEnv: '{{infraEnv}}' },
      get('v2GetHost', '/infra-envs/{{infraEnv}}/hosts/{{host0}}'),
      post('v2RegisterCluster', '/clusters', clusterBody({ control_plane_count: 1 }), { save: { cluster: 'id' } }),
      post('BindHost', '/infra-envs/{{infraEnv}}/hosts/{{host0}}/actions/bind', { cluster_id: '{{cluster}}' }),
      settle(),
      get('v2GetHost', '/infra-envs/{{infraEnv}}/hosts/{{host0}}'),
      post('BindHost', '/infra-envs/{{infraEnv}}/hosts/{{host0}}/actions/bind', { cluster_id: '{{cluster}}' }),
      post('UnbindHost', '/infra-envs/{{infraEnv}}/hosts/{{host0}}/actions/unbind'),
      { kind: 'settle', infraEnv: '{{infraEnv}}' },
      get('v2GetHost', '/infra-envs/{{infraEnv}}/hosts/{{host0}}'),
      post('UnbindHost', '/infra-envs/{{infraEnv}}/hosts/{{host0}}/actions/unbind'),
    ],
  });

  // The user's host operations on a discovered host.
  const three = labHosts(3);
  const userOps: [string, Step[]][] = [
    ['role-master', [patch('v2UpdateHost', '/infra-envs/{{infraEnv}}/hosts/{{host0}}', { host_role: 'master' })]],
    ['role-worker', [patch('v2UpdateHost', '/infra-envs/{{infraEnv}}/hosts/{{host0}}', { host_role: 'worker' })]],
    ['role-arbiter', [patch('v2UpdateHost', '/infra-envs/{{infraEnv}}/hosts/{{host0}}', { host_role: 'arbiter' })]],
    ['role-bogus', [patch('v2UpdateHost', '/infra-envs/{{infraEnv}}/hosts/{{host0}}', { host_role: 'boss' })]],
    ['hostname', [patch('v2UpdateHost', '/infra-envs/{{infraEnv}}/hosts/{{host0}}', { host_name: 'renamed-0' })]],
    ['hostname-invalid', [patch('v2UpdateHost', '/infra-envs/{{infraEnv}}/hosts/{{host0}}', { host_name: 'Bad_Name!' })]],
    ['hostname-duplicate', [patch('v2UpdateHost', '/infra-envs/{{infraEnv}}/hosts/{{host0}}', { host_name: 'node-1' })]],
    ['hostname-localhost', [patch('v2UpdateHost', '/infra-envs/{{infraEnv}}/hosts/{{host0}}', { host_name: 'localhost' })]],
    [
      'install-disk',
      [
        patch('v2UpdateHost', '/infra-envs/{{infraEnv}}/hosts/{{host0}}', {
          disks_selected_config: [{ id: '/dev/disk/by-id/wwn-0x5000c5008e3d0a10', role: 'install' }],
        }),
      ],
    ],
    [
      'install-disk-unknown',
      [patch('v2UpdateHost', '/infra-envs/{{infraEnv}}/hosts/{{host0}}', { disks_selected_config: [{ id: '/dev/nope', role: 'install' }] })],
    ],
    [
      'install-disk-ineligible',
      [patch('v2UpdateHost', '/infra-envs/{{infraEnv}}/hosts/{{host0}}', { disks_selected_config: [{ id: '/dev/sr0', role: 'install' }] })],
    ],
    [
      'skip-formatting',
      [
        patch('v2UpdateHost', '/infra-envs/{{infraEnv}}/hosts/{{host0}}', {
          disks_skip_formatting: [{ disk_id: '/dev/disk/by-id/wwn-0x5000c5008e3d0a10', skip_formatting: true }],
        }),
      ],
    ],
    ['mcp-worker', [patch('v2UpdateHost', '/infra-envs/{{infraEnv}}/hosts/{{host0}}', { machine_config_pool_name: 'infra' })]],
    ['node-labels', [patch('v2UpdateHost', '/infra-envs/{{infraEnv}}/hosts/{{host0}}', { node_labels: [{ key: 'zone', value: 'a' }] })]],
    ['node-labels-invalid', [patch('v2UpdateHost', '/infra-envs/{{infraEnv}}/hosts/{{host0}}', { node_labels: [{ key: 'bad key!', value: 'a' }] })]],
    ['empty-update', [patch('v2UpdateHost', '/infra-envs/{{infraEnv}}/hosts/{{host0}}', {})]],
    [
      'installer-args',
      [patch('v2UpdateHostInstallerArgs', '/infra-envs/{{infraEnv}}/hosts/{{host0}}/installer-args', { args: ['--append-karg', 'console=ttyS0'] })],
    ],
    ['installer-args-forbidden', [patch('v2UpdateHostInstallerArgs', '/infra-envs/{{infraEnv}}/hosts/{{host0}}/installer-args', { args: ['--not-allowed'] })]],
    [
      'ignition',
      [
        patch('v2UpdateHostIgnition', '/infra-envs/{{infraEnv}}/hosts/{{host0}}/ignition', { config: '{"ignition":{"version":"3.1.0"}}' }),
        get('v2GetHostIgnition', '/infra-envs/{{infraEnv}}/hosts/{{host0}}/ignition'),
      ],
    ],
    ['ignition-invalid', [patch('v2UpdateHostIgnition', '/infra-envs/{{infraEnv}}/hosts/{{host0}}/ignition', { config: 'nope' })]],
    [
      'reset-validation',
      [{ op: 'v2ResetHostValidation', method: 'PATCH', path: '/infra-envs/{{infraEnv}}/hosts/{{host0}}/actions/reset-validation/ntp-synced' }],
    ],
    [
      'reset-validation-unknown',
      [{ op: 'v2ResetHostValidation', method: 'PATCH', path: '/infra-envs/{{infraEnv}}/hosts/{{host0}}/actions/reset-validation/no-such-validation' }],
    ],
    ['reset-host', [post('v2ResetHost', '/infra-envs/{{infraEnv}}/hosts/{{host0}}/actions/reset')]],
    ['install-host', [post('v2InstallHost', '/infra-envs/{{infraEnv}}/hosts/{{host0}}/actions/install')]],
    ['deregister', [del('v2DeregisterHost', '/infra-envs/{{infraEnv}}/hosts/{{host0}}'), get('v2GetHost', '/infra-envs/{{infraEnv}}/hosts/{{host0}}')]],
    [
      'list-cluster-hosts',
      [
        get('ListClusterHosts', '/clusters/{{cluster}}/hosts'),
        get('ListClusterHosts', '/clusters/{{cluster}}/hosts?role=master'),
        get('ListClusterHosts', '/clusters/{{cluster}}/hosts?with-inventory=true'),
      ],
    ],
    ['host-events', [get('v2ListEvents', '/events?cluster_id={{cluster}}&host_id={{host0}}', { compare: 'event-names' })]],
    ['download-host-ignition', [get('v2DownloadHostIgnition', '/infra-env/{{infraEnv}}/hosts/{{host0}}/downloads/ignition', { compare: 'status' })]],
  ];
  for (const [name, steps] of userOps) {
    scenarios.push({
      id: `hosts/user/${name}`,
      area: 'host updates',
      ...hostFlow({ ...VIPS }, three, [...steps, settle(), get('v2GetHost', '/infra-envs/{{infraEnv}}/hosts/{{host0}}')]),
    });
  }
  scenarios.push(installProgressScenario());
  return scenarios;
}

const HOST_PATH = '/infra-envs/{{infraEnv}}/hosts/{{host0}}';
const PREPARING_OR_LATER = ['preparing-for-installation', 'preparing-successful', 'installing', 'installing-in-progress'];

/**
 * One single-node host taken through an installation, then through its stages by the agent's
 * progress reports (v2UpdateHostInstallProgress), the host's `progress` and `progress_stages`
 * compared after each report: the stage, its info, the percentage, when it started and was last
 * updated, a repeated stage with new info, a lower stage refused. The host reports its clock with its
 * first poll (time-synced-between-host-and-service), so that the cluster can become ready; the
 * preparation's disk speed check is answered once each service asks for it.
 */
function installProgressScenario(): Scenario {
  // The machine network is given: how each service derives a single node's from its host is compared elsewhere.
  const body = clusterBody({ control_plane_count: 1, machine_networks: [{ cidr: MACHINE_NETWORK }] });
  const host = labHosts(1)[0]!;
  const report = (progress: Json) => put('v2UpdateHostInstallProgress', `${HOST_PATH}/progress`, progress, { agentOf: '{{infraEnv}}' });
  const readProgress = get('v2GetHost', HOST_PATH, { compare: 'host-progress' });
  return {
    id: 'hosts/progress/sno',
    area: 'host flows',
    hosts: 1,
    steps: [
      ...clusterWithInfraEnv(body),
      post(
        'v2RegisterHost',
        '/infra-envs/{{infraEnv}}/hosts',
        { host_id: '{{host0}}', discovery_agent_version: AGENT_VERSION },
        { agentOf: '{{infraEnv}}', setup: true },
      ),
      get('v2GetNextSteps', `${HOST_PATH}/instructions?timestamp=${Math.floor(Date.now() / 1000)}`, { agentOf: '{{infraEnv}}', setup: true }),
      { ...stepReply(0, 'inventory', hostInventory(host)), setup: true },
      ...healthyReplies(0, [host], { clusterName: body.name as string, apiVip: host.ipv4, ingressVip: host.ipv4 }).map((step) => ({ ...step, setup: true })),
      waitFor('/clusters/{{cluster}}', 'status', ['ready']),
      post('v2InstallCluster', '/clusters/{{cluster}}/actions/install', undefined, { compare: 'status' }),
      waitFor(HOST_PATH, 'status', PREPARING_OR_LATER),
      { ...stepReply(0, 'installation-disk-speed-check', { io_sync_duration: 2, path: '/dev/disk/by-id/wwn-0x5000c5008e3d0a10' }), setup: true },
      waitFor(HOST_PATH, 'status', ['installing', 'installing-in-progress'], 90_000),
      readProgress,
      report({ current_stage: 'Starting installation' }),
      readProgress,
      report({ current_stage: 'Installing', progress_info: 'bootstrap' }),
      readProgress,
      report({ current_stage: 'Writing image to disk', progress_info: '20%' }),
      readProgress,
      report({ current_stage: 'Writing image to disk', progress_info: '80%' }),
      readProgress,
      report({ current_stage: 'Starting installation' }),
      readProgress,
      report({ current_stage: 'Rebooting' }),
      readProgress,
    ],
  };
}
