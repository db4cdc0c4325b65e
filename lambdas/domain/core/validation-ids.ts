/**
 * The host and cluster validation ids (the `host-validation-id` and `cluster-validation-id` enums),
 * with upstream's categories, and which of them a host or cluster must pass to be ready. One copy:
 * the validation engines, the state machines' summaries, the operator checks and the ignored-
 * validations setting all read these. The unit tests check both lists against openapi.yaml. Pure data.
 */

// ---------------------------------------------------------------- host

/** The `host-validation-id` enum, grouped by upstream's categories (internal/host/validation_id.go). */
export const HOST_VALIDATION_CATEGORIES = {
  network: [
    'connected',
    'media-connected',
    'machine-cidr-defined',
    'belongs-to-machine-cidr',
    'ignition-downloadable',
    'belongs-to-majority-group',
    'ntp-synced',
    'time-synced-between-host-and-service',
    'container-images-available',
    'sufficient-network-latency-requirement-for-role',
    'sufficient-packet-loss-requirement-for-role',
    'has-default-route',
    'api-domain-name-resolved-correctly',
    'api-int-domain-name-resolved-correctly',
    'valid-platform-network-settings',
    'apps-domain-name-resolved-correctly',
    'dns-wildcard-not-configured',
    'non-overlapping-subnets',
    'release-domain-name-resolved-correctly',
    'no-ip-collisions-in-network',
    'mtu-valid',
    'no-iscsi-nic-belongs-to-machine-cidr',
  ],
  hardware: [
    'has-inventory',
    'inventory-not-partially-truncated',
    'inventory-not-fully-truncated',
    'has-min-cpu-cores',
    'has-min-valid-disks',
    'has-min-memory',
    'sufficient-installation-disk-speed',
    'has-cpu-cores-for-role',
    'has-memory-for-role',
    'hostname-unique',
    'hostname-valid',
    'compatible-with-cluster-platform',
    'vsphere-disk-uuid-enabled',
    'disk-encryption-requirements-satisfied',
    'compatible-agent',
    'no-skip-installation-disk',
    'no-skip-missing-disk',
  ],
  operators: [
    'lso-requirements-satisfied',
    'ocs-requirements-satisfied',
    'odf-requirements-satisfied',
    'lvm-requirements-satisfied',
    'mce-requirements-satisfied',
    'mtv-requirements-satisfied',
    'osc-requirements-satisfied',
    'cnv-requirements-satisfied',
    'node-feature-discovery-requirements-satisfied',
    'nvidia-gpu-requirements-satisfied',
    'pipelines-requirements-satisfied',
    'servicemesh-requirements-satisfied',
    'serverless-requirements-satisfied',
    'openshift-ai-requirements-satisfied',
    'authorino-requirements-satisfied',
    'nmstate-requirements-satisfied',
    'amd-gpu-requirements-satisfied',
    'kmm-requirements-satisfied',
    'node-healthcheck-requirements-satisfied',
    'self-node-remediation-requirements-satisfied',
    'fence-agents-remediation-requirements-satisfied',
    'node-maintenance-requirements-satisfied',
    'kube-descheduler-requirements-satisfied',
    'cluster-observability-requirements-satisfied',
    'numa-resources-requirements-satisfied',
    'oadp-requirements-satisfied',
    'metallb-requirements-satisfied',
    'loki-requirements-satisfied',
    'openshift-logging-requirements-satisfied',
  ],
} as const;

export type HostValidationCategory = keyof typeof HOST_VALIDATION_CATEGORIES;
export type HostValidationId = (typeof HOST_VALIDATION_CATEGORIES)[HostValidationCategory][number];

export const HOST_VALIDATION_IDS: readonly HostValidationId[] = Object.values(HOST_VALIDATION_CATEGORIES).flat();

const isHostValidationCategory = (name: string): name is HostValidationCategory => Object.hasOwn(HOST_VALIDATION_CATEGORIES, name);

export const HOST_VALIDATION_CATEGORY_OF: ReadonlyMap<string, HostValidationCategory> = new Map(
  Object.keys(HOST_VALIDATION_CATEGORIES)
    .filter(isHostValidationCategory)
    .flatMap((category) => HOST_VALIDATION_CATEGORIES[category].map((id) => [id, category] as const)),
);

/**
 * Validations a bound host need not pass to be known, each because another rule reads it or none
 * does (upstream's "sufficient for install" is every other validation):
 * - connected and media-connected decide disconnected and disconnected-media states of their own;
 * - machine-cidr-defined, container-images-available, vsphere-disk-uuid-enabled and the inventory
 *   and minimum-hardware ones each have a summary of their own (HostValidationSummary);
 * - release-domain-name-resolved-correctly is left out as upstream does: behind a mirror or proxy
 *   it fails although the installation would succeed;
 * - ntp-synced and mtu-valid are informational;
 * - ocs-requirements-satisfied is the old name of odf's, which decides.
 */
const NOT_REQUIRED_FOR_INSTALL: ReadonlySet<HostValidationId> = new Set<HostValidationId>([
  'connected',
  'media-connected',
  'machine-cidr-defined',
  'container-images-available',
  'vsphere-disk-uuid-enabled',
  'has-inventory',
  'inventory-not-partially-truncated',
  'inventory-not-fully-truncated',
  'has-min-cpu-cores',
  'has-min-valid-disks',
  'has-min-memory',
  'compatible-with-cluster-platform',
  'disk-encryption-requirements-satisfied',
  'release-domain-name-resolved-correctly',
  'ntp-synced',
  'mtu-valid',
  'ocs-requirements-satisfied',
]);

