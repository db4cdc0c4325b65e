import { createPrivateKey, X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createIngressCa } from '../../../agent/src/controller/ingress-ca.js';
import {
  controllerStages,
  expectedStages,
  FINALIZING_STAGES,
  HOST_STAGES,
  installerStages,
  installFlow,
  parseCoreosInstallerProgress,
  parseInstallCmdRequest,
  parseInstallerArgs,
  WriteProgressTracker,
} from '../../../agent/src/installer/index.js';
import { VALID_REQUEST } from './fake-service.js';

// assisted-service internal/host/host.go, as quoted in shared/reference/assisted-agent.md §6.1.
const SERVICE_EXPECTS = {
  bootstrap: [
    'Starting installation',
    'Installing',
    'Writing image to disk',
    'Waiting for control plane',
    'Waiting for bootkube',
    'Waiting for controller',
    'Rebooting',
    'Configuring',
    'Joined',
    'Done',
  ],
  master: ['Starting installation', 'Installing', 'Writing image to disk', 'Rebooting', 'Configuring', 'Joined', 'Done'],
  worker: [
    'Starting installation',
    'Installing',
    'Writing image to disk',
    'Waiting for control plane',
    'Rebooting',
    'Waiting for ignition',
    'Configuring',
    'Joined',
    'Done',
  ],
  sno: ['Starting installation', 'Installing', 'Waiting for bootkube', 'Writing image to disk', 'Rebooting', 'Done'],
} as const;

describe('stage lists', () => {
  it('installer + controller stages are exactly what the service expects per role', () => {
    for (const flow of ['bootstrap', 'master', 'worker', 'sno'] as const) {
      expect(expectedStages(flow)).toEqual(SERVICE_EXPECTS[flow]);
      expect([...installerStages(flow), ...controllerStages(flow)]).toEqual(SERVICE_EXPECTS[flow]);
      expect(installerStages(flow).at(-1)).toBe('Rebooting');
    }
    expect(HOST_STAGES).toHaveLength(13);
    expect(FINALIZING_STAGES[0]).toBe('Waiting for cluster operators');
    expect(FINALIZING_STAGES.at(-1)).toBe('Done');
  });

  it('maps request roles to install flows', () => {
    expect(installFlow('bootstrap', 3)).toBe('bootstrap');
    expect(installFlow('bootstrap', 1)).toBe('sno');
    expect(installFlow('master', 1)).toBe('sno');
    expect(installFlow('master', 3)).toBe('master');
    expect(installFlow('arbiter', 2)).toBe('master');
    expect(installFlow('worker', 1)).toBe('worker');
  });
});

describe('coreos-installer progress', () => {
  it('reads the percentage of a progress line', () => {
    expect(parseCoreosInstallerProgress('Read disk 168.9 MiB/3.4 GiB (4%)')).toBe(4);
    expect(parseCoreosInstallerProgress('Read disk 3.4 GiB/3.4 GiB (100%)  ')).toBe(100);
    expect(parseCoreosInstallerProgress('Installing Red Hat Enterprise Linux CoreOS 416.94 (Ootpa) x86_64 (512-byte sectors)')).toBeUndefined();
    expect(parseCoreosInstallerProgress('Writing Ignition config')).toBeUndefined();
    expect(parseCoreosInstallerProgress('weird (250%)')).toBeUndefined();
  });

  it('reports in steps of at least 5 points and 100 once, across arbitrary chunks and \\r redraws', () => {
    const reported: number[] = [];
    const tracker = new WriteProgressTracker((percent) => reported.push(percent));
    const output = Array.from({ length: 101 }, (_, percent) => `Read disk ${percent * 34} MiB/3.4 GiB (${percent}%)`).join('\r');
    for (let offset = 0; offset < output.length; offset += 17) tracker.push(output.slice(offset, offset + 17));
    tracker.end();
    expect(reported).toEqual([5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60, 65, 70, 75, 80, 85, 90, 95, 100]);

    const uneven: number[] = [];
    const second = new WriteProgressTracker((percent) => uneven.push(percent));
    second.push('Read disk (4%)\nRead disk (9%)\nRead disk (13%)\nRead disk (14%)\nRead disk (98%)\nRead disk (100%)\nRead disk (100%)\n');
    expect(uneven).toEqual([9, 14, 98, 100]);
    for (let i = 1; i < uneven.length; i++) expect(uneven[i]! - uneven[i - 1]! >= 5 || uneven[i] === 100).toBe(true);
  });
});

