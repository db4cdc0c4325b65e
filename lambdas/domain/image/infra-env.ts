/**
 * The infra-env (discovery environment) as the upstream API shows it, and the rules for creating
 * and updating one. Pure: callers pass ids, time, keys and the resolved release.
 */
import { isX509Certificate, PEM_CERTIFICATE } from '../core/certificates.js';
import { refuseIfProblem } from '../core/errors.js';
import { staticNetworkConfigProblem } from './static-network/static-network.js';
import type { InfraEnv } from '../core/entities.js';
import { isJsonObject } from '../../../contracts/json-shapes.js';
import {
  displayTextProblem,
  isIp,
  noProxyProblem,
  ntpSourcesProblem,
  proxyUrlProblem,
  pullSecretProblem,
  sshPublicKeyProblem,
} from '../../../contracts/input-checks.js';
import type { Params } from '../../../contracts/input-checks.js';
import type { ClusterAttributes } from '../core/entities.js';
import type { FeatureId } from '../catalogues/feature-support.js';
import { activeClusterFeatures, clusterFeaturesProblem } from '../cluster/cluster-features.js';
import { ADD_HOSTS_CLUSTER_KIND } from '../cluster/imported-cluster.js';

export const IMAGE_TYPES = ['full-iso', 'minimal-iso'] as const;
export const DEFAULT_IMAGE_TYPE = 'full-iso';
/**
 * The image type of a DisconnectedCluster's infra-env: an ISO whose ignition is the agent-based
 * installer's unconfigured ignition. Hosts booted from it never register with this service.
 */
export const DISCONNECTED_ISO = 'disconnected-iso';

/**
 * The infra-env attribute that keeps the name of the DisconnectedCluster an infra-env was made for
 * (internal, not shown): it marks the infra-env as one, and names the disconnected ignition's
 * AgentConfig, also once that cluster is deleted.
 */
export const DISCONNECTED_CLUSTER_NAME = 'disconnected_cluster_name';

export const isDisconnectedIso = (infraEnv: Pick<InfraEnv, 'attributes'>): boolean => infraEnv.attributes.type === DISCONNECTED_ISO;

/** The refusal of a host registration to a disconnected-iso infra-env (upstream's 400). */
export function hostRegistrationProblem(infraEnv: Pick<InfraEnv, 'attributes'>): string | undefined {
  return isDisconnectedIso(infraEnv)
    ? 'Cannot register a host to an InfraEnv with disconnected-iso type: hosts booted from a disconnected ISO install with the agent-based installer and never reach this service'
    : undefined;
}

/** Upstream's rendezvous IP rule: an IP address, and only on a disconnected-iso infra-env. Empty means none. */
export function rendezvousIpProblem(imageType: string, ip: unknown): string | undefined {
  if (typeof ip !== 'string' || ip === '') return undefined;
  if (imageType !== DISCONNECTED_ISO)
    return `RendezvousIP is only supported for disconnected ISO infra-envs (image_type ${DISCONNECTED_ISO}), not ${imageType}`;
  if (!isIp(ip)) return `rendezvous_ip "${ip}" is not a valid IPv4 or IPv6 address`;
  return undefined;
}

/** What an infra-env's cluster means for its image type: a DisconnectedCluster's make disconnected ISOs only. */
export interface InfraEnvClusterContext {
  /** The infra-env is (or will be) bound to a cluster, or was made for a DisconnectedCluster since deleted. */
  bound: boolean;
  /** That cluster is a DisconnectedCluster. */
  disconnectedCluster: boolean;
}

function imageTypeProblem(type: string, cluster: InfraEnvClusterContext): string | undefined {
  if (cluster.disconnectedCluster && type !== DISCONNECTED_ISO) {
    return `the cluster is a DisconnectedCluster: its infra-envs make disconnected ISOs (image_type ${DISCONNECTED_ISO}), not ${type}; create a cluster with POST /v2/clusters for a ${type}`;
  }
  // A disconnected-iso infra-env without a cluster is taken, as upstream takes it: its ISO cannot be
  // made until it has one (its discovery.ign answers 404), which an update may give it.
  return undefined;
}
const MAX_TRUST_BUNDLE = 65_535;

