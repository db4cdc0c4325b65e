/** Steps driven by captured tool outputs: the command lines they run and the replies they build. */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCommand } from '../../../agent/src/exec.js';
import type { DnsResolver } from '../../../agent/src/steps/dns.js';
import { createProbeSteps } from '../../../agent/src/steps/index.js';
import { FREE_ADDRESS_LIMIT } from '../../../agent/src/steps/nmap-steps.js';
import { exited, fixture, ok, scriptedRunner } from './fixtures.js';
import { request, stepContext } from './step-context.js';
import { modelViolations } from '../../support/response-schema.js';

const fioInstalled = spawnSync('fio', ['--version']).error === undefined;

/** Names for the reverse lookups of the NTP test; every other question has no answer. */
const reverseOnly =
  (names: Record<string, string>): (() => DnsResolver) =>
  () => ({
    resolve4: async () => [],
    resolve6: async () => [],
    resolveCname: async () => [],
    reverse: async (address) => (names[address] ? [names[address]!] : Promise.reject(Object.assign(new Error('no PTR'), { code: 'ENOTFOUND' }))),
  });

describe('free-network-addresses', () => {
  it('lists the addresses nmap did not see, leaving out the network and broadcast addresses', async () => {
    const exec = scriptedRunner({ 'nmap -sn -PR -n -oX - 10.200.1.0/29': ok(fixture('nmap-sweep.xml')) });
    const reply = await createProbeSteps()['free-network-addresses']!(request('free-network-addresses', ['10.200.1.0/29']), stepContext(exec));
    expect(reply.exit_code).toBe(0);
    const output = JSON.parse(reply.output!);
    expect(modelViolations('free_networks_addresses', output)).toEqual([]);
    expect(output).toEqual([{ network: '10.200.1.0/29', free_addresses: ['10.200.1.3', '10.200.1.4', '10.200.1.5', '10.200.1.6'] }]);
  });

  it('scans large networks in /22 chunks and stops at the address limit', async () => {
    const empty = '<?xml version="1.0"?><nmaprun scanner="nmap"><runstats><finished exit="success"/></runstats></nmaprun>';
    const exec = scriptedRunner({ nmap: ok(empty) });
    const reply = await createProbeSteps()['free-network-addresses']!(request('free-network-addresses', ['10.0.0.0/16']), stepContext(exec));
    const [network] = JSON.parse(reply.output!) as { free_addresses: string[] }[];
    expect(network!.free_addresses).toHaveLength(FREE_ADDRESS_LIMIT);
    expect(network!.free_addresses[0]).toBe('10.0.0.1');
    expect(exec.calls.map((call) => call.at(-1))).toEqual([
      '10.0.0.0/22',
      '10.0.4.0/22',
      '10.0.8.0/22',
      '10.0.12.0/22',
      '10.0.16.0/22',
      '10.0.20.0/22',
      '10.0.24.0/22',
      '10.0.28.0/22',
    ]);
  });

  it('fails clearly when nmap fails', async () => {
    const exec = scriptedRunner({ nmap: exited(1, '', 'nmap: Failed to open device eth9') });
    const reply = await createProbeSteps()['free-network-addresses']!(request('free-network-addresses', ['10.0.0.0/24']), stepContext(exec));
    expect(reply).toMatchObject({ exit_code: -1, error: expect.stringContaining('Failed to open device eth9') });
  });
});

describe('verify-vips', () => {
  it('succeeds for a free VIP, fails for a taken one, and scans IPv6 with -6', async () => {
    const exec = scriptedRunner({
      'nmap -sn -n -oX - 10.200.1.2': ok(fixture('nmap-vip-taken.xml')),
      'nmap -sn -n -oX - 10.200.1.77': ok(fixture('nmap-vip-free.xml')),
      'nmap -6 -sn -n -oX - fd00:200:1::2': ok(fixture('nmap6-l2.xml')),
    });
    const vips = [
      { vip: '10.200.1.77', vip_type: 'api' },
      { vip: '10.200.1.2', vip_type: 'ingress' },
      { vip: 'fd00:200:1::2', vip_type: 'api' },
    ];
    const reply = await createProbeSteps()['verify-vips']!(request('verify-vips', vips), stepContext(exec));
    const output = JSON.parse(reply.output!);
    expect(modelViolations('verify_vips_response', output)).toEqual([]);
    expect(output.map((vip: { verification: string }) => vip.verification)).toEqual(['succeeded', 'failed', 'failed']);
  });
});

