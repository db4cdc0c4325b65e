/**
 * The ISO pieces of discovery images, checked against real tools: the embed areas found in a
 * SYNTHETIC base built by xorriso are where isoinfo says the files are; our cpio archives unpack
 * with GNU cpio; kargs areas hold what coreos-installer would write; and the composition plan
 * obeys S3's multipart limits while reading and writing the same few MiB whatever the base size.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSyntheticBaseIso, fileRangeReader } from '../../bin/import-base-iso.js';
import { DomainError } from '../../lambdas/domain/core/errors.js';
import {
  IsoFormatError,
  MAX_PART,
  MIN_PART,
  applyKernelArguments,
  applyPatches,
  kargsAreaBytes,
  planComposition,
  quoteKernelArgument,
  readIsoLayout,
  windowBytes,
  type IsoLayout,
  type Patch,
  type PlannedPart,
} from '../../lambdas/domain/image/iso-image.js';
import {
  ROOTFS_PROXY_DROP_IN_PATH,
  STATIC_NETWORK_HOOK_PATH,
  cpioArchive,
  fillArea,
  ignitionArchive,
  minimalRamdiskFiles,
} from '../../lambdas/domain/image/iso-initrd.js';
import { SYNTHETIC_IGNITION_AREA, SYNTHETIC_KARGS_AREA, SYNTHETIC_RAMDISK_AREA, syntheticDefaultKargs } from '../../lambdas/domain/image/iso-synthetic.js';
import { PRE_NETWORK_SCRIPT_PATH } from '../../lambdas/domain/image/static-network/static-network.js';
import { NETWORK_YAML } from '../support/fixtures.js';

const MiB = 1024 * 1024;

/** isoinfo's listing: ISO9660 path → byte offset and length of its extent. */
function isoinfoExtents(iso: string): Map<string, { offset: number; length: number }> {
  const listing = execFileSync('isoinfo', ['-i', iso, '-l'], { encoding: 'utf8' });
  const extents = new Map<string, { offset: number; length: number }>();
  let directory = '';
  for (const line of listing.split('\n')) {
    const heading = /^Directory listing of (.*)$/.exec(line);
    if (heading) directory = heading[1]!;
    const entry = /^-\S+\s+\d+\s+\d+\s+\d+\s+(\d+)\s.*\[\s*(\d+)\s+\d+\]\s+(\S+)\s*$/.exec(line);
    if (entry) extents.set(`${directory}${entry[3]}`, { offset: Number(entry[2]) * 2048, length: Number(entry[1]) });
  }
  return extents;
}

function unpack(archive: Buffer, into: string): string[] {
  execFileSync('cpio', ['-i', '-d', '--quiet', '--no-absolute-filenames'], { cwd: into, input: gunzipSync(archive) });
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else found.push(path.relative(into, full));
    }
  };
  walk(into);
  return found.sort();
}

function checkPlan(size: number, patches: Patch[], parts: PlannedPart[]): void {
  let cursor = 0;
  for (const [index, part] of parts.entries()) {
    const end = part.kind === 'copy' ? part.end + 1 : part.end;
    expect(part.start).toBe(cursor);
    const length = end - part.start;
    expect(length).toBeGreaterThan(0);
    expect(length).toBeLessThanOrEqual(MAX_PART);
    if (index < parts.length - 1) expect(length).toBeGreaterThanOrEqual(MIN_PART);
    cursor = end;
  }
  expect(cursor).toBe(size);
  for (const patch of patches) {
    const inside = parts.some((part) => part.kind === 'window' && part.start <= patch.offset && patch.offset + patch.bytes.length <= part.end);
    expect(inside, `patch at ${patch.offset} lies in one window`).toBe(true);
  }
}

