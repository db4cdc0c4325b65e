/**
 * The initramfs pieces a discovery image carries: the Ignition embed payload (a gzipped newc cpio
 * holding `config.ign`, zero-padded to the embed area, as coreos-installer and upstream's image
 * service write it) and the minimal ISO's extra ramdisk (the static network files and a dracut
 * hook that installs them, plus the proxy for fetching the rootfs). The kernel unpacks any
 * concatenation of such archives, so the same bytes serve ISOs and the iPXE initrd. Pure.
 */
import { gzipSync } from 'node:zlib';
import type { InfraEnv, InfraEnvAttributes } from '../core/entities.js';
import { generatedStaticNetworkFiles, proxyOf, staticNetworkEntries, systemdLiteral } from './discovery-ignition.js';
import { badRequest } from '../core/errors.js';
import { PRE_NETWORK_SCRIPT_PATH } from './static-network/static-network.js';

export const IGNITION_CPIO_NAME = 'config.ign';
/** Where dracut's initqueue looks for jobs to run once udev has settled (upstream's hook name). */
export const STATIC_NETWORK_HOOK_PATH = '/usr/lib/dracut/hooks/initqueue/settled/90-assisted-pre-static-network-config.sh';
export const ROOTFS_PROXY_DROP_IN_PATH = '/etc/systemd/system/coreos-livepxe-rootfs.service.d/10-proxy.conf';

export interface CpioFile {
  path: string;
  contents: string | Uint8Array;
  mode: number;
}

const hex8 = (value: number) => value.toString(16).padStart(8, '0');
const pad4 = (length: number) => (4 - (length % 4)) % 4;

function newcEntry(name: string, mode: number, data: Uint8Array, ino: number, nlink: number): Buffer {
  const nameBytes = Buffer.from(`${name}\0`, 'utf8');
  // Fields: ino mode uid gid nlink mtime filesize devmajor devminor rdevmajor rdevminor namesize check.
  // mtime 0 keeps the archive (and so the image hash) a function of the contents alone.
  const header = `070701${[ino, mode, 0, 0, nlink, 0, data.length, 0, 0, 0, 0, nameBytes.length, 0].map(hex8).join('')}`;
  const headerBytes = Buffer.from(header, 'ascii');
  return Buffer.concat([headerBytes, nameBytes, Buffer.alloc(pad4(headerBytes.length + nameBytes.length)), Buffer.from(data), Buffer.alloc(pad4(data.length))]);
}

/**
 * A newc ("070701") cpio archive of regular files, each preceded by its parent directories:
 * the kernel's initramfs unpacker creates no missing directories itself.
 */
export function cpioArchive(files: readonly CpioFile[]): Buffer {
  const entries: Buffer[] = [];
  const directories = new Set<string>();
  let ino = 1;
  for (const file of files) {
    const path = file.path.replace(/^\/+/, '');
    if (path === '' || path.split('/').some((part) => part === '' || part === '.' || part === '..')) throw new Error(`cpio: bad path ${file.path}`);
    const parts = path.split('/');
    for (let depth = 1; depth < parts.length; depth++) {
      const directory = parts.slice(0, depth).join('/');
      if (directories.has(directory)) continue;
      directories.add(directory);
      entries.push(newcEntry(directory, 0o040755, new Uint8Array(0), ino++, 2));
    }
    const data = typeof file.contents === 'string' ? Buffer.from(file.contents, 'utf8') : file.contents;
    entries.push(newcEntry(path, 0o100000 | (file.mode & 0o7777), data, ino++, 1));
  }
  entries.push(newcEntry('TRAILER!!!', 0, new Uint8Array(0), 0, 1));
  return Buffer.concat(entries);
}

/** A compressed initramfs archive of the files (gzip; the kernel and coreos-installer read it). */
export function initrdArchive(files: readonly CpioFile[]): Buffer {
  return gzipSync(cpioArchive(files), { level: 9 });
}

/** The Ignition embed payload: the config as `config.ign` in a gzipped cpio. */
export function ignitionArchive(ignitionText: string, extraFiles: readonly CpioFile[] = []): Buffer {
  return initrdArchive([{ path: IGNITION_CPIO_NAME, contents: ignitionText, mode: 0o644 }, ...extraFiles]);
}

/** `payload` zero-padded to fill an embed area; refuses what does not fit. */
export function fillArea(payload: Uint8Array, areaLength: number, what: string): Buffer {
  if (payload.length > areaLength) {
    throw badRequest(
      `the ${what} (${payload.length} bytes compressed) does not fit the base ISO's ${areaLength}-byte embed area; make the infra-env's configuration smaller`,
    );
  }
  const area = Buffer.alloc(areaLength);
  area.set(payload, 0);
  return area;
}

/**
 * Sourced by dracut's initqueue, possibly on every pass: it runs the boot script in its own shell
 * (whose `exit` must not end the initqueue) and only once per boot.
 */
const STATIC_NETWORK_HOOK = `#!/bin/sh
# Installs the static network configuration for this machine before NetworkManager starts in the initramfs.
if [ ! -e /run/assisted-static-network.done ]; then
  /bin/sh ${PRE_NETWORK_SCRIPT_PATH}
  : > /run/assisted-static-network.done
fi
`;

function proxyDropIn(attributes: InfraEnvAttributes): string | undefined {
  const { httpProxy: http, httpsProxy: https, noProxy } = proxyOf(attributes);
  if (!http && !https) return undefined;
  const lines = ['[Service]'];
  for (const [name, value] of [
    ['HTTP_PROXY', http],
    ['HTTPS_PROXY', https],
    ['NO_PROXY', noProxy],
  ] as const) {
    lines.push(`Environment=${name}=${systemdLiteral(value)}`, `Environment=${name.toLowerCase()}=${systemdLiteral(value)}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The files of the minimal ISO's (and iPXE boot's) extra ramdisk: the static network host files
 * and boot script, run by a dracut hook, and the proxy the initramfs fetches the rootfs through.
 * Empty when the infra-env has neither (upstream's minimal-initrd then answers 204).
 */
export function minimalRamdiskFiles(infraEnv: Pick<InfraEnv, 'attributes'>): CpioFile[] {
  const files: CpioFile[] = [];
  const network = generatedStaticNetworkFiles(staticNetworkEntries(infraEnv.attributes));
  if (network.length > 0) {
    for (const file of network) files.push({ path: file.path, contents: file.contents, mode: file.mode });
    files.push({ path: STATIC_NETWORK_HOOK_PATH, contents: STATIC_NETWORK_HOOK, mode: 0o755 });
  }
  const dropIn = proxyDropIn(infraEnv.attributes);
  if (dropIn) files.push({ path: ROOTFS_PROXY_DROP_IN_PATH, contents: dropIn, mode: 0o644 });
  return files;
}

/** The minimal ramdisk as a compressed archive, or undefined when there is nothing to put in it. */
export function minimalRamdisk(infraEnv: Pick<InfraEnv, 'attributes'>): Buffer | undefined {
  const files = minimalRamdiskFiles(infraEnv);
  return files.length > 0 ? initrdArchive(files) : undefined;
}