describe('ntp-synchronizer', () => {
  it('adds only the sources chrony does not have, then reports every source with its state', async () => {
    let listed = 0;
    const exec = scriptedRunner({
      'chronyc -n sources': () => ok(fixture(listed++ === 0 ? 'chronyc-sources.txt' : 'chronyc-sources-after-add.txt')),
      'chronyc add server 10.200.1.3 iburst': ok(fixture('chronyc-add.txt')),
    });
    const steps = createProbeSteps({ resolver: reverseOnly({ '10.200.1.2': 'ntp1.lab.test.' }) });
    const reply = await steps['ntp-synchronizer']!(request('ntp-synchronizer', { ntp_source: '10.200.1.2, 10.200.1.3' }), stepContext(exec));
    expect(exec.calls.filter((call) => call[1] === 'add')).toEqual([['chronyc', 'add', 'server', '10.200.1.3', 'iburst']]);
    const output = JSON.parse(reply.output!);
    expect(modelViolations('ntp_synchronization_response', output)).toEqual([]);
    expect(output).toEqual({
      ntp_sources: [
        { source_name: 'ntp1.lab.test', source_state: 'synced' },
        { source_name: '10.200.1.99', source_state: 'unreachable' },
        { source_name: '10.200.1.3', source_state: 'unreachable' },
      ],
    });
  });

  it('treats "Source already present" as done and fails clearly when chronyd is not running', async () => {
    const present = scriptedRunner({ 'chronyc -n sources': ok(''), 'chronyc add': exited(1, fixture('chronyc-add-duplicate.txt')) });
    const steps = createProbeSteps({ resolver: reverseOnly({}) });
    const context = stepContext(present);
    expect((await steps['ntp-synchronizer']!(request('ntp-synchronizer', { ntp_source: '10.200.1.2' }), context)).exit_code).toBe(0);
    expect(context.log.warnings).toEqual([]);
    const down = scriptedRunner({ 'chronyc -n sources': exited(1, '', '506 Cannot talk to daemon') });
    const reply = await steps['ntp-synchronizer']!(request('ntp-synchronizer', { ntp_source: '10.200.1.2' }), stepContext(down));
    expect(reply).toMatchObject({ exit_code: -1, error: expect.stringContaining('Cannot talk to daemon') });
  });
});

describe('installation-disk-speed-check', () => {
  it('runs fio twice against the device (colons escaped) and reports the p99 fdatasync in ms', async () => {
    const exec = scriptedRunner({ fio: ok(fixture('fio-write.json')) });
    const path = '/dev/disk/by-path/pci-0000:00:17.0-ata-1';
    const reply = await createProbeSteps()['installation-disk-speed-check']!(request('installation-disk-speed-check', { path }, '120'), stepContext(exec));
    expect(exec.calls).toHaveLength(2);
    expect(exec.calls[0]).toEqual([
      'fio',
      '--filename',
      '/dev/disk/by-path/pci-0000\\:00\\:17.0-ata-1',
      '--name=test',
      '--rw=write',
      '--ioengine=sync',
      '--size=22m',
      '-bs=2300',
      '--fdatasync=1',
      '--output-format=json',
    ]);
    const output = JSON.parse(reply.output!);
    expect(modelViolations('disk_speed_check_response', output)).toEqual([]);
    expect(output).toEqual({ io_sync_duration: 3, path });
  });

  it("fails with fio's reason when every run fails", async () => {
    const exec = scriptedRunner({ fio: exited(1, fixture('fio-error.json'), fixture('fio-error.stderr')) });
    const reply = await createProbeSteps()['installation-disk-speed-check']!(
      request('installation-disk-speed-check', { path: '/proc/version' }, '480.00'),
      stepContext(exec),
    );
    expect(reply).toMatchObject({ exit_code: -1, error: expect.stringContaining('Operation not permitted') });
  });

  it.skipIf(!fioInstalled)(
    'runs fio for real against a file (skipped: fio is not installed)',
    async () => {
      const directory = await mkdtemp(join(tmpdir(), 'disk-speed-'));
      try {
        const path = join(directory, 'target');
        const reply = await createProbeSteps()['installation-disk-speed-check']!(
          request('installation-disk-speed-check', { path }, '120'),
          stepContext(runCommand),
        );
        expect(reply.exit_code, reply.error).toBe(0);
        expect(JSON.parse(reply.output!)).toMatchObject({ path, io_sync_duration: expect.any(Number) });
      } finally {
        await rm(directory, { recursive: true, force: true });
      }
    },
    120_000,
  );
});

