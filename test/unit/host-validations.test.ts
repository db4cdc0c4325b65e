import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { summarizeHostValidations, type ValidationStatus } from '../../lambdas/domain/host/host-facts.js';
import { connectivityMajorityGroups, ipCollisions } from '../../lambdas/domain/host/validations/host-validations-connectivity.js';
import {
  HOST_VALIDATION_CATEGORIES,
  peerValidationLost,
  suggestRoles,
  validateHost,
  validationChanges,
  validationsInfo,
  validationsInfoChanged,
  type HostValidationConfig,
  type HostValidationId,
} from '../../lambdas/domain/host/validations/host-validations.js';
import { CONNECTIVITY_GROUPS_FOR_FENCING, clusterFacts, type PeerHost } from '../../lambdas/domain/host/validations/host-validations-model.js';
import { hostWeight } from '../../lambdas/domain/host/validations/host-validations-roles.js';
import { hardwareMinimums } from '../../lambdas/domain/catalogues/preflight.js';
import { HOST_VALIDATION_IDS } from '../../lambdas/domain/core/validation-ids.js';

import {
  NOW,
  iso,
  RELEASE_IMAGE,
  AGENT_IMAGE,
  MACHINES,
  type MachineName,
  HEALTHY,
  type World,
  type connectivityReport,
  resolved,
  RESOLUTIONS,
  clusterRecord,
  world,
  hostRecord,
  run,
  find,
  clusterAttrs,
  withOperators,
  compact,
  addDataDisk,
  setL3,
  umn,
  unbound,
} from '../support/host-validation-lab.js';

/** Two masters, both with fencing credentials, in a cluster of two control-plane nodes. */
function twoNodesWithFencing(w: World): void {
  clusterAttrs(w).control_plane_count = 2;
  for (const name of ['master-0', 'master-1'] as const)
    w.attributes[name]!.fencing_credentials = JSON.stringify({ address: `https://bmc.${name}.example.com`, username: 'admin', password: 'secret' });
}

/** disks_info with one measurement, stored under master-0's installation disk id (upstream's boot device key). */
const measuredUnderInstallationDisk = (w: World, diskSpeed: Record<string, unknown>): string =>
  JSON.stringify({ [w.attributes['master-0']!.installation_disk_id as string]: { disk_speed: diskSpeed } });

interface Row {
  name: string;
  id: HostValidationId;
  status: ValidationStatus;
  message?: RegExp;
  target?: MachineName;
  machines?: MachineName[];
  setup?: (w: World) => void;
  config?: HostValidationConfig;
}

/** In the enum, but upstream does not run it (MGMT-15213) and its host document never lists it. */
const NOT_RUN: HostValidationId[] = ['release-domain-name-resolved-correctly'];
const JUDGED_IDS = (HOST_VALIDATION_IDS as HostValidationId[]).filter((id) => !NOT_RUN.includes(id));

const OPERATORS_WITHOUT_HOST_REQUIREMENTS: HostValidationId[] = [
  'lso-requirements-satisfied',
  'ocs-requirements-satisfied',
  'node-feature-discovery-requirements-satisfied',
  'pipelines-requirements-satisfied',
  'servicemesh-requirements-satisfied',
  'serverless-requirements-satisfied',
  'authorino-requirements-satisfied',
  'nmstate-requirements-satisfied',
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
];
const operatorName = (id: string) => id.replace('-requirements-satisfied', '');

