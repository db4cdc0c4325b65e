/**
 * Network host validations (upstream internal/host/validator.go): liveness, machine network
 * membership, connectivity to the other hosts (majority group, latency, packet loss, MTU, IP
 * collisions), time, routes and subnets (DNS is in host-validations-dns.ts). Each reads the agent
 * replies stored on the host. Pure.
 */
import { isHostConnected } from '../host-facts.js';
import { HOST_STATUS_INFO } from '../host-status-info.js';
import { connectivityMajorityGroups, ipCollisions, type ConnectivityHost } from './host-validations-connectivity.js';
import { findDisk } from './host-validations-disks.js';
import {
  cidrContains,
  cidrsOverlap,
  defaultRoute,
  error,
  failure,
  interfaceInNetwork,
  interfaceIps,
  notApplicable,
  outcomeOf,
  parseCidr,
  parseIp,
  parsedNetworks,
  pending,
  readStoredJson,
  success,
  type Check,
  type ConnectivityReport,
  type Inventory,
  type Outcome,
  type ParsedCidr,
  type PeerHost,
  type ValidationContext,
} from './host-validations-model.js';
import type { HostValidationId } from '../../core/validation-ids.js';

const MINUTE_MS = 60_000;

// ---------------------------------------------------------------- liveness and media

const connected: Check = (ctx) => {
  const progress = ctx.attributes.progress;
  const ok = isHostConnected({
    checkedInAt: ctx.attributes.checked_in_at,
    bootstrap: ctx.attributes.bootstrap === true,
    progress: { currentStage: progress?.current_stage },
    now: ctx.now,
    timeouts: { maxDisconnectionMs: ctx.config.maxDisconnectionMs, bootstrapExtraDisconnectionMs: ctx.config.bootstrapExtraDisconnectionMs },
  });
  return outcomeOf(ok, 'Host is connected', 'Host is disconnected');
};

const mediaConnected: Check = (ctx) =>
  outcomeOf(ctx.attributes.media_status !== 'disconnected', 'Media device is connected', HOST_STATUS_INFO.mediaDisconnected);

// ---------------------------------------------------------------- machine network

const machineNetworks = (ctx: ValidationContext): ParsedCidr[] => parsedNetworks(ctx.cluster?.machineNetworks ?? []);

const machineCidrDefined: Check = ({ cluster }) => {
  if (!cluster) return notApplicable();
  if (cluster.userManagedNetworking) return success('No Machine Network CIDR needed: User Managed Networking');
  if (cluster.day2) return success('No Machine Network CIDR needed: Day2 cluster');
  if (cluster.machineNetworks.length > 0) return success('Machine Network CIDR is defined');
  if (cluster.vipDhcpAllocation) return failure('Machine Network CIDR is undefined');
  return failure('Machine Network CIDR is undefined; the Machine Network CIDR can be defined by setting either the API or Ingress virtual IPs');
};

const hostInNetwork = (inventory: Inventory, network: ParsedCidr) => (inventory.interfaces ?? []).some((nic) => interfaceInNetwork(nic, network));

const belongsToMachineCidr: Check = (ctx) => {
  const cluster = ctx.cluster;
  if (!cluster) return notApplicable();
  // Multi-node user-managed networking needs no machine network, except where the bootstrap host defines it.
  if (cluster.userManagedNetworking && !cluster.singleNode && (ctx.attributes.bootstrap !== true || cluster.machineNetworks.length === 0)) {
    return success('No machine network CIDR validation needed: User Managed Networking');
  }
  if (cluster.day2) return success('No machine network CIDR validation needed: Day2 cluster');
  const networks = machineNetworks(ctx);
  if (!ctx.inventory || networks.length === 0) return pending('Missing inventory or machine network CIDR');
  const inventory = ctx.inventory;
  if (!cluster.loadBalancerUserManaged) {
    return outcomeOf(
      networks.every((network) => hostInNetwork(inventory, network)),
      'Host belongs to all machine network CIDRs',
      'Host does not belong to machine network CIDRs. Verify that the host belongs to every CIDR listed under machine networks',
    );
  }
  return outcomeOf(
    networks.some((network) => hostInNetwork(inventory, network)),
    'Host belongs to at least one machine network CIDR',
    'Host does not belong to any machine network CIDR. Verify that the host belongs to at least one CIDR listed under machine networks',
  );
};

