/**
 * The agent ⇄ service protocol (upstream's hostcommands): registration, and which steps a host is
 * asked to run, with which arguments (their shapes in contracts/step-requests.ts). What replies change is in
 * step-replies.ts. Pure.
 */
import { createHash } from 'node:crypto';
import instructions from '../catalogues/host-instructions.json' with { type: 'json' };
import { conflict, forbidden } from '../core/errors.js';
import type { Cluster, ClusterAttributes, Host, InfraEnv } from '../core/entities.js';
import { CLUSTER_ACCEPTING_HOSTS, requestContext, withTransition } from '../host/host.js';
import type { InstallationDisk } from '../host/host-facts.js';
import { isNotAllowed, transitionHost, type HostTransition } from '../host/host-state-machine.js';
import { catalogueAgentImages, type AgentImages } from '../catalogues/catalogues.js';
import { installationDisk, installCommandRequest } from '../install/installation.js';
import { HOST_LOGS_COLLECTED_AT } from '../install/logs.js';
import { diskEncryptionCovers } from '../host/disk-encryption.js';
import { hostEffectiveRole } from '../cluster/cluster-hosts.js';
import { hostInventory, storedDiskSpeed } from '../host/inventory.js';
import { parseStoredJson } from '../core/stored-json.js';
import { clockMoved } from '../host/host-clock.js';
import {
  DISK_SPEED_CHECK_TIMEOUT_SECONDS,
  encodeStepArgs,
  freeAddressesNetworks,
  IMAGE_AVAILABILITY_TIMEOUT_SECONDS,
} from '../../../contracts/step-requests.js';
import { isJsonObject, oneOf, recordOf, text } from '../../../contracts/json-shapes.js';
import {
  readConnectivityReport,
  type ConnectivityReport,
  type Step as WireStep,
  type StepReply as WireStepReply,
  type Steps as WireSteps,
  type StepType as WireStepType,
} from '../../../contracts/step-replies.js';

/** The steps the service hands out: upstream's step types but the agent's own (execute, next-step-runner). */
export type StepType = Exclude<WireStepType, 'execute' | 'next-step-runner'>;

export type Step = WireStep & { step_type: StepType; args: string[] };

export interface Steps extends Required<Omit<WireSteps, 'instructions'>> {
  instructions: Step[];
}

export type StepReply = WireStepReply & { step_type: StepType };

interface InstructionRule {
  steps: StepType[];
  backedOff?: boolean;
  nextInstructionSeconds?: number;
  postStepAction?: 'continue' | 'exit';
}

/** Every step type the service hands out; the record names each, so tsc sees one added to the type. */
const STEP_TYPES: Readonly<Record<StepType, true>> = {
  'connectivity-check': true,
  inventory: true,
  install: true,
  'free-network-addresses': true,
  'dhcp-lease-allocate': true,
  'api-vip-connectivity-check': true,
  'tang-connectivity-check': true,
  'ntp-synchronizer': true,
  'installation-disk-speed-check': true,
  'container-image-availability': true,
  'domain-resolution': true,
  'stop-installation': true,
  'logs-gather': true,
  'upgrade-agent': true,
  'download-boot-artifacts': true,
  'reboot-for-reclaim': true,
  'verify-vips': true,
};
const readStepType = oneOf(STEP_TYPES);
const readPostStepAction = oneOf<'continue' | 'exit'>({ continue: true, exit: true });

type CatalogueRule = { steps: readonly string[]; backedOff?: boolean; nextInstructionSeconds?: number; postStepAction?: string };