const ROWS: Row[] = [
  // ---- every validation passes for a healthy master of a healthy five-host cluster
  ...JUDGED_IDS.map((id): Row => ({ name: 'healthy master', id, status: 'success' })),

  // ---- network
  {
    name: 'no poll for 4 minutes',
    id: 'connected',
    status: 'failure',
    message: /^Host is disconnected$/,
    setup: (w) => (w.attributes['master-0']!.checked_in_at = iso(240_000)),
  },
  {
    name: 'discovery media gone',
    id: 'media-connected',
    status: 'failure',
    message: /discovery media/,
    setup: (w) => (w.attributes['master-0']!.media_status = 'disconnected'),
  },
  {
    name: 'no machine network and no VIPs',
    id: 'machine-cidr-defined',
    status: 'failure',
    message: /API or Ingress virtual IPs/,
    setup: (w) => (clusterAttrs(w).machine_networks = []),
  },
  {
    name: 'user-managed networking needs none',
    id: 'machine-cidr-defined',
    status: 'success',
    message: /User Managed Networking/,
    setup: (w) => {
      umn(w);
      clusterAttrs(w).machine_networks = [];
    },
  },
  {
    name: 'IPv6-only host in an IPv4 machine network',
    id: 'belongs-to-machine-cidr',
    status: 'failure',
    message: /does not belong to machine network/,
    target: 'ipv6-only',
    machines: [...HEALTHY, 'ipv6-only'],
  },
  { name: 'no machine network yet', id: 'belongs-to-machine-cidr', status: 'pending', setup: (w) => (clusterAttrs(w).machine_networks = []) },
  {
    name: 'day-2 host waiting for the API',
    id: 'ignition-downloadable',
    status: 'pending',
    message: /pending API connectivity/,
    setup: (w) => {
      clusterAttrs(w).kind = 'AddHostsCluster';
      w.attributes['master-0']!.kind = 'AddToExistingClusterHost';
    },
  },
  {
    name: 'day-2 host cannot download its ignition',
    id: 'ignition-downloadable',
    status: 'failure',
    message: /connection refused/,
    setup: (w) => {
      clusterAttrs(w).kind = 'AddHostsCluster';
      Object.assign(w.attributes['master-0']!, {
        kind: 'AddToExistingClusterHost',
        api_vip_connectivity: JSON.stringify({
          is_success: false,
          url: 'http://api.ocp.example.com:22624/config/worker',
          download_error: 'dial tcp 192.168.111.5:22624: connect: connection refused',
        }),
      });
    },
  },
  {
    name: 'day-2 host downloaded its ignition',
    id: 'ignition-downloadable',
    status: 'success',
    message: /downloadable/,
    setup: (w) => {
      clusterAttrs(w).kind = 'AddHostsCluster';
      Object.assign(w.attributes['master-0']!, {
        kind: 'AddToExistingClusterHost',
        api_vip_connectivity: JSON.stringify({
          is_success: true,
          url: 'http://api.ocp.example.com:22624/config/worker',
          ignition: '{"ignition":{"version":"3.2.0"}}',
        }),
      });
    },
  },
  {
    name: 'host cut off from the other four',
    id: 'belongs-to-majority-group',
    status: 'failure',
    message: /^No connectivity to the majority of hosts in the cluster$/,
    setup: (w) => {
      w.attributes['master-0']!.connectivity = JSON.stringify({ remote_hosts: [] });
    },
  },
  {
    name: 'two hosts cannot form a majority yet',
    id: 'belongs-to-majority-group',
    status: 'pending',
    message: /Not enough hosts/,
    machines: ['master-0', 'master-1'],
  },
  {
    name: 'two masters with fencing form a majority of two',
    id: 'belongs-to-majority-group',
    status: 'success',
    machines: ['master-0', 'master-1'],
    setup: (w) => twoNodesWithFencing(w),
  },
  {
    // Upstream: the groups its monitor stored before the second master's credentials (a majority
    // of 3, so none) while the topology is already two-node fencing (2 hosts are enough to judge).
    name: 'two masters with fencing, judged against the groups of the topology before (majority of 3)',
    id: 'belongs-to-majority-group',
    status: 'failure',
    message: /^No connectivity to the majority of hosts in the cluster$/,
    machines: ['master-0', 'master-1'],
    setup: (w) => {
      twoNodesWithFencing(w);
      clusterAttrs(w)[CONNECTIVITY_GROUPS_FOR_FENCING] = false;
    },
  },
  {
    name: 'two masters whose fencing credentials went, still judged against the groups of two',
    id: 'belongs-to-majority-group',
    status: 'success',
    machines: ['master-0', 'master-1'],
    setup: (w) => {
      twoNodesWithFencing(w);
      clusterAttrs(w)[CONNECTIVITY_GROUPS_FOR_FENCING] = true;
      delete w.attributes['master-1']!.fencing_credentials;
    },
  },
  {
    name: 'no NTP source synced',
    id: 'ntp-synced',
    status: 'failure',
    message: /^Host couldn't synchronize with any NTP server$/,
    setup: (w) => (w.attributes['master-0']!.ntp_sources = JSON.stringify([{ source_name: 'clock.corp.example.com', source_state: 'unreachable' }])),
  },
  {
    name: 'host clock 30 minutes behind',
    id: 'time-synced-between-host-and-service',
    status: 'failure',
    message: /service time is ahead/,
    setup: (w) => (w.attributes['master-0']!.timestamp = Math.floor(NOW.getTime() / 1000) - 30 * 60),
  },
  {
    name: 'host clock 2 hours ahead',
    id: 'time-synced-between-host-and-service',
    status: 'failure',
    message: /host time is ahead/,
    setup: (w) => (w.attributes['master-0']!.timestamp = Math.floor(NOW.getTime() / 1000) + 2 * 3600),
  },
  {
    name: 'host clock 15 minutes behind is tolerated',
    id: 'time-synced-between-host-and-service',
    status: 'success',
    setup: (w) => (w.attributes['master-0']!.timestamp = Math.floor(NOW.getTime() / 1000) - 15 * 60),
  },
  { name: 'no host time yet', id: 'time-synced-between-host-and-service', status: 'pending', setup: (w) => delete w.attributes['master-0']!.timestamp },
  {
    name: 'release image pull failed',
    id: 'container-images-available',
    status: 'failure',
    message: /Failed to fetch container images/,
    setup: (w) => (w.attributes['master-0']!.images_status = JSON.stringify({ [RELEASE_IMAGE]: { name: RELEASE_IMAGE, result: 'failure' } })),
  },
  {
    name: '150 ms between masters',
    id: 'sufficient-network-latency-requirement-for-role',
    status: 'failure',
    message: /100\.00 ms.*master-1\.ocp\.example\.com \(150\.00 ms\)/s,
    setup: (w) => setL3(w, 'master-0', 'master-1', { average_rtt_ms: 150 }),
  },
  {
    name: '150 ms between workers is within their 1000 ms',
    id: 'sufficient-network-latency-requirement-for-role',
    status: 'success',
    target: 'worker-0',
    setup: (w) => setL3(w, 'worker-0', 'worker-1', { average_rtt_ms: 150 }),
  },
  {
    name: 'no connectivity report yet',
    id: 'sufficient-network-latency-requirement-for-role',
    status: 'pending',
    setup: (w) => delete w.attributes['master-0']!.connectivity,
  },
  {
    name: '5% loss between masters',
    id: 'sufficient-packet-loss-requirement-for-role',
    status: 'failure',
    message: /0\.00%.*master-2\.ocp\.example\.com \(5\.00%\)/s,
    setup: (w) => setL3(w, 'master-0', 'master-2', { packet_loss_percentage: 5 }),
  },
  {
    name: '5% loss between workers is within their 10%',
    id: 'sufficient-packet-loss-requirement-for-role',
    status: 'success',
    target: 'worker-1',
    setup: (w) => setL3(w, 'worker-1', 'worker-0', { packet_loss_percentage: 5 }),
  },
  {
    name: 'only link routes',
    id: 'has-default-route',
    status: 'failure',
    setup: (w) => (w.inventories['master-0']!.routes = [{ interface: 'enp1s0', destination: '192.168.111.0', family: 2 }]),
  },
  { name: 'IPv6 default route', id: 'has-default-route', status: 'success', target: 'ipv6-only', machines: [...HEALTHY, 'ipv6-only'] },
  {
    name: 'user-managed networking without an api record',
    id: 'api-domain-name-resolved-correctly',
    status: 'failure',
    message: /Couldn't resolve domain name api\.ocp\.example\.com/,
    setup: (w) => {
      umn(w);
      w.attributes['master-0']!.domain_name_resolutions = JSON.stringify({
        resolutions: RESOLUTIONS.resolutions.filter((r) => !r.domain_name.startsWith('api.')),
      });
    },
  },
  {
    name: 'user-managed networking with api at this host',
    id: 'api-domain-name-resolved-correctly',
    status: 'failure',
    message: /must not point at 192\.168\.111\.20/,
    setup: (w) => {
      umn(w);
      w.attributes['master-0']!.domain_name_resolutions = JSON.stringify({
        resolutions: [resolved('api.ocp.example.com', ['192.168.111.20']), ...RESOLUTIONS.resolutions.slice(1)],
      });
    },
  },
  {
    name: 'user-managed networking, api resolves to the load balancer',
    id: 'api-domain-name-resolved-correctly',
    status: 'success',
    message: /api\.ocp\.example\.com domain was successful/,
    setup: umn,
  },
  {
    name: 'user-managed networking without an api-int record',
    id: 'api-int-domain-name-resolved-correctly',
    status: 'failure',
    message: /internal API load balancer/,
    setup: (w) => {
      umn(w);
      w.attributes['master-0']!.domain_name_resolutions = JSON.stringify({
        resolutions: RESOLUTIONS.resolutions.filter((r) => !r.domain_name.startsWith('api-int.')),
      });
    },
  },
  {
    name: 'user-managed networking without *.apps',
    id: 'apps-domain-name-resolved-correctly',
    status: 'failure',
    message: /\*\.apps\.ocp\.example\.com/,
    setup: (w) => {
      umn(w);
      w.attributes['master-0']!.domain_name_resolutions = JSON.stringify({
        resolutions: RESOLUTIONS.resolutions.filter((r) => !r.domain_name.startsWith('console')),
      });
    },
  },
  {
    name: 'user-managed networking before any DNS reply',
    id: 'apps-domain-name-resolved-correctly',
    status: 'pending',
    setup: (w) => {
      umn(w);
      delete w.attributes['master-0']!.domain_name_resolutions;
    },
  },
  {
    name: 'OpenStack VM with cluster-managed networking',
    id: 'valid-platform-network-settings',
    status: 'failure',
    message: /OpenStack Compute/,
    setup: (w) => (w.inventories['master-0']!.system_vendor = { manufacturer: 'OpenStack Foundation', product_name: 'OpenStack Compute', virtual: true }),
  },
  {
    name: 'wildcard record under the cluster domain',
    id: 'dns-wildcard-not-configured',
    status: 'failure',
    message: /DNS wildcard configuration was detected.*10\.0\.0\.9/,
    setup: (w) => {
      w.attributes['master-0']!.domain_name_resolutions = JSON.stringify({
        resolutions: [
          ...RESOLUTIONS.resolutions.filter((r) => !r.domain_name.startsWith('validate')),
          resolved('validateNoWildcardDNS.ocp.example.com.', ['10.0.0.9']),
        ],
      });
    },
  },
  {
    name: 'a resolution without the wildcard probes (upstream: an internal error)',
    id: 'dns-wildcard-not-configured',
    status: 'error',
    message: /doesn't contain the wildcard domain/,
    setup: (w) => {
      w.attributes['master-0']!.domain_name_resolutions = JSON.stringify({
        resolutions: RESOLUTIONS.resolutions.filter((r) => !r.domain_name.startsWith('validate')),
      });
    },
  },
  {
    name: 'two NICs in the same subnet',
    id: 'non-overlapping-subnets',
    status: 'failure',
    message: /192\.168\.111\.0\/24 appears on multiple interfaces \[enp1s0, enp2s0\]/,
    setup: (w) => {
      w.inventories['master-0']!.interfaces.push({
        name: 'enp2s0',
        mac_address: '52:54:00:aa:01:00',
        ipv4_addresses: ['192.168.111.99/24'],
        ipv6_addresses: [],
      });
    },
  },
  {
    name: "two MACs answer for this host's address",
    id: 'no-ip-collisions-in-network',
    status: 'failure',
    message: /IP address: 192\.168\.111\.20 Mac addresses: 52:54:00:aa:00:00,52:54:00:de:ad:01/,
    setup: (w) => {
      const report = JSON.parse(w.attributes['worker-1']!.connectivity as string) as ReturnType<typeof connectivityReport>;
      const toMaster = report.remote_hosts.find((r) => r.host_id === MACHINES['master-0'].id)!;
      toMaster.l2_connectivity.push({ ...toMaster.l2_connectivity[0]!, remote_mac: '52:54:00:de:ad:01' });
      w.attributes['worker-1']!.connectivity = JSON.stringify(report);
    },
  },
  {
    name: 'MTU too small towards master-1',
    id: 'mtu-valid',
    status: 'failure',
    message: /MTU is broken\. Interface: enp1s0, remote IP address: 192\.168\.111\.21/,
    setup: (w) => {
      const report = JSON.parse(w.attributes['master-0']!.connectivity as string) as ReturnType<typeof connectivityReport>;
      report.remote_hosts.find((r) => r.host_id === MACHINES['master-1'].id)!.mtu_report[0]!.mtu_successful = false;
      w.attributes['master-0']!.connectivity = JSON.stringify(report);
    },
  },
  {
    name: 'iSCSI boot disk through the machine network',
    id: 'no-iscsi-nic-belongs-to-machine-cidr',
    status: 'failure',
    message: /cannot belong to machine network/,
    setup: (w) => {
      w.inventories['master-0']!.disks.push({
        id: '/dev/disk/by-path/ip-192.168.111.250:3260-iscsi-iqn.2023-01.com.example:disk0-lun-0',
        name: 'sdc',
        path: '/dev/sdc',
        drive_type: 'iSCSI',
        size_bytes: 128_849_018_880,
        iscsi: { host_ip_address: '192.168.111.20' },
      });
      w.attributes['master-0']!.installation_disk_id = '/dev/disk/by-path/ip-192.168.111.250:3260-iscsi-iqn.2023-01.com.example:disk0-lun-0';
    },
  },

  // ---- hardware
  { name: 'no inventory yet', id: 'has-inventory', status: 'failure', setup: (w) => (w.inventories['master-0'] = undefined) },
  {
    name: 'partially truncated inventory',
    id: 'inventory-not-partially-truncated',
    status: 'failure',
    message: /truncated \(partial\): disks omitted/,
    setup: (w) => (w.inventories['master-0']!.truncation = { type: 'partial', reasons: ['disks omitted'] }),
  },
  {
    name: 'fully truncated inventory',
    id: 'inventory-not-fully-truncated',
    status: 'failure',
    message: /truncated \(full\)/,
    setup: (w) => (w.inventories['master-0']!.truncation = { type: 'full' }),
  },
  {
    name: 'partially truncated inventory is not fully truncated',
    id: 'inventory-not-fully-truncated',
    status: 'success',
    setup: (w) => (w.inventories['master-0']!.truncation = { type: 'partial' }),
  },
  {
    name: 'one core',
    id: 'has-min-cpu-cores',
    status: 'failure',
    message: /minimum required CPU cores for any role is 2, found only 1/,
    target: 'undersized',
    machines: [...HEALTHY, 'undersized'],
  },
  {
    name: '4 GiB of RAM',
    id: 'has-min-memory',
    status: 'failure',
    message: /minimum required RAM for any role is 8\.00 GiB, found only 4\.00 GiB/,
    target: 'undersized',
    machines: [...HEALTHY, 'undersized'],
  },
  {
    name: 'only small and removable disks',
    id: 'has-min-valid-disks',
    status: 'failure',
    message: /^No eligible disks were found, please check specific disks to see why they are not eligible$/,
    target: 'no-eligible-disk',
    machines: [...HEALTHY, 'no-eligible-disk'],
  },
  { name: 'no inventory yet', id: 'has-min-valid-disks', status: 'pending', setup: (w) => (w.inventories['master-0'] = undefined) },
  {
    name: 'installation disk measured at 25 ms (upstream only warns, at the reply)',
    id: 'sufficient-installation-disk-speed',
    status: 'success',
    message: /^Speed of installation disk is sufficient$/,
    setup: (w) => (w.attributes['master-0']!.disks_info = measuredUnderInstallationDisk(w, { tested: true, exit_code: 0, speed_ms: 25 })),
  },
  {
    name: 'a measurement stored under another name of the installation disk (its path, not its id) counts as none, as upstream',
    id: 'sufficient-installation-disk-speed',
    status: 'success',
    message: /^Speed of installation disk has not yet been measured$/,
    setup: (w) => {
      const attributes = w.attributes['master-0']!;
      attributes.disks_info = JSON.stringify({ [attributes.installation_disk_path as string]: { disk_speed: { tested: true, exit_code: 0, speed_ms: 2 } } });
    },
  },
  {
    name: 'disk speed check failed',
    id: 'sufficient-installation-disk-speed',
    status: 'failure',
    setup: (w) => (w.attributes['master-0']!.disks_info = measuredUnderInstallationDisk(w, { tested: true, exit_code: 1 })),
  },
  {
    name: 'disk speed never measured',
    id: 'sufficient-installation-disk-speed',
    status: 'success',
    message: /not yet been measured/,
    setup: (w) => delete w.attributes['master-0']!.disks_info,
  },
  {
    name: 'no installation disk stored (no eligible disk), as upstream',
    id: 'sufficient-installation-disk-speed',
    status: 'error',
    message: /^Validation error$/,
    setup: (w) => {
      delete w.attributes['master-0']!.installation_disk_id;
      delete w.attributes['master-0']!.installation_disk_path;
    },
  },
  {
    name: 'a 4-core host as the single node',
    id: 'has-cpu-cores-for-role',
    status: 'failure',
    message: /Require at least 8 CPU cores for master role, found only 4/,
    target: 'worker-0',
    machines: ['worker-0'],
    setup: (w) => {
      Object.assign(clusterAttrs(w), { control_plane_count: 1, user_managed_networking: true, platform: { type: 'none' } });
      Object.assign(w.attributes['worker-0']!, { role: 'master', suggested_role: 'master' });
    },
  },
  {
    name: 'a 12 GiB master',
    id: 'has-memory-for-role',
    status: 'failure',
    message: /Require at least 16\.00 GiB RAM for role master, found only 12\.00 GiB/,
    setup: (w) => (w.inventories['master-0']!.memory.physical_bytes = 12 * 1024 ** 3),
  },
  {
    name: 'operators raise the role minimum',
    id: 'has-cpu-cores-for-role',
    status: 'failure',
    message: /Require at least 12 CPU cores for master role, found only 8/,
    setup: (w) => withOperators(w, 'mce', 'cnv'),
  },
  {
    name: 'two hosts named master-0',
    id: 'hostname-unique',
    status: 'failure',
    message: /^Hostname master-0\.ocp\.example\.com is not unique in cluster$/,
    setup: (w) => (w.attributes['master-1']!.requested_hostname = 'master-0.ocp.example.com'),
  },
  {
    name: 'named localhost',
    id: 'hostname-valid',
    status: 'failure',
    message: /The host name localhost is forbidden/,
    setup: (w) => (w.inventories['master-0']!.hostname = 'localhost'),
  },
  {
    name: 'upper case and underscore',
    id: 'hostname-valid',
    status: 'failure',
    message: /should match pattern/,
    setup: (w) => (w.attributes['master-0']!.requested_hostname = 'Master_0'),
  },
  {
    name: 'KVM host in a vSphere cluster',
    id: 'compatible-with-cluster-platform',
    status: 'failure',
    message: /not compatible with cluster platform vsphere/,
    setup: (w) => (clusterAttrs(w).platform = { type: 'vsphere' }),
  },
  {
    name: 'VMware VM in a vSphere cluster',
    id: 'compatible-with-cluster-platform',
    status: 'success',
    setup: (w) => {
      clusterAttrs(w).platform = { type: 'vsphere' };
      w.inventories['master-0']!.system_vendor = { manufacturer: 'VMware, Inc.', product_name: 'VMware7,1', virtual: true };
    },
  },
  {
    name: 'VMware VM without disk.EnableUUID',
    id: 'vsphere-disk-uuid-enabled',
    status: 'failure',
    message: /disk\.EnableUUID/,
    setup: (w) => {
      w.inventories['master-0']!.system_vendor = { manufacturer: 'VMware, Inc.', product_name: 'VMware7,1', virtual: true };
      w.inventories['master-0']!.disks[0]!.has_uuid = false;
    },
  },
  {
    name: 'TPM encryption on a host without TPM',
    id: 'disk-encryption-requirements-satisfied',
    status: 'failure',
    message: /TPM is enabled in host's BIOS/,
    setup: (w) => {
      clusterAttrs(w).disk_encryption = { enable_on: 'all', mode: 'tpmv2' };
      w.inventories['master-0']!.tpm_version = 'none';
    },
  },
  {
    name: 'Tang encryption before the Tang check ran',
    id: 'disk-encryption-requirements-satisfied',
    status: 'pending',
    setup: (w) =>
      (clusterAttrs(w).disk_encryption = { enable_on: 'masters', mode: 'tang', tang_servers: '[{"url":"http://tang.example.com:7500","thumbprint":"abc"}]' }),
  },
  {
    name: 'TPM encryption with TPM 2.0',
    id: 'disk-encryption-requirements-satisfied',
    status: 'success',
    message: /tpmv2/,
    setup: (w) => (clusterAttrs(w).disk_encryption = { enable_on: 'all', mode: 'tpmv2' }),
  },
  {
    name: 'agent older than the service',
    id: 'compatible-agent',
    status: 'failure',
    config: { enableUpgradeAgent: true, agentImage: 'quay.io/edge-infrastructure/assisted-installer-agent:v2.40.0' },
  },
  {
    name: 'agent that never reported its version (upstream fails it and asks for an upgrade)',
    id: 'compatible-agent',
    status: 'failure',
    message: /being upgraded to a compatible version/,
    config: { enableUpgradeAgent: true, agentImage: AGENT_IMAGE },
    setup: (w) => delete w.attributes['master-0']!.discovery_agent_version,
  },
  {
    name: 'agent matches the service',
    id: 'compatible-agent',
    status: 'success',
    message: /compatible with the service/,
    config: { enableUpgradeAgent: true, agentImage: AGENT_IMAGE },
  },
  {
    name: 'skip formatting the installation disk',
    id: 'no-skip-installation-disk',
    status: 'failure',
    setup: (w) => (w.attributes['master-0']!.skip_formatting_disks = '/dev/disk/by-id/wwn-0x5000c5008e3d0a10'),
  },
  {
    name: 'skip formatting a vanished disk',
    id: 'no-skip-missing-disk',
    status: 'failure',
    setup: (w) => (w.attributes['master-0']!.skip_formatting_disks = '/dev/disk/by-id/wwn-0x0000000000000bad'),
  },
  {
    name: 'skip formatting a present data disk',
    id: 'no-skip-missing-disk',
    status: 'success',
    setup: (w) => (w.attributes['master-0']!.skip_formatting_disks = '/dev/disk/by-path/pci-0000:00:10.0-scsi-1:0:0:0'),
  },

  // ---- operators with host requirements
  {
    name: 'ODF compact cluster, master without a data disk',
    id: 'odf-requirements-satisfied',
    status: 'failure',
    message: /Insufficient disks, ODF requires at least one non-installation SSD or HDD disk on each host in compact mode/,
    setup: (w) => {
      compact(w);
      withOperators(w, 'lso', 'odf');
    },
  },
  {
    name: 'ODF compact cluster, master with a data disk',
    id: 'odf-requirements-satisfied',
    status: 'success',
    setup: (w) => {
      compact(w);
      withOperators(w, 'lso', 'odf');
      addDataDisk(w.inventories['master-0']!);
    },
  },
  {
    name: 'ODF with five hosts and auto-assign roles',
    id: 'odf-requirements-satisfied',
    status: 'pending',
    message: /exactly three hosts/,
    setup: (w) => {
      withOperators(w, 'lso', 'odf');
      w.attributes['master-0']!.role = 'auto-assign';
    },
  },
  {
    name: 'virtualization without VT-x',
    id: 'cnv-requirements-satisfied',
    status: 'failure',
    message: /virtualization support/,
    setup: (w) => {
      withOperators(w, 'cnv');
      w.inventories['master-0']!.cpu.flags = w.inventories['master-0']!.cpu.flags.filter((flag) => flag !== 'vmx');
    },
  },
  { name: 'virtualization on a master', id: 'cnv-requirements-satisfied', status: 'success', setup: (w) => withOperators(w, 'cnv') },
  {
    name: 'LVM worker without a data disk',
    id: 'lvm-requirements-satisfied',
    status: 'failure',
    message: /at least one non-installation HDD\/SSD disk/,
    target: 'worker-0',
    setup: (w) => {
      withOperators(w, 'lvm');
      w.inventories['worker-0']!.disks = w.inventories['worker-0']!.disks.filter((disk) => disk.name !== 'sdb');
    },
  },
  { name: 'LVM worker with a data disk', id: 'lvm-requirements-satisfied', status: 'success', target: 'worker-0', setup: (w) => withOperators(w, 'lvm') },
  {
    name: 'multicluster engine on a 16 GiB worker',
    id: 'mce-requirements-satisfied',
    status: 'failure',
    message: /Insufficient memory to deploy multicluster engine/,
    target: 'worker-0',
    setup: (w) => withOperators(w, 'mce'),
  },
  { name: 'multicluster engine on a 32 GiB master', id: 'mce-requirements-satisfied', status: 'success', setup: (w) => withOperators(w, 'mce') },
  {
    name: 'MTV with 900 MiB usable',
    id: 'mtv-requirements-satisfied',
    status: 'failure',
    message: /Insufficient memory to deploy OpenShift Migration Toolkit for Virtualization/,
    setup: (w) => {
      withOperators(w, 'cnv', 'mtv');
      w.inventories['master-0']!.memory.usable_bytes = 900 * 1024 ** 2;
    },
  },
  {
    name: 'sandboxed containers with 900 MiB usable',
    id: 'osc-requirements-satisfied',
    status: 'failure',
    message: /sandboxed containers/,
    setup: (w) => {
      withOperators(w, 'node-feature-discovery', 'osc');
      w.inventories['master-0']!.memory.usable_bytes = 900 * 1024 ** 2;
    },
  },
  {
    name: 'OpenShift AI on a 4-core worker',
    id: 'openshift-ai-requirements-satisfied',
    status: 'failure',
    message: /requires 8 CPU cores but found 4/,
    target: 'worker-0',
    setup: (w) => withOperators(w, 'openshift-ai'),
  },
  {
    name: 'NVIDIA GPU with secure boot',
    id: 'nvidia-gpu-requirements-satisfied',
    status: 'failure',
    message: /NVIDIA GPU drivers/,
    setup: (w) => {
      withOperators(w, 'node-feature-discovery', 'nvidia-gpu');
      w.inventories['master-0']!.gpus.push({
        vendor: 'NVIDIA Corporation',
        vendor_id: '10de',
        device_id: '20b5',
        name: 'GA100 [A100 PCIe 80GB]',
        address: '0000:3b:00.0',
      });
      w.inventories['master-0']!.boot.secure_boot_state = 'Enabled';
    },
  },
  {
    name: 'NVIDIA operator before the inventory',
    id: 'nvidia-gpu-requirements-satisfied',
    status: 'pending',
    setup: (w) => {
      withOperators(w, 'nvidia-gpu');
      w.inventories['master-0'] = undefined;
    },
  },
  {
    name: 'AMD GPU with secure boot',
    id: 'amd-gpu-requirements-satisfied',
    status: 'failure',
    message: /AMD GPU drivers/,
    setup: (w) => {
      withOperators(w, 'node-feature-discovery', 'kmm', 'amd-gpu');
      w.inventories['master-0']!.gpus.push({
        vendor: 'Advanced Micro Devices, Inc. [AMD/ATI]',
        vendor_id: '1002',
        device_id: '740f',
        name: 'Aldebaran/MI200',
        address: '0000:c1:00.0',
      });
      w.inventories['master-0']!.boot.secure_boot_state = 'Enabled';
    },
  },
  {
    name: 'kernel modules with secure boot',
    id: 'kmm-requirements-satisfied',
    status: 'failure',
    message: /load modules/,
    setup: (w) => {
      withOperators(w, 'kmm');
      w.inventories['master-0']!.boot.secure_boot_state = 'Enabled';
    },
  },
  ...OPERATORS_WITHOUT_HOST_REQUIREMENTS.map(
    (id): Row => ({
      name: 'switched off by DISABLED_HOST_VALIDATIONS',
      id,
      status: 'disabled',
      message: /disabled by configuration/,
      setup: (w) => withOperators(w, operatorName(id)),
      config: { disabledValidations: [id] },
    }),
  ),
  ...OPERATORS_WITHOUT_HOST_REQUIREMENTS.map(
    (id): Row => ({
      name: 'installed, nothing asked of the host',
      id,
      status: 'success',
      setup: (w) => withOperators(w, operatorName(id) === 'numa-resources' ? 'numaresources' : operatorName(id)),
    }),
  ),
];

