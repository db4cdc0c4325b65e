/**
 * Disks as upstream reports them: the device list from /sys/block, attributes from lsblk and sysfs,
 * stable names from /dev/disk/by-id and by-path, and the agent's share of installation eligibility
 * (the service adds size and drive-type reasons itself).
 */
import { basename } from 'node:path';
import { LSBLK_COLUMNS, parseLsblk, type BlockDevice } from './parse-lsblk.js';
import { optional, type InventoryProbe } from './probe.js';

export type DriveType = 'Unknown' | 'HDD' | 'FDD' | 'ODD' | 'SSD' | 'virtual' | 'Multipath' | 'iSCSI' | 'FC' | 'LVM' | 'RAID' | 'ECKD' | 'ECKD (ESE)' | 'FBA';

export interface Disk {
  id: string;
  name: string;
  path: string;
  by_id?: string;
  by_path?: string;
  drive_type: DriveType;
  size_bytes: number;
  serial?: string;
  vendor?: string;
  model?: string;
  wwn?: string;
  hctl?: string;
  bootable: boolean;
  removable: boolean;
  smart: string;
  is_installation_media: boolean;
  installation_eligibility: { eligible: boolean; not_eligible_reasons: string[] };
  holders?: string;
}

export const REASON_UNKNOWN_CONTROLLER = 'Disk has unknown storage controller';
export const REASON_LVM = 'Disk is an LVM logical volume';
export const REASON_ISO = 'Disk appears to be an ISO installation media (has partition with mountpoint suffix iso)';
export const REASON_ISCSI_STATE_UNREADABLE = 'Failed to read state of iSCSI disk';
export const REASON_ISCSI_NOT_RUNNING = 'iSCSI disk is not in running state';
export const mountedReason = (partition: string, mountpoint: string) => `Disk has partition '${partition}' mounted on '${mountpoint}'`;

/** Name prefixes of the controllers upstream knows; any other disk is "unknown storage controller". */
const KNOWN_CONTROLLER_PREFIXES = ['sd', 'sr', 'hd', 'vd', 'nvme', 'mmcblk', 'xvd'];
const SKIPPED_PREFIXES = ['loop', 'zram', 'ram', 'nbd'];

interface Mount {
  readonly device: string;
  readonly mountpoint: string;
}

/** lsblk by kernel name, at any depth (partitions and holders included). */
function indexDevices(devices: readonly BlockDevice[], into = new Map<string, BlockDevice>()): Map<string, BlockDevice> {
  for (const device of devices) {
    if (!into.has(device.name)) into.set(device.name, device);
    indexDevices(device.children, into);
  }
  return into;
}

/** Mounts of a device and everything stacked on it (partitions, LVM volumes, crypt). */
function mountsBelow(device: BlockDevice): Mount[] {
  return [...device.mountpoints.map((mountpoint) => ({ device: device.name, mountpoint })), ...device.children.flatMap(mountsBelow)];
}

