import { catalogueAgentImages } from '../../lambdas/domain/catalogues/catalogues.js';

export { PULL_SECRET, sshPublicKey } from '../../bench/support/fixtures.js';

/**
 * The header an agent sends its version in, naming the service's own agent image: a host that
 * reports no version is judged incompatible and told to upgrade its agent, as upstream's are.
 */
export const AGENT_VERSION_HEADER = { discovery_agent_version: catalogueAgentImages().agent };

/** An inventory as an agent reports it: two disks, one eligible. */
export function inventory(hostname: string): string {
  return JSON.stringify({
    hostname,
    cpu: { count: 8, architecture: 'x86_64' },
    memory: { physical_bytes: 34359738368, usable_bytes: 33285996544 },
    disks: [
      {
        id: '/dev/disk/by-id/wwn-0x5000c500a1b2c3d4',
        path: '/dev/sda',
        name: 'sda',
        size_bytes: 240057409536,
        drive_type: 'SSD',
        installation_eligibility: { eligible: true, not_eligible_reasons: [] },
      },
      {
        id: '/dev/disk/by-id/usb-boot',
        path: '/dev/sdb',
        name: 'sdb',
        size_bytes: 8000000000,
        drive_type: 'HDD',
        installation_eligibility: { eligible: false, not_eligible_reasons: ['Disk is too small (disk only has 8.0 GB, but 100 GB are required)'] },
      },
    ],
    interfaces: [{ name: 'eth0', mac_address: '52:54:00:aa:bb:01', ipv4_addresses: ['192.168.127.10/24'] }],
  });
}

/** A static network (nmstate) for one NIC, eth0 at 192.168.126.10/24: what static_network_config entries carry. */
export const NETWORK_YAML = `interfaces:
  - name: eth0
    type: ethernet
    state: up
    ipv4:
      enabled: true
      dhcp: false
      address:
        - ip: 192.168.126.10
          prefix-length: 24
`;