describe('operator host validations as upstream reports them', () => {
  it('shows no validation of the retired ocs operator, and no reason for an operator a host satisfies', () => {
    const w = world();
    withOperators(w, 'lso', 'cnv');
    const info = JSON.parse(validationsInfo(run(w))) as Record<string, { id: string; message: string }[]>;
    const operators = new Map(info.operators!.map((entry) => [entry.id, entry.message]));
    expect(operators.has('ocs-requirements-satisfied')).toBe(false);
    expect(operators.get('lso-requirements-satisfied')).toBe('');
    expect(operators.get('odf-requirements-satisfied')).toBe('odf is disabled');
  });
});

describe('validateHost: one row per case', () => {
  it.each(ROWS.map((row) => [`${row.id}: ${row.name} → ${row.status}`, row] as const))('%s', (_, row) => {
    const w = world(row.machines);
    row.setup?.(w);
    const result = find(run(w, row.target, row.config), row.id);
    expect(result.status, result.message).toBe(row.status);
    if (row.message) expect(result.message).toMatch(row.message);
    expect(result.category).toBe(Object.entries(HOST_VALIDATION_CATEGORIES).find(([, ids]) => (ids as readonly string[]).includes(row.id))![0]);
  });

  it('has a success and a non-success case for every validation id', () => {
    for (const id of JUDGED_IDS) {
      const statuses = new Set(ROWS.filter((row) => row.id === id).map((row) => row.status));
      expect(statuses.has('success'), `${id} success case`).toBe(true);
      expect(
        [...statuses].some((status) => status !== 'success'),
        `${id} non-success case`,
      ).toBe(true);
    }
  });
});

