import { describe, expect, it } from 'vitest';
import { clusterConnectivityDocuments } from '../../lambdas/domain/cluster/cluster-connectivity.js';

describe("the connectivity documents stored on a cluster (upstream's monitor)", () => {
  it("are upstream's empty documents for a cluster without hosts, while it is being configured", () => {
    for (const status of ['pending-for-input', 'insufficient', 'ready']) {
      // Upstream's cluster document after its monitor's first pass over a new cluster.
      expect(clusterConnectivityDocuments({ status, controlPlaneCount: 3 }, [])).toEqual({
        connectivity_majority_groups: '{"majority_groups":{"IPv4":[],"IPv6":[]},"l3_connected_addresses":{}}',
        ip_collisions: '{}',
      });
    }
  });

  it('are not computed again once the installation started', () => {
    for (const status of ['preparing-for-installation', 'installing', 'installed', 'error']) {
      expect(clusterConnectivityDocuments({ status, controlPlaneCount: 3 }, [])).toBeUndefined();
    }
  });

  it('name each host network with its group, in key order', () => {
    const inventory = (ip: string) => ({ interfaces: [{ name: 'eth0', ipv4_addresses: [`${ip}/24`], ipv6_addresses: [] }] });
    const documents = clusterConnectivityDocuments({ status: 'insufficient', controlPlaneCount: 1 }, [
      { id: 'b', inventory: inventory('192.168.111.20') as never, summary: { status: 'known', role: 'master' } as never },
      { id: 'a', inventory: inventory('10.0.0.20') as never, summary: { status: 'known', role: 'master' } as never },
    ]);
    expect(Object.keys(JSON.parse(documents!.connectivity_majority_groups).majority_groups)).toEqual(['10.0.0.0/24', '192.168.111.0/24', 'IPv4', 'IPv6']);
  });
});
