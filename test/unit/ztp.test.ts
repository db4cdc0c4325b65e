/**
 * ZTP manifests → REST parameters: translation of an HA cluster with static networking, an SNO and
 * a dual-stack cluster, field by field; and the errors malformed manifests produce (file, document,
 * field named), with nothing planned.
 */
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { exampleManifests } from '../../cli/ztp/examples.js';
import { formatManifestError, parseManifestFiles, type ManifestFile } from '../../cli/ztp/manifests.js';
import { clusterConditions } from '../../cli/ztp/conditions.js';
import { clusterInstallConditions } from '../../hub/conditions.js';
import { planFromManifests, releaseFromImage } from '../../cli/ztp/translate.js';
import { clusterDifferences } from '../../cli/ztp/apply.js';
import { PULL_SECRET, sshPublicKey } from '../support/fixtures.js';
import { editManifest } from '../support/ztp-manifests.js';

const SSH_KEY = sshPublicKey();
const examples = (kind: 'ha' | 'sno' | 'dual-stack') => exampleManifests(kind, { pullSecret: PULL_SECRET, sshPublicKey: SSH_KEY });

function plan(files: ManifestFile[]) {
  const parsed = parseManifestFiles(files);
  const planned = planFromManifests(parsed.documents);
  return { ...planned, errors: [...parsed.errors, ...planned.errors].map(formatManifestError) };
}

