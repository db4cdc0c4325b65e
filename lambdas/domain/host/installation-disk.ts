/**
 * The installation disk as upstream stores it on the host (its updateInventory, run when an
 * inventory arrives, after a user's host update and after a cluster update): each disk's eligibility
 * judged for the host's effective role, the installation disk kept while still eligible or else the
 * preferred eligible one (none when no disk is eligible), and the disks formatted by default. The
 * host document shows `installation_disk_id`, `installation_disk_path` and `disks_to_be_formatted`
 * from then on, and the SNO install-config names that disk. Pure.
 */
import type { Cluster, Host, InfraEnv } from '../core/entities.js';
import { hardwareMinimums } from '../catalogues/preflight.js';
import { storedInventory, withoutGoEmptyValues, type Inventory, type InventoryDisk } from './inventory.js';
import { byInstallationPreference, diskIdentifier, diskNotEligibleReasons, findDisk, type DiskEligibilityInput } from './validations/host-validations-disks.js';
import { DEFAULT_EDGE_WORKER_PRODUCTS, isEdgeWorker, ocpRoleRequirements, unboundRequirements } from './validations/host-validations-roles.js';
import type { HostRole } from './host-states.js';
import { HOST_UPDATABLE_STATES } from './host.js';

/** Where the disk size requirement comes from: the host's cluster, else its infra-env (an unbound host). */
export interface DiskRequirementSource {
  cluster?: Pick<Cluster, 'attributes'>;
  infraEnv?: Pick<InfraEnv, 'attributes'>;
}

/** Upstream's GetEffectiveRole: an auto-assign host is judged as its suggested role once it has one. */
function effectiveRole(attributes: Readonly<Record<string, unknown>>): HostRole {
  const role = attributes.role as HostRole | undefined;
  const suggested = attributes.suggested_role as HostRole | undefined;
  if ((role === undefined || role === 'auto-assign') && suggested) return suggested;
  return role ?? 'auto-assign';
}

/**
 * The disk size (GB) the host's disks are judged against, and the release they are judged for:
 * a bound host's effective role's (a single node's master gets the SNO minimum, an arbiter its own,
 * anything else the worker's), an unbound host the smallest of any role (upstream's
 * GetClusterHostRequirements and GetInfraEnvHostRequirements).
 */
export function diskRequirement(
  attributes: Readonly<Record<string, unknown>>,
  inventory: Inventory | undefined,
  source: DiskRequirementSource,
): { minDiskSizeGb: number; openshiftVersion: string } {
  if (source.cluster) {
    const openshiftVersion = String(source.cluster.attributes.openshift_version ?? '');
    const minimums = hardwareMinimums(openshiftVersion);
    const singleNode = source.cluster.attributes.control_plane_count === 1;
    const ocp = ocpRoleRequirements(minimums, effectiveRole(attributes), singleNode, isEdgeWorker(inventory, DEFAULT_EDGE_WORKER_PRODUCTS));
    return { minDiskSizeGb: ocp.diskSizeGb, openshiftVersion };
  }
  const openshiftVersion = String(source.infraEnv?.attributes.openshift_version ?? '');
  return { minDiskSizeGb: unboundRequirements(hardwareMinimums(openshiftVersion)).diskSizeGb, openshiftVersion };
}

/**
 * The inventory with each disk's eligibility decided by the service on top of the agent's own
 * reasons (upstream's populateDisksEligibility): the agent's reasons stay, the service's are
 * recomputed (diskNotEligibleReasons).
 */
export function withServiceEligibility(inventory: Inventory, requirement: { minDiskSizeGb: number; openshiftVersion: string }): Inventory {
  if (!inventory.disks) return inventory;
  const input: DiskEligibilityInput = { inventory, ...requirement };
  return { ...inventory, disks: inventory.disks.map((disk) => diskWithServiceEligibility(disk, input)) };
}

function diskWithServiceEligibility(disk: InventoryDisk, input: DiskEligibilityInput): InventoryDisk {
  const reasons = diskNotEligibleReasons(disk, input);
  // Not one of upstream's service reasons (its agent says it), kept so an installation media never qualifies.
  if (disk.is_installation_media) reasons.push('Disk appears to be an installation media');
  const unique = [...new Set(reasons)];
  // Upstream's reasons of an eligible disk are a nil list: Go writes null, which reads as none.
  return { ...disk, installation_eligibility: unique.length === 0 ? { eligible: true } : { eligible: false, not_eligible_reasons: unique } };
}

