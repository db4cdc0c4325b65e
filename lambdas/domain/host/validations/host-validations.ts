/**
 * Host validations, as upstream's refresh preprocessor runs them (internal/host/
 * refresh_status_preprocessor.go): every `host-validation-id` is evaluated against the host, its
 * cluster and the cluster's other hosts; the results feed `summarizeHostValidations` (the state
 * machine), `validationsInfo` (the host's validations_info document) and `validationChanges`
 * (host_validation_failed / host_validation_fixed events). Pure: the clock and configuration
 * come in with the input.
 *
 * The checks live in host-validations-hardware.ts, -network.ts, -dns.ts and -operators.ts; disk
 * eligibility in -disks.ts; role requirements and suggestion in -roles.ts; cross-host connectivity
 * in -connectivity.ts; shared types and helpers in -model.ts.
 */
import type { Cluster, Host, InfraEnv } from '../../core/entities.js';
import { HOST_TIMEOUTS, type ValidationStatus } from '../host-facts.js';
import type { HostRole, HostStage } from '../host-states.js';
import { eligibleDisks, findDisk } from './host-validations-disks.js';
import { DNS_CHECKS } from './host-validations-dns.js';
import { HARDWARE_CHECKS } from './host-validations-hardware.js';
import { HOST_VALIDATION_CATEGORY_OF, HOST_VALIDATION_CATEGORIES, type HostValidationCategory, type HostValidationId } from '../../core/validation-ids.js';
import {
  clusterFacts,
  readInventory,
  readJson,
  type Check,
  type ClusterFacts,
  type HostValidationResult,
  type Inventory,
  type InventoryDisk,
  type Outcome,
  type PeerHost,
  type ResolvedValidationConfig,
  type ValidationContext,
} from './host-validations-model.js';
import { NETWORK_CHECKS } from './host-validations-network.js';
import { operatorOutcomes, operatorsHostRequirements } from './host-validations-operators.js';
import { catalogueAgentImages } from '../../catalogues/catalogues.js';
import {
  anyRoleMinimum,
  DEFAULT_EDGE_WORKER_PRODUCTS,
  isEdgeWorker,
  ocpRoleRequirements,
  suggestRoles,
  unboundRequirements,
  withOperators,
} from './host-validations-roles.js';
import { hardwareMinimums, type HardwareRequirementsEntry } from '../../catalogues/preflight.js';

export type { HostValidationResult } from './host-validations-model.js';
export { HOST_VALIDATION_CATEGORIES, type HostValidationCategory, type HostValidationId } from '../../core/validation-ids.js';
export { connectivityMajorityGroups, ipCollisions, type ConnectivityGroups } from './host-validations-connectivity.js';
export { suggestRoles } from './host-validations-roles.js';

// ---------------------------------------------------------------- input

export interface HostValidationConfig {
  /** HOST_MAX_DISCONNECTION_TIME (3 minutes); the bootstrap host gets 2 more. */
  maxDisconnectionMs?: number;
  bootstrapExtraDisconnectionMs?: number;
  /** How far the host's clock may lag the service (20 minutes) or lead it (1 hour). */
  maxServiceAheadOfHostMs?: number;
  maxHostAheadOfServiceMs?: number;
  /** DISABLED_HOST_VALIDATIONS: reported as disabled unless the cluster has its own ignore list. */
  disabledValidations?: readonly string[];
  /** ENABLE_UPGRADE_AGENT and AGENT_DOCKER_IMAGE: hosts must run the service's agent image. */
  enableUpgradeAgent?: boolean;
  agentImage?: string;
  /** EDGE_WORKERS_PRODUCT_NAMES: ARM SoCs held to the edge-worker minimums. */
  edgeWorkerProductNames?: readonly string[];
  /** ENABLE_SINGLE_NODE_DNSMASQ: a single node serves its own cluster DNS names. */
  enableSingleNodeDnsmasq?: boolean;
  /** Image pulls slower than this (bytes per second) count as failed. */
  imageDownloadRateThreshold?: number;
  /** HW_VALIDATOR_REQUIREMENTS; the shipped catalogue when absent. */
  hardwareRequirements?: HardwareRequirementsEntry[];
}

