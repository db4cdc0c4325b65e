/**
 * Hardware host validations (upstream internal/host/validator.go, internal/hardware/validator.go):
 * inventory presence, CPU, memory and disks against the role's minimums, installation disk
 * eligibility and speed, host names, platform and disk-encryption fit. Pure.
 */
import { storedDiskSpeed } from '../inventory.js';
import { diskEncryptionCovers } from '../disk-encryption.js';
import { CLUSTER_DEFAULTS } from '../../catalogues/catalogues.js';
import { diskIdentifier, validDriveTypes } from './host-validations-disks.js';
import {
  disksOf,
  error,
  failure,
  notApplicable,
  outcomeOf,
  pending,
  readJson,
  readStoredJson,
  success,
  type Check,
  type Inventory,
  type PeerHost,
  type ValidationContext,
} from './host-validations-model.js';
import type { HostValidationId } from '../../core/validation-ids.js';

const MIB = 1024 ** 2;
/** VMs often get a little less memory than configured: upstream tolerates 100 MiB less than asked. */
export const MEMORY_TOLERANCE_MIB = 100;

// ---------------------------------------------------------------- formatting (upstream's conversions)

/** Go's conversions.BytesToString: binary units, two decimals from GiB up. */
export function bytesToString(bytes: number): string {
  const units: [number, string][] = [
    [1024 ** 5, 'PiB'],
    [1024 ** 4, 'TiB'],
    [1024 ** 3, 'GiB'],
  ];
  for (const [size, unit] of units) if (bytes >= size) return `${(bytes / size).toFixed(2)} ${unit}`;
  if (bytes >= MIB) return `${Math.floor(bytes / MIB)} MiB`;
  if (bytes >= 1024) return `${Math.floor(bytes / 1024)} KiB`;
  return `${bytes} bytes`;
}

// ---------------------------------------------------------------- checks

const cores = (inventory: Inventory) => inventory.cpu?.count ?? 0;
const physicalBytes = (inventory: Inventory) => inventory.memory?.physical_bytes ?? 0;
const roleName = (ctx: ValidationContext) => ctx.self.role;
const isUnbound = (ctx: ValidationContext) => !ctx.cluster;

const hasInventory: Check = (ctx) => outcomeOf(!!ctx.inventory, 'Valid inventory exists for the host', 'Inventory has not been received for the host');

function truncationReason(truncation: NonNullable<Inventory['truncation']>): string {
  const reasons = truncation.reasons ?? [];
  return `Inventory is truncated (${truncation.type})${reasons.length > 0 ? `: ${reasons.join('; ')}` : ''}`;
}

/** A partially truncated inventory only warns; a fully truncated one blocks the host (the next check). */
const notPartiallyTruncated: Check = ({ inventory }) => {
  if (!inventory) return pending('Missing inventory');
  const truncation = inventory.truncation;
  if (!truncation) return success('Inventory is not truncated');
  if (truncation.type === 'partial') return failure(truncationReason(truncation));
  if (truncation.type === 'full') return success('Inventory is not partially truncated (inventory fully truncated)');
  return error('Unexpected inventory truncation type');
};

const notFullyTruncated: Check = ({ inventory }) => {
  if (!inventory) return pending('Missing inventory');
  const truncation = inventory.truncation;
  if (!truncation) return success('Inventory is not truncated');
  if (truncation.type === 'partial') return success('Inventory is partially truncated');
  if (truncation.type === 'full')
    return failure(`${truncationReason(truncation)}. Reduce the number of disks or interfaces the host reports, or raise the agent's inventory size limit`);
  return error('Unexpected inventory truncation type');
};

const minCpuCores: Check = (ctx) => {
  if (!ctx.inventory) return pending('Missing inventory');
  if (cores(ctx.inventory) >= ctx.minCpuCores) return success('Sufficient CPU cores');
  return failure(
    `The host is not eligible to participate in Openshift Cluster because the minimum required CPU cores for any role is ${ctx.minCpuCores}, found only ${cores(ctx.inventory)}`,
  );
};

