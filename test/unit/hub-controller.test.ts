/**
 * The hub controller's pure parts: custom resources → REST parameters (and the updates that bring
 * a registered cluster or infra-env back to them), host → Agent status, the conditions with
 * upstream's reasons, the work queue's backoff and deduplication, the Lease expiry, and the rule
 * that hub/ imports only contracts/ and itself.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Cluster, Host, InfraEnv } from '../../contracts/wire.js';
import { agentConditions, clusterInstallConditions, imageCreatedCondition, shouldStartInstall, withTransitionTimes } from '../../hub/conditions.js';
import { leaseExpired } from '../../hub/leader.js';
import type { KubeObject } from '../../hub/objects.js';
import { WorkQueue } from '../../hub/queue.js';
import {
  agentInventory,
  clusterPlan,
  clusterUpdate,
  hostUpdate,
  infraEnvParams,
  infraEnvUpdate,
  labelsMatch,
  manifestConfigMapNames,
  manifestsFromConfigMaps,
  releaseFromImage,
  SpecProblem,
} from '../../hub/translate.js';
import { sameOverrides } from '../../contracts/cluster-differences.js';
import { sources, specifiersOf } from '../support/import-graph.js';

const object = (name: string, spec: Record<string, unknown>, metadata: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  metadata: { name, namespace: 'spoke', ...metadata },
  spec,
});

const clusterDeployment = object('single-node', { baseDomain: 'hive.example.com', clusterName: 'test-cluster', pullSecretRef: { name: 'pull-secret' } });
const imageSet = object('openshift-v5.0.0', { releaseImage: 'quay.io/openshift-release-dev/ocp-release:5.0.0-ec.5-x86_64' });
const sno = object('aci', {
  clusterDeploymentRef: { name: 'single-node' },
  imageSetRef: { name: 'openshift-v5.0.0' },
  networking: {
    clusterNetwork: [{ cidr: '10.128.0.0/14', hostPrefix: 23 }],
    machineNetwork: [{ cidr: '192.168.126.0/24' }],
    serviceNetwork: ['172.30.0.0/16'],
  },
  provisionRequirements: { controlPlaneAgents: 1 },
});

describe('clusterPlan', () => {
  it("turns upstream's SNO example into cluster-create-params", () => {
    const plan = clusterPlan({ clusterDeployment, agentClusterInstall: sno, clusterImageSet: imageSet, pullSecret: '{"auths":{}}' });
    expect(plan.params).toEqual({
      name: 'test-cluster',
      base_dns_domain: 'hive.example.com',
      openshift_version: '5.0.0-ec.5',
      ocp_release_image: 'quay.io/openshift-release-dev/ocp-release:5.0.0-ec.5-x86_64',
      cpu_architecture: 'x86_64',
      pull_secret: '{"auths":{}}',
      control_plane_count: 1,
      high_availability_mode: 'None',
      cluster_networks: [{ cidr: '10.128.0.0/14', host_prefix: 23 }],
      service_networks: [{ cidr: '172.30.0.0/16' }],
      machine_networks: [{ cidr: '192.168.126.0/24' }],
      user_managed_networking: true,
      platform: { type: 'none' },
    });
    expect(plan.expected).toEqual({ controlPlane: 1, workers: 0 });
  });

  it('carries VIPs (plural or singular), platform, proxy, SSH key, hyperthreading and the install-config overrides annotation', () => {
    const ha = object(
      'aci',
      {
        ...sno.spec,
        apiVIP: '1.2.3.8',
        ingressVIPs: ['1.2.3.9'],
        platformType: 'BareMetal',
        sshPublicKey: 'ssh-ed25519 AAAA',
        proxy: { httpProxy: 'http://p:3128', noProxy: '.lab' },
        controlPlane: { hyperthreading: 'Disabled', name: 'master' },
        compute: [{ hyperthreading: 'Enabled', name: 'worker' }],
        provisionRequirements: { controlPlaneAgents: 3, workerAgents: 2 },
      },
      { annotations: { 'agent-install.openshift.io/install-config-overrides': '{"fips": true}' } },
    );
    const plan = clusterPlan({ clusterDeployment, agentClusterInstall: ha, clusterImageSet: imageSet, pullSecret: 'x' });
    expect(plan.params).toMatchObject({
      api_vips: [{ ip: '1.2.3.8' }],
      ingress_vips: [{ ip: '1.2.3.9' }],
      platform: { type: 'baremetal' },
      ssh_public_key: 'ssh-ed25519 AAAA',
      http_proxy: 'http://p:3128',
      no_proxy: '.lab',
      hyperthreading: 'workers',
      control_plane_count: 3,
      high_availability_mode: 'Full',
    });
    expect(plan.params.user_managed_networking).toBeUndefined();
    expect(plan.installConfigOverrides).toBe('{"fips":true}');
    expect(plan.expected).toEqual({ controlPlane: 3, workers: 2 });
  });

  it('names the resource and field of a bad spec', () => {
    const plan =
      (aci: KubeObject, cis = imageSet) =>
      () =>
        clusterPlan({ clusterDeployment, agentClusterInstall: aci, clusterImageSet: cis, pullSecret: 'x' });
    expect(plan(object('aci', { ...sno.spec, provisionRequirements: { controlPlaneAgents: 2 } }))).toThrow(
      /AgentClusterInstall aci: spec.provisionRequirements.controlPlaneAgents must be 1 \(single node\) or 3 to 5, not 2/,
    );
    expect(plan(sno, object('x', { releaseImage: 'quay.io/ocp@sha256:00' }))).toThrow(/ClusterImageSet x: cannot tell the OpenShift version/);
    expect(plan(object('aci', { ...sno.spec, platformType: 'Azure' }))).toThrow(/spec.platformType must be one of BareMetal, None, VSphere, Nutanix, External/);
    expect(plan(object('aci', sno.spec!, { annotations: { 'agent-install.openshift.io/install-config-overrides': '{fips' } }))).toThrow(SpecProblem);
    expect(plan(object('aci', sno.spec!, { annotations: { 'agent-install.openshift.io/install-config-overrides': '[1]' } }))).toThrow(/must be a JSON object/);
  });

  it('reads the version and architecture of a release image tag', () => {
    expect(releaseFromImage('quay.io/openshift-release-dev/ocp-release:4.18.52-aarch64')).toEqual({ version: '4.18.52', cpuArchitecture: 'arm64' });
    expect(releaseFromImage('quay.io/openshift-release-dev/ocp-release:4.18.52-multi')).toEqual({ version: '4.18.52-multi', cpuArchitecture: 'multi' });
    expect(releaseFromImage('quay.io/ocp@sha256:00')).toBeUndefined();
  });
});

describe('clusterUpdate', () => {
  const registered = {
    id: 'c',
    name: 'test-cluster',
    base_dns_domain: 'hive.example.com',
    ssh_public_key: '',
    cluster_networks: [{ cidr: '10.128.0.0/14', host_prefix: 23 }],
    service_networks: [{ cidr: '172.30.0.0/16' }],
    machine_networks: [{ cidr: '192.168.126.0/24' }],
    user_managed_networking: true,
    platform: { type: 'none' },
  } as unknown as Cluster;

  it('is empty when the cluster already says what the resources say', () => {
    const plan = clusterPlan({ clusterDeployment, agentClusterInstall: sno, clusterImageSet: imageSet, pullSecret: 'x' });
    expect(clusterUpdate(registered, plan.params)).toEqual({});
  });

  it('sends only what changed', () => {
    const changed = object('aci', {
      ...sno.spec,
      sshPublicKey: 'ssh-ed25519 BBBB',
      networking: { ...sno.spec!.networking, machineNetwork: [{ cidr: '10.0.0.0/24' }] },
    });
    const plan = clusterPlan({ clusterDeployment, agentClusterInstall: changed, clusterImageSet: imageSet, pullSecret: 'x' });
    expect(clusterUpdate(registered, plan.params)).toEqual({ ssh_public_key: 'ssh-ed25519 BBBB', machine_networks: [{ cidr: '10.0.0.0/24' }] });
  });

  it('leaves a cluster-managed single-stack machine network to the service (none yet while no host is on it)', () => {
    const managed = {
      ...registered,
      user_managed_networking: false,
      machine_networks: [],
      platform: { type: 'baremetal' },
      api_vips: [{ ip: '192.168.126.100' }],
      ingress_vips: [{ ip: '192.168.126.101' }],
    } as unknown as Cluster;
    const plan = clusterPlan({ clusterDeployment, agentClusterInstall: sno, clusterImageSet: imageSet, pullSecret: 'x' });
    const want = {
      ...plan.params,
      user_managed_networking: false,
      platform: { type: 'baremetal' },
      api_vips: [{ ip: '192.168.126.100' }],
      ingress_vips: [{ ip: '192.168.126.101' }],
    } as typeof plan.params;
    expect(want.machine_networks).toEqual([{ cidr: '192.168.126.0/24' }]);
    expect(clusterUpdate(managed, want)).toEqual({});
  });

  it('sends the machine network of a cluster whose load balancer is user-managed, as assisted ztp does', () => {
    const userManagedLoadBalancer = {
      ...registered,
      user_managed_networking: false,
      machine_networks: [],
      load_balancer: { type: 'user-managed' },
    } as unknown as Cluster;
    const plan = clusterPlan({ clusterDeployment, agentClusterInstall: sno, clusterImageSet: imageSet, pullSecret: 'x' });
    const want = { ...plan.params, user_managed_networking: false };
    expect(clusterUpdate(userManagedLoadBalancer, want)).toEqual({ machine_networks: [{ cidr: '192.168.126.0/24' }] });
  });

  it('compares install-config overrides as JSON', () => {
    expect(sameOverrides('{"fips": true}', '{"fips":true}')).toBe(true);
    expect(sameOverrides('{"fips":true,"networking":{"a":1,"b":[2]}}', '{"networking":{"b":[2],"a":1},"fips":true}')).toBe(true);
    expect(sameOverrides('{"networking":{"b":[2]}}', '{"networking":{"b":[3]}}')).toBe(false);
    expect(sameOverrides('', undefined)).toBe(true);
    expect(sameOverrides('{"fips":true}', undefined)).toBe(false);
  });
});

describe('manifests from ConfigMaps', () => {
  it('prefers manifestsConfigMapRefs over the deprecated single reference', () => {
    expect(manifestConfigMapNames(object('a', { manifestsConfigMapRef: { name: 'old' }, manifestsConfigMapRefs: [{ name: 'm1' }, { name: 'm2' }] }))).toEqual([
      'm1',
      'm2',
    ]);
    expect(manifestConfigMapNames(object('a', { manifestsConfigMapRef: { name: 'old' } }))).toEqual(['old']);
  });

  it('refuses a key that is not a manifest file and a name given twice', () => {
    expect(manifestsFromConfigMaps([{ name: 'm1', data: { 'b.yaml': 'B', 'a.yml': 'A' } }])).toEqual([
      { fileName: 'a.yml', content: 'A' },
      { fileName: 'b.yaml', content: 'B' },
    ]);
    expect(() => manifestsFromConfigMaps([{ name: 'm1', data: { 'notes.txt': 'x' } }])).toThrow(/ConfigMap m1: key "notes.txt" is not a manifest file name/);
    expect(() =>
      manifestsFromConfigMaps([
        { name: 'm1', data: { 'a.yaml': 'x' } },
        { name: 'm2', data: { 'a.yaml': 'y' } },
      ]),
    ).toThrow(/also in ConfigMap m1/);
  });
});

describe('InfraEnv → infra-env', () => {
  const nmstate = (name: string, mac: string, labels = { env: 'lab' }) =>
    object(
      name,
      { config: { interfaces: [{ name: 'eth0', type: 'ethernet', 'mac-address': mac }] }, interfaces: [{ name: 'eth0', macAddress: mac }] },
      { labels },
    );
  const infraEnv = object('myinfraenv', {
    clusterRef: { name: 'single-node', namespace: 'spoke' },
    pullSecretRef: { name: 'pull-secret' },
    proxy: { httpProxy: 'http://11.11.11.33', httpsProxy: 'http://22.22.22.55' },
    additionalNTPSources: ['ntp1', 'ntp2'],
    ignitionConfigOverride: '{"ignition":{"version":"3.1.0"}}',
    kernelArguments: [{ operation: 'append', value: 'p1' }],
    nmStateConfigLabelSelector: { matchLabels: { env: 'lab' } },
  });

  it('carries proxy, NTP, ignition override, kernel arguments and the selected NMStateConfigs in name order', () => {
    const params = infraEnvParams(infraEnv, 'ps', [nmstate('b', '02:00:00:00:00:02'), nmstate('a', '02:00:00:00:00:01')], {
      openshiftVersion: '5.0.0-ec.5',
      cpuArchitecture: 'x86_64',
    });
    expect(params).toMatchObject({
      name: 'myinfraenv',
      pull_secret: 'ps',
      proxy: { http_proxy: 'http://11.11.11.33', https_proxy: 'http://22.22.22.55' },
      additional_ntp_sources: 'ntp1,ntp2',
      ignition_config_override: '{"ignition":{"version":"3.1.0"}}',
      kernel_arguments: [{ operation: 'append', value: 'p1' }],
      openshift_version: '5.0.0-ec.5',
      cpu_architecture: 'x86_64',
    });
    expect(params.static_network_config!.map((entry) => entry.mac_interface_map![0]!.mac_address)).toEqual(['02:00:00:00:00:01', '02:00:00:00:00:02']);
  });

  it('asks for a new image only when what it carries changed', () => {
    const params = infraEnvParams(infraEnv, 'ps', [nmstate('a', '02:00:00:00:00:01')]);
    const registered = {
      id: 'i',
      name: 'myinfraenv',
      proxy: { http_proxy: 'http://11.11.11.33', https_proxy: 'http://22.22.22.55' },
      additional_ntp_sources: 'ntp1,ntp2',
      ignition_config_override: '{"ignition":{"version":"3.1.0"}}',
      kernel_arguments: [{ operation: 'append', value: 'p1' }],
      static_network_config: JSON.stringify(params.static_network_config),
    } as unknown as InfraEnv;
    expect(infraEnvUpdate(registered, params)).toEqual({});
    const withSecondConfig = infraEnvParams(infraEnv, 'ps', [nmstate('a', '02:00:00:00:00:01'), nmstate('b', '02:00:00:00:00:02')]);
    expect(Object.keys(infraEnvUpdate(registered, withSecondConfig))).toEqual(['static_network_config']);
  });

  it('refuses an ignition override that is not JSON', () => {
    expect(() => infraEnvParams(object('ie', { ignitionConfigOverride: '{nope' }), 'ps', [])).toThrow(
      /InfraEnv ie: spec.ignitionConfigOverride must be a JSON Ignition config/,
    );
  });

  it('matches label selectors as Kubernetes does', () => {
    expect(labelsMatch({ matchLabels: { env: 'lab' } }, { env: 'lab', x: 'y' })).toBe(true);
    expect(labelsMatch({ matchLabels: { env: 'lab' } }, { env: 'prod' })).toBe(false);
    expect(labelsMatch({ matchExpressions: [{ key: 'env', operator: 'In', values: ['lab', 'dev'] }] }, { env: 'dev' })).toBe(true);
    expect(labelsMatch({ matchExpressions: [{ key: 'env', operator: 'DoesNotExist' }] }, { env: 'dev' })).toBe(false);
    expect(labelsMatch({}, { env: 'lab' })).toBe(false);
  });
});

describe('Agent ↔ host', () => {
  const inventory = JSON.stringify({
    hostname: 'sno-0',
    bmc_address: '0.0.0.0',
    cpu: { count: 8, frequency: 2100.5, architecture: 'x86_64', flags: ['vmx'] },
    memory: { physical_bytes: 17179869184, usable_bytes: 16744599552 },
    interfaces: [
      { name: 'eth0', mac_address: '02:FA:00:00:00:00', ipv4_addresses: ['192.168.126.10/24'], ipv6_addresses: [], has_carrier: true, speed_mbps: -1 },
    ],
    disks: [
      {
        id: '/dev/disk/by-id/wwn-1',
        path: '/dev/sda',
        by_path: '/dev/disk/by-path/pci-0',
        size_bytes: 128849018880,
        installation_eligibility: { eligible: true, not_eligible_reasons: null },
      },
    ],
    system_vendor: { manufacturer: 'Red Hat', product_name: 'KVM', virtual: true },
    timestamp: 1700000000,
  });
  const host = {
    id: 'h',
    status: 'known',
    role: 'auto-assign',
    suggested_role: 'master',
    inventory,
    installation_disk_id: '/dev/disk/by-id/wwn-1',
  } as unknown as Host;

  it("reports the inventory in the Agent's shape", () => {
    expect(agentInventory(host)).toEqual({
      hostname: 'sno-0',
      bmcAddress: '0.0.0.0',
      memory: { physicalBytes: 17179869184, usableBytes: 16744599552 },
      cpu: { count: 8, clockMegahertz: 2100, flags: ['vmx'], architecture: 'x86_64' },
      interfaces: [
        { ipV6Addresses: [], ipV4Addresses: ['192.168.126.10/24'], flags: [], name: 'eth0', hasCarrier: true, macAddress: '02:FA:00:00:00:00', speedMbps: -1 },
      ],
      disks: [
        {
          id: '/dev/disk/by-id/wwn-1',
          path: '/dev/sda',
          byPath: '/dev/disk/by-path/pci-0',
          sizeBytes: 128849018880,
          installationEligibility: { eligible: true, notEligibleReasons: [] },
        },
      ],
      boot: {},
      systemVendor: { productName: 'KVM', manufacturer: 'Red Hat', virtual: true },
    });
  });

  it('sends hostname, role and installation disk (by path too) only when they differ', () => {
    expect(hostUpdate(object('h', { approved: true, role: '' }), host)).toEqual({});
    expect(hostUpdate(object('h', { hostname: 'sno-hub', role: 'master', installation_disk_path: '/dev/disk/by-path/pci-0' }), host)).toEqual({
      host_name: 'sno-hub',
      host_role: 'master',
    });
    expect(hostUpdate(object('h', { role: 'worker', installation_disk_id: '/dev/sdb', nodeLabels: { a: 'b' } }), host)).toEqual({
      host_role: 'worker',
      disks_selected_config: [{ id: '/dev/sdb', role: 'install' }],
      node_labels: [{ key: 'a', value: 'b' }],
    });
  });

  it("gates the agent's readiness on its approval, with upstream's reasons", () => {
    const byType = (conditions: ReturnType<typeof agentConditions>) => Object.fromEntries(conditions.map((c) => [c.type, c.reason]));
    expect(byType(agentConditions({ ...host, cluster_id: 'c' }, false, undefined))).toEqual({
      SpecSynced: 'SyncOK',
      Connected: 'AgentIsConnected',
      RequirementsMet: 'AgentIsNotApproved',
      Validated: 'ValidationsUnknown',
      Installed: 'InstallationNotStarted',
      Bound: 'Bound',
    });
    expect(byType(agentConditions({ ...host, cluster_id: 'c' }, true, undefined)).RequirementsMet).toBe('AgentIsReady');
    expect(byType(agentConditions({ ...host, status: 'installing-in-progress', status_info: 'Writing image to disk' }, true, undefined))).toMatchObject({
      RequirementsMet: 'AgentAlreadyInstalling',
      Installed: 'InstallationInProgress',
      Validated: 'ValidationsPassing',
      Bound: 'Unbound',
    });
    expect(agentConditions({ ...host, status: 'installed', status_info: 'Done' }, true, undefined).find((c) => c.type === 'Installed')).toMatchObject({
      status: 'True',
      message: 'The installation has completed: Done',
    });
    expect(agentConditions({ ...host, status: 'disconnected' }, true, { kind: 'input', message: 'bad' }).slice(0, 2)).toEqual([
      { type: 'SpecSynced', status: 'False', reason: 'InputError', message: 'The Spec could not be synced due to an input error: bad' },
      {
        type: 'Connected',
        status: 'False',
        reason: 'AgentIsDisconnected',
        message: 'The agent has not contacted the installation service in some time, user action should be taken',
      },
    ]);
  });
});

describe('AgentClusterInstall conditions', () => {
  const one = { controlPlane: 1, workers: 0 };
  const reasons = (conditions: ReturnType<typeof clusterInstallConditions>) => conditions.map((c) => `${c.type}=${c.status}/${c.reason}`);

  it('before registration: SpecSynced says why, the rest are NotAvailable', () => {
    expect(reasons(clusterInstallConditions(undefined, one, { registered: 0, unapproved: 0 }, { kind: 'input', message: 'x' }))).toEqual([
      'SpecSynced=False/InputError',
      'Validated=Unknown/NotAvailable',
      'RequirementsMet=Unknown/NotAvailable',
      'Completed=Unknown/NotAvailable',
      'Failed=Unknown/NotAvailable',
      'Stopped=Unknown/NotAvailable',
    ]);
  });

  it('waits for agents, then for their approval, then starts; reports the installation to its end', () => {
    const ready = {
      status: 'ready',
      status_info: 'Cluster ready to be installed',
      validations_info: '{"network":[{"id":"a","status":"success","message":"ok"}]}',
    } as Cluster;
    expect(clusterInstallConditions({ ...ready, status: 'insufficient' }, one, { registered: 0, unapproved: 0 }, undefined)[2]).toMatchObject({
      reason: 'InsufficientAgents',
      message: 'The cluster currently requires 1 agents but only 0 have registered',
    });
    expect(clusterInstallConditions(ready, one, { registered: 1, unapproved: 1 }, undefined)[2]).toMatchObject({
      reason: 'UnapprovedAgents',
      message: 'The installation is pending on the approval of 1 agents',
    });
    expect(clusterInstallConditions(ready, one, { registered: 2, unapproved: 0 }, undefined)[2]).toMatchObject({
      reason: 'AdditionalAgents',
      message: 'The cluster currently requires exactly 1 agents but have 2 registered',
    });
    expect(reasons(clusterInstallConditions(ready, one, { registered: 1, unapproved: 0 }, undefined, true))).toContain('Completed=False/InstallationOnHold');
    expect(shouldStartInstall(ready, one, { registered: 1, unapproved: 1 }, false)).toBe(false);
    expect(shouldStartInstall(ready, one, { registered: 1, unapproved: 0 }, true)).toBe(false);
    expect(shouldStartInstall(ready, one, { registered: 1, unapproved: 0 }, false)).toBe(true);
    expect(shouldStartInstall(ready, { controlPlane: 3, workers: 0 }, { registered: 2, unapproved: 0 }, false)).toBe(false);
    expect(
      reasons(
        clusterInstallConditions({ ...ready, status: 'installing', status_info: 'Installation in progress' }, one, { registered: 1, unapproved: 0 }, undefined),
      ),
    ).toEqual([
      'SpecSynced=True/SyncOK',
      'Validated=True/ValidationsPassing',
      'RequirementsMet=True/ClusterAlreadyInstalling',
      'Completed=False/InstallationInProgress',
      'Failed=False/InstallationNotFailed',
      'Stopped=False/InstallationNotStopped',
    ]);
    expect(
      clusterInstallConditions({ ...ready, status: 'installed', status_info: 'Cluster is installed' }, one, { registered: 1, unapproved: 0 }, undefined).map(
        (c) => c.message,
      ),
    ).toEqual([
      'The Spec has been successfully applied',
      "The cluster's validations are passing",
      'The cluster installation stopped',
      'The installation has completed: Cluster is installed',
      'The installation has not failed',
      'The installation has stopped because it completed successfully',
    ]);
    expect(
      reasons(clusterInstallConditions({ ...ready, status: 'error', status_info: 'timeout' }, one, { registered: 1, unapproved: 0 }, undefined)).slice(3),
    ).toEqual(['Completed=False/InstallationFailed', 'Failed=True/InstallationFailed', 'Stopped=True/InstallationFailed']);
  });

  it('says which validations fail', () => {
    const failing = {
      status: 'insufficient',
      validations_info: '{"network":[{"id":"a","status":"failure","message":"The Machine Network CIDR is undefined"}]}',
    } as Cluster;
    expect(clusterInstallConditions(failing, one, { registered: 1, unapproved: 0 }, undefined)[1]).toMatchObject({
      status: 'False',
      reason: 'ValidationsFailing',
      message: "The cluster's validations are failing: The Machine Network CIDR is undefined",
    });
  });

  it("keeps a condition's transition time while its status holds", () => {
    const before = [{ type: 'ImageCreated', status: 'True' as const, reason: 'ImageCreated', message: 'Image has been created', lastTransitionTime: 'T0' }];
    expect(withTransitionTimes([imageCreatedCondition(undefined, true)], before, 'T1')[0]!.lastTransitionTime).toBe('T0');
    expect(withTransitionTimes([imageCreatedCondition({ kind: 'backend', message: 'down' }, false)], before, 'T1')[0]).toMatchObject({
      status: 'False',
      reason: 'ImageCreationError',
      message: 'Failed to create image: down',
      lastTransitionTime: 'T1',
    });
  });
});

describe('the work queue', () => {
  it('backs off exponentially up to its cap', () => {
    expect([1, 2, 3, 4, 10].map((n) => WorkQueue.backoff(n, 500, 5_000))).toEqual([500, 1_000, 2_000, 4_000, 5_000]);
  });

  it('runs a key added many times once, never twice at once, and again when it changed meanwhile', async () => {
    const runs: string[] = [];
    let active = 0;
    let overlap = false;
    let release: () => void = () => undefined;
    const firstRunBlocked = new Promise<void>((resolve) => (release = resolve));
    let first = true;
    const queue = new WorkQueue(
      async (key) => {
        active += 1;
        if (active > 1) overlap = true;
        runs.push(key);
        if (first) {
          first = false;
          await firstRunBlocked;
        }
        active -= 1;
      },
      { workers: 3 },
    );
    const running = queue.run();
    queue.add('A');
    queue.add('A');
    await new Promise((resolve) => setTimeout(resolve, 20));
    queue.add('A'); // while A runs: once more after it
    queue.add('A');
    release();
    await new Promise((resolve) => setTimeout(resolve, 50));
    queue.stop();
    await running;
    expect(runs).toEqual(['A', 'A']);
    expect(overlap).toBe(false);
  });

  it('retries a failing key after its backoff', async () => {
    let attempts = 0;
    const queue = new WorkQueue(
      async () => {
        attempts += 1;
        if (attempts < 3) throw new Error('service down');
      },
      { baseDelayMs: 10, workers: 1 },
    );
    const running = queue.run();
    queue.add('K');
    const deadline = Date.now() + 2_000;
    while (attempts < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    queue.stop();
    await running;
    expect(attempts).toBe(3);
  });
});

describe('the Lease', () => {
  it('is free once its holder has not renewed it for a whole duration', () => {
    const renewTime = new Date('2026-01-01T00:00:00Z');
    const lease = { spec: { holderIdentity: 'a', leaseDurationSeconds: 15, renewTime } };
    expect(leaseExpired(lease, new Date('2026-01-01T00:00:14Z'))).toBe(false);
    expect(leaseExpired(lease, new Date('2026-01-01T00:00:16Z'))).toBe(true);
    expect(leaseExpired({ spec: {} }, new Date())).toBe(true);
  });
});

describe('hub/ imports', () => {
  it('only contracts/, its own modules and packages', () => {
    const root = path.resolve(import.meta.dirname, '../../hub');
    const outside = sources(root).flatMap((file) =>
      specifiersOf(readFileSync(file, 'utf8'))
        .filter((specifier) => specifier.startsWith('.'))
        .map((specifier) => path.resolve(path.dirname(file), specifier))
        .filter((target) => !target.startsWith(`${root}${path.sep}`) && !target.startsWith(path.resolve(root, '../contracts') + path.sep))
        .map((target) => `${path.relative(root, file)} → ${path.relative(path.resolve(root, '..'), target)}`),
    );
    expect(outside).toEqual([]);
  });
});

describe('a cluster opened for day-2 workers', () => {
  it('still reads as installed', () => {
    const conditions = clusterInstallConditions(
      { status: 'adding-hosts', status_info: 'cluster is adding hosts to existing OCP cluster' } as Cluster,
      { controlPlane: 3, workers: 0 },
      { registered: 4, unapproved: 1 },
      undefined,
    );
    expect(conditions.map((c) => `${c.type}=${c.status}/${c.reason}`)).toEqual([
      'SpecSynced=True/SyncOK',
      'Validated=True/ValidationsPassing',
      'RequirementsMet=True/ClusterInstallationStopped',
      'Completed=True/InstallationCompleted',
      'Failed=False/InstallationNotFailed',
      'Stopped=True/InstallationCompleted',
    ]);
    expect(shouldStartInstall({ status: 'adding-hosts' }, { controlPlane: 3, workers: 0 }, { registered: 4, unapproved: 0 }, false)).toBe(false);
  });
});
