/**
 * The service's catalogues: OpenShift releases (releases.ts), OLM operators and their bundles
 * (operators.ts), feature support (feature-support.ts), and here component versions and cluster
 * defaults. The data lives in catalogues/*.json; these functions shape it into upstream's API
 * models. Every reader imports this module, which re-exports the others. Pure: no I/O, no clock.
 */
import componentVersionsData from './component-versions.json' with { type: 'json' };

export * from './feature-support.js';
export * from './releases.js';
export * from './operators.js';

// ---------------------------------------------------------------- component versions

/** GET /v2/component-versions: the `list-versions` model. */
export function componentVersions(): { versions: Record<string, string>; release_tag: string } {
  return { versions: { ...componentVersionsData.versions }, release_tag: componentVersionsData.release_tag };
}

// ---------------------------------------------------------------- cluster defaults and domains

/**
 * GET /v2/clusters/default-config, with upstream's shipped defaults (CLUSTER_NETWORK_CIDR,
 * CLUSTER_NETWORK_HOST_PREFIX, SERVICE_NETWORK_CIDR and their IPv6 twins, DELETED_INACTIVE_AFTER
 * 480h, NTP_DEFAULT_SERVER unset) and the host names no host may take.
 */
export const CLUSTER_DEFAULTS = Object.freeze({
  clusterNetworkCidr: '10.128.0.0/14',
  clusterNetworkHostPrefix: 23,
  clusterNetworkCidrIpv6: 'fd01::/48',
  clusterNetworkHostPrefixIpv6: 64,
  serviceNetworkCidr: '172.30.0.0/16',
  serviceNetworkCidrIpv6: 'fd02::/112',
  inactiveDeletionHours: 480,
  ntpSource: '',
  forbiddenHostnames: ['localhost', 'localhost.localdomain', 'localhost4', 'localhost4.localdomain4', 'localhost6', 'localhost6.localdomain6'],
});

export function clusterDefaultConfig() {
  const d = CLUSTER_DEFAULTS;
  const ipv4Cluster = { cidr: d.clusterNetworkCidr, host_prefix: d.clusterNetworkHostPrefix };
  const ipv6Cluster = { cidr: d.clusterNetworkCidrIpv6, host_prefix: d.clusterNetworkHostPrefixIpv6 };
  return {
    cluster_network_cidr: d.clusterNetworkCidr,
    cluster_network_host_prefix: d.clusterNetworkHostPrefix,
    service_network_cidr: d.serviceNetworkCidr,
    inactive_deletion_hours: d.inactiveDeletionHours,
    ntp_source: d.ntpSource,
    cluster_networks_ipv4: [ipv4Cluster],
    cluster_networks_dualstack: [ipv4Cluster, ipv6Cluster],
    service_networks_ipv4: [{ cidr: d.serviceNetworkCidr }],
    service_networks_dualstack: [{ cidr: d.serviceNetworkCidr }, { cidr: d.serviceNetworkCidrIpv6 }],
    forbidden_hostnames: [...d.forbiddenHostnames],
  };
}

/** GET /v2/domains: the managed base domains (keys of the configured hosted-zone map), all Route53. */
export function listManagedDomains(hostedZones: Record<string, string>): { domain: string; provider: 'route53' }[] {
  return Object.keys(hostedZones)
    .sort()
    .map((domain) => ({ domain, provider: 'route53' as const }));
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
  return {
    agent: versions['discovery-agent'] ?? '',
    installer: versions['assisted-installer'] ?? '',
    controller: versions['assisted-installer-controller'] ?? '',
  };
}
