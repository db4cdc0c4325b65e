import { describe, expect, it } from 'vitest';
import { clusterSupportedPlatforms } from '../../lambdas/domain/cluster/cluster-platform.js';
import type { Inventory } from '../../lambdas/domain/host/inventory.js';

const made = (manufacturer: string) => ({ system_vendor: { manufacturer } }) as Inventory;

describe("the platforms a cluster supports (upstream's GetClusterSupportedPlatforms)", () => {
  it('is none alone without hosts or for a single node, as upstream answers', () => {
    expect(clusterSupportedPlatforms(3, [])).toEqual(['none']);
    expect(clusterSupportedPlatforms(1, [made('VMware, Inc.'), made('VMware, Inc.')])).toEqual(['none']);
  });

  it("lists each provider that runs every host, in upstream's registry order", () => {
    expect(clusterSupportedPlatforms(3, [made('Red Hat'), made('Red Hat')])).toEqual(['baremetal', 'none', 'external']);
    expect(clusterSupportedPlatforms(3, [made('VMware, Inc.'), made('VMware, Inc.')])).toEqual(['vsphere', 'baremetal', 'none', 'external']);
    expect(clusterSupportedPlatforms(3, [made('VMware, Inc.'), made('Red Hat')])).toEqual(['baremetal', 'none', 'external']);
    expect(clusterSupportedPlatforms(3, [made('Nutanix')])).toEqual(['baremetal', 'none', 'nutanix', 'external']);
    // OCI's external integration and the generic external provider are both named external.
    expect(clusterSupportedPlatforms(3, [made('OracleCloud.com')])).toEqual(['baremetal', 'none', 'external', 'external']);
  });

  it('counts a host without an inventory as one only vendor-blind platforms run', () => {
    expect(clusterSupportedPlatforms(3, [undefined, made('VMware, Inc.')])).toEqual(['baremetal', 'none', 'external']);
  });
});