/** The first problem of the proxy's fields, each checked (a valid http_proxy does not excuse a malformed no_proxy). */
function proxyProblem(proxy: Record<string, unknown>): string | undefined {
  const given = (field: string) => (typeof proxy[field] === 'string' && proxy[field] !== '' ? (proxy[field] as string) : undefined);
  const httpProxy = given('http_proxy');
  const httpsProxy = given('https_proxy');
  const noProxy = given('no_proxy');
  return (
    (httpProxy !== undefined ? proxyUrlProblem('http_proxy', httpProxy) : undefined) ??
    (httpsProxy !== undefined ? proxyUrlProblem('https_proxy', httpsProxy) : undefined) ??
    (noProxy !== undefined ? noProxyProblem(noProxy) : undefined)
  );
}

/** PEM bundle of one or more X.509 certificates, each of which must parse. */
export function trustBundleProblem(bundle: string): string | undefined {
  if (bundle.length > MAX_TRUST_BUNDLE) return `additional_trust_bundle is longer than ${MAX_TRUST_BUNDLE} characters`;
  const blocks = bundle.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) return 'additional_trust_bundle must hold PEM certificates (-----BEGIN CERTIFICATE-----)';
  const invalid = blocks.findIndex((block) => !isX509Certificate(block));
  return invalid === -1 ? undefined : `additional_trust_bundle: certificate ${invalid + 1} is not a valid X.509 certificate`;
}

/** An Ignition 3.x config whose fields merge over the discovery ignition. */
export function ignitionOverrideProblem(override: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(override);
  } catch {
    return 'ignition_config_override is not valid JSON';
  }
  const version = isJsonObject(parsed) && isJsonObject(parsed.ignition) ? parsed.ignition.version : undefined;
  // The versions the discovery ignition can merge, as upstream.
  if (version !== '3.1.0' && version !== '3.2.0') {
    return 'ignition_config_override must be an Ignition config with "ignition": {"version": "3.1.0"} or "3.2.0"';
  }
  return undefined;
}

function kernelArgumentsProblem(args: readonly unknown[]): string | undefined {
  for (const arg of args) {
    // The schema names replace and delete too; upstream's service takes append only.
    const operation = isJsonObject(arg) ? arg.operation : undefined;
    if (operation !== 'append') return `Only kernel argument operation append is supported.  Got ${String(operation ?? '')}`;
    const value = isJsonObject(arg) ? arg.value : undefined;
    if (!value || typeof value !== 'string' || /[\s'"`$;|&]/.test(value)) {
      return `kernel_arguments: "${String(value ?? '')}" must be one argument without spaces, quotes or shell characters`;
    }
  }
  return undefined;
}

function attributesFrom(params: Params): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (isJsonObject(params.proxy)) {
    refuseIfProblem(proxyProblem(params.proxy));
    out.proxy = params.proxy;
  }
  if (typeof params.ssh_authorized_key === 'string' && params.ssh_authorized_key.trim() !== '') {
    refuseIfProblem(sshPublicKeyProblem(params.ssh_authorized_key));
  }
  if (typeof params.additional_trust_bundle === 'string' && params.additional_trust_bundle !== '') {
    refuseIfProblem(trustBundleProblem(params.additional_trust_bundle));
  }
  if (typeof params.ignition_config_override === 'string' && params.ignition_config_override !== '') {
    refuseIfProblem(ignitionOverrideProblem(params.ignition_config_override));
  }
  if (typeof params.additional_ntp_sources === 'string') refuseIfProblem(ntpSourcesProblem('additional_ntp_sources', params.additional_ntp_sources));
  if (typeof params.ntp_sources === 'string') refuseIfProblem(ntpSourcesProblem('ntp_sources', params.ntp_sources));
  if (Array.isArray(params.static_network_config)) {
    refuseIfProblem(staticNetworkConfigProblem(params.static_network_config));
    out.static_network_config = params.static_network_config.length ? JSON.stringify(params.static_network_config) : '';
  }
  if (Array.isArray(params.kernel_arguments)) {
    refuseIfProblem(kernelArgumentsProblem(params.kernel_arguments));
    out.kernel_arguments = JSON.stringify(params.kernel_arguments);
  }
  for (const field of [
    'ssh_authorized_key',
    'additional_ntp_sources',
    'ntp_sources',
    'ignition_config_override',
    'additional_trust_bundle',
    'network_discovery_delay_seconds',
  ]) {
    if (params[field] !== undefined && params[field] !== null) out[field] = params[field];
  }
  return out;
}

/**
 * Why upstream refuses an infra-env for this cluster, in its words, or undefined: the cluster's
 * features with the image type's (full or minimal ISO) must go together and with the infra-env's
 * CPU architecture on the cluster's version (an OCI external platform boots minimal ISOs only).
 * An imported cluster (AddHostsCluster) is not checked, as upstream does not check it.
 */
