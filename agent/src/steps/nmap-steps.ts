/** Steps answered by nmap ping scans: free-network-addresses and verify-vips. */
import type { StepContext, StepRequest, StepResult } from '../contracts.js';
import { familyOf, numberToIpv4, parseIpv4Network } from './ip-math.js';
import { parseNmapXml, upHosts } from './parsers/nmap.js';
import { fail, guarded, run, stepRequest, succeed, toolMissing, SingleFlight, StepArgumentError } from './support.js';
import type { VerifiedVip } from '../../../contracts/step-replies.js';

/** Networks are scanned in /22 pieces so one nmap run stays short. */
const CHUNK_PREFIX = 22;
/** Upstream's cap: a huge machine network must not produce a huge reply. */
export const FREE_ADDRESS_LIMIT = 8000;

const scans = new SingleFlight();

export async function freeNetworkAddresses(request: StepRequest, context: StepContext): Promise<StepResult> {
  return guarded(request, context, async () => {
    const networks = stepRequest('free-network-addresses', request).map((entry) => {
      try {
        return { text: entry, ...parseIpv4Network(entry) };
      } catch (error) {
        throw new StepArgumentError(`free-network-addresses: ${(error as Error).message}`);
      }
    });
    return scans.run('free-network-addresses', async () => {
      const reply: { network: string; free_addresses: string[] }[] = [];
      let remaining = FREE_ADDRESS_LIMIT;
      for (const network of networks) {
        const free: string[] = [];
        const chunkSize = 2 ** (32 - Math.max(network.prefix, CHUNK_PREFIX));
        for (let chunkStart = network.start; chunkStart < network.start + network.size && remaining > 0; chunkStart += chunkSize) {
          const chunk = `${numberToIpv4(chunkStart)}/${Math.max(network.prefix, CHUNK_PREFIX)}`;
          const result = await run(context, 'nmap', ['-sn', '-PR', '-n', '-oX', '-', chunk], { timeoutMs: 300_000 });
          if (result.missing) return toolMissing('nmap', 'free-network-addresses', 'find which addresses answer');
          if (result.exitCode !== 0) return fail(`nmap failed scanning ${chunk}: ${result.stderr.trim() || `exit code ${result.exitCode}`}`);
          let up: Set<string>;
          try {
            up = new Set(upHosts(parseNmapXml(result.stdout)).flatMap((host) => host.ipv4 ?? []));
          } catch (error) {
            return fail(`nmap output for ${chunk} could not be read: ${(error as Error).message}`);
          }
          for (let value = chunkStart; value < chunkStart + chunkSize && remaining > 0; value += 1) {
            // The network and broadcast addresses are never assignable (except in /31 and /32).
            const edge = network.prefix < 31 && (value === network.start || value === network.start + network.size - 1);
            const address = numberToIpv4(value);
            if (edge || up.has(address)) continue;
            free.push(address);
            remaining -= 1;
          }
        }
        reply.push({ network: network.text, free_addresses: free });
      }
      return succeed('free-network-addresses', reply);
    });
  });
}

type Verification = NonNullable<VerifiedVip['verification']>;

export async function verifyVips(request: StepRequest, context: StepContext): Promise<StepResult> {
  return guarded(request, context, async () => {
    const vips = stepRequest('verify-vips', request).map((vip, index) => {
      if (!familyOf(vip.vip)) throw new StepArgumentError(`verify-vips entry ${index} has no valid "vip"`);
      return vip;
    });
    const verified: VerifiedVip[] = [];
    for (const vip of vips) {
      const args = [...(familyOf(vip.vip) === 6 ? ['-6'] : []), '-sn', '-n', '-oX', '-', vip.vip];
      const result = await run(context, 'nmap', args, { timeoutMs: 60_000 });
      if (result.missing) return toolMissing('nmap', 'verify-vips', 'check that nobody answers on the VIPs');
      let verification: Verification = 'unverified';
      if (result.exitCode === 0) {
        try {
          // A VIP is good when it is free: nobody may answer on it before the cluster claims it.
          verification = upHosts(parseNmapXml(result.stdout)).length > 0 ? 'failed' : 'succeeded';
        } catch {
          verification = 'unverified';
        }
      } else {
        context.log.warn('nmap failed verifying a VIP', { vip: vip.vip, stderr: result.stderr.trim() });
      }
      verified.push({ ...vip, verification });
    }
    return succeed('verify-vips', verified);
  });
}
