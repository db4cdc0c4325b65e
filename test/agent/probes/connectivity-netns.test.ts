/**
 * connectivity-check between two "hosts": network namespaces joined by a veth pair this test
 * creates, with the step's commands run inside namespace A. Nothing leaves the namespaces.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand, type CommandRunner } from '../../../agent/src/exec.js';
import type { ConnectivityRemoteHost } from '../../../agent/src/steps/connectivity-check.js';
import { createProbeSteps } from '../../../agent/src/steps/index.js';
import { request, stepContext } from './step-context.js';
import { modelViolations } from '../../support/response-schema.js';

const isRoot = process.getuid?.() === 0;
const netnsWorks = isRoot && spawnSync('ip', ['netns', 'list']).status === 0;
const installed = (tool: string, versionFlag: string) => spawnSync(tool, [versionFlag]).error === undefined;
const hasArping = installed('arping', '-V') || installed('arping', '--help');
const hasNmap = installed('nmap', '--version');

const tag = String(process.pid % 100000);
const subnet = 20 + (process.pid % 200);
const nsA = `agent-a-${tag}`;
const nsB = `agent-b-${tag}`;
const nsAlone = `agent-lo-${tag}`;
const vethA = `cka${tag}`;
const vethB = `ckb${tag}`;
const addressA = `10.200.${subnet}.1`;
const addressB = `10.200.${subnet}.2`;
const absent = `10.200.${subnet}.99`;
const v6B = `fd00:200:${subnet.toString(16)}::2`;
const hostB = '0b3a5c1e-0000-4000-8000-00000000000b';
const hostAbsent = '0b3a5c1e-0000-4000-8000-0000000000ff';
let macB = '';

function ip(...args: string[]): string {
  const result = spawnSync('ip', args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`ip ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

/** Runs each command inside a namespace; `ip netns exec`'s "exec failed" counts as the tool missing. */
function inNamespace(namespace: string): CommandRunner {
  return async (command, args, options) => {
    const result = await runCommand('ip', ['netns', 'exec', namespace, command, ...args], options);
    if (result.exitCode === 255 && /exec of "[^"]+" failed: No such file or directory/.test(result.stderr)) return { ...result, missing: true };
    return result;
  };
}

const steps = createProbeSteps();
const connectivityRequest = () =>
  request('connectivity-check', [
    { host_id: hostAbsent, nics: [{ name: 'eth0', mac: '02:00:00:00:00:ff', ip_addresses: [absent] }] },
    { host_id: hostB, nics: [{ name: vethB, mac: macB, ip_addresses: [addressB, v6B] }] },
  ]);

