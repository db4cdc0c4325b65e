import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { deriveHostId, FAILURE_HOST_ID, md5Uuid } from '../../../agent/src/host-id.js';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A fake /sys: DMI files and network interfaces linked the way the kernel links them. */
function sysfs(options: {
  boardSerial?: string;
  productUuid?: string;
  nics?: { name: string; mac: string; kind?: 'pci' | 'virtual' | 'bond' | 'vlan' }[];
}): string {
  const root = mkdtempSync(path.join(tmpdir(), 'fake-sysfs-'));
  roots.push(root);
  const dmi = path.join(root, 'sys/class/dmi/id');
  mkdirSync(dmi, { recursive: true });
  if (options.boardSerial !== undefined) writeFileSync(path.join(dmi, 'board_serial'), `${options.boardSerial}\n`);
  if (options.productUuid !== undefined) writeFileSync(path.join(dmi, 'product_uuid'), `${options.productUuid}\n`);
  const classNet = path.join(root, 'sys/class/net');
  mkdirSync(classNet, { recursive: true });
  for (const [i, nic] of (options.nics ?? []).entries()) {
    const kind = nic.kind ?? 'pci';
    const device = kind === 'pci' ? `sys/devices/pci0000:00/0000:00:0${i}.0/net/${nic.name}` : `sys/devices/virtual/net/${nic.name}`;
    mkdirSync(path.join(root, device), { recursive: true });
    writeFileSync(path.join(root, device, 'address'), `${nic.mac}\n`);
    if (kind === 'bond') mkdirSync(path.join(root, device, 'bonding'));
    writeFileSync(path.join(root, device, 'uevent'), `INTERFACE=${nic.name}\n${kind === 'vlan' ? 'DEVTYPE=vlan\n' : ''}`);
    symlinkSync(path.relative(classNet, path.join(root, device)), path.join(classNet, nic.name));
  }
  return root;
}

describe('host id derivation (upstream order)', () => {
  it('formats md5 as upstream does: the verified sandbox MAC gives its recorded id', () => {
    expect(md5Uuid('02:fc:00:00:00:01')).toBe('b1f5c5b7-caf8-66bd-addd-439b331f2640');
  });

  it('uses the motherboard serial first', () => {
    const root = sysfs({ boardSerial: 'L1HF02A02SD', productUuid: '0B825DCC-7A3A-4BD4-8A41-9B1B2A3C4D5E', nics: [{ name: 'eth0', mac: '52:54:00:00:00:01' }] });
    expect(deriveHostId({ root })).toEqual({ hostId: md5Uuid('L1HF02A02SD'), source: 'board-serial', from: 'L1HF02A02SD' });
  });

  it.each(['To be filled by O.E.M.', 'Default string', 'None', '-', 'Not Specified', 'Unspecified Base Board Serial Number', '', 'PCA_NUMBER.ACC'])(
    'skips the placeholder serial %j and takes the system UUID, lower-cased',
    (serial) => {
      const root = sysfs({ boardSerial: serial, productUuid: '0B825DCC-7A3A-4BD4-8A41-9B1B2A3C4D5E' });
      expect(deriveHostId({ root })).toMatchObject({ hostId: '0b825dcc-7a3a-4bd4-8a41-9b1b2a3c4d5e', source: 'system-uuid' });
    },
  );

  it.each(['00000000-0000-0000-0000-000000000000', '03000200-0400-0500-0006-000700080009', 'not-a-uuid'])(
    'skips the system UUID %j and hashes the lowest MAC of a physical, bond or VLAN interface',
    (uuid) => {
      const root = sysfs({
        productUuid: uuid,
        nics: [
          { name: 'lo', mac: '00:00:00:00:00:00', kind: 'virtual' },
          { name: 'veth1', mac: '02:00:00:00:00:01', kind: 'virtual' },
          { name: 'eth1', mac: '52:54:00:00:00:09' },
          { name: 'bond0', mac: '52:54:00:00:00:05', kind: 'bond' },
          { name: 'eth0', mac: '52:54:00:00:00:07' },
        ],
      });
      expect(deriveHostId({ root })).toEqual({ hostId: md5Uuid('52:54:00:00:00:05'), source: 'mac', from: '52:54:00:00:00:05 (bond0)' });
    },
  );

  it('counts VLAN interfaces but not bridges or veths', () => {
    const root = sysfs({
      nics: [
        { name: 'br0', mac: '02:00:00:00:00:01', kind: 'virtual' },
        { name: 'eth0.10', mac: '52:54:00:00:00:10', kind: 'vlan' },
        { name: 'eth0', mac: '52:54:00:00:00:11' },
      ],
    });
    expect(deriveHostId({ root }).hostId).toBe(md5Uuid('52:54:00:00:00:10'));
  });

  it('falls back to upstream constant when nothing identifies the host', () => {
    const root = sysfs({ nics: [{ name: 'lo', mac: '00:00:00:00:00:00', kind: 'virtual' }] });
    expect(deriveHostId({ root })).toEqual({ hostId: FAILURE_HOST_ID, source: 'fallback' });
  });

  it('honours --host-id as an override and refuses a non-UUID', () => {
    const root = sysfs({ boardSerial: 'L1HF02A02SD' });
    expect(deriveHostId({ root, override: 'AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE' })).toMatchObject({
      hostId: 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee',
      source: 'override',
    });
    expect(() => deriveHostId({ root, override: 'host-1' })).toThrow(/must be a UUID/);
  });
});