describe('installer args allow-list', () => {
  it('accepts the allowed flags and plain values', () => {
    const parsed = parseInstallerArgs(
      '["--append-karg","console=ttyS0,115200n8","--delete-karg","rhgb","--copy-network","--network-dir","/etc/NetworkManager/system-connections/","--save-partlabel","data*","--image-url","https://mirror.example.com/rhcos.raw.gz"]',
    );
    expect(parsed).toMatchObject({ ok: true });
    expect(parseInstallerArgs(undefined)).toEqual({ ok: true, args: [] });
    expect(parseInstallerArgs('')).toEqual({ ok: true, args: [] });
  });

  it('refuses other flags, shell characters and non-arrays', () => {
    expect(parseInstallerArgs('["--ignition-url","http://evil.example.com/x.ign"]')).toMatchObject({
      ok: false,
      error: expect.stringContaining('unexpected flag --ignition-url'),
    });
    expect(parseInstallerArgs('["--append-karg","a b"]')).toMatchObject({ ok: false, error: expect.stringContaining('unexpected chars') });
    expect(parseInstallerArgs('["--append-karg","x&&reboot"]')).toMatchObject({ ok: false });
    expect(parseInstallerArgs('["--append-karg","$(id)|sh"]')).toMatchObject({ ok: false });
    expect(parseInstallerArgs('"--append-karg"')).toMatchObject({ ok: false, error: expect.stringContaining('JSON array') });
    expect(parseInstallerArgs('[1,2]')).toMatchObject({ ok: false });
    expect(parseInstallerArgs('[')).toMatchObject({ ok: false, error: expect.stringContaining('not valid JSON') });
  });
});

describe('InstallCmdRequest validation', () => {
  it('accepts a complete upstream request and parses installer_args', () => {
    const parsed = parseInstallCmdRequest(JSON.stringify(VALID_REQUEST));
    expect(parsed.ok).toBe(true);
    if (parsed.ok) {
      expect(parsed.request.installerArgs).toEqual([
        '--append-karg',
        'ip=192.0.2.2::192.0.2.254:255.255.255.0:core0.example.com:enp1s0:none',
        '--save-partindex',
        '1',
        '-n',
      ]);
      expect(parsed.request.disks_to_format).toEqual(['/dev/sdb']);
    }
  });

  it.each([
    ['not JSON', '{', 'not valid JSON'],
    ['an array', '[]', 'must be a JSON object'],
    ['no boot device', JSON.stringify({ ...VALID_REQUEST, boot_device: undefined }), 'boot_device is required'],
    ['no installer image', JSON.stringify({ ...VALID_REQUEST, installer_image: '' }), 'installer_image is required'],
    ['a bad host id', JSON.stringify({ ...VALID_REQUEST, host_id: 'host-1' }), 'host_id "host-1" is not a UUID'],
    ['an unknown role', JSON.stringify({ ...VALID_REQUEST, role: 'king' }), 'role "king"'],
    ['auto-assign', JSON.stringify({ ...VALID_REQUEST, role: 'auto-assign' }), 'auto-assign'],
    ['a boot device outside /dev', JSON.stringify({ ...VALID_REQUEST, boot_device: '/tmp/disk' }), 'should start with /dev/'],
    ['a disallowed installer flag', JSON.stringify({ ...VALID_REQUEST, installer_args: '["--console","ttyS0"]' }), 'unexpected flag --console'],
    ['an https proxy', JSON.stringify({ ...VALID_REQUEST, proxy: { https_proxy: 'https://proxy:3128' } }), 'only http://'],
    ['a bad must-gather operator', JSON.stringify({ ...VALID_REQUEST, must_gather_image: '{"foo":"quay.io/x/y:1"}' }), 'operator name foo'],
    ['a bad OpenShift version', JSON.stringify({ ...VALID_REQUEST, openshift_version: 'four' }), 'Failed to parse OCP version'],
    ['a bad image reference', JSON.stringify({ ...VALID_REQUEST, controller_image: 'Not An Image' }), 'controller_image'],
  ])('refuses %s', (_name, raw, message) => {
    const parsed = parseInstallCmdRequest(raw);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toContain(message);
  });
});

describe('ingress CA', () => {
  it('is a real self-signed CA certificate', async () => {
    const ca = await createIngressCa(new Date('2026-01-02T03:04:05Z'));
    const certificate = new X509Certificate(ca.certificatePem);
    expect(certificate.ca).toBe(true);
    expect(certificate.subject).toBe('CN=ingress-operator@1767323045');
    expect(certificate.issuer).toBe(certificate.subject);
    expect(certificate.verify(certificate.publicKey)).toBe(true);
    expect(certificate.checkPrivateKey(createPrivateKey(ca.privateKeyPem))).toBe(true);
  });
});
