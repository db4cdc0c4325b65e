/**
 * A cluster's `feature_usage`: the features it uses, as upstream records them for its telemetry
 * (internal/usage and the calls to it): a JSON object of usages keyed by feature name, each
 * `{data?, id, name}`. Upstream recomputes some usages from the whole cluster at registration and
 * changes only those an update's fields touch afterwards, so a usage can outlive its feature (and
 * a few rules read the cluster as it was before the update): the rules below follow it, since
 * clients and the console read the same document from either service.
 *
 * The feature names are catalogue data (catalogues/feature-usage.json). Pure.
 */
import catalogue from '../catalogues/feature-usage.json' with { type: 'json' };
import { isJsonObject, sortedKeys, textOrEmpty } from '../../../contracts/json-shapes.js';
import type { ClusterAttributes } from '../core/entities.js';
import { isDualStack } from './cluster-machine-network.js';

type FeatureKey = keyof typeof catalogue.features;
type UsageData = Record<string, unknown>;
export interface FeatureUsageEntry {
  data?: UsageData;
  id: string;
  name: string;
}
export type FeatureUsage = Record<string, FeatureUsageEntry>;

/** Upstream's `MinMasterHostsNeededForInstallationInHaMode`: from this many control planes, a cluster is multi-node. */
const MULTI_NODE_CONTROL_PLANES = 3;

const featureName = (key: FeatureKey): string => catalogue.features[key];

/** A usage's id: its name upper-cased, spaces made underscores, dots dropped ("VIP auto alloc." → "VIP_AUTO_ALLOC"). */
export const usageId = (name: string): string => name.replaceAll(' ', '_').replaceAll('.', '').toUpperCase();

/** The stored document read back; text that is not a usage object counts as no usage. */
export function parseFeatureUsage(text: unknown): FeatureUsage {
  if (typeof text !== 'string' || text === '') return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return isJsonObject(parsed) ? (parsed as FeatureUsage) : {};
  } catch {
    return {};
  }
}

export const serializeFeatureUsage = (usages: FeatureUsage): string => JSON.stringify(sortedKeys(usages));

/** Records a usage (replacing its data) when `used`, and forgets it when not. */
function setUsage(usages: FeatureUsage, used: boolean, name: string, data?: UsageData): void {
  if (!used) {
    delete usages[name];
    return;
  }
  usages[name] = { ...(data ? { data } : {}), id: usageId(name), name };
}

function setProxyUsage(usages: FeatureUsage, proxies: { http?: unknown; https?: unknown; no?: unknown }): void {
  const data: UsageData = {};
  if (textOrEmpty(proxies.http) !== '') data.http_proxy = 1;
  if (textOrEmpty(proxies.https) !== '') data.https_proxy = 1;
  if (textOrEmpty(proxies.no) !== '') data.no_proxy = 1;
  setUsage(usages, Object.keys(data).length > 0, featureName('proxy'), data);
}

function setNetworkTypeUsage(usages: FeatureUsage, networkType: unknown): void {
  for (const [type, name] of Object.entries(catalogue.networkTypes)) setUsage(usages, networkType === type, name);
}

function setNtpUsage(usages: FeatureUsage, source: string): void {
  setUsage(usages, source !== '', featureName('additionalNtpSource'), { source_count: source.split(',').length });
}

/** The platform's usages: a platform other than bare metal or none is a selection, and some are integrations too. */
function setPlatformUsage(usages: FeatureUsage, platformType: string): void {
  const selection = featureName('platformSelection');
  if (catalogue.platformsWithoutSelection.includes(platformType)) {
    delete usages[selection];
    return;
  }
  const data = { platform_type: platformType };
  setUsage(usages, true, selection, data);
  const integrations = (catalogue.platformIntegrations as Record<string, FeatureKey[] | undefined>)[platformType] ?? [];
  for (const integration of integrations) setUsage(usages, true, featureName(integration), data);
}

const diskEncryptionEnabled = (encryption: unknown): boolean =>
  isJsonObject(encryption) && typeof encryption.enable_on === 'string' && encryption.enable_on !== '' && encryption.enable_on !== 'none';

