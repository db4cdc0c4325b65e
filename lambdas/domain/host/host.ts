/**
 * The host as the upstream API shows it, and what a user may change on it. Agents create and
 * drive hosts (the lifecycle work); here are the user-side rules. Pure.
 */
import { badRequest, conflict } from '../core/errors.js';
import { UNSET_TIME, type Cluster, type Host, type HostAttributes } from '../core/entities.js';
import { hostInventory, withoutGoEmptyValues } from './inventory.js';
import { isBelow } from '../core/ocp-version.js';
import { applyHostEffects } from './host-effects.js';
import { isNotAllowed, transitionHost, type HostTransition, type HostTransitionContext } from './host-state-machine.js';
import { hostnameProblem } from '../../../contracts/input-checks.js';
import { stagesFor, type HostStage } from './host-states.js';
import type { HostUpdateParams } from '../../../contracts/wire.js';

/** States in which a user may change a host's name, role, disks or labels. */
export const HOST_UPDATABLE_STATES = new Set([
  'discovering',
  'known',
  'insufficient',
  'pending-for-input',
  'disconnected',
  'discovering-unbound',
  'known-unbound',
  'insufficient-unbound',
  'disconnected-unbound',
]);
/** States a host cannot be deleted in: it is being written to disk. */
export const HOST_BUSY_STATES = new Set(['preparing-for-installation', 'preparing-successful', 'installing', 'installing-in-progress']);
export const CLUSTER_ACCEPTING_HOSTS = new Set(['insufficient', 'ready', 'pending-for-input', 'adding-hosts']);

/** Validation results a user may reset, and the host data they were computed from. */
export const RESETTABLE_VALIDATIONS: Record<string, string> = {
  'sufficient-installation-disk-speed': 'disks_info',
  'container-images-available': 'images_status',
};

const LABEL_NAME = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)$/;
const LABEL_PREFIX = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function labelProblem(key: string, value: string): string | undefined {
  const [head = '', tail = ''] = key.split('/', 2);
  const [prefix, name] = key.includes('/') ? [head, tail] : [undefined, key];
  if (!LABEL_NAME.test(name) || (prefix !== undefined && (!LABEL_PREFIX.test(prefix) || prefix.length > 253))) {
    return `node label key "${key}" is not a valid Kubernetes label key`;
  }
  if (value !== '' && !LABEL_NAME.test(value)) return `node label value "${value}" for "${key}" is not a valid Kubernetes label value`;
  return undefined;
}

/** The arbiter role from this version on (MinimumVersionForArbiterClusters). */
const ARBITER_VERSION = '4.19';
/** None as an arbiter cluster's platform from this version on (MinimumVersionForArbiterClustersWithNonePlatform). */
const ARBITER_NONE_PLATFORM_VERSION = '4.22';

/**
 * Why a host of this cluster cannot take the arbiter role, or undefined when it can (upstream's
 * ValidateClusterSupportsArbiterHosts): a day-1 cluster of OpenShift 4.19 or newer on baremetal
 * (or none from 4.22). The control plane count is not checked: the cluster validations judge it.
 */
export function arbiterHostsProblem(cluster: Pick<Cluster, 'attributes'>): string | undefined {
  if (cluster.attributes.kind === 'AddHostsCluster') return undefined;
  const version = String(cluster.attributes.openshift_version ?? '');
  if (isBelow(version, ARBITER_VERSION)) return `cluster's openshift version must be at least ${ARBITER_VERSION}`;
  const platform = (cluster.attributes.platform as { type?: string } | undefined)?.type;
  if (!platform) return "cluster's platform must be set";
  if (!isBelow(version, ARBITER_NONE_PLATFORM_VERSION))
    return platform === 'baremetal' || platform === 'none' ? undefined : "cluster's platform must be baremetal or none";
  return platform === 'baremetal' ? undefined : "cluster's platform must be baremetal";
}

/** Fencing credentials (two-node clusters with fencing) from this version on (MinimumVersionForTwoNodesWithFencing). */
const FENCING_VERSION = '4.20';

