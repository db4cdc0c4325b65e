/**
 * The machine network and the virtual IPs: machine-cidr-defined,
 * machine-cidr-equals-to-calculated-cidr, api-vips-defined/valid and ingress-vips-defined/valid,
 * with upstream's rules (internal/cluster/validator.go) and messages. Pure.
 */
import { failure, pending, success, type ValidationContext, type Verdict, type VipInput } from './cluster-validation-context.js';
import { calculateMachineNetworkCidr, normalizeCidr, verifyVipInMachineNetwork } from '../../network/machine-network.js';

/** After the machine network is set, a DHCP lease for the VIPs should arrive within this time. */
export const DHCP_LEASE_TIMEOUT_MS = 2 * 60_000;

export function machineCidrDefined(ctx: ValidationContext): Verdict {
  if (ctx.userManagedNetworking && !ctx.singleNode) return success('No Machine Network CIDR needed: User Managed Networking');
  if (ctx.machineNetworks.length > 0) return success('The Machine Network CIDR is defined.');
  if (!ctx.hasHostsWithInventories) return pending('Hosts have not been discovered yet');
  if (ctx.dhcp) return failure('The Machine Network CIDR is undefined; setting the Machine Network CIDR initiates the VIPs DHCP lease allocation.');
  if (ctx.singleNode) return failure('The Machine Network CIDR is undefined; Setting Machine Network CIDR is required for single node cluster');
  return failure('The Machine Network CIDR is undefined; the Machine Network CIDR can be defined by setting either the API or Ingress virtual IPs.');
}

/**
 * Problems as upstream words them when it gathers them in a Go multierror (its text, which this
 * validation's message is): a count line, then each problem on a tab-indented bullet line.
 */
function goMultiError(problems: readonly string[]): string {
  const count = problems.length === 1 ? '1 error occurred' : `${problems.length} errors occurred`;
  return `${count}:\n${problems.map((problem) => `\t* ${problem}`).join('\n')}\n\n`;
}

export function machineCidrEqualsToCalculatedCidr(ctx: ValidationContext): Verdict {
  if (ctx.userManagedNetworking) return success('The Cluster Machine CIDR is not required: User Managed Networking');
  // The VIPs of an external load balancer may be outside every host subnet: nothing to calculate.
  if (ctx.userManagedLoadBalancer) return success('Calculating machine network CIDR is not enabled: User Managed Load Balancer');
  if (ctx.apiVips.length === 0 && ctx.ingressVips.length === 0) {
    return pending('The Machine Network CIDR, API virtual IPs, or Ingress virtual IPs are undefined.');
  }
  if (!ctx.hasHostsWithInventories) return pending('Hosts have not been discovered yet');

  const problems: string[] = [];
  // Each VIP pair (one per IP family) belongs to the machine network at the same index.
  ctx.apiVips.forEach((apiVip, index) => {
    const ingressVip = ctx.ingressVips[index]?.ip;
    const calculated = calculateMachineNetworkCidr(ctx.hosts, apiVip.ip, ingressVip);
    if (!calculated) {
      problems.push(`No suitable matching CIDR found for VIP ${apiVip.ip || ingressVip}`);
      return;
    }
    const userCidr = ctx.machineNetworks[index];
    if (ctx.machineNetworks.length === 0 || userCidr === undefined) return;
    const normalized = normalizeCidr(userCidr);
    if (!normalized) problems.push(`failed to normalize user machine CIDR ${userCidr}`);
    else if (normalized !== calculated) problems.push(`The Cluster Machine CIDR ${userCidr} is different than the calculated CIDR ${calculated}.`);
  });
  if (problems.length > 0) return failure(goMultiError(problems));
  return success('The Cluster Machine CIDR is equivalent to the calculated CIDR.');
}

type VipKind = 'API' | 'Ingress';

const vipsOf = (ctx: ValidationContext, kind: VipKind): readonly VipInput[] => (kind === 'API' ? ctx.apiVips : ctx.ingressVips);

