import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { applyClusterUpdate, createClusterRecord } from '../../lambdas/domain/cluster/cluster.js';
import type { Params } from '../../contracts/input-checks.js';
import type { Cluster, Host, InfraEnv } from '../../lambdas/domain/core/entities.js';
import type { HostRole } from '../../lambdas/domain/host/host-states.js';
import { DomainError } from '../../lambdas/domain/core/errors.js';
import { consoleEnabled, installConfigOverridesProblem, renderInstallConfig } from '../../lambdas/domain/install/install-config.js';
import { installConfigJson, installConfigYaml } from '../../lambdas/domain/install/install-config-text.js';
import { PULL_SECRET, sshPublicKey } from '../support/fixtures.js';

const SSH_KEY = sshPublicKey();
const NOW = '2026-01-01T00:00:00.000Z';
/** A self-signed test CA (public certificate only). */
const TEST_CA = `-----BEGIN CERTIFICATE-----
MIIBkzCCATmgAwIBAgIUArguRlM8vtUAslQnlOc68CrIFsUwCgYIKoZIzj0EAwIw
HjEcMBoGA1UEAwwTdGVzdC1jYS5leGFtcGxlLmNvbTAgFw0yNjExMjIwMTAxNDJa
GA8yMTI2MTAyOTAxMDE0MlowHjEcMBoGA1UEAwwTdGVzdC1jYS5leGFtcGxlLmNv
bTBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABBz2U7rJPsPsvfTCa0xtztn/4kgx
6S66BBCBhIqvSIAXph7Glpv2OuViFMFI2ZmD2pfB39lJz2uOq7dLA9Fr/dmjUzBR
MB0GA1UdDgQWBBRg6jbV3KZA/pI6B9sGE3PuOTNK+TAfBgNVHSMEGDAWgBRg6jbV
3KZA/pI6B9sGE3PuOTNK+TAPBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMCA0gA
MEUCIFeqYAfMHxbnp7mFkjo+xTWoJriGh9j82g5RDNRdz6+1AiEAwxK9RzOXdfxl
FiXZJiLAMPfg+t4qGrtxz1+2h6iG0HU=
-----END CERTIFICATE-----`;

function cluster(params: Params, version = '4.18.5'): Cluster {
  const record = createClusterRecord(
    { name: 'demo', openshift_version: version, pull_secret: PULL_SECRET, base_dns_domain: 'example.com', ssh_public_key: SSH_KEY, ...params },
    {
      orgId: 'org',
      clusterId: '11111111-1111-4111-8111-111111111111',
      now: NOW,
      release: { openshiftVersion: version, releaseImage: 'quay.io/x', cpuArchitecture: 'x86_64' },
      userName: 'u',
    },
  );
  return { ...record, version: 1 };
}

let hostNumber = 0;
/** A host with a decoy NIC first (not on any machine network) and eth0 on the given addresses. */
function host(name: string, role: HostRole, addresses: { v4?: string[]; v6?: string[]; decoy?: boolean } = {}, extra: Record<string, unknown> = {}): Host {
  hostNumber += 1;
  const mac = `52:54:00:00:00:${hostNumber.toString(16).padStart(2, '0')}`;
  return {
    orgId: 'org',
    infraEnvId: 'ie',
    hostId: `00000000-0000-4000-8000-0000000000${hostNumber.toString().padStart(2, '0')}`,
    clusterId: 'c',
    status: 'known',
    createdAt: NOW,
    updatedAt: NOW,
    version: 1,
    attributes: {
      role,
      inventory: JSON.stringify({
        hostname: name,
        boot: { current_boot_mode: 'uefi' },
        interfaces: [
          ...(addresses.decoy === false ? [] : [{ name: 'eth9', mac_address: '00:00:00:00:00:00', ipv4_addresses: ['10.99.0.1/16'] }]),
          { name: 'eth0', mac_address: mac, ipv4_addresses: addresses.v4 ?? ['192.168.127.10/24'], ipv6_addresses: addresses.v6 ?? [] },
        ],
      }),
      ...extra,
    },
  };
}

const infraEnv = (attributes: Record<string, unknown>): InfraEnv => ({
  orgId: 'org',
  infraEnvId: 'ie',
  name: 'ie',
  createdAt: NOW,
  updatedAt: NOW,
  version: 1,
  pullSecret: PULL_SECRET,
  imageTokenKey: 'k',
  attributes,
});

