/**
 * GET /v2/infra-envs/{id}/downloads/files: the discovery ignition, the iPXE script and the static
 * network files of an infra-env, generated on each request from its current settings.
 */
import { componentVersions, defaultOpenshiftVersion } from '../domain/catalogues/catalogues.js';
import { discoveryIgnitionText, generatedStaticNetworkFiles, staticNetworkEntries, type DiscoveryIsoType } from '../domain/image/discovery-ignition.js';
import type { InfraEnv } from '../domain/core/entities.js';
import { badRequest, conflict, notFound } from '../domain/core/errors.js';
import { hostsWithMac, ipxeBootRefusal, ipxeBootScript, ipxeRedirectScript } from '../domain/image/ipxe-script.js';
import { majorMinor } from '../domain/core/ocp-version.js';
import { STATIC_NETWORK_DIR } from '../domain/image/static-network/static-network.js';
import { tarArchive } from '../domain/image/tar-archive.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import type { UnconfiguredIgnitions } from '../ports/unconfigured-ignitions.js';
import { isDisconnectedIso } from '../domain/image/infra-env.js';
import { disconnectedIgnitionText } from './disconnected-ignition.js';
import { findInfraEnv } from './access.js';
import { agentTokenEpochOf, issueInfraEnvAgentToken, issueInfraEnvUrlToken } from './agent-tokens.js';
import { DEFAULT_AGENT_TOKEN_TTL_SECONDS } from '../domain/auth/agent-token.js';
import { signImageToken, type DiscoveryImageSettings } from './discovery-image.js';
import type { Principal } from './principal.js';
import { requireSecretAccess } from './secret-access.js';
import { noteCredentialHolder } from './credential-holders.js';

export const INFRA_ENV_FILE_NAMES = ['discovery.ign', 'ipxe-script', 'static-network-config'] as const;

export interface InfraEnvFilesDeps {
  store: Store;
  clock: Clock;
  /** For disconnected-iso infra-envs, whose discovery.ign is the agent-based installer's unconfigured ignition. */
  unconfiguredIgnitions?: UnconfiguredIgnitions;
  config: DiscoveryImageSettings;
}

export interface InfraEnvFileQuery {
  fileName: string;
  mac?: string;
  ipxeScriptType?: string;
  discoveryIsoType?: string;
}

export interface InfraEnvFile {
  /** The attachment name upstream gives the file; empty when there is nothing to download. */
  fileName: string;
  content: Buffer;
  lastModified: string;
}

const imageServiceBaseUrl = (publicUrl: string) => `${publicUrl}/api/assisted-images`;

/** The same image token image URLs carry: HS256 over the infra-env's own key, expiring. */
async function imageToken(deps: InfraEnvFilesDeps, infraEnv: InfraEnv): Promise<string> {
  return signImageToken(infraEnv, new Date(deps.clock.now().getTime() + deps.config.imageUrlTtlSeconds * 1000));
}

const DISCOVERY_ISO_TYPES: readonly DiscoveryIsoType[] = ['full-iso', 'minimal-iso', 'disconnected-iso'];

/** The discovery ignition with a fresh agent token: it expires a whole lifetime from now. */
async function discoveryIgnitionFile(deps: InfraEnvFilesDeps, infraEnv: InfraEnv, isoType?: string): Promise<string> {
  // The API has refused any other value (discovery_iso_type's enum).
  const requestedIsoType = DISCOVERY_ISO_TYPES.find((known) => known === isoType);
  if (isDisconnectedIso(infraEnv)) {
    if (!deps.unconfiguredIgnitions) throw conflict('this function cannot make disconnected ignitions: it has no unconfigured ignition generator');
    return (await disconnectedIgnitionText({ ...deps, unconfiguredIgnitions: deps.unconfiguredIgnitions }, infraEnv)).text;
  }
  const expiresAt = new Date(deps.clock.now().getTime() + (deps.config.agentTokenTtlSeconds ?? DEFAULT_AGENT_TOKEN_TTL_SECONDS) * 1000);
  return discoveryIgnitionText({
    infraEnv,
    serviceBaseUrl: deps.config.publicUrl,
    agentImage: deps.config.agent?.image ?? componentVersions().versions['discovery-agent']!,
    agentToken: await issueInfraEnvAgentToken(deps.config.agentSigningKeyPem, infraEnv, expiresAt),
    ...(requestedIsoType ? { isoType: requestedIsoType } : {}),
    ...(deps.config.mirrorRegistries ? { mirrorRegistries: deps.config.mirrorRegistries } : {}),
  });
}

/**
 * Upstream's order: a MAC means the firmware chained back to us, so the host decides (404 once it
 * is past writing its disk); without one, boot-order-control hands out the chaining script.
 */
