/**
 * The cluster as the upstream API shows it: defaults, derived fields and the rules for creating
 * and updating one. Pure: callers pass ids, time and the resolved release.
 */
import { badRequest, conflict, refuseIfProblem } from '../core/errors.js';
import type { Cluster, ClusterAttributes } from '../core/entities.js';
import { isJsonObject } from '../../../contracts/json-shapes.js';
import type { ClusterCreateParams, ClusterUpdateParams } from '../../../contracts/wire.js';
import type { MachineNetworkHost } from '../network/machine-network.js';
import {
  baseDomainProblem,
  clusterNameProblem,
  noProxyProblem,
  ntpSourcesProblem,
  proxyUrlProblem,
  pullSecretProblem,
  sshPublicKeyProblem,
  type Params,
} from '../../../contracts/input-checks.js';
import type { ResolvedRelease } from '../catalogues/catalogues.js';
import {
  builtinMonitoredOperators,
  operatorFeatureProblem,
  operatorPrerequisiteProblem,
  selectOlmOperators,
  withOlmOperators,
  type OperatorSelection,
} from './cluster-operators.js';
import { normalizeCpuArchitecture } from '../catalogues/feature-support.js';
import { isBelow, isValidVersion } from '../core/ocp-version.js';
import { activeClusterFeatures, clusterFeaturesProblem } from './cluster-features.js';
import { registrationFeatureUsage, updatedFeatureUsage } from './feature-usage.js';
import { ipFamilyOrderProblem } from './cluster-ip-family-order.js';
import { createdPlatform, singleNodePlatformProblem, updatedPlatform, type Platform, type PlatformOutcome } from './cluster-platform.js';
import { ADD_HOSTS_CLUSTER_KIND } from './imported-cluster.js';
import { networking, withNormalizedNetworks } from './cluster-networking.js';
import { diskEncryptionProblem, updatedDiskEncryption, withDiskEncryptionDefaults } from './cluster-disk-encryption.js';

/** States in which upstream lets a user change a cluster (VerifyClusterUpdatability). */
export const UPDATABLE_STATES = new Set(['insufficient', 'ready', 'pending-for-input', 'adding-hosts']);
/** States during which a cluster cannot be deleted: the installation must be cancelled first. */
export const BUSY_STATES = new Set(['preparing-for-installation', 'installing', 'finalizing', 'installing-pending-user-action']);

/** Control plane counts from this OpenShift version on may be 4 or 5 (upstream's MinimumVersionForNonStandardHAOCPControlPlane). */
const NON_STANDARD_HA_CONTROL_PLANE_VERSION = '4.18';
/** Two control planes (an arbiter cluster) from this version on (MinimumVersionForArbiterClusters). */
const TWO_CONTROL_PLANES_VERSION = '4.19';
const MAX_CONTROL_PLANES = 5;

/** Upstream's rules tying the availability mode to the control plane count (validateHighAvailabilityWithControlPlaneCount). */
export function controlPlaneProblem(mode: string, count: number, openshiftVersion: string): string | undefined {
  if (mode === 'None' && count !== 1) return 'single-node clusters must have a single control plane node';
  if (mode !== 'Full') return undefined;
  if (count !== 3 && isBelow(openshiftVersion, NON_STANDARD_HA_CONTROL_PLANE_VERSION)) {
    return `there should be exactly 3 dedicated control plane nodes for high availability mode Full in openshift version older than ${NON_STANDARD_HA_CONTROL_PLANE_VERSION}`;
  }
  const twoSupported = !isBelow(openshiftVersion, TWO_CONTROL_PLANES_VERSION);
  const min = twoSupported ? 2 : 3;
  if (count < min || count > MAX_CONTROL_PLANES) {
    const since = twoSupported ? TWO_CONTROL_PLANES_VERSION : NON_STANDARD_HA_CONTROL_PLANE_VERSION;
    return `there should be ${min}-${MAX_CONTROL_PLANES} dedicated control plane nodes for high availability mode Full in openshift version ${since} or newer`;
  }
  return undefined;
}