// ---------------------------------------------------------------- day-2 ignition

const ignitionDownloadable: Check = (ctx) => {
  if (!ctx.cluster || !ctx.day2Host) return notApplicable();
  const response = readStoredJson<{ is_success?: boolean; url?: string; download_error?: string }>(ctx.attributes, 'api_vip_connectivity');
  if (response === undefined) return pending('Ignition is not yet available, pending API connectivity');
  if (response === null) return error('Internal error - failed to parse agent API connectivity response');
  if (response.is_success) return success('Ignition is downloadable');
  if (!response.url) return failure('This host has failed to download the ignition file from the cluster, please ensure the host can reach the cluster');
  return failure(
    `This host has failed to download the ignition file from ${response.url} with the following error: ${response.download_error ?? ''}. Please ensure the host can reach this URL`,
  );
};

// ---------------------------------------------------------------- connectivity between hosts

const connectivityHosts = (ctx: ValidationContext): ConnectivityHost[] =>
  ctx.clusterHosts.map((peer) => ({
    id: peer.id,
    report: readStoredJson<ConnectivityReport>(peer.host.attributes, 'connectivity'),
    ...(peer.inventory ? { inventory: peer.inventory } : {}),
  }));

/**
 * What depends on the cluster's hosts alone (connectivity groups, IP collisions, peers by id),
 * computed once per peer list: the hosts of one listing share theirs, so a pass over n hosts
 * does the cluster-wide work once instead of n times.
 */
interface PeerListFacts {
  groups: Map<string, ReturnType<typeof connectivityMajorityGroups>>;
  collisions?: ReturnType<typeof ipCollisions>;
  byId?: Map<string, PeerHost>;
}
const factsByPeers = new WeakMap<readonly PeerHost[], PeerListFacts>();
function peerListFacts(ctx: ValidationContext): PeerListFacts {
  let facts = factsByPeers.get(ctx.clusterHosts);
  if (!facts) factsByPeers.set(ctx.clusterHosts, (facts = { groups: new Map() }));
  return facts;
}

function majorityGroupsOf(ctx: ValidationContext, minGroupSize: number, networks: readonly string[]) {
  const groups = peerListFacts(ctx).groups;
  const key = `${minGroupSize}|${networks.join(',')}`;
  let found = groups.get(key);
  if (!found) groups.set(key, (found = connectivityMajorityGroups(connectivityHosts(ctx), minGroupSize, { networks })));
  return found;
}

function ipCollisionsOf(ctx: ValidationContext) {
  const facts = peerListFacts(ctx);
  return (facts.collisions ??= ipCollisions(connectivityHosts(ctx)));
}

function peersById(ctx: ValidationContext): Map<string, PeerHost> {
  const facts = peerListFacts(ctx);
  return (facts.byId ??= new Map<string, PeerHost>(ctx.clusterHosts.map((peer) => [peer.id, peer])));
}

/** Two masters with fencing credentials and no arbiter: the majority is 2 there. */
function twoNodesWithFencing(ctx: ValidationContext): boolean {
  if (ctx.cluster?.controlPlaneCount !== 2 || ctx.clusterHosts.some((peer) => peer.role === 'arbiter')) return false;
  const masters = ctx.clusterHosts.filter((peer) => peer.role === 'master');
  return masters.length === 2 && masters.every((peer) => !!peer.host.attributes.fencing_credentials);
}

const configuredFamilies = (ctx: ValidationContext) => {
  const all = parsedNetworks([...(ctx.cluster?.clusterNetworks ?? []), ...(ctx.cluster?.serviceNetworks ?? []), ...(ctx.cluster?.machineNetworks ?? [])]);
  return { v4: all.some((n) => n.family === 4), v6: all.some((n) => n.family === 6) };
};