export function infraEnvFeaturesProblem(cluster: { attributes: ClusterAttributes }, imageType: string, cpuArchitecture: string): string | undefined {
  const version = cluster.attributes.openshift_version;
  if (cluster.attributes.kind === ADD_HOSTS_CLUSTER_KIND || typeof version !== 'string' || version === '') return undefined;
  const isoFeature: FeatureId | undefined = imageType === 'full-iso' ? 'FULL_ISO' : imageType === 'minimal-iso' ? 'MINIMAL_ISO' : undefined;
  return clusterFeaturesProblem([...activeClusterFeatures(cluster.attributes), ...(isoFeature ? [isoFeature] : [])], version, cpuArchitecture);
}

/**
 * Upstream's rule for the two NTP fields: `ntp_sources` replaces the image's sources and
 * `additional_ntp_sources` adds to them, so an infra-env holds one or the other, judged on what it
 * will hold once the request applies.
 */
function ntpFieldsProblem(current: Record<string, unknown>, params: Params): string | undefined {
  const value = (field: string) => (typeof params[field] === 'string' ? params[field] : typeof current[field] === 'string' ? current[field] : '');
  return value('ntp_sources') !== '' && value('additional_ntp_sources') !== '' ? 'ntp_sources and additional_ntp_sources are mutually exclusive' : undefined;
}

/**
 * The image type and rendezvous IP an infra-env will have, checked as upstream does: the IP only
 * on a disconnected ISO (moving away from one drops it), an empty IP clears it.
 */
function imageTypeAndRendezvous(params: Params, current: Record<string, unknown>, cluster: InfraEnvClusterContext): Record<string, unknown> {
  const requestedType = typeof params.image_type === 'string' && params.image_type !== '' ? params.image_type : undefined;
  const type = requestedType ?? (current.type as string | undefined) ?? (cluster.disconnectedCluster ? DISCONNECTED_ISO : DEFAULT_IMAGE_TYPE);
  refuseIfProblem(imageTypeProblem(type, cluster));
  refuseIfProblem(rendezvousIpProblem(type, params.rendezvous_ip));
  const out: Record<string, unknown> = { type };
  if (type !== DISCONNECTED_ISO) out.rendezvous_ip = undefined;
  else if (typeof params.rendezvous_ip === 'string') out.rendezvous_ip = params.rendezvous_ip === '' ? undefined : params.rendezvous_ip;
  return out;
}

/** Sets the fields, and removes those set to undefined. */
function assignAttributes(target: Record<string, unknown>, fields: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) delete target[name];
    else target[name] = value;
  }
}

export function createInfraEnvRecord(
  params: Params,
  context: {
    orgId: string;
    infraEnvId: string;
    now: string;
    clusterId?: string;
    imageTokenKey: string;
    userName: string;
    /** The minor of the RHCOS image it boots (osImageVersionFor), and its CPU architecture (normalised). */
    openshiftVersion?: string;
    cpuArchitecture?: string;
    /**
     * The name of the DisconnectedCluster it is created for: its infra-envs default to disconnected-iso,
     * and keep the name (it never changes) so their ISO can be made after the cluster is gone.
     */
    disconnectedClusterName?: string;
  },
): Omit<InfraEnv, 'version'> {
  refuseIfProblem(pullSecretProblem(params.pull_secret as string));
  if (typeof params.name === 'string') refuseIfProblem(displayTextProblem('name', params.name));
  refuseIfProblem(ntpFieldsProblem({}, params));
  const attributes: Record<string, unknown> = {
    kind: 'InfraEnv',
    cpu_architecture: context.cpuArchitecture ?? (params.cpu_architecture as string | undefined) ?? 'x86_64',
    ...(context.openshiftVersion ? { openshift_version: context.openshiftVersion } : {}),
    user_name: context.userName,
    ...attributesFrom(params),
    ...(context.disconnectedClusterName !== undefined ? { [DISCONNECTED_CLUSTER_NAME]: context.disconnectedClusterName } : {}),
  };
  assignAttributes(
    attributes,
    imageTypeAndRendezvous(params, {}, { bound: !!context.clusterId, disconnectedCluster: context.disconnectedClusterName !== undefined }),
  );
  return {
    orgId: context.orgId,
    infraEnvId: context.infraEnvId,
    name: params.name as string,
    ...(context.clusterId ? { clusterId: context.clusterId } : {}),
    createdAt: context.now,
    updatedAt: context.now,
    pullSecret: params.pull_secret as string,
    imageTokenKey: context.imageTokenKey,
    attributes,
  };
}

