import { describe, expect, it } from 'vitest';
import { derivedMachineNetworks } from '../../lambdas/domain/cluster/cluster-machine-network.js';
import type { ClusterAttributes } from '../../lambdas/domain/core/entities.js';

const V4 = [{ cidr: '192.168.111.0/24' }];
const host = (ip: string) => ({ inventory: JSON.stringify({ interfaces: [{ name: 'eth0', ipv4_addresses: [`${ip}/24`], ipv6_addresses: [] }] }) });
const cluster = (attributes: ClusterAttributes): ClusterAttributes => ({
  control_plane_count: 3,
  cluster_networks: [{ cidr: '10.128.0.0/14' }],
  service_networks: [{ cidr: '172.30.0.0/16' }],
  ...attributes,
});

describe("the machine networks upstream's monitor derives for a multi-node cluster", () => {
  it('drops a single-stack network given at creation while no host is on it (upstream then judges the cluster pending-for-input)', () => {
    expect(derivedMachineNetworks('insufficient', cluster({ machine_networks: V4 }), [])).toEqual([]);
    expect(derivedMachineNetworks('pending-for-input', cluster({ machine_networks: V4, api_vips: [{ ip: '192.168.111.5' }] as never }), [])).toEqual([]);
  });

  it('keeps it when the hosts and VIPs give the same, and derives it from them when absent', () => {
    const vips = { api_vips: [{ ip: '192.168.111.5' }], ingress_vips: [{ ip: '192.168.111.6' }] } as ClusterAttributes;
    expect(derivedMachineNetworks('insufficient', cluster({ machine_networks: V4, ...vips }), [host('192.168.111.20')])).toBeUndefined();
    expect(derivedMachineNetworks('insufficient', cluster({ ...vips }), [host('192.168.111.20')])).toEqual(['192.168.111.0/24']);
  });

  it('leaves dual-stack, user-managed, single-node and DHCP clusters, and other states, as they are', () => {
    const dual = cluster({
      machine_networks: [...V4, { cidr: 'fd2e:6f44:5dd8:c956::/120' }],
      service_networks: [{ cidr: '172.30.0.0/16' }, { cidr: 'fd02::/112' }],
    });
    expect(derivedMachineNetworks('insufficient', dual, [])).toBeUndefined();
    for (const attributes of [
      { user_managed_networking: true },
      { control_plane_count: 1 },
      { vip_dhcp_allocation: true },
      { load_balancer: { type: 'user-managed' } },
    ] as ClusterAttributes[]) {
      expect(derivedMachineNetworks('insufficient', cluster({ machine_networks: V4, ...attributes }), [])).toBeUndefined();
    }
    expect(derivedMachineNetworks('ready', cluster({ machine_networks: V4 }), [])).toBeUndefined();
  });
});

describe("the machine networks upstream's monitor derives for a single-node cluster", () => {
  const sno = (attributes: ClusterAttributes = {}) => cluster({ control_plane_count: 1, ...attributes });
  const inventoryHost = (inventory: object) => ({ inventory: JSON.stringify(inventory) });
  const nic = (name: string, ipv4: string[], ipv6: string[] = []) => ({ name, ipv4_addresses: ipv4, ipv6_addresses: ipv6 });

  it('takes the only network its host is on while it has none', () => {
    expect(derivedMachineNetworks('pending-for-input', sno(), [host('192.168.111.20')])).toEqual(['192.168.111.0/24']);
    expect(derivedMachineNetworks('insufficient', sno(), [host('192.168.111.20')])).toEqual(['192.168.111.0/24']);
  });

  it('keeps a machine network already set, and derives nothing without hosts or outside the deriving states', () => {
    expect(derivedMachineNetworks('insufficient', sno({ machine_networks: [{ cidr: '10.0.0.0/24' }] }), [host('192.168.111.20')])).toBeUndefined();
    expect(derivedMachineNetworks('insufficient', sno(), [])).toBeUndefined();
    expect(derivedMachineNetworks('ready', sno(), [host('192.168.111.20')])).toBeUndefined();
  });

  it('among several networks of a family, takes the one holding the default route gateway, and nothing without one', () => {
    const inventory = { interfaces: [nic('eth0', ['10.1.0.5/24']), nic('eth1', ['192.168.111.20/24'])] };
    const routes = [
      { family: 2, destination: '0.0.0.0', gateway: '10.1.0.1', metric: 200 },
      { family: 2, destination: '0.0.0.0', gateway: '192.168.111.1', metric: 100 },
    ];
    expect(derivedMachineNetworks('insufficient', sno(), [inventoryHost({ ...inventory, routes })])).toEqual(['192.168.111.0/24']);
    expect(derivedMachineNetworks('insufficient', sno(), [inventoryHost(inventory)])).toBeUndefined();
  });

  it('derives one network per family of a dual-stack cluster, and nothing when the cluster and service families differ', () => {
    const dualHost = inventoryHost({ interfaces: [nic('eth0', ['192.168.111.20/24'], ['fd2e:6f44:5dd8:c956::14/120'])] });
    const dual = sno({
      cluster_networks: [{ cidr: '10.128.0.0/14' }, { cidr: 'fd01::/48' }],
      service_networks: [{ cidr: '172.30.0.0/16' }, { cidr: 'fd02::/112' }],
    });
    expect(derivedMachineNetworks('insufficient', dual, [dualHost])).toEqual(['192.168.111.0/24', 'fd2e:6f44:5dd8:c956::/120']);
    expect(derivedMachineNetworks('insufficient', sno({ service_networks: [{ cidr: 'fd02::/112' }] }), [dualHost])).toBeUndefined();
    // A family with no network on the host leaves the cluster as it is.
    expect(derivedMachineNetworks('insufficient', dual, [host('192.168.111.20')])).toBeUndefined();
  });
});