/**
 * A new cluster's control plane: control_plane_count, else the deprecated high_availability_mode
 * (None: one, Full: three), else three; the mode follows the count unless both are sent
 * (upstream's GetDefaultHighAvailabilityAndMasterCountParams), and the two must agree.
 */
function createdControlPlane(params: Params, openshiftVersion: string): { count: number; mode: 'Full' | 'None' } {
  const requested = params.control_plane_count as number | undefined;
  const requestedMode = params.high_availability_mode as 'Full' | 'None' | undefined;
  const count = requested ?? (requestedMode === 'None' ? 1 : 3);
  const mode = requestedMode ?? (count === 1 ? 'None' : 'Full');
  refuseIfProblem(controlPlaneProblem(mode, count, openshiftVersion));
  return { count, mode };
}

/**
 * Where a cluster keeps the service's ENABLE_SOFT_TIMEOUTS as it was when the cluster was created.
 * Internal: not part of the view. The document's org_soft_timeouts_enabled is upstream's other
 * half, the organisation's capability, which every organisation here has (as every one has on
 * upstream's services without OCM).
 */
export const SERVICE_SOFT_TIMEOUTS = 'service_soft_timeouts';

/** Soft timeouts apply: the service had them on when the cluster was created, and its organisation may use them. */
export function softTimeoutsEnabled(cluster: Cluster | undefined): boolean {
  const attributes = cluster?.attributes;
  // Clusters stored before the two were apart kept the service setting in org_soft_timeouts_enabled.
  const serviceSetting = attributes?.[SERVICE_SOFT_TIMEOUTS] ?? attributes?.org_soft_timeouts_enabled;
  return serviceSetting === true && attributes?.org_soft_timeouts_enabled === true;
}

/**
 * Whether an update changes the cluster's proxy settings (upstream's proxySettingsChanged): a proxy
 * field the update names differs from the stored one (absent reads as empty). Upstream then records
 * proxy_settings_changed.
 */
export function proxySettingsChanged(params: { http_proxy?: unknown; https_proxy?: unknown; no_proxy?: unknown }, stored: ClusterAttributes): boolean {
  return (['http_proxy', 'https_proxy', 'no_proxy'] as const).some((field) => typeof params[field] === 'string' && params[field] !== (stored[field] ?? ''));
}

/** Upstream's tag: words of letters, digits and underscores, separated by single spaces (Go's `\w`, ASCII). */
const TAG = /^[0-9A-Za-z_]+( [0-9A-Za-z_]+)*$/;

/** A cluster's tags: a comma-separated list of tags, or nothing (upstream's ValidateTags). */
export function tagsProblem(tags: string): string | undefined {
  if (tags === '' || tags.split(',').every((tag) => TAG.test(tag))) return undefined;
  return (
    `Invalid format for Tags: ${tags}. Tags should be a comma-separated list (e.g. tag1,tag2,tag3). ` +
    'Each tag can consist of the following characters: Alphanumeric (aA-zZ, 0-9), underscore (_) and white-spaces.'
  );
}

/**
 * The URL of a cluster's ignition endpoint, checked as upstream's ValidateHTTPFormat does: it must
 * name its scheme, http or https (any case), and a host made of URL host characters. Nothing more:
 * upstream takes "https:x" or "http:" as they are.
 */
/** The first release with the Nutanix integration: upstream refuses to register a Nutanix cluster on an older one. */
const NUTANIX_MINIMUM_VERSION = '4.11';

export function nutanixVersionProblem(platformType: unknown, openshiftVersion: string): string | undefined {
  if (platformType !== 'nutanix' || !isBelow(openshiftVersion, NUTANIX_MINIMUM_VERSION)) return undefined;
  return `Invalid OCP version (${openshiftVersion}) for Nutanix, Nutanix integration is supported for version ${NUTANIX_MINIMUM_VERSION} and above`;
}

