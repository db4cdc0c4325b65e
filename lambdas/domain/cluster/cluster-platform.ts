/**
 * A cluster's platform and user-managed networking as upstream settles them on create and update
 * (internal/provider platform.go and platform_validations.go): which combinations are refused, and
 * what an unset platform or networking mode defaults to for the topology and CPU architecture.
 * Pure.
 *
 * Upstream's table, for a create that names neither (x86_64, arm64, multi): three or more control
 * planes get baremetal with cluster-managed networking, one gets platform none with user-managed
 * networking. s390x and ppc64le (the architecture as requested, even when a -multi release makes
 * the cluster multi) always get platform none (or keep external) with user-managed networking.
 * vSphere and Nutanix keep the networking mode as sent, and store none when none is sent.
 */
import { isFeatureAvailableForArchitecture } from '../catalogues/feature-support.js';
import type { ClusterAttributes } from '../core/entities.js';
import type { Inventory } from '../host/inventory.js';
import { platformSupportsHost } from '../host/validations/host-validations-hardware.js';

export type Platform = NonNullable<ClusterAttributes['platform']>;
type PlatformType = Platform['type'];

/** What the platform rules answer: the platform and networking mode to store (undefined: leave as is), or why not. */
export type PlatformOutcome = { platform?: Platform; userManagedNetworking?: boolean } | { problem: string };

/** Baremetal and Nutanix need cluster-managed networking (upstream's isUMNAllowedForPlatform). */
const allowsUserManagedNetworking = (type: PlatformType | undefined): boolean => type !== 'baremetal' && type !== 'nutanix';
/** Platform none and external need user-managed networking (isUMNMandatoryForPlatform); so does an unknown one. */
const requiresUserManagedNetworking = (type: PlatformType | undefined): boolean => type === undefined || type === 'none' || type === 'external';

const OCI = 'oci';
const isOciIntegration = (platform: Platform | undefined): boolean => platform?.type === 'external' && platform.external?.platform_name === OCI;
const hasExternalSettings = (platform: Platform): boolean =>
  platform.external !== undefined && (platform.external.platform_name !== undefined || platform.external.cloud_controller_manager !== undefined);

/** The networking mode a request sets, against what the platform it sets needs (checkPlatformWrongParamsInput). */
function modeProblem(platform: Platform | undefined, userManagedNetworking: boolean | undefined): string | undefined {
  if (!platform || userManagedNetworking === undefined) return undefined;
  if ((!userManagedNetworking && requiresUserManagedNetworking(platform.type)) || (userManagedNetworking && !allowsUserManagedNetworking(platform.type))) {
    return `Can't set ${platform.type} platform with user-managed-networking ${userManagedNetworking ? 'enabled' : 'disabled'}`;
  }
  return undefined;
}

/**
 * The external platform's settings (validateExternalPlatform): required when the platform becomes
 * external, refused on any other platform, and OCI needs its cloud controller manager.
 */
function externalSettingsProblem(platform: Platform | undefined, stored: Platform | undefined): string | undefined {
  if (!platform) return undefined;
  if (stored?.type !== 'external') {
    if (platform.type === 'external') {
      if (!platform.external) return 'External setting must be set when using platform type external';
      if (platform.external.platform_name === undefined) return 'Platform name must be set to a non-empty string when using platform type external';
    } else if (hasExternalSettings(platform)) {
      return 'External settings can only be set with external platform type';
    }
  } else if (platform.type !== 'external' && hasExternalSettings(platform)) {
    return 'External settings can only be set with external platform type';
  }
  const merged = mergedPlatform(platform, stored);
  if (isOciIntegration(merged) && merged.external?.cloud_controller_manager !== 'External') {
    return 'Cloud controller manager must be enabled when using oci external integration';
  }
  return undefined;
}

/** The platform a request leads to, its unset external settings taken from the stored platform. */
function mergedPlatform(platform: Platform, stored: Platform | undefined): Platform {
  if (!stored) return platform;
  const external = platform.external
    ? {
        ...(stored.external ?? {}),
        ...Object.fromEntries(Object.entries(platform.external).filter(([, value]) => value !== undefined)),
      }
    : stored.external;
  return { ...platform, ...(external ? { external } : {}) };
}