describe('validateHost: completeness and shape', () => {
  it('covers exactly the host-validation-id enum, each once, in its category, except what upstream does not run', () => {
    const enumIds = [...HOST_VALIDATION_IDS].sort();
    expect(Object.values(HOST_VALIDATION_CATEGORIES).flat().sort()).toEqual(enumIds);
    for (const target of HEALTHY) {
      const results = run(world(), target);
      expect(results.map((r) => r.id).sort()).toEqual([...JUDGED_IDS].sort());
    }
  });

  it("neither runs nor lists release-domain-name-resolved-correctly, as upstream's host document", () => {
    const w = world();
    // A release registry that does not resolve: the check, were it run, would fail.
    w.attributes['master-0']!.domain_name_resolutions = JSON.stringify({ resolutions: RESOLUTIONS.resolutions.filter((r) => r.domain_name !== 'quay.io') });
    const results = run(w);
    expect(results.map((r) => r.id)).not.toContain('release-domain-name-resolved-correctly');
    expect(validationsInfo(results)).not.toContain('release-domain-name-resolved-correctly');
  });

  it('agrees with the openapi enum', () => {
    const spec = parse(readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8')) as {
      components: { schemas: Record<string, { enum?: string[] }> };
    };
    expect([...spec.components.schemas['host-validation-id']!.enum!].sort()).toEqual([...HOST_VALIDATION_IDS].sort());
  });

  it('makes a healthy master and worker ready for installation', () => {
    for (const target of ['master-0', 'worker-0'] as const) {
      const summary = summarizeHostValidations(run(world(), target));
      expect(summary).toMatchObject({
        hasInventory: true,
        inventoryNotFullyTruncated: true,
        minHardware: true,
        poolHardware: true,
        machineCidrDefined: true,
        sufficientForInstall: true,
        vsphereDiskUuidEnabled: true,
        installationDiskSpeedOk: true,
        containerImagesOk: true,
      });
      expect(summary.failureMessages).toEqual([]);
    }
  });

  it('keeps an undersized host at insufficient hardware and lists why', () => {
    const summary = summarizeHostValidations(run(world([...HEALTHY, 'undersized']), 'undersized'));
    expect(summary.minHardware).toBe(false);
    expect(summary.failureMessages.join('\n')).toMatch(/CPU cores for any role is 2, found only 1/);
  });

  it('never puts a secret or the pull secret in a message', () => {
    const w = world();
    w.infraEnv.pullSecret = '{"auths":{"cloud.openshift.com":{"auth":"c2VjcmV0OnNlY3JldA=="}}}';
    const text = JSON.stringify(run(w));
    expect(text).not.toContain('c2VjcmV0');
  });

  it('hides, without failing, what upstream leaves out after the reboot', () => {
    const w = world();
    Object.assign(w.attributes['master-0']!, { progress: { current_stage: 'Configuring' }, checked_in_at: iso(3_600_000) });
    const results = run(w);
    expect(find(results, 'connected')).toMatchObject({ status: 'success', hidden: true });
    expect(find(results, 'compatible-agent').hidden).toBe(true);
    expect(JSON.parse(validationsInfo(results)).network.map((r: { id: string }) => r.id)).not.toContain('connected');
  });

  it('reports configured-off validations as disabled, unless the cluster has its own ignore list', () => {
    const config = { disabledValidations: ['ntp-synced'] };
    expect(find(run(world(), 'master-0', config), 'ntp-synced')).toMatchObject({ status: 'disabled', message: 'Validation disabled by configuration' });
    const w = world();
    clusterAttrs(w).ignored_host_validations = '["has-default-route"]';
    expect(find(run(w, 'master-0', config), 'ntp-synced').status).toBe('success');
  });
});