/**
 * Why a host of this cluster cannot be given fencing credentials, or undefined when it can
 * (upstream's ValidateClusterSupportsFencingCredentials): a day-1 cluster of OpenShift 4.20 or
 * newer on baremetal or none.
 */
export function fencingCredentialsProblem(cluster: Pick<Cluster, 'attributes'>): string | undefined {
  if (cluster.attributes.kind === 'AddHostsCluster') return undefined;
  if (isBelow(String(cluster.attributes.openshift_version ?? ''), FENCING_VERSION)) return `cluster's openshift version must be at least ${FENCING_VERSION}`;
  const platform = (cluster.attributes.platform as { type?: string } | undefined)?.type;
  return platform === 'baremetal' || platform === 'none' ? undefined : "cluster's platform must be baremetal or none";
}

/** Upstream's answer (a 409) to an installation disk that is not one of the host's eligible disks. */
const NOT_A_VALID_DISK = "Requested installation disk is not part of the host's valid disks";

/** Applies a `host-update-params` document. */
export function applyHostUpdate(host: Host, params: HostUpdateParams, cluster: Cluster | undefined, now: string): Host {
  if (!HOST_UPDATABLE_STATES.has(host.status)) {
    throw conflict(`Host ${host.hostId} is in status ${host.status} and cannot be updated now`);
  }
  const next = structuredClone(host);
  const attributes = next.attributes;

  if (typeof params.host_name === 'string') {
    const problem = hostnameProblem(params.host_name);
    if (problem) throw badRequest(problem);
    attributes.requested_hostname = params.host_name;
  }
  if (typeof params.host_role === 'string') {
    if (!host.clusterId || !cluster) throw badRequest('a host gets a role only once it is bound to a cluster');
    if (cluster.attributes.control_plane_count === 1 && !['master', 'auto-assign'].includes(params.host_role)) {
      throw badRequest(`a single-node cluster's host is its control plane: role ${params.host_role} is not possible`);
    }
    const arbiterProblem = params.host_role === 'arbiter' ? arbiterHostsProblem(cluster) : undefined;
    if (arbiterProblem) throw badRequest(`Cannot set role arbiter to host ${host.hostId} in infra-env ${host.infraEnvId}: ${arbiterProblem}`);
    attributes.role = params.host_role;
    if (params.host_role !== 'auto-assign') attributes.suggested_role = params.host_role;
  }
  if (Array.isArray(params.disks_selected_config)) {
    // As upstream: only the disk given the install role counts, and there must be exactly one (a
    // list without one asks to install on no disk, which is not one of the host's valid disks).
    const disks = hostInventory(host)?.disks ?? [];
    const installs = params.disks_selected_config.filter((d) => d.role === 'install');
    if (installs.length > 1) throw conflict('duplicate setting of installation path by the user');
    const choice = installs[0];
    const disk = choice && disks.find((d) => d.id === choice.id || d.path === choice.id);
    // The stored inventory leaves a false `eligible` out (as Go does): an ineligible disk is one with reasons.
    const eligibility = disk?.installation_eligibility;
    if (!disk || eligibility?.eligible === false || (eligibility?.not_eligible_reasons?.length ?? 0) > 0) {
      // Upstream's answer: a conflict with the host's state, not a malformed request.
      throw conflict(NOT_A_VALID_DISK);
    }
    attributes.installation_disk_id = disk.id;
    attributes.installation_disk_path = disk.path;
  }
  if (Array.isArray(params.node_labels)) {
    const labels = params.node_labels;
    for (const label of labels) {
      const problem = labelProblem(label.key, label.value);
      if (problem) throw badRequest(problem);
    }
    attributes.node_labels = JSON.stringify(Object.fromEntries(labels.map((l) => [l.key, l.value])));
  }
  if (Array.isArray(params.disks_skip_formatting) && params.disks_skip_formatting.length > 0) {
    attributes.skip_formatting_disks = skippedFormattingAfter(host, params.disks_skip_formatting).join(',');
  }
  if (params.fencing_credentials && typeof params.fencing_credentials === 'object') {
    // Kept write-only (never in an answer): install-config's fencing section and the two-node
    // fencing topology read them.
    const problem = cluster ? fencingCredentialsProblem(cluster) : undefined;
    if (problem) throw badRequest(`Cannot set fencing credentials to host ${host.hostId} in infra-env ${host.infraEnvId}: ${problem}`);
    attributes.fencing_credentials = JSON.stringify(params.fencing_credentials);
  }
  if (typeof params.machine_config_pool_name === 'string') attributes.machine_config_pool_name = params.machine_config_pool_name;
  if (typeof params.ignition_endpoint_token === 'string') {
    // Kept for fetching the day-2 ignition; the host document only says whether one is set (false left out, as Go).
    attributes.ignition_endpoint_token = params.ignition_endpoint_token;
    if (params.ignition_endpoint_token !== '') attributes.ignition_endpoint_token_set = true;
    else delete attributes.ignition_endpoint_token_set;
  }
  next.updatedAt = now;
  return next;
}

