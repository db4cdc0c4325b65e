/**
 * Each step's arguments (upstream keeps one command per step; their shapes are in
 * contracts/step-requests.ts), built from the poll's context, or none when the step has nothing to
 * do for this host now. Pure.
 */
import type { Cluster, ClusterAttributes, Host } from '../core/entities.js';
import { catalogueAgentImages, type AgentImages } from '../catalogues/catalogues.js';
import { installCommandRequest } from '../install/installation.js';
import { HOST_LOGS_COLLECTED_AT } from '../install/logs.js';
import { diskEncryptionCovers } from '../host/disk-encryption.js';
import { hostEffectiveRole } from '../cluster/cluster-hosts.js';
import { hostInventory, storedDiskSpeed } from '../host/inventory.js';
import { parseStoredJson } from '../core/stored-json.js';
import {
  DISK_SPEED_CHECK_TIMEOUT_SECONDS,
  encodeStepArgs,
  freeAddressesNetworks,
  IMAGE_AVAILABILITY_TIMEOUT_SECONDS,
} from '../../../contracts/step-requests.js';
import { isJsonObject } from '../../../contracts/json-shapes.js';
import { CONNECTIVITY_REFRESH_MS, CONNECTIVITY_RETRY_MS, INSTALL_STEP_RESEND_MS, type StepContext, type StepType } from './step-types.js';

/**
 * The device the disk speed check measures and its result is stored under: the installation disk's
 * id, else its path (upstream's GetBootDevice).
 */
export function diskSpeedCheckDevice(host: Host): string | undefined {
  return host.attributes.installation_disk_id || host.attributes.installation_disk_path || undefined;
}

/** Images the agent checks before installing: the release image and the installer (upstream's list, less what needs the release payload). */
function imagesToCheck(cluster: Cluster | undefined, host: Host, images: AgentImages): string[] {
  const wanted = [cluster?.attributes.ocp_release_image, images.installer].filter((image): image is string => !!image);
  let known: Readonly<Record<string, unknown>> = {};
  try {
    const stored = parseStoredJson(host.attributes, 'images_status');
    if (isJsonObject(stored)) known = stored;
  } catch {
    known = {};
  }
  // An image with any result (success or failure) is not asked about again in this attempt.
  return [...new Set(wanted)].filter((image) => !(image in known));
}

/** The registry host of an image reference, unless it is an IP address (upstream's GetReleaseImageHost). */
function registryHost(image: string): string | undefined {
  if (!image.includes('/')) return undefined;
  const host = image.split('/')[0]!.replace(/:\d+$/, '');
  if (!host || /^[\d.]+$/.test(host) || host.includes(':') || host.startsWith('[')) return undefined;
  return host;
}

/** What every step's arguments are built from: the poll's context, with the cluster's attributes and the agent images resolved. */
interface StepInput {
  context: StepContext;
  host: Host;
  cluster: Cluster | undefined;
  attributes: ClusterAttributes;
  images: AgentImages;
}

/**
 * The names the DNS validations read back, in upstream's order: the cluster's API, internal API
 * and ingress names, a probe only a wildcard record would answer (as FQDN and relative), and the
 * release registry (day 1 only).
 */
function domainResolutionArgs({ host, cluster, attributes }: StepInput): string[] | undefined {
  if (!cluster || !attributes.base_dns_domain) return undefined;
  const base = `${cluster.name}.${attributes.base_dns_domain}`;
  const domains = [
    `api.${base}`,
    `api-int.${base}`,
    `console-openshift-console.apps.${base}`,
    `validateNoWildcardDNS.${base}.`,
    `validateNoWildcardDNS.${base}`,
  ];
  const registry = registryHost(attributes.ocp_release_image ?? '');
  if (registry && host.attributes.kind !== 'AddToExistingClusterHost') domains.push(registry);
  return encodeStepArgs('domain-resolution', { domains: domains.map((domain_name) => ({ domain_name })) });
}

function verifyVipsArgs({ host, attributes }: StepInput): string[] | undefined {
  if (!hostInventory(host)) return undefined;
  const vips = [
    ...(attributes.api_vips ?? []).map((v) => ({ vip: v.ip ?? '', vip_type: 'api' as const })),
    ...(attributes.ingress_vips ?? []).map((v) => ({ vip: v.ip ?? '', vip_type: 'ingress' as const })),
  ];
  return vips.length ? encodeStepArgs('verify-vips', vips) : undefined;
}

/** Only hosts the encryption covers, by their effective role (upstream's tang command). */
function tangConnectivityArgs({ host, attributes }: StepInput): string[] | undefined {
  const encryption = attributes.disk_encryption;
  if (encryption?.mode !== 'tang' || !encryption.tang_servers || !diskEncryptionCovers(encryption.enable_on, hostEffectiveRole(host.attributes)))
    return undefined;
  return encodeStepArgs('tang-connectivity-check', { tang_servers: encryption.tang_servers });
}

