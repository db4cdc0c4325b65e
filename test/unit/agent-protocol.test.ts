import { describe, expect, it } from 'vitest';
import {
  checkInWrite,
  claimLongChecks,
  HANDED_ONCE_WINDOW_MS,
  longCheckClaim,
  LONG_CHECK_WINDOW_MS,
  newHost,
  nextStepRunnerCommand,
  nextSteps,
  peerAddressBook,
  reRegister,
  wantsConnectivityCheck,
} from '../../lambdas/domain/agent/agent-protocol.js';
import {
  applyStepReply,
  applyVipVerifications,
  connectivityReplyWrite,
  CONNECTIVITY_FIGURES_REFRESH_MS,
  replyTransition,
  stepReplyEvents,
} from '../../lambdas/domain/agent/step-replies.js';
import { withServiceEligibility } from '../../lambdas/domain/host/installation-disk.js';
import type { Cluster, Host } from '../../lambdas/domain/core/entities.js';
import { catalogueAgentImages } from '../../lambdas/domain/catalogues/catalogues.js';
import type { HostStatus } from '../../lambdas/domain/host/host-states.js';
import type { ClusterStatus } from '../../lambdas/domain/cluster/cluster-facts.js';

const now = new Date('2026-11-22T10:00:00Z');
/** A host whose agent runs the service's own image (so no upgrade step), unless `attributes` say otherwise. */
const host = (status: HostStatus, attributes: Record<string, unknown> = {}, clusterId: string | null = 'c1'): Host => ({
  orgId: 'o',
  infraEnvId: 'i',
  hostId: 'h1',
  status,
  createdAt: '',
  updatedAt: '',
  version: 1,
  ...(clusterId ? { clusterId } : {}),
  attributes: { discovery_agent_version: catalogueAgentImages().agent, ...attributes },
});
const cluster: Cluster = {
  orgId: 'o',
  clusterId: 'c1',
  name: 'demo',
  status: 'insufficient',
  createdAt: '',
  updatedAt: '',
  version: 1,
  attributes: {
    base_dns_domain: 'example.com',
    ocp_release_image: 'quay.io/openshift-release-dev/ocp-release:4.20.1-x86_64',
    additional_ntp_source: 'ntp.example.com',
    api_vips: [{ ip: '192.168.1.5' }],
    ingress_vips: [{ ip: '192.168.1.6' }],
  },
};
const types = (steps: { instructions: { step_type: string }[] }) => steps.instructions.map((s) => s.step_type);
const suffix = () => 'deadbeef';

describe('instructions per host status', () => {
  it('asks a discovering host for its inventory only', () => {
    const steps = nextSteps({ host: host('discovering'), cluster, now, stepIdSuffix: suffix });
    expect(steps).toEqual({
      next_instruction_seconds: 60,
      post_step_action: 'continue',
      instructions: [{ step_type: 'inventory', step_id: 'inventory-deadbeef', args: ['h1'] }],
    });
  });

  it('asks a known host for the checks its validations read, with their arguments', () => {
    const inventory = JSON.stringify({ interfaces: [{ name: 'eth0', mac_address: 'aa', ipv4_addresses: ['192.168.1.10/24'] }] });
    const steps = nextSteps({ host: host('known', { inventory }), cluster, now, stepIdSuffix: suffix, peers: () => [{ host_id: 'h2', nics: [] }] });
    expect(types(steps)).toEqual(['inventory', 'connectivity-check', 'free-network-addresses', 'ntp-synchronizer', 'domain-resolution', 'verify-vips']);
    const args = Object.fromEntries(steps.instructions.filter((s) => s.step_type !== 'inventory').map((s) => [s.step_type, JSON.parse(s.args[0]!)]));
    expect(args['free-network-addresses']).toEqual(['192.168.1.0/24']);
    expect(args['ntp-synchronizer']).toEqual({ ntp_source: 'ntp.example.com' });
    expect(args['connectivity-check']).toEqual([{ host_id: 'h2', nics: [] }]);
    expect(args['domain-resolution'].domains.map((d: { domain_name: string }) => d.domain_name)).toEqual([
      'api.demo.example.com',
      'api-int.demo.example.com',
      'console-openshift-console.apps.demo.example.com',
      'validateNoWildcardDNS.demo.example.com.',
      'validateNoWildcardDNS.demo.example.com',
      'quay.io',
    ]);
    expect(args['verify-vips']).toEqual([
      { vip: '192.168.1.5', vip_type: 'api' },
      { vip: '192.168.1.6', vip_type: 'ingress' },
    ]);
  });

  it('checks connectivity at most every two minutes', () => {
    const recent = host('known', { connectivity_checked_at: new Date(now.getTime() - 60_000).toISOString() });
    const stale = host('known', { connectivity_checked_at: new Date(now.getTime() - 180_000).toISOString() });
    expect(wantsConnectivityCheck(recent, cluster, now)).toBe(false);
    expect(wantsConnectivityCheck(stale, cluster, now)).toBe(true);
    expect(wantsConnectivityCheck(host('discovering'), cluster, now)).toBe(false);
  });

  it('backs off for disconnected hosts, exits the runner when binding, and gives pool hosts inventory and NTP', () => {
    expect(nextSteps({ host: host('disconnected'), cluster, now, stepIdSuffix: suffix }).next_instruction_seconds).toBe(120);
    expect(nextSteps({ host: host('binding'), cluster, now, stepIdSuffix: suffix })).toEqual({
      next_instruction_seconds: 0,
      post_step_action: 'exit',
      instructions: [],
    });
    expect(types(nextSteps({ host: host('known-unbound', {}, null), now, stepIdSuffix: suffix }))).toEqual(['inventory', 'ntp-synchronizer']);
  });
});

