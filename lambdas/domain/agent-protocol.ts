/**
 * The agent ⇄ service protocol (upstream hostcommands and step-reply handling): which steps a host
 * is asked to run, with which arguments, and what each reply changes on the host. Pure.
 */
import instructions from './catalogues/host-instructions.json' with { type: 'json' };
import { badRequest, conflict, forbidden } from './errors.js';
import type { Cluster, Host, InfraEnv } from './entities.js';
import { CLUSTER_ACCEPTING_HOSTS, hostDisplayName, requestContext, withTransition } from './host.js';
import type { InstallationDisk } from './host-facts.js';
import { isNotAllowed, transitionHost, type HostTransition } from './host-state-machine.js';
import type { HostStage, HostStatus } from './host-states.js';
import { componentVersions } from './catalogues.js';
import { installationDisk, installCommandRequest } from './installation.js';
import { hostInventory, type Inventory, type InventoryDisk } from './inventory.js';
import { parseStoredJson } from './stored-json.js';
import { DISK_SPEED_CHECK_TIMEOUT_SECONDS, encodeStepArgs, freeAddressesNetworks, IMAGE_AVAILABILITY_TIMEOUT_SECONDS } from './step-requests.js';

export type StepType =
  | 'inventory' | 'connectivity-check' | 'free-network-addresses' | 'dhcp-lease-allocate' | 'ntp-synchronizer'
  | 'installation-disk-speed-check' | 'container-image-availability' | 'domain-resolution' | 'api-vip-connectivity-check'
  | 'tang-connectivity-check' | 'verify-vips' | 'install' | 'logs-gather' | 'stop-installation' | 'upgrade-agent'
  | 'download-boot-artifacts' | 'reboot-for-reclaim';

export interface Step {
  step_type: StepType;
  step_id: string;
  args: string[];
}

export interface Steps {
  next_instruction_seconds: number;
  post_step_action: 'continue' | 'exit';
  instructions: Step[];
}

export interface StepReply {
  step_type: StepType;
  step_id?: string;
  exit_code?: number;
  output?: string;
  error?: string;
}

interface InstructionRule {
  steps: string[];
  backedOff?: boolean;
  nextInstructionSeconds?: number;
  postStepAction?: 'continue' | 'exit';
}
const RULES = instructions as unknown as Record<'day1' | 'day2' | 'unbound', Record<string, InstructionRule>> & {
  defaultNextInstructionSeconds: number;
  backedOffNextInstructionSeconds: number;
};

/**
 * The agent runs `install` in the foreground until the disk is written; asking again while it runs
 * would start a second installer. It is re-sent only if no progress arrived for this long (the
 * reply or the first stage report was lost).
 */
export const INSTALL_STEP_RESEND_MS = 10 * 60_000;
/** Connectivity reports are refreshed at most this often: each check lists the host's peers. */
export const CONNECTIVITY_REFRESH_MS = 120_000;
/** Liveness is written at most this often; a host is disconnected after 3 minutes without a poll. */
export const CHECK_IN_WRITE_INTERVAL_MS = 30_000;
/** DynamoDB items hold 400 KB; an inventory larger than this is refused rather than half-stored. */
export const MAX_INVENTORY_BYTES = 300_000;
export const MEDIA_DISCONNECTED_EXIT_CODE = 256;

// ---- registration ------------------------------------------------------------------------------

/** Upstream's AcceptRegistration: a cluster takes hosts only before installation, or while adding hosts. */
export function registrationProblem(cluster: Cluster | undefined): void {
  if (!cluster) return;
  if (CLUSTER_ACCEPTING_HOSTS.has(cluster.status)) return;
  if (cluster.status === 'installed') {
    throw conflict(`Cluster ${cluster.clusterId} is installed: boot new hosts from the discovery ISO of its "Add hosts" infra-env to add them`);
  }
  throw conflict(`Cluster ${cluster.clusterId} is ${cluster.status} and accepts new hosts only in ${[...CLUSTER_ACCEPTING_HOSTS].join(', ')}`);
}