export function applyInfraEnvUpdate(
  infraEnv: InfraEnv,
  params: Params,
  now: string,
  /** The version asked for, kept as written once its RHCOS image is known to exist (as upstream keeps it). */
  openshiftVersion?: string,
  /** What its cluster is; by default read from the infra-env: bound, and made for a DisconnectedCluster. */
  cluster: InfraEnvClusterContext = {
    bound: !!infraEnv.clusterId || DISCONNECTED_CLUSTER_NAME in infraEnv.attributes,
    disconnectedCluster: DISCONNECTED_CLUSTER_NAME in infraEnv.attributes,
  },
): InfraEnv {
  const next = structuredClone(infraEnv);
  if (typeof params.name === 'string') refuseIfProblem(displayTextProblem('name', params.name));
  if (typeof params.pull_secret === 'string') {
    refuseIfProblem(pullSecretProblem(params.pull_secret));
    next.pullSecret = params.pull_secret;
  }
  refuseIfProblem(ntpFieldsProblem(infraEnv.attributes, params));
  Object.assign(next.attributes, attributesFrom(params));
  assignAttributes(next.attributes, imageTypeAndRendezvous(params, infraEnv.attributes, cluster));
  if (openshiftVersion) next.attributes.openshift_version = openshiftVersion;
  next.updatedAt = now;
  return next;
}

/**
 * The details of the image_info_updated event upstream records whenever an infra-env's image is
 * (re)described, at registration and each update: its proxy when one is set, its type, and whether
 * an SSH key goes in.
 */
export function imageInfoDetails(infraEnv: Pick<InfraEnv, 'attributes'>): string {
  const a = infraEnv.attributes;
  const proxy = isJsonObject(a.proxy) && typeof a.proxy.http_proxy === 'string' && a.proxy.http_proxy !== '' ? a.proxy.http_proxy : undefined;
  const sshKey = typeof a.ssh_authorized_key === 'string' && a.ssh_authorized_key !== '';
  return [
    ...(proxy ? [`proxy URL is "${proxy}"`] : []),
    `Image type is "${String(a.type ?? DEFAULT_IMAGE_TYPE)}"`,
    `SSH public key is ${sshKey ? 'set' : 'not set'}`,
  ].join(', ');
}

/**
 * Fields upstream's infra-env document leaves out while empty (Go's omitempty): an empty string or
 * list given at creation or update is not echoed.
 */
const OMITTED_WHEN_EMPTY = [
  'additional_trust_bundle',
  'ssh_authorized_key',
  'ignition_config_override',
  'kernel_arguments',
  'ntp_sources',
  'additional_ntp_sources',
] as const;

/** How upstream's answers spell a time never set: Go's zero time. */
const UNSET_TIME = '0001-01-01T00:00:00.000Z';

/** The upstream `infra-env` document; the pull secret and the image signing key stay out. */
export function infraEnvView(infraEnv: InfraEnv): Record<string, unknown> {
  const { [DISCONNECTED_CLUSTER_NAME]: _madeFor, ...attributes } = infraEnv.attributes;
  for (const field of OMITTED_WHEN_EMPTY) {
    const value: unknown = attributes[field];
    // kernel_arguments is kept as its JSON text: "[]" is the empty list.
    if (value === '' || value === '[]' || (Array.isArray(value) && value.length === 0)) delete attributes[field];
  }
  return {
    // Upstream carries these from creation: the owner's e-mail domain ("Unknown" without one) and
    // the image's expiry, Go's zero time until an image is made.
    email_domain: 'Unknown',
    expires_at: UNSET_TIME,
    // Go's zero proxy: upstream answers an empty object when no proxy was given.
    proxy: {},
    ...attributes,
    kind: 'InfraEnv',
    id: infraEnv.infraEnvId,
    href: `/api/assisted-install/v2/infra-envs/${infraEnv.infraEnvId}`,
    name: infraEnv.name,
    org_id: infraEnv.orgId,
    ...(infraEnv.clusterId ? { cluster_id: infraEnv.clusterId } : {}),
    type: infraEnv.attributes.type ?? DEFAULT_IMAGE_TYPE,
    pull_secret_set: !!infraEnv.pullSecret,
    created_at: infraEnv.createdAt,
    updated_at: infraEnv.updatedAt,
  };
}