/**
 * Disk encryption is recorded only for a cluster whose stored settings enable it (upstream reads the
 * cluster as it was, even on an update), with the settings given.
 */
function setDiskEncryptionUsage(usages: FeatureUsage, stored: unknown, given: unknown): void {
  if (!diskEncryptionEnabled(stored) || !isJsonObject(given)) return;
  const data: UsageData = {};
  if (given.enable_on !== undefined && given.enable_on !== null) data.enable_on = textOrEmpty(given.enable_on) || 'none';
  if (given.mode !== undefined && given.mode !== null) {
    data.mode = textOrEmpty(given.mode) || 'tpmv2';
    data.tang_servers = textOrEmpty(given.tang_servers);
  }
  setUsage(usages, true, featureName('diskEncryption'), data);
}

function setHyperthreadingUsage(usages: FeatureUsage, hyperthreading: unknown): void {
  setUsage(usages, hyperthreading !== 'none', featureName('hyperthreading'), { hyperthreading_enabled: hyperthreading ?? '' });
}

function setUserManagedMultiNodeUsage(usages: FeatureUsage, userManagedNetworking: boolean, controlPlaneCount: unknown): void {
  setUsage(usages, userManagedNetworking && Number(controlPlaneCount ?? 0) >= MULTI_NODE_CONTROL_PLANES, featureName('userManagedNetworkingWithMultiNode'));
}

const olmOperatorNames = (operators: unknown): string[] =>
  (Array.isArray(operators) ? operators : [])
    .filter((operator): operator is { name: string } => isJsonObject(operator) && operator.operator_type === 'olm' && typeof operator.name === 'string')
    .map((operator) => operator.name);

function setNetworkingUsage(usages: FeatureUsage, attributes: ClusterAttributes): void {
  setUsage(usages, attributes.vip_dhcp_allocation === true, featureName('vipAutoAllocation'));
  setUsage(usages, isDualStack(attributes), featureName('dualStack'));
  setUsage(usages, Array.isArray(attributes.api_vips) && attributes.api_vips.length > 1, featureName('dualStackVips'));
}

const platformTypeOf = (platform: unknown): string => (isJsonObject(platform) ? textOrEmpty(platform.type) : '');

/** The usages of a new cluster, read from the whole registered record. */
export function registrationFeatureUsage(attributes: ClusterAttributes): string {
  const usages: FeatureUsage = {};
  setUsage(usages, attributes.vip_dhcp_allocation === true, featureName('vipAutoAllocation'));
  setNtpUsage(usages, textOrEmpty(attributes.additional_ntp_source));
  setUsage(usages, attributes.control_plane_count === 1, featureName('singleNodeOpenShift'));
  // Upstream's registration passes the HTTP proxy where the HTTPS one belongs: an HTTP proxy
  // counts as both, an HTTPS proxy alone as none.
  setProxyUsage(usages, { http: attributes.http_proxy, https: attributes.http_proxy, no: attributes.no_proxy });
  for (const operator of olmOperatorNames(attributes.monitored_operators)) setUsage(usages, true, operator.toUpperCase());
  setNetworkTypeUsage(usages, attributes.network_type);
  setUsage(usages, isDualStack(attributes), featureName('dualStack'));
  setUsage(usages, Array.isArray(attributes.api_vips) && attributes.api_vips.length > 1, featureName('dualStackVips'));
  setDiskEncryptionUsage(usages, attributes.disk_encryption, attributes.disk_encryption);
  setUsage(usages, textOrEmpty(attributes.tags) !== '', featureName('clusterTags'));
  setHyperthreadingUsage(usages, attributes.hyperthreading);
  setUserManagedMultiNodeUsage(usages, attributes.user_managed_networking === true, attributes.control_plane_count);
  setPlatformUsage(usages, platformTypeOf(attributes.platform));
  return serializeFeatureUsage(usages);
}

const given = (value: unknown): boolean => value !== undefined && value !== null;