const HA = () =>
  cluster({ machine_networks: [{ cidr: '192.168.127.0/24' }], api_vips: [{ ip: '192.168.127.100' }], ingress_vips: [{ ip: '192.168.127.101' }] });
const HA_HOSTS = () => [
  host('worker-b', 'worker'),
  host('master-2', 'master'),
  host('worker-a', 'worker'),
  host('master-1', 'master'),
  host('master-0', 'master'),
];

type Doc = Record<string, any>;

describe('renderInstallConfig', () => {
  const cases: {
    name: string;
    cluster: () => Cluster;
    hosts: () => Host[];
    options?: Parameters<typeof renderInstallConfig>[2];
    expected: Doc;
    check?: (doc: Doc) => void;
  }[] = [
    {
      name: 'HA bare metal with VIPs',
      cluster: HA,
      hosts: HA_HOSTS,
      options: { infraEnvs: [infraEnv({ additional_ntp_sources: 'ntp1.example.com, ntp2.example.com' })] },
      expected: {
        apiVersion: 'v1',
        baseDomain: 'example.com',
        networking: {
          networkType: 'OVNKubernetes',
          clusterNetwork: [{ cidr: '10.128.0.0/14', hostPrefix: 23 }],
          machineNetwork: [{ cidr: '192.168.127.0/24' }],
          serviceNetwork: ['172.30.0.0/16'],
        },
        metadata: { name: 'demo' },
        compute: [{ hyperthreading: 'Enabled', name: 'worker', replicas: 2 }],
        controlPlane: { hyperthreading: 'Enabled', name: 'master', replicas: 3 },
        fips: false,
        pullSecret: PULL_SECRET,
        sshKey: SSH_KEY,
      },
      check: (doc) => {
        const baremetal = doc.platform.baremetal;
        expect(baremetal).toMatchObject({
          provisioningNetwork: 'Disabled',
          apiVIPs: ['192.168.127.100'],
          ingressVIPs: ['192.168.127.101'],
          additionalNTPServers: ['ntp1.example.com', 'ntp2.example.com'],
        });
        expect(baremetal.hosts.map((h: Doc) => `${h.role}:${h.name}`)).toEqual([
          'master:master-0',
          'master:master-1',
          'master:master-2',
          'worker:worker-a',
          'worker:worker-b',
        ]);
        // The boot MAC is that of the NIC on the machine network, not the first NIC.
        expect(baremetal.hosts[0]).toEqual({
          name: 'master-0',
          role: 'master',
          bootMACAddress: expect.stringMatching(/^52:54:00/),
          bootMode: 'UEFI',
          bmc: { username: '', password: '', address: '', disableCertificateVerification: false },
          hardwareProfile: '',
        });
        expect(Object.keys(doc)).toEqual([
          'apiVersion',
          'baseDomain',
          'networking',
          'metadata',
          'compute',
          'controlPlane',
          'platform',
          'fips',
          'pullSecret',
          'sshKey',
        ]);
      },
    },
    {
      name: 'single node, platform none',
      cluster: () => cluster({ control_plane_count: 1 }),
      hosts: () => [host('sno', 'master', { v4: ['10.0.5.20/24'], decoy: false }, { bootstrap: true, installation_disk_id: '/dev/disk/by-id/wwn-1' })],
      expected: {
        networking: { networkType: 'OVNKubernetes', machineNetwork: [{ cidr: '10.0.5.0/24' }] },
        compute: [{ name: 'worker', replicas: 0 }],
        controlPlane: { name: 'master', replicas: 1 },
        platform: { none: {} },
        bootstrapInPlace: { installationDisk: '/dev/disk/by-id/wwn-1' },
      },
    },
    {
      name: 'dual-stack',
      cluster: () =>
        cluster({
          cluster_networks: [
            { cidr: '10.128.0.0/14', host_prefix: 23 },
            { cidr: 'fd01::/48', host_prefix: 64 },
          ],
          service_networks: [{ cidr: '172.30.0.0/16' }, { cidr: 'fd02::/112' }],
          machine_networks: [{ cidr: '192.168.127.0/24' }, { cidr: 'fd2e:6f44:5dd8:c956::/64' }],
          api_vips: [{ ip: '192.168.127.100' }, { ip: 'fd2e:6f44:5dd8:c956::100' }],
          ingress_vips: [{ ip: '192.168.127.101' }, { ip: 'fd2e:6f44:5dd8:c956::101' }],
        }),
      hosts: () => [host('m', 'master', { v4: [], v6: ['fd2e:6f44:5dd8:c956::10/64'] })],
      expected: {
        networking: {
          clusterNetwork: [
            { cidr: '10.128.0.0/14', hostPrefix: 23 },
            { cidr: 'fd01::/48', hostPrefix: 64 },
          ],
          machineNetwork: [{ cidr: '192.168.127.0/24' }, { cidr: 'fd2e:6f44:5dd8:c956::/64' }],
          serviceNetwork: ['172.30.0.0/16', 'fd02::/112'],
        },
        platform: { baremetal: { apiVIPs: ['192.168.127.100', 'fd2e:6f44:5dd8:c956::100'], ingressVIPs: ['192.168.127.101', 'fd2e:6f44:5dd8:c956::101'] } },
      },
      check: (doc) => expect(doc.platform.baremetal.hosts[0].bootMACAddress).toMatch(/^52:54:00/),
    },
    {
      name: 'proxy: noProxy gains the cluster domain and every network',
      cluster: () =>
        cluster({ http_proxy: 'http://proxy.example.com:3128', no_proxy: '.corp.example.com,10.0.0.0/8', machine_networks: [{ cidr: '192.168.127.0/24' }] }),
      hosts: () => [],
      expected: {
        proxy: {
          httpProxy: 'http://proxy.example.com:3128',
          noProxy: '.corp.example.com,10.0.0.0/8,.demo.example.com,10.128.0.0/14,172.30.0.0/16,192.168.127.0/24',
        },
        platform: { baremetal: { hosts: [] } },
      },
      check: (doc) => expect(doc.proxy).not.toHaveProperty('httpsProxy'),
    },
    {
      name: 'proxy with no_proxy "*" keeps it alone',
      cluster: () => cluster({ https_proxy: 'http://proxy.example.com:3128', no_proxy: '*' }),
      hosts: () => [],
      expected: { proxy: { httpsProxy: 'http://proxy.example.com:3128', noProxy: '*' } },
    },
    {
      name: 'overrides merge over the generated document',
      cluster: HA,
      hosts: HA_HOSTS,
      options: {
        overrides: JSON.stringify({
          fips: true,
          networking: { networkType: 'OVNKubernetes', clusterNetwork: [{ cidr: '10.132.0.0/14', hostPrefix: 23 }] },
          compute: [{ hyperthreading: 'Disabled' }],
          CONTROLPLANE: { replicas: 3 },
          capabilities: { baselineCapabilitySet: 'None', additionalEnabledCapabilities: ['marketplace'] },
          platform: { baremetal: { apiVIPs: ['192.168.127.110'] } },
        }),
      },
      expected: {
        fips: true,
        networking: {
          networkType: 'OVNKubernetes',
          clusterNetwork: [{ cidr: '10.132.0.0/14', hostPrefix: 23 }],
          machineNetwork: [{ cidr: '192.168.127.0/24' }],
        },
        // List elements merge by index: name and replicas survive.
        compute: [{ hyperthreading: 'Disabled', name: 'worker', replicas: 2 }],
        capabilities: { baselineCapabilitySet: 'None', additionalEnabledCapabilities: ['marketplace'] },
        platform: { baremetal: { apiVIPs: ['192.168.127.110'], ingressVIPs: ['192.168.127.101'], provisioningNetwork: 'Disabled' } },
      },
    },
    {
      name: 'null in overrides clears optional sections',
      cluster: () => cluster({ http_proxy: 'http://proxy.example.com:3128' }),
      hosts: () => [],
      options: { overrides: '{"proxy":null,"sshKey":null,"compute":[]}' },
      expected: { sshKey: SSH_KEY, compute: [] },
      check: (doc) => expect(doc).not.toHaveProperty('proxy'),
    },
    {
      name: 'trust bundles: the overrides first, then the infra-envs',
      cluster: HA,
      hosts: () => [],
      options: { overrides: JSON.stringify({ additionalTrustBundle: TEST_CA }), infraEnvs: [infraEnv({ additional_trust_bundle: `${TEST_CA}\n` })] },
      expected: { additionalTrustBundle: `${TEST_CA}\n${TEST_CA}` },
    },
    {
      name: 'external platform keeps upstream Go field names',
      cluster: () =>
        cluster({ platform: { type: 'external', external: { platform_name: 'oci', cloud_controller_manager: 'External' } }, user_managed_networking: true }),
      hosts: () => [],
      expected: { platform: { external: { PlatformName: 'oci', CloudControllerManager: 'External' } } },
    },
    {
      name: 'network type None is left to the user (empty networkType)',
      cluster: () => cluster({ network_type: 'None' }),
      hosts: () => [],
      expected: { networking: { networkType: '' } },
    },
    {
      name: 'hyperthreading on masters only, registry mirrors',
      cluster: () => cluster({ hyperthreading: 'masters' }),
      hosts: () => [],
      options: { mirrors: [{ source: 'quay.io/openshift-release-dev/ocp-release', mirrors: ['mirror.example.com/ocp/release'] }] },
      expected: {
        compute: [{ hyperthreading: 'Disabled' }],
        controlPlane: { hyperthreading: 'Enabled' },
        imageDigestSources: [{ source: 'quay.io/openshift-release-dev/ocp-release', mirrors: ['mirror.example.com/ocp/release'] }],
      },
    },
    {
      name: 'arbiter on 4.19 is a tech preview',
      cluster: () => cluster({ control_plane_count: 2, machine_networks: [{ cidr: '192.168.127.0/24' }] }, '4.19.3'),
      hosts: () => [host('m0', 'master'), host('m1', 'master'), host('a0', 'arbiter')],
      expected: { controlPlane: { replicas: 2 }, arbiter: { hyperthreading: 'Enabled', name: 'arbiter', replicas: 1 }, featureSet: 'TechPreviewNoUpgrade' },
      check: (doc) => expect(doc.platform.baremetal.hosts.map((h: Doc) => h.role)).toEqual(['master', 'master', 'arbiter']),
    },
  ];

  it.each(cases)('$name', ({ cluster: makeCluster, hosts, options, expected, check }) => {
    const doc = renderInstallConfig(makeCluster(), hosts(), options);
    expect(doc).toMatchObject(expected);
    check?.(doc);
  });

  it('applies the stored overrides by default', () => {
    const base = HA();
    const withOverrides = { ...base, attributes: { ...base.attributes, install_config_overrides: '{"fips":true}' } };
    expect(renderInstallConfig(withOverrides, []).fips).toBe(true);
  });

  it('fences two control-plane nodes with their BMC credentials', () => {
    const credentials = (address: string) => JSON.stringify({ address, username: 'admin', password: 'bmc-pass', certificate_verification: 'Disabled' });
    const doc = renderInstallConfig(cluster({ control_plane_count: 2 }, '4.20.1'), [
      host('m0', 'master', {}, { fencing_credentials: credentials('redfish+https://10.0.0.1/redfish/v1/Systems/1') }),
      host('m1', 'master', {}, { fencing_credentials: credentials('redfish+https://10.0.0.2/redfish/v1/Systems/1') }),
    ]);
    expect(doc.controlPlane).toMatchObject({
      fencing: {
        credentials: [
          { hostname: 'm0', address: expect.stringContaining('10.0.0.1'), username: 'admin', password: 'bmc-pass', certificateVerification: 'Disabled' },
          { hostname: 'm1' },
        ],
      },
    });
    expect(doc.featureSet).toBe('TechPreviewNoUpgrade');
  });

  it('serialises as upstream (Go JSON with HTML-safe escapes) and as equivalent YAML', () => {
    const doc = renderInstallConfig(HA(), HA_HOSTS(), { overrides: JSON.stringify({ featureGates: ['a&b<c>'] }) });
    const json = installConfigJson(doc);
    expect(json).toContain('a\\u0026b\\u003cc\\u003e');
    expect(JSON.parse(json)).toEqual(doc);
    const yaml = installConfigYaml(doc);
    expect(YAML.parse(yaml)).toEqual(doc);
    // Long values (pull secret, SSH key) stay on one line.
    expect(yaml).toContain(`sshKey: ${SSH_KEY}`);
  });

  it('reports stored overrides that no longer apply as a conflict, not a crash', () => {
    const base = HA();
    const broken = { ...base, attributes: { ...base.attributes, install_config_overrides: '{"nope":1}' } };
    expect(() => renderInstallConfig(broken, [])).toThrow(DomainError);
  });
});