describe.skipIf(!netnsWorks)('connectivity-check in network namespaces', () => {
  beforeAll(() => {
    for (const namespace of [nsA, nsB, nsAlone]) ip('netns', 'add', namespace);
    ip('link', 'add', vethA, 'type', 'veth', 'peer', 'name', vethB);
    ip('link', 'set', vethA, 'netns', nsA);
    ip('link', 'set', vethB, 'netns', nsB);
    for (const [namespace, veth, address, v6] of [
      [nsA, vethA, addressA, `fd00:200:${subnet.toString(16)}::1`],
      [nsB, vethB, addressB, v6B],
    ] as const) {
      ip('-n', namespace, 'link', 'set', 'lo', 'up');
      ip('-n', namespace, 'addr', 'add', `${address}/24`, 'dev', veth);
      ip('-n', namespace, 'addr', 'add', `${v6}/64`, 'dev', veth, 'nodad');
      ip('-n', namespace, 'link', 'set', veth, 'mtu', '9000', 'up');
    }
    ip('-n', nsAlone, 'link', 'set', 'lo', 'up');
    macB = (JSON.parse(ip('-n', nsB, '-j', 'link', 'show', vethB)) as { address: string }[])[0]!.address;
  });

  afterAll(() => {
    for (const namespace of [nsA, nsB, nsAlone]) spawnSync('ip', ['netns', 'del', namespace]);
  });

  it('reports L3 to the peer, L2 by its MAC, the jumbo MTU path, and failure for an absent address', async () => {
    const reply = await steps['connectivity-check']!(connectivityRequest(), stepContext(inNamespace(nsA)));
    expect(reply.exit_code, reply.error).toBe(0);
    const report = JSON.parse(reply.output!) as { remote_hosts: ConnectivityRemoteHost[] };
    expect(modelViolations('connectivity-report', report)).toEqual([]);
    expect(report.remote_hosts.map((host) => host.host_id)).toEqual([hostB, hostAbsent]);
    const [peer, missing] = report.remote_hosts as [ConnectivityRemoteHost, ConnectivityRemoteHost];

    expect(peer.l3_connectivity).toEqual([
      { remote_ip_address: addressB, successful: true, packet_loss_percentage: 0, average_rtt_ms: expect.any(Number) },
      { remote_ip_address: v6B, successful: true, packet_loss_percentage: 0, average_rtt_ms: expect.any(Number) },
    ]);
    expect(missing.l3_connectivity).toEqual([{ remote_ip_address: absent, successful: false, packet_loss_percentage: 100 }]);

    const expectedL2 = [
      ...(hasArping ? [{ outgoing_nic: vethA, outgoing_ip_address: addressA, remote_ip_address: addressB, remote_mac: macB, successful: true }] : []),
      ...(hasNmap
        ? [{ outgoing_nic: vethA, outgoing_ip_address: `fd00:200:${subnet.toString(16)}::1`, remote_ip_address: v6B, remote_mac: macB, successful: true }]
        : []),
    ];
    expect(peer.l2_connectivity).toEqual(expectedL2);
    if (hasArping)
      expect(missing.l2_connectivity).toEqual([
        { outgoing_nic: vethA, outgoing_ip_address: addressA, remote_ip_address: absent, remote_mac: '', successful: false },
      ]);

    expect(peer.mtu_report).toEqual([
      { outgoing_nic: vethA, remote_ip_address: addressB, mtu_successful: true },
      { outgoing_nic: vethA, remote_ip_address: v6B, mtu_successful: true },
    ]);
    expect(missing.mtu_report).toEqual([]);
  }, 90_000);

  it('reports the MTU path broken when the peer only takes 1500-byte frames', async () => {
    ip('-n', nsB, 'link', 'set', vethB, 'mtu', '1500');
    try {
      const body = [{ host_id: hostB, nics: [{ name: vethB, mac: macB, ip_addresses: [addressB] }] }];
      const reply = await steps['connectivity-check']!(request('connectivity-check', body), stepContext(inNamespace(nsA)));
      const [peer] = (JSON.parse(reply.output!) as { remote_hosts: ConnectivityRemoteHost[] }).remote_hosts;
      expect(peer!.l3_connectivity[0]?.successful).toBe(true);
      expect(peer!.mtu_report).toEqual([{ outgoing_nic: vethA, remote_ip_address: addressB, mtu_successful: false }]);
    } finally {
      ip('-n', nsB, 'link', 'set', vethB, 'mtu', '9000');
    }
  }, 90_000);

  it('from a namespace with only loopback: nothing is reachable, nothing is sent anywhere', async () => {
    const body = [{ host_id: hostB, nics: [{ name: vethB, mac: macB, ip_addresses: [addressB] }] }];
    const reply = await steps['connectivity-check']!(request('connectivity-check', body), stepContext(inNamespace(nsAlone)));
    expect(reply.exit_code).toBe(0);
    expect(JSON.parse(reply.output!)).toEqual({
      remote_hosts: [
        {
          host_id: hostB,
          l2_connectivity: [],
          l3_connectivity: [{ remote_ip_address: addressB, successful: false, packet_loss_percentage: 100 }],
          mtu_report: [],
        },
      ],
    });
  }, 180_000);

  it('without arping, still checks L3 and says L2 was skipped', async () => {
    const noArping: CommandRunner = async (command, args, options) =>
      command === 'arping' ? { exitCode: 127, stdout: '', stderr: '', missing: true } : inNamespace(nsA)(command, args, options);
    const context = stepContext(noArping);
    const body = [{ host_id: hostB, nics: [{ name: vethB, mac: macB, ip_addresses: [addressB] }] }];
    const reply = await steps['connectivity-check']!(request('connectivity-check', body), context);
    const [peer] = (JSON.parse(reply.output!) as { remote_hosts: ConnectivityRemoteHost[] }).remote_hosts;
    expect(peer!.l3_connectivity[0]?.successful).toBe(true);
    expect(peer!.l2_connectivity).toEqual([]);
    expect(context.log.warnings).toEqual(['arping is not installed; connectivity-check reports no IPv4 L2 results']);
  }, 180_000);
});