/**
 * The usages after an update: those the request's fields touch are set again (the proxies always,
 * from the request alone), the networking and architecture ones from the updated cluster, the
 * others kept as they were. `virtualHostIds`: the cluster's hosts whose inventory says they are
 * virtual machines.
 */
export function updatedFeatureUsage(
  stored: ClusterAttributes,
  request: Readonly<Record<string, unknown>>,
  updated: ClusterAttributes,
  virtualHostIds: readonly string[],
): string {
  const usages = parseFeatureUsage(stored.feature_usage);
  setProxyUsage(usages, { http: request.http_proxy, https: request.https_proxy, no: request.no_proxy });
  const requestedPlatform = platformTypeOf(request.platform);
  if (requestedPlatform !== '') setPlatformUsage(usages, requestedPlatform);
  if (given(request.network_type)) setNetworkTypeUsage(usages, request.network_type);
  setNetworkingUsage(usages, updated);
  if (given(request.additional_ntp_source)) setNtpUsage(usages, textOrEmpty(request.additional_ntp_source));
  if (given(request.tags)) setUsage(usages, textOrEmpty(request.tags) !== '', featureName('clusterTags'));
  if (given(request.schedulable_masters)) setUsage(usages, request.schedulable_masters === true, featureName('schedulableMasters'));
  if (given(request.disk_encryption)) setDiskEncryptionUsage(usages, stored.disk_encryption, request.disk_encryption);
  if (given(request.hyperthreading)) setHyperthreadingUsage(usages, request.hyperthreading);
  if (given(request.user_managed_networking)) setUserManagedMultiNodeUsage(usages, request.user_managed_networking === true, stored.control_plane_count);
  if (given(request.olm_operators) || given(request.operator_bundles)) {
    const now = olmOperatorNames(updated.monitored_operators);
    for (const operator of now) setUsage(usages, true, operator.toUpperCase());
    for (const operator of olmOperatorNames(stored.monitored_operators)) if (!now.includes(operator)) delete usages[operator.toUpperCase()];
  }
  // Cluster-managed networking on virtual machines: bare metal or no platform, networks not user-managed.
  const clusterManaged = ['baremetal', 'none', ''].includes(platformTypeOf(updated.platform)) && updated.user_managed_networking !== true;
  setUsage(usages, clusterManaged && virtualHostIds.length > 0, featureName('clusterManagedNetworkingWithVms'), { 'VM Hosts': [...virtualHostIds] });
  for (const [architecture, name] of Object.entries(catalogue.cpuArchitectures)) setUsage(usages, updated.cpu_architecture === architecture, name);
  return serializeFeatureUsage(usages);
}

/**
 * The usages after install-config overrides are stored: every top-level key (with an object's own
 * keys after it, space-separated) is recorded as overridden, added to those recorded before; a
 * boolean `fips` sets FIPS. Overrides that are not a non-empty object leave the usages as they were.
 */
export function installConfigOverridesFeatureUsage(current: unknown, overrides: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(overrides);
  } catch {
    return undefined;
  }
  if (!isJsonObject(parsed) || Object.keys(parsed).length === 0) return undefined;
  const usages = parseFeatureUsage(current);
  const name = featureName('installConfigOverrides');
  const data: UsageData = { ...(usages[name]?.data ?? {}) };
  for (const [key, value] of Object.entries(parsed)) data[[key, ...(isJsonObject(value) ? Object.keys(value) : [])].join(' ')] = true;
  setUsage(usages, true, name, data);
  if (typeof parsed.fips === 'boolean') setUsage(usages, parsed.fips, featureName('fips'));
  return serializeFeatureUsage(usages);
}

/** Whether the user has manifests of their own on the cluster (what the custom-manifests and OCI validations ask). */
export const usesCustomManifests = (featureUsage: unknown): boolean => featureName('customManifest') in parseFeatureUsage(featureUsage);

/** The usages after a user's manifest is added (`used`) or the cluster's last manifest is deleted. */
export function customManifestFeatureUsage(current: unknown, used: boolean): string {
  const usages = parseFeatureUsage(current);
  setUsage(usages, used, featureName('customManifest'));
  return serializeFeatureUsage(usages);
}