describe('validateHost: unbound hosts', () => {
  it('checks a pool host against the infra-env and hides what needs a cluster', () => {
    const w = world(['master-0']);
    unbound(w);
    // No NTP reply and no NTP source on the infra-env: nothing to be synced to.
    delete w.attributes['master-0']!.ntp_sources;
    const results = run(w);
    expect(results).toHaveLength(JUDGED_IDS.length);
    expect(summarizeHostValidations(results).poolHardware).toBe(true);
    for (const id of ['hostname-unique', 'belongs-to-majority-group', 'machine-cidr-defined', 'odf-requirements-satisfied', 'ntp-synced']) {
      expect(find(results, id), id).toMatchObject({ status: 'success', hidden: true });
    }
    const info = JSON.parse(validationsInfo(results)) as Record<string, { id: string }[]>;
    expect(Object.keys(info)).toEqual(['hardware', 'network']);
    expect(info.hardware!.map((r) => r.id)).toContain('has-min-cpu-cores');
  });

  it('holds a pool host to the smallest role minimums (the arbiter disk size)', () => {
    const w = world(['no-eligible-disk']);
    unbound(w);
    // 64 GB passes the arbiter's 50 GB, but the disk is removable: the agent's reason stands.
    expect(find(run(w, 'no-eligible-disk'), 'has-min-valid-disks').status).toBe('failure');
    w.inventories['no-eligible-disk']!.disks[1]!.installation_eligibility = {
      eligible: false,
      not_eligible_reasons: ['Disk is too small (disk only has 64 GB, but 100 GB are required)'],
    };
    expect(find(run(w, 'no-eligible-disk'), 'has-min-valid-disks').status).toBe('success');
  });

  it('fails hostname-valid without an inventory, as upstream (it is a pool gate)', () => {
    const w = world(['master-0']);
    unbound(w);
    w.inventories['master-0'] = undefined;
    expect(find(run(w), 'hostname-valid')).toMatchObject({ status: 'failure', message: 'Missing inventory' });
  });
});

