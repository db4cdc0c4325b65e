/** The DNS questions the steps ask, behind an interface so tests can point them at a loopback server. */
import { promises as dnsPromises } from 'node:dns';

export interface DnsResolver {
  resolve4(name: string): Promise<string[]>;
  resolve6(name: string): Promise<string[]>;
  resolveCname(name: string): Promise<string[]>;
  reverse(address: string): Promise<string[]>;
}

/** The host's resolver as configured in /etc/resolv.conf (c-ares reads it), with bounded retries. */
export function systemResolver(): DnsResolver {
  return new dnsPromises.Resolver({ timeout: 3_000, tries: 2 });
}

/** A resolver for explicit servers ("127.0.0.1:5353"). */
export function resolverFor(servers: readonly string[]): DnsResolver {
  const resolver = new dnsPromises.Resolver({ timeout: 2_000, tries: 1 });
  resolver.setServers([...servers]);
  return resolver;
}

/** Codes that mean "no such name / no such record": an answer, not a failure. */
export const NO_ANSWER_CODES = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN', 'ENONAME']);