describe('translating ZTP manifests', () => {
  it('plans an HA cluster with static networking from NMStateConfigs', () => {
    const { plan: result, errors } = plan(examples('ha'));
    expect(errors).toEqual([]);
    expect(result.clusters).toHaveLength(1);
    const cluster = result.clusters[0]!;
    expect(cluster.params).toEqual({
      name: 'ha',
      base_dns_domain: 'example.com',
      openshift_version: '4.18.52',
      ocp_release_image: 'quay.io/openshift-release-dev/ocp-release:4.18.52-x86_64',
      cpu_architecture: 'x86_64',
      pull_secret: PULL_SECRET,
      control_plane_count: 3,
      high_availability_mode: 'Full',
      cluster_networks: [{ cidr: '10.128.0.0/14', host_prefix: 23 }],
      service_networks: [{ cidr: '172.30.0.0/16' }],
      machine_networks: [{ cidr: '192.168.111.0/24' }],
      network_type: 'OVNKubernetes',
      platform: { type: 'baremetal' },
      api_vips: [{ ip: '192.168.111.5' }],
      ingress_vips: [{ ip: '192.168.111.4' }],
      ssh_public_key: SSH_KEY,
      http_proxy: 'http://proxy.example.com:3128',
      https_proxy: 'http://proxy.example.com:3128',
      no_proxy: '.example.com,192.168.111.0/24',
    });
    expect(cluster.installConfigOverrides).toBe('{"fips":true}');
    expect(cluster.expectedAgents).toEqual({ controlPlane: 3, workers: 2 });
    expect(cluster.infraEnvs).toHaveLength(1);
    const infraEnv = cluster.infraEnvs[0]!;
    expect(infraEnv.nmStateConfigs).toEqual(['ha-master-0', 'ha-master-1', 'ha-master-2', 'ha-worker-0', 'ha-worker-1']);
    expect(infraEnv.params).toMatchObject({
      name: 'ha',
      pull_secret: PULL_SECRET,
      ssh_authorized_key: SSH_KEY,
      additional_ntp_sources: 'clock.example.com',
      cpu_architecture: 'x86_64',
      openshift_version: '4.18.52',
    });
    const entries = infraEnv.params.static_network_config!;
    expect(entries).toHaveLength(5);
    expect(entries[0]!.mac_interface_map).toEqual([{ mac_address: '52:54:00:aa:00:01', logical_nic_name: 'eth0' }]);
    const yaml = YAML.parse(entries[0]!.network_yaml!);
    expect(yaml.interfaces[0].ipv4.address).toEqual([{ ip: '192.168.111.20', 'prefix-length': 24 }]);
    expect(yaml.routes.config[0]['next-hop-address']).toBe('192.168.111.1');
    expect(result.warnings).toEqual([]);
  });

  it('leaves a cluster-managed machine network to the service: none yet while no host is on it is no difference', () => {
    const cluster = plan(examples('ha')).plan.clusters[0]!;
    const want = cluster.params;
    // As the service answers before any host is discovered: the VIPs kept, the machine network derived later.
    const existing = { ...want, id: 'c', machine_networks: [], api_vips: want.api_vips, ingress_vips: want.ingress_vips } as unknown as Parameters<
      typeof clusterDifferences
    >[0];
    expect(clusterDifferences(existing, cluster)).toEqual({});
    // With user-managed networking the machine network is the user's: a difference is sent.
    const userManaged = { ...cluster, params: { ...want, user_managed_networking: true } };
    expect(clusterDifferences({ ...existing, user_managed_networking: true } as typeof existing, userManaged)).toEqual({
      machine_networks: want.machine_networks,
    });
  });

  it('plans a single-node cluster with user-managed networking and no VIPs', () => {
    const { plan: result, errors } = plan(examples('sno'));
    expect(errors).toEqual([]);
    const params = result.clusters[0]!.params;
    expect(params).toMatchObject({
      name: 'sno',
      control_plane_count: 1,
      high_availability_mode: 'None',
      user_managed_networking: true,
      platform: { type: 'none' },
      machine_networks: [{ cidr: '192.168.112.0/24' }],
    });
    expect(params.api_vips).toBeUndefined();
    expect(result.clusters[0]!.installConfigOverrides).toBeUndefined();
    expect(result.clusters[0]!.infraEnvs[0]!.params.static_network_config).toBeUndefined();
  });

  it('plans a dual-stack cluster with both families in every network and VIP list, in order', () => {
    const { plan: result, errors } = plan(examples('dual-stack'));
    expect(errors).toEqual([]);
    expect(result.clusters[0]!.params).toMatchObject({
      cluster_networks: [
        { cidr: '10.128.0.0/14', host_prefix: 23 },
        { cidr: 'fd01::/48', host_prefix: 64 },
      ],
      service_networks: [{ cidr: '172.30.0.0/16' }, { cidr: 'fd02::/112' }],
      machine_networks: [{ cidr: '192.168.113.0/24' }, { cidr: 'fd2e:6f44:5dd8:c956::/120' }],
      api_vips: [{ ip: '192.168.113.5' }, { ip: 'fd2e:6f44:5dd8:c956::5' }],
      ingress_vips: [{ ip: '192.168.113.4' }, { ip: 'fd2e:6f44:5dd8:c956::4' }],
    });
  });

  it('reads the pull secret from stringData as well as base64 data, and apiVIP in its singular form', () => {
    let files = editManifest(examples('ha'), 'pull-secret.yaml', 'Secret', (secret) => {
      delete secret.data;
      secret.stringData = { '.dockerconfigjson': PULL_SECRET };
    });
    files = editManifest(files, 'cluster.yaml', 'AgentClusterInstall', (aci) => {
      delete aci.spec.apiVIPs;
      aci.spec.apiVIP = '192.168.111.5';
    });
    const { plan: result, errors } = plan(files);
    expect(errors).toEqual([]);
    expect(result.clusters[0]!.params.pull_secret).toBe(PULL_SECRET);
    expect(result.clusters[0]!.params.api_vips).toEqual([{ ip: '192.168.111.5' }]);
  });

  it('takes version and architecture from the release image tag', () => {
    expect(releaseFromImage('quay.io/openshift-release-dev/ocp-release:4.18.52-x86_64')).toEqual({ version: '4.18.52', cpuArchitecture: 'x86_64' });
    expect(releaseFromImage('quay.io/openshift-release-dev/ocp-release:5.0.0-ec.5-aarch64')).toEqual({ version: '5.0.0-ec.5', cpuArchitecture: 'arm64' });
    expect(releaseFromImage('quay.io/openshift-release-dev/ocp-release:4.19.42-multi')).toEqual({ version: '4.19.42-multi', cpuArchitecture: 'multi' });
    expect(releaseFromImage('quay.io/openshift-release-dev/ocp-release@sha256:abc')).toBeUndefined();
  });
});