describe('ISO embed areas of a SYNTHETIC base built by xorriso', () => {
  let work: string;
  const isos: Record<string, { file: string; layout: IsoLayout; bytesRead: number }> = {};

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'iso-image-'));
    for (const type of ['full-iso', 'minimal-iso'] as const) {
      const file = await buildSyntheticBaseIso({ version: '4.18', arch: 'x86_64', type, outFile: path.join(work, `${type}.iso`), sizeBytes: 4 * MiB });
      const reader = fileRangeReader(file);
      try {
        isos[type] = { file, ...(await readIsoLayout(reader.read)) };
      } finally {
        reader.close();
      }
    }
  }, 180_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('finds the Ignition area where isoinfo lists images/ignition.img, reading only the metadata', () => {
    const { file, layout, bytesRead } = isos['full-iso']!;
    expect(layout.ignition).toEqual(isoinfoExtents(file).get('/IMAGES/IGNITION.IMG;1'));
    expect(layout.ignition.length).toBe(SYNTHETIC_IGNITION_AREA);
    expect(layout.volumeId).toBe('SYNTHETIC-4.18-X86_64');
    expect(bytesRead).toBeLessThan(64 * 1024);
  });

  it('finds the kargs areas inside grub.cfg and isolinux.cfg holding the default arguments', () => {
    const { file, layout } = isos['full-iso']!;
    const extents = isoinfoExtents(file);
    const image = readFileSync(file);
    expect(layout.kargs!.defaultArgs).toBe(syntheticDefaultKargs('full-iso', 'SYNTHETIC-4.18-X86_64'));
    expect(layout.kargs!.areas).toHaveLength(2);
    const grub = extents.get('/EFI/REDHAT/GRUB.CFG;1')!;
    const isolinux = extents.get('/ISOLINUX/ISOLINUX.CFG;1')!;
    for (const [area, fileExtent] of [
      [layout.kargs!.areas.find((a) => a.offset < grub.offset + grub.length && a.offset >= grub.offset)!, grub],
      [layout.kargs!.areas.find((a) => a.offset >= isolinux.offset && a.offset < isolinux.offset + isolinux.length)!, isolinux],
    ] as const) {
      expect(area.length).toBe(SYNTHETIC_KARGS_AREA);
      expect(area.offset + area.length).toBeLessThanOrEqual(fileExtent.offset + fileExtent.length);
      const text = image.subarray(area.offset, area.offset + area.length).toString('utf8');
      expect(text).toBe(`${layout.kargs!.defaultArgs}\n`.padEnd(SYNTHETIC_KARGS_AREA, '#'));
    }
  });

  it("finds the minimal ISO's extra ramdisk area by its Rock Ridge name", () => {
    const { file, layout } = isos['minimal-iso']!;
    expect(layout.customRamdisk).toEqual(isoinfoExtents(file).get('/IMAGES/ASSISTED.IMG;1'));
    expect(layout.customRamdisk!.length).toBe(SYNTHETIC_RAMDISK_AREA);
    expect(layout.kargs!.defaultArgs).not.toContain('coreos.liveiso');
  });

  it('refuses what is not an ISO9660 image', async () => {
    const junk = Buffer.alloc(64 * 1024, 7);
    await expect(readIsoLayout(async (start, length) => junk.subarray(start, start + length))).rejects.toBeInstanceOf(IsoFormatError);
  });

  it('refuses an ISO without an Ignition embed area', async () => {
    const tree = path.join(work, 'plain');
    execFileSync('mkdir', ['-p', tree]);
    writeFileSync(path.join(tree, 'readme.txt'), 'not CoreOS\n');
    execFileSync('xorriso', ['-as', 'mkisofs', '-R', '-J', '-o', path.join(work, 'plain.iso'), tree], { stdio: 'ignore' });
    const reader = fileRangeReader(path.join(work, 'plain.iso'));
    try {
      await expect(readIsoLayout(reader.read)).rejects.toThrow(/no Ignition embed area/);
    } finally {
      reader.close();
    }
  });
});