const belongsToMajorityGroup: Check = (ctx) => {
  const cluster = ctx.cluster;
  if (!cluster) return notApplicable();
  if (ctx.day2Host) return success('Day2 host is not required to be connected to other hosts in the cluster');
  if (cluster.singleNode) return success('Host has connectivity to the majority of hosts in the cluster');
  const fencing = twoNodesWithFencing(ctx);
  // The groups are those of the topology the cluster was last judged in, as upstream's stored
  // ones; whether too few hosts make a failure pending follows the topology now, as upstream's does.
  const groups = majorityGroupsOf(ctx, (cluster.connectivityGroupsForFencing ?? fencing) ? 2 : 3, cluster.machineNetworks);
  let passed: boolean | 'pending';
  if (cluster.userManagedNetworking || cluster.loadBalancerUserManaged) {
    // Without a shared L2 network, L3 reachability of each configured family is what counts.
    const families = configuredFamilies(ctx);
    const reached = groups.l3_connected_addresses[ctx.self.id] ?? [];
    const v4 = reached.some((address) => parseIp(address)?.family === 4);
    const v6 = reached.some((address) => parseIp(address)?.family === 6);
    passed = (families.v4 || families.v6) && (!families.v4 || v4) && (!families.v6 || v6);
  } else {
    const networks = machineNetworks(ctx);
    passed = networks.length === 0 ? 'pending' : networks.every((network) => (groups.majority_groups[network.text] ?? []).includes(ctx.self.id));
  }
  if (passed === 'pending') return pending('Not enough information to calculate host majority groups');
  if (passed) return success('Host has connectivity to the majority of hosts in the cluster');
  if (ctx.clusterHosts.length < (fencing ? 2 : 3)) return pending('Not enough hosts in cluster to calculate connectivity groups');
  return failure('No connectivity to the majority of hosts in the cluster');
};

type ThresholdKind = 'latency' | 'packet-loss';

/** L3 results to same-role peers above the role's threshold, one per remote address. */
function exceeded(ctx: ValidationContext, report: ConnectivityReport, kind: ThresholdKind, threshold: number) {
  const peers = peersById(ctx);
  const seen = new Set<string>();
  const found: { name: string; value: number; nic?: string; address: string }[] = [];
  for (const remote of report.remote_hosts ?? []) {
    const peer = peers.get(remote.host_id);
    // Thresholds are per role: masters must be close to masters, workers to workers.
    if (!peer || peer.role !== ctx.self.role) continue;
    for (const l3 of remote.l3_connectivity ?? []) {
      const value = (kind === 'latency' ? l3.average_rtt_ms : l3.packet_loss_percentage) ?? 0;
      const address = l3.remote_ip_address ?? '';
      if (value > threshold && !seen.has(address)) {
        seen.add(address);
        found.push({ name: peer.hostname, value, nic: l3.outgoing_nic, address });
      }
    }
  }
  return found;
}

/** A short list ("a (12.00 ms), b (15.00 ms) and others...") and ping commands to reproduce it. */
function thresholdMessage(ctx: ValidationContext, kind: ThresholdKind, threshold: number, found: ReturnType<typeof exceeded>): string {
  const unit = kind === 'latency' ? ' ms' : '%';
  const shown =
    found
      .slice(0, 5)
      .map((f) => `${f.name} (${f.value.toFixed(2)}${unit})`)
      .join(', ') + (found.length > 5 ? ' and others...' : '');
  const what =
    kind === 'latency'
      ? `network latency above the tolerated threshold of ${threshold.toFixed(2)} ms`
      : `packet loss above the tolerated threshold of ${threshold.toFixed(2)}%`;
  const pings = found
    .slice(0, 5)
    .map((f) => `ping -c 10 -W 3 -q ${f.nic ? `-I ${f.nic} ` : ''}${f.address}`)
    .join('\n');
  const advice =
    kind === 'packet-loss'
      ? 'Check if there are multiple devices on the same L2 network; if so, bond them or disable all but one of them.'
      : 'Check the network path between these hosts.';
  return `A total ${what} was encountered when performing connectivity validation between host ${ctx.self.hostname} and ${shown}. ${advice} To investigate further, run on host ${ctx.self.hostname}:\n${pings}`;
}