describe('role-dependent requirements', () => {
  it("gives auto-assign hosts the role they would get: masters first, lightest hosts first (upstream's SortHosts)", () => {
    const w = world();
    for (const attributes of Object.values(w.attributes)) Object.assign(attributes!, { role: 'auto-assign', suggested_role: 'auto-assign' });
    expect(find(run(w, 'worker-0'), 'has-cpu-cores-for-role').message).toBe('Sufficient CPU cores for role master');
    expect(find(run(w, 'master-2'), 'has-cpu-cores-for-role').message).toBe('Sufficient CPU cores for role worker');
  });

  it('suggests roles as upstream: an undersized host never becomes a master, a two-node control plane gets an arbiter', () => {
    const w = world(['undersized', 'worker-0', 'master-0', 'master-1']);
    const hosts = (Object.keys(w.attributes) as MachineName[]).map((name, index) => hostRecord(w, name, index));
    const peers: PeerHost[] = hosts.map((host) => ({
      id: host.hostId,
      host,
      inventory: JSON.parse(host.attributes.inventory as string),
      assignedRole: 'auto-assign',
      role: 'auto-assign',
      hostname: '',
    }));
    const suggest = (controlPlaneCount: number) =>
      suggestRoles({
        cluster: clusterFacts(clusterRecord({ control_plane_count: controlPlaneCount })),
        hosts: peers,
        minimums: hardwareMinimums('4.18.5'),
        edgeWorkerProductNames: [],
        installationDiskOf: () => undefined,
      });
    expect(Object.fromEntries(suggest(3))).toEqual({
      [MACHINES.undersized.id]: 'worker',
      [MACHINES['worker-0'].id]: 'master',
      [MACHINES['master-0'].id]: 'master',
      [MACHINES['master-1'].id]: 'master',
    });
    expect(Object.fromEntries(suggest(2))).toEqual({
      [MACHINES.undersized.id]: 'worker',
      [MACHINES['worker-0'].id]: 'master',
      [MACHINES['master-0'].id]: 'master',
      [MACHINES['master-1'].id]: 'arbiter',
    });
  });

  it("takes hosts lightest first, as upstream's monitor does, so a later, smaller host becomes a control-plane node", () => {
    // Registered master-0, master-1, then worker-0 (4 cores, 16 GiB): upstream's SortHosts puts worker-0 first.
    const w = world(['master-0', 'master-1', 'worker-0']);
    const hosts = (Object.keys(w.attributes) as MachineName[]).map((name, index) => hostRecord(w, name, index));
    const peers: PeerHost[] = hosts.map((host) => ({
      id: host.hostId,
      host,
      inventory: JSON.parse(host.attributes.inventory as string),
      assignedRole: 'auto-assign',
      role: 'auto-assign',
      hostname: '',
    }));
    expect(hostWeight(peers[2]!.inventory!)).toBeLessThan(hostWeight(peers[0]!.inventory!));
    const suggested = suggestRoles({
      cluster: clusterFacts(clusterRecord({ control_plane_count: 2 })),
      hosts: peers,
      minimums: hardwareMinimums('4.19.5'),
      edgeWorkerProductNames: [],
      installationDiskOf: () => undefined,
    });
    expect(Object.fromEntries(suggested)).toEqual({
      [MACHINES['worker-0'].id]: 'master',
      [MACHINES['master-0'].id]: 'master',
      [MACHINES['master-1'].id]: 'arbiter',
    });
  });

  it("counts the role checks the cluster ignores as passed, as upstream's role conditions do: undersized hosts become masters", () => {
    const w = world(['undersized', 'master-0']);
    const hosts = (Object.keys(w.attributes) as MachineName[]).map((name, index) => hostRecord(w, name, index));
    const peers: PeerHost[] = hosts.map((host) => ({
      id: host.hostId,
      host,
      inventory: JSON.parse(host.attributes.inventory as string),
      assignedRole: 'auto-assign',
      role: 'auto-assign',
      hostname: '',
    }));
    const suggest = (ignored?: string) =>
      suggestRoles({
        cluster: clusterFacts(clusterRecord({ control_plane_count: 3, ...(ignored ? { ignored_host_validations: ignored } : {}) })),
        hosts: peers,
        minimums: hardwareMinimums('4.18.5'),
        edgeWorkerProductNames: [],
        installationDiskOf: () => undefined,
      }).get(MACHINES.undersized.id);
    expect(suggest()).toBe('worker');
    expect(suggest('["has-cpu-cores-for-role"]')).toBe('worker');
    expect(suggest('["has-cpu-cores-for-role","has-memory-for-role"]')).toBe('master');
  });

  it('uses the single-node minimums, lowered from OpenShift 4.22', () => {
    const w = world(['worker-0']);
    Object.assign(clusterAttrs(w), { control_plane_count: 1, openshift_version: '4.22.1', user_managed_networking: true, platform: { type: 'none' } });
    Object.assign(w.attributes['worker-0']!, { role: 'master' });
    expect(find(run(w, 'worker-0'), 'has-cpu-cores-for-role').status).toBe('success');
  });

  it('holds a disk to the role disk size: a 60 GB disk suits an arbiter, not a master', () => {
    const w = world();
    const disk = w.inventories['master-0']!.disks[0]!;
    disk.size_bytes = 60_000_000_000;
    expect(find(run(w), 'has-min-valid-disks').status).toBe('failure');
    Object.assign(clusterAttrs(w), { control_plane_count: 2 });
    Object.assign(w.attributes['master-0']!, { role: 'arbiter' });
    expect(find(run(w), 'has-min-valid-disks').status).toBe('success');
  });
});