describe('liveness', () => {
  it('writes liveness alone when it is getting stale, and the host only when the poll says more', () => {
    const fresh = host('known', { checked_in_at: new Date(now.getTime() - 10_000).toISOString(), discovery_agent_version: 'a:1' });
    expect(checkInWrite(fresh, now, 'a:1')).toBe('none');
    expect(checkInWrite(fresh, now, 'a:2')).toBe('host');
    expect(checkInWrite(host('known', { checked_in_at: new Date(now.getTime() - 31_000).toISOString() }), now, undefined)).toBe('liveness');
    // The host's clock is recorded on the host once it is first known, for the time-sync validation.
    expect(checkInWrite(fresh, now, 'a:1', 1_795_000_000)).toBe('host');
    const clocked = (offsetSeconds: number, ageMs: number) => {
      const checkedIn = now.getTime() - ageMs;
      return host('known', { checked_in_at: new Date(checkedIn).toISOString(), discovery_agent_version: 'a:1', timestamp: checkedIn / 1000 + offsetSeconds });
    };
    // A steady clock: its reading moves with time, its offset from the service's does not.
    expect(checkInWrite(clocked(5, 10_000), now, 'a:1', now.getTime() / 1000 + 5)).toBe('none');
    expect(checkInWrite(clocked(5, 60_000), now, 'a:1', now.getTime() / 1000 + 5)).toBe('liveness');
    // A clock that moved against the service's is news for the cluster's clock check: the host is written.
    expect(checkInWrite(clocked(5, 60_000), now, 'a:1', now.getTime() / 1000 + 5 + 40)).toBe('host');
  });

  it.each([
    ['installing-in-progress', 'error', { progress: { current_stage: 'Writing image to disk' } }, 'c1'],
    ['installing', 'error', {}, 'c1'],
    // Booted the discovery image again after writing the disk: the boot order is wrong.
    ['installing-in-progress', 'installing-pending-user-action', { progress: { current_stage: 'Rebooting' } }, 'c1'],
    ['added-to-existing-cluster', 'installing-pending-user-action', { kind: 'AddToExistingClusterHost', progress: { current_stage: 'Done' } }, 'c1'],
    // Rebooted while preparing: it keeps its inventory and prepares again from known.
    ['preparing-for-installation', 'known', {}, 'c1'],
    ['preparing-successful', 'known', {}, 'c1'],
    ['error', 'error', {}, 'c1'],
    ['resetting', 'resetting', { progress: { current_stage: 'Rebooting' } }, 'c1'],
    ['resetting-pending-user-action', 'discovering', { progress: { current_stage: 'Done' }, step_errors: { install: 'exit code 1' } }, 'c1'],
    ['known', 'discovering', {}, 'c1'],
    ['known-unbound', 'discovering-unbound', {}, null],
    ['unbinding', 'discovering-unbound', {}, null],
  ] as const)('registers a host in %s again as the host table says: %s (%j)', (status, expected, attributes, clusterId) => {
    const { host: next, transition } = reRegister(host(status, { ...attributes }, clusterId), 'a', now.toISOString());
    expect(next.status).toBe(expected);
    expect(transition.status).toBe(expected);
    expect(next.attributes).toMatchObject({ checked_in_at: now.toISOString(), registered_at: now.toISOString(), discovery_agent_version: 'a' });
    if (expected === 'discovering' || expected === 'discovering-unbound') {
      expect(next.attributes.progress).toBeUndefined();
      expect(next.attributes.step_errors).toBeUndefined();
    }
    if (status !== expected) expect(transition.events.map((event) => event.name)).toContain('host_status_updated');
  });

  it.each([
    ['known', 'c1', 'disconnected'],
    ['preparing-successful', 'c1', 'error'],
    ['installing-in-progress', 'c1', 'error'],
    ['known-unbound', null, 'disconnected-unbound'],
  ] as const)('takes a host in %s whose step says its media is gone (exit code 256) where the host table says', (status, clusterId, expected) => {
    const lost = replyTransition(host(status, {}, clusterId), { step_type: 'inventory', step_id: 'x', exit_code: 256 }, now.toISOString())!;
    expect(lost.host.status).toBe(expected);
    expect(lost.host.attributes.media_status).toBe('disconnected');
    expect(lost.transition.events.map((event) => event.name)).toEqual(['host_status_updated', 'host_media_disconnected']);
    // Said once: the same news again changes nothing, and other exit codes are not this.
    expect(replyTransition(lost.host, { step_type: 'inventory', step_id: 'x', exit_code: 256 }, now.toISOString())).toBeUndefined();
    expect(replyTransition(host(status, {}, clusterId), { step_type: 'inventory', step_id: 'x', exit_code: 1 }, now.toISOString())).toBeUndefined();
  });

  it("fails a host whose install step could not start the installer, with the table's words, and nothing else", () => {
    const failed = replyTransition(
      host('installing'),
      { step_type: 'install', step_id: 'install-1', exit_code: 1, error: 'podman: token=abc' },
      now.toISOString(),
    )!;
    expect(failed.host.status).toBe('error');
    expect(failed.host.attributes.status_info).toBe('installation command failed');
    expect(JSON.stringify(failed)).not.toContain('token=abc');
    expect(replyTransition(host('installing'), { step_type: 'install', step_id: 'install-1', exit_code: 0, output: 'ok' }, now.toISOString())).toBeUndefined();
    expect(replyTransition(host('known'), { step_type: 'ntp-synchronizer', step_id: 'n', exit_code: 1 }, now.toISOString())).toBeUndefined();
    // The install step handed twice finds its installer already running: no failure (as upstream).
    expect(
      replyTransition(
        host('installing'),
        { step_type: 'install', step_id: 'install-2', exit_code: 125, error: 'the container name "assisted-installer" is already in use' },
        now.toISOString(),
      ),
    ).toBeUndefined();
  });

  it('refuses a registration the table refuses: an installed host (409), a host already waiting for its boot order to be fixed (403)', () => {
    expect(() => reRegister(host('installed'), 'a', now.toISOString())).toThrow(expect.objectContaining({ kind: 'conflict' }));
    expect(() =>
      reRegister(
        host('installing-pending-user-action', { progress: { current_stage: 'Rebooting' }, installation_disk_path: '/dev/sda' }),
        'a',
        now.toISOString(),
      ),
    ).toThrow(expect.objectContaining({ kind: 'forbidden', message: expect.stringContaining('/dev/sda') }));
  });
});

