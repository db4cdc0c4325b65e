/**
 * DNS host validations (upstream internal/host/validator.go): the cluster's API, internal API and
 * ingress names, the release registry, and the absence of a wildcard record under the cluster
 * domain, each judged from the host's domain-resolution reply. With cluster-managed networking
 * (and a single node serving its own names) the cluster provides these names, so they pass. Pure.
 */
import {
  error,
  failure,
  interfaceIps,
  notApplicable,
  parseIp,
  pending,
  readStoredJson,
  success,
  type Check,
  type DomainResolution,
  type Outcome,
  type ValidationContext,
} from './host-validations-model.js';
import type { HostValidationId } from '../../core/validation-ids.js';

const domainName = (ctx: ValidationContext, sub: string) => `${sub}.${ctx.cluster!.name}.${ctx.cluster!.baseDnsDomain}`;

/** The first resolution of a name that returned anything. */
function resolution(ctx: ValidationContext, name: string): DomainResolution | undefined | null {
  const response = readStoredJson<{ resolutions?: DomainResolution[] }>(ctx.attributes, 'domain_name_resolutions');
  if (!response) return response;
  return (response.resolutions ?? []).find(
    (r) => r.domain_name === name && ((r.ipv4_addresses ?? []).length > 0 || (r.ipv6_addresses ?? []).length > 0 || (r.cnames ?? []).length > 0),
  );
}

/** Whether the cluster's DNS is the user's job; an imported cluster tells it by its ignition. */
function userProvidesDns(ctx: ValidationContext, printable: string): { validate: true } | { validate: false; outcome: Outcome } {
  const cluster = ctx.cluster!;
  const skip = (outcome: Outcome) => ({ validate: false as const, outcome });
  const notRequired = success(`Domain name resolution for the ${printable} domain was successful or not required`);
  let managed = !cluster.userManagedNetworking;
  if (cluster.imported) {
    // The host's own ignition first, then the others'.
    const ignitions = [ctx.self, ...ctx.clusterHosts.filter((peer) => peer.id !== ctx.self.id)]
      .map((peer) => readStoredJson<{ is_success?: boolean; ignition?: string }>(peer.host.attributes, 'api_vip_connectivity'))
      .filter((response) => response?.is_success);
    if (ignitions.length === 0)
      return skip(pending(`DNS validation for the ${printable} domain cannot be completed at the moment. This could be due to other validations`));
    // coredns/keepalived static pods in the worker ignition mean the cluster serves its own DNS.
    managed = /\/etc\/kubernetes\/manifests\/(coredns|keepalived)\.yaml/.test(ignitions[0]!.ignition ?? '');
  }
  if (managed) return skip(notRequired);
  if (!cluster.day2 && cluster.singleNode && ctx.config.enableSingleNodeDnsmasq) return skip(notRequired);
  return { validate: true };
}

function checkResolution(ctx: ValidationContext, name: string, printable: string, target: string, mustNotBeHostIp: boolean): Outcome {
  const found = resolution(ctx, name);
  if (found === null) return error('Error while evaluating DNS resolution on this host');
  if (!ctx.attributes.domain_name_resolutions) return pending(`The host has not yet reported the DNS resolution of ${printable}`);
  if (!found) {
    return failure(
      `Couldn't resolve domain name ${printable} on the host. To continue installation, create the necessary DNS entries to resolve this domain name to your cluster's ${target} IP address`,
    );
  }
  if (mustNotBeHostIp) {
    const own = new Set((ctx.inventory?.interfaces ?? []).flatMap((nic) => [...interfaceIps(nic, 4), ...interfaceIps(nic, 6)]).map((ip) => ip.text));
    const hit = [...(found.ipv4_addresses ?? []), ...(found.ipv6_addresses ?? [])].find((address) => own.has(parseIp(address)?.text ?? address));
    if (hit) {
      return failure(
        `Domain ${printable} must not point at ${hit} as it is the API address of this host. This domain must instead point at the IP address of a load balancer when using user managed networking in a multi control-plane node cluster`,
      );
    }
  }
  return success(`Domain name resolution for the ${printable} domain was successful or not required`);
}