/**
 * The disks skipped from formatting once a request's changes apply to the ones already skipped, as
 * upstream does: a disk already listed stays once, `skip_formatting: false` takes one out, and a
 * disk newly skipped must be one of the inventory's (its id, else its path).
 */
function skippedFormattingAfter(host: Host, changes: NonNullable<HostUpdateParams['disks_skip_formatting']>): string[] {
  const inventoryIds = (hostInventory(host)?.disks ?? []).map((disk) => disk.id || disk.path || '');
  let skipped = String(host.attributes.skip_formatting_disks ?? '')
    .split(',')
    .filter((id) => id !== '');
  for (const change of changes) {
    if (skipped.includes(change.disk_id)) {
      if (!change.skip_formatting) skipped = skipped.filter((id) => id !== change.disk_id);
    } else if (change.skip_formatting) {
      if (!inventoryIds.includes(change.disk_id)) {
        throw badRequest(
          `Disk identifier ${change.disk_id} doesn't match any disk in the inventory, it cannot be skipped. Inventory disk identifiers are: ${inventoryIds.join(', ')}`,
        );
      }
      skipped.push(change.disk_id);
    }
  }
  return skipped;
}

/** What the host table reads of a host for a request's trigger (a registration, a bind, a reply). */
export function requestContext(host: Host, now: string | Date, extra: Partial<HostTransitionContext> = {}): HostTransitionContext {
  return {
    now: typeof now === 'string' ? new Date(now) : now,
    hostName: hostDisplayName(host),
    statusInfo: host.attributes.status_info,
    bound: !!host.clusterId,
    day2: host.attributes.kind === 'AddToExistingClusterHost',
    ...extra,
  };
}

/** The host as a transition leaves it: its status and status_info (and when the status moved), and the rule's effects. */
export function withTransition(host: Host, transition: HostTransition, now: string, options: { clusterId?: string } = {}): Host {
  const next = structuredClone(host);
  if (transition.status !== host.status) next.attributes.status_updated_at = now;
  next.status = transition.status;
  next.attributes.status_info = transition.statusInfo;
  applyHostEffects(next, transition.effects, now, options);
  next.updatedAt = now;
  return next;
}

/** Runs a bind or unbind through the host table: a refusal is a 409 naming the host's status. */
function requestTransition(host: Host, trigger: 'BindHost' | 'UnbindHost', now: string): HostTransition {
  const transition = transitionHost({ status: host.status }, trigger, requestContext(host, now));
  const action = trigger === 'BindHost' ? 'bound' : 'unbound';
  if (isNotAllowed(transition))
    throw conflict(
      `host ${host.hostId} is in status ${host.status} and cannot be ${action} now${trigger === 'BindHost' ? ': only a known-unbound host can be bound' : ''}`,
    );
  return transition;
}