export interface HostValidationInput {
  host: Host;
  /** The host's cluster; absent for an unbound (pool) host. */
  cluster?: Cluster;
  /** The cluster's hosts (this one may be included or not). */
  clusterHosts?: readonly Host[];
  /** The host's infra-env: an unbound host's version and NTP sources come from it. */
  infraEnv?: InfraEnv;
  now: Date;
  config?: HostValidationConfig;
  /**
   * The role an auto-assign host is taken to have. When absent it is computed with
   * `suggestRoles` over the cluster's hosts (registration order), as the lead persists it.
   */
  suggestedRole?: HostRole;
  /**
   * Judge against the peers as `clusterHosts` lists them even when this host changed since that
   * listing: what depends on the whole cluster (connectivity groups, IP collisions, suggested
   * roles, hostnames of the others) is then shared with every judgement of that listing, and only
   * this host's own facts are read anew. For large clusters, where recomputing the cluster-wide
   * facts per judgement made each step reply cost O(hosts); they converge when the host is next
   * judged against a newer listing.
   */
  peersAsListed?: boolean;
}

const MINUTE_MS = 60_000;

function resolveConfig(config: HostValidationConfig = {}): ResolvedValidationConfig {
  return {
    maxDisconnectionMs: config.maxDisconnectionMs ?? HOST_TIMEOUTS.maxDisconnectionMs,
    bootstrapExtraDisconnectionMs: config.bootstrapExtraDisconnectionMs ?? HOST_TIMEOUTS.bootstrapExtraDisconnectionMs,
    maxServiceAheadOfHostMs: config.maxServiceAheadOfHostMs ?? 20 * MINUTE_MS,
    maxHostAheadOfServiceMs: config.maxHostAheadOfServiceMs ?? 60 * MINUTE_MS,
    disabledValidations: config.disabledValidations ?? [],
    enableUpgradeAgent: config.enableUpgradeAgent ?? true,
    agentImage: config.agentImage ?? catalogueAgentImages().agent,
    edgeWorkerProductNames: config.edgeWorkerProductNames ?? DEFAULT_EDGE_WORKER_PRODUCTS,
    enableSingleNodeDnsmasq: config.enableSingleNodeDnsmasq ?? true,
    imageDownloadRateThreshold: config.imageDownloadRateThreshold ?? 0.001,
  };
}

// ---------------------------------------------------------------- context

const ROLES: readonly HostRole[] = ['auto-assign', 'master', 'arbiter', 'worker', 'bootstrap'];
const roleOf = (value: unknown): HostRole => ROLES.find((role) => role === value) ?? 'auto-assign';

function peerOf(host: Host): PeerHost {
  const inventory = readInventory(host.attributes);
  const requested = host.attributes.requested_hostname;
  const assignedRole = roleOf(host.attributes.role);
  return {
    id: host.hostId,
    host,
    ...(inventory ? { inventory } : {}),
    assignedRole,
    role: assignedRole,
    hostname: typeof requested === 'string' && requested !== '' ? requested : (inventory?.hostname ?? ''),
  };
}

/** The selected installation disk, else the one upstream would select. */
function installationDiskOf(peer: PeerHost, eligible: readonly InventoryDisk[]): InventoryDisk | undefined {
  const attributes = peer.host.attributes;
  const reference = attributes.installation_disk_id || attributes.installation_disk_path;
  return findDisk(peer.inventory?.disks ?? [], reference) ?? eligible[0];
}

interface SharedPeers {
  cluster: Cluster;
  config: HostValidationConfig | undefined;
  peers: PeerHost[];
  indexOf: Map<Host, number>;
  indexById: Map<string, number>;
}