const isEligible = (disk: InventoryDisk) =>
  disk.installation_eligibility?.eligible === true && (disk.installation_eligibility.not_eligible_reasons?.length ?? 0) === 0;

/**
 * The disks the inventory marks eligible, in upstream's order of installation preference (its
 * ListEligibleDisks): bootable first, then non-NVMe, then by drive type (HDD before SSD), smallest
 * first, then by HCTL.
 */
export function eligibleByPreference(inventory: Inventory): InventoryDisk[] {
  return (inventory.disks ?? []).filter(isEligible).sort(byInstallationPreference);
}

/** Drive types whose disks are never formatted by default (shared or multipath storage). */
const NEVER_FORMATTED = new Set(['FC', 'iSCSI', 'LVM', 'Multipath']);

/**
 * Identifiers of the disks the installation formats by default (upstream's
 * GetDisksToBeFormatted): bootable, not removable (an MMC card counts as removable), not shared
 * or multipath storage, not the installation media. Skipped disks are still listed.
 */
export function disksToBeFormatted(inventory: Inventory): string[] {
  return (inventory.disks ?? [])
    .filter(
      (disk) =>
        disk.bootable &&
        !(disk.removable || (disk.by_path ?? '').includes('mmcblk')) &&
        !NEVER_FORMATTED.has(disk.drive_type ?? '') &&
        !disk.is_installation_media,
    )
    .map(diskIdentifier);
}

/**
 * Stores on `attributes` the inventory judged anew (when `requirement` is given) and what upstream
 * derives from it: the installation disk (the selected one while eligible, else the preferred
 * eligible one) and the disks formatted by default. Empty values are left out, as Go leaves them.
 */
export function storeInventoryAndDisks(
  attributes: Record<string, unknown>,
  inventory: Inventory,
  requirement?: { minDiskSizeGb: number; openshiftVersion: string },
): void {
  const judged = requirement ? withServiceEligibility(inventory, requirement) : inventory;
  attributes.inventory = JSON.stringify(withoutGoEmptyValues(judged));
  const eligible = eligibleByPreference(judged);
  const selected = (attributes.installation_disk_id || attributes.installation_disk_path) as string | undefined;
  const disk = findDisk(eligible, selected) ?? eligible[0];
  if (disk) {
    attributes.installation_disk_id = diskIdentifier(disk);
    attributes.installation_disk_path = `/dev/${disk.name ?? ''}`;
  } else {
    delete attributes.installation_disk_id;
    delete attributes.installation_disk_path;
  }
  const formatted = disksToBeFormatted(judged).join(',');
  if (formatted) attributes.disks_to_be_formatted = formatted;
  else delete attributes.disks_to_be_formatted;
}

/** Upstream refreshes a host's inventory before installation (and while it installs) only. */
const REFRESHED_STATES: ReadonlySet<string> = new Set([...HOST_UPDATABLE_STATES, 'installing-in-progress']);

/**
 * A host's stored inventory judged anew for its role and cluster, with the installation disk and
 * the disks formatted by default that follow (upstream's RefreshInventory, after a host or cluster
 * update). The host itself (the same object) when it has no inventory, is past the states upstream
 * refreshes in, or nothing changed. `judgedAs` is the host whose role the disks are judged for:
 * after a user's update upstream judges them for the role the host had before it (the new role's
 * size applies from the next refresh: the agent's next inventory, a cluster update).
 */
export function withRefreshedInventory(host: Host, source: DiskRequirementSource, judgedAs: Pick<Host, 'attributes'> = host): Host {
  const inventory = REFRESHED_STATES.has(host.status) ? storedInventory(host.attributes) : undefined;
  if (!inventory) return host;
  const next = structuredClone(host);
  storeInventoryAndDisks(next.attributes, inventory, diskRequirement(judgedAs.attributes, inventory, source));
  return JSON.stringify(next.attributes) === JSON.stringify(host.attributes) ? host : next;
}
