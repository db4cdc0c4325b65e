/** Steps that ask DNS and chrony: domain-resolution and ntp-synchronizer. */
import { isIP } from 'node:net';
import type { StepContext, StepRequest, StepResult } from '../contracts.js';
import { NO_ANSWER_CODES, type DnsResolver } from './dns.js';
import { parseChronycSources } from './parsers/chronyc.js';
import { fail, guarded, run, stepRequest, succeed, toolMissing } from './support.js';

async function answers(lookup: Promise<string[]>): Promise<string[]> {
  try {
    return await lookup;
  } catch (error) {
    if (NO_ANSWER_CODES.has((error as NodeJS.ErrnoException).code ?? '')) return [];
    throw error;
  }
}

export function domainResolution(resolver: () => DnsResolver) {
  return (request: StepRequest, context: StepContext): Promise<StepResult> =>
    guarded(request, context, async () => {
      const domains = stepRequest('domain-resolution', request).domains.map((entry) => entry.domain_name);
      const dns = resolver();
      const failures: string[] = [];
      const resolutions = await Promise.all(
        domains.map(async (domain) => {
          const ask = async (lookup: () => Promise<string[]>, kind: string) => {
            try {
              return await answers(lookup());
            } catch (error) {
              failures.push(`${kind} lookup of ${domain} failed: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
              return [];
            }
          };
          const [ipv4, ipv6, cnames] = await Promise.all([
            ask(() => dns.resolve4(domain), 'A'),
            ask(() => dns.resolve6(domain), 'AAAA'),
            ask(() => dns.resolveCname(domain), 'CNAME'),
          ]);
          return { domain_name: domain, ipv4_addresses: ipv4, ipv6_addresses: ipv6, cnames };
        }),
      );
      // Unreachable resolvers leave names unresolved, which the service reads as "does not resolve";
      // the log says why so a person can tell the two apart.
      if (failures.length > 0) context.log.warn('some DNS lookups failed', { failures: failures.slice(0, 10) });
      return succeed('domain-resolution', { resolutions });
    });
}

const CHRONYC_TIMEOUT_MS = 30_000;

export function ntpSynchronizer(resolver: () => DnsResolver) {
  return (request: StepRequest, context: StepContext): Promise<StepResult> =>
    guarded(request, context, async () => {
      // An empty ntp_source (a cluster with no sources of its own) only lists the host's, as upstream's agent does.
      const sources = stepRequest('ntp-synchronizer', request)
        .ntp_source.split(',')
        .map((source) => source.trim())
        .filter(Boolean);

      const listSources = () => run(context, 'chronyc', ['-n', 'sources'], { timeoutMs: CHRONYC_TIMEOUT_MS });
      const first = await listSources();
      if (first.missing) return toolMissing('chronyc', 'ntp-synchronizer', 'configure and read NTP sources');
      if (first.exitCode !== 0) return fail(`chronyc sources failed: ${first.stderr.trim() || first.stdout.trim() || `exit code ${first.exitCode}`}`);
      const configured = new Set(parseChronycSources(first.stdout).map((source) => source.address));
      const dns = resolver();

      for (const source of sources) {
        const addresses = isIP(source) ? [source] : [...(await answerOrEmpty(dns.resolve4(source))), ...(await answerOrEmpty(dns.resolve6(source)))];
        if (addresses.some((address) => configured.has(address))) continue;
        const added = await run(context, 'chronyc', ['add', 'server', source, 'iburst'], { timeoutMs: CHRONYC_TIMEOUT_MS });
        // 511 "Source already present" is a success for our purpose.
        if (added.exitCode !== 0 && !/already present/i.test(added.stdout + added.stderr)) {
          context.log.warn('chronyc could not add an NTP source', { source, output: (added.stdout + added.stderr).trim() });
        }
      }

      const final = await listSources();
      if (final.exitCode !== 0) return fail(`chronyc sources failed: ${final.stderr.trim() || `exit code ${final.exitCode}`}`);
      const ntpSources = await Promise.all(
        parseChronycSources(final.stdout).map(async (source) => {
          const names = isIP(source.address) ? await answerOrEmpty(dns.reverse(source.address)) : [];
          return { source_name: names[0]?.replace(/\.$/, '') ?? source.address, source_state: source.state };
        }),
      );
      return succeed('ntp-synchronizer', { ntp_sources: ntpSources });
    });
}

async function answerOrEmpty(lookup: Promise<string[]>): Promise<string[]> {
  try {
    return await lookup;
  } catch {
    return [];
  }
}