function thresholdCheck(kind: ThresholdKind): Check {
  const label = kind === 'latency' ? 'Network latency' : 'Packet loss';
  return (ctx) => {
    if (!ctx.inventory) return pending('The inventory is not available yet.');
    if (!ctx.cluster) return notApplicable();
    const threshold = kind === 'latency' ? ctx.requirements.networkLatencyThresholdMs : ctx.requirements.packetLossPercentage;
    if (ctx.clusterHosts.length === 1 || threshold === undefined || ctx.self.role === 'auto-assign' || ctx.day2Host) {
      return success(`${label} requirement has been satisfied.`);
    }
    const report = readStoredJson<ConnectivityReport>(ctx.attributes, 'connectivity');
    if (report === undefined) return pending(kind === 'latency' ? 'Missing network latency information.' : 'Missing packet loss information.');
    if (report === null) return error('Parse error while attempting to process the connectivity report');
    const found = exceeded(ctx, report, kind, threshold);
    return found.length === 0 ? success(`${label} requirement has been satisfied.`) : failure(thresholdMessage(ctx, kind, threshold, found));
  };
}

const mtuValid: Check = (ctx) => {
  const cluster = ctx.cluster;
  if (!cluster) return notApplicable('Host is not bound to a cluster');
  if (!ctx.inventory) return pending('Missing host inventory');
  if (ctx.day2Host) return success('Day2 host is not required to be connected to other hosts in the cluster');
  if (cluster.singleNode) return notApplicable('The validation is not applicable to SNO');
  const report = readStoredJson<ConnectivityReport>(ctx.attributes, 'connectivity');
  if (report === undefined) return pending('Missing MTU report information');
  if (report === null) return error('Internal error - failed to parse host connectivity report');
  const networks = machineNetworks(ctx);
  const interfaces = ctx.inventory.interfaces ?? [];
  for (const remote of report.remote_hosts ?? []) {
    for (const mtu of remote.mtu_report ?? []) {
      if (mtu.mtu_successful) continue;
      if (!cluster.userManagedNetworking) {
        // Managed networking: only paths inside the machine networks matter.
        const remoteIp = parseIp(mtu.remote_ip_address);
        if (!remoteIp || !networks.some((network) => cidrContains(network, remoteIp))) continue;
        const nic = interfaces.find((candidate) => candidate.name === mtu.outgoing_nic);
        if (!nic || !networks.some((network) => network.family === remoteIp.family && interfaceInNetwork(nic, network))) continue;
      }
      return failure(
        `MTU is broken. Interface: ${mtu.outgoing_nic ?? ''}, remote IP address: ${mtu.remote_ip_address ?? ''}. Make sure the MTU is the same on every host and switch of this network`,
      );
    }
  }
  return success('MTU is ok');
};

const noIpCollisions: Check = (ctx) => {
  if (!ctx.cluster) return success('Cluster has not yet been defined, skipping validation.');
  if (!ctx.inventory) return success('Host inventory has not yet been defined, skipping validation.');
  if (ctx.cluster.day2) return success(`Skipping validation for day 2 host ${ctx.self.id}`);
  const own = new Set((ctx.inventory.interfaces ?? []).flatMap((nic) => [...interfaceIps(nic, 4), ...interfaceIps(nic, 6)]).map((ip) => ip.text));
  const found = Object.entries(ipCollisionsOf(ctx))
    .filter(([ip]) => own.has(parseIp(ip)?.text ?? ip))
    .map(([ip, macs]) => `Collisions detected for host ID ${ctx.self.id}, IP address: ${ip} Mac addresses: ${macs.join(',')}`);
  return found.length > 0 ? failure(found.join('\n')) : success(`No IP collisions were detected by host ${ctx.self.id}`);
};

// ---------------------------------------------------------------- time

const UNBOUND_STATUSES = ['insufficient-unbound', 'disconnected-unbound', 'discovering-unbound', 'known-unbound'];

const ntpSynced: Check = (ctx) => {
  // A pool host with no NTP source configured has nothing to be synced to: upstream passes it silently.
  const noSourceWanted = (): Outcome | undefined =>
    UNBOUND_STATUSES.includes(ctx.self.host.status) && !ctx.infraEnv?.attributes.additional_ntp_sources ? notApplicable() : undefined;
  const unsynced = failure("Host couldn't synchronize with any NTP server");
  const sources = readStoredJson<{ source_state?: string }[]>(ctx.attributes, 'ntp_sources');
  if (sources === null) return error('Parse error for NTP sources');
  if ((sources ?? []).some((source) => source.source_state === 'synced')) return success('Host NTP is synced');
  return noSourceWanted() ?? unsynced;
};