/** Everything else a bound host must pass to be known (upstream's "sufficient for install"). */
export const SUFFICIENT_FOR_INSTALL_VALIDATIONS: readonly HostValidationId[] = HOST_VALIDATION_IDS.filter((id) => !NOT_REQUIRED_FOR_INSTALL.has(id));

// ---------------------------------------------------------------- cluster

export type ClusterValidationCategory = 'network' | 'hosts-data' | 'configuration' | 'operators';

/**
 * Every id of the `cluster-validation-id` enum with upstream's category
 * (internal/cluster/validation_id.go).
 */
export const CLUSTER_VALIDATION_CATEGORIES = {
  'machine-cidr-defined': 'network',
  'cluster-cidr-defined': 'network',
  'service-cidr-defined': 'network',
  'no-cidrs-overlapping': 'network',
  'networks-same-address-families': 'network',
  'network-prefix-valid': 'network',
  'machine-cidr-equals-to-calculated-cidr': 'network',
  'api-vips-defined': 'network',
  'api-vips-valid': 'network',
  'ingress-vips-defined': 'network',
  'ingress-vips-valid': 'network',
  'all-hosts-are-ready-to-install': 'hosts-data',
  'sufficient-masters-count': 'hosts-data',
  'dns-domain-defined': 'network',
  'pull-secret-set': 'configuration',
  'ntp-server-configured': 'network',
  'lso-requirements-satisfied': 'operators',
  'ocs-requirements-satisfied': 'operators',
  'odf-requirements-satisfied': 'operators',
  'cnv-requirements-satisfied': 'operators',
  'lvm-requirements-satisfied': 'operators',
  'mce-requirements-satisfied': 'operators',
  'mtv-requirements-satisfied': 'operators',
  'osc-requirements-satisfied': 'operators',
  'network-type-valid': 'network',
  'custom-manifests-requirements-satisfied': 'network',
  'platform-requirements-satisfied': 'configuration',
  'node-feature-discovery-requirements-satisfied': 'operators',
  'nvidia-gpu-requirements-satisfied': 'operators',
  'pipelines-requirements-satisfied': 'operators',
  'servicemesh-requirements-satisfied': 'operators',
  'serverless-requirements-satisfied': 'operators',
  'openshift-ai-requirements-satisfied': 'operators',
  'openshift-ai-gpu-requirements-satisfied': 'operators',
  'authorino-requirements-satisfied': 'operators',
  'nmstate-requirements-satisfied': 'operators',
  'amd-gpu-requirements-satisfied': 'operators',
  'kmm-requirements-satisfied': 'operators',
  'node-healthcheck-requirements-satisfied': 'operators',
  'self-node-remediation-requirements-satisfied': 'operators',
  'fence-agents-remediation-requirements-satisfied': 'operators',
  'node-maintenance-requirements-satisfied': 'operators',
  'kube-descheduler-requirements-satisfied': 'operators',
  'cluster-observability-requirements-satisfied': 'operators',
  'numa-resources-requirements-satisfied': 'operators',
  'oadp-requirements-satisfied': 'operators',
  'metallb-requirements-satisfied': 'operators',
  'loki-requirements-satisfied': 'operators',
  'openshift-logging-requirements-satisfied': 'operators',
} as const satisfies Record<string, ClusterValidationCategory>;

export type ClusterValidationId = keyof typeof CLUSTER_VALIDATION_CATEGORIES;

export const isClusterValidationId = (id: string): id is ClusterValidationId => Object.hasOwn(CLUSTER_VALIDATION_CATEGORIES, id);

export const CLUSTER_VALIDATION_IDS = Object.keys(CLUSTER_VALIDATION_CATEGORIES).filter(isClusterValidationId);

/** Missing user input: the cluster waits for the user (pending-for-input), not for hosts. */
export const PENDING_INPUT_VALIDATIONS = [
  'machine-cidr-defined',
  'cluster-cidr-defined',
  'service-cidr-defined',
  'dns-domain-defined',
  'pull-secret-set',
] as const satisfies readonly ClusterValidationId[];
/** Also user input, unless the VIPs come from DHCP (then they are awaited like any other requirement). */
export const VIPS_DEFINED_VALIDATIONS = ['api-vips-defined', 'ingress-vips-defined'] as const satisfies readonly ClusterValidationId[];

/**
 * Not required to install, besides the input above: platform-requirements-satisfied and
 * openshift-ai-gpu-requirements-satisfied are informational upstream, and ocs-requirements-satisfied
 * is the old name of odf's, which decides.
 */
const INFORMATIONAL_CLUSTER_VALIDATIONS: ReadonlySet<ClusterValidationId> = new Set<ClusterValidationId>([
  'platform-requirements-satisfied',
  'openshift-ai-gpu-requirements-satisfied',
  'ocs-requirements-satisfied',
]);
const USER_INPUT_VALIDATIONS: ReadonlySet<ClusterValidationId> = new Set([...PENDING_INPUT_VALIDATIONS, ...VIPS_DEFINED_VALIDATIONS]);

/** Everything else that must hold to install. */
export const REQUIRED_FOR_INSTALL_VALIDATIONS: readonly ClusterValidationId[] = CLUSTER_VALIDATION_IDS.filter(
  (id) => !INFORMATIONAL_CLUSTER_VALIDATIONS.has(id) && !USER_INPUT_VALIDATIONS.has(id),
);