export function bindHost(host: Host, cluster: Cluster, infraEnvClusterId: string | undefined, now: string): { host: Host; transition: HostTransition } {
  if (infraEnvClusterId) throw badRequest(`host ${host.hostId} belongs to an infra-env bound to cluster ${infraEnvClusterId}; it cannot be bound elsewhere`);
  if (host.clusterId) throw conflict(`host ${host.hostId} is already bound to cluster ${host.clusterId}`);
  const transition = requestTransition(host, 'BindHost', now);
  if (!CLUSTER_ACCEPTING_HOSTS.has(cluster.status)) throw conflict(`cluster ${cluster.clusterId} is in status ${cluster.status} and accepts no hosts`);
  const hostArch = host.attributes.cpu_architecture as string | undefined;
  const clusterArch = cluster.attributes.cpu_architecture as string | undefined;
  if (hostArch && clusterArch && clusterArch !== 'multi' && hostArch !== clusterArch) {
    throw badRequest(`host ${host.hostId} is ${hostArch} but cluster ${cluster.clusterId} is ${clusterArch}`);
  }
  const next = withTransition(host, transition, now, { clusterId: cluster.clusterId });
  next.attributes.role = 'auto-assign';
  next.attributes.suggested_role = 'auto-assign';
  return { host: next, transition };
}

export function unbindHost(host: Host, infraEnvClusterId: string | undefined, now: string): { host: Host; transition: HostTransition } {
  if (infraEnvClusterId) throw badRequest(`host ${host.hostId} belongs to an infra-env bound to cluster ${infraEnvClusterId}; it cannot be unbound`);
  if (!host.clusterId) throw conflict(`host ${host.hostId} is not bound to a cluster`);
  const transition = requestTransition(host, 'UnbindHost', now);
  return { host: withTransition(host, transition, now), transition };
}

export function resetValidation(host: Host, validationId: string, now: string): Host {
  const data = RESETTABLE_VALIDATIONS[validationId];
  if (!data) {
    throw badRequest(`validation ${validationId} cannot be reset; only ${Object.keys(RESETTABLE_VALIDATIONS).join(' and ')} can`);
  }
  const next = structuredClone(host);
  // Disk speeds are kept per disk in disks_info (see the installation-disk-speed-check reply).
  delete next.attributes[data];
  next.updatedAt = now;
  return next;
}

/** The name people know a host by: the one they gave it, else the one it reported. */
export function hostDisplayName(host: Host): string {
  const requested = host.attributes.requested_hostname;
  if (requested) return requested;
  return hostInventory(host)?.hostname || host.hostId;
}

/**
 * What an answer knows of the host's cluster to list the host's stages. Upstream lists them in the
 * answers about one host or one cluster, as the cluster has it (`singleNode`); in its infra-env host
 * listing as if the host had no cluster (a single node's host is then listed with the bootstrap
 * host's stages); and not at all (null) in the cluster's host listing and the install answer.
 */
export type ProgressStagesSource = { singleNode: boolean } | 'no-cluster' | 'not-listed';

/**
 * `progress_stages`: the stages of the host's role, which the UI counts the host through
 * ("Installing 3/8"): the bootstrap host's, a control plane node's (an arbiter's too), a worker's,
 * a single node's; a day-2 host's end at Rebooting. Empty for a host without a role yet.
 */
export function hostProgressStages(host: Host, source: ProgressStagesSource): HostStage[] | null {
  if (source === 'not-listed') return null;
  const role = host.attributes.role;
  return [
    ...stagesFor({
      ...(role ? { role } : {}),
      bootstrap: !!host.attributes.bootstrap,
      singleNode: source !== 'no-cluster' && source.singleNode,
      day2: host.attributes.kind === 'AddToExistingClusterHost',
    }),
  ];
}

/**
 * `host.progress` as upstream sends it: every host has one; the stage's times are always there (Go's
 * zero time before the first report); the stage, percentage and info only once set; and
 * `stage_timed_out` only when true (the UI warns of an overdue stage whenever the field is present).
 */
