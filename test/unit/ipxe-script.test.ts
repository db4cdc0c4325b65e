/**
 * iPXE scripts as upstream serves them, the host check that sends installed hosts to their disk,
 * and the tar the static network download is packed in (read back with tar(1)).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Host } from '../../lambdas/domain/core/entities.js';
import { DomainError } from '../../lambdas/domain/core/errors.js';
import { hostsWithMac, ipxeBootRefusal, ipxeBootScript, ipxeRedirectScript } from '../../lambdas/domain/image/ipxe-script.js';
import { tarArchive } from '../../lambdas/domain/image/tar-archive.js';
import type { HostStatus } from '../../lambdas/domain/host/host-states.js';

const ID = '7b1b0c4e-3f4a-4d51-9c1e-0a1b2c3d4e5f';
const IMAGES = 'https://assisted.example.com/api/assisted-images';
const boot = (kernelArguments?: unknown) =>
  ipxeBootScript({
    imageServiceBaseUrl: IMAGES,
    infraEnvId: ID,
    openshiftVersion: '4.18',
    cpuArchitecture: 'x86_64',
    imageToken: 'tok.en.sig',
    kernelArguments,
  });

function host(status: HostStatus, attributes: Record<string, unknown> = {}, mac = '52:54:00:AA:BB:01'): Host {
  return {
    orgId: 'default',
    infraEnvId: ID,
    hostId: `h-${status}-${mac}`,
    status,
    createdAt: '',
    updatedAt: '',
    version: 1,
    attributes: { inventory: JSON.stringify({ interfaces: [{ name: 'eth0', mac_address: mac }] }), ...attributes },
  };
}

describe('iPXE boot script', () => {
  it('loads the infra-env initrd, the kernel and the rootfs from the image service, as upstream', () => {
    expect(boot()).toBe(
      [
        '#!ipxe',
        `initrd --name initrd ${IMAGES}/images/${ID}/pxe-initrd?arch=x86_64&image_token=tok.en.sig&version=4.18`,
        `kernel ${IMAGES}/boot-artifacts/kernel?arch=x86_64&version=4.18 initrd=initrd coreos.live.rootfs_url=${IMAGES}/boot-artifacts/rootfs?arch=x86_64&version=4.18` +
          ' random.trust_cpu=on rd.luks.options=discard ignition.firstboot ignition.platform.id=metal console=tty1 console=ttyS1,115200n8' +
          ' coreos.inst.persistent-kargs="console=tty1 console=ttyS1,115200n8"',
        'boot',
        '',
      ].join('\n'),
    );
  });

  it("appends the infra-env's kernel arguments and refuses other operations", () => {
    const script = boot(
      JSON.stringify([
        { operation: 'append', value: 'rd.net.timeout.carrier=60' },
        { operation: 'append', value: 'ip=dhcp' },
      ]),
    );
    expect(script.split('\n')[2]).toMatch(/ console=ttyS1,115200n8" rd\.net\.timeout\.carrier=60 ip=dhcp$/);
    expect(() => boot(JSON.stringify([{ operation: 'delete', value: 'quiet' }]))).toThrow(DomainError);
  });

  it("chains back with the booting NIC's MAC for boot-order-control", () => {
    expect(ipxeRedirectScript({ serviceBaseUrl: 'https://assisted.example.com', infraEnvId: ID, imageToken: 'tok' })).toBe(
      `#!ipxe\nchain https://assisted.example.com/api/assisted-install/v2/infra-envs/${ID}/downloads/files?file_name=ipxe-script&image_token=tok&mac=\${net0/mac}\n`,
    );
  });
});

describe('iPXE host check', () => {
  it('finds hosts by any NIC MAC, whatever its case or separator', () => {
    const hosts = [host('known'), host('known', {}, '52:54:00:aa:bb:02'), { ...host('discovering'), attributes: { inventory: 'not json' } }];
    expect(hostsWithMac(hosts, '52-54-00-aa-bb-01').map((h) => h.hostId)).toEqual([hosts[0]!.hostId]);
    expect(hostsWithMac(hosts, '52:54:00:ff:ff:ff')).toEqual([]);
  });

  it('sends hosts past writing their disk to the disk, and boots every other host', () => {
    expect(ipxeBootRefusal(host('installed'))).toMatch(/already installed/);
    for (const stage of ['Rebooting', 'Configuring', 'Joined', 'Done', 'Waiting for ignition']) {
      expect(ipxeBootRefusal(host('installing-in-progress', { progress: { current_stage: stage } })), stage).toMatch(stage);
    }
    expect(ipxeBootRefusal(host('installing-in-progress', { progress: { current_stage: 'Writing image to disk' } }))).toBeUndefined();
    for (const status of ['known', 'discovering', 'installing', 'error', 'added-to-existing-cluster'] satisfies HostStatus[])
      expect(ipxeBootRefusal(host(status)), status).toBeUndefined();
  });
});

describe('tar archive', () => {
  it('is read back by tar(1) with paths, modes and contents', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tar-test-'));
    try {
      const long = `/etc/assisted/network/${'h'.repeat(60)}/${'n'.repeat(80)}.nmconnection`;
      const files = [
        { path: '/etc/assisted/network/host0/eth0.nmconnection', contents: '[connection]\nid=eth0\n', mode: 0o600 },
        { path: '/etc/assisted/network/host0/mac_interface.ini', contents: '52:54:00:aa:bb:01=eth0\n', mode: 0o600 },
        { path: long, contents: 'x'.repeat(1000), mode: 0o644 },
      ];
      writeFileSync(path.join(dir, 'a.tar'), tarArchive(files));
      const listing = execFileSync('tar', ['-tvf', path.join(dir, 'a.tar')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
      expect(listing).toMatch(/^-rw------- .*etc\/assisted\/network\/host0\/eth0\.nmconnection$/m);
      execFileSync('tar', ['-xf', path.join(dir, 'a.tar'), '-C', dir], { stdio: 'ignore' });
      for (const file of files) {
        expect(readFileSync(path.join(dir, file.path), 'utf8')).toBe(file.contents);
        expect(statSync(path.join(dir, file.path)).mode & 0o777).toBe(file.mode);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