describe('installConfigOverridesProblem', () => {
  const refused: [string, string, RegExp][] = [
    ['invalid JSON', '{"fips": tru', /not valid JSON/],
    ['a list instead of an object', '[1,2]', /must be an object, not a list/],
    ['a bare string', '"fips"', /must be an object, not a string/],
    ['unknown top-level key', '{"fipz": true}', /"fipz" is not an install-config field/],
    ['unknown nested key', '{"networking": {"podNetwork": []}}', /"networking.podNetwork"/],
    ['unknown key inside a list element', '{"compute": [{"name": "worker", "platform": {}}]}', /"compute\[0\].platform"/],
    ['wrong scalar type', '{"fips": "yes"}', /"fips" must be a boolean, not a string/],
    ['string where an integer goes', '{"controlPlane": {"replicas": "3"}}', /must be an integer/],
    ['fraction where an integer goes', '{"compute": [{"replicas": 1.5}]}', /must be an integer/],
    ['object where a list goes', '{"networking": {"serviceNetwork": {"cidr": "x"}}}', /must be a list, not an object/],
    ['int32 out of range', '{"platform": {"nutanix": {"prismCentral": {"endpoint": {"port": 4294967296}}}}}', /out of range/],
    [
      'trust bundle that is not a certificate',
      JSON.stringify({ additionalTrustBundle: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----' }),
      /not a valid X.509/,
    ],
    ['trust bundle without PEM', JSON.stringify({ additionalTrustBundle: 'hello' }), /no PEM block/],
  ];

  it.each(refused)('refuses %s', (_name, overrides, reason) => {
    const problem = installConfigOverridesProblem(HA(), HA_HOSTS(), overrides);
    expect(problem).toMatch(reason);
    expect(problem).not.toContain('not-a-real-password');
  });

  it.each([
    ['empty (clears)', ''],
    ['null', 'null'],
    ['an empty object', '{}'],
    ['fips and network type', '{"networking":{"networkType":"OVNKubernetes"},"fips":true}'],
    ['a valid trust bundle', JSON.stringify({ additionalTrustBundle: TEST_CA, additionalTrustBundlePolicy: 'Always' })],
    ['keys in another case', '{"FIPS": true, "Networking": {"NetworkType": "OVNKubernetes"}}'],
    ['fields the service generates (allowed upstream)', JSON.stringify({ pullSecret: PULL_SECRET, baseDomain: 'other.example.com', metadata: { name: 'x' } })],
  ])('accepts %s', (_name, overrides) => {
    expect(installConfigOverridesProblem(HA(), HA_HOSTS(), overrides)).toBeUndefined();
  });

  it('never echoes values, which may be secrets', () => {
    const problem = installConfigOverridesProblem(HA(), [], JSON.stringify({ pullSecret: { auths: 'not-a-real-password' } }));
    expect(problem).toMatch(/"pullSecret" must be a string, not an object/);
    expect(problem).not.toContain('not-a-real-password');
  });

  it('does not change the cluster it checks', () => {
    const base = applyClusterUpdate(HA(), { name: 'renamed' }, NOW);
    const before = structuredClone(base);
    installConfigOverridesProblem(base, HA_HOSTS(), '{"fips":true,"compute":[{"replicas":9}]}');
    renderInstallConfig(base, HA_HOSTS(), { overrides: '{"compute":[{"replicas":9}]}' });
    expect(base).toEqual(before);
  });
});

describe('consoleEnabled', () => {
  it.each([
    ['no overrides', '4.18.5', '', true],
    ['capabilities not touched', '4.18.5', '{"fips":true}', true],
    ['baseline None', '4.18.5', '{"capabilities":{"baselineCapabilitySet":"None"}}', false],
    [
      'baseline None with Console again',
      '4.18.5',
      '{"capabilities":{"baselineCapabilitySet":"None","additionalEnabledCapabilities":["Console","marketplace"]}}',
      true,
    ],
    ['baseline vCurrent', '4.18.5', '{"capabilities":{"baselineCapabilitySet":"vCurrent"}}', true],
    ['before 4.12 capabilities cannot drop it', '4.11.0', '{"capabilities":{"baselineCapabilitySet":"None"}}', true],
  ])('%s', (_name, version, overrides, expected) => {
    expect(consoleEnabled(version, overrides)).toBe(expected);
  });
});