describe('step replies', () => {
  const context = { now: now.toISOString(), disks: { cluster: { attributes: { openshift_version: '4.18.52' } } } };

  it('decides disk eligibility on the service side', () => {
    const inventory = withServiceEligibility(
      {
        disks: [
          { id: 'a', size_bytes: 120e9, drive_type: 'SSD' },
          { id: 'b', size_bytes: 50e9, drive_type: 'HDD' },
          { id: 'c', size_bytes: 500e9, drive_type: 'ODD' },
          { id: 'd', size_bytes: 500e9, drive_type: 'SSD', is_installation_media: true },
        ],
      },
      { minDiskSizeGb: 100, openshiftVersion: '' },
    );
    expect(inventory.disks!.map((d) => d.installation_eligibility!.eligible)).toEqual([true, false, false, false]);
    expect(inventory.disks![1]!.installation_eligibility!.not_eligible_reasons![0]).toMatch(/too small/);
  });

  it("stores the inventory as upstream re-serializes it: the agent's own reasons, the service's recomputed, Go's empty scalars dropped", () => {
    const agentDisk = {
      id: 'sr0',
      name: 'sr0',
      size_bytes: 1166016512,
      drive_type: 'ODD',
      bootable: false,
      removable: true,
      is_installation_media: true,
      installation_eligibility: {
        eligible: false,
        not_eligible_reasons: [
          'Disk is removable',
          'Disk is too small (disk only has 1.2 GB, but 20 GB are required)',
          'Drive type is ODD, it must be one of HDD, SSD, Multipath, FC.',
          'Disk appears to be an installation media',
        ],
      },
    };
    const inventory = {
      cpu: { architecture: 'x86_64', count: 4 },
      boot: { current_boot_mode: 'uefi', pxe_interface: '' },
      system_vendor: { virtual: false, manufacturer: 'QEMU' },
      interfaces: [{ name: 'enp1s0', biosdevname: '', client_id: '', ipv4_addresses: ['192.168.111.10/24'], ipv6_addresses: [] }],
      disks: [
        agentDisk,
        {
          id: 'sda',
          name: 'sda',
          size_bytes: 128849018880,
          drive_type: 'HDD',
          bootable: false,
          installation_eligibility: { eligible: true, not_eligible_reasons: null },
        },
      ],
    };
    const stored = applyStepReply(host('discovering'), { step_type: 'inventory', output: JSON.stringify(inventory) }, context)!;
    const read = JSON.parse(stored.attributes.inventory as string);
    expect(read.disks[0].installation_eligibility).toEqual({
      not_eligible_reasons: [
        'Disk is removable',
        'Disk appears to be an installation media',
        'Disk is too small (disk only has 1.167 GB, but 100 GB are required)',
        'Drive type is ODD, it must be one of HDD, SSD, Multipath, RAID, iSCSI, FC.',
      ],
    });
    expect(read.disks[1]).toEqual({ id: 'sda', name: 'sda', size_bytes: 128849018880, drive_type: 'HDD', installation_eligibility: { eligible: true } });
    expect(read.boot).toEqual({ current_boot_mode: 'uefi' });
    expect(read.system_vendor).toEqual({ manufacturer: 'QEMU' });
    expect(read.interfaces[0]).toEqual({ name: 'enp1s0', ipv4_addresses: ['192.168.111.10/24'], ipv6_addresses: [] });
  });

  it('changes nothing for a repeated reply or an empty output of a running check', () => {
    const reply = { step_type: 'ntp-synchronizer' as const, output: JSON.stringify({ ntp_sources: [{ source_name: 'a', source_state: 'synced' }] }) };
    const once = applyStepReply(host('known'), reply, context)!;
    expect(JSON.parse(once.attributes.ntp_sources as string)).toEqual([{ source_name: 'a', source_state: 'synced' }]);
    expect(applyStepReply(once, reply, context)).toBeUndefined();
    expect(applyStepReply(once, { step_type: 'container-image-availability', output: '' }, context)).toBeUndefined();
  });

  it('records step failures and media disconnection, and clears them when the step succeeds again', () => {
    const failed = applyStepReply(host('known'), { step_type: 'domain-resolution', exit_code: 1, error: 'no resolver' }, context)!;
    expect(failed.attributes.step_errors).toEqual({ 'domain-resolution': 'no resolver' });
    const ok = applyStepReply(failed, { step_type: 'domain-resolution', output: JSON.stringify({ resolutions: [] }) }, context)!;
    expect(ok.attributes.step_errors).toEqual({});
    expect(applyStepReply(host('known'), { step_type: 'inventory', exit_code: 256 }, context)!.attributes.media_status).toBe('disconnected');
  });

  it("refuses outputs that are not the step's JSON", () => {
    expect(() => applyStepReply(host('known'), { step_type: 'inventory', output: '[1]' }, context)).toThrow(/JSON object/);
    // Fields of another JSON kind than upstream's Go types are refused (400), as Go's decoder does; null reads as absent.
    expect(() => applyStepReply(host('known'), { step_type: 'inventory', output: JSON.stringify({ cpu: 'eight', memory: [] }) }, context)).toThrow(
      expect.objectContaining({ kind: 'bad-request', message: 'json: cannot unmarshal string into Go struct field Inventory.cpu of type models.CPU' }),
    );
    expect(() => applyStepReply(host('known'), { step_type: 'inventory', output: JSON.stringify({ disks: {} }) }, context)).toThrow(
      /unmarshal object into Go struct field Inventory.disks/,
    );
    expect(() => applyStepReply(host('known'), { step_type: 'inventory', output: JSON.stringify({ hostname: 'h', cpu: null }) }, context)).not.toThrow();
    // Connectivity checks are stored as upstream's Go models re-serialize them: a false is_success left out.
    const vip = applyStepReply(
      host('known'),
      { step_type: 'api-vip-connectivity-check', output: JSON.stringify({ is_success: false, download_error: 'connection refused' }) },
      context,
    )!;
    expect(JSON.parse(vip.attributes.api_vip_connectivity as string)).toEqual({ download_error: 'connection refused' });
    const tang = applyStepReply(
      host('known'),
      { step_type: 'tang-connectivity-check', output: JSON.stringify({ is_success: false, tang_server_response: [] }) },
      context,
    )!;
    expect(JSON.parse(tang.attributes.tang_connectivity as string)).toEqual({ tang_server_response: [] });
    // A DHCP lease for a cluster that does not allocate its VIPs by DHCP is refused (upstream: 500).
    expect(() =>
      applyStepReply(host('known'), { step_type: 'dhcp-lease-allocate', output: JSON.stringify({ api_vip_address: '192.168.111.5' }) }, context),
    ).toThrow(/DHCP is not enabled/);
    expect(() => applyStepReply(host('known'), { step_type: 'connectivity-check', output: '{' }, context)).toThrow(/not the JSON/);
  });
});

