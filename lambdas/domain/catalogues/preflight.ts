/**
 * Hardware minimums per host role and OpenShift version, and the `preflight-hardware-requirements`
 * document built from them: what a cluster's hosts need before any host has been discovered.
 * Pure: the data lives in catalogues/hardware-requirements.json and catalogues/operators.json.
 */
import hardwareData from './hardware-requirements.json' with { type: 'json' };
import { operatorDependencies, operatorRequirements, supportedOperatorNames, type HostTypeRequirements } from './catalogues.js';
import type { ClusterAttributes } from '../core/entities.js';
import { compareBaseVersions, parseBaseVersion } from '../core/ocp-version.js';

export const HARDWARE_ROLES = ['master', 'arbiter', 'worker', 'sno', 'edge-worker'] as const;
export type HardwareRole = (typeof HARDWARE_ROLES)[number];

/** One role's minimums; the two network thresholds are absent for roles that have none (sno). */
export interface RoleMinimums {
  cpu_cores?: number;
  ram_mib?: number;
  disk_size_gb?: number;
  installation_disk_speed_threshold_ms?: number;
  network_latency_threshold_ms?: number;
  packet_loss_percentage?: number;
}

export interface HardwareRequirementsEntry extends Partial<Record<HardwareRole, RoleMinimums>> {
  /** "default", an exact release ("4.18.3") or, with match_type min_version, the lowest release it applies to. */
  version: string;
  /** "min_version", else the entry is exact. */
  match_type?: string;
}

export const HARDWARE_REQUIREMENTS: HardwareRequirementsEntry[] = hardwareData.versions;

/** Roles the data may leave out take the worker's minimums, as upstream does. */
function withFallbacks(entry: HardwareRequirementsEntry): Record<HardwareRole, RoleMinimums> {
  const worker = entry.worker ?? {};
  return {
    master: { ...entry.master },
    arbiter: { ...(entry.arbiter ?? worker) },
    worker: { ...worker },
    sno: { ...entry.sno },
    'edge-worker': { ...(entry['edge-worker'] ?? worker) },
  };
}

/** A partial entry's roles replace the default's field by field. */
function overDefault(entry: HardwareRequirementsEntry, defaults: Record<HardwareRole, RoleMinimums>): Record<HardwareRole, RoleMinimums> {
  const merged = (role: HardwareRole): RoleMinimums => ({ ...defaults[role], ...entry[role] });
  return { master: merged('master'), arbiter: merged('arbiter'), worker: merged('worker'), sno: merged('sno'), 'edge-worker': merged('edge-worker') };
}

/**
 * The minimums for an OpenShift version: an exact entry for the version string wins, then the
 * highest min_version entry not above it, then "default".
 */
export function hardwareMinimums(openshiftVersion: string, entries: HardwareRequirementsEntry[] = HARDWARE_REQUIREMENTS): Record<HardwareRole, RoleMinimums> {
  const defaultEntry = entries.find((e) => e.version === 'default' && e.match_type !== 'min_version');
  if (!defaultEntry) throw new Error('hardware requirements hold no "default" entry');
  const defaults = withFallbacks(defaultEntry);
  const exact = entries.find((e) => e.match_type !== 'min_version' && e.version !== 'default' && e.version === openshiftVersion);
  if (exact) return overDefault(exact, defaults);
  if (parseBaseVersion(openshiftVersion)) {
    const applicable = entries
      .filter((e) => e.match_type === 'min_version' && parseBaseVersion(e.version) && compareBaseVersions(openshiftVersion, e.version) >= 0)
      .sort((a, b) => compareBaseVersions(a.version, b.version));
    const highest = applicable.at(-1);
    if (highest) return overDefault(highest, defaults);
  }
  return defaults;
}

// ---------------------------------------------------------------- the API document

/** `cluster-host-requirements-details`: zero counts are left out, as upstream's encoder does. */
export interface RequirementDetails {
  cpu_cores?: number;
  disk_size_gb?: number;
  installation_disk_speed_threshold_ms?: number;
  network_latency_threshold_ms?: number;
  packet_loss_percentage?: number;
  ram_mib?: number;
  tpm_enabled_in_bios?: boolean;
}
export interface HostTypeHardwareRequirements {
  quantitative: RequirementDetails;
  /** Absent when the requirement states none (upstream's null); an operator may state an empty list. */
  qualitative?: string[];
}
export interface PreflightHardwareRequirements {
  operators: { operator_name: string; dependencies: string[]; requirements: { master: HostTypeHardwareRequirements; worker: HostTypeHardwareRequirements } }[];
  ocp: { master: HostTypeHardwareRequirements; worker: HostTypeHardwareRequirements };
}