/** An external platform's cloud controller manager is "" until set (setExternalDefaultValues). */
function withExternalDefaults(platform: Platform | undefined, stored: Platform | undefined): Platform | undefined {
  if (platform?.type !== 'external' || !platform.external) return platform;
  if (platform.external.cloud_controller_manager !== undefined || stored?.type === 'external') return platform;
  return { ...platform, external: { ...platform.external, cloud_controller_manager: '' } };
}

/** The platform and networking mode of a new cluster (GetActualCreateClusterPlatformParams). */
export function createdPlatform(request: {
  platform?: Platform;
  userManagedNetworking?: boolean;
  controlPlaneCount: number;
  /** The architecture as the request names it (x86_64 when it names none). */
  cpuArchitecture: string;
}): PlatformOutcome {
  const { userManagedNetworking, controlPlaneCount, cpuArchitecture } = request;
  const problem = modeProblem(request.platform, userManagedNetworking) ?? externalSettingsProblem(request.platform, undefined);
  if (problem) return { problem };
  const platform = withExternalDefaults(request.platform, undefined);
  if (cpuArchitecture === 's390x' || cpuArchitecture === 'ppc64le') {
    if (userManagedNetworking === false) return { problem: `Can't disable User Managed Networking on ${cpuArchitecture} architecture` };
    if (platform && platform.type !== 'none' && platform.type !== 'external')
      return { problem: `Can't set ${platform.type} platform on ${cpuArchitecture} architecture` };
    return { platform: platform?.type === 'external' ? platform : { type: 'none' }, userManagedNetworking: true };
  }
  if (platform && platform.type !== 'baremetal' && !requiresUserManagedNetworking(platform.type)) return { platform, userManagedNetworking };
  if (controlPlaneCount >= 2) {
    if ((!platform || platform.type === 'baremetal') && !userManagedNetworking) return { platform: { type: 'baremetal' }, userManagedNetworking: false };
    return { platform: platform ?? { type: 'none' }, userManagedNetworking: true };
  }
  if (platform?.type === 'baremetal') return { problem: `Can't set ${platform.type} platform on single node OpenShift` };
  if (userManagedNetworking === false) return { problem: "Can't disable user-managed-networking on single node OpenShift" };
  return { platform: platform && requiresUserManagedNetworking(platform.type) ? platform : { type: 'none' }, userManagedNetworking: true };
}

/** The stored cluster the update rules look at. */
export interface StoredPlatform {
  platform?: Platform;
  userManagedNetworking: boolean;
  controlPlaneCount: number;
  openshiftVersion: string;
  cpuArchitecture: string;
}

/**
 * What an update of the platform or networking mode leads to (GetActualUpdateClusterPlatformParams):
 * switching between baremetal and none carries the networking mode along, platform none and
 * external keep user-managed networking, and a single node keeps both.
 */