async function ipxeScriptFile(deps: InfraEnvFilesDeps, infraEnv: InfraEnv, query: InfraEnvFileQuery): Promise<string> {
  if (query.mac) {
    const hosts = hostsWithMac(await deps.store.hosts.listByInfraEnv({ orgId: infraEnv.orgId, infraEnvId: infraEnv.infraEnvId }), query.mac);
    if (hosts.length > 1) {
      throw conflict(`${hosts.length} hosts of infra-env ${infraEnv.infraEnvId} report MAC ${query.mac}; delete the stale ones to PXE boot it`);
    }
    const refusal = hosts[0] && ipxeBootRefusal(hosts[0]);
    if (refusal) throw notFound(`iPXE boot skipped: ${refusal}`);
  } else if (query.ipxeScriptType === 'boot-order-control') {
    return ipxeRedirectScript({ serviceBaseUrl: deps.config.publicUrl, infraEnvId: infraEnv.infraEnvId, imageToken: await imageToken(deps, infraEnv) });
  }
  const openshiftVersion = infraEnv.attributes.openshift_version ?? defaultOpenshiftVersion();
  return ipxeBootScript({
    imageServiceBaseUrl: imageServiceBaseUrl(deps.config.publicUrl),
    infraEnvId: infraEnv.infraEnvId,
    openshiftVersion: majorMinor(openshiftVersion) ?? openshiftVersion,
    cpuArchitecture: infraEnv.attributes.cpu_architecture as string,
    imageToken: await imageToken(deps, infraEnv),
    kernelArguments: infraEnv.attributes.kernel_arguments,
  });
}

/**
 * The per-host files as a tar of their /etc/assisted/network paths (upstream's archive holds
 * those, not the boot script), or nothing when the infra-env has no static network config.
 */
function staticNetworkArchive(infraEnv: InfraEnv): Buffer | undefined {
  const entries = staticNetworkEntries(infraEnv.attributes);
  if (entries.length === 0) return undefined;
  const hostFiles = generatedStaticNetworkFiles(entries).filter((file) => file.path.startsWith(`${STATIC_NETWORK_DIR}/`));
  return tarArchive(hostFiles);
}

export async function downloadInfraEnvFile(deps: InfraEnvFilesDeps, principal: Principal, infraEnvId: string, query: InfraEnvFileQuery): Promise<InfraEnvFile> {
  if (query.ipxeScriptType !== undefined && query.fileName !== 'ipxe-script') {
    throw badRequest('ipxe_script_type can be set only for file_name=ipxe-script');
  }
  if (!(INFRA_ENV_FILE_NAMES as readonly string[]).includes(query.fileName)) {
    throw badRequest(`unknown file type for download: ${query.fileName}; use one of ${INFRA_ENV_FILE_NAMES.join(', ')}`);
  }
  const carriesCredentials = query.fileName !== 'static-network-config';
  if (carriesCredentials) requireSecretAccess(principal, `The infra-env's ${query.fileName}`);
  const found = await findInfraEnv(deps.store, principal, infraEnvId);
  const infraEnv = carriesCredentials ? await noteCredentialHolder(deps, principal, found) : found;
  const lastModified = infraEnv.updatedAt;
  switch (query.fileName) {
    case 'discovery.ign':
      return { fileName: 'discovery.ign', content: Buffer.from(await discoveryIgnitionFile(deps, infraEnv, query.discoveryIsoType)), lastModified };
    case 'ipxe-script':
      return { fileName: `${infraEnvId}-ipxe-script`, content: Buffer.from(await ipxeScriptFile(deps, infraEnv, query)), lastModified };
    default: {
      // Upstream answers 200 with an empty body when the infra-env has no static network config.
      const archive = staticNetworkArchive(infraEnv);
      return archive
        ? { fileName: `${infraEnvId}-static-network-config.tar`, content: archive, lastModified }
        : { fileName: '', content: Buffer.alloc(0), lastModified };
    }
  }
}

/** The files a pre-signed infra-env URL may name (upstream's GetInfraEnvPresignedFileURL). */
const PRESIGNABLE_FILE_NAMES = ['discovery.ign', 'ipxe-script'] as const;

/**
 * GET /v2/infra-envs/{id}/downloads/files-presigned: a URL to the file download that carries its
 * own credential (api_key), for an iPXE firmware or a browser that cannot send headers. It lasts
 * as long as image URLs do (IMAGE_URL_TTL_SECONDS), and opens only this infra-env's files.
 */
export async function presignedInfraEnvFileUrl(
  deps: InfraEnvFilesDeps,
  principal: Principal,
  infraEnvId: string,
  query: { fileName: string; ipxeScriptType?: string },
): Promise<{ url: string; expires_at: string }> {
  if (!(PRESIGNABLE_FILE_NAMES as readonly string[]).includes(query.fileName)) {
    throw badRequest(`file_name must be one of ${PRESIGNABLE_FILE_NAMES.join(', ')}, not ${query.fileName || '(none)'}`);
  }
  if (query.ipxeScriptType !== undefined && query.fileName !== 'ipxe-script') throw badRequest('ipxe_script_type can be set only for file_name=ipxe-script');
  // The URL's own credential opens every file of the infra-env, discovery.ign included.
  requireSecretAccess(principal, 'A presigned infra-env file URL');
  const infraEnv = await noteCredentialHolder(deps, principal, await findInfraEnv(deps.store, principal, infraEnvId));
  const expiresAt = new Date(deps.clock.now().getTime() + deps.config.imageUrlTtlSeconds * 1000);
  const apiKey = await issueInfraEnvUrlToken(deps.config.agentSigningKeyPem, {
    orgId: infraEnv.orgId,
    infraEnvId,
    epoch: agentTokenEpochOf(infraEnv),
    expiresAt,
  });
  const url = new URL(`${deps.config.publicUrl}/api/assisted-install/v2/infra-envs/${infraEnvId}/downloads/files`);
  url.searchParams.set('file_name', query.fileName);
  if (query.ipxeScriptType) url.searchParams.set('ipxe_script_type', query.ipxeScriptType);
  url.searchParams.set('api_key', apiKey);
  return { url: url.toString(), expires_at: expiresAt.toISOString() };
}