describe('container-image-availability', () => {
  it('times pulls, sizes new images, and answers exit 2 with the failures named', async () => {
    const exec = scriptedRunner({
      'podman images --quiet quay.io/example/present:1': ok('3f57d9401f8d\n'),
      'podman images --quiet': ok(''),
      'podman pull quay.io/example/present:1': ok('3f57d9401f8d\n'),
      'podman pull quay.io/example/new:1': ok('9a1bc2d3e4f5\n'),
      'podman pull quay.io/example/missing:1': exited(
        125,
        '',
        'Trying to pull quay.io/example/missing:1...\nError: initializing source docker://quay.io/example/missing:1: reading manifest 1 in quay.io/example/missing: manifest unknown',
      ),
      'podman image inspect --format={{.Size}} quay.io/example/new:1': ok('52428800\n'),
    });
    const images = ['quay.io/example/present:1', 'quay.io/example/new:1', 'quay.io/example/missing:1'];
    const reply = await createProbeSteps()['container-image-availability']!(
      request('container-image-availability', { images, timeout: 600 }),
      stepContext(exec),
    );
    expect(reply.exit_code).toBe(2);
    expect(reply.error).toContain('manifest unknown');
    const output = JSON.parse(reply.output!);
    expect(modelViolations('container_image_availability_response', output)).toEqual([]);
    expect(output.images).toEqual([
      { name: 'quay.io/example/present:1', result: 'success', time: expect.any(Number) },
      { name: 'quay.io/example/new:1', result: 'success', time: expect.any(Number), size_bytes: 52428800, download_rate: expect.any(Number) },
      { name: 'quay.io/example/missing:1', result: 'failure' },
    ]);
  });
});

describe('dhcp-lease-allocate', () => {
  it('leases each VIP on a macvlan with its MAC, without configuring it, and removes the macvlans', async () => {
    const leases: Record<string, string> = { 'vip-api': '192.168.111.5', 'vip-ingress': '192.168.111.6' };
    const exec = scriptedRunner({
      'dhclient --version': ok('isc-dhclient-4.4.3-P1\n'),
      'ip link': ok(''),
      'timeout 28 dhclient': (args) => {
        const leaseFile = args[args.indexOf('-lf') + 1]!;
        const name = args.at(-1)!;
        writeFileSync(
          leaseFile,
          `lease {\n  interface "${name}";\n  fixed-address ${leases[name]};\n  option subnet-mask 255.255.255.0;\n  renew 0 2026/11/22 04:00:00;\n}\n`,
          { flag: 'a' },
        );
        return ok('');
      },
    });
    const body = {
      interface: 'eno1',
      api_vip_mac: '00:1a:4a:00:00:01',
      ingress_vip_mac: '00:1a:4a:00:00:02',
      api_vip_lease: 'lease {\n  interface "vip-api";\n  fixed-address 192.168.111.5;\n}',
    };
    const reply = await createProbeSteps()['dhcp-lease-allocate']!(request('dhcp-lease-allocate', body), stepContext(exec));
    expect(reply.exit_code, reply.error).toBe(0);
    const output = JSON.parse(reply.output!);
    expect(modelViolations('dhcp_allocation_response', output)).toEqual([]);
    expect(output).toMatchObject({ api_vip_address: '192.168.111.5', ingress_vip_address: '192.168.111.6' });
    expect(output.api_vip_lease).toContain('renew');
    const lines = exec.calls.map((call) => call.join(' '));
    expect(lines).toContain('ip link add link eno1 name vip-api address 00:1a:4a:00:00:01 type macvlan mode private');
    expect(lines).toContain('ip link del vip-ingress');
    expect(lines.find((line) => line.includes('dhclient -v'))).toMatch(/-sf \/bin\/true -lf \S+ --no-pid -1 vip-api$/);
  });

  it('names the VIP that got no lease', async () => {
    const exec = scriptedRunner({
      'dhclient --version': ok(''),
      'ip link': ok(''),
      'timeout 28 dhclient': exited(124, '', 'DHCPDISCOVER on vip-api to 255.255.255.255 port 67 interval 3\nNo DHCPOFFERS received.'),
    });
    const reply = await createProbeSteps()['dhcp-lease-allocate']!(
      request('dhcp-lease-allocate', { interface: 'eno1', api_vip_mac: '00:1a:4a:00:00:01', ingress_vip_mac: '00:1a:4a:00:00:02' }),
      stepContext(exec),
    );
    expect(reply).toMatchObject({ exit_code: -1, error: expect.stringMatching(/^API VIP: no DHCP lease .*No DHCPOFFERS received/) });
    expect(exec.calls.map((call) => call.join(' '))).toContain('ip link del vip-api');
  });
});
