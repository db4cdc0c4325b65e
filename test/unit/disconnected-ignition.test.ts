/**
 * The disconnected ISO's ignition: the installer's input directory an infra-env stands for, the
 * SIMULATED generator's output (valid for ignition-validate, the inputs where the agent-based
 * installer reads them, labelled as simulated), the interactive-UI sentinel, and the generator's
 * selection: a configured openshift-install (here a stand-in script that behaves like one), else
 * the simulated one only when allowed, else a 409 naming what to configure.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUnconfiguredIgnitions } from '../../lambdas/adapters/openshift-install/unconfigured-ignitions.js';
import {
  AGENT_CONFIG,
  APPLIANCE_REGISTRIES_CONF,
  INFRAENV_MANIFEST,
  INTERACTIVE_UI_SENTINEL,
  MIRROR_REGISTRIES,
  NMSTATE_MANIFEST,
  PULL_SECRET_MANIFEST,
  SIMULATED_MARKER_PATH,
  simulatedUnconfiguredIgnition,
  unconfiguredIgnitionInputs,
  withInteractiveUi,
} from '../../lambdas/domain/image/disconnected-ignition.js';
import { DomainError } from '../../lambdas/domain/core/errors.js';
import { PULL_SECRET, sshPublicKey, NETWORK_YAML } from '../support/fixtures.js';

const INFRA_ENV_ID = '7b1b0c4e-3f4a-4d51-9c1e-0a1b2c3d4e5f';
const STATIC_NETWORK = JSON.stringify([{ network_yaml: NETWORK_YAML, mac_interface_map: [{ mac_address: '52:54:00:aa:bb:01', logical_nic_name: 'eth0' }] }]);

let workDir: string;
beforeAll(() => {
  workDir = mkdtempSync(path.join(tmpdir(), 'disconnected-ign-'));
});
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const infraEnv = (attributes: Record<string, unknown> = {}) => ({
  infraEnvId: INFRA_ENV_ID,
  name: 'disconnected-cluster_infra-env',
  pullSecret: PULL_SECRET,
  attributes: { type: 'disconnected-iso' as const, cpu_architecture: 'x86_64' as const, ...attributes },
});

function ignitionValidate(text: string): { status: number | null; output: string } {
  const file = path.join(workDir, `config-${Math.random().toString(36).slice(2)}.ign`);
  writeFileSync(file, text);
  const result = spawnSync('/usr/bin/ignition-validate', [file], { encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() };
}
const decode = (source: string) => (source === 'data:,' ? '' : Buffer.from(source.slice(source.indexOf(',') + 1), 'base64').toString('utf8'));
const filesOf = (text: string): Record<string, { text: string; mode: number }> =>
  Object.fromEntries(
    (JSON.parse(text).storage.files as { path: string; mode: number; contents: { source: string } }[]).map((file) => [
      file.path,
      { text: decode(file.contents.source), mode: file.mode },
    ]),
  );

describe('the installer inputs of a disconnected-iso infra-env', () => {
  it('are the InfraEnv and pull secret manifests and the appliance registries; no agent-config without a rendezvous IP', () => {
    const directory = unconfiguredIgnitionInputs({ infraEnv: infraEnv(), clusterName: 'disconnected-cluster' });
    expect(Object.keys(directory).sort()).toEqual([INFRAENV_MANIFEST, PULL_SECRET_MANIFEST, MIRROR_REGISTRIES].sort());
    expect(YAML.parse(directory[INFRAENV_MANIFEST]!)).toEqual({
      apiVersion: 'agent-install.openshift.io/v1beta1',
      kind: 'InfraEnv',
      metadata: { name: 'disconnected-cluster_infra-env' },
      spec: { pullSecretRef: { name: 'pull-secret' }, cpuArchitecture: 'x86_64' },
    });
    const secret = YAML.parse(directory[PULL_SECRET_MANIFEST]!);
    expect(secret).toMatchObject({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'pull-secret' }, type: 'kubernetes.io/dockerconfigjson' });
    expect(secret.stringData['.dockerconfigjson']).toBe(PULL_SECRET);
    expect(directory[MIRROR_REGISTRIES]).toBe(APPLIANCE_REGISTRIES_CONF);
  });

  it('carry the SSH key, proxy, NTP sources, NMState configuration and the rendezvous IP when set', () => {
    const key = sshPublicKey();
    const directory = unconfiguredIgnitionInputs({
      infraEnv: infraEnv({
        ssh_authorized_key: key,
        proxy: { http_proxy: 'http://proxy.example.com:3128', no_proxy: '.example.com' },
        additional_ntp_sources: 'ntp1.example.com, ntp2.example.com',
        static_network_config: STATIC_NETWORK,
        rendezvous_ip: '192.168.126.10',
      }),
      clusterName: 'disconnected-cluster',
    });
    const spec = YAML.parse(directory[INFRAENV_MANIFEST]!).spec;
    expect(spec).toMatchObject({
      sshAuthorizedKey: key,
      proxy: { httpProxy: 'http://proxy.example.com:3128', httpsProxy: '', noProxy: '.example.com' },
      additionalNTPSources: ['ntp1.example.com', 'ntp2.example.com'],
      nmStateConfigLabelSelector: { matchLabels: { 'agent-install.openshift.io/infraenv-id': INFRA_ENV_ID } },
    });
    expect(YAML.parse(directory[NMSTATE_MANIFEST]!)).toMatchObject({
      kind: 'NMStateConfig',
      metadata: { labels: { 'agent-install.openshift.io/infraenv-id': INFRA_ENV_ID } },
      spec: { interfaces: [{ name: 'eth0', macAddress: '52:54:00:aa:bb:01' }], config: YAML.parse(NETWORK_YAML) },
    });
    expect(YAML.parse(directory[AGENT_CONFIG]!)).toEqual({
      apiVersion: 'v1beta1',
      kind: 'AgentConfig',
      metadata: { name: 'disconnected-cluster' },
      rendezvousIP: '192.168.126.10',
    });
  });
});

describe('the SIMULATED unconfigured ignition', () => {
  it('passes ignition-validate and puts the inputs where the agent-based installer reads them, saying it is simulated', () => {
    const key = sshPublicKey();
    const directory = unconfiguredIgnitionInputs({
      infraEnv: infraEnv({ ssh_authorized_key: key, static_network_config: STATIC_NETWORK, rendezvous_ip: 'fd00::10' }),
      clusterName: 'c1',
    });
    const text = withInteractiveUi(simulatedUnconfiguredIgnition(directory));
    expect(ignitionValidate(text)).toEqual({ status: 0, output: '' });
    const config = JSON.parse(text);
    expect(config.ignition.version).toBe('3.2.0');
    expect(config.passwd.users).toEqual([{ name: 'core', sshAuthorizedKeys: [key] }]);
    const files = filesOf(text);
    expect(files['/etc/assisted/manifests/infraenv.yaml']).toEqual({ text: directory[INFRAENV_MANIFEST], mode: 0o600 });
    expect(files['/etc/assisted/manifests/pull-secret.yaml']).toEqual({ text: directory[PULL_SECRET_MANIFEST], mode: 0o600 });
    expect(files['/etc/assisted/manifests/nmstateconfig.yaml']?.text).toBe(directory[NMSTATE_MANIFEST]);
    expect(files['/etc/containers/registries.conf']?.text).toBe(APPLIANCE_REGISTRIES_CONF);
    expect(files['/etc/assisted/rendezvous-host.env']?.text).toBe('NODE_ZERO_IP=fd00::10\n');
    expect(files[INTERACTIVE_UI_SENTINEL]).toEqual({ text: '', mode: 0o644 });
    expect(files[SIMULATED_MARKER_PATH]?.text).toMatch(/SIMULATED.*does not install OpenShift/s);
    // The static network files, as the discovery image stages them for its boot script.
    expect(Object.keys(files).some((file) => file.startsWith('/etc/assisted/network/'))).toBe(true);
    // The pull secret only in its manifest.
    const credential = JSON.parse(PULL_SECRET).auths['quay.io'].auth as string;
    expect(
      Object.entries(files)
        .filter(([, file]) => file.text.includes(credential))
        .map(([name]) => name),
    ).toEqual(['/etc/assisted/manifests/pull-secret.yaml']);
  });

  it('has no rendezvous host without a rendezvous IP, and the sentinel is added once', () => {
    const text = withInteractiveUi(withInteractiveUi(simulatedUnconfiguredIgnition(unconfiguredIgnitionInputs({ infraEnv: infraEnv(), clusterName: 'c1' }))));
    expect(ignitionValidate(text).status).toBe(0);
    const paths = (JSON.parse(text).storage.files as { path: string }[]).map((file) => file.path);
    expect(paths.filter((p) => p === INTERACTIVE_UI_SENTINEL)).toHaveLength(1);
    expect(paths).not.toContain('/etc/assisted/rendezvous-host.env');
  });
});

describe('choosing the generator', () => {
  const request = () => ({
    directory: unconfiguredIgnitionInputs({ infraEnv: infraEnv({ rendezvous_ip: '10.0.0.5' }), clusterName: 'c1' }),
    openshiftVersion: '4.20.1',
    pullSecret: PULL_SECRET,
  });
  const logs: string[] = [];
  const log = (level: string, message: string) => logs.push(`${level} ${message}`);

  it('runs the configured openshift-install with the inputs in its directory and reads unconfigured-agent.ign', async () => {
    // A stand-in for the binary: answers `version`, and for `agent create unconfigured-ignition --dir D`
    // writes an ignition listing the files it found in D (so the test sees what it was given).
    const fake = path.join(workDir, 'openshift-install');
    writeFileSync(
      fake,
      `#!/bin/sh
if [ "$1" = version ]; then echo "openshift-install 4.20.1-fake"; exit 0; fi
[ "$1 $2 $3 $4" = "agent create unconfigured-ignition --dir" ] || { echo "unexpected: $*" >&2; exit 3; }
cd "$5" && found=$(find . -type f | sort | tr '\\n' ' ')
printf '{"ignition":{"version":"3.2.0"},"storage":{"files":[{"path":"/etc/found","contents":{"source":"data:,%s"}}]}}' "$(echo $found | sed 's/ /%20/g')" > unconfigured-agent.ign
`,
    );
    chmodSync(fake, 0o755);
    const generators = createUnconfiguredIgnitions({ installer: fake, allowSimulated: true, log });
    expect(generators.generator('4.20.1')).toBe('openshift-install');
    const made = await generators.generate(request());
    expect(made).toMatchObject({ generator: 'openshift-install', installerVersion: '4.20.1-fake' });
    expect(decodeURIComponent(JSON.parse(made.ignition).storage.files[0].contents.source.slice('data:,'.length)).split(' ').filter(Boolean)).toEqual([
      './agent-config.yaml',
      './cluster-manifests/infraenv.yaml',
      './cluster-manifests/pull-secret.yaml',
      './mirror/registries.conf',
    ]);
    expect(logs.some((line) => line.includes('agent create unconfigured-ignition'))).toBe(true);
  });

  it("turns the installer's failure into a 409 quoting it, without the pull secret", async () => {
    const failing = path.join(workDir, 'failing-install');
    writeFileSync(
      failing,
      `#!/bin/sh\n[ "$1" = version ] && { echo "openshift-install 4.20.1"; exit 0; }\necho "level=fatal msg=invalid pull secret ${PULL_SECRET.replace(/"/g, '\\"')}" >&2\nexit 1\n`,
    );
    chmodSync(failing, 0o755);
    const error = await createUnconfiguredIgnitions({ installer: failing, allowSimulated: false, log })
      .generate(request())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).kind).toBe('conflict');
    expect((error as DomainError).message).toMatch(/unconfigured-ignition failed.*level=fatal msg=invalid pull secret <redacted pull secret>/);
    expect((error as DomainError).message).not.toContain(PULL_SECRET);
  });

  it('uses the SIMULATED generator only when allowed, and otherwise refuses with 409 naming what to configure', async () => {
    const empty = { PATH: `${workDir}/nothing-here` };
    const saved = process.env.PATH;
    process.env.PATH = empty.PATH;
    try {
      const simulated = createUnconfiguredIgnitions({ allowSimulated: true, log });
      expect(simulated.generator('4.20.1')).toBe('simulated');
      const made = await simulated.generate(request());
      expect(made.generator).toBe('simulated');
      expect(ignitionValidate(made.ignition).status).toBe(0);
      expect(logs.some((line) => line.startsWith('warn SIMULATED unconfigured ignition'))).toBe(true);

      const refused = createUnconfiguredIgnitions({ allowSimulated: false, log });
      expect(() => refused.generator('4.20.1')).toThrow(
        /no openshift-install is configured.*OpenShift 4\.20\.1.*OPENSHIFT_INSTALL.*ALLOW_SIMULATED_INSTALLER=true/,
      );
    } finally {
      process.env.PATH = saved;
    }
  });
});