/**
 * `hostIpForbidden`: the API names must reach every control-plane node, so in a multi-node cluster
 * they must point at a load balancer, never at one host's own address.
 */
function clusterDomainCheck(sub: string, printableSub: string, target: string, hostIpForbidden: boolean): Check {
  return (ctx) => {
    const cluster = ctx.cluster;
    if (!cluster) return notApplicable();
    const name = domainName(ctx, sub);
    const printable = cluster.baseDnsDomain === '' ? target : domainName(ctx, printableSub);
    const decision = userProvidesDns(ctx, printable);
    if (!decision.validate) return decision.outcome;
    if (cluster.baseDnsDomain === '') {
      return error(
        `DNS validation for the ${target} domain cannot be completed because the cluster does not have base_dns_domain set. Please update the cluster with the correct base_dns_domain`,
      );
    }
    return checkResolution(ctx, name, printable, target, hostIpForbidden && !cluster.singleNode);
  };
}

const WILDCARD_PROBE = 'validateNoWildcardDNS';

/** A wildcard record under the cluster domain would capture names the installation must resolve itself. */
const dnsWildcardNotConfigured: Check = (ctx) => {
  const cluster = ctx.cluster;
  if (!cluster) return notApplicable();
  if (ctx.day2Host) return success('DNS wildcard check is not required for day2');
  const response = readStoredJson<{ resolutions?: DomainResolution[] }>(ctx.attributes, 'domain_name_resolutions');
  if (response === undefined) return pending('DNS wildcard check cannot be performed yet because the host has not yet performed DNS resolution');
  if (response === null) return error('Error while parsing DNS resolution response');
  const probes: [string, string][] = [
    [
      `${domainName(ctx, WILDCARD_PROBE)}.`,
      `DNS wildcard configuration was detected for domain *.${cluster.name}.${cluster.baseDnsDomain} - the installation will not be able to complete while this record exists. Please remove it to proceed. The domain resolves to `,
    ],
    [
      domainName(ctx, WILDCARD_PROBE),
      `Unexpected domain name resolution was detected for the relative domain name with the sub-domain *.${cluster.name}.${cluster.baseDnsDomain} despite the fact that no resolution exists for a Fully Qualified Domain Name (FQDN) with same sub-domain. This is usually a sign of DHCP-provided domain-search configuration. The installation will not be able to complete with this configuration in place. Please remove it to proceed. The relative domain name resolves to `,
    ],
  ];
  for (const [name, message] of probes) {
    const entry = (response.resolutions ?? []).find((r) => r.domain_name === name);
    // The service always asks the agent to resolve both probe names: a resolution without one is
    // an error, as upstream judges it.
    if (!entry) return error("Internal error - DNS wildcard check cannot be performed because the DNS validation result doesn't contain the wildcard domain");
    const answers = [...(entry.ipv4_addresses ?? []), ...(entry.ipv6_addresses ?? []), ...(entry.cnames ?? [])];
    if (answers.length > 0) return failure(message + answers.join(', '));
  }
  return success('DNS wildcard check was successful');
};

export const DNS_CHECKS: Readonly<Partial<Record<HostValidationId, Check>>> = {
  'api-domain-name-resolved-correctly': clusterDomainCheck('api', 'api', 'API load balancer', true),
  'api-int-domain-name-resolved-correctly': clusterDomainCheck('api-int', 'api-int', 'internal API load balancer', true),
  'apps-domain-name-resolved-correctly': clusterDomainCheck('console-openshift-console.apps', '*.apps', 'application ingress', false),
  'dns-wildcard-not-configured': dnsWildcardNotConfigured,
};
