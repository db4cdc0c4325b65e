/**
 * The infra-env (discovery environment) as the upstream API shows it, and the rules for creating
 * and updating one. Pure: callers pass ids, time, keys and the resolved release.
 */
import { X509Certificate } from 'node:crypto';
import { badRequest } from './errors.js';
import { staticNetworkConfigProblem, type StaticNetworkEntry } from './static-network.js';
import type { InfraEnv } from './entities.js';
import { isIp, noProxyProblem, proxyUrlProblem, pullSecretProblem, sshPublicKeyProblem } from './validation.js';
import type { Params, ResolvedRelease } from './cluster.js';

export const IMAGE_TYPES = ['full-iso', 'minimal-iso'] as const;
export const DEFAULT_IMAGE_TYPE = 'full-iso';
const MAX_TRUST_BUNDLE = 65_535;

function check(reason: string | undefined): void {
  if (reason) throw badRequest(reason);
}

function proxyProblem(proxy: Record<string, unknown>): string | undefined {
  if (typeof proxy.http_proxy === 'string' && proxy.http_proxy) return proxyUrlProblem('http_proxy', proxy.http_proxy);
  if (typeof proxy.https_proxy === 'string' && proxy.https_proxy) return proxyUrlProblem('https_proxy', proxy.https_proxy);
  if (typeof proxy.no_proxy === 'string' && proxy.no_proxy) return noProxyProblem(proxy.no_proxy);
  return undefined;
}

/** PEM bundle of one or more X.509 certificates, each of which must parse. */
export function trustBundleProblem(bundle: string): string | undefined {
  if (bundle.length > MAX_TRUST_BUNDLE) return `additional_trust_bundle is longer than ${MAX_TRUST_BUNDLE} characters`;
  const blocks = bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) return 'additional_trust_bundle must hold PEM certificates (-----BEGIN CERTIFICATE-----)';
  for (const [index, block] of blocks.entries()) {
    try {
      new X509Certificate(block);
    } catch {
      return `additional_trust_bundle: certificate ${index + 1} is not a valid X.509 certificate`;
    }
  }
  return undefined;
}

/** An Ignition 3.x config whose fields merge over the discovery ignition. */
export function ignitionOverrideProblem(override: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(override);
  } catch {
    return 'ignition_config_override is not valid JSON';
  }
  const version = (parsed as { ignition?: { version?: unknown } })?.ignition?.version;
  // The versions the discovery ignition can merge, as upstream.
  if (version !== '3.1.0' && version !== '3.2.0') {
    return 'ignition_config_override must be an Ignition config with "ignition": {"version": "3.1.0"} or "3.2.0"';
  }
  return undefined;
}

function kernelArgumentsProblem(args: { operation?: string; value?: string }[]): string | undefined {
  for (const arg of args) {
    if (!arg.value || /[\s'"`$;|&]/.test(arg.value)) {
      return `kernel_arguments: "${arg.value ?? ''}" must be one argument without spaces, quotes or shell characters`;
    }
  }
  return undefined;
}

function attributesFrom(params: Params): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (params.proxy && typeof params.proxy === 'object') {
    check(proxyProblem(params.proxy as Record<string, unknown>));
    out.proxy = params.proxy;
  }
  if (typeof params.ssh_authorized_key === 'string' && params.ssh_authorized_key.trim() !== '') {
    check(sshPublicKeyProblem(params.ssh_authorized_key));
  }
  if (typeof params.additional_trust_bundle === 'string' && params.additional_trust_bundle !== '') {
    check(trustBundleProblem(params.additional_trust_bundle));
  }
  if (typeof params.ignition_config_override === 'string' && params.ignition_config_override !== '') {
    check(ignitionOverrideProblem(params.ignition_config_override));
  }
  if (Array.isArray(params.static_network_config)) {
    check(staticNetworkConfigProblem(params.static_network_config as StaticNetworkEntry[]));
    out.static_network_config = params.static_network_config.length ? JSON.stringify(params.static_network_config) : '';
  }
  if (Array.isArray(params.kernel_arguments)) {
    check(kernelArgumentsProblem(params.kernel_arguments as { value?: string }[]));
    out.kernel_arguments = JSON.stringify(params.kernel_arguments);
  }
  if (typeof params.rendezvous_ip === 'string' && params.rendezvous_ip && !isIp(params.rendezvous_ip)) {
    throw badRequest(`rendezvous_ip "${params.rendezvous_ip}" is not an IP address`);
  }
  for (const field of ['ssh_authorized_key', 'additional_ntp_sources', 'ignition_config_override', 'additional_trust_bundle', 'image_type', 'rendezvous_ip', 'network_discovery_delay_seconds']) {
    if (params[field] !== undefined && params[field] !== null) out[field === 'image_type' ? 'type' : field] = params[field];
  }
  return out;
}

export function createInfraEnvRecord(
  params: Params,
  context: { orgId: string; infraEnvId: string; now: string; release?: ResolvedRelease; clusterId?: string; imageTokenKey: string; userName: string },
): Omit<InfraEnv, 'version'> {
  check(pullSecretProblem(params.pull_secret as string));
  return {
    orgId: context.orgId,
    infraEnvId: context.infraEnvId,
    name: params.name as string,
    ...(context.clusterId ? { clusterId: context.clusterId } : {}),
    createdAt: context.now,
    updatedAt: context.now,
    pullSecret: params.pull_secret as string,
    imageTokenKey: context.imageTokenKey,
    attributes: {
      kind: 'InfraEnv',
      type: DEFAULT_IMAGE_TYPE,
      cpu_architecture: context.release?.cpuArchitecture ?? (params.cpu_architecture as string | undefined) ?? 'x86_64',
      ...(context.release ? { openshift_version: context.release.openshiftVersion } : {}),
      user_name: context.userName,
      ...attributesFrom(params),
    },
  };
}

export function applyInfraEnvUpdate(infraEnv: InfraEnv, params: Params, now: string, release?: ResolvedRelease): InfraEnv {
  const next = structuredClone(infraEnv);
  if (typeof params.pull_secret === 'string') {
    check(pullSecretProblem(params.pull_secret));
    next.pullSecret = params.pull_secret;
  }
  Object.assign(next.attributes, attributesFrom(params));
  if (release) next.attributes.openshift_version = release.openshiftVersion;
  next.updatedAt = now;
  return next;
}

/** The upstream `infra-env` document; the pull secret and the image signing key stay out. */
export function infraEnvView(infraEnv: InfraEnv): Record<string, unknown> {
  return {
    ...infraEnv.attributes,
    kind: 'InfraEnv',
    id: infraEnv.infraEnvId,
    href: `/api/assisted-install/v2/infra-envs/${infraEnv.infraEnvId}`,
    name: infraEnv.name,
    org_id: infraEnv.orgId,
    ...(infraEnv.clusterId ? { cluster_id: infraEnv.clusterId } : {}),
    type: (infraEnv.attributes.type as string | undefined) ?? DEFAULT_IMAGE_TYPE,
    pull_secret_set: !!infraEnv.pullSecret,
    created_at: infraEnv.createdAt,
    updated_at: infraEnv.updatedAt,
  };
}