/** What the document depends on, taken from the cluster's attributes. */
export interface PreflightCluster {
  openshiftVersion: string;
  controlPlaneCount: number;
  /** `AddHostsCluster` (day 2) clusters install no operators, so they list none. */
  kind?: string;
  diskEncryption?: { enable_on?: string; mode?: string };
}

/** An operator's requirements (HostTypeRequirements['quantitative']) are role minimums without the thresholds. */
function details(source: RoleMinimums): RequirementDetails {
  const out: RequirementDetails = {};
  const counts = ['cpu_cores', 'disk_size_gb', 'installation_disk_speed_threshold_ms'] as const;
  for (const key of counts) if (source[key]) out[key] = source[key];
  // Thresholds are kept even when 0: a 0 % packet-loss budget is a requirement, not an absence.
  if (source.network_latency_threshold_ms !== undefined) out.network_latency_threshold_ms = source.network_latency_threshold_ms;
  if (source.packet_loss_percentage !== undefined) out.packet_loss_percentage = source.packet_loss_percentage;
  if (source.ram_mib) out.ram_mib = source.ram_mib;
  return out;
}

const hostType = (requirements: HostTypeRequirements): HostTypeHardwareRequirements => ({
  quantitative: details(requirements.quantitative),
  // As upstream's operators state it: some an empty list ([]), most none at all (null).
  ...(requirements.qualitative ? { qualitative: [...requirements.qualitative] } : {}),
});

/** Which roles must have TPM enabled in the BIOS: those disk encryption with TPM v2 covers. */
function tpmRoles(encryption: PreflightCluster['diskEncryption']): { master: boolean; worker: boolean } {
  const enableOn = encryption?.enable_on ?? 'none';
  if (enableOn === 'none' || enableOn === '' || (encryption?.mode ?? 'tpmv2') !== 'tpmv2') return { master: false, worker: false };
  const groups = enableOn.split(',');
  return { master: enableOn === 'all' || groups.includes('masters'), worker: enableOn === 'all' || groups.includes('workers') };
}

/**
 * GET /v2/clusters/{id}/preflight-requirements. Like upstream, the operators part covers every
 * supported OLM operator (so a UI can show what selecting one would cost), not only the
 * cluster's; a single-node cluster's master gets the sno minimums.
 */
export function preflightRequirements(cluster: PreflightCluster): PreflightHardwareRequirements {
  const minimums = hardwareMinimums(cluster.openshiftVersion);
  const singleNode = cluster.controlPlaneCount === 1;
  const master: HostTypeHardwareRequirements = { quantitative: details(singleNode ? minimums.sno : minimums.master) };
  const worker: HostTypeHardwareRequirements = { quantitative: details(minimums.worker) };
  const tpm = tpmRoles(cluster.diskEncryption);
  if (tpm.master) master.quantitative.tpm_enabled_in_bios = true;
  if (tpm.worker) worker.quantitative.tpm_enabled_in_bios = true;

  const shape = { openshiftVersion: cluster.openshiftVersion, singleNode };
  const operators =
    cluster.kind === 'AddHostsCluster'
      ? []
      : supportedOperatorNames().map((name) => {
          const requirements = operatorRequirements(name, shape);
          return {
            operator_name: name,
            dependencies: operatorDependencies(name, shape),
            requirements: { master: hostType(requirements.master), worker: hostType(requirements.worker) },
          };
        });
  return { operators, ocp: { master, worker } };
}

/** The attributes of a stored cluster the document is computed from. */
export function preflightClusterOf(attributes: ClusterAttributes): PreflightCluster {
  return {
    openshiftVersion: String(attributes.openshift_version ?? ''),
    controlPlaneCount: Number(attributes.control_plane_count ?? 3),
    kind: attributes.kind,
    diskEncryption: attributes.disk_encryption,
  };
}