describe('connectivity replies: what the host item must keep', () => {
  const context = { now: now.toISOString(), disks: { cluster: { attributes: { openshift_version: '4.18.52' } } } };
  const report = (rtt: number, peer: { l3?: boolean; mac?: string; mtu?: boolean } = {}) =>
    JSON.stringify({
      remote_hosts: [
        {
          host_id: 'h2',
          l2_connectivity: [{ outgoing_nic: 'eth0', remote_ip_address: '10.0.0.2', remote_mac: peer.mac ?? 'aa:bb:cc:dd:ee:02', successful: true }],
          l3_connectivity: [
            { outgoing_nic: 'eth0', remote_ip_address: '10.0.0.2', successful: peer.l3 ?? true, average_rtt_ms: rtt, packet_loss_percentage: 0 },
          ],
          mtu_report: [{ outgoing_nic: 'eth0', remote_ip_address: '10.0.0.2', mtu_successful: peer.mtu ?? true }],
        },
      ],
    });
  const minutesAgo = (minutes: number) => new Date(now.getTime() - minutes * 60_000).toISOString();
  const stored = (extra: Record<string, unknown> = {}) =>
    host('known', {
      connectivity: report(0.4),
      connectivity_checked_at: minutesAgo(3),
      connectivity_stored_at: minutesAgo(3),
      validations_info: '{}',
      ...extra,
    });
  const replied = (before: Host, output: string) => applyStepReply(before, { step_type: 'connectivity-check', output }, context)!;

  it('keeps the stored report when only its figures moved and they are recent: the answer alone is recorded', () => {
    const before = stored();
    const after = replied(before, report(1.7));
    // Not a no-op for applyStepReply (the old rule wrote the host for every report)...
    expect(after.attributes).toMatchObject({
      connectivity: report(1.7),
      connectivity_checked_at: now.toISOString(),
      connectivity_stored_at: now.toISOString(),
    });
    // ...but nothing the host item must keep: RTTs, packet loss and MTU figures are judged, not stored, until they age.
    expect(connectivityReplyWrite(before, after, now)).toBe('answered');
    expect(connectivityReplyWrite(before, replied(before, report(0.4, { mtu: false })), now)).toBe('answered');
    // Answered twice: the same.
    expect(connectivityReplyWrite(before, replied(before, report(0.4)), now)).toBe('answered');
  });

  it('writes the host when who answered changed, the figures are old, there was no report, or the reply changed anything else', () => {
    expect(connectivityReplyWrite(stored(), replied(stored(), report(0.4, { l3: false })), now)).toBe('host');
    expect(connectivityReplyWrite(stored(), replied(stored(), report(0.4, { mac: 'aa:bb:cc:dd:ee:99' })), now)).toBe('host');
    const aging = stored({ connectivity_stored_at: minutesAgo(CONNECTIVITY_FIGURES_REFRESH_MS / 60_000) });
    expect(connectivityReplyWrite(aging, replied(aging, report(1.7)), now)).toBe('host');
    const fresh = stored({ connectivity_stored_at: minutesAgo(CONNECTIVITY_FIGURES_REFRESH_MS / 60_000 - 1) });
    expect(connectivityReplyWrite(fresh, replied(fresh, report(1.7)), now)).toBe('answered');
    // Stored before the figures' time was: written once.
    const unstamped = host('known', { connectivity: report(0.4), connectivity_checked_at: minutesAgo(3) });
    expect(connectivityReplyWrite(unstamped, replied(unstamped, report(1.7)), now)).toBe('host');
    const none = host('insufficient', {});
    expect(connectivityReplyWrite(none, replied(none, report(0.4)), now)).toBe('host');
    // The reply cleared the step's error, or the media is back: the host item must say so.
    const failedBefore = stored({ step_errors: { 'connectivity-check': 'exit code 1' } });
    expect(connectivityReplyWrite(failedBefore, replied(failedBefore, report(1.7)), now)).toBe('host');
    const mediaGone = stored({ media_status: 'disconnected' });
    expect(connectivityReplyWrite(mediaGone, replied(mediaGone, report(1.7)), now)).toBe('host');
    // Figures from a clock ahead of this one are refreshed rather than trusted.
    const ahead = stored({ connectivity_stored_at: new Date(now.getTime() + 60_000).toISOString() });
    expect(connectivityReplyWrite(ahead, replied(ahead, report(1.7)), now)).toBe('host');
  });
});