/**
 * The cluster's hosts as the validation of each of them reads them (inventories parsed, roles
 * suggested), computed once per listing of the cluster and shared by every host of that listing:
 * building them per host would make a pass over n hosts parse n² inventories. Shared only when
 * the host validated is the listing's own copy (so the peers are exactly what the per-host
 * computation builds) and no host appears twice; otherwise undefined.
 */
const peersByListing = new WeakMap<readonly Host[], SharedPeers | null>();

function sharedPeers(input: HostValidationInput, clusterPeers: (hosts: readonly Host[]) => PeerHost[]): { peers: PeerHost[]; self: PeerHost } | undefined {
  const listing = input.clusterHosts;
  if (!listing || !input.cluster) return undefined;
  let shared = peersByListing.get(listing);
  // The same version of the cluster is the same cluster, whichever read brought it.
  const sameCluster = (cluster: Cluster) =>
    cluster === input.cluster || (cluster.clusterId === input.cluster!.clusterId && cluster.version === input.cluster!.version);
  if (shared === undefined || (shared && (!sameCluster(shared.cluster) || shared.config !== input.config))) {
    if (!input.peersAsListed && !listing.includes(input.host)) return undefined;
    const indexOf = new Map(listing.map((host, index) => [host, index]));
    const indexById = new Map(listing.map((host, index) => [host.hostId, index]));
    shared = indexById.size === listing.length ? { cluster: input.cluster, config: input.config, peers: clusterPeers(listing), indexOf, indexById } : null;
    peersByListing.set(listing, shared);
  }
  if (!shared) return undefined;
  const index = shared.indexOf.get(input.host);
  if (index !== undefined) return { peers: shared.peers, self: shared.peers[index]! };
  const listedIndex = input.peersAsListed ? shared.indexById.get(input.host.hostId) : undefined;
  if (listedIndex === undefined) return undefined;
  // This host as it is now, with the role the listing's judgement suggested for it.
  const listed = shared.peers[listedIndex]!;
  const self = peerOf(input.host);
  if (self.assignedRole === 'auto-assign' && listed.assignedRole === 'auto-assign') self.role = listed.role;
  return { peers: shared.peers, self };
}