const minMemory: Check = (ctx) => {
  if (!ctx.inventory) return pending('Missing inventory');
  // Memory read from /proc/meminfo is the usable part only; allow for the ~2% the firmware keeps.
  const tolerance = MEMORY_TOLERANCE_MIB + (ctx.inventory.memory?.physical_bytes_method === 'meminfo' ? Math.floor(ctx.minRamMib / 50) : 0);
  if (physicalBytes(ctx.inventory) >= (ctx.minRamMib - tolerance) * MIB) return success('Sufficient minimum RAM');
  return failure(
    `The host is not eligible to participate in Openshift Cluster because the minimum required RAM for any role is ${bytesToString(ctx.minRamMib * MIB)}, found only ${bytesToString(physicalBytes(ctx.inventory))}`,
  );
};

const minValidDisks: Check = (ctx) => {
  if (!ctx.inventory) return pending('Missing inventory');
  if (disksOf(ctx.inventory).length === 0) return error('Failed to detected disks');
  if (ctx.eligibleDisks.length > 0) return success('Sufficient disk capacity');
  // Upstream's words: each disk's own reasons are in its installation_eligibility.
  return failure('No eligible disks were found, please check specific disks to see why they are not eligible');
};

/** disks_info entries are keyed by the path the disk speed check was run on; the disk chosen by default counts too. */
const measuredSpeed = (ctx: ValidationContext) => storedDiskSpeed(ctx.attributes, [ctx.installationDisk?.id, ctx.installationDisk?.path]);

/**
 * Disk speed is measured only while preparing an installation, so before any attempt the check
 * passes; a measurement from an earlier attempt that failed fails it. A disk slower than the role's
 * fdatasync threshold passes, as upstream: etcd runs on it, slower, and the reply was warned about
 * (disk_speed_slower_than_supported).
 */
const installationDiskSpeed: Check = (ctx) => {
  // Upstream reads the speed of the stored installation disk; a host without one (no inventory
  // yet, or no eligible disk) is an error to it.
  if (!ctx.attributes.installation_disk_id && !ctx.attributes.installation_disk_path) return error('Validation error');
  const speed = measuredSpeed(ctx);
  if (!speed?.tested) return success('Speed of installation disk has not yet been measured');
  if ((speed.exit_code ?? 0) === 0) return success('Speed of installation disk is sufficient');
  return failure('While preparing the previous installation the installation disk speed measurement failed or was found to be insufficient');
};

const cpuCoresForRole: Check = (ctx) => {
  if (!ctx.inventory) return pending('Missing inventory or role');
  const needed = ctx.requirements.cpuCores;
  if (cores(ctx.inventory) >= needed) return success(`Sufficient CPU cores for role ${roleName(ctx)}`);
  return failure(`Require at least ${needed} CPU cores for ${roleName(ctx)} role, found only ${cores(ctx.inventory)}`);
};

const memoryForRole: Check = (ctx) => {
  if (!ctx.inventory) return pending('Missing inventory or role');
  const needed = ctx.requirements.ramMib * MIB;
  if (physicalBytes(ctx.inventory) >= needed - MEMORY_TOLERANCE_MIB * MIB) return success(`Sufficient RAM for role ${roleName(ctx)}`);
  return failure(`Require at least ${bytesToString(needed)} RAM for role ${roleName(ctx)}, found only ${bytesToString(physicalBytes(ctx.inventory))}`);
};

/** Ids of the hosts with an inventory, by hostname; once per peer list, not once per host. */
const hostnamesByPeers = new WeakMap<readonly PeerHost[], Map<string, string[]>>();
function hostnamesOf(peers: readonly PeerHost[]): Map<string, string[]> {
  let byName = hostnamesByPeers.get(peers);
  if (!byName) {
    byName = new Map();
    for (const peer of peers) {
      if (!peer.inventory) continue;
      const ids = byName.get(peer.hostname);
      if (ids) ids.push(peer.id);
      else byName.set(peer.hostname, [peer.id]);
    }
    hostnamesByPeers.set(peers, byName);
  }
  return byName;
}

const hostnameUnique: Check = (ctx) => {
  if (isUnbound(ctx)) return notApplicable();
  if (!ctx.inventory) return pending('Missing inventory');
  const name = ctx.self.hostname;
  const clash = (hostnamesOf(ctx.clusterHosts).get(name) ?? []).some((id) => id !== ctx.self.id);
  return clash ? failure(`Hostname ${name} is not unique in cluster`) : success(`Hostname ${name} is unique in cluster`);
};

export const HOSTNAME_PATTERN = '^[a-z0-9][a-z0-9-]{0,62}(?:[.][a-z0-9-]{1,63})*$';
const HOSTNAME = new RegExp(HOSTNAME_PATTERN);
const MAX_HOSTNAME_LENGTH = 63;