describe("preparation steps and upgrades, with upstream's arguments", () => {
  const vdb = JSON.stringify({
    interfaces: [{ name: 'lo', mac_address: '', ipv4_addresses: ['127.0.0.1/8'] }],
    disks: [{ id: '/dev/vdb', path: '/dev/vdb', name: 'vdb' }],
  });
  const preparing = (attributes: Record<string, unknown> = {}) =>
    host('preparing-for-installation', { inventory: vdb, installation_disk_path: '/dev/vdb', installation_disk_id: '/dev/disk/by-id/wwn-1', ...attributes });
  const images = { agent: 'quay.io/x/agent:1', installer: 'quay.io/x/installer:1', controller: 'quay.io/x/controller:1' };
  const stepOf = (steps: ReturnType<typeof nextSteps>, type: string) => steps.instructions.find((s) => s.step_type === type);

  it('measures the installation disk by its id, with the timeout as a second argument, once per attempt', () => {
    const steps = nextSteps({ host: preparing(), cluster, now, stepIdSuffix: suffix, images });
    expect(stepOf(steps, 'installation-disk-speed-check')!.args).toEqual(['{"path":"/dev/disk/by-id/wwn-1"}', '480.00']);
    const measured = preparing({
      disks_info: JSON.stringify({ '/dev/disk/by-id/wwn-1': { path: '/dev/disk/by-id/wwn-1', disk_speed: { tested: true, speed_ms: 3 } } }),
    });
    expect(stepOf(nextSteps({ host: measured, cluster, now, stepIdSuffix: suffix, images }), 'installation-disk-speed-check')).toBeUndefined();
    const persistent = preparing({ inventory: JSON.stringify({ ...JSON.parse(vdb), boot: { device_type: 'persistent' } }) });
    expect(stepOf(nextSteps({ host: persistent, cluster, now, stepIdSuffix: suffix, images }), 'installation-disk-speed-check')).toBeUndefined();
  });

  it('checks the release and installer images, each only until it has a result', () => {
    const steps = nextSteps({ host: preparing(), cluster, now, stepIdSuffix: suffix, images });
    expect(JSON.parse(stepOf(steps, 'container-image-availability')!.args[0]!)).toEqual({
      images: ['quay.io/openshift-release-dev/ocp-release:4.20.1-x86_64', 'quay.io/x/installer:1'],
      timeout: 960,
    });
    const pulled = preparing({
      images_status: JSON.stringify({
        'quay.io/openshift-release-dev/ocp-release:4.20.1-x86_64': { name: 'quay.io/openshift-release-dev/ocp-release:4.20.1-x86_64', result: 'failure' },
      }),
    });
    expect(
      JSON.parse(stepOf(nextSteps({ host: pulled, cluster, now, stepIdSuffix: suffix, images }), 'container-image-availability')!.args[0]!).images,
    ).toEqual(['quay.io/x/installer:1']);
  });

  it('asks no free-addresses scan of a network wider than /22, and verifies VIPs only once the host has an inventory', () => {
    const wide = nextSteps({ host: host('known', { inventory: vdb }), cluster, now, stepIdSuffix: suffix });
    expect(stepOf(wide, 'free-network-addresses')).toBeUndefined();
    expect(stepOf(nextSteps({ host: host('known'), cluster, now, stepIdSuffix: suffix }), 'verify-vips')).toBeUndefined();
  });

  it('replaces every step with upgrade-agent for a host reporting another agent, before installation only', () => {
    const old = (status: HostStatus) => host(status, { inventory: vdb, discovery_agent_version: 'quay.io/x/agent:0' });
    const steps = nextSteps({ host: old('known'), cluster, now, stepIdSuffix: suffix, images });
    expect(steps).toEqual({
      next_instruction_seconds: 60,
      post_step_action: 'continue',
      instructions: [{ step_type: 'upgrade-agent', step_id: 'upgrade-agent-deadbeef', args: ['{"agent_image":"quay.io/x/agent:1"}'] }],
    });
    expect(types(nextSteps({ host: old('known-unbound'), now, stepIdSuffix: suffix, images }))).toEqual(['upgrade-agent']);
    expect(types(nextSteps({ host: old('preparing-for-installation'), cluster, now, stepIdSuffix: suffix, images }))).not.toContain('upgrade-agent');
    expect(types(nextSteps({ host: old('known'), cluster, now, stepIdSuffix: suffix, images, upgradeAgent: false }))).not.toContain('upgrade-agent');
    expect(
      types(nextSteps({ host: host('known', { inventory: vdb, discovery_agent_version: 'quay.io/x/agent:1' }), cluster, now, stepIdSuffix: suffix, images })),
    ).not.toContain('upgrade-agent');
    // A host that never reported its agent's version is told to upgrade too, as upstream's service does.
    const unreported = host('discovering', { discovery_agent_version: undefined });
    expect(types(nextSteps({ host: unreported, cluster, now, stepIdSuffix: suffix, images }))).toEqual(['upgrade-agent']);
    // A cap on the poll interval (a lab setting) applies to every answer.
    expect(nextSteps({ host: old('known'), cluster, now, stepIdSuffix: suffix, images, maxNextInstructionSeconds: 2 }).next_instruction_seconds).toBe(2);
  });
});