/** A rule book of the catalogue with its names checked: a misspelt step or action fails at load, not at a poll. */
function instructionRules(book: Readonly<Record<string, CatalogueRule>>): Readonly<Record<string, InstructionRule>> {
  return Object.fromEntries(
    Object.entries(book).map(([status, rule]) => {
      const steps = rule.steps.map((name) => readStepType(name) ?? fail(`host-instructions.json: ${status} names an unknown step ${name}`));
      const postStepAction =
        rule.postStepAction === undefined
          ? undefined
          : (readPostStepAction(rule.postStepAction) ?? fail(`host-instructions.json: ${status} has an unknown postStepAction ${rule.postStepAction}`));
      const { backedOff, nextInstructionSeconds } = rule;
      return [
        status,
        {
          steps,
          ...(backedOff !== undefined ? { backedOff } : {}),
          ...(nextInstructionSeconds !== undefined ? { nextInstructionSeconds } : {}),
          ...(postStepAction ? { postStepAction } : {}),
        },
      ];
    }),
  );
}

function fail(message: string): never {
  throw new Error(message);
}

const RULES = {
  day1: instructionRules(instructions.day1),
  day2: instructionRules(instructions.day2),
  unbound: instructionRules(instructions.unbound),
  defaultNextInstructionSeconds: instructions.defaultNextInstructionSeconds,
  backedOffNextInstructionSeconds: instructions.backedOffNextInstructionSeconds,
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

/** The role a host bound to `cluster` registers with. */
function registrationRole(cluster: Cluster): {
  role: 'master' | 'worker' | 'auto-assign';
  suggested_role: 'master' | 'worker' | 'auto-assign';
  bootstrap?: true;
} {
  if (cluster.status === 'adding-hosts') return { role: 'worker', suggested_role: 'worker' };
  if (cluster.attributes.control_plane_count === 1) return { role: 'master', suggested_role: 'master', bootstrap: true };
  return { role: 'auto-assign', suggested_role: 'auto-assign' };
}

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
      // A single-node cluster's own host can only be its control plane: upstream makes it master and
      // bootstrap on registration. A host added to an installed (or imported) cluster registers as a
      // worker, as upstream's do.
      // A pool host (no cluster yet) is auto-assign too, as upstream's column defaults make it.
      ...(context.cluster ? registrationRole(context.cluster) : { role: 'auto-assign', suggested_role: 'auto-assign' }),
      registered_at: context.now,
      checked_in_at: context.now,
      discovery_agent_version: context.agentVersion,
      // The agent registers on behalf of whoever made its infra-env: upstream names them on the host.
      ...(typeof context.infraEnv.attributes.user_name === 'string' ? { user_name: context.infraEnv.attributes.user_name } : {}),
      cpu_architecture: context.infraEnv.attributes.cpu_architecture,
    },
  };
}

/** The host's installation disk as the table's messages name it (wrong boot order). */
function installationDiskOf(host: Host): InstallationDisk | undefined {
  const disk = installationDisk(host);
  const path = host.attributes.installation_disk_path ?? disk?.path;
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
  const progress = host.attributes.progress;
  const transition = transitionHost(
    { status: host.status },
    'RegisterHost',
    requestContext(host, now, {
      ...(progress
        ? { progress: { currentStage: progress.current_stage, progressInfo: progress.progress_info, stageUpdatedAt: progress.stage_updated_at } }
        : {}),
      installationDisk: installationDiskOf(host),
    }),
  );
  if (isNotAllowed(transition)) throw transition.httpStatus === 403 ? forbidden(transition.reason) : conflict(transition.reason);
  const next = withTransition(host, transition, now);
  Object.assign(next.attributes, { checked_in_at: now, registered_at: now, discovery_agent_version: agentVersion ?? host.attributes.discovery_agent_version });
  return { host: next, transition };
}