/** The host's clock (reported with every poll) may lag the service by 20 minutes or lead it by an hour. */
const timeSynced: Check = (ctx) => {
  const timestamp = Number(ctx.attributes.timestamp ?? 0);
  if (!timestamp) return pending("Missing host time, can't determine synchronization between host and service");
  const serviceAheadMs = ctx.now.getTime() - timestamp * 1000;
  // To the minute: a message that changed on every evaluation would rewrite validations_info each time.
  const service = `${ctx.now.toISOString().slice(0, 16)}Z`;
  if (serviceAheadMs > ctx.config.maxServiceAheadOfHostMs) {
    return failure(
      `Host clock is not synchronized, service time is ahead of host's at least for ${(ctx.config.maxServiceAheadOfHostMs / MINUTE_MS).toFixed(1)} minutes, please configure an NTP server via DHCP. Service time: ${service}`,
    );
  }
  if (serviceAheadMs < -ctx.config.maxHostAheadOfServiceMs) {
    return failure(
      `Host clock is not synchronized, host time is ahead of service at least for ${(ctx.config.maxHostAheadOfServiceMs / MINUTE_MS).toFixed(1)} minutes, please configure an NTP server via DHCP. Service time: ${service}`,
    );
  }
  return success('Host clock is synchronized with service');
};

// ---------------------------------------------------------------- images, routes, platform, subnets

const containerImages: Check = (ctx) => {
  const statuses = readStoredJson<Record<string, { name?: string; result?: string; size_bytes?: number; download_rate?: number }>>(
    ctx.attributes,
    'images_status',
  );
  if (statuses === null) return error('Validation error: the stored image availability results are unreadable');
  const failed = Object.values(statuses ?? {}).filter(
    (image) => image.result === 'failure' || ((image.size_bytes ?? 0) > 0 && (image.download_rate ?? 0) < ctx.config.imageDownloadRateThreshold),
  );
  if (failed.length === 0) return success('All required container images were either pulled successfully or no attempt was made to pull them');
  return failure(
    `Failed to fetch container images needed for installation from ${failed.map((image) => image.name ?? '').join(',')}. This may be due to a network hiccup. Retry to install again. If this problem persists, check your network settings to make sure you’re not blocked.`,
  );
};

const hasDefaultRoute: Check = ({ inventory }) => {
  if (!inventory) return pending('Missing default routing information.');
  const ok = !!defaultRoute(inventory, 4) || !!defaultRoute(inventory, 6);
  return outcomeOf(ok, 'Host has been configured with at least one default route.', 'Host has not yet been configured with a default route.');
};

/** OpenStack VMs cannot carry the VIPs of cluster-managed networking. */
const validPlatformNetworkSettings: Check = (ctx) => {
  if (!ctx.inventory) return pending('Missing inventory');
  const product = ctx.inventory.system_vendor?.product_name;
  if (!ctx.inventory.system_vendor) return error('Validation error: the inventory does not name the system vendor');
  if (product !== 'OpenStack Compute') return success(`Platform ${product ?? ''} is allowed`);
  if (!ctx.cluster) return notApplicable();
  if (ctx.cluster.userManagedNetworking) return success(`Platform ${product} is allowed`);
  return failure(`Platform ${product} is allowed only for Single Node OpenShift or user-managed networking`);
};

/** Two interfaces in overlapping subnets make routing to the cluster ambiguous. */
const nonOverlappingSubnets: Check = (ctx) => {
  if (!ctx.inventory) return pending('Missing inventory');
  if (!ctx.cluster) return notApplicable();
  const families = new Set(parsedNetworks([...ctx.cluster.serviceNetworks, ...ctx.cluster.clusterNetworks]).map((network) => network.family));
  for (const family of [4, 6] as const) {
    if (!families.has(family)) continue;
    const networks = (ctx.inventory.interfaces ?? []).flatMap((nic) => {
      const cidrs = ((family === 4 ? nic.ipv4_addresses : nic.ipv6_addresses) ?? []).map(parseCidr).filter((c): c is ParsedCidr => !!c);
      return [...new Map(cidrs.map((c) => [c.text, c])).values()].sort((a, b) => (a.text < b.text ? -1 : 1)).map((cidr) => ({ cidr, nic: nic.name }));
    });
    for (let i = 0; i < networks.length; i++) {
      for (let j = i + 1; j < networks.length; j++) {
        const [a, b] = [networks[i]!, networks[j]!];
        if (a.cidr.text === b.cidr.text)
          return failure(`Address networks are overlapping: Address network ${a.cidr.text} appears on multiple interfaces [${a.nic}, ${b.nic}]`);
        if (cidrsOverlap(a.cidr, b.cidr)) {
          return failure(
            `Address networks are overlapping: Address networks ${a.cidr.text} in interface ${a.nic} and ${b.cidr.text} in interface ${b.nic} overlap`,
          );
        }
      }
    }
  }
  return success('Host subnets are not overlapping');
};