describe('malformed ZTP manifests', () => {
  it('names the missing reference (AgentClusterInstall → ClusterImageSet) and plans nothing usable', () => {
    const files = editManifest(examples('ha'), 'cluster.yaml', 'AgentClusterInstall', (aci) => {
      aci.spec.imageSetRef.name = 'openshift-9.9';
    });
    const { errors, plan: result } = plan(files);
    expect(errors).toEqual([
      'cluster.yaml: document 2 (AgentClusterInstall "ha-install"): spec.imageSetRef.name: ClusterImageSet "openshift-9.9" is not among the manifests',
    ]);
    expect(result.clusters).toEqual([]);
  });

  it('names a missing pull secret and a missing ClusterDeployment behind an InfraEnv', () => {
    let files = examples('sno').filter((f) => f.file !== 'pull-secret.yaml');
    files = editManifest(files, 'infraenv.yaml', 'InfraEnv', (infraEnv) => {
      infraEnv.spec.clusterRef.name = 'nope';
    });
    const { errors } = plan(files);
    expect(errors).toContain(
      'cluster.yaml: document 1 (ClusterDeployment "sno"): spec.pullSecretRef.name: Secret "sno-pull-secret" is not among the manifests in namespace "sno"',
    );
    expect(errors).toContain(
      'infraenv.yaml: document 1 (InfraEnv "sno"): spec.clusterRef.name: ClusterDeployment "nope" is not among the manifests in namespace "sno"',
    );
  });

  it('names a bad CIDR and a bad host prefix with their field paths', () => {
    const files = editManifest(examples('dual-stack'), 'cluster.yaml', 'AgentClusterInstall', (aci) => {
      aci.spec.networking.machineNetwork[1].cidr = 'fd2e:6f44:5dd8:c956::/129';
      aci.spec.networking.serviceNetwork[0] = '172.30.0.1/16';
      aci.spec.networking.clusterNetwork[0].hostPrefix = 30;
    });
    const { errors } = plan(files);
    expect(errors).toEqual([
      expect.stringMatching(
        /^cluster\.yaml: document 2 \(AgentClusterInstall "dual-stack-install"\): spec\.networking\.clusterNetwork\[0\]\.hostPrefix: host_prefix 30 must be larger/,
      ),
      'cluster.yaml: document 2 (AgentClusterInstall "dual-stack-install"): spec.networking.serviceNetwork[0]: "172.30.0.1/16" has host bits set: did you mean the network address of that block?',
      'cluster.yaml: document 2 (AgentClusterInstall "dual-stack-install"): spec.networking.machineNetwork[1].cidr: "fd2e:6f44:5dd8:c956::/129" is not a CIDR such as 10.128.0.0/14 or fd01::/48',
    ]);
  });

  it('refuses a wrong kind and a wrong apiVersion', () => {
    const files = [
      ...examples('sno'),
      {
        file: 'extra.yaml',
        text: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: stray\n---\napiVersion: hive.openshift.io/v1beta1\nkind: ClusterImageSet\nmetadata:\n  name: other\nspec:\n  releaseImage: x\n',
      },
    ];
    const { errors } = plan(files);
    expect(errors).toEqual([
      'extra.yaml: document 1 (ConfigMap "stray"): kind: "ConfigMap" is not a ZTP manifest kind this client applies; expected one of ClusterDeployment, AgentClusterInstall, ClusterImageSet, InfraEnv, NMStateConfig, Secret',
      'extra.yaml: document 2 (ClusterImageSet "other"): apiVersion: must be hive.openshift.io/v1 for a ClusterImageSet, not "hive.openshift.io/v1beta1"',
    ]);
  });

  it('reports a YAML syntax error with file, document and position', () => {
    const files = [
      ...examples('sno'),
      { file: 'broken.yaml', text: 'apiVersion: v1\nkind: Secret\nmetadata: {name: spare, namespace: sno}\n---\nkind: [unclosed\nmetadata: {name: x}\n' },
    ];
    const { errors } = plan(files);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^broken\.yaml: document 2: YAML syntax error at line \d+, column \d+: /);
  });

  it('names NMStateConfig problems (nmstate field, MAC) and a selector that picks nothing', () => {
    let files = editManifest(examples('ha'), 'nmstate.yaml', 'NMStateConfig', (config) => {
      if (config.metadata.name === 'ha-master-1') config.spec.config.interfaces[0].ipv4.address[0]['prefix-length'] = 40;
      if (config.metadata.name === 'ha-worker-0') config.spec.interfaces[0].macAddress = '52:54:00:zz:00:04';
    });
    let { errors } = plan(files);
    expect(errors).toEqual([
      'nmstate.yaml: document 2 (NMStateConfig "ha-master-1"): spec.config: interfaces[0].ipv4.address[0].prefix-length must be 0–32',
      expect.stringMatching(
        /^nmstate\.yaml: document 4 \(NMStateConfig "ha-worker-0"\): spec\.interfaces: spec\.interfaces\[0\]\.macAddress "52:54:00:zz:00:04" is not a MAC address/,
      ),
    ]);
    files = editManifest(examples('ha'), 'infraenv.yaml', 'InfraEnv', (infraEnv) => {
      infraEnv.spec.nmStateConfigLabelSelector.matchLabels = { role: 'nothing' };
    });
    ({ errors } = plan(files));
    expect(errors).toEqual([
      'infraenv.yaml: document 1 (InfraEnv "ha"): spec.nmStateConfigLabelSelector.matchLabels: selects no NMStateConfig in namespace "ha" (looked for role=nothing)',
    ]);
  });

  it('refuses install-config overrides that are not a JSON object', () => {
    const files = editManifest(examples('ha'), 'cluster.yaml', 'AgentClusterInstall', (aci) => {
      aci.metadata.annotations['agent-install.openshift.io/install-config-overrides'] = '{"fips": tru';
    });
    expect(plan(files).errors).toEqual([
      expect.stringMatching(
        /^cluster\.yaml: document 2 \(AgentClusterInstall "ha-install"\): metadata\.annotations\[agent-install\.openshift\.io\/install-config-overrides\]: is not JSON/,
      ),
    ]);
  });
});