function dhcpLeaseTimedOut(ctx: ValidationContext): boolean {
  // Upstream compares with a zero time when the network was never set, which always counts as timed out.
  const updated = Date.parse(ctx.cluster.machine_network_cidr_updated_at ?? '');
  return Number.isNaN(updated) || ctx.now.getTime() - updated > DHCP_LEASE_TIMEOUT_MS;
}

function vipsDefined(ctx: ValidationContext, kind: VipKind): Verdict {
  if (ctx.userManagedNetworking) return success(`${kind} virtual IPs are not required: User Managed Networking`);
  if (ctx.singleNode) return success(`${kind} virtual IPs are not required: SNO`);
  if (vipsOf(ctx, kind).length > 0) return success(`${kind} virtual IPs are defined.`);
  if (ctx.dhcp) {
    if (machineCidrDefined(ctx).status !== 'success') return pending('The Machine Network CIDR is undefined');
    if (dhcpLeaseTimedOut(ctx)) return failure(`${kind} virtual IPs are undefined; IP allocation from the DHCP server timed out.`);
    return failure(
      `${kind} virtual IPs are undefined; after the Machine Network CIDR has been defined, ${kind} virtual IPs are received from a DHCP lease allocation task which may take up to 2 minutes.`,
    );
  }
  return failure(`${kind} virtual IPs are undefined and must be provided.`);
}

/** Cluster-managed load balancer: every VIP in the machine network of its index, not broadcast, free. */
function vipsValidClusterManaged(ctx: ValidationContext, kind: VipKind): Verdict {
  const vips = vipsOf(ctx, kind);
  const name = `${kind.toLowerCase()} vips`;
  let failed = false;
  const reasons: string[] = [];
  vips.forEach((vip, index) => {
    const { check, reason } = verifyVipInMachineNetwork(ctx.hosts, ctx.machineNetworks[index] ?? '', vip.ip, name, vip.verification, true);
    failed ||= check !== 'succeeded';
    if (reason) reasons.push(reason);
  });
  if (failed) return failure(reasons.join(';'));
  return success(`${name} ${vips.map((vip) => vip.ip).join(', ')} belongs to the Machine CIDR and is not in use.`);
}

/**
 * User-managed load balancer: only the first VIP is checked, and only for being inside one of the
 * machine networks; whether it is free is the load balancer's business.
 */
function vipsValidUserManaged(ctx: ValidationContext, kind: VipKind): Verdict {
  const vip = vipsOf(ctx, kind)[0]!;
  const name = `${kind.toLowerCase()} vip`;
  if (ctx.machineNetworks.length === 0) return failure(`no machine networks to verify VIP: ${vip.ip} with`);
  const reasons: string[] = [];
  for (const network of ctx.machineNetworks) {
    const { check, reason } = verifyVipInMachineNetwork(ctx.hosts, network, vip.ip, name, vip.verification, false);
    if (check === 'succeeded') return success(`${name} ${vip.ip} is valid`);
    if (reason) reasons.push(`machine network CIDR <${network}> verification failed: ${reason}`);
  }
  return failure(`${name} '${vip.ip}' failed verification: none of the machine networks is satisfying the requirements, description: ${reasons.join('; ')}`);
}

function vipsValid(ctx: ValidationContext, kind: VipKind): Verdict {
  if (ctx.userManagedNetworking) return success(`${kind} virtual IPs are not required: User Managed Networking`);
  if (ctx.singleNode) return success(`${kind} virtual IPs are not required: SNO`);
  if (vipsOf(ctx, kind).length === 0) return pending(`${kind} virtual IPs are undefined.`);
  if (!ctx.hasHostsWithInventories || machineCidrDefined(ctx).status !== 'success') return pending('Hosts have not been discovered yet');
  return ctx.userManagedLoadBalancer ? vipsValidUserManaged(ctx, kind) : vipsValidClusterManaged(ctx, kind);
}

export const apiVipsDefined = (ctx: ValidationContext): Verdict => vipsDefined(ctx, 'API');
export const ingressVipsDefined = (ctx: ValidationContext): Verdict => vipsDefined(ctx, 'Ingress');
export const apiVipsValid = (ctx: ValidationContext): Verdict => vipsValid(ctx, 'API');
export const ingressVipsValid = (ctx: ValidationContext): Verdict => vipsValid(ctx, 'Ingress');