describe('replies upstream reads even when they fail', () => {
  const context = { now: now.toISOString(), disks: { cluster: { attributes: { openshift_version: '4.18.52' } } } };
  const release = 'quay.io/openshift-release-dev/ocp-release:4.20.1-x86_64';

  it("stores the image check's results from its exit-2 reply, a known image getting only its new result", () => {
    const failedPull = {
      step_type: 'container-image-availability' as const,
      exit_code: 2,
      error: 'pull failed',
      output: JSON.stringify({
        images: [
          { name: release, result: 'failure' },
          { name: 'quay.io/x/installer:1', result: 'success', size_bytes: 5e8, time: 10, download_rate: 50 },
        ],
      }),
    };
    const after = applyStepReply(host('preparing-for-installation'), failedPull, context)!;
    const stored = JSON.parse(after.attributes.images_status as string);
    expect(stored[release]).toEqual({ name: release, result: 'failure' });
    expect(stored['quay.io/x/installer:1'].download_rate).toBe(50);
    const retried = applyStepReply(
      after,
      {
        step_type: 'container-image-availability',
        output: JSON.stringify({ images: [{ name: 'quay.io/x/installer:1', result: 'failure', size_bytes: 1, download_rate: 9 }] }),
      },
      context,
    )!;
    expect(JSON.parse(retried.attributes.images_status as string)['quay.io/x/installer:1']).toEqual({
      name: 'quay.io/x/installer:1',
      result: 'failure',
      size_bytes: 5e8,
      time: 10,
      download_rate: 50,
    });
    const events = stepReplyEvents(host('preparing-for-installation'), after, failedPull, 10);
    expect(events.map((e) => [e.name, e.props.image_status, e.props.result])).toEqual([
      ['image_status_updated', release, 'failure'],
      ['image_status_updated', 'quay.io/x/installer:1', 'success'],
    ]);
    expect(events[1]!.props.info).toBe('time: 10.00 seconds; size: 500.00 Megabytes; download rate: 50.00 MBps');
  });

  it('stores a failed disk speed measurement as tested with its exit code, and a slow one as measured with a warning', () => {
    const failed = applyStepReply(
      host('preparing-for-installation'),
      { step_type: 'installation-disk-speed-check', exit_code: -1, output: '{"path":"/dev/vdb"}', error: 'fio failed' },
      context,
    )!;
    expect(JSON.parse(failed.attributes.disks_info as string)).toEqual({ '/dev/vdb': { path: '/dev/vdb', disk_speed: { tested: true, exit_code: -1 } } });
    const slowReply = { step_type: 'installation-disk-speed-check' as const, output: '{"path":"/dev/vdb","io_sync_duration":25}' };
    const slow = applyStepReply(host('preparing-for-installation'), slowReply, context)!;
    expect(JSON.parse(slow.attributes.disks_info as string)['/dev/vdb'].disk_speed).toEqual({ tested: true, speed_ms: 25 });
    expect(stepReplyEvents(host('preparing-for-installation'), slow, slowReply, 10)).toEqual([
      { name: 'disk_speed_slower_than_supported', props: { host_disk: '/dev/vdb', fdatasync_duration: 25 } },
    ]);
    expect(stepReplyEvents(host('preparing-for-installation'), slow, slowReply, 30)).toEqual([]);
    // A failed reply whose output is not the step's JSON is only an error, as upstream only logs it.
    const unreadable = applyStepReply(
      host('preparing-for-installation'),
      { step_type: 'installation-disk-speed-check', exit_code: -1, error: 'bad args' },
      context,
    )!;
    expect(unreadable.attributes.disks_info).toBeUndefined();
  });

  it("stores a failed tang check's words and ignores other failed replies' output", () => {
    expect(
      applyStepReply(host('known'), { step_type: 'tang-connectivity-check', exit_code: -1, error: 'tang unreachable' }, context)!.attributes.tang_connectivity,
    ).toBe('tang unreachable');
    expect(
      applyStepReply(host('known'), { step_type: 'free-network-addresses', exit_code: 1, output: '[{"network":"10.0.0.0/24"}]' }, context)!.attributes
        .free_addresses,
    ).toBeUndefined();
  });

  it("turns the agent's upgrade result into an event", () => {
    const reply = (result: string) => ({ step_type: 'upgrade-agent' as const, output: JSON.stringify({ agent_image: 'quay.io/x/agent:2', result }) });
    expect(stepReplyEvents(host('known'), host('known'), reply('success'), 0).map((e) => e.name)).toEqual(['upgrade_agent_finished']);
    expect(stepReplyEvents(host('known'), host('known'), reply('failure'), 0).map((e) => e.name)).toEqual(['upgrade_agent_failed']);
    expect(stepReplyEvents(host('known'), host('known'), reply(''), 0)).toEqual([]);
  });

  it("applies verify-vips verdicts to the cluster's VIPs, and only changes", () => {
    const reply = {
      step_type: 'verify-vips' as const,
      output: JSON.stringify([
        { vip: '192.168.1.5', vip_type: 'api', verification: 'succeeded' },
        { vip: '192.168.1.6', vip_type: 'ingress', verification: 'failed' },
        { vip: '10.9.9.9', vip_type: 'api', verification: 'failed' },
      ]),
    };
    const vips = applyVipVerifications(cluster, reply)!;
    expect(vips).toEqual({ api_vips: [{ ip: '192.168.1.5', verification: 'succeeded' }], ingress_vips: [{ ip: '192.168.1.6', verification: 'failed' }] });
    expect(applyVipVerifications({ ...cluster, attributes: { ...cluster.attributes, ...vips } }, reply)).toBeUndefined();
    expect(applyVipVerifications(cluster, { ...reply, exit_code: -1 })).toBeUndefined();
    expect(
      applyVipVerifications(cluster, { step_type: 'verify-vips', output: '[{"vip":"192.168.1.5","vip_type":"api","verification":"maybe"}]' }),
    ).toBeUndefined();
  });
});

