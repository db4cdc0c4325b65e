/**
 * Installation disk eligibility as the service decides it on top of the agent's own reasons
 * (upstream internal/hardware/validator.go DiskIsEligible, ListEligibleDisks): size for the role,
 * drive type for the architecture and release, multipath and iSCSI rules, and the order in which
 * upstream prefers eligible disks. Pure.
 */
import { isAtLeast } from '../../core/ocp-version.js';
import { defaultRoute, disksOf, interfaceIps, parseIp, type Inventory, type InventoryDisk } from './host-validations-model.js';
import { compareText } from '../../core/compare.js';

const GB = 1000 ** 3;

/** Decimal units rounded up to the thousandth, so a disk is never reported larger than it is short. */
function preciseBytes(bytes: number): string {
  const units: [number, string][] = [
    [1e12, 'TB'],
    [1e9, 'GB'],
    [1e6, 'MB'],
    [1e3, 'KB'],
  ];
  for (const [size, unit] of units) {
    if (bytes >= size) return `${String(Math.ceil((bytes / size) * 1000) / 1000)} ${unit}`;
  }
  return `${bytes} B`;
}

/** Reasons the service (not the agent) gives; they are recomputed here, so stored ones are dropped. */
const SERVICE_REASONS = [
  /^Disk is too small/,
  /^Drive type is /,
  /^Multipath device has path/,
  /^Multipath device has paths of different types/,
  /^Disk is a member of multipath device/,
  /^iSCSI host IP .* is the same as host IP/,
  /^Installation on multipath device is not possible/,
  /^Host IP address is not available$/,
  /^Cannot find the network interface behind the default route$/,
  /^Cannot parse iSCSI host IP/,
];

export interface DiskEligibilityInput {
  inventory: Inventory;
  /** The role's total disk size requirement. */
  minDiskSizeGb: number;
  /** The cluster's (or infra-env's) release; RAID and iSCSI depend on it. */
  openshiftVersion: string;
}

const atLeast = (version: string, threshold: string) => {
  try {
    return isAtLeast(version, threshold);
  } catch {
    return false;
  }
};

/** Drive types RHCOS can install to on this architecture and release (upstream's getValidDeviceStorageTypes). */
export function validDriveTypes(architecture: string | undefined, openshiftVersion: string): string[] {
  const types = ['HDD', 'SSD', 'Multipath'];
  if (atLeast(openshiftVersion, '4.14.0')) types.push('RAID');
  if (atLeast(openshiftVersion, '4.15.0')) types.push('iSCSI');
  if (architecture === 's390x') types.push('FC', 'ECKD (ESE)', 'ECKD', 'FBA');
  if (architecture === 'x86_64') types.push('FC');
  return types;
}

const holdersOf = (disks: readonly InventoryDisk[], holder: InventoryDisk) =>
  disks.filter((disk) => holder.name !== undefined && (disk.holders ?? '').includes(holder.name));

/** iSCSI must not use the NIC behind the default route: that traffic would compete with the boot disk. */
function iscsiNetworkProblem(disk: InventoryDisk, inventory: Inventory): string | undefined {
  const hostIp = disk.iscsi?.host_ip_address;
  if (!hostIp) return 'Host IP address is not available';
  const ip = parseIp(hostIp);
  if (!ip) return `Cannot parse iSCSI host IP ${hostIp}`;
  const route = defaultRoute(inventory, ip.family);
  if (!route) return undefined;
  const nic = (inventory.interfaces ?? []).find((candidate) => candidate.name === route.interface);
  if (!nic) return 'Cannot find the network interface behind the default route';
  return interfaceIps(nic, ip.family).some((address) => address.value === ip.value)
    ? `iSCSI host IP ${ip.text} is the same as host IP, they must be different`
    : undefined;
}