export function updatedPlatform(request: { platform?: Platform; userManagedNetworking?: boolean }, stored: StoredPlatform): PlatformOutcome {
  const { userManagedNetworking } = request;
  if (!request.platform && userManagedNetworking === undefined) return {};
  const storedType = stored.platform?.type;
  let problem = modeProblem(request.platform, userManagedNetworking);
  if (!problem && userManagedNetworking === undefined && request.platform && stored.controlPlaneCount >= 3) {
    const type = request.platform.type;
    const swapsBaremetalAndNone = (storedType === 'baremetal' && type === 'none') || (storedType === 'none' && type === 'baremetal');
    if (!swapsBaremetalAndNone) {
      if (!allowsUserManagedNetworking(type) && stored.userManagedNetworking) problem = `Can't set ${type} platform with user-managed-networking enabled`;
      else if (requiresUserManagedNetworking(type) && !stored.userManagedNetworking)
        problem = `Can't set ${type} platform with user-managed-networking disabled`;
    }
  }
  problem ??= externalSettingsProblem(request.platform, stored.platform);
  if (problem) return { problem };
  const platform = withExternalDefaults(request.platform, stored.platform);

  const effectiveType = platform?.type ?? storedType;
  if (allowsUserManagedNetworking(effectiveType) && !requiresUserManagedNetworking(effectiveType)) return { platform, userManagedNetworking };
  if (storedType === 'baremetal') {
    if (!userManagedNetworking && (!platform || platform.type === 'baremetal')) return {};
    if (platform?.type === 'none' || (userManagedNetworking && !platform)) return { platform: { type: 'none' }, userManagedNetworking: true };
    return { platform, userManagedNetworking };
  }
  if (requiresUserManagedNetworking(storedType)) {
    if (userManagedNetworking !== false && requiresUserManagedNetworking(platform?.type)) return { platform: changedPlatform(platform, stored.platform) };
    if (stored.controlPlaneCount === 1 && (!userManagedNetworking || (platform && !requiresUserManagedNetworking(platform.type)))) {
      return { problem: 'disabling User Managed Networking or setting platform different than none or oci platforms is not allowed in single node Openshift' };
    }
    if (!userManagedNetworking && (!platform || platform.type === 'baremetal')) {
      if (
        stored.cpuArchitecture !== 'x86_64' &&
        !isFeatureAvailableForArchitecture('CLUSTER_MANAGED_NETWORKING', stored.openshiftVersion, stored.cpuArchitecture)
      ) {
        return { problem: 'disabling User Managed Networking or setting Bare-Metal platform is not allowed for clusters with non-x86_64 CPU architecture' };
      }
      return { platform: { type: 'baremetal' }, userManagedNetworking: false };
    }
    return { platform, userManagedNetworking };
  }
  if (!platform && !allowsUserManagedNetworking(storedType) && userManagedNetworking) {
    return { problem: `User-managed-networking is not supported with platform ${storedType ?? ''}` };
  }
  return { platform, userManagedNetworking };
}

/** The platform to store when the request changes it (checkPlaformUpdate): another type, or other external settings. */
function changedPlatform(platform: Platform | undefined, stored: Platform | undefined): Platform | undefined {
  if (!platform) return undefined;
  if (platform.type !== stored?.type) return platform;
  if (platform.type !== 'external' || !platform.external) return undefined;
  const changes = (['platform_name', 'cloud_controller_manager'] as const).some(
    (field) => platform.external![field] !== undefined && platform.external![field] !== stored.external?.[field],
  );
  return changes ? mergedPlatform(platform, stored) : undefined;
}

/** A single node runs on platform none or external only (ValidateControlPlaneCountWithPlatform). */
export function singleNodePlatformProblem(controlPlaneCount: number, platform: Platform | undefined): string | undefined {
  if (controlPlaneCount !== 1 || !platform || platform.type === 'none' || platform.type === 'external') return undefined;
  return `Single node cluster is not supported alongside ${platform.type} platform`;
}

/**
 * The platform providers upstream's registry holds, in its order: the platform each one serves and
 * which hosts it can run (OCI's external integration, then any other external platform: both are
 * named `external`, so hosts OCI can run list it twice, as upstream's answer does).
 */
const PLATFORM_PROVIDERS: readonly { type: PlatformType; runs: string }[] = [
  { type: 'vsphere', runs: 'vsphere' },
  { type: 'baremetal', runs: 'baremetal' },
  { type: 'none', runs: 'none' },
  { type: 'nutanix', runs: 'nutanix' },
  { type: 'external', runs: OCI },
  { type: 'external', runs: 'external' },
];

/**
 * GET /v2/clusters/{id}/supported-platforms (deprecated upstream): `none` alone for a single-node
 * cluster or one without hosts; otherwise each platform whose provider can run every host of the
 * cluster (a host whose inventory has not arrived yet runs only on the platforms that ask nothing
 * of it: baremetal, none, external).
 */
export function clusterSupportedPlatforms(controlPlaneCount: number, hostInventories: readonly (Inventory | undefined)[]): PlatformType[] {
  if (hostInventories.length === 0 || controlPlaneCount === 1) return ['none'];
  return PLATFORM_PROVIDERS.filter((provider) => hostInventories.every((inventory) => runsOn(provider.runs, inventory))).map((provider) => provider.type);
}

/** Platforms that need a host's vendor cannot run a host without an inventory. */
const runsOn = (platform: string, inventory: Inventory | undefined): boolean =>
  inventory ? platformSupportsHost(platform, inventory) : !['vsphere', 'nutanix', OCI].includes(platform);
