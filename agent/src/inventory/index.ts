/**
 * The host inventory in upstream's `Inventory` shape. Each part is collected on its own: a part
 * that fails is left out with a warning, and the rest is still reported.
 */
import type { AgentLog } from '../contracts.js';
import type { CommandRunner } from '../exec.js';
import { collectCpu, collectMemory } from './cpu-memory.js';
import { collectDisks } from './disks.js';
import { collectGpus } from './gpus.js';
import { collectInterfaces, collectRoutes, readLinks } from './interfaces.js';
import { InventoryProbe } from './probe.js';
import { collectBmc, collectBoot, collectHostname, collectSystemVendor, collectTpmVersion } from './system.js';
import type { Inventory } from '../../../contracts/step-replies.js';

export interface CollectInventoryOptions {
  readonly exec: CommandRunner;
  readonly log: AgentLog;
  /** upstream's `--gpu-config-file`: which PCI devices count as GPUs. */
  readonly gpuConfigFile?: string;
  /** Prefix for /proc, /sys, /dev and /etc, so a fake tree can stand in for the host. Default "/". */
  readonly root?: string;
}

/**
 * Never throws. There is deliberately no `timestamp`: upstream dropped it (the service takes the
 * host's clock from `?timestamp=` on each poll) and an unchanged inventory must serialise the same
 * so identical replies can be suppressed.
 */
export async function collectInventory(options: CollectInventoryOptions): Promise<Inventory> {
  const probe = new InventoryProbe(options.exec, options.log, options.root ?? '/');
  const part = async <T>(name: string, collect: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await collect();
    } catch (error) {
      probe.warnOnce(`part:${name}`, `inventory part "${name}" could not be collected and is left out`, {
        error: error instanceof Error ? error.message : String(error),
      });
      return undefined;
    }
  };
  const links = (await part('interfaces', () => readLinks(probe))) ?? [];
  const [interfaces, routes, cpu, memory, disks, boot, systemVendor, bmc, tpmVersion, gpus] = await Promise.all([
    part('interfaces', () => collectInterfaces(probe, links)),
    part('routes', () => collectRoutes(probe)),
    part('cpu', () => collectCpu(probe)),
    part('memory', () => collectMemory(probe)),
    part('disks', () => collectDisks(probe)),
    part('boot', () => collectBoot(probe)),
    part('system_vendor', () => collectSystemVendor(probe)),
    part('bmc', () => collectBmc(probe)),
    part('tpm_version', () => collectTpmVersion(probe)),
    part('gpus', () => collectGpus(probe, options.gpuConfigFile)),
  ]);
  const hostname = await part('hostname', () => collectHostname(probe, interfaces ?? []));
  // Parts that could not be collected are left out rather than sent as null.
  const inventory: Inventory = {
    ...(bmc ?? { bmc_address: '0.0.0.0', bmc_v6address: '::/0' }),
    ...(boot !== undefined ? { boot } : {}),
    ...(cpu !== undefined ? { cpu } : {}),
    disks: disks ?? [],
    gpus: gpus ?? [],
    ...(hostname !== undefined ? { hostname } : {}),
    interfaces: interfaces ?? [],
    ...(memory !== undefined ? { memory } : {}),
    routes: routes ?? [],
    ...(systemVendor !== undefined ? { system_vendor: systemVendor } : {}),
    ...(tpmVersion !== undefined ? { tpm_version: tpmVersion } : {}),
  };
  return inventory;
}

export { InventoryProbe } from './probe.js';