export function newHost(context: {
  orgId: string;
  infraEnv: InfraEnv;
  cluster?: Cluster;
  hostId: string;
  agentVersion?: string;
  now: string;
}): Omit<Host, 'version'> {
  const bound = !!context.cluster;
  // The table's first registration rules decide where a new host starts (bound or in the pool).
  const transition = transitionHost({ status: '' }, 'RegisterHost', { now: new Date(context.now), hostName: context.hostId, bound });
  if (isNotAllowed(transition)) throw conflict(transition.reason);
  return {
    orgId: context.orgId,
    infraEnvId: context.infraEnv.infraEnvId,
    hostId: context.hostId,
    ...(context.cluster ? { clusterId: context.cluster.clusterId } : {}),
    status: transition.status,
    createdAt: context.now,
    updatedAt: context.now,
    attributes: {
      kind: context.cluster?.status === 'adding-hosts' ? 'AddToExistingClusterHost' : 'Host',
      status_info: transition.statusInfo,
      status_updated_at: context.now,
      // A single-node cluster's host can only be its control plane: upstream makes it master and bootstrap on registration.
      ...(bound ? (context.cluster?.attributes.control_plane_count === 1 ? { role: 'master', suggested_role: 'master', bootstrap: true } : { role: 'auto-assign', suggested_role: 'auto-assign' }) : {}),
      registered_at: context.now,
      checked_in_at: context.now,
      discovery_agent_version: context.agentVersion,
      cpu_architecture: context.infraEnv.attributes.cpu_architecture,
    },
  };
}

/** The host's installation disk as the table's messages name it (wrong boot order). */
function installationDiskOf(host: Host): InstallationDisk | undefined {
  const disk = installationDisk(host) as (InventoryDisk & { model?: string; serial?: string }) | undefined;
  const path = (host.attributes.installation_disk_path as string | undefined) ?? disk?.path;
  if (!disk && !path) return undefined;
  return { name: disk?.name ?? path ?? '', path, identifier: disk?.id ?? path ?? '', model: disk?.model, serial: disk?.serial };
}

/**
 * A host registering again restarted its agent; the RegisterHost rules of the host table decide
 * what that means: rebooted while preparing (back to known), booted the discovery image again
 * after writing its disk (the boot order is wrong: installing-pending-user-action), restarted
 * mid-installation (error), already installed (refused: the agent must stop), otherwise
 * discovered anew. Refusals carry the rule's status (403 or 409), which parks the agent.
 */
export function reRegister(host: Host, agentVersion: string | undefined, now: string): { host: Host; transition: HostTransition } {
  const progress = host.attributes.progress as { current_stage?: HostStage; progress_info?: string; stage_updated_at?: string } | undefined;
  const transition = transitionHost({ status: host.status as HostStatus }, 'RegisterHost', requestContext(host, now, {
    ...(progress ? { progress: { currentStage: progress.current_stage, progressInfo: progress.progress_info, stageUpdatedAt: progress.stage_updated_at } } : {}),
    installationDisk: installationDiskOf(host),
  }));
  if (isNotAllowed(transition)) throw transition.httpStatus === 403 ? forbidden(transition.reason) : conflict(transition.reason);
  const next = withTransition(host, transition, now);
  Object.assign(next.attributes, { checked_in_at: now, registered_at: now, discovery_agent_version: agentVersion ?? host.attributes.discovery_agent_version });
  return { host: next, transition };
}

export function nextStepRunnerCommand(host: Pick<Host, 'hostId' | 'infraEnvId'>, agentVersion: string) {
  return {
    command: '',
    args: [JSON.stringify({ infra_env_id: host.infraEnvId, host_id: host.hostId, agent_version: agentVersion })],
    retry_seconds: RULES.defaultNextInstructionSeconds,
  };
}

// ---- instructions ------------------------------------------------------------------------------

export interface StepContext {
  host: Host;
  cluster?: Cluster;
  /** Other hosts of the cluster with their NICs; only needed when a connectivity check is due. */
  peers?: () => { host_id: string; nics: { name: string; mac: string; ip_addresses: string[] }[] }[];
  /** The same list already serialised (a JSON array of those objects), preferred when given. */
  peersJson?: () => string;
  /** A check is due whatever its schedule: peers joined since the host's last report. */
  newPeers?: boolean;
  now: Date;
  /** 8 hex characters, as upstream's step ids end with. */
  stepIdSuffix: () => string;
  /** The images the service's settings name; the catalogue's when absent. */
  images?: AgentImages;
  /** Whether agents other than images.agent are told to upgrade (upstream's ENABLE_UPGRADE_AGENT, default on). */
  upgradeAgent?: boolean;
  /** A cap on how long agents wait between polls (labs and tests); upstream's 60/120 s otherwise. */
  maxNextInstructionSeconds?: number;
}

