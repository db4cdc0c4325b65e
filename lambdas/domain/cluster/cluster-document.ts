/**
 * The cluster document: what the service keeps of a cluster, turned into the answer upstream's API
 * gives (its fields, Go's zero values and omitempty), with the service's own bookkeeping and every
 * secret left out. Pure.
 */
import clusterFieldsData from './cluster-fields.json' with { type: 'json' };
import { UNSET_TIME, type Cluster } from '../core/entities.js';
import { isJsonObject } from '../../../contracts/json-shapes.js';
import { ADD_HOSTS_CLUSTER_KIND, emptyNetworkLists } from './imported-cluster.js';
import { CONNECTIVITY_DOCUMENTS_MARK } from './cluster-connectivity.js';
import { CONNECTIVITY_GROUPS_FOR_FENCING } from '../host/validations/host-validations-model.js';
import { DISCONNECTED_CLUSTER_KIND, SERVICE_SOFT_TIMEOUTS } from './cluster.js';

/** The properties of openapi.yaml's `cluster` definition (test/unit/cluster-view.test.ts keeps them equal). */
export const CLUSTER_FIELDS: readonly string[] = clusterFieldsData;

/**
 * The upstream `cluster` document: only the fields openapi.yaml's `cluster` declares; the service's
 * own attributes (install attempt, workflow, DNS records, UI settings...) stay out of it, and so do
 * secrets: `pull_secret_set` only tells whether there is a pull secret.
 */
/**
 * The cluster attribute where its judgement keeps the fingerprint of its hosts' address book
 * (agent-protocol's peerAddressBook) and when it saw it change. Internal: not part of the view.
 */
export const PEER_ADDRESS_BOOK = 'peer_address_book';
export interface StoredAddressBook {
  fingerprint: string;
  changed_at: string;
}
export function storedAddressBook(cluster: Cluster | undefined): StoredAddressBook | undefined {
  const stored = cluster?.attributes[PEER_ADDRESS_BOOK];
  if (!isJsonObject(stored)) return undefined;
  const { fingerprint, changed_at } = stored;
  return typeof fingerprint === 'string' && typeof changed_at === 'string' ? { fingerprint, changed_at } : undefined;
}

export function clusterView(
  cluster: Cluster,
  extras: { hosts?: unknown[]; counts?: { total: number; enabled: number; ready: number } } = {},
): Record<string, unknown> {
  // The deprecated singular network fields: upstream never fills them; clusters stored before
  // this service stopped writing them still hold them.
  const {
    [PEER_ADDRESS_BOOK]: _addressBook,
    [CONNECTIVITY_DOCUMENTS_MARK]: _connectivityDocumentsMark,
    [CONNECTIVITY_GROUPS_FOR_FENCING]: _connectivityGroupsForFencing,
    [SERVICE_SOFT_TIMEOUTS]: _serviceSoftTimeouts,
    cluster_network_cidr: _clusterNetworkCidr,
    cluster_network_host_prefix: _clusterNetworkHostPrefix,
    service_network_cidr: _serviceNetworkCidr,
    machine_network_cidr: _machineNetworkCidr,
    ...attributes
  } = cluster.attributes;
  const view: Record<string, unknown> = {
    ...attributes,
    kind: (cluster.attributes.kind as string | undefined) ?? 'Cluster',
    id: cluster.clusterId,
    href: `/api/assisted-install/v2/clusters/${cluster.clusterId}`,
    name: cluster.name,
    org_id: cluster.orgId,
    status: cluster.status,
    status_info: cluster.attributes.status_info ?? '',
    status_updated_at: cluster.attributes.status_updated_at ?? cluster.createdAt,
    image_info: (cluster.attributes.image_info as object | undefined) ?? {},
    // Upstream leaves it out of clusters it never recorded usage for (imported ones).
    feature_usage: cluster.attributes.feature_usage,
    // Go's omitempty: upstream leaves it out while false (imported and disconnected clusters).
    ...(cluster.pullSecret ? { pull_secret_set: true } : {}),
    created_at: cluster.createdAt,
    updated_at: cluster.updatedAt,
    hosts: extras.hosts ?? [],
    total_host_count: extras.counts?.total ?? 0,
    enabled_host_count: extras.counts?.enabled ?? 0,
    ready_host_count: extras.counts?.ready ?? 0,
  };
  // Filtering to CLUSTER_FIELDS (the schema's fields) slowed the HA fleet install to more than twice
  // its time: some reader needs an attribute the schema does not declare. Until that reader is
  // found, the view keeps the stored attributes.
  return view;
}

/** Cluster fields upstream's document leaves out while empty (Go's omitempty): an empty string given is not echoed. */
const OMITTED_WHEN_EMPTY = [
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'tags',
  'additional_ntp_source',
  'ntp_sources',
  'ssh_public_key',
  'base_dns_domain',
  'name',
] as const;

/**
 * A monitored operator as upstream's API answers it, in the cluster document and the
 * monitored-operators list alike: it names its cluster, and a status never reported carries Go's
 * zero time.
 */
export function monitoredOperatorWireView(operator: Record<string, unknown>, clusterId: string): Record<string, unknown> {
  const reportedAt = operator.status_updated_at;
  return { ...operator, cluster_id: clusterId, status_updated_at: typeof reportedAt === 'string' && reportedAt !== '' ? reportedAt : UNSET_TIME };
}