describe('initramfs archives', () => {
  let work: string;
  beforeAll(() => {
    work = mkdtempSync(path.join(tmpdir(), 'iso-initrd-'));
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('writes the Ignition payload as a gzipped newc cpio that GNU cpio unpacks to exactly config.ign', () => {
    const ignition = JSON.stringify({ ignition: { version: '3.1.0' }, storage: { files: [{ path: '/etc/x', contents: { source: 'data:,é' } }] } });
    const into = mkdtempSync(path.join(work, 'ign-'));
    expect(unpack(ignitionArchive(ignition), into)).toEqual(['config.ign']);
    expect(readFileSync(path.join(into, 'config.ign'), 'utf8')).toBe(ignition);
    expect(execFileSync('cpio', ['-t', '--quiet'], { input: gunzipSync(ignitionArchive(ignition)), encoding: 'utf8' })).toBe('config.ign\n');
  });

  it('creates parent directories before files and keeps modes', () => {
    const into = mkdtempSync(path.join(work, 'dirs-'));
    const archive = cpioArchive([
      { path: '/etc/a/b/c.sh', contents: '#!/bin/sh\n', mode: 0o755 },
      { path: 'etc/a/d.conf', contents: 'x', mode: 0o600 },
    ]);
    expect(execFileSync('cpio', ['-t', '--quiet'], { input: archive, encoding: 'utf8' }).split('\n').filter(Boolean)).toEqual([
      'etc',
      'etc/a',
      'etc/a/b',
      'etc/a/b/c.sh',
      'etc/a/d.conf',
    ]);
    execFileSync('cpio', ['-i', '-d', '--quiet'], { cwd: into, input: archive });
    expect(statSync(path.join(into, 'etc/a/b/c.sh')).mode & 0o777).toBe(0o755);
    expect(statSync(path.join(into, 'etc/a/d.conf')).mode & 0o777).toBe(0o600);
  });

  it('zero-pads a payload to its area and refuses one that does not fit', () => {
    const area = fillArea(Buffer.from('abc'), 8, 'x');
    expect([...area]).toEqual([97, 98, 99, 0, 0, 0, 0, 0]);
    expect(() => fillArea(Buffer.alloc(9), 8, 'discovery ignition')).toThrow(DomainError);
  });

  it('puts static network files, their dracut hook and the rootfs proxy in the minimal ramdisk', () => {
    const attributes = {
      static_network_config: JSON.stringify([
        { network_yaml: NETWORK_YAML, mac_interface_map: [{ mac_address: '52:54:00:aa:bb:01', logical_nic_name: 'eth0' }] },
      ]),
      proxy: { http_proxy: 'http://proxy.example.com:3128', no_proxy: 'a.example.com, b.example.com' },
    };
    const files = minimalRamdiskFiles({ attributes });
    const paths = files.map((file) => file.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/etc/assisted/network/host0/eth0.nmconnection',
        '/etc/assisted/network/host0/mac_interface.ini',
        PRE_NETWORK_SCRIPT_PATH,
        STATIC_NETWORK_HOOK_PATH,
        ROOTFS_PROXY_DROP_IN_PATH,
      ]),
    );
    const hook = files.find((file) => file.path === STATIC_NETWORK_HOOK_PATH)!;
    // Run in its own shell: the script ends with `exit`, which would end dracut's initqueue if sourced.
    expect(hook.contents).toContain(`/bin/sh ${PRE_NETWORK_SCRIPT_PATH}`);
    expect(files.find((file) => file.path === ROOTFS_PROXY_DROP_IN_PATH)!.contents).toContain('Environment=NO_PROXY=a.example.com,b.example.com');
    expect(minimalRamdiskFiles({ attributes: {} })).toEqual([]);
  });
});

