/**
 * Simulated hosts: identities are distinct and stable, the profiles pass the service's hardware
 * minimums (or, for `undersized`, do not), and the fleet's checks agree with one another because
 * they read one shared network.
 */
import { describe, expect, it } from 'vitest';
import type { ApiTransport, StepContext, StepRunner } from '../../../agent/src/contracts.js';
import { createLog } from '../../../agent/src/log.js';
import { ClusterView } from '../../../agent/src/simulate/cluster-view.js';
import { refuseCommands } from '../../../agent/src/simulate/fleet.js';
import { simulatedIdentity, simulatedInventory, type SimulatedIdentity } from '../../../agent/src/simulate/host.js';
import { FleetNetwork } from '../../../agent/src/simulate/network.js';
import { BUILT_IN_PROFILES, loadProfile } from '../../../agent/src/simulate/profile.js';
import { simulatedSteps } from '../../../agent/src/simulate/steps.js';
import requirements from '../../../lambdas/domain/catalogues/hardware-requirements.json' with { type: 'json' };
import type { StepType } from '../../../contracts/step-replies.js';

type Json = Record<string, any>;
const log = createLog({ level: 'error', sink: () => undefined });

/** A transport answering the two reads the cluster view makes. */
function clusterApi(cluster: Json | undefined): ApiTransport {
  const respond = (status: number, body: unknown) => ({
    status,
    headers: new Headers(),
    text: async () => JSON.stringify(body),
    json: async <T>() => body as T,
    bytes: async () => new Uint8Array(),
  });
  return {
    call: async (_method, path) => {
      if (path.startsWith('/v2/infra-envs/')) return respond(200, cluster ? { cluster_id: 'c1' } : {});
      return respond(200, cluster);
    },
  };
}

function fleetOf(profiles: string[], cluster?: Json) {
  const network = new FleetNetwork('192.168.111.0/24');
  const view = new ClusterView(clusterApi(cluster), 'ie', log);
  const identities = profiles.map((name, index) =>
    simulatedIdentity({ seed: 'seed', index, hostname: `${name}-${index}`, profile: loadProfile(name), network }),
  );
  for (const identity of identities)
    network.add({ hostId: identity.hostId, hostname: identity.hostname, mac: identity.macs[0]!, macs: identity.macs, address: identity.address });
  const steps = identities.map((identity) => simulatedSteps({ identity, network, cluster: view, firstHostAddress: identities[0]!.address }));
  return { network, identities, steps };
}

const context = (): StepContext => ({
  hostId: 'h',
  infraEnvId: 'ie',
  api: clusterApi(undefined),
  exec: refuseCommands,
  log,
  signal: new AbortController().signal,
});
async function run(runners: Record<string, StepRunner>, stepType: StepType, args: unknown[]): Promise<Json> {
  const result = await runners[stepType]!(
    { step_type: stepType, step_id: `${stepType}-1`, args: args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))) },
    context(),
  );
  expect(result.exit_code, result.error).toBe(0);
  return JSON.parse(result.output!) as Json;
}
const peerList = (identities: SimulatedIdentity[], except: number) =>
  identities
    .filter((_, i) => i !== except)
    .map((id) => ({ host_id: id.hostId, nics: [{ name: 'eno1', mac: id.macs[0], ip_addresses: [`${id.address}/24`] }] }));