/** Why a disk cannot be the installation disk; empty when it can (upstream's DiskIsEligible). */
export function diskNotEligibleReasons(disk: InventoryDisk, input: DiskEligibilityInput): string[] {
  const { inventory } = input;
  const reasons = (disk.installation_eligibility?.not_eligible_reasons ?? []).filter((reason) => !SERVICE_REASONS.some((re) => re.test(reason)));
  const minBytes = input.minDiskSizeGb * GB;
  const size = disk.size_bytes ?? 0;
  if (size < minBytes) {
    let has = preciseBytes(size);
    const required = preciseBytes(minBytes);
    if (has === required) has = `${has} (short by ${preciseBytes(minBytes - size)})`;
    reasons.push(`Disk is too small (disk only has ${has}, but ${required} are required)`);
  }
  const architecture = inventory.cpu?.architecture;
  const valid = validDriveTypes(architecture, input.openshiftVersion);
  if (!valid.includes(disk.drive_type ?? '')) reasons.push(`Drive type is ${disk.drive_type ?? 'Unknown'}, it must be one of ${valid.join(', ')}.`);
  const disks = disksOf(inventory);
  if ((disk.drive_type === 'FC' || disk.drive_type === 'iSCSI') && disk.holders) {
    const multipath = disk.holders.split(',').find((holder) => disks.some((d) => d.drive_type === 'Multipath' && d.name === holder));
    if (multipath) reasons.push(`Disk is a member of multipath device ${multipath} and is not eligible for installation. Use the multipath device instead.`);
  }
  if (disk.drive_type === 'Multipath') {
    const paths = holdersOf(disks, disk);
    const fc = paths.filter((d) => d.drive_type === 'FC');
    const iscsi = paths.filter((d) => d.drive_type === 'iSCSI');
    if (fc.length === 0 && iscsi.length === 0) return [...reasons, 'Multipath device has path of unsupported type. It must be FC, iSCSI'];
    if ((fc.length > 0 && fc.length !== paths.length) || (iscsi.length > 0 && iscsi.length !== paths.length)) {
      reasons.push('Multipath device has paths of different types, but they must all be the same type');
    }
    if (iscsi.some((d) => !valid.includes('iSCSI') || iscsiNetworkProblem(d, inventory))) {
      reasons.push('Installation on multipath device is not possible due to errors on at least one iSCSI disk');
    }
  }
  if (disk.drive_type === 'iSCSI') {
    const problem = iscsiNetworkProblem(disk, inventory);
    if (problem) reasons.push(problem);
  }
  return reasons;
}

export const isNvme = (disk: InventoryDisk) => (disk.name ?? '').startsWith('nvme');

/**
 * Eligible disks in upstream's order of installation preference: bootable first, then non-NVMe
 * (fast drives are left for workloads), HDD before SSD, smallest first, then physical order.
 */
export function eligibleDisks(input: DiskEligibilityInput): InventoryDisk[] {
  const eligible = disksOf(input.inventory).filter((disk) => diskNotEligibleReasons(disk, input).length === 0);
  return eligible.sort(byInstallationPreference);
}

/** Upstream's order of preference among eligible installation disks: bootable, not NVMe, drive type, smallest, HCTL. */
export function byInstallationPreference(a: InventoryDisk, b: InventoryDisk): number {
  return (
    Number(!!b.bootable) - Number(!!a.bootable) ||
    Number(isNvme(a)) - Number(isNvme(b)) ||
    compareText(a.drive_type ?? '', b.drive_type ?? '') ||
    (a.size_bytes ?? 0) - (b.size_bytes ?? 0) ||
    compareText(a.hctl ?? '', b.hctl ?? '')
  );
}

/** A disk named by installation_disk_id/path: its by-id, by-path or /dev/<name> (upstream's GetDiskByInstallationPath). */
export function findDisk(disks: readonly InventoryDisk[], reference: string | undefined): InventoryDisk | undefined {
  if (!reference) return undefined;
  return disks.find(
    (disk) => disk.id === reference || disk.by_path === reference || disk.path === reference || (disk.name && `/dev/${disk.name}` === reference),
  );
}

/** The disk's identifier for skip-formatting lists (upstream's GetDeviceIdentifier). */
export const diskIdentifier = (disk: InventoryDisk) => disk.id || `/dev/${disk.name ?? ''}`;