const hostnameValid: Check = (ctx) => {
  // Upstream fails (not pends) here: without a name the host cannot even be listed in the pool.
  if (!ctx.inventory) return failure('Missing inventory');
  const name = ctx.self.hostname;
  if ((CLUSTER_DEFAULTS.forbiddenHostnames as readonly string[]).includes(name)) return failure(`The host name ${name} is forbidden`);
  if (name.length > MAX_HOSTNAME_LENGTH)
    return failure(`Hostname ${name} is forbidden, it is longer than ${MAX_HOSTNAME_LENGTH} characters: set a shorter host name`);
  if (!HOSTNAME.test(name)) return failure(`Hostname ${name} is forbidden, hostname should match pattern ${HOSTNAME_PATTERN}`);
  return success(`Hostname ${name} is allowed`);
};

const MANUFACTURERS: Readonly<Record<string, string>> = { vsphere: 'VMware, Inc.', nutanix: 'Nutanix', oci: 'OracleCloud.com' };

/** Whether the platform can run this host (upstream's provider IsHostSupported). */
export function platformSupportsHost(platform: string, inventory: Inventory | undefined): boolean {
  const manufacturer = MANUFACTURERS[platform];
  return manufacturer === undefined || inventory?.system_vendor?.manufacturer === manufacturer;
}

const compatibleWithPlatform: Check = (ctx) => {
  const cluster = ctx.cluster;
  if (!cluster) return notApplicable();
  if (!ctx.inventory || cluster.platformType === '') return pending("Missing inventory or platform isn't set");
  const platform = cluster.ociPlatform ? 'oci' : cluster.platformType;
  if (platformSupportsHost(platform, ctx.inventory)) return success(`Host is compatible with cluster platform ${cluster.platformType}`);
  return failure(`Host is not compatible with cluster platform ${cluster.platformType}; either disable this host or discover a new compatible host.`);
};

/** vSphere gives disks a UUID only with disk.EnableUUID set on the VM; without it disks mount unreliably. */
const vsphereDiskUuid: Check = (ctx) => {
  if (!ctx.cluster) return notApplicable('no cluster');
  if (!ctx.inventory || !platformSupportsHost('vsphere', ctx.inventory)) return notApplicable();
  if (!ctx.inventory.disks) return pending('no disks');
  const architecture = ctx.inventory.cpu?.architecture;
  const missing = ctx.eligibleDisks.some((disk) => validDriveTypes(architecture, '').includes(disk.drive_type ?? '') && !disk.has_uuid);
  return missing
    ? failure("VSphere disk.EnableUUID isn't enabled for this virtual machine, it's necessary for disks to be mounted properly")
    : success('VSphere disk.EnableUUID is enabled for this virtual machine');
};

function tangReachable(ctx: ValidationContext): { status: 'success' | 'failure' | 'pending'; message: string } {
  const text = ctx.attributes.tang_connectivity;
  if (typeof text !== 'string' || text === '') return { status: 'pending', message: 'Disk encryption check was not performed yet' };
  // Older agents do not know the step; upstream lets them pass rather than block the host.
  if (text.includes('failed to find action for step')) return { status: 'success', message: '' };
  const response = readJson<{ is_success?: boolean }>(text);
  if (response?.is_success) return { status: 'success', message: 'Tang servers are reachable' };
  return {
    status: 'failure',
    message: 'Could not validate that all Tang servers are reachable and working: check that the host can reach every Tang server URL of the cluster',
  };
}

/** The LUKS settings of a cluster a day-2 host joins, from the ignition it downloaded. */
function day2Luks(ctx: ValidationContext): { tpm2?: boolean; tang?: unknown[] } | undefined | null {
  const response = readStoredJson<{ ignition?: string }>(ctx.attributes, 'api_vip_connectivity');
  const ignition = readJson<{ storage?: { luks?: { clevis?: { tpm2?: boolean; tang?: unknown[] } }[] } }>(response?.ignition);
  if (!ignition) return null;
  const luks = ignition.storage?.luks ?? [];
  return luks.length === 0 ? undefined : (luks[0]!.clevis ?? undefined);
}

