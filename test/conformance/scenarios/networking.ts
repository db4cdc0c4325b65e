/** Networking at creation: single and dual stack (either family first), VIPs, user-managed networking and load balancers, every CNI, proxies, NTP. */
import type { Scenario } from '../scenario.js';
import {
  API_VIP,
  API_VIP_V6,
  clusterBody,
  clusterLifecycle,
  INGRESS_VIP,
  INGRESS_VIP_V6,
  MACHINE_NETWORK,
  MACHINE_NETWORK_V6,
  NETWORK_TYPES,
  type Json,
} from './common.js';

const V4 = { cluster: { cidr: '10.128.0.0/14', host_prefix: 23 }, service: { cidr: '172.30.0.0/16' }, machine: { cidr: MACHINE_NETWORK } };
const V6 = { cluster: { cidr: 'fd01::/48', host_prefix: 64 }, service: { cidr: 'fd02::/112' }, machine: { cidr: MACHINE_NETWORK_V6 } };

export function networkingScenarios(): Scenario[] {
  const scenarios: Scenario[] = [];
  const add = (id: string, fields: Json, area = 'networking') => scenarios.push({ id: `networking/${id}`, area, steps: clusterLifecycle(clusterBody(fields)) });

  // Stacks × VIPs × release.
  const stacks: Record<string, Json> = {
    ipv4: { cluster_networks: [V4.cluster], service_networks: [V4.service], machine_networks: [V4.machine] },
    'dual-v4-primary': { cluster_networks: [V4.cluster, V6.cluster], service_networks: [V4.service, V6.service], machine_networks: [V4.machine, V6.machine] },
    'dual-v6-primary': { cluster_networks: [V6.cluster, V4.cluster], service_networks: [V6.service, V4.service], machine_networks: [V6.machine, V4.machine] },
    'dual-mixed-order': { cluster_networks: [V4.cluster, V6.cluster], service_networks: [V6.service, V4.service], machine_networks: [V4.machine, V6.machine] },
    'ipv6-only': { cluster_networks: [V6.cluster], service_networks: [V6.service], machine_networks: [V6.machine] },
  };
  const vips: Record<string, (stack: string) => Json> = {
    'no-vips': () => ({}),
    vips: (stack) =>
      stack === 'ipv6-only'
        ? { api_vips: [{ ip: API_VIP_V6 }], ingress_vips: [{ ip: INGRESS_VIP_V6 }] }
        : stack === 'dual-v6-primary'
          ? { api_vips: [{ ip: API_VIP_V6 }, { ip: API_VIP }], ingress_vips: [{ ip: INGRESS_VIP_V6 }, { ip: INGRESS_VIP }] }
          : stack.startsWith('dual')
            ? { api_vips: [{ ip: API_VIP }, { ip: API_VIP_V6 }], ingress_vips: [{ ip: INGRESS_VIP }, { ip: INGRESS_VIP_V6 }] }
            : { api_vips: [{ ip: API_VIP }], ingress_vips: [{ ip: INGRESS_VIP }] },
    'v4-vips-only': () => ({ api_vips: [{ ip: API_VIP }], ingress_vips: [{ ip: INGRESS_VIP }] }),
  };
  for (const [stack, networks] of Object.entries(stacks)) {
    for (const [vipName, vipFields] of Object.entries(vips)) {
      for (const version of ['4.14.71', '4.22.9'])
        add(`stack/${stack}/${vipName}/${version}`, { openshift_version: version, ...networks, ...vipFields(stack) });
    }
  }
  // VIP edge cases.
  const vipCases: [string, Json][] = [
    ['api-equals-ingress', { api_vips: [{ ip: API_VIP }], ingress_vips: [{ ip: API_VIP }], machine_networks: [V4.machine] }],
    ['vip-is-network-address', { api_vips: [{ ip: '192.168.111.0' }], ingress_vips: [{ ip: INGRESS_VIP }], machine_networks: [V4.machine] }],
    ['vip-is-broadcast', { api_vips: [{ ip: '192.168.111.255' }], ingress_vips: [{ ip: INGRESS_VIP }], machine_networks: [V4.machine] }],
    ['vip-outside', { api_vips: [{ ip: '10.0.0.5' }], ingress_vips: [{ ip: INGRESS_VIP }], machine_networks: [V4.machine] }],
    ['vip-not-ip', { api_vips: [{ ip: 'not-an-ip' }], ingress_vips: [{ ip: INGRESS_VIP }] }],
    ['vip-empty', { api_vips: [{ ip: '' }], ingress_vips: [{ ip: '' }] }],
    ['only-api-vip', { api_vips: [{ ip: API_VIP }] }],
    ['three-vips', { api_vips: [{ ip: API_VIP }, { ip: '192.168.111.6' }, { ip: API_VIP_V6 }], ingress_vips: [{ ip: INGRESS_VIP }] }],
    ['two-v4-vips', { api_vips: [{ ip: API_VIP }, { ip: '192.168.111.6' }], ingress_vips: [{ ip: INGRESS_VIP }, { ip: '192.168.111.7' }] }],
    ['vip-dhcp-baremetal', { vip_dhcp_allocation: true }],
    ['vip-dhcp-none', { vip_dhcp_allocation: true, platform: { type: 'none' } }],
    ['vip-dhcp-with-vips', { vip_dhcp_allocation: true, api_vips: [{ ip: API_VIP }], ingress_vips: [{ ip: INGRESS_VIP }] }],
    ['vip-dhcp-sno', { vip_dhcp_allocation: true, control_plane_count: 1 }],
    ['vip-dhcp-dual', { vip_dhcp_allocation: true, ...stacks['dual-v4-primary'] }],
    ['vip-dhcp-umn', { vip_dhcp_allocation: true, user_managed_networking: true }],
  ];
  for (const [name, fields] of vipCases) add(`vips/${name}`, fields);

  // User-managed networking × load balancer × platform × release.
  for (const umn of [undefined, true, false]) {
    for (const lb of [undefined, 'cluster-managed', 'user-managed', 'bogus']) {
      for (const platform of ['baremetal', 'none']) {
        for (const version of ['4.16.68', '4.22.9']) {
          const fields: Json = {
            openshift_version: version,
            platform: { type: platform },
            ...(umn === undefined ? {} : { user_managed_networking: umn }),
            ...(lb ? { load_balancer: { type: lb } } : {}),
          };
          if (lb === 'user-managed')
            Object.assign(fields, { api_vips: [{ ip: API_VIP }], ingress_vips: [{ ip: INGRESS_VIP }], machine_networks: [V4.machine] });
          add(`umn-lb/umn-${umn}/lb-${lb}/${platform}/${version}`, fields);
        }
      }
    }
  }
  // Every CNI × release × topology.
  for (const networkType of NETWORK_TYPES) {
    for (const version of ['4.14.71', '4.16.68', '4.18.52', '4.20.33', '4.22.9']) {
      for (const cpc of [1, 3])
        add(`cni/${networkType}/${version}/cpc-${cpc}`, { openshift_version: version, network_type: networkType, control_plane_count: cpc });
    }
    add(`cni/${networkType}/dual`, { network_type: networkType, ...stacks['dual-v4-primary'] });
  }
  add('cni/bogus', { network_type: 'Flannel' });
  add('cni/null', { network_type: null });

  // CIDRs: overlapping, oversized, host prefixes.
  const cidrCases: [string, Json][] = [
    ['cluster-overlaps-service', { cluster_network_cidr: '172.30.0.0/16', service_network_cidr: '172.30.0.0/16' }],
    ['cluster-overlaps-machine', { cluster_networks: [{ cidr: '192.168.0.0/16', host_prefix: 23 }], machine_networks: [V4.machine] }],
    ['cluster-too-small', { cluster_networks: [{ cidr: '10.128.0.0/24', host_prefix: 23 }] }],
    ['cluster-oversized', { cluster_networks: [{ cidr: '10.0.0.0/4', host_prefix: 23 }] }],
    ['host-prefix-too-small', { cluster_networks: [{ cidr: '10.128.0.0/14', host_prefix: 10 }] }],
    ['host-prefix-too-large', { cluster_networks: [{ cidr: '10.128.0.0/14', host_prefix: 30 }] }],
    ['host-prefix-v6-64', { cluster_networks: [{ cidr: 'fd01::/48', host_prefix: 64 }], service_networks: [V6.service], machine_networks: [V6.machine] }],
    ['host-prefix-v6-bad', { cluster_networks: [{ cidr: 'fd01::/48', host_prefix: 120 }], service_networks: [V6.service], machine_networks: [V6.machine] }],
    ['legacy-cidr-fields', { cluster_network_cidr: '10.132.0.0/14', cluster_network_host_prefix: 24, service_network_cidr: '172.31.0.0/16' }],
    ['legacy-and-list', { cluster_network_cidr: '10.132.0.0/14', cluster_networks: [{ cidr: '10.128.0.0/14', host_prefix: 23 }] }],
    ['service-too-small', { service_networks: [{ cidr: '172.30.0.0/28' }] }],
    ['service-v4-mask-33', { service_networks: [{ cidr: '172.30.0.0/33' }] }],
    ['machine-not-network', { machine_networks: [{ cidr: '192.168.111.7/24' }] }],
    ['machine-garbage', { machine_networks: [{ cidr: 'garbage' }] }],
    ['two-v4-cluster-networks', { cluster_networks: [V4.cluster, { cidr: '10.200.0.0/14', host_prefix: 23 }] }],
    ['families-mismatch', { cluster_networks: [V4.cluster], service_networks: [V6.service] }],
    ['empty-lists', { cluster_networks: [], service_networks: [], machine_networks: [] }],
  ];
  for (const [name, fields] of cidrCases) add(`cidrs/${name}`, fields);

  // Proxies.
  const proxyCases: [string, Json][] = [
    ['http', { http_proxy: 'http://proxy.example.com:3128' }],
    ['http-https', { http_proxy: 'http://proxy.example.com:3128', https_proxy: 'http://proxy.example.com:3128' }],
    ['https-scheme', { https_proxy: 'https://proxy.example.com:3129' }],
    ['with-credentials', { http_proxy: 'http://user:pass@proxy.example.com:3128' }],
    ['no-proxy-list', { http_proxy: 'http://proxy.example.com:3128', no_proxy: '.example.com,10.0.0.0/8,192.168.1.1' }],
    ['no-proxy-star', { http_proxy: 'http://proxy.example.com:3128', no_proxy: '*' }],
    ['no-proxy-star-in-list', { http_proxy: 'http://proxy.example.com:3128', no_proxy: '*,example.com' }],
    ['no-proxy-invalid', { http_proxy: 'http://proxy.example.com:3128', no_proxy: 'not valid!' }],
    ['no-proxy-alone', { no_proxy: '.example.com' }],
    ['http-ftp-scheme', { http_proxy: 'ftp://proxy.example.com' }],
    ['http-no-scheme', { http_proxy: 'proxy.example.com:3128' }],
    ['http-garbage', { http_proxy: 'not a url' }],
    ['empty-strings', { http_proxy: '', https_proxy: '', no_proxy: '' }],
    ['nulls', { http_proxy: null, https_proxy: null, no_proxy: null }],
  ];
  for (const [name, fields] of proxyCases) add(`proxy/${name}`, fields, 'proxy and ntp');

  // NTP sources.
  const ntpCases: [string, Json][] = [
    ['name', { additional_ntp_source: 'clock.example.com' }],
    ['ip', { additional_ntp_source: '10.0.0.1' }],
    ['list', { additional_ntp_source: 'clock.example.com,10.0.0.1,time.example.org' }],
    ['ipv6', { additional_ntp_source: 'fd00::1' }],
    ['invalid', { additional_ntp_source: 'bad host!' }],
    ['empty', { additional_ntp_source: '' }],
    ['trailing-comma', { additional_ntp_source: 'clock.example.com,' }],
    ['ntp-sources-only', { ntp_sources: 'clock.example.com' }],
    ['both', { additional_ntp_source: 'a.example.com', ntp_sources: 'b.example.com' }],
    ['null', { additional_ntp_source: null }],
  ];
  for (const [name, fields] of ntpCases) add(`ntp/${name}`, fields, 'proxy and ntp');
  return scenarios;
}