describe('validationsInfo', () => {
  it("groups visible results by category in upstream's shape", () => {
    const info = JSON.parse(validationsInfo(run(world()))) as Record<string, { id: string; status: string; message: string }[]>;
    expect(Object.keys(info)).toEqual(['hardware', 'network', 'operators']);
    expect(info.network![0]).toEqual({ id: 'connected', status: 'success', message: 'Host is connected' });
    expect(Object.keys(info.hardware![0]!)).toEqual(['id', 'status', 'message']);
    // Checks that do not apply to a day-1 host are left out, as upstream's success-suppress-output.
    expect(info.network!.map((r) => r.id)).not.toContain('ignition-downloadable');
    const operatorIds = info.operators!.map((r) => r.id);
    expect(operatorIds).toEqual([...operatorIds].sort());
  });

  it('still reports an ignored failing validation as failing; only the summary lets it pass', () => {
    const w = world();
    clusterAttrs(w).ignored_host_validations = '["has-default-route"]';
    w.inventories['master-0']!.routes = [];
    const results = run(w);
    const info = JSON.parse(validationsInfo(results)) as Record<string, { id: string; status: string }[]>;
    expect(info.network!.find((r) => r.id === 'has-default-route')!.status).toBe('failure');
    expect(summarizeHostValidations(results, '["has-default-route"]').sufficientForInstall).toBe(true);
    expect(summarizeHostValidations(results).sufficientForInstall).toBe(false);
  });
});