/** Measured once: the result stays for later attempts, as upstream (a validation reset clears it); a disk booted as is needs none. */
function diskSpeedArgs({ host }: StepInput): string[] | undefined {
  const path = diskSpeedCheckDevice(host);
  if (!path || storedDiskSpeed(host.attributes, [path])?.tested || hostInventory(host)?.boot?.device_type === 'persistent') return undefined;
  return encodeStepArgs('installation-disk-speed-check', { path, timeout_seconds: DISK_SPEED_CHECK_TIMEOUT_SECONDS });
}

/** Not sent again within INSTALL_STEP_RESEND_MS: a second install step would start a second installer. */
function installArgs({ context, host, cluster, images }: StepInput): string[] | undefined {
  const sent = Date.parse((host.attributes.install_step_sent_at as string | undefined) ?? '');
  if (!cluster || (!Number.isNaN(sent) && context.now.getTime() - sent < INSTALL_STEP_RESEND_MS)) return undefined;
  const request = installCommandRequest(cluster, host, images);
  return request ? [JSON.stringify(request)] : undefined;
}

/**
 * Each step type's arguments, as upstream keeps one command per step: undefined when the step has
 * nothing to do for this host now. A step type without an entry is never sent.
 */
const STEP_ARGUMENTS: { readonly [T in StepType]?: (input: StepInput) => string[] | undefined } = {
  inventory: ({ host }) => encodeStepArgs('inventory', { host_id: host.hostId }),
  'ntp-synchronizer': ({ attributes }) => encodeStepArgs('ntp-synchronizer', { ntp_source: attributes.additional_ntp_source ?? '' }),
  'connectivity-check': ({ context, host }) => {
    if (!context.newPeers && !connectivityDue(host, context.now)) return undefined;
    if (context.peersJson) return [context.peersJson()];
    return context.peers ? encodeStepArgs('connectivity-check', context.peers()) : undefined;
  },
  'free-network-addresses': ({ host, attributes }) => {
    if (attributes.user_managed_networking) return undefined;
    const networks = freeAddressesNetworks((hostInventory(host)?.interfaces ?? []).flatMap((nic) => nic.ipv4_addresses ?? []));
    return networks.length ? encodeStepArgs('free-network-addresses', networks) : undefined;
  },
  'domain-resolution': domainResolutionArgs,
  'verify-vips': verifyVipsArgs,
  'tang-connectivity-check': tangConnectivityArgs,
  // VIPs by DHCP need the machine network's interface; the lifecycle work adds it with the VIP monitor.
  'dhcp-lease-allocate': () => undefined,
  'installation-disk-speed-check': diskSpeedArgs,
  'container-image-availability': ({ host, cluster, images }) => {
    const wanted = imagesToCheck(cluster, host, images);
    return wanted.length ? encodeStepArgs('container-image-availability', { images: wanted, timeout: IMAGE_AVAILABILITY_TIMEOUT_SECONDS }) : undefined;
  },
  'api-vip-connectivity-check': ({ attributes }) => {
    const name = attributes.api_vip_dns_name as string | undefined;
    return name ? encodeStepArgs('api-vip-connectivity-check', { url: `http://${name}:22624/config/worker` }) : undefined;
  },
  // Gathered once per failure or cancellation: the upload stamps logs_collected_at (a reset clears it).
  'logs-gather': ({ host }) =>
    host.attributes[HOST_LOGS_COLLECTED_AT]
      ? undefined
      : encodeStepArgs('logs-gather', {
          cluster_id: host.clusterId ?? '',
          infra_env_id: host.infraEnvId,
          host_id: host.hostId,
          bootstrap: !!host.attributes.bootstrap,
          installer_gather: true,
          master_ips: [],
        }),
  'stop-installation': () => encodeStepArgs('stop-installation', {}),
  'upgrade-agent': ({ images }) => encodeStepArgs('upgrade-agent', { agent_image: images.agent }),
  install: installArgs,
};

/** The step's arguments, or undefined when the step has nothing to do for this host now. */
export function stepArgs(type: StepType, context: StepContext): string[] | undefined {
  const build = STEP_ARGUMENTS[type];
  if (!build) return undefined;
  return build({
    context,
    host: context.host,
    cluster: context.cluster,
    attributes: context.cluster?.attributes ?? {},
    images: context.images ?? catalogueAgentImages(),
  });
}

const CONVERGING = new Set(['insufficient', 'pending-for-input']);

export function connectivityDue(host: Host, now: Date): boolean {
  const last = Date.parse((host.attributes.connectivity_checked_at as string | undefined) ?? '');
  const interval = CONVERGING.has(host.status) ? CONNECTIVITY_RETRY_MS : CONNECTIVITY_REFRESH_MS;
  return Number.isNaN(last) || now.getTime() - last >= interval;
}
