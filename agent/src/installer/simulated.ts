/**
 * SIMULATED installer host: no disk, no bootstrap services, no reboot. The installer code path is the
 * real one (stages, ignition downloads from the service, progress reporting, waits on other hosts);
 * only the machine is imaginary. Used by simulated agents and fleets, never selected implicitly.
 */
import type { AgentLog } from '../contracts.js';
import { sleep } from '../sleep.js';
import type { InstallerHost, WaitContext, WriteImageInput } from './runner.js';
import { waitForControllerViaService, waitForMastersViaService } from './service-waits.js';

/**
 * The simulated cluster's node list: hosts whose simulated reboot finished and that came up as nodes.
 * The simulated controller reads it the way the real one lists Kubernetes nodes; a host that never
 * boots (stuck in Rebooting) never appears. One registry per simulated cluster, shared in-process.
 */
export class SimulatedNodeRegistry {
  private readonly bootedAt = new Map<string, number>();

  /** The host will be up as a node `afterMs` from now. */
  booting(hostId: string, afterMs: number): void {
    this.bootedAt.set(hostId, Date.now() + afterMs);
  }

  isUp(hostId: string): boolean {
    const at = this.bootedAt.get(hostId);
    return at !== undefined && Date.now() >= at;
  }

  /** Forget a host (reset/reinstall). */
  remove(hostId: string): void {
    this.bootedAt.delete(hostId);
  }
}

export interface SimulatedHostOptions {
  /** Time the simulated coreos-installer takes from 0 to 100 %. */
  readonly writeImageMs: number;
  /** Fail every simulated coreos-installer run with this output line (failure-path tests). */
  readonly writeFailure?: string;
}

export class SimulatedHost implements InstallerHost {
  readonly mode = 'simulated' as const;
  private readonly ignitions = new Map<string, Uint8Array>();

  constructor(
    private readonly options: SimulatedHostOptions,
    private readonly log: AgentLog,
  ) {}

  async formatDisk(disk: string): Promise<void> {
    this.log.debug(`SIMULATED: formatting ${disk}`);
  }

  async resolveBootDevice(device: string): Promise<string> {
    return device;
  }

  async cleanupInstallDevice(device: string): Promise<void> {
    this.log.debug(`SIMULATED: cleaning ${device}`);
  }

  async saveIgnition(fileName: string, content: Uint8Array): Promise<string> {
    this.ignitions.set(fileName, content);
    return `simulated:${fileName}`;
  }

  /** Prints what coreos-installer prints, 1 % at a time, over `writeImageMs`. */
  async writeImage(input: WriteImageInput): Promise<void> {
    const total = 3.4 * 1024 ** 3;
    const tick = this.options.writeImageMs / 100;
    input.onOutput(`Installing Red Hat Enterprise Linux CoreOS (SIMULATED) to ${input.device}\n`);
    for (let percent = 0; percent <= 100; percent++) {
      if (input.signal.aborted) throw new Error('coreos-installer was stopped');
      if (this.options.writeFailure && percent === 37) {
        input.onOutput(`${this.options.writeFailure}\n`);
        throw new Error(`coreos-installer exited with code 1: ${this.options.writeFailure}`);
      }
      const done = (total * percent) / 100;
      input.onOutput(`Read disk ${(done / 1024 ** 2).toFixed(1)} MiB/${(total / 1024 ** 3).toFixed(1)} GiB (${percent}%)\n`);
      if (percent < 100) await sleep(tick, input.signal);
    }
    input.onOutput('Writing Ignition config\nInstall complete.\n');
  }

  async startBootstrap(bootstrapIgnitionPath: string): Promise<void> {
    this.log.debug(`SIMULATED: starting bootkube from ${bootstrapIgnitionPath}`);
  }

  waitForMasterNodes(context: WaitContext): Promise<void> {
    return waitForMastersViaService(context);
  }

  async waitForBootkube(): Promise<void> {}

  async waitForEtcdBootstrap(): Promise<void> {}

  waitForController(context: WaitContext): Promise<void> {
    return waitForControllerViaService(context);
  }

  async singleNodeIgnition(hostIgnitionPath: string): Promise<string> {
    return hostIgnitionPath;
  }

  async setBootOrder(): Promise<void> {}

  async reboot(when: 'now' | '+1'): Promise<void> {
    this.log.info(`SIMULATED: rebooting (${when})`);
  }
}