export function hostProgressView(progress: HostAttributes['progress']): NonNullable<HostAttributes['progress']> {
  const stored = progress ?? {};
  return {
    ...(stored.current_stage ? { current_stage: stored.current_stage } : {}),
    ...(stored.installation_percentage ? { installation_percentage: stored.installation_percentage } : {}),
    ...(stored.progress_info ? { progress_info: stored.progress_info } : {}),
    stage_started_at: stored.stage_started_at || UNSET_TIME,
    ...(stored.stage_timed_out === true ? { stage_timed_out: true } : {}),
    stage_updated_at: stored.stage_updated_at || UNSET_TIME,
  };
}

/**
 * What the service keeps on a host for itself (the architecture the inventory reported, when the
 * connectivity report was taken and stored, the free addresses, the last failure of each step, the
 * ignition endpoint's token): upstream's host document has none of them.
 */
const INTERNAL_HOST_FIELDS = [
  'cpu_architecture',
  'connectivity_checked_at',
  'connectivity_stored_at',
  'free_addresses',
  'step_errors',
  'ignition_endpoint_token',
  'fencing_credentials',
] as const;

/** Strings upstream's model leaves out when empty (omitempty): a user's update may have set them to ''. */
const OMITTED_WHEN_EMPTY = ['skip_formatting_disks', 'machine_config_pool_name'] as const;

/** Go's zero time: upstream's host always has these times, unset ones read as this. */
const HOST_ZERO_TIMES = ['logs_collected_at', 'logs_started_at', 'stage_started_at', 'stage_updated_at'] as const;

/** The upstream `host` document; `stages` says how it lists the host's stages (see ProgressStagesSource). */
export function hostView(host: Host, stages: ProgressStagesSource): Record<string, unknown> {
  // Upstream leaves out a false bootstrap, as its other false and empty fields.
  const { bootstrap, ...stored } = host.attributes;
  const attributes: Record<string, unknown> = { ...stored };
  for (const field of INTERNAL_HOST_FIELDS) delete attributes[field];
  for (const field of OMITTED_WHEN_EMPTY) if (attributes[field] === '') delete attributes[field];
  for (const field of HOST_ZERO_TIMES) attributes[field] ??= UNSET_TIME;
  // Stored as the agent sent it (replies are compared with it); upstream stores what Go re-serialized.
  if (typeof attributes.connectivity === 'string') attributes.connectivity = goSerialized(attributes.connectivity);
  return {
    ...attributes,
    // Where upstream lists the stages (its customizeHost), it also answers with the name the host
    // goes by: the one given, else the one reported, else the host's id.
    ...(stages !== 'not-listed' ? { requested_hostname: hostDisplayName(host) } : {}),
    ...(bootstrap ? { bootstrap } : {}),
    kind: (host.attributes.kind as string | undefined) ?? 'Host',
    id: host.hostId,
    href: `/api/assisted-install/v2/infra-envs/${host.infraEnvId}/hosts/${host.hostId}`,
    infra_env_id: host.infraEnvId,
    ...(host.clusterId ? { cluster_id: host.clusterId } : {}),
    status: host.status,
    status_info: host.attributes.status_info ?? '',
    progress: hostProgressView(host.attributes.progress),
    progress_stages: hostProgressStages(host, stages),
    created_at: host.createdAt,
    updated_at: host.updatedAt,
  };
}

/**
 * The host as upstream answers a user's change to it (v2UpdateHost, the installer arguments): read
 * back from its store whole, so with the free addresses the agent last reported, which its other
 * answers leave out.
 */
export function hostChangeAnswer(host: Host, stages: ProgressStagesSource): Record<string, unknown> {
  const view = hostView(host, stages);
  const free = host.attributes.free_addresses;
  return typeof free === 'string' && free !== '' ? { ...view, free_addresses: free } : view;
}

/** A stored JSON document as Go would have written it (withoutGoEmptyValues); one that does not parse as it is. */
function goSerialized(document: string): string {
  try {
    return JSON.stringify(withoutGoEmptyValues(JSON.parse(document)));
  } catch {
    return document;
  }
}