/** A single-node cluster, as upstream's answers judge it when they list its hosts' stages (one control plane node). */
export const isSingleNodeCluster = (cluster: Cluster): boolean => cluster.attributes.control_plane_count === 1;

/**
 * A cluster's progress as upstream's document has it: Go's omitempty leaves out a percentage of 0
 * and a stage that did not time out, while the stage's start is always there (Go's zero time).
 */
function progressWireView(progress: unknown): Record<string, unknown> {
  const view: Record<string, unknown> = { finalizing_stage_started_at: UNSET_TIME, ...(isJsonObject(progress) ? progress : {}) };
  for (const [field, value] of Object.entries(view)) {
    if ((field.endsWith('_percentage') && value === 0) || (field === 'finalizing_stage_timed_out' && value === false)) delete view[field];
  }
  return view;
}

/**
 * The cluster document as upstream's API answers it: clusterView with the fields upstream always
 * carries, even unset (Go's zero values: empty objects, zero times, a null deletion time), host
 * counts left out while zero as its omitempty does, and the preparation outcome under its wire
 * name, last-installation-preparation.
 */
export function clusterWireView(cluster: Cluster, extras: Parameters<typeof clusterView>[1] = {}): Record<string, unknown> {
  const { last_installation_preparation: preparation, ...view } = clusterView(cluster, extras);
  const a = cluster.attributes;
  const time = (value: unknown) => (typeof value === 'string' && value !== '' ? value : UNSET_TIME);
  const wire: Record<string, unknown> = {
    ...view,
    'last-installation-preparation': preparation ?? {},
    ignition_endpoint: a.ignition_endpoint ?? {},
    deleted_at: null,
    email_domain: a.email_domain ?? 'Unknown',
    install_started_at: time(a.install_started_at),
    install_completed_at: time(a.install_completed_at),
    controller_logs_started_at: time(a.controller_logs_started_at),
    controller_logs_collected_at: time(a.controller_logs_collected_at),
    // The cluster's own image_info is a remnant of the v1 API: images belong to infra-envs.
    image_info: { created_at: '0001-01-01T00:00:00Z', expires_at: UNSET_TIME, ...(isJsonObject(a.image_info) ? a.image_info : {}) },
    progress: progressWireView(a.progress),
  };
  if (Array.isArray(view.monitored_operators)) {
    wire.monitored_operators = view.monitored_operators.map((operator) => monitoredOperatorWireView(operator as Record<string, unknown>, cluster.clusterId));
  }
  for (const count of ['total_host_count', 'enabled_host_count', 'ready_host_count']) {
    if (wire[count] === 0) delete wire[count];
  }
  for (const field of OMITTED_WHEN_EMPTY) {
    if (wire[field] === '') delete wire[field];
  }
  // When the machine networks last changed is this service's own bookkeeping, not a field of upstream's.
  delete wire.machine_network_cidr_updated_at;
  // So is the controller's complete-installation report (installation-progress's CONTROLLER_COMPLETION).
  delete wire.controller_completion;
  // Go's omitempty: a cluster without a pull secret (an imported one) does not say so.
  if (wire.pull_secret_set === false) delete wire.pull_secret_set;
  // Upstream's import records no feature usage (its cluster document then has none).
  if (a.kind === ADD_HOSTS_CLUSTER_KIND && a.feature_usage === undefined) delete wire.feature_usage;
  return a.kind === DISCONNECTED_CLUSTER_KIND ? disconnectedClusterWireView(wire) : wire;
}

/**
 * A DisconnectedCluster as upstream's document reads: the Go zero values of a cluster nobody
 * configured (empty networks and operators, a cluster-managed load balancer, no platform type), and
 * neither the payload nor the architecture we keep for its infra-env and ISO (upstream records none).
 */
function disconnectedClusterWireView(wire: Record<string, unknown>): Record<string, unknown> {
  const { ocp_release_image: _payload, cpu_architecture: _architecture, ...view } = wire;
  return {
    ...emptyNetworkLists(),
    disk_encryption: {},
    platform: { type: null, external: {} },
    load_balancer: { type: 'cluster-managed' },
    ...view,
  };
}

/** The fields of upstream's answer to a DisconnectedCluster's registration: the row as inserted, before any association is read. */
const DISCONNECTED_REGISTRATION_FIELDS = [
  'id',
  'href',
  'kind',
  'name',
  'openshift_version',
  'org_id',
  'status',
  'status_info',
  'status_updated_at',
  'created_at',
  'updated_at',
  'deleted_at',
  'user_name',
  'email_domain',
  'image_info',
  'install_started_at',
  'install_completed_at',
  'controller_logs_started_at',
  'controller_logs_collected_at',
  'last-installation-preparation',
  'load_balancer',
] as const;

/** The answer to POST /v2/clusters/disconnected, as upstream's (its image_info carries the creation time, as its update answers do). */
export function disconnectedClusterRegistrationView(cluster: Cluster): Record<string, unknown> {
  const wire = clusterWireView(cluster);
  const view: Record<string, unknown> = {};
  for (const field of DISCONNECTED_REGISTRATION_FIELDS) if (wire[field] !== undefined) view[field] = wire[field];
  return { ...view, image_info: { ...(wire.image_info as object), created_at: cluster.createdAt } };
}