export function hostNics(host: Host): { name: string; mac: string; ip_addresses: string[] }[] {
  return (hostInventory(host)?.interfaces ?? []).map((nic) => ({
    name: nic.name,
    mac: nic.mac_address,
    ip_addresses: [...(nic.ipv4_addresses ?? []), ...(nic.ipv6_addresses ?? [])].map((cidr) => cidr.split('/')[0]!),
  }));
}

function ruleFor(host: Host, cluster: Cluster | undefined): InstructionRule | undefined {
  const book = !host.clusterId ? RULES.unbound : cluster?.status === 'adding-hosts' || host.attributes.kind === 'AddToExistingClusterHost' ? RULES.day2 : RULES.day1;
  return book[host.status];
}

export interface AgentSettings {
  /**
   * The agent image discovery images start and hosts are upgraded to (upstream's AGENT_DOCKER_IMAGE).
   */
  image: string;
  /** Upstream's ENABLE_UPGRADE_AGENT (default on): hosts reporting another agent version are told to upgrade, and are not known until they do. */
  upgrade: boolean;
  /** AGENT_MAX_NEXT_INSTRUCTION_SECONDS: a cap on how long agents wait between polls (labs, tests); upstream's 60/120 s when unset. */
  maxNextInstructionSeconds?: number;
}

/** What the service's own catalogue and settings say the hosts run. */
export interface AgentImages {
  /** The agent image hosts must run (upstream's AGENT_DOCKER_IMAGE). */
  agent: string;
  installer: string;
  controller: string;
}

export function catalogueAgentImages(): AgentImages {
  const versions = componentVersions().versions;
  return { agent: versions['discovery-agent'] ?? '', installer: versions['assisted-installer'] ?? '', controller: versions['assisted-installer-controller'] ?? '' };
}

/**
 * The device the disk speed check measures and its result is stored under: the installation disk's
 * id, else its path (upstream's GetBootDevice).
 */
export function diskSpeedCheckDevice(host: Host): string | undefined {
  return (host.attributes.installation_disk_id as string | undefined) || (host.attributes.installation_disk_path as string | undefined) || undefined;
}

export interface StoredDiskSpeed {
  tested?: boolean;
  exit_code?: number;
  speed_ms?: number;
}

/** The stored disk speed result of the host's installation disk, if it was measured. */
export function storedDiskSpeed(attributes: Record<string, unknown>, alsoUnder: readonly (string | undefined)[] = []): StoredDiskSpeed | undefined {
  let disks: Record<string, { disk_speed?: StoredDiskSpeed }> | null | undefined;
  try {
    disks = parseStoredJson(attributes, 'disks_info') as typeof disks;
  } catch {
    return undefined;
  }
  for (const key of [attributes.installation_disk_id, attributes.installation_disk_path, ...alsoUnder]) {
    if (typeof key === 'string' && disks?.[key]?.disk_speed) return disks[key]!.disk_speed;
  }
  return undefined;
}