/** /proc/mounts as a stand-in for lsblk's mountpoints: device name → mountpoints. */
function procMounts(text: string | undefined): Map<string, string[]> {
  const mounts = new Map<string, string[]>();
  for (const line of text?.split('\n') ?? []) {
    const [source, target] = line.split(' ');
    if (!source?.startsWith('/dev/') || !target) continue;
    const name = basename(source);
    // /proc/mounts escapes spaces and tabs as octal.
    const mountpoint = target.replace(/\\(\d{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
    mounts.set(name, [...(mounts.get(name) ?? []), mountpoint]);
  }
  return mounts;
}

/** Symlinks of a /dev/disk/by-* directory grouped by the device name they point at. */
async function linksByDevice(probe: InventoryProbe, directory: string): Promise<Map<string, string[]>> {
  const byDevice = new Map<string, string[]>();
  for (const entry of await probe.files.list(directory)) {
    const target = await probe.files.link(`${directory}/${entry}`);
    if (!target) continue;
    const device = basename(target);
    byDevice.set(device, [...(byDevice.get(device) ?? []), `${directory}/${entry}`]);
  }
  return byDevice;
}

const shortest = (paths: readonly string[]) => [...paths].sort((a, b) => a.length - b.length || a.localeCompare(b))[0];

const MBR_SIGNATURE_OFFSET = 510;

/** A DOS/MBR boot sector signature (GPT disks carry one in their protective MBR too). */
async function hasBootSector(probe: InventoryProbe, path: string): Promise<boolean> {
  const sector = await probe.files.head(path, 512);
  return !!sector && sector.length === 512 && sector[MBR_SIGNATURE_OFFSET] === 0x55 && sector[MBR_SIGNATURE_OFFSET + 1] === 0xaa;
}

async function driveTypeOf(
  probe: InventoryProbe,
  name: string,
  lsblk: BlockDevice | undefined,
  dmKind: 'Multipath' | 'LVM' | undefined,
  byPath: string | undefined,
  rotational: boolean | undefined,
): Promise<DriveType> {
  if (dmKind) return dmKind;
  if (lsblk?.type === 'rom' || name.startsWith('sr')) return 'ODD';
  if (name.startsWith('fd')) return 'FDD';
  if (name.startsWith('md')) return 'RAID';
  if (name.startsWith('dasd')) {
    const discipline = await probe.files.value(`/sys/block/${name}/device/discipline`);
    if (discipline === 'FBA') return 'FBA';
    return (await probe.files.value(`/sys/block/${name}/device/ese`)) === '1' ? 'ECKD (ESE)' : 'ECKD';
  }
  if (byPath?.includes('-iscsi-')) return 'iSCSI';
  if (byPath?.includes('-fc-')) return 'FC';
  if (rotational === undefined) return 'Unknown';
  return rotational ? 'HDD' : 'SSD';
}

export async function collectDisks(probe: InventoryProbe): Promise<Disk[]> {
  const lsblkOutput = await probe.tool('lsblk', ['-J', '-b', '-o', LSBLK_COLUMNS], 'disk attributes come from sysfs and mounts from /proc/mounts');
  let lsblkTree: BlockDevice[] = [];
  if (lsblkOutput !== undefined) {
    try {
      lsblkTree = parseLsblk(lsblkOutput);
    } catch (error) {
      probe.warnOnce('lsblk-parse', 'lsblk output could not be read; disk attributes come from sysfs', { error: String(error) });
    }
  }
  const lsblk = indexDevices(lsblkTree);
  const mounts = lsblkOutput === undefined ? procMounts(await probe.files.text('/proc/mounts')) : undefined;

  let names = await probe.files.list('/sys/block');
  if (names.length === 0) {
    probe.warnOnce('sysfs-block', '/sys/block is not readable; disks are listed from lsblk only');
    names = lsblkTree.map((device) => device.name);
  }
  const [byId, byPath] = await Promise.all([linksByDevice(probe, '/dev/disk/by-id'), linksByDevice(probe, '/dev/disk/by-path')]);
  const byPathOwners = new Map<string, number>();
  for (const [device, paths] of byPath) {
    if (!names.includes(device)) continue;
    const chosen = shortest(paths);
    if (chosen) byPathOwners.set(chosen, (byPathOwners.get(chosen) ?? 0) + 1);
  }

  const disks: Disk[] = [];
  for (const name of names) {
    if (SKIPPED_PREFIXES.some((prefix) => name.startsWith(prefix))) continue;
    const sys = `/sys/block/${name}`;
    if ((await probe.files.value(`${sys}/hidden`)) === '1') continue;
    let dmKind: 'Multipath' | 'LVM' | undefined;
    if (name.startsWith('dm-')) {
      const uuid = (await probe.files.value(`${sys}/dm/uuid`)) ?? '';
      if (uuid.startsWith('mpath-')) dmKind = 'Multipath';
      else if (uuid.startsWith('LVM-')) dmKind = 'LVM';
      else continue;
    }
    const device = lsblk.get(name);
    const sectors = Number((await probe.files.value(`${sys}/size`)) ?? NaN);
    const sizeBytes = device?.sizeBytes ?? (Number.isFinite(sectors) ? sectors * 512 : 0);
    const sysRemovable = await probe.files.value(`${sys}/removable`);
    const sysRotational = await probe.files.value(`${sys}/queue/rotational`);
    const rotational = sysRotational !== undefined ? sysRotational === '1' : device?.rotational;
    const hctl = (await probe.files.list(`${sys}/device/scsi_device`))[0] ?? device?.hctl;
    const idLinks = (byId.get(name) ?? []).filter((link) => /\/(wwn-|nvme-eui\.)/.test(link)).sort();
    const pathLink = shortest((byPath.get(name) ?? []).filter((link) => !/-part\d+$/.test(link)));
    // Two disks behind one bus path (multipath) make it meaningless as an identity.
    const uniquePath = pathLink && (byPathOwners.get(pathLink) ?? 0) <= 1 ? pathLink : undefined;
    const path = device?.path ?? `/dev/${name}`;
    const driveType = await driveTypeOf(probe, name, device, dmKind, uniquePath, rotational);
    const holders = (await probe.files.list(`${sys}/holders`)).join(',');

    const reasons: string[] = [];
    let installationMedia = driveType === 'ODD';
    const applianceDisk = device?.children.some((child) => child.partlabel?.startsWith('agent')) ?? false;
    if (!applianceDisk) {
      const exempt = dmKind !== undefined || name.startsWith('md') || name.startsWith('dasd');
      if (!exempt && !KNOWN_CONTROLLER_PREFIXES.some((prefix) => name.startsWith(prefix))) reasons.push(REASON_UNKNOWN_CONTROLLER);
      if (dmKind === 'LVM') reasons.push(REASON_LVM);
      if (driveType === 'iSCSI') {
        const state = await probe.files.value(`${sys}/device/state`);
        if (state === undefined) reasons.push(REASON_ISCSI_STATE_UNREADABLE);
        else if (state !== 'running') reasons.push(REASON_ISCSI_NOT_RUNNING);
      }
      const diskMounts: Mount[] = device
        ? mountsBelow(device)
        : [...(mounts ?? [])]
            .filter(([mounted]) => mounted === name || new RegExp(`^${name}p?\\d+$`).test(mounted))
            .flatMap(([mounted, points]) => points.map((mountpoint) => ({ device: mounted, mountpoint })));
      for (const mount of diskMounts) {
        if (mount.mountpoint.endsWith('iso')) {
          installationMedia = true;
          if (!reasons.includes(REASON_ISO)) reasons.push(REASON_ISO);
        } else if (!mount.mountpoint.startsWith('[')) {
          // "[SWAP]" is how lsblk shows active swap: not a mount, and swap is fine to overwrite at install time.
          reasons.push(mountedReason(mount.device, mount.mountpoint));
        }
      }
    }

    const byIdLink = idLinks[0];
    disks.push({
      id: byIdLink ?? uniquePath ?? path,
      name,
      path,
      ...(byIdLink ? { by_id: byIdLink } : {}),
      ...(uniquePath ? { by_path: uniquePath } : {}),
      drive_type: driveType,
      size_bytes: sizeBytes,
      ...optional('serial', device?.serial ?? (await probe.files.value(`${sys}/device/serial`))),
      ...optional('vendor', (await probe.files.value(`${sys}/device/vendor`)) ?? device?.vendor),
      ...optional('model', (await probe.files.value(`${sys}/device/model`)) ?? device?.model),
      ...optional('wwn', device?.wwn ?? (await probe.files.value(`${sys}/device/wwid`))),
      ...optional('hctl', hctl),
      bootable: await hasBootSector(probe, path),
      removable: sysRemovable !== undefined ? sysRemovable === '1' : (device?.removable ?? false),
      smart: '',
      is_installation_media: installationMedia,
      installation_eligibility: { eligible: reasons.length === 0, not_eligible_reasons: reasons },
      ...(holders ? { holders } : {}),
    });
  }
  return disks;
}