/** iSCSI traffic must not share the machine network: it would compete with cluster traffic. */
const noIscsiNicInMachineCidr: Check = (ctx) => {
  const cluster = ctx.cluster;
  if (!cluster || (cluster.userManagedNetworking && !cluster.singleNode) || cluster.imported || cluster.day2) return notApplicable();
  const disks = ctx.inventory?.disks ?? [];
  const installDisk = findDisk(disks, ctx.attributes.installation_disk_id || ctx.attributes.installation_disk_path);
  if (!installDisk) return notApplicable();
  const networks = machineNetworks(ctx);
  if (!ctx.inventory || networks.length === 0) return pending('Missing inventory or machine network CIDR');
  const inventory = ctx.inventory;
  const nicInMachineNetwork = (hostIp: string | undefined): boolean | 'unknown' => {
    const ip = parseIp(hostIp);
    const nic = ip && (inventory.interfaces ?? []).find((candidate) => interfaceIps(candidate, ip.family).some((a) => a.value === ip.value));
    if (!nic) return 'unknown';
    return networks.some((network) => interfaceInNetwork(nic, network));
  };
  if (installDisk.drive_type === 'iSCSI') {
    const inNetwork = nicInMachineNetwork(installDisk.iscsi?.host_ip_address);
    if (inNetwork === 'unknown') return error('Cannot find network interface associated to iSCSI host IP address');
    return outcomeOf(
      !inNetwork,
      'Network interface connected to iSCSI disk does not belong to machine network CIDRs',
      'Network interface connected to iSCSI disk cannot belong to machine network CIDRs',
    );
  }
  if (installDisk.drive_type === 'Multipath') {
    const paths = disks.filter((disk) => disk.drive_type === 'iSCSI' && installDisk.name && (disk.holders ?? '').includes(installDisk.name));
    const results = paths.map((disk) => ({ disk, inNetwork: nicInMachineNetwork(disk.iscsi?.host_ip_address) }));
    if (results.some((r) => r.inNetwork === 'unknown')) return error('Cannot find network interface associated to iSCSI host IP address');
    const bad = results.filter((r) => r.inNetwork === true).map((r) => r.disk.name ?? '');
    if (bad.length > 0) {
      return failure(
        `Installation on multipath device is not possible due to errors on at least one iSCSI disk: Network interface connected to iSCSI disk (${bad.join(', ')}) cannot belong to machine network CIDRs`,
      );
    }
    return success('Network interfaces connected to the iSCSI disks do not belong to machine network CIDRs');
  }
  return notApplicable();
};

export const NETWORK_CHECKS: Readonly<Partial<Record<HostValidationId, Check>>> = {
  connected,
  'media-connected': mediaConnected,
  'machine-cidr-defined': machineCidrDefined,
  'belongs-to-machine-cidr': belongsToMachineCidr,
  'ignition-downloadable': ignitionDownloadable,
  'belongs-to-majority-group': belongsToMajorityGroup,
  'mtu-valid': mtuValid,
  'valid-platform-network-settings': validPlatformNetworkSettings,
  'ntp-synced': ntpSynced,
  'time-synced-between-host-and-service': timeSynced,
  'container-images-available': containerImages,
  'sufficient-network-latency-requirement-for-role': thresholdCheck('latency'),
  'sufficient-packet-loss-requirement-for-role': thresholdCheck('packet-loss'),
  'has-default-route': hasDefaultRoute,
  'non-overlapping-subnets': nonOverlappingSubnets,
  'no-ip-collisions-in-network': noIpCollisions,
  'no-iscsi-nic-belongs-to-machine-cidr': noIscsiNicInMachineCidr,
};