describe('kernel arguments', () => {
  const area = { offset: 0, length: 64, pad: '#', end: '\n' };

  it('writes the arguments, the end mark and padding, as coreos-installer does', () => {
    expect(kargsAreaBytes('  a=1 b  ', area).toString()).toBe('a=1 b\n'.padEnd(64, '#'));
  });

  it('refuses arguments that do not fit the area (400)', () => {
    expect(() => kargsAreaBytes('x'.repeat(64), area)).toThrow(DomainError);
    expect(kargsAreaBytes('x'.repeat(63), area).toString()).toBe(`${'x'.repeat(63)}\n`);
  });

  it('applies append, delete and replace', () => {
    const base = ['ignition.firstboot', 'console=tty0', 'console=ttyS0', 'quiet'];
    expect(applyKernelArguments(base, [{ operation: 'append', value: 'rd.debug' }])).toEqual([...base, 'rd.debug']);
    expect(applyKernelArguments(base, [{ operation: 'delete', value: 'quiet' }])).toEqual(base.slice(0, 3));
    expect(applyKernelArguments(base, [{ operation: 'delete', value: 'console=tty0' }])).toEqual(['ignition.firstboot', 'console=ttyS0', 'quiet']);
    expect(applyKernelArguments(base, [{ operation: 'replace', value: 'console=ttyS1,115200' }])).toEqual([
      'ignition.firstboot',
      'console=ttyS1,115200',
      'quiet',
    ]);
    expect(applyKernelArguments(base, [{ operation: 'replace', value: 'mitigations=off' }])).toEqual([...base, 'mitigations=off']);
    expect(() => applyKernelArguments(base, [{ operation: 'prepend', value: 'x' }])).toThrow(DomainError);
  });

  it('quotes an argument GRUB would otherwise split', () => {
    expect(quoteKernelArgument('coreos.live.rootfs_url=http://h/r?arch=x86_64&version=4.18')).toBe(
      '"coreos.live.rootfs_url=http://h/r?arch=x86_64&version=4.18"',
    );
    expect(quoteKernelArgument('ip=dhcp')).toBe('ip=dhcp');
  });
});

describe('composition plan', () => {
  const patch = (offset: number, length: number): Patch => ({ offset, bytes: Buffer.alloc(length, 1) });
  const iso = (size: number): Patch[] => [patch(86_016, 262_144), patch(84_145, 1139), patch(size - 300_000, 1139)];

  it.each([
    ['4 MiB', 4 * MiB],
    ['100 MiB', 100 * MiB],
    ['1 GiB', 1024 * MiB],
    ['12 GiB', 12 * 1024 * MiB],
  ])('%s base: parts within S3 limits, every patch in a window', (_name, size) => {
    checkPlan(size, iso(size), planComposition(size, iso(size)));
  });

  it('reads and writes the same bytes for a 100 MiB and a 1 GiB base, under 16 MiB', () => {
    const small = windowBytes(planComposition(100 * MiB, iso(100 * MiB)));
    const large = windowBytes(planComposition(1024 * MiB, iso(1024 * MiB)));
    expect(small).toBe(large);
    expect(2 * large).toBeLessThanOrEqual(16 * MiB);
  });

  it('merges patches closer than a part into one window and copies what lies between far ones', () => {
    const parts = planComposition(200 * MiB, [patch(10 * MiB, 10), patch(12 * MiB, 10), patch(100 * MiB, 10)]);
    checkPlan(200 * MiB, [patch(10 * MiB, 10), patch(12 * MiB, 10), patch(100 * MiB, 10)], parts);
    expect(parts.filter((part) => part.kind === 'window')).toHaveLength(2);
  });

  it('copies everything when nothing changes, and refuses patches outside the base', () => {
    expect(planComposition(50 * MiB, [])).toEqual([{ kind: 'copy', start: 0, end: 50 * MiB - 1 }]);
    expect(() => planComposition(10, [patch(8, 4)])).toThrow(RangeError);
  });

  it('applies patches to the part of a window they cover', () => {
    const window = Buffer.alloc(10, 0x2e);
    const patched = applyPatches(100, window, [
      { offset: 98, bytes: Buffer.from('ABCD') },
      { offset: 108, bytes: Buffer.from('xyz') },
    ]);
    expect(Buffer.from(patched).toString()).toBe('CD......xy');
  });
});
