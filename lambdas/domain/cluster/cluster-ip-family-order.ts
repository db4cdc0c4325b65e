/**
 * A new dual-stack cluster lists the same IP family first everywhere (upstream's primary IP stack):
 * the first machine network, API VIP, ingress VIP, service network and cluster network, in that
 * order, are all IPv4 or all IPv6. Single-stack clusters are not checked. Pure.
 */
import { isJsonObject } from '../../../contracts/json-shapes.js';

const familyOf = (address: string): 4 | 6 | undefined => {
  const ip = address.split('/')[0] ?? '';
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(ip)) return 4;
  if (ip.includes(':')) return 6;
  return undefined;
};

const firstOf = (list: unknown, field: 'cidr' | 'ip'): string | undefined => {
  const first = Array.isArray(list) ? list[0] : undefined;
  return isJsonObject(first) && typeof first[field] === 'string' && first[field] !== '' ? first[field] : undefined;
};

const familiesIn = (list: unknown): Set<4 | 6> =>
  new Set(
    (Array.isArray(list) ? list : [])
      .map((item) => (isJsonObject(item) && typeof item.cidr === 'string' ? familyOf(item.cidr) : undefined))
      .filter((f): f is 4 | 6 => !!f),
  );

export function ipFamilyOrderProblem(params: Readonly<Record<string, unknown>>): string | undefined {
  const dualStack = [params.machine_networks, params.service_networks, params.cluster_networks].some((list) => familiesIn(list).size === 2);
  if (!dualStack) return undefined;
  const firsts: [string, string | undefined][] = [
    ['machine_networks', firstOf(params.machine_networks, 'cidr')],
    ['api_vips', firstOf(params.api_vips, 'ip')],
    ['ingress_vips', firstOf(params.ingress_vips, 'ip')],
    ['service_networks', firstOf(params.service_networks, 'cidr')],
    ['cluster_networks', firstOf(params.cluster_networks, 'cidr')],
  ];
  let primary: { name: string; address: string; family: 4 | 6 } | undefined;
  for (const [name, address] of firsts) {
    const family = address ? familyOf(address) : undefined;
    if (!address || !family) continue;
    if (!primary) primary = { name, address, family };
    else if (family !== primary.family) {
      return `Inconsistent IP family order: ${primary.name} first IP is ${primary.address} but ${name} first IP is ${address}. All networks must have the same IP family first`;
    }
  }
  return undefined;
}