describe('AgentClusterInstall conditions from the cluster state', () => {
  const expected = { controlPlane: 1, workers: 0 };
  const summary = (conditions: ReturnType<typeof clusterConditions>) => Object.fromEntries(conditions.map((c) => [c.type, `${c.status} ${c.reason}`]));

  it('before registration only SpecSynced speaks', () => {
    expect(summary(clusterConditions(undefined, expected))).toEqual({
      SpecSynced: 'False NotAvailable',
      Validated: 'Unknown NotAvailable',
      RequirementsMet: 'Unknown NotAvailable',
      Completed: 'Unknown NotAvailable',
      Failed: 'Unknown NotAvailable',
      Stopped: 'Unknown NotAvailable',
    });
  });

  it('follows the cluster from insufficient to installed and to error', () => {
    const validations = JSON.stringify({
      hosts: [{ id: 'sufficient-masters-count', status: 'failure', message: 'Single-node clusters must have a single control plane node and no workers.' }],
    });
    expect(
      summary(clusterConditions({ status: 'insufficient', status_info: 'x', validations_info: validations, total_host_count: 0 }, expected)),
    ).toMatchObject({
      Validated: 'False ValidationsFailing',
      RequirementsMet: 'False InsufficientAgents',
      Completed: 'False InstallationNotStarted',
      Failed: 'False InstallationNotFailed',
      Stopped: 'False InstallationNotStopped',
    });
    expect(summary(clusterConditions({ status: 'installing', status_info: 'Installation in progress', validations_info: '{}' }, expected))).toMatchObject({
      RequirementsMet: 'True ClusterAlreadyInstalling',
      Completed: 'False InstallationInProgress',
    });
    const installed = clusterConditions({ status: 'installed', status_info: 'Cluster is installed', validations_info: '{}' }, expected);
    expect(summary(installed)).toEqual({
      SpecSynced: 'True SyncOK',
      Validated: 'True ValidationsPassing',
      RequirementsMet: 'True ClusterInstallationStopped',
      Completed: 'True InstallationCompleted',
      Failed: 'False InstallationNotFailed',
      Stopped: 'True InstallationCompleted',
    });
    expect(installed.find((c) => c.type === 'Completed')!.message).toBe('The installation has completed: Cluster is installed');
    expect(summary(clusterConditions({ status: 'error', status_info: 'host failed', validations_info: '{}' }, expected))).toMatchObject({
      Completed: 'False InstallationFailed',
      Failed: 'True InstallationFailed',
      Stopped: 'True InstallationFailed',
    });
  });

  it('words Validated as the hub controller does (contracts/cluster-install-conditions.ts): failing messages joined with "," as upstream joins them', () => {
    const validations = JSON.stringify({
      network: [
        { id: 'machine-cidr-defined', status: 'failure', message: 'The Machine Network CIDR is undefined' },
        { id: 'api-vips-defined', status: 'failure', message: 'API virtual IPs are undefined' },
      ],
      hosts: [{ id: 'all-hosts-are-ready-to-install', status: 'success', message: 'All hosts in the cluster are ready to install.' }],
    });
    const cluster = { status: 'insufficient' as const, status_info: 'x', validations_info: validations, total_host_count: 3 };
    const cli = clusterConditions(cluster, { controlPlane: 3, workers: 0 }).find((c) => c.type === 'Validated');
    const hub = clusterInstallConditions(cluster, { controlPlane: 3, workers: 0 }, { registered: 3, unapproved: 0 }, undefined).find(
      (c) => c.type === 'Validated',
    );
    expect(cli).toEqual({
      type: 'Validated',
      status: 'False',
      reason: 'ValidationsFailing',
      message: "The cluster's validations are failing: The Machine Network CIDR is undefined,API virtual IPs are undefined",
    });
    expect(hub).toEqual(cli);
    // Completed, Failed and Stopped are the same three words in both, for every status.
    for (const status of ['insufficient', 'ready', 'installing', 'finalizing', 'installed', 'error', 'cancelled', 'pending-for-input'] as const) {
      const tail = (conditions: { type: string }[]) => conditions.filter((c) => ['Completed', 'Failed', 'Stopped'].includes(c.type));
      expect(tail(clusterConditions({ status, status_info: 'info', validations_info: '{}' }, expected)), status).toEqual(
        tail(clusterInstallConditions({ status, status_info: 'info', validations_info: '{}' }, expected, { registered: 0, unapproved: 0 }, undefined)),
      );
    }
  });
});