describe('validationChanges', () => {
  const info = (statuses: Record<string, ValidationStatus>) =>
    JSON.stringify({ network: Object.entries(statuses).map(([id, status]) => ({ id, status, message: id })) });

  it('reports failed, fixed and other flips for validations present before and after', () => {
    const before = info({
      connected: 'success',
      'ntp-synced': 'failure',
      'has-default-route': 'pending',
      'mtu-valid': 'success',
      'belongs-to-majority-group': 'pending',
    });
    const after = info({
      connected: 'failure',
      'ntp-synced': 'success',
      'has-default-route': 'failure',
      'mtu-valid': 'success',
      'belongs-to-majority-group': 'success',
      'dns-wildcard-not-configured': 'failure',
    });
    expect(validationChanges(before, after)).toEqual([
      { id: 'connected', from: 'success', to: 'failure', kind: 'failed', failureMessage: 'that used to succeed is now failing' },
      { id: 'ntp-synced', from: 'failure', to: 'success', kind: 'fixed' },
      { id: 'has-default-route', from: 'pending', to: 'failure', kind: 'failed', failureMessage: 'failed' },
      { id: 'belongs-to-majority-group', from: 'pending', to: 'success', kind: 'changed' },
    ]);
  });

  it('compares results against the stored document, and reports nothing for a first evaluation', () => {
    const w = world();
    const stored = validationsInfo(run(w));
    w.attributes['master-0']!.media_status = 'disconnected';
    const results = run(w);
    expect(validationChanges(stored, results)).toEqual([
      { id: 'media-connected', from: 'success', to: 'failure', kind: 'failed', failureMessage: 'that used to succeed is now failing' },
    ]);
    expect(validationChanges(undefined, results)).toEqual([]);
    expect(validationsInfoChanged(stored, validationsInfo(results))).toBe(true);
    expect(validationsInfoChanged(stored, stored)).toBe(false);
    expect(validationsInfoChanged(stored, '{}')).toBe(false);
  });

  it('tells when a validation that reads the peers went from success to failure (the verdict is then checked on a fresh listing)', () => {
    const good = info({ 'belongs-to-majority-group': 'success', 'hostname-unique': 'success', 'ntp-synced': 'failure' });
    expect(peerValidationLost(good, info({ 'belongs-to-majority-group': 'failure', 'hostname-unique': 'success', 'ntp-synced': 'success' }))).toBe(true);
    expect(peerValidationLost(good, info({ 'belongs-to-majority-group': 'success', 'hostname-unique': 'failure', 'ntp-synced': 'failure' }))).toBe(true);
    // Not a peer validation, or not a loss: nothing to confirm.
    expect(peerValidationLost(info({ 'ntp-synced': 'success' }), info({ 'ntp-synced': 'failure' }))).toBe(false);
    expect(peerValidationLost(info({ 'belongs-to-majority-group': 'pending' }), info({ 'belongs-to-majority-group': 'failure' }))).toBe(false);
    expect(peerValidationLost(good, good)).toBe(false);
  });
});

describe('judging a host changed since the listing of its peers (peersAsListed)', () => {
  const listed = () => {
    const w = world();
    const names = Object.keys(w.attributes) as MachineName[];
    return { w, listing: names.map((name, index) => hostRecord(w, name, index)), index: names.indexOf('master-1') };
  };
  const judge = (peersAsListed: boolean, change: (host: ReturnType<typeof hostRecord>) => void) => {
    const { w, listing, index } = listed();
    const changed = structuredClone(listing[index]!);
    change(changed);
    return validateHost({
      host: changed,
      cluster: w.cluster!,
      clusterHosts: listing,
      infraEnv: w.infraEnv,
      now: NOW,
      ...(peersAsListed ? { peersAsListed } : {}),
    });
  };

  it("reads the host's own facts anew: a hostname taken since the listing clashes, its old name does not", () => {
    const rename = (name: string) => (host: ReturnType<typeof hostRecord>) => void (host.attributes.requested_hostname = name);
    expect(find(judge(true, rename('master-0.ocp.example.com')), 'hostname-unique').status).toBe('failure');
    // The listing still holds this host under its old name: that copy is itself, not a clash.
    expect(find(judge(true, rename('renamed.ocp.example.com')), 'hostname-unique').status).toBe('success');
  });

  it('takes what depends on the whole cluster from the listing: a report sent since counts when the host is next judged against a newer listing', () => {
    const dropPeers = (host: ReturnType<typeof hostRecord>) => void (host.attributes.connectivity = JSON.stringify({ remote_hosts: [] }));
    expect(find(judge(false, dropPeers), 'belongs-to-majority-group').status).toBe('failure');
    expect(find(judge(true, dropPeers), 'belongs-to-majority-group').status).toBe('success');
  });

  it("judges exactly as without it when the host validated is the listing's own copy", () => {
    const { w, listing, index } = listed();
    const input = { host: listing[index]!, cluster: w.cluster!, clusterHosts: listing, infraEnv: w.infraEnv, now: NOW };
    expect(validateHost({ ...input, peersAsListed: true })).toEqual(validateHost(input));
  });
});

describe('connectivity groups', () => {
  const ids = ['h1', 'h2', 'h3', 'h4'];
  const ip = (id: string) => `10.0.0.${ids.indexOf(id) + 1}`;
  const host = (id: string, reaches: string[]) => ({
    id,
    inventory: { interfaces: [{ name: 'eth0', ipv4_addresses: [`${ip(id)}/24`] }], cpu: {}, memory: {} },
    connectivity: JSON.stringify({
      remote_hosts: reaches.map((peer) => ({
        host_id: peer,
        l2_connectivity: [{ remote_ip_address: ip(peer), remote_mac: `02:00:00:00:00:0${ids.indexOf(peer) + 1}`, outgoing_nic: 'eth0', successful: true }],
        l3_connectivity: [{ remote_ip_address: ip(peer), successful: true }],
      })),
    }),
  });
  const everyone = (id: string) => ids.filter((other) => other !== id);

  it('finds the full mesh of all hosts', () => {
    const groups = connectivityMajorityGroups(ids.map((id) => host(id, everyone(id))));
    expect(groups.majority_groups['10.0.0.0/24']).toEqual(ids);
    expect(groups.majority_groups.IPv4).toEqual(ids);
    expect(groups.l3_connected_addresses).toEqual({ h1: ['10.0.0.1'], h2: ['10.0.0.2'], h3: ['10.0.0.3'], h4: ['10.0.0.4'] });
  });

  it('leaves out a host that only some reach, and one whose link is one-way', () => {
    const oneWay = [host('h1', ['h2', 'h3', 'h4']), host('h2', ['h1', 'h3']), host('h3', ['h1', 'h2']), host('h4', ['h1', 'h2', 'h3'])];
    expect(connectivityMajorityGroups(oneWay).majority_groups['10.0.0.0/24']).toEqual(['h1', 'h2', 'h3']);
  });

  it('has no majority below three hosts, unless the minimum is two (fencing)', () => {
    const pair = [host('h1', ['h2']), host('h2', ['h1'])];
    expect(connectivityMajorityGroups(pair).majority_groups['10.0.0.0/24']).toEqual([]);
    expect(connectivityMajorityGroups(pair, 2).majority_groups['10.0.0.0/24']).toEqual(['h1', 'h2']);
  });

  it('finds an address answered by two MACs', () => {
    const report = JSON.stringify({
      remote_hosts: [
        {
          host_id: 'h2',
          l2_connectivity: [
            { outgoing_nic: 'eth0', remote_ip_address: '10.0.0.2', remote_mac: '02:00:00:00:00:02', successful: true },
            { outgoing_nic: 'eth0', remote_ip_address: '10.0.0.2', remote_mac: '02:00:00:00:00:99', successful: true },
          ],
        },
      ],
    });
    expect(ipCollisions([{ id: 'h1', connectivity: report }])).toEqual({ '10.0.0.2': ['02:00:00:00:00:02', '02:00:00:00:00:99'] });
  });
});