describe('simulated hosts', () => {
  it('gives every host of a fleet its own id, MAC, address and hostname, the same on every start', () => {
    const first = fleetOf(['master', 'master', 'worker']).identities;
    const again = fleetOf(['master', 'master', 'worker']).identities;
    expect(again).toEqual(first);
    expect(new Set(first.map((i) => i.hostId)).size).toBe(3);
    expect(new Set(first.map((i) => i.macs[0])).size).toBe(3);
    expect(first.map((i) => i.address)).toEqual(['192.168.111.10', '192.168.111.11', '192.168.111.12']);
    for (const id of first) expect(id.macs[0]).toMatch(/^02(:[0-9a-f]{2}){5}$/);
  });

  it('says in its inventory that it is simulated', () => {
    const { identities, network } = fleetOf(['sno']);
    const inventory = simulatedInventory(identities[0]!, network) as Json;
    expect(inventory.system_vendor).toMatchObject({ manufacturer: 'Simulated', product_name: 'Simulated host (profile sno)', virtual: true });
    expect(inventory.interfaces[0]).toMatchObject({ mac_address: identities[0]!.macs[0], ipv4_addresses: ['192.168.111.10/24'] });
    expect(inventory.routes[0]).toMatchObject({ destination: '0.0.0.0', gateway: '192.168.111.1' });
  });

  it.each([
    ['master', 'master', true],
    ['worker', 'worker', true],
    ['sno', 'sno', true],
    ['undersized', 'worker', false],
  ])('profile %s meets the %s minimums: %s', (name, role, fits) => {
    const need = (requirements.versions[0] as Json)[role] as Json;
    const inventory = BUILT_IN_PROFILES[name]!.inventory as Json;
    const eligible = (inventory.disks as Json[]).filter((d) => ['HDD', 'SSD'].includes(d.drive_type) && d.size_bytes >= need.disk_size_gb * 1e9);
    const meets = inventory.cpu.count >= need.cpu_cores && inventory.memory.physical_bytes >= need.ram_mib * 2 ** 20 && eligible.length > 0;
    expect(meets).toBe(fits);
  });

  it('answers connectivity from the shared table: fleet peers reachable at L2 and L3, strangers not', async () => {
    const { identities, steps } = fleetOf(['master', 'master', 'worker']);
    const stranger = {
      host_id: 'ffffffff-ffff-4fff-8fff-ffffffffffff',
      nics: [{ name: 'eth0', mac: '52:54:00:99:99:99', ip_addresses: ['192.168.111.200/24', '10.0.0.5/24'] }],
    };
    const report = await run(steps[0]!, 'connectivity-check', [[...peerList(identities, 0), stranger]]);
    const byHost = Object.fromEntries((report.remote_hosts as Json[]).map((r) => [r.host_id, r]));
    for (const peer of identities.slice(1)) {
      expect(byHost[peer.hostId].l3_connectivity).toEqual([
        { remote_ip_address: peer.address, successful: true, packet_loss_percentage: 0, average_rtt_ms: 0.25 },
      ]);
      expect(byHost[peer.hostId].l2_connectivity).toEqual([
        { outgoing_nic: 'eno1', outgoing_ip_address: identities[0]!.address, remote_ip_address: peer.address, remote_mac: peer.macs[0], successful: true },
      ]);
    }
    expect(byHost[stranger.host_id].l3_connectivity.map((c: Json) => c.successful)).toEqual([false, false]);
    expect(byHost[stranger.host_id].l2_connectivity).toEqual([
      { outgoing_nic: 'eno1', outgoing_ip_address: identities[0]!.address, remote_ip_address: '192.168.111.200', successful: false },
    ]);
    expect((report.remote_hosts as Json[]).map((r) => r.host_id)).toEqual([...(report.remote_hosts as Json[]).map((r) => r.host_id)].sort());

    // Symmetric: the peer sees host 0 the same way.
    const back = await run(steps[1]!, 'connectivity-check', [peerList(identities, 1)]);
    expect((back.remote_hosts as Json[]).find((r) => r.host_id === identities[0]!.hostId)!.l3_connectivity[0].successful).toBe(true);
  });

  it('lists as free exactly the addresses neither the fleet nor the gateway holds, and VIPs among them verify', async () => {
    const { steps } = fleetOf(['master', 'worker']);
    const [free] = (await run(steps[0]!, 'free-network-addresses', [['192.168.111.0/24']])) as unknown as Json[];
    expect(free!.network).toBe('192.168.111.0/24');
    expect(free!.free_addresses).toHaveLength(254 - 3);
    expect(free!.free_addresses).not.toContain('192.168.111.1');
    expect(free!.free_addresses).not.toContain('192.168.111.10');
    expect(free!.free_addresses).toContain('192.168.111.5');
    const vips = (await run(steps[1]!, 'verify-vips', [
      [
        { vip: '192.168.111.5', vip_type: 'api' },
        { vip: '192.168.111.10', vip_type: 'ingress' },
      ],
    ])) as unknown as Json[];
    expect(vips.map((v) => v.verification)).toEqual(['succeeded', 'failed']);
  });

  it('resolves the cluster names to its VIPs, other names to TEST-NET, and the wildcard probe to nothing', async () => {
    const { steps } = fleetOf(['master'], {
      name: 'ocp',
      base_dns_domain: 'example.com',
      api_vips: [{ ip: '192.168.111.5' }],
      ingress_vips: [{ ip: '192.168.111.4' }],
    });
    const names = [
      'quay.io',
      'api.ocp.example.com',
      'api-int.ocp.example.com',
      'console-openshift-console.apps.ocp.example.com',
      'validateNoWildcardDNS.ocp.example.com',
      'validateNoWildcardDNS.ocp.example.com.',
    ];
    const answer = await run(steps[0]!, 'domain-resolution', [{ domains: names.map((domain_name) => ({ domain_name })) }]);
    const ips = (answer.resolutions as Json[]).map((r) => [r.domain_name, r.ipv4_addresses]);
    expect(ips[0]![1][0]).toMatch(/^203\.0\.113\.\d+$/);
    expect(ips.slice(1)).toEqual([
      ['api.ocp.example.com', ['192.168.111.5']],
      ['api-int.ocp.example.com', ['192.168.111.5']],
      ['console-openshift-console.apps.ocp.example.com', ['192.168.111.4']],
      ['validateNoWildcardDNS.ocp.example.com', []],
      ['validateNoWildcardDNS.ocp.example.com.', []],
    ]);
  });

  it('reports synced NTP, a fast disk and available images; refuses malformed requests', async () => {
    const { steps } = fleetOf(['worker']);
    expect(await run(steps[0]!, 'ntp-synchronizer', [{ ntp_source: 'a.example.com,b.example.com' }])).toEqual({
      ntp_sources: [
        { source_name: 'a.example.com', source_state: 'synced' },
        { source_name: 'b.example.com', source_state: 'combined' },
      ],
    });
    expect(await run(steps[0]!, 'installation-disk-speed-check', [{ path: '/dev/sda' }, '480'])).toEqual({ path: '/dev/sda', io_sync_duration: 1 });
    expect(
      (await run(steps[0]!, 'container-image-availability', [{ images: ['quay.io/openshift-release-dev/ocp-release:4.18.0-x86_64'], timeout: 960 }])).images[0],
    ).toMatchObject({ result: 'success' });
    const bad = await steps[0]!['connectivity-check']!({ step_type: 'connectivity-check', step_id: 'c', args: ['not json'] }, context());
    expect(bad).toEqual({ exit_code: -1, error: 'connectivity-check args[0] is not a JSON document' });
    // The disk speed check without its timeout argument is refused, as upstream's agent refuses it.
    const oneArg = await steps[0]!['installation-disk-speed-check']!(
      { step_type: 'installation-disk-speed-check', step_id: 'd', args: ['{"path":"/dev/sda"}'] },
      context(),
    );
    expect(oneArg).toEqual({ exit_code: -1, error: 'installation-disk-speed-check takes 2 arguments in args, got 1' });
  });

  it('never runs a command on this machine', async () => {
    expect(await refuseCommands('podman', ['pull', 'x'])).toMatchObject({ missing: true, exitCode: 127 });
  });

  it('refuses a fleet that does not fit its network', () => {
    const network = new FleetNetwork('192.168.111.0/28');
    expect(network.capacity).toBe(5);
    expect(() => network.addressOf(5)).toThrow(/holds 5 hosts/);
  });
});
