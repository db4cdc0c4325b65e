/**
 * The discovery ignition: every variant must pass Ignition's own validator (the `ignition`
 * package's ignition-validate), carry the agent's settings, keep the pull secret in the one
 * file that needs it, and merge user overrides by Ignition's rules.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PULL_SECRET_PATH,
  TRUST_BUNDLE_PATH,
  discoveryIgnition,
  discoveryIgnitionText,
  type DiscoveryIgnitionInput,
  type IgnitionConfig,
} from '../../lambdas/domain/image/discovery-ignition.js';
import { DomainError } from '../../lambdas/domain/core/errors.js';
import { mergeIgnitionOverride } from '../../lambdas/domain/image/ignition-merge.js';
import { NETWORK_YAML as ONE_NIC_NETWORK_YAML, PULL_SECRET, sshPublicKey } from '../support/fixtures.js';

const IGNITION_VALIDATE = '/usr/bin/ignition-validate';
const INFRA_ENV_ID = '7b1b0c4e-3f4a-4d51-9c1e-0a1b2c3d4e5f';
const AGENT_TOKEN = 'eyJhbGciOiJFUzI1NiJ9.eyJpbmZyYV9lbnZfaWQiOiJ4In0.c2lnbmF0dXJl';
const AGENT_IMAGE = 'quay.io/edge-infrastructure/assisted-installer-agent:latest';
const SERVICE_URL = 'https://assisted.example.com';
/** The one-NIC static network of the fixtures, with a resolver and a default route. */
const NETWORK_YAML = `${ONE_NIC_NETWORK_YAML}dns-resolver:
  config:
    server: [192.168.126.1]
routes:
  config:
    - destination: 0.0.0.0/0
      next-hop-address: 192.168.126.1
      next-hop-interface: eth0
`;

let workDir: string;
let caBundle: string;

beforeAll(() => {
  workDir = mkdtempSync(path.join(tmpdir(), 'discovery-ign-'));
  // A real self-signed CA, as users paste into additional_trust_bundle.
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=Test Proxy CA',
      '-keyout',
      path.join(workDir, 'ca.key'),
      '-out',
      path.join(workDir, 'ca.pem'),
    ],
    { stdio: 'ignore' },
  );
  caBundle = readFileSync(path.join(workDir, 'ca.pem'), 'utf8');
});
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

function input(attributes: Record<string, unknown> = {}, extra: Partial<DiscoveryIgnitionInput> = {}): DiscoveryIgnitionInput {
  return {
    infraEnv: { infraEnvId: INFRA_ENV_ID, pullSecret: PULL_SECRET, attributes: { cpu_architecture: 'x86_64', type: 'full-iso', ...attributes } },
    serviceBaseUrl: SERVICE_URL,
    agentImage: AGENT_IMAGE,
    agentToken: AGENT_TOKEN,
    ...extra,
  };
}

/**
 * The one warning a correct config may draw: users commonly reach HTTPS through an http:// proxy,
 * which Ignition points out but accepts.
 */
const ACCEPTED_WARNING = /^warning at \$\.ignition\.proxy\.httpsProxy.*insecure plaintext HTTP proxy/;

/** Runs ignition-validate on the text; returns its exit status and complaints (empty when clean). */
function ignitionValidate(text: string): { status: number | null; output: string } {
  const file = path.join(workDir, `config-${Math.random().toString(36).slice(2)}.ign`);
  writeFileSync(file, text);
  const result = spawnSync(IGNITION_VALIDATE, [file], { encoding: 'utf8' });
  const complaints = `${result.stdout}${result.stderr}`.split('\n').filter((line) => line.trim() !== '' && !ACCEPTED_WARNING.test(line));
  return { status: result.status, output: complaints.join('\n') };
}