const diskEncryption: Check = (ctx) => {
  const cluster = ctx.cluster;
  if (!cluster) return notApplicable();
  const configured = cluster.diskEncryption.enableOn !== 'none' && cluster.diskEncryption.enableOn !== '';
  if (!ctx.day2Host && !configured) return notApplicable();
  const inventory = ctx.inventory;
  if (!inventory) return pending('Missing host inventory');
  const tpm = () => outcomeOf(inventory.tpm_version === '2.0', 'Installation disk can be encrypted using tpmv2', tpmProblem(inventory.tpm_version));
  const tang = () => {
    const reach = tangReachable(ctx);
    return reach.status === 'success' ? success('Installation disk can be encrypted using tang') : { status: reach.status, message: reach.message };
  };
  if (ctx.day2Host) {
    const clevis = day2Luks(ctx);
    if (clevis === null) return configured ? pending('Missing ignition information') : notApplicable();
    if (!clevis) return notApplicable();
    if (clevis.tpm2) return tpm();
    if ((clevis.tang ?? []).length > 0) return tang();
    return failure('Invalid LUKS object in ignition - both TPM2 and Tang are not available');
  }
  const role = ctx.self.role;
  if (role === 'auto-assign') return pending('Missing role assignment');
  if (!diskEncryptionCovers(cluster.diskEncryption.enableOn, role)) return notApplicable();
  return cluster.diskEncryption.mode === 'tang' ? tang() : tpm();
};

function tpmProblem(version: string | undefined): string {
  if (!version || version === 'none') return "TPM version could not be found, make sure TPM is enabled in host's BIOS";
  return `The host's TPM version is not supported, expected-version: 2.0, actual-version: ${version}`;
}

const compatibleAgent: Check = (ctx) => {
  if (!ctx.config.enableUpgradeAgent) return success('Host agent compatibility checking is disabled');
  // Only the service's own image is compatible: a host that never said which agent it runs fails too
  // (and is told to upgrade, see agentNeedsUpgrade), as upstream judges it.
  if (ctx.attributes.discovery_agent_version === ctx.config.agentImage) return success('Host agent is compatible with the service');
  return failure("This host's agent is in the process of being upgraded to a compatible version. This might take a few minutes");
};

const skippedDisks = (ctx: ValidationContext): string[] =>
  String(ctx.attributes.skip_formatting_disks ?? '')
    .split(',')
    .filter((id) => id !== '');

const noSkipInstallationDisk: Check = (ctx) => {
  const installId = ctx.attributes.installation_disk_id;
  if (typeof installId !== 'string' || installId === '' || !skippedDisks(ctx).includes(installId)) {
    return success('No request to skip formatting of the installation disk');
  }
  return failure(
    "Requesting to skip the formatting of the installation disk is not allowed. The installation disk must be formatted. Please either change this host's installation disk or do not skip the formatting of the installation disk",
  );
};

/** A skipped disk that vanished may have come back under a new id, where it would be formatted. */
const noSkipMissingDisk: Check = (ctx) => {
  if (typeof ctx.attributes.inventory !== 'string' || ctx.attributes.inventory === '') return pending('Host inventory not available yet');
  if (!ctx.inventory) return error("Failed to unmarshal this host's inventory");
  const present = new Set(disksOf(ctx.inventory).map(diskIdentifier));
  if (skippedDisks(ctx).every((id) => present.has(id))) return success('All disks that have skipped formatting are present in the host inventory');
  return failure(
    "One or more of the disks that you have requested to skip the formatting of are no longer present on this host. To ensure they haven't just changed their identity, please remove your request to skip their formatting and then if needed add them back using the new ID",
  );
};

export const HARDWARE_CHECKS: Readonly<Partial<Record<HostValidationId, Check>>> = {
  'has-inventory': hasInventory,
  'inventory-not-partially-truncated': notPartiallyTruncated,
  'inventory-not-fully-truncated': notFullyTruncated,
  'has-min-cpu-cores': minCpuCores,
  'has-min-memory': minMemory,
  'has-min-valid-disks': minValidDisks,
  'sufficient-installation-disk-speed': installationDiskSpeed,
  'has-cpu-cores-for-role': cpuCoresForRole,
  'has-memory-for-role': memoryForRole,
  'hostname-unique': hostnameUnique,
  'hostname-valid': hostnameValid,
  'compatible-with-cluster-platform': compatibleWithPlatform,
  'vsphere-disk-uuid-enabled': vsphereDiskUuid,
  'disk-encryption-requirements-satisfied': diskEncryption,
  'compatible-agent': compatibleAgent,
  'no-skip-installation-disk': noSkipInstallationDisk,
  'no-skip-missing-disk': noSkipMissingDisk,
};