describe('malformed replies are refused before anything is written, and events never fail a reply', () => {
  const context = { now: now.toISOString(), disks: { cluster: { attributes: { openshift_version: '4.18.52' } } } };
  it.each([
    ['ntp-synchronizer', 'null'],
    ['ntp-synchronizer', '{"ntp_sources":5}'],
    ['container-image-availability', 'null'],
    ['installation-disk-speed-check', '{"path":"/dev/vdb","io_sync_duration":"fast"}'],
    ['installation-disk-speed-check', '{"path":7}'],
    ['upgrade-agent', 'null'],
    ['verify-vips', '{"vip":"1.2.3.4"}'],
    ['connectivity-check', '[]'],
    ['domain-resolution', '5'],
  ] as const)('%s with output %s: 400', (stepType, output) => {
    expect(() => applyStepReply(host('preparing-for-installation'), { step_type: stepType, output }, context)).toThrow(
      expect.objectContaining({ kind: 'bad-request' }),
    );
  });

  it('keeps only named image results and builds well-typed events from odd values', () => {
    const reply = {
      step_type: 'container-image-availability' as const,
      output: JSON.stringify({ images: [{ name: 'quay.io/a:1', result: 'success', size_bytes: 5, time: '1', download_rate: null }, { result: 'failure' }, 7] }),
    };
    const after = applyStepReply(host('preparing-for-installation'), reply, context)!;
    expect(Object.keys(JSON.parse(after.attributes.images_status as string))).toEqual(['quay.io/a:1']);
    expect(stepReplyEvents(host('preparing-for-installation'), after, reply, 10)).toEqual([
      {
        name: 'image_status_updated',
        props: {
          host_name: expect.any(String),
          image_status: 'quay.io/a:1',
          result: 'success',
          info: 'time: 0.00 seconds; size: 0.00 Megabytes; download rate: 0.00 MBps',
        },
      },
    ]);
    expect(stepReplyEvents(host('known'), host('known'), { step_type: 'upgrade-agent', output: '{"agent_image":5,"result":"success"}' }, 0)).toEqual([
      { name: 'upgrade_agent_finished', props: { host_name: expect.any(String), agent_image: '' } },
    ]);
    expect(
      stepReplyEvents(
        host('known'),
        host('known'),
        { step_type: 'installation-disk-speed-check', output: '{"path":"/dev/vdb","io_sync_duration":12.6}' },
        10,
      )[0]!.props.fdatasync_duration,
    ).toBe(13);
  });
});