const decode = (source: string): string => {
  const comma = source.indexOf(',');
  const meta = source.slice(0, comma);
  const data = source.slice(comma + 1);
  return meta.endsWith(';base64') ? Buffer.from(data, 'base64').toString('utf8') : decodeURIComponent(data);
};
const fileText = (config: IgnitionConfig, filePath: string) => {
  const found = config.storage.files.find((f) => f.path === filePath);
  return found ? decode(found.contents.source) : undefined;
};
const unit = (config: IgnitionConfig, name: string) => config.systemd.units.find((u) => u.name === name);

describe('discovery ignition', () => {
  const variants: [string, DiscoveryIgnitionInput][] = [
    ['plain', input()],
    ['ssh key', input({ ssh_authorized_key: `${sshPublicKey('a@example.com')}\n${sshPublicKey('b@example.com')}\n` })],
    [
      'proxy',
      input({
        proxy: { http_proxy: 'http://proxy.example.com:3128', https_proxy: 'http://user:p%40ss@proxy.example.com:3128', no_proxy: '.example.com,10.0.0.0/8' },
      }),
    ],
    ['http proxy only', input({ proxy: { http_proxy: 'http://proxy.example.com:3128' } })],
    [
      'CA bundle',
      input({
        get additional_trust_bundle() {
          return caBundle;
        },
      }),
    ],
    [
      'static network',
      input({
        static_network_config: JSON.stringify([
          { network_yaml: NETWORK_YAML, mac_interface_map: [{ mac_address: '52:54:00:aa:bb:01', logical_nic_name: 'eth0' }] },
        ]),
      }),
    ],
    ['NTP sources added', input({ additional_ntp_sources: 'ntp1.example.com, 10.1.2.3' })],
    ['NTP sources replaced', input({ ntp_sources: 'ntp.example.com' })],
    [
      'ignition override 3.1.0',
      input({
        ignition_config_override: JSON.stringify({
          ignition: { version: '3.1.0' },
          storage: { files: [{ path: '/etc/extra.conf', mode: 420, contents: { source: 'data:,hello' } }] },
        }),
      }),
    ],
    [
      'mirror registries',
      input(
        {},
        {
          mirrorRegistries: {
            registriesConf:
              'unqualified-search-registries = ["registry.access.redhat.com"]\n\n[[registry]]\nprefix = ""\nlocation = "quay.io/openshift-release-dev/ocp-release"\nmirror-by-digest-only = true\n\n[[registry.mirror]]\nlocation = "mirror.example.com:5000/ocp/release"\n',
            get caBundle() {
              return caBundle;
            },
          },
        },
      ),
    ],
    [
      'ignition override 3.2.0',
      input({
        ignition_config_override: JSON.stringify({
          ignition: { version: '3.2.0' },
          systemd: { units: [{ name: 'extra.service', enabled: true, contents: '[Service]\nExecStart=/bin/true\n[Install]\nWantedBy=multi-user.target\n' }] },
        }),
      }),
    ],
  ];

  it.each(variants)('%s: passes ignition-validate', (_name, variantInput) => {
    const result = ignitionValidate(discoveryIgnitionText(variantInput));
    expect(result.output).toBe('');
    expect(result.status).toBe(0);
  });

  it('carries the mirror registries of the service and their CA where containers and the trust store read them', () => {
    const text = discoveryIgnitionText(input({}, { mirrorRegistries: { registriesConf: '[[registry]]\nlocation = "quay.io"\n', caBundle } }));
    const files = (JSON.parse(text) as { storage: { files: { path: string; contents: { source: string } }[] } }).storage.files;
    const read = (p: string) => Buffer.from(files.find((f) => f.path === p)!.contents.source.split(',')[1]!, 'base64').toString('utf8');
    expect(read('/etc/containers/registries.conf')).toContain('location = "quay.io"');
    expect(read('/etc/pki/ca-trust/source/anchors/domain.crt')).toBe(caBundle);
    expect(files.some((f) => f.path === '/etc/containers/registries.conf')).toBe(true);
  });

  it('passes ignition-validate with every option at once', () => {
    const everything = input({
      ssh_authorized_key: sshPublicKey(),
      proxy: { http_proxy: 'http://proxy.example.com:3128', https_proxy: 'http://proxy.example.com:3128', no_proxy: 'example.com' },
      additional_trust_bundle: caBundle,
      static_network_config: JSON.stringify([
        { network_yaml: NETWORK_YAML, mac_interface_map: [{ mac_address: '52:54:00:aa:bb:01', logical_nic_name: 'eth0' }] },
      ]),
      additional_ntp_sources: 'ntp.example.com',
      ignition_config_override: JSON.stringify({
        ignition: { version: '3.1.0' },
        passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOverride override@example.com'] }] },
      }),
    });
    const result = ignitionValidate(discoveryIgnitionText(everything));
    expect(result.output).toBe('');
    expect(result.status).toBe(0);
  });

  it("runs the agent image against the service with the agent token, as upstream's agent.service", () => {
    const config = discoveryIgnition(input());
    expect(config.ignition.version).toBe('3.1.0');
    const agent = unit(config, 'agent.service')!;
    expect(agent.enabled).toBe(true);
    const contents = agent.contents!;
    expect(contents).toContain(`Environment=PULL_SECRET_TOKEN=${AGENT_TOKEN}`);
    expect(contents).toContain(
      `ExecStart=/usr/local/bin/agent --url ${SERVICE_URL} --infra-env-id ${INFRA_ENV_ID} --agent-version ${AGENT_IMAGE} --insecure=false`,
    );
    expect(contents).toContain(`ExecStartPre=podman run --pull=never --privileged --rm -v /usr/local/bin:/hostbin ${AGENT_IMAGE} cp /usr/bin/agent /hostbin`);
    expect(contents).toContain(`ExecStartPre=/usr/local/bin/agent-pull-image ${AGENT_IMAGE}`);
    expect(contents).toMatch(/^Restart=always$/m);
    expect(contents).toMatch(/^TimeoutStartSec=600$/m);
    for (const name of ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy'])
      expect(contents).toMatch(new RegExp(`^Environment=${name}=$`, 'm'));
    // Files the unit runs are there.
    expect(fileText(config, '/usr/local/bin/agent-pull-image')).toContain('podman pull');
    expect(fileText(config, '/usr/local/bin/agent-fix-bz1964591')).toContain('podman rmi');
    expect(config.passwd.users).toEqual([]);
    expect(unit(config, 'add-ntp-sources.service')).toBeUndefined();
    expect(unit(config, 'pre-network-manager-config.service')).toBeUndefined();
  });

  it('keeps the pull secret in /root/.docker/config.json only, readable by root only', () => {
    const config = discoveryIgnition(input({ ssh_authorized_key: sshPublicKey() }));
    const secretFiles = config.storage.files.filter((f) => decode(f.contents.source).includes(PULL_SECRET));
    expect(secretFiles.map((f) => f.path)).toEqual([PULL_SECRET_PATH]);
    expect(JSON.parse(fileText(config, PULL_SECRET_PATH)!)).toEqual(JSON.parse(PULL_SECRET));
    expect(secretFiles[0]!.mode).toBe(0o600);
    // Nowhere else in any form: neither in units nor as raw text of the config.
    const text = JSON.stringify(config);
    expect(text).not.toContain(PULL_SECRET);
    expect(config.systemd.units.some((u) => u.contents?.includes('auths'))).toBe(false);
  });

  it('gives user core the SSH keys, one per line', () => {
    const keys = [sshPublicKey('a@example.com'), sshPublicKey('b@example.com')];
    const config = discoveryIgnition(input({ ssh_authorized_key: `${keys[0]}\n\n  ${keys[1]}  \n` }));
    expect(config.passwd.users).toEqual([{ name: 'core', passwordHash: '!', sshAuthorizedKeys: keys, groups: ['sudo'] }]);
  });

  it('sets the proxy for Ignition, the agent and login shells', () => {
    const config = discoveryIgnition(
      input({ proxy: { http_proxy: 'http://proxy:3128', https_proxy: 'http://u:p%40ss@proxy:3128', no_proxy: 'a.example.com, 10.0.0.0/8' } }),
    );
    expect(config.ignition.proxy).toEqual({
      httpProxy: 'http://proxy:3128',
      httpsProxy: 'http://u:p%40ss@proxy:3128',
      noProxy: ['a.example.com', '10.0.0.0/8'],
    });
    const agent = unit(config, 'agent.service')!.contents!;
    expect(agent).toContain('Environment=HTTP_PROXY=http://proxy:3128');
    // systemd would expand a lone % as a specifier.
    expect(agent).toContain('Environment=https_proxy=http://u:p%%40ss@proxy:3128');
    expect(agent).toContain('Environment=NO_PROXY=a.example.com,10.0.0.0/8');
    const profile = fileText(config, '/etc/profile.d/proxy.sh')!;
    expect(profile).toContain('export HTTP_PROXY=http://proxy:3128\nexport http_proxy=http://proxy:3128');
    expect(profile).toContain('export HTTPS_PROXY=http://u:p%40ss@proxy:3128');
    expect(discoveryIgnition(input()).ignition.proxy).toBeUndefined();
  });

  it('installs the additional trust bundle as a CA anchor', () => {
    const config = discoveryIgnition(input({ additional_trust_bundle: caBundle }));
    expect(fileText(config, TRUST_BUNDLE_PATH)).toBe(caBundle);
    expect(config.storage.files.find((f) => f.path === TRUST_BUNDLE_PATH)!.mode).toBe(0o644);
  });

  it('adds NTP sources to chrony before it starts, or replaces them with ntp_sources', () => {
    const added = discoveryIgnition(input({ additional_ntp_sources: 'ntp1.example.com,10.1.2.3' }));
    expect(unit(added, 'add-ntp-sources.service')!.contents).toContain('Before=chronyd.service');
    const script = fileText(added, '/usr/local/bin/add-ntp-sources.sh')!;
    expect(script).toContain('server ntp1.example.com iburst\nserver 10.1.2.3 iburst');
    expect(script).toContain('cat >> /etc/chrony.conf');
    const replaced = fileText(
      discoveryIgnition(input({ ntp_sources: 'ntp.example.com', additional_ntp_sources: 'ignored.example.com' })),
      '/usr/local/bin/add-ntp-sources.sh',
    )!;
    expect(replaced).toContain('cat > /etc/chrony.conf');
    expect(replaced).not.toContain('ignored.example.com');
    // The names end up in a root shell script.
    expect(() => discoveryIgnition(input({ additional_ntp_sources: 'ntp.example.com;reboot' }))).toThrow(DomainError);
  });

  it('stages static network files and their boot script in full ISOs only', () => {
    const attributes = {
      static_network_config: JSON.stringify([
        { network_yaml: NETWORK_YAML, mac_interface_map: [{ mac_address: '52:54:00:aa:bb:01', logical_nic_name: 'eth0' }] },
      ]),
    };
    const full = discoveryIgnition(input(attributes));
    const paths = full.storage.files.map((f) => f.path);
    expect(paths).toContain('/etc/assisted/network/host0/mac_interface.ini');
    expect(paths.some((p) => /^\/etc\/assisted\/network\/host0\/.+\.nmconnection$/.test(p))).toBe(true);
    expect(paths).toContain('/usr/local/bin/pre-network-manager-config.sh');
    expect(full.storage.files.find((f) => f.path.endsWith('mac_interface.ini'))!.mode).toBe(0o600);
    expect(unit(full, 'pre-network-manager-config.service')!.contents).toContain('Before=NetworkManager.service');
    for (const variant of [input({ ...attributes, type: 'minimal-iso' }), input(attributes, { isoType: 'minimal-iso' })]) {
      const minimal = discoveryIgnition(variant);
      expect(minimal.storage.files.some((f) => f.path.startsWith('/etc/assisted/network/'))).toBe(false);
      expect(unit(minimal, 'pre-network-manager-config.service')).toBeUndefined();
    }
  });
});

describe('ignition_config_override merge', () => {
  const base = () => discoveryIgnition(input()) as unknown as Record<string, unknown>;
  const merged = (override: unknown) => mergeIgnitionOverride(base(), JSON.stringify(override)) as unknown as IgnitionConfig;

  it('replaces fields of a file with the same path and keeps the others', () => {
    const config = merged({ ignition: { version: '3.1.0' }, storage: { files: [{ path: '/etc/motd', contents: { source: 'data:,custom%20motd' } }] } });
    const motd = config.storage.files.filter((f) => f.path === '/etc/motd');
    expect(motd).toHaveLength(1);
    expect(motd[0]!.contents.source).toBe('data:,custom%20motd');
    expect(motd[0]!.mode).toBe(0o644);
    expect(config.storage.files.length).toBe((base().storage as { files: unknown[] }).files.length);
  });

  it("merges units by name, appends new ones and takes the override's version", () => {
    const config = merged({
      ignition: { version: '3.2.0' },
      systemd: {
        units: [
          { name: 'agent.service', enabled: false },
          { name: 'extra.service', mask: true },
        ],
      },
    });
    expect(config.ignition.version).toBe('3.2.0');
    const agent = config.systemd.units.find((u) => u.name === 'agent.service')!;
    expect(agent.enabled).toBe(false);
    expect(agent.contents).toContain('PULL_SECRET_TOKEN');
    expect(config.systemd.units.at(-1)).toEqual({ name: 'extra.service', mask: true });
    expect(ignitionValidate(JSON.stringify(config)).status).toBe(0);
  });

  it("lets a link or directory take a file's path, as Ignition merges nodes", () => {
    const config = merged({ ignition: { version: '3.1.0' }, storage: { links: [{ path: '/etc/motd', target: '/dev/null' }] } }) as unknown as {
      storage: { files: { path: string }[]; links: unknown[] };
    };
    expect(config.storage.files.some((f) => f.path === '/etc/motd')).toBe(false);
    expect(config.storage.links).toEqual([{ path: '/etc/motd', target: '/dev/null' }]);
    expect(ignitionValidate(JSON.stringify(config)).status).toBe(0);
  });

  it("keeps each SSH key once and appends the override's", () => {
    const key = sshPublicKey();
    const withKey = discoveryIgnition(input({ ssh_authorized_key: key })) as unknown as Record<string, unknown>;
    const config = mergeIgnitionOverride(
      withKey,
      JSON.stringify({ ignition: { version: '3.1.0' }, passwd: { users: [{ name: 'core', sshAuthorizedKeys: [key, 'ssh-rsa AAAAB3 other'] }] } }),
    ) as unknown as IgnitionConfig;
    expect(config.passwd.users).toEqual([{ name: 'core', passwordHash: '!', sshAuthorizedKeys: [key, 'ssh-rsa AAAAB3 other'], groups: ['sudo'] }]);
  });

  it('refuses overrides it cannot merge with a reason (400)', () => {
    const refusals: [string, RegExp][] = [
      ['not json', /not valid JSON/],
      [JSON.stringify({ ignition: { version: '3.4.0' } }), /version "3\.4\.0".*3\.1\.0 or 3\.2\.0/],
      [JSON.stringify({ ignition: { version: '3.1.0' }, storage: { files: { path: '/x' } } }), /storage\.files must be a list/],
      [
        JSON.stringify({ ignition: { version: '3.1.0' }, systemd: { units: [{ name: 'a.service' }, { name: 'a.service' }] } }),
        /a\.service is defined more than once/,
      ],
    ];
    for (const [override, reason] of refusals) {
      let thrown: unknown;
      try {
        mergeIgnitionOverride(base(), override);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, override).toBeInstanceOf(DomainError);
      expect((thrown as DomainError).kind).toBe('bad-request');
      expect((thrown as DomainError).message).toMatch(reason);
      expect((thrown as DomainError).message).not.toContain(PULL_SECRET);
    }
  });
});