function buildContext(input: HostValidationInput): ValidationContext {
  const config = resolveConfig(input.config);
  const cluster: ClusterFacts | undefined = input.cluster ? clusterFacts(input.cluster) : undefined;
  const version = cluster?.openshiftVersion ?? String(input.infraEnv?.attributes.openshift_version ?? '');
  const minimums = hardwareMinimums(version, input.config?.hardwareRequirements);

  const clusterPeers = (hosts: readonly Host[]): PeerHost[] => {
    const peers = hosts.map(peerOf);
    applySuggestedRoles(peers);
    return peers;
  };

  // Disk eligibility depends on the role's disk size, which for auto-assign is the worker's.
  const diskSize = (peer: PeerHost, role: HostRole) =>
    cluster
      ? ocpRoleRequirements(minimums, role, cluster.singleNode, isEdgeWorker(peer.inventory, config.edgeWorkerProductNames)).diskSizeGb
      : unboundRequirements(minimums).diskSizeGb;
  const eligibleFor = (peer: PeerHost, role: HostRole): InventoryDisk[] =>
    peer.inventory ? eligibleDisks({ inventory: peer.inventory, minDiskSizeGb: diskSize(peer, role), openshiftVersion: version }) : [];

  function applySuggestedRoles(peers: PeerHost[]): void {
    if (!cluster) return;
    const needsSuggestion = peers.some((peer) => peer.assignedRole === 'auto-assign');
    const suggestions = needsSuggestion
      ? suggestRoles({
          cluster,
          hosts: peers,
          minimums,
          edgeWorkerProductNames: config.edgeWorkerProductNames,
          installationDiskOf: (peer) => installationDiskOf(peer, eligibleFor(peer, 'master')),
        })
      : new Map<string, HostRole>();
    for (const peer of peers) {
      if (peer.assignedRole !== 'auto-assign') continue;
      const suggested = peer.id === input.host.hostId ? (input.suggestedRole ?? suggestions.get(peer.id)) : suggestions.get(peer.id);
      if (suggested) peer.role = suggested;
    }
  }

  const shared = cluster && input.suggestedRole === undefined ? sharedPeers(input, clusterPeers) : undefined;
  let peers: PeerHost[];
  let self: PeerHost;
  if (shared) {
    ({ peers, self } = shared);
  } else {
    const others = (input.clusterHosts ?? []).filter((peer) => peer.hostId !== input.host.hostId);
    peers = cluster ? clusterPeers([input.host, ...others]) : [peerOf(input.host)];
    self = peers[0]!;
  }
  const inventory: Inventory | undefined = self.inventory;
  const eligible = eligibleFor(self, self.role);
  const installationDisk = installationDiskOf(self, eligible);
  let requirements = unboundRequirements(minimums);
  if (cluster) {
    const ocp = ocpRoleRequirements(minimums, self.role, cluster.singleNode, isEdgeWorker(inventory, config.edgeWorkerProductNames));
    requirements = withOperators(
      ocp,
      operatorsHostRequirements({
        cluster,
        host: self,
        ...(inventory ? { inventory } : {}),
        clusterHosts: peers,
        ...(installationDisk ? { installationDisk } : {}),
      }),
    );
  }
  const minimum = anyRoleMinimum(minimums, cluster?.singleNode ?? false);
  const stage = input.host.attributes.progress?.current_stage;
  return {
    self,
    attributes: input.host.attributes,
    ...(inventory ? { inventory } : {}),
    ...(cluster ? { cluster } : {}),
    ...(input.infraEnv ? { infraEnv: input.infraEnv } : {}),
    day2Host: input.host.attributes.kind === 'AddToExistingClusterHost',
    clusterHosts: peers,
    requirements,
    eligibleDisks: eligible,
    ...(installationDisk ? { installationDisk } : {}),
    minCpuCores: minimum.cpuCores,
    minRamMib: minimum.ramMib,
    ...(stage ? { stage } : {}),
    openshiftVersion: version,
    now: input.now,
    config,
  };
}

// ---------------------------------------------------------------- evaluation

/**
 * The order upstream evaluates (and lists) its own validations; operator results follow, sorted by
 * id. release-domain-name-resolved-correctly is in the enum but upstream does not run it (MGMT-15213:
 * behind a mirror or proxy it failed although the installation succeeds), and its host document
 * never lists it: neither does ours.
 */
const EVALUATION_ORDER: readonly HostValidationId[] = [
  'connected',
  'media-connected',
  'has-inventory',
  'inventory-not-partially-truncated',
  'inventory-not-fully-truncated',
  'has-min-cpu-cores',
  'has-min-memory',
  'has-min-valid-disks',
  'machine-cidr-defined',
  'has-cpu-cores-for-role',
  'has-memory-for-role',
  'hostname-unique',
  'belongs-to-machine-cidr',
  'hostname-valid',
  'ignition-downloadable',
  'belongs-to-majority-group',
  'mtu-valid',
  'valid-platform-network-settings',
  'ntp-synced',
  'time-synced-between-host-and-service',
  'container-images-available',
  'sufficient-installation-disk-speed',
  'sufficient-network-latency-requirement-for-role',
  'sufficient-packet-loss-requirement-for-role',
  'has-default-route',
  'api-domain-name-resolved-correctly',
  'api-int-domain-name-resolved-correctly',
  'apps-domain-name-resolved-correctly',
  'compatible-with-cluster-platform',
  'dns-wildcard-not-configured',
  'disk-encryption-requirements-satisfied',
  'non-overlapping-subnets',
  'vsphere-disk-uuid-enabled',
  'compatible-agent',
  'no-skip-installation-disk',
  'no-skip-missing-disk',
  'no-ip-collisions-in-network',
  'no-iscsi-nic-belongs-to-machine-cidr',
];

