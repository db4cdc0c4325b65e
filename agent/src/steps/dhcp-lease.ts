/**
 * dhcp-lease-allocate: for clusters whose VIPs come from DHCP, lease an address for the API and the
 * ingress VIP, each on a macvlan with the MAC the service generated, so the DHCP server sees two
 * stable clients. dhclient only negotiates (`-sf /bin/true`): nothing is configured on the host.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StepContext, StepRequest, StepResult } from '../contracts.js';
import { fail, guarded, run, stepRequest, succeed, toolMissing, SingleFlight, StepArgumentError } from './support.js';

const DHCLIENT_TIMEOUT_SECONDS = 28;
const MAC = /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/i;
const leases = new SingleFlight();

/** The address of the newest lease in a dhclient lease file. */
export function leasedAddress(leaseFile: string): string | undefined {
  const blocks = [...leaseFile.matchAll(/lease\s*\{([^}]*)\}/g)];
  const last = blocks.at(-1)?.[1];
  return last?.match(/fixed-address\s+(\d+\.\d+\.\d+\.\d+)\s*;/)?.[1];
}

/** The newest lease block, which is what a renewal hands back to dhclient. */
export const lastLease = (leaseFile: string) => [...leaseFile.matchAll(/lease\s*\{[^}]*\}/g)].at(-1)?.[0];

async function leaseOn(
  context: StepContext,
  parent: string,
  name: string,
  mac: string,
  directory: string,
  previous: string | undefined,
): Promise<{ address: string; lease: string } | string> {
  const leaseFile = join(directory, `${name}.lease`);
  if (previous) await writeFile(leaseFile, `${previous}\n`);
  const created = await run(context, 'ip', ['link', 'add', 'link', parent, 'name', name, 'address', mac, 'type', 'macvlan', 'mode', 'private'], {
    timeoutMs: 15_000,
  });
  if (created.missing) return 'ip is not installed on this host; dhcp-lease-allocate needs it to create the VIP interfaces';
  if (created.exitCode !== 0) return `could not create a macvlan on ${parent}: ${created.stderr.trim()}`;
  try {
    const up = await run(context, 'ip', ['link', 'set', name, 'up'], { timeoutMs: 15_000 });
    if (up.exitCode !== 0) return `could not bring ${name} up: ${up.stderr.trim()}`;
    const dhclient = await run(
      context,
      'timeout',
      [String(DHCLIENT_TIMEOUT_SECONDS), 'dhclient', '-v', '-sf', '/bin/true', '-lf', leaseFile, '--no-pid', '-1', name],
      { timeoutMs: (DHCLIENT_TIMEOUT_SECONDS + 5) * 1000 },
    );
    if (dhclient.exitCode !== 0)
      return `no DHCP lease for ${mac} on ${parent}: ${dhclient.stderr.trim().split('\n').slice(-2).join(' ') || `dhclient exited ${dhclient.exitCode}`}`;
    const text = await readFile(leaseFile, 'utf8').catch(() => '');
    const address = leasedAddress(text);
    const lease = lastLease(text);
    if (!address || !lease) return `dhclient reported success but wrote no lease for ${mac}`;
    return { address, lease };
  } finally {
    await run(context, 'ip', ['link', 'del', name], { timeoutMs: 15_000 });
  }
}

export async function dhcpLeaseAllocate(request: StepRequest, context: StepContext): Promise<StepResult> {
  return guarded(request, context, async () => {
    const body = stepRequest('dhcp-lease-allocate', request);
    const { interface: parent, api_vip_mac: apiMac, ingress_vip_mac: ingressMac } = body;
    if (!/^[\w.-]{1,15}$/.test(parent)) throw new StepArgumentError(`dhcp-lease-allocate "interface" ${JSON.stringify(parent)} is not an interface name`);
    for (const mac of [apiMac, ingressMac]) if (!MAC.test(mac)) throw new StepArgumentError(`dhcp-lease-allocate: ${mac} is not a MAC address`);

    const probe = await run(context, 'dhclient', ['--version'], { timeoutMs: 10_000 });
    if (probe.missing) return toolMissing('dhclient', 'dhcp-lease-allocate', 'lease the API and ingress VIPs');
    return leases.run(parent, async () => {
      const directory = await mkdtemp(join(tmpdir(), 'vip-leases-'));
      try {
        const api = await leaseOn(context, parent, 'vip-api', apiMac, directory, typeof body.api_vip_lease === 'string' ? body.api_vip_lease : undefined);
        if (typeof api === 'string') return fail(`API VIP: ${api}`);
        const ingress = await leaseOn(
          context,
          parent,
          'vip-ingress',
          ingressMac,
          directory,
          typeof body.ingress_vip_lease === 'string' ? body.ingress_vip_lease : undefined,
        );
        if (typeof ingress === 'string') return fail(`ingress VIP: ${ingress}`);
        return succeed('dhcp-lease-allocate', {
          api_vip_address: api.address,
          ingress_vip_address: ingress.address,
          api_vip_lease: api.lease,
          ingress_vip_lease: ingress.lease,
        });
      } finally {
        await rm(directory, { recursive: true, force: true });
      }
    });
  });
}