export function nextStepRunnerCommand(host: Pick<Host, 'hostId' | 'infraEnvId'>, agentVersion: string) {
  // Upstream answers only the arguments: an empty command and a zero retry are omitted (omitempty).
  return { args: [JSON.stringify({ infra_env_id: host.infraEnvId, host_id: host.hostId, agent_version: agentVersion })] };
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

/**
 * What connectivity checks tell hosts about their peers (each host with an inventory, and its
 * NICs' addresses), as a short fingerprint. The cluster's judgement stores it with when it changed,
 * so a poll of another instance, holding a peer listing taken before that, lists the cluster anew
 * instead of handing a check that misses the newest peers (one poll interval lost: a minute with
 * real agents).
 */
export function peerAddressBook(hosts: readonly Host[]): string {
  const entries = hosts
    .filter((host) => host.attributes.inventory)
    .map(
      (host) =>
        `${host.hostId}=${hostNics(host)
          .map((nic) => `${nic.mac}/${nic.ip_addresses.join(',')}`)
          .join(';')}`,
    )
    .sort();
  return createHash('sha256').update(entries.join('\n')).digest('base64url').slice(0, 22);
}

export function hostNics(host: Host): { name: string; mac: string; ip_addresses: string[] }[] {
  return (hostInventory(host)?.interfaces ?? []).map((nic) => ({
    name: nic.name ?? '',
    mac: nic.mac_address ?? '',
    ip_addresses: [...(nic.ipv4_addresses ?? []), ...(nic.ipv6_addresses ?? [])].map((cidr) => cidr.split('/')[0]!),
  }));
}

function ruleFor(host: Host, cluster: Cluster | undefined): InstructionRule | undefined {
  const book = !host.clusterId
    ? RULES.unbound
    : cluster?.status === 'adding-hosts' || host.attributes.kind === 'AddToExistingClusterHost'
      ? RULES.day2
      : RULES.day1;
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
function stepArgs(type: StepType, context: StepContext): string[] | undefined {
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
  let report: ConnectivityReport | undefined;
  try {
    report = readConnectivityReport(parseStoredJson(host.attributes, 'connectivity'));
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
const UPGRADABLE_STATUSES: ReadonlySet<string> = new Set([
  'binding',
  'discovering',
  'discovering-unbound',
  'insufficient',
  'insufficient-unbound',
  'known',
  'pending-for-input',
  'known-unbound',
]);

/**
 * Whether the host's agent runs other than the image the service's hosts must run. A host that never
 * reported its version counts as another one: upstream asks it to upgrade too (checked with its service).
 */
export function agentNeedsUpgrade(host: Host, agentImage: string): boolean {
  return !!agentImage && host.attributes.discovery_agent_version !== agentImage;
}

export function nextSteps(context: StepContext): Steps {
  const rule = ruleFor(context.host, context.cluster);
  const ruleSeconds = rule?.nextInstructionSeconds ?? (rule?.backedOff ? RULES.backedOffNextInstructionSeconds : RULES.defaultNextInstructionSeconds);
  const seconds = context.maxNextInstructionSeconds !== undefined ? Math.min(ruleSeconds, context.maxNextInstructionSeconds) : ruleSeconds;
  const images = context.images ?? catalogueAgentImages();
  if (context.upgradeAgent !== false && UPGRADABLE_STATUSES.has(context.host.status) && agentNeedsUpgrade(context.host, images.agent)) {
    // The upgrade replaces every other step: the agent restarts with the new image and is asked again.
    const step: Step = { step_type: 'upgrade-agent', step_id: `upgrade-agent-${context.stepIdSuffix()}`, args: stepArgs('upgrade-agent', context)! };
    return {
      next_instruction_seconds: Math.min(RULES.defaultNextInstructionSeconds, seconds || RULES.defaultNextInstructionSeconds),
      post_step_action: 'continue',
      instructions: [step],
    };
  }
  const steps: Step[] = [];
  for (const type of rule?.steps ?? []) {
    const args = stepArgs(type, context);
    if (args) steps.push({ step_type: type, step_id: `${type}-${context.stepIdSuffix()}`, args });
  }
  return { next_instruction_seconds: seconds, post_step_action: rule?.postStepAction ?? 'continue', instructions: steps };
}

/**
 * What a poll writes of itself. Liveness only when it is getting stale, and then alone (the host's
 * small liveness item: Store.hosts.checkIn), so a poll is usually a read and at most one write
 * unit. The host itself only when the poll says something its verdicts or its cluster's read
 * beyond liveness: another agent version (it decides an upgrade), the host's first clock reading
 * (the time-sync check), or a clock that moved against the service's (the cluster's clock spread:
 * the write reaches the stream, whose follow-up judges the cluster).
 */
export function checkInWrite(host: Host, now: Date, agentVersion: string | undefined, hostTimestamp?: number): 'host' | 'liveness' | 'none' {
  if (agentVersion && agentVersion !== host.attributes.discovery_agent_version) return 'host';
  if (hostTimestamp !== undefined) {
    if (host.attributes.timestamp === undefined) return 'host';
    if (clockMoved(host, { attributes: { timestamp: hostTimestamp, checked_in_at: now.toISOString() } })) return 'host';
  }
  const last = Date.parse(host.attributes.checked_in_at ?? '');
  return Number.isNaN(last) || now.getTime() - last >= CHECK_IN_WRITE_INTERVAL_MS ? 'liveness' : 'none';
}

/**
 * Checks handed out once until answered: the agent runs a long check for minutes (an address
 * scan, fio, image pulls, log gathering, an upgrade), and upstream's agent guards against a
 * second run only inside its containers; a connectivity check makes it ping every peer, and one
 * handed while the last is still replying is dropped. One handed out is not handed again until
 * answered or until its window passes. The marks are stored on the host (`long_checks_handed_at`)
 * and claimed by a conditional write, so that two polls answered by two instances never both
 * hand the same check.
 */
export const LONG_CHECK_WINDOW_MS = 60_000;
export const HANDED_ONCE_WINDOW_MS: Readonly<Record<string, number>> = {
  'free-network-addresses': LONG_CHECK_WINDOW_MS,
  'installation-disk-speed-check': LONG_CHECK_WINDOW_MS,
  'container-image-availability': LONG_CHECK_WINDOW_MS,
  'logs-gather': LONG_CHECK_WINDOW_MS,
  'upgrade-agent': LONG_CHECK_WINDOW_MS,
  'connectivity-check': CONNECTIVITY_RETRY_MS,
};
export const LONG_CHECKS: ReadonlySet<string> = new Set(Object.keys(HANDED_ONCE_WINDOW_MS));
export const LONG_CHECKS_HANDED_AT = 'long_checks_handed_at';
/** The stored marks by check type (ISO times). */
const readMarks = recordOf(text);

/** Whether a check of this type handed out is still awaiting its answer (its mark is inside its window). */
export function awaitingAnswer(stored: unknown, type: string, now: Date): boolean {
  const mark = isJsonObject(stored) ? stored[type] : undefined;
  const at = Date.parse(typeof mark === 'string' ? mark : '');
  return Number.isFinite(at) && at <= now.getTime() && now.getTime() - at < (HANDED_ONCE_WINDOW_MS[type] ?? LONG_CHECK_WINDOW_MS);
}

/**
 * The claim a poll stores to hand a check of this type out: its mark, taken only where the stored
 * mark is absent, older than `staleBefore` (its window passed) or later than `at` (a clock that
 * went back): the condition of awaitingAnswer, as a store can test it in one conditional write.
 */
export function longCheckClaim(type: string, now: Date): { at: string; staleBefore: string } {
  return { at: now.toISOString(), staleBefore: new Date(now.getTime() - (HANDED_ONCE_WINDOW_MS[type] ?? LONG_CHECK_WINDOW_MS) + 1).toISOString() };
}

/** Which of the wanted checks this poll may hand out, and the marks to store with them. */
export function claimLongChecks(stored: unknown, wanted: readonly string[], now: Date): { claimed: string[]; marks: Record<string, string> } {
  const marks = { ...(readMarks(stored) ?? {}) };
  const claimed = wanted.filter((type) => !awaitingAnswer(marks, type, now));
  for (const type of claimed) marks[type] = now.toISOString();
  return { claimed, marks };
}