const CHECKS: Readonly<Partial<Record<HostValidationId, Check>>> = { ...HARDWARE_CHECKS, ...NETWORK_CHECKS, ...DNS_CHECKS };

/** After the reboot the agent is gone by design: liveness and clock checks stop meaning anything. */
const MANUAL_REBOOT_STAGES: readonly HostStage[] = ['Rebooting', 'Waiting for ignition', 'Configuring', 'Joined', 'Done'];
const SKIPPED_IN_STAGES: Readonly<Partial<Record<HostValidationId, (stage: HostStage) => boolean>>> = {
  connected: (stage) => MANUAL_REBOOT_STAGES.includes(stage),
  'media-connected': (stage) => MANUAL_REBOOT_STAGES.includes(stage),
  'ntp-synced': (stage) => MANUAL_REBOOT_STAGES.includes(stage),
  'time-synced-between-host-and-service': (stage) => MANUAL_REBOOT_STAGES.includes(stage),
  // Once installation started, the agent that would be upgraded is no longer what runs.
  'compatible-agent': () => true,
};

export const VALIDATION_DISABLED_MESSAGE = 'Validation disabled by configuration';

/**
 * Every host validation, in upstream's order: its own checks, then one per OLM operator.
 * Results that upstream leaves out of validations_info carry `hidden`; they still count for
 * `summarizeHostValidations`, so a check that does not apply never blocks the host.
 */
/**
 * The role the validations judge the host as: its own, or for auto-assign the suggestion over the
 * cluster's hosts. Installing with it installs what the user saw validated.
 */
export function judgedRole(input: HostValidationInput): HostRole {
  return buildContext(input).self.role;
}

export function validateHost(input: HostValidationInput): HostValidationResult[] {
  return judgeHostValidations(input).results;
}

/** The validations and the role they judged the host as (its suggested role when auto-assign), from one reading of the cluster. */
export function judgeHostValidations(input: HostValidationInput): { results: HostValidationResult[]; role: HostRole } {
  const ctx = buildContext(input);
  // A cluster with its own ignore list overrides the service-wide disabled list, as upstream.
  const disabled = ctx.cluster?.ignoredHostValidations ? [] : ctx.config.disabledValidations;
  const result = (id: HostValidationId, outcome: Outcome): HostValidationResult => {
    const skipped = ctx.stage !== undefined && (SKIPPED_IN_STAGES[id]?.(ctx.stage) ?? false);
    const hidden = outcome.hidden || skipped;
    return { id, category: HOST_VALIDATION_CATEGORY_OF.get(id)!, status: outcome.status, message: outcome.message, ...(hidden ? { hidden: true } : {}) };
  };
  const results = EVALUATION_ORDER.map((id) => {
    if (disabled.includes(id)) return result(id, { status: 'disabled', message: VALIDATION_DISABLED_MESSAGE });
    return result(id, CHECKS[id]!(ctx));
  });
  const operatorContext = ctx.cluster && {
    cluster: ctx.cluster,
    host: ctx.self,
    clusterHosts: ctx.clusterHosts,
    ...(ctx.inventory ? { inventory: ctx.inventory } : {}),
    ...(ctx.installationDisk ? { installationDisk: ctx.installationDisk } : {}),
  };
  const operators = operatorOutcomes(operatorContext);
  for (const id of [...HOST_VALIDATION_CATEGORIES.operators].sort()) {
    // Upstream's disabled list never reaches operator validations; here it does, so an operator
    // check can be switched off like any other.
    results.push(result(id, disabled.includes(id) ? { status: 'disabled', message: VALIDATION_DISABLED_MESSAGE } : operators.get(id)!));
  }
  return { results, role: ctx.self.role };
}