describe("registration of a single-node cluster's hosts", () => {
  const sno = (status: ClusterStatus): Cluster => ({ ...cluster, status, attributes: { ...cluster.attributes, control_plane_count: 1 } });
  const infraEnv = { orgId: 'o', infraEnvId: 'i', createdAt: '', updatedAt: '', version: 1, attributes: {} } as unknown as Parameters<
    typeof newHost
  >[0]['infraEnv'];
  it('makes the single node master and bootstrap, but a host added after installation a day-2 worker, as upstream does', () => {
    expect(newHost({ orgId: 'o', infraEnv, cluster: sno('pending-for-input'), hostId: 'h', now: now.toISOString() }).attributes).toMatchObject({
      role: 'master',
      suggested_role: 'master',
      bootstrap: true,
      kind: 'Host',
    });
    const added = newHost({ orgId: 'o', infraEnv, cluster: sno('adding-hosts'), hostId: 'h', now: now.toISOString() }).attributes;
    expect(added).toMatchObject({ role: 'worker', suggested_role: 'worker', kind: 'AddToExistingClusterHost' });
    expect(added.bootstrap).toBeUndefined();
  });

  it("names the infra-env's owner on the host, and answers the step runner with its arguments only, as upstream", () => {
    const owned = { ...infraEnv, attributes: { user_name: 'admin' } } as typeof infraEnv;
    expect(newHost({ orgId: 'o', infraEnv: owned, hostId: 'h', now: now.toISOString() }).attributes.user_name).toBe('admin');
    expect(newHost({ orgId: 'o', infraEnv, hostId: 'h', now: now.toISOString() }).attributes).not.toHaveProperty('user_name');
    expect(nextStepRunnerCommand({ hostId: 'h', infraEnvId: 'i' }, 'agent:1')).toEqual({
      args: ['{"infra_env_id":"i","host_id":"h","agent_version":"agent:1"}'],
    });
  });
});

describe('long checks claimed on the host', () => {
  const now = new Date('2026-01-01T00:10:00Z');
  it('hands a check not marked, or marked before the window, and marks what it hands', () => {
    const stored = { 'logs-gather': '2026-01-01T00:09:30Z', 'free-network-addresses': '2026-01-01T00:08:00Z' };
    const claim = claimLongChecks(stored, ['logs-gather', 'free-network-addresses', 'installation-disk-speed-check'], now);
    expect(claim.claimed).toEqual(['free-network-addresses', 'installation-disk-speed-check']);
    expect(claim.marks).toEqual({
      'logs-gather': '2026-01-01T00:09:30Z',
      'free-network-addresses': now.toISOString(),
      'installation-disk-speed-check': now.toISOString(),
    });
  });
  it('hands nothing twice within the window, whatever instance asks', () => {
    const first = claimLongChecks(undefined, ['logs-gather'], now);
    expect(claimLongChecks(first.marks, ['logs-gather'], new Date(now.getTime() + LONG_CHECK_WINDOW_MS - 1)).claimed).toEqual([]);
    expect(claimLongChecks(first.marks, ['logs-gather'], new Date(now.getTime() + LONG_CHECK_WINDOW_MS)).claimed).toEqual(['logs-gather']);
  });
  it('states as a store condition (longCheckClaim) exactly the marks a poll may take', () => {
    for (const type of ['connectivity-check', 'logs-gather']) {
      const window = HANDED_ONCE_WINDOW_MS[type]!;
      const claim = longCheckClaim(type, now);
      for (const ageMs of [-1, 0, 1, window - 1, window, window + 1]) {
        const mark = new Date(now.getTime() - ageMs).toISOString();
        const storeWouldTake = mark < claim.staleBefore || mark > claim.at;
        expect(storeWouldTake, `${type} marked ${ageMs} ms ago`).toBe(claimLongChecks({ [type]: mark }, [type], now).claimed.length === 1);
      }
    }
  });
  it('ignores marks it cannot read, and marks from a clock ahead of this one', () => {
    expect(claimLongChecks('garbage', ['upgrade-agent'], now).claimed).toEqual(['upgrade-agent']);
    expect(claimLongChecks({ 'upgrade-agent': 'not a time' }, ['upgrade-agent'], now).claimed).toEqual(['upgrade-agent']);
    expect(claimLongChecks({ 'upgrade-agent': '2026-01-01T01:00:00Z' }, ['upgrade-agent'], now).claimed).toEqual(['upgrade-agent']);
  });
});

describe('the address book connectivity checks hand out', () => {
  const withInventory = (hostId: string, ip: string, attributes: Record<string, unknown> = {}): Host => ({
    ...host('insufficient', {
      inventory: JSON.stringify({ interfaces: [{ name: 'eth0', mac_address: `52:54:00:00:00:${hostId.slice(-2)}`, ipv4_addresses: [`${ip}/24`] }] }),
      ...attributes,
    }),
    hostId,
  });
  const a = withInventory('h01', '192.168.1.10');
  const b = withInventory('h02', '192.168.1.11');

  it('changes when a host gains an inventory, changes an address, or leaves', () => {
    const book = peerAddressBook([a, b]);
    expect(peerAddressBook([a, b, { ...host('discovering'), hostId: 'h03' }])).toBe(book);
    expect(peerAddressBook([a, b, withInventory('h03', '192.168.1.12')])).not.toBe(book);
    expect(peerAddressBook([a, withInventory('h02', '192.168.1.99')])).not.toBe(book);
    expect(peerAddressBook([a])).not.toBe(book);
  });

  it('does not change with the order of the listing or with what peers are not told', () => {
    const book = peerAddressBook([a, b]);
    expect(peerAddressBook([b, a])).toBe(book);
    expect(peerAddressBook([{ ...a, status: 'known', version: 7 }, withInventory('h02', '192.168.1.11', { ntp_sources: '[]' })])).toBe(book);
  });
});