/** Images the agent checks before installing: the release image and the installer (upstream's list, less what needs the release payload). */
function imagesToCheck(cluster: Cluster | undefined, host: Host, images: AgentImages): string[] {
  const wanted = [cluster?.attributes.ocp_release_image as string | undefined, images.installer].filter((image): image is string => !!image);
  let known: Record<string, unknown> = {};
  try {
    known = (parseStoredJson(host.attributes, 'images_status') as Record<string, unknown> | null) ?? {};
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

/** The step's arguments, or undefined when the step has nothing to do for this host now. */
function stepArgs(type: StepType, context: StepContext): string[] | undefined {
  const { host, cluster } = context;
  const attributes = cluster?.attributes ?? {};
  const images = context.images ?? catalogueAgentImages();
  switch (type) {
    case 'inventory':
      return encodeStepArgs('inventory', { host_id: host.hostId });
    case 'ntp-synchronizer':
      return encodeStepArgs('ntp-synchronizer', { ntp_source: (attributes.additional_ntp_source as string | undefined) ?? '' });
    case 'connectivity-check':
      if (!context.newPeers && !connectivityDue(host, context.now)) return undefined;
      if (context.peersJson) return [context.peersJson()];
      return context.peers ? encodeStepArgs('connectivity-check', context.peers()) : undefined;
    case 'free-network-addresses': {
      if (attributes.user_managed_networking) return undefined;
      const networks = freeAddressesNetworks((hostInventory(host)?.interfaces ?? []).flatMap((nic) => nic.ipv4_addresses ?? []));
      return networks.length ? encodeStepArgs('free-network-addresses', networks) : undefined;
    }
    case 'domain-resolution': {
      // The names the DNS validations read back, in upstream's order: the cluster's API, internal API
      // and ingress names, a probe only a wildcard record would answer (as FQDN and relative), and the
      // release registry (day 1 only).
      if (!cluster || !attributes.base_dns_domain) return undefined;
      const base = `${cluster.name}.${attributes.base_dns_domain as string}`;
      const domains = [`api.${base}`, `api-int.${base}`, `console-openshift-console.apps.${base}`, `validateNoWildcardDNS.${base}.`, `validateNoWildcardDNS.${base}`];
      const registry = registryHost((attributes.ocp_release_image as string | undefined) ?? '');
      if (registry && host.attributes.kind !== 'AddToExistingClusterHost') domains.push(registry);
      return encodeStepArgs('domain-resolution', { domains: domains.map((domain_name) => ({ domain_name })) });
    }
    case 'verify-vips': {
      if (!hostInventory(host)) return undefined;
      const vips = [
        ...((attributes.api_vips as { ip: string }[] | undefined) ?? []).map((v) => ({ vip: v.ip, vip_type: 'api' as const })),
        ...((attributes.ingress_vips as { ip: string }[] | undefined) ?? []).map((v) => ({ vip: v.ip, vip_type: 'ingress' as const })),
      ];
      return vips.length ? encodeStepArgs('verify-vips', vips) : undefined;
    }
    case 'tang-connectivity-check': {
      const encryption = attributes.disk_encryption as { mode?: string; tang_servers?: string } | undefined;
      return encryption?.mode === 'tang' && encryption.tang_servers ? encodeStepArgs('tang-connectivity-check', { tang_servers: encryption.tang_servers }) : undefined;
    }
    case 'dhcp-lease-allocate':
      // VIPs by DHCP need the machine network's interface; the lifecycle work adds it with the VIP monitor.
      return undefined;
    case 'installation-disk-speed-check': {
      const path = diskSpeedCheckDevice(host);
      // Measured once per attempt (entering preparation clears it); a disk booted as is needs none.
      if (!path || storedDiskSpeed(host.attributes, [path])?.tested || hostInventory(host)?.boot?.device_type === 'persistent') return undefined;
      return encodeStepArgs('installation-disk-speed-check', { path, timeout_seconds: DISK_SPEED_CHECK_TIMEOUT_SECONDS });
    }
    case 'container-image-availability': {
      const wanted = imagesToCheck(cluster, host, images);
      return wanted.length ? encodeStepArgs('container-image-availability', { images: wanted, timeout: IMAGE_AVAILABILITY_TIMEOUT_SECONDS }) : undefined;
    }
    case 'api-vip-connectivity-check': {
      const name = attributes.api_vip_dns_name as string | undefined;
      return name ? encodeStepArgs('api-vip-connectivity-check', { url: `http://${name}:22624/config/worker` }) : undefined;
    }
    case 'logs-gather':
      return encodeStepArgs('logs-gather', { cluster_id: host.clusterId ?? '', infra_env_id: host.infraEnvId, host_id: host.hostId, bootstrap: !!host.attributes.bootstrap, installer_gather: true, master_ips: [] });
    case 'stop-installation':
      return encodeStepArgs('stop-installation', {});
    case 'upgrade-agent':
      return encodeStepArgs('upgrade-agent', { agent_image: images.agent });
    case 'install': {
      const sent = Date.parse((host.attributes.install_step_sent_at as string | undefined) ?? '');
      if (!cluster || (!Number.isNaN(sent) && context.now.getTime() - sent < INSTALL_STEP_RESEND_MS)) return undefined;
      const request = installCommandRequest(cluster, host, images);
      return request ? [JSON.stringify(request)] : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * A host still short of `known` may be waiting only for peers that reported after its last check:
 * it is checked again sooner, so a cluster whose hosts boot together converges in seconds.
 */
export const CONNECTIVITY_RETRY_MS = 15_000;
const CONVERGING = new Set(['insufficient', 'pending-for-input']);

function connectivityDue(host: Host, now: Date): boolean {
  const last = Date.parse((host.attributes.connectivity_checked_at as string | undefined) ?? '');
  const interval = CONVERGING.has(host.status) ? CONNECTIVITY_RETRY_MS : CONNECTIVITY_REFRESH_MS;
  return Number.isNaN(last) || now.getTime() - last >= interval;
}

/** Whether this poll will ask for a connectivity check, so the caller lists the peers only then. */
export function wantsConnectivityCheck(host: Host, cluster: Cluster | undefined, now: Date): boolean {
  return offersConnectivityCheck(host, cluster) && connectivityDue(host, now);
}

/** Whether the host's status has connectivity checks at all (due or not). */
export function offersConnectivityCheck(host: Host, cluster: Cluster | undefined): boolean {
  return !!host.clusterId && !!ruleFor(host, cluster)?.steps.includes('connectivity-check');
}

/**
 * Whether some of these peers are missing from the host's last connectivity report: a host that
 * joined after the report was made. Its peers check it on their next poll rather than at their
 * next periodic check (minutes for known hosts), or the newcomer could not join the majority group.
 */
export function hasUncheckedPeers(host: Host, peerIds: readonly string[]): boolean {
  let report: { remote_hosts?: { host_id?: string }[] | null } | undefined;
  try {
    report = parseStoredJson(host.attributes, 'connectivity') as typeof report;
  } catch {
    return true;
  }
  const checked = new Set((report?.remote_hosts ?? []).map((remote) => remote.host_id));
  return peerIds.some((id) => id !== host.hostId && !checked.has(id));
}

/**
 * Statuses in which a host whose agent is not the service's is told to upgrade it (upstream's
 * isAgentUpgradeAllowed): before installation, never once it prepares or installs.
 */
const UPGRADABLE_STATUSES: ReadonlySet<string> = new Set(['binding', 'discovering', 'discovering-unbound', 'insufficient', 'insufficient-unbound', 'known', 'pending-for-input', 'known-unbound']);

/** Whether the host's agent reported a version other than the one the service's hosts must run. */
export function agentNeedsUpgrade(host: Host, agentImage: string): boolean {
  const reported = host.attributes.discovery_agent_version as string | undefined;
  return !!reported && !!agentImage && reported !== agentImage;
}

export function nextSteps(context: StepContext): Steps {
  const rule = ruleFor(context.host, context.cluster);
  const ruleSeconds = rule?.nextInstructionSeconds ?? (rule?.backedOff ? RULES.backedOffNextInstructionSeconds : RULES.defaultNextInstructionSeconds);
  const seconds = context.maxNextInstructionSeconds !== undefined ? Math.min(ruleSeconds, context.maxNextInstructionSeconds) : ruleSeconds;
  const images = context.images ?? catalogueAgentImages();
  if (context.upgradeAgent !== false && UPGRADABLE_STATUSES.has(context.host.status) && agentNeedsUpgrade(context.host, images.agent)) {
    // The upgrade replaces every other step: the agent restarts with the new image and is asked again.
    const step: Step = { step_type: 'upgrade-agent', step_id: `upgrade-agent-${context.stepIdSuffix()}`, args: stepArgs('upgrade-agent', context)! };
    return { next_instruction_seconds: Math.min(RULES.defaultNextInstructionSeconds, seconds || RULES.defaultNextInstructionSeconds), post_step_action: 'continue', instructions: [step] };
  }
  const steps: Step[] = [];
  for (const type of (rule?.steps ?? []) as StepType[]) {
    const args = stepArgs(type, context);
    if (args) steps.push({ step_type: type, step_id: `${type}-${context.stepIdSuffix()}`, args });
  }
  return { next_instruction_seconds: seconds, post_step_action: rule?.postStepAction ?? 'continue', instructions: steps };
}

/**
 * Liveness is written only when it is getting stale, so a poll is usually a read. The host's
 * clock (the poll's `timestamp`) is written when it was never known, for the time-sync check.
 */
export function checkInDue(host: Host, now: Date, agentVersion: string | undefined, hostTimestamp?: number): boolean {
  const last = Date.parse((host.attributes.checked_in_at as string | undefined) ?? '');
  return (
    Number.isNaN(last) ||
    now.getTime() - last >= CHECK_IN_WRITE_INTERVAL_MS ||
    (!!agentVersion && agentVersion !== host.attributes.discovery_agent_version) ||
    (hostTimestamp !== undefined && host.attributes.timestamp === undefined)
  );
}

// ---- replies -----------------------------------------------------------------------------------

/**
 * Replies whose stored result the validations of other hosts read (hostnames and interfaces,
 * connectivity reports, the API VIP's ignition): after one of these, peers must be listed anew.
 */
const READ_BY_PEERS: ReadonlySet<string> = new Set(['inventory', 'connectivity-check', 'api-vip-connectivity-check']);
export const isReadByPeers = (stepType: string): boolean => READ_BY_PEERS.has(stepType);

function parseOutput<T>(reply: StepReply): T {
  try {
    return JSON.parse(reply.output ?? '') as T;
  } catch {
    throw badRequest(`the ${reply.step_type} reply's output is not the JSON document the step produces`);
  }
}

/** The service decides installation eligibility on top of what the agent says. */
export function withServiceEligibility(inventory: Inventory, minDiskBytes: number): Inventory {
  for (const disk of inventory.disks ?? []) {
    const reasons = [...(disk.installation_eligibility?.not_eligible_reasons ?? [])];
    if ((disk.size_bytes ?? 0) < minDiskBytes) {
      reasons.push(`Disk is too small (disk only has ${((disk.size_bytes ?? 0) / 1e9).toFixed(1)} GB, but ${(minDiskBytes / 1e9).toFixed(0)} GB are required)`);
    }
    if (disk.is_installation_media) reasons.push('Disk appears to be an installation media');
    if (['FDD', 'ODD', 'LVM'].includes(disk.drive_type ?? '')) reasons.push(`Drive type is ${disk.drive_type}, it must be one of HDD, SSD, Multipath, iSCSI, FC, RAID, ECKD, FBA, virtual`);
    const unique = [...new Set(reasons)];
    disk.installation_eligibility = { eligible: unique.length === 0, not_eligible_reasons: unique };
  }
  return inventory;
}

/**
 * Replies that move a host by the host table, beyond what they store:
 * - any step answering exit code 256 says the discovery media is gone (the virtual media was
 *   ejected): MediaDisconnect. A host not installing yet is disconnected; one preparing or
 *   installing has lost what it was installing from, and fails;
 * - the install step failing to start the installer: HostInstallationFailed, the host fails
 *   ("installation command failed"; the agent's own words stay in step_errors, out of status_info,
 *   since an installer's output may echo its command line).
 * Undefined when the reply is neither, or the host already knew.
 */
export function replyTransition(host: Host, reply: StepReply, now: string): { host: Host; transition: HostTransition } | undefined {
  const exitCode = reply.exit_code ?? 0;
  // The installer container already running (the install step handed twice) is no failure: upstream ignores it too.
  const alreadyInstalling = exitCode === 125 && (reply.error ?? '').includes('already in use');
  const trigger = exitCode === MEDIA_DISCONNECTED_EXIT_CODE ? 'MediaDisconnect' : exitCode !== 0 && reply.step_type === 'install' && !alreadyInstalling ? 'HostInstallationFailed' : undefined;
  if (!trigger) return undefined;
  const transition = transitionHost({ status: host.status as HostStatus }, trigger, requestContext(host, now, { mediaConnected: host.attributes.media_status !== 'disconnected' }));
  if (isNotAllowed(transition) || !transition.changed) return undefined;
  return { host: withTransition(host, transition, now), transition };
}

/**
 * Failed replies whose output upstream still reads: the image check exits 2 listing the images that
 * failed, and a disk speed check that could not measure exits non-zero naming its disk; a failed
 * tang check stores the agent's words. Other failed replies store only the error.
 */
const OUTPUT_KEPT_ON_FAILURE: ReadonlySet<string> = new Set(['container-image-availability', 'installation-disk-speed-check', 'tang-connectivity-check']);

/**
 * What a step reply changes on the host; undefined when it changes nothing (the same reply twice,
 * or a check already running that answered with no output).
 */
export function applyStepReply(host: Host, reply: StepReply, context: { now: string; minDiskBytes: number }): Host | undefined {
  const next = structuredClone(host);
  const attributes = next.attributes;
  const exitCode = reply.exit_code ?? 0;
  if (exitCode === MEDIA_DISCONNECTED_EXIT_CODE) {
    attributes.media_status = 'disconnected';
  } else if (exitCode !== 0) {
    const errors = { ...((attributes.step_errors as Record<string, string> | undefined) ?? {}) };
    errors[reply.step_type] = (reply.error ?? `exit code ${exitCode}`).slice(0, 500);
    attributes.step_errors = errors;
    if (OUTPUT_KEPT_ON_FAILURE.has(reply.step_type)) applyFailedOutput(attributes, reply, exitCode);
  } else if (reply.output) {
    if (attributes.media_status === 'disconnected') attributes.media_status = 'connected';
    const errors = attributes.step_errors as Record<string, string> | undefined;
    if (errors?.[reply.step_type]) {
      const rest = { ...errors };
      delete rest[reply.step_type];
      attributes.step_errors = rest;
    }
    applyOutput(attributes, reply, context);
  }
  if (JSON.stringify(next.attributes) === JSON.stringify(host.attributes)) return undefined;
  next.updatedAt = context.now;
  return next;
}

interface ImageStatus {
  name: string;
  result?: string;
  size_bytes?: number;
  time?: number;
  download_rate?: number;
}

/** Upstream's UpdateImageStatus: a new image is stored whole, a known one only gets its new result. */
function mergeImageStatuses(attributes: Record<string, unknown>, images: readonly ImageStatus[]): void {
  const current = JSON.parse((attributes.images_status as string | undefined) ?? '{}') as Record<string, ImageStatus>;
  for (const image of images) {
    if (!image?.name) continue;
    const known = current[image.name];
    current[image.name] = known ? { ...known, ...(image.result !== undefined ? { result: image.result } : {}) } : image;
  }
  attributes.images_status = JSON.stringify(current);
}

function setDiskSpeed(attributes: Record<string, unknown>, path: string, exitCode: number, speedMs?: number): void {
  const disks = JSON.parse((attributes.disks_info as string | undefined) ?? '{}') as Record<string, unknown>;
  disks[path] = { path, disk_speed: { tested: true, ...(exitCode !== 0 ? { exit_code: exitCode } : { speed_ms: speedMs ?? 0 }) } };
  attributes.disks_info = JSON.stringify(disks);
}

/** Output of a failed reply that is still stored; output that cannot be read is dropped, as upstream only logs it. */
function applyFailedOutput(attributes: Record<string, unknown>, reply: StepReply, exitCode: number): void {
  if (reply.step_type === 'tang-connectivity-check') {
    attributes.tang_connectivity = (reply.error ?? '').slice(0, 2_000);
    return;
  }
  let output: unknown;
  try {
    output = JSON.parse(reply.output ?? '');
  } catch {
    return;
  }
  if (!output || typeof output !== 'object') return;
  if (reply.step_type === 'container-image-availability') {
    const images = (output as { images?: unknown }).images;
    if (Array.isArray(images)) mergeImageStatuses(attributes, images as ImageStatus[]);
  } else if (reply.step_type === 'installation-disk-speed-check') {
    const path = (output as { path?: unknown }).path;
    if (typeof path === 'string' && path) setDiskSpeed(attributes, path, exitCode);
  }
}

function applyOutput(attributes: Record<string, unknown>, reply: StepReply, context: { now: string; minDiskBytes: number }): void {
  switch (reply.step_type) {
    case 'inventory': {
      if ((reply.output ?? '').length > MAX_INVENTORY_BYTES) throw badRequest(`the inventory is larger than ${MAX_INVENTORY_BYTES} bytes`);
      const parsed = parseOutput<Inventory>(reply);
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw badRequest('the inventory must be a JSON object');
      const inventory = withServiceEligibility(parsed, context.minDiskBytes);
      attributes.inventory = JSON.stringify(inventory);
      if (inventory.cpu?.architecture) attributes.cpu_architecture = inventory.cpu.architecture === 'aarch64' ? 'arm64' : inventory.cpu.architecture;
      break;
    }
    case 'connectivity-check':
      parseOutput(reply);
      attributes.connectivity = reply.output;
      attributes.connectivity_checked_at = context.now;
      break;
    case 'free-network-addresses': {
      const networks = parseOutput<unknown>(reply);
      if (!Array.isArray(networks) || networks.length === 0) throw badRequest('the free-network-addresses reply lists no network');
      attributes.free_addresses = reply.output;
      break;
    }
    case 'ntp-synchronizer':
      attributes.ntp_sources = JSON.stringify(parseOutput<{ ntp_sources?: unknown[] }>(reply).ntp_sources ?? []);
      break;
    case 'domain-resolution':
      parseOutput(reply);
      attributes.domain_name_resolutions = reply.output;
      break;
    case 'tang-connectivity-check':
      parseOutput(reply);
      attributes.tang_connectivity = reply.output;
      break;
    case 'api-vip-connectivity-check':
      parseOutput(reply);
      attributes.api_vip_connectivity = reply.output;
      break;
    case 'container-image-availability': {
      const images = parseOutput<{ images?: ImageStatus[] }>(reply).images;
      if (!Array.isArray(images)) throw badRequest('the container-image-availability reply lists no images');
      mergeImageStatuses(attributes, images);
      break;
    }
    case 'installation-disk-speed-check': {
      const result = parseOutput<{ path?: string; io_sync_duration?: number }>(reply);
      if (!result.path) throw badRequest('the disk speed reply names no disk path');
      setDiskSpeed(attributes, result.path, 0, result.io_sync_duration);
      break;
    }
    case 'verify-vips':
    case 'upgrade-agent':
      // Checked here, acted on by the caller: VIP verdicts belong to the cluster, the upgrade's result is an event.
      parseOutput(reply);
      break;
    default:
      // Replies of steps whose results live elsewhere (logs, stop) change nothing on the host here.
      break;
  }
}

export type VipVerification = 'succeeded' | 'failed' | 'unverified';

/**
 * The cluster's VIPs with the verdicts of a verify-vips reply applied (upstream's
 * HandleVerifyVipsResponse): undefined when the reply changes none of them. Verdicts for addresses
 * the cluster no longer has are ignored.
 */
export function applyVipVerifications(cluster: Cluster, reply: StepReply): Pick<Cluster['attributes'], 'api_vips' | 'ingress_vips'> | undefined {
  if ((reply.exit_code ?? 0) !== 0 || !reply.output) return undefined;
  let verdicts: { vip?: string; vip_type?: string; verification?: string }[];
  try {
    verdicts = JSON.parse(reply.output) as typeof verdicts;
  } catch {
    return undefined;
  }
  if (!Array.isArray(verdicts)) return undefined;
  let changed = false;
  const update = (field: 'api_vips' | 'ingress_vips', type: string) =>
    ((cluster.attributes[field] as { ip: string; verification?: string }[] | undefined) ?? []).map((vip) => {
      const verdict = verdicts.find((entry) => entry?.vip === vip.ip && entry.vip_type === type && ['succeeded', 'failed', 'unverified'].includes(entry.verification ?? ''));
      if (!verdict || verdict.verification === vip.verification) return vip;
      changed = true;
      return { ...vip, verification: verdict.verification as VipVerification };
    });
  const result = { api_vips: update('api_vips', 'api'), ingress_vips: update('ingress_vips', 'ingress') };
  return changed ? result : undefined;
}

/** The events a reply is worth on its own, beyond the host's judgement (upstream's reply handlers). */
export function stepReplyEvents(before: Host, after: Host, reply: StepReply, diskSpeedThresholdMs: number): { name: string; props: Record<string, unknown> }[] {
  const hostName = hostDisplayName(after);
  const events: { name: string; props: Record<string, unknown> }[] = [];
  // Only the image check is read when it fails (exit code 2 lists the images that did not pull).
  if ((reply.exit_code ?? 0) !== 0 && reply.step_type !== 'container-image-availability') return events;
  if (reply.step_type === 'upgrade-agent') {
    let result: { agent_image?: string; result?: string } = {};
    try {
      result = JSON.parse(reply.output ?? '{}') as typeof result;
    } catch {
      return events;
    }
    if (result.result === 'success') events.push({ name: 'upgrade_agent_finished', props: { host_name: hostName, agent_image: result.agent_image ?? '' } });
    else if (result.result === 'failure') events.push({ name: 'upgrade_agent_failed', props: { host_name: hostName, agent_image: result.agent_image ?? '' } });
  } else if (reply.step_type === 'container-image-availability') {
    const known = (parseStoredJson(before.attributes, 'images_status') as Record<string, ImageStatus> | null) ?? {};
    const now = (parseStoredJson(after.attributes, 'images_status') as Record<string, ImageStatus> | null) ?? {};
    for (const image of Object.values(now)) {
      if (known[image.name]) continue;
      const info = (image.size_bytes ?? 0) > 0
        ? `time: ${(image.time ?? 0).toFixed(2)} seconds; size: ${((image.size_bytes ?? 0) / 1e6).toFixed(2)} Megabytes; download rate: ${(image.download_rate ?? 0).toFixed(2)} MBps`
        : '';
      events.push({ name: 'image_status_updated', props: { host_name: hostName, image_status: image.name, result: image.result ?? '', info } });
    }
  } else if (reply.step_type === 'installation-disk-speed-check') {
    let result: { path?: string; io_sync_duration?: number } = {};
    try {
      result = JSON.parse(reply.output ?? '{}') as typeof result;
    } catch {
      return events;
    }
    // Upstream warns about a slow disk rather than refusing it: etcd runs, only slower.
    if (diskSpeedThresholdMs > 0 && (result.io_sync_duration ?? 0) > diskSpeedThresholdMs) {
      events.push({ name: 'disk_speed_slower_than_supported', props: { host_disk: result.path ?? '', fdatasync_duration: result.io_sync_duration ?? 0 } });
    }
  }
  return events;
}