// ---------------------------------------------------------------- validations_info and changes

export interface ValidationsInfoEntry {
  id: string;
  status: ValidationStatus;
  message: string;
}
export type ValidationsInfo = Partial<Record<HostValidationCategory, ValidationsInfoEntry[]>>;

/**
 * The host's validations_info JSON text: results by category (categories in alphabetical order, as
 * Go writes map keys), hidden results left out. A failing validation the cluster ignores is still
 * reported as failing, as upstream does: ignoring only stops it from blocking the host.
 */
export function validationsInfo(results: readonly HostValidationResult[]): string {
  const info: ValidationsInfo = {};
  for (const category of [...new Set(HOST_VALIDATION_CATEGORY_OF.values())].sort()) {
    const entries = results.filter((r) => r.category === category && !r.hidden).map(({ id, status, message }) => ({ id, status, message }));
    if (entries.length > 0) info[category] = entries;
  }
  return JSON.stringify(info);
}

export function parseValidationsInfo(text: unknown): ValidationsInfo {
  const parsed = readJson<ValidationsInfo>(text);
  return parsed && typeof parsed === 'object' ? parsed : {};
}

export interface ValidationChange {
  id: string;
  from: ValidationStatus;
  to: ValidationStatus;
  /** failed: emit host_validation_failed; fixed: host_validation_fixed; changed: no user event. */
  kind: 'failed' | 'fixed' | 'changed';
  /** For host_validation_failed's {failure_message}. */
  failureMessage?: string;
}

const statuses = (info: ValidationsInfo): Map<string, ValidationStatus> =>
  new Map(Object.values(info).flatMap((entries) => (entries ?? []).map((entry) => [entry.id, entry.status] as const)));

/**
 * Status flips between the stored validations_info and a new one, as upstream reports them: only
 * validations present in both; becoming failure is "failed" (worded differently when it used to
 * succeed), failure becoming success is "fixed", any other flip is only "changed".
 */
export function validationChanges(before: string | undefined, after: string | readonly HostValidationResult[]): ValidationChange[] {
  const previous = statuses(parseValidationsInfo(before));
  const next = statuses(parseValidationsInfo(typeof after === 'string' ? after : validationsInfo(after)));
  const changes: ValidationChange[] = [];
  for (const [id, to] of next) {
    const from = previous.get(id);
    if (from === undefined || from === to) continue;
    if (to === 'failure') {
      changes.push({ id, from, to, kind: 'failed', failureMessage: from === 'success' ? 'that used to succeed is now failing' : 'failed' });
    } else if (to === 'success' && from === 'failure') {
      changes.push({ id, from, to, kind: 'fixed' });
    } else {
      changes.push({ id, from, to, kind: 'changed' });
    }
  }
  return changes;
}

/** Validations whose verdict depends on what the cluster's other hosts reported (or which roles they have). */
export const PEER_VALIDATIONS: readonly string[] = [
  'belongs-to-majority-group',
  'hostname-unique',
  'no-ip-collisions-in-network',
  'sufficient-network-latency-requirement-for-role',
  'sufficient-packet-loss-requirement-for-role',
];

/** Whether a peer-dependent validation went from success to failure between two validations_info texts. */
export function peerValidationLost(before: string | undefined, after: string | undefined): boolean {
  return validationChanges(before, after ?? '{}').some(
    (change) => change.from === 'success' && change.to === 'failure' && PEER_VALIDATIONS.includes(change.id),
  );
}

/** Whether the new document should be stored: it differs and is not empty (upstream's didValidationChanged). */
export function validationsInfoChanged(before: string | undefined, after: string): boolean {
  const next = parseValidationsInfo(after);
  if (Object.keys(next).length === 0) return false;
  return JSON.stringify(parseValidationsInfo(before)) !== JSON.stringify(next);
}
