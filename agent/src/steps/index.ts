/** The probe steps the runtime dispatches by `step_type`. */
import type { StepContext, StepRequest, StepResult, StepRunner } from '../contracts.js';
import { collectInventory } from '../inventory/index.js';
import { connectivityCheck } from './connectivity-check.js';
import { containerImageAvailability } from './container-images.js';
import { dhcpLeaseAllocate } from './dhcp-lease.js';
import { installationDiskSpeedCheck } from './disk-speed.js';
import { systemResolver, type DnsResolver } from './dns.js';
import { apiVipConnectivityCheck, tangConnectivityCheck } from './http-steps.js';
import { domainResolution, ntpSynchronizer } from './name-steps.js';
import { freeNetworkAddresses, verifyVips } from './nmap-steps.js';
import { guarded, stepRequest, succeed } from './support.js';

export interface ProbeStepOptions {
  /** upstream's inventory `--gpu-config-file`. */
  readonly gpuConfigFile?: string;
  /** Where /proc, /sys, /dev and /etc are read from (tests). Default "/". */
  readonly root?: string;
  /** DNS for domain-resolution and NTP names. Default: the host's resolver from /etc/resolv.conf. */
  readonly resolver?: () => DnsResolver;
}

function inventoryStep(options: ProbeStepOptions): StepRunner {
  return (request: StepRequest, context: StepContext): Promise<StepResult> =>
    guarded(request, context, async () => {
      stepRequest('inventory', request);
      return succeed('inventory', await collectInventory({ exec: context.exec, log: context.log, gpuConfigFile: options.gpuConfigFile, root: options.root }));
    });
}

export function createProbeSteps(options: ProbeStepOptions = {}): Record<string, StepRunner> {
  const resolver = options.resolver ?? systemResolver;
  return {
    inventory: inventoryStep(options),
    'connectivity-check': connectivityCheck,
    'free-network-addresses': freeNetworkAddresses,
    'ntp-synchronizer': ntpSynchronizer(resolver),
    'domain-resolution': domainResolution(resolver),
    'installation-disk-speed-check': installationDiskSpeedCheck,
    'container-image-availability': containerImageAvailability,
    'tang-connectivity-check': tangConnectivityCheck,
    'api-vip-connectivity-check': apiVipConnectivityCheck,
    'verify-vips': verifyVips,
    'dhcp-lease-allocate': dhcpLeaseAllocate,
  };
}

export const probeSteps: Record<string, StepRunner> = createProbeSteps();

export { collectInventory } from '../inventory/index.js';
export type { DnsResolver } from './dns.js';
export { resolverFor } from './dns.js';