export function ignitionEndpointUrlProblem(url: string): string | undefined {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(url)) return `URL '${url}' format is not valid: invalid control character in URL`;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url)?.[1]?.toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') return `The URL scheme must be http(s) and specified in the URL: '${url}'`;
  const host = /^[^:]+:\/\/([^/?#]*)/.exec(url)?.[1]?.replace(/^.*@/, '');
  if (host !== undefined && /[^A-Za-z0-9.\-_~!$&'()*+,;=:[\]%]/.test(host)) return `URL '${url}' format is not valid: invalid character in host name`;
  return undefined;
}

/** A cluster either replaces the image's NTP sources (ntp_sources) or adds to them (additional_ntp_source), judged on the result. */
export function ntpSourcesConflict(attributes: { additional_ntp_source?: unknown; ntp_sources?: unknown }): string | undefined {
  const given = (value: unknown) => typeof value === 'string' && value !== '';
  return given(attributes.additional_ntp_source) && given(attributes.ntp_sources) ? 'ntp_sources and additional_ntp_source are mutually exclusive' : undefined;
}

/** Fields copied as given after their own checks. */
function simpleFields(request: ClusterCreateParams | ClusterUpdateParams): ClusterAttributes {
  const params: Params = request;
  const out: ClusterAttributes = {};
  if (typeof params.base_dns_domain === 'string' && params.base_dns_domain !== '') refuseIfProblem(baseDomainProblem(params.base_dns_domain));
  if (typeof params.ssh_public_key === 'string' && params.ssh_public_key.trim() !== '') refuseIfProblem(sshPublicKeyProblem(params.ssh_public_key));
  if (typeof params.http_proxy === 'string' && params.http_proxy !== '') refuseIfProblem(proxyUrlProblem('http_proxy', params.http_proxy));
  if (typeof params.https_proxy === 'string' && params.https_proxy !== '') refuseIfProblem(proxyUrlProblem('https_proxy', params.https_proxy));
  if (typeof params.no_proxy === 'string' && params.no_proxy !== '') refuseIfProblem(noProxyProblem(params.no_proxy));
  if (typeof params.additional_ntp_source === 'string') refuseIfProblem(ntpSourcesProblem('additional_ntp_source', params.additional_ntp_source));
  if (typeof params.ntp_sources === 'string') refuseIfProblem(ntpSourcesProblem('ntp_sources', params.ntp_sources));
  if (typeof params.tags === 'string') refuseIfProblem(tagsProblem(params.tags));
  const ignitionEndpoint = params.ignition_endpoint as { url?: unknown } | undefined;
  if (typeof ignitionEndpoint?.url === 'string') refuseIfProblem(ignitionEndpointUrlProblem(ignitionEndpoint.url));
  for (const field of [
    'base_dns_domain',
    'ssh_public_key',
    'http_proxy',
    'https_proxy',
    'no_proxy',
    'additional_ntp_source',
    'ntp_sources',
    'hyperthreading',
    'network_type',
    'schedulable_masters',
    'disk_encryption',
    'ignition_endpoint',
    'tags',
    'load_balancer',
    'api_vip_dns_name',
  ]) {
    if (params[field] !== undefined && params[field] !== null) out[field] = params[field];
  }
  return out;
}

/** Upstream answers every platform with its external settings, empty unless the platform is external. */
function withEmptyExternal(platform: Platform): Platform {
  return { ...platform, external: platform.external ?? {} };
}

const platformOrRefusal = (outcome: PlatformOutcome): Exclude<PlatformOutcome, { problem: string }> => {
  if ('problem' in outcome) throw badRequest(outcome.problem);
  return outcome;
};

/**
 * The network type a registration that names none gets, from the version as requested (not the
 * release's, which a named payload decides): OVN-Kubernetes from 4.12 and for a single node,
 * OpenShift SDN before (then refused with the release if that is 4.15 or later, as upstream does).
 * Upstream reads the requested version even when a payload is named, so a malformed one is refused.
 */
export function defaultNetworkType(requestedVersion: unknown, controlPlaneCount: number): 'OVNKubernetes' | 'OpenShiftSDN' {
  const version = typeof requestedVersion === 'string' ? requestedVersion : '';
  if (!isValidVersion(version)) throw badRequest(`Malformed version: ${version}`);
  return controlPlaneCount === 1 || !isBelow(version, '4.12') ? 'OVNKubernetes' : 'OpenShiftSDN';
}

/**
 * A new cluster, checked and defaulted as upstream's registration does: control plane, VIPs and
 * networks as sent, then the platform and networking mode, the single-node rules, disk
 * encryption, and the features the result uses; the name and pull secret last.
 */
export function createClusterRecord(
  request: ClusterCreateParams,
  context: { orgId: string; clusterId: string; now: string; release: ResolvedRelease; userName: string; softTimeouts?: boolean; emailDomain?: string },
): Omit<Cluster, 'version'> {
  const params = withNormalizedNetworks(request);
  // Upstream checks the dual-stack family order before anything else of a registration.
  refuseIfProblem(ipFamilyOrderProblem(params));
  const name = params.name;
  const { count, mode } = createdControlPlane(params, context.release.openshiftVersion);
  refuseIfProblem(nutanixVersionProblem(params.platform?.type, params.openshift_version ?? context.release.openshiftVersion));
  const singleNode = count === 1;
  const networkType = defaultNetworkType(params.openshift_version, count);
  const attributes: ClusterAttributes = {
    kind: 'Cluster',
    openshift_version: context.release.openshiftVersion,
    ocp_release_image: context.release.releaseImage,
    cpu_architecture: context.release.cpuArchitecture,
    control_plane_count: count,
    high_availability_mode: mode,
    hyperthreading: 'all',
    network_type: networkType,
    schedulable_masters: false,
    // No host yet, so no worker: forced (schedulableMastersForcedTrue).
    schedulable_masters_forced_true: true,
    load_balancer: { type: 'cluster-managed' },
    monitored_operators: builtinMonitoredOperators(),
    status_info: 'Cluster is not ready for install',
    user_name: context.userName,
    org_soft_timeouts_enabled: true,
    [SERVICE_SOFT_TIMEOUTS]: context.softTimeouts ?? false,
    ...(context.emailDomain ? { email_domain: context.emailDomain } : {}),
    ...simpleFields(params),
    disk_encryption: withDiskEncryptionDefaults(params.disk_encryption),
  };
  refuseIfProblem(ntpSourcesConflict(attributes));
  // A load balancer given without a type gets the default one, as upstream registers it.
  if (!attributes.load_balancer?.type) attributes.load_balancer = { ...attributes.load_balancer, type: 'cluster-managed' };
  Object.assign(
    attributes,
    networking(params, context.clusterId, attributes, {
      singleNode,
      openshiftVersion: context.release.openshiftVersion,
      cpuArchitecture: context.release.cpuArchitecture,
      now: context.now,
    }),
  );
  const requestedArchitecture = normalizeCpuArchitecture(params.cpu_architecture);
  const settled = platformOrRefusal(
    createdPlatform({
      platform: params.platform,
      userManagedNetworking: params.user_managed_networking ?? undefined,
      controlPlaneCount: count,
      cpuArchitecture: requestedArchitecture,
    }),
  );
  attributes.platform = settled.platform && withEmptyExternal(settled.platform);
  if (settled.userManagedNetworking === undefined) delete attributes.user_managed_networking;
  else attributes.user_managed_networking = settled.userManagedNetworking;
  refuseIfProblem(diskEncryptionProblem(attributes.disk_encryption));
  if (singleNode) {
    if (attributes.vip_dhcp_allocation) throw badRequest('VIP DHCP Allocation cannot be enabled on single node OpenShift');
    if (attributes.network_type === 'OpenShiftSDN') throw badRequest('OpenShiftSDN network type is not allowed in single node mode');
  }
  refuseIfProblem(singleNodePlatformProblem(count, attributes.platform));
  // Upstream checks the features against the architecture only when the request names one (its
  // schema's default is not applied to the request it checks): VIP DHCP allocation on 4.18 is
  // refused with cpu_architecture x86_64 and accepted without.
  refuseIfProblem(
    clusterFeaturesProblem(activeClusterFeatures(attributes), context.release.openshiftVersion, params.cpu_architecture ? requestedArchitecture : undefined),
  );
  const namedArchitecture = params.cpu_architecture ? context.release.cpuArchitecture : undefined;
  checkOperators(attributes, params, { prerequisites: namedArchitecture, features: namedArchitecture });
  refuseIfProblem(pullSecretProblem(params.pull_secret));
  refuseIfProblem(clusterNameProblem(name));
  attributes.feature_usage = registrationFeatureUsage(attributes);
  return {
    orgId: context.orgId,
    clusterId: context.clusterId,
    name,
    status: 'insufficient',
    createdAt: context.now,
    updatedAt: context.now,
    pullSecret: params.pull_secret,
    attributes,
  };
}

/**
 * Replaces the cluster's OLM operators with the request's selection, if it makes one, and refuses
 * what upstream refuses: operator prerequisites and operators incompatible with the cluster's
 * features. `architecture` is the CPU architecture upstream checks them against: on create only
 * one the request names, on update the cluster's (its release's support is checked only on create).
 */
function checkOperators(attributes: ClusterAttributes, request: OperatorSelection, architecture: { prerequisites?: string; features?: string }): void {
  const shape = { openshiftVersion: String(attributes.openshift_version ?? ''), singleNode: attributes.control_plane_count === 1 };
  const olm = selectOlmOperators(request, shape);
  if (olm) {
    attributes.monitored_operators = withOlmOperators(attributes.monitored_operators, olm);
    refuseIfProblem(operatorPrerequisiteProblem(attributes.monitored_operators, { ...shape, cpuArchitecture: architecture.prerequisites }));
  }
  refuseIfProblem(operatorFeatureProblem(attributes, architecture.features));
}

export const DISCONNECTED_CLUSTER_KIND = 'DisconnectedCluster';
/** What a DisconnectedCluster is, as upstream's registrar says it. */
export const DISCONNECTED_STATUS_INFO = 'Cluster created for offline installation';

export const isDisconnectedCluster = (cluster: Pick<Cluster, 'attributes'> | undefined): boolean => cluster?.attributes.kind === DISCONNECTED_CLUSTER_KIND;

/**
 * A DisconnectedCluster (POST /v2/clusters/disconnected): only the name and release of a
 * disconnected ISO, the configuration its infra-env's image is made from. Never monitored, never
 * installed from here: the hosts booted from that ISO install themselves with the agent-based
 * installer. Upstream validates only the name's length; the name becomes the AgentConfig's
 * metadata.name, so it is held to the cluster-name rules here.
 */
export function createDisconnectedClusterRecord(
  params: Params,
  context: { orgId: string; clusterId: string; now: string; release: ResolvedRelease; userName: string },
): Omit<Cluster, 'version'> {
  const name = params.name as string;
  refuseIfProblem(clusterNameProblem(name));
  return {
    orgId: context.orgId,
    clusterId: context.clusterId,
    name,
    status: 'unmonitored',
    createdAt: context.now,
    updatedAt: context.now,
    pullSecret: '',
    attributes: {
      kind: DISCONNECTED_CLUSTER_KIND,
      openshift_version: context.release.openshiftVersion,
      // Kept for the infra-env and the installer's ClusterImageSet; upstream leaves both empty.
      ocp_release_image: context.release.releaseImage,
      cpu_architecture: context.release.cpuArchitecture,
      status_info: DISCONNECTED_STATUS_INFO,
      user_name: context.userName,
    },
  };
}

/**
 * The refusal of any change or action on a DisconnectedCluster (upstream's answer is the plain
 * "cannot be updated in state unmonitored"): what it is and what to do instead.
 */
export function disconnectedClusterRefusal(cluster: Pick<Cluster, 'clusterId' | 'attributes'>, action: string): string | undefined {
  if (!isDisconnectedCluster(cluster)) return undefined;
  return (
    `Cluster ${cluster.clusterId} is a DisconnectedCluster: it only holds the settings of a disconnected ISO and cannot be ${action}. ` +
    'Change the ISO through its infra-env (PATCH /v2/infra-envs/{id}), boot the hosts from the ISO to install them with the agent-based installer, ' +
    'or create a cluster to install from here with POST /v2/clusters'
  );
}

/**
 * Applies a `v2-cluster-update-params` document, only in the states upstream allows, with
 * upstream's checks of an update: the control plane count against the cluster's availability mode,
 * VIPs and networks, the platform and networking mode, the single-node rules, disk encryption and
 * the features the result uses.
 */
export function applyClusterUpdate(
  cluster: Cluster,
  request: ClusterUpdateParams,
  now: string,
  hosts: readonly MachineNetworkHost[] = [],
  virtualHostIds: readonly string[] = [],
): Cluster {
  const disconnected = disconnectedClusterRefusal(cluster, 'updated');
  if (disconnected) throw conflict(disconnected);
  const params = withNormalizedNetworks(request);
  const next = structuredClone(cluster);
  const current = next.attributes;
  const stored = cluster.attributes;
  const openshiftVersion = current.openshift_version as string;
  if (params.control_plane_count !== undefined && params.control_plane_count !== null) {
    refuseIfProblem(controlPlaneProblem((current.high_availability_mode as string | undefined) ?? 'Full', params.control_plane_count, openshiftVersion));
  }
  if (typeof params.pull_secret === 'string' && params.pull_secret !== '') refuseIfProblem(pullSecretProblem(params.pull_secret));
  if (typeof params.name === 'string' && params.name !== '') refuseIfProblem(clusterNameProblem(params.name));
  // The API's host name is the existing cluster's: only an imported (day-2) cluster takes it.
  if (typeof params.api_vip_dns_name === 'string' && stored.kind !== 'AddHostsCluster') {
    throw badRequest(`Can't update api vip to ${params.api_vip_dns_name} for day1 cluster ${cluster.clusterId}`);
  }
  if (!UPDATABLE_STATES.has(cluster.status)) {
    throw conflict(
      `Cluster ${cluster.clusterId} is in status ${cluster.status} and cannot be updated; it can be updated only in ${[...UPDATABLE_STATES].join(', ')}`,
    );
  }
  const singleNode = (current.control_plane_count as number) === 1;
  const cpuArchitecture = (current.cpu_architecture as string | undefined) ?? 'x86_64';
  const settled = platformOrRefusal(
    updatedPlatform(
      { platform: params.platform, userManagedNetworking: params.user_managed_networking ?? undefined },
      {
        platform: current.platform,
        userManagedNetworking: current.user_managed_networking === true,
        controlPlaneCount: current.control_plane_count as number,
        openshiftVersion,
        cpuArchitecture,
      },
    ),
  );
  if (singleNode) {
    if (params.user_managed_networking === false) throw badRequest('disabling UserManagedNetworking is not allowed in single node mode');
    if (params.network_type === 'OpenShiftSDN') throw badRequest('OpenShiftSDN network type is not allowed in single node mode');
  }
  refuseIfProblem(diskEncryptionProblem(params.disk_encryption));
  refuseIfProblem(singleNodePlatformProblem(current.control_plane_count as number, params.platform));
  // Upstream judges the features of the stored cluster with the request over it, before it applies
  // the networking changes (whose own refusals come after).
  const requested: ClusterAttributes = Object.fromEntries(Object.entries(params).filter(([, value]) => value !== undefined && value !== null));
  const preview: ClusterAttributes = {
    ...stored,
    ...requested,
    ...(settled.platform ? { platform: settled.platform } : {}),
    user_managed_networking: settled.userManagedNetworking ?? stored.user_managed_networking,
  };
  // Upstream does not judge an imported cluster's features: it knows no release to judge them by.
  if (stored.kind !== ADD_HOSTS_CLUSTER_KIND) refuseIfProblem(clusterFeaturesProblem(activeClusterFeatures(preview, stored), openshiftVersion));

  if (typeof params.name === 'string' && params.name !== '') next.name = params.name;
  if (typeof params.pull_secret === 'string' && params.pull_secret !== '') next.pullSecret = params.pull_secret;
  if (params.control_plane_count !== undefined && params.control_plane_count !== null) current.control_plane_count = params.control_plane_count;
  Object.assign(current, simpleFields(params));
  refuseIfProblem(ntpSourcesConflict(current));
  // Upstream changes only the disk encryption settings given (empty ones to their defaults) and keeps the others.
  if (isJsonObject(params.disk_encryption)) current.disk_encryption = updatedDiskEncryption(stored.disk_encryption, params.disk_encryption);
  Object.assign(
    current,
    networking(params, cluster.clusterId, current, {
      singleNode,
      openshiftVersion,
      cpuArchitecture,
      now,
      hosts,
      ...(settled.userManagedNetworking !== undefined ? { userManagedNetworking: settled.userManagedNetworking } : {}),
    }),
  );
  if (settled.userManagedNetworking === undefined && stored.user_managed_networking === undefined) delete current.user_managed_networking;
  if (settled.platform) current.platform = withEmptyExternal(settled.platform);
  checkOperators(current, params, { prerequisites: (current.cpu_architecture as string | undefined) ?? 'x86_64' });
  if (stored.kind === ADD_HOSTS_CLUSTER_KIND) {
    importedClusterUpdated(current, stored, params);
  } else {
    // Upstream tracks the platform and networking mode the update settled on, implied ones included
    // (platform none makes networking user-managed).
    const settledRequest = {
      ...params,
      ...(settled.platform ? { platform: settled.platform } : {}),
      ...(settled.userManagedNetworking !== undefined ? { user_managed_networking: settled.userManagedNetworking } : {}),
    };
    current.feature_usage = updatedFeatureUsage(stored, settledRequest, current, virtualHostIds);
  }
  next.updatedAt = now;
  return next;
}

/**
 * What upstream's update leaves on an imported cluster: the feature usage it records at every
 * update (none used: `{}`), and no VIP DHCP setting unless one is asked for (its import sets none).
 * schedulable_masters_forced_true stays unset: upstream's answers were seen both with and without
 * it (its monitor's timing), and its stored import has none.
 */
function importedClusterUpdated(current: ClusterAttributes, stored: ClusterAttributes, params: ClusterUpdateParams): void {
  if (current.feature_usage === undefined) current.feature_usage = '{}';
  if (stored.vip_dhcp_allocation === undefined && (params.vip_dhcp_allocation === undefined || params.vip_dhcp_allocation === null))
    delete current.vip_dhcp_allocation;
}

/** Workers from which a cluster's control plane need not run workloads (upstream's MinimumNumberOfWorkersForNonSchedulableMastersClusterInHaMode). */
const WORKERS_TO_UNFORCE_SCHEDULABLE_MASTERS = 2;

/**
 * schedulable_masters_forced_true as upstream refreshes it (a host registering, leaving, binding or
 * unbinding, and each monitor pass): a single-node cluster's control plane always runs workloads;
 * another's does while fewer than two of its hosts are workers, by their effective role (an
 * auto-assign host counts as the role suggested for it). Five control planes and no worker: forced.
 */
export function schedulableMastersForcedTrue(controlPlaneCount: number, hosts: readonly { role?: unknown; suggested_role?: unknown }[]): boolean {
  if (controlPlaneCount === 1) return true;
  const effectiveRole = (host: { role?: unknown; suggested_role?: unknown }) =>
    host.role === 'auto-assign' && typeof host.suggested_role === 'string' && host.suggested_role !== '' ? host.suggested_role : host.role;
  return hosts.filter((host) => effectiveRole(host) === 'worker').length < WORKERS_TO_UNFORCE_SCHEDULABLE_MASTERS;
}
