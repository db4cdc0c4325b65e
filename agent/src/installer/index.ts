/**
 * The agent's `install` step and the installer behind it (upstream: the agent starts the
 * assisted-installer container with podman and waits for it; here the installer runs in-process, see
 * runner.ts). Three ways to run it, each chosen explicitly by whoever builds the step runner:
 * - `installStep`: the real one; writes the boot disk and reboots the machine.
 * - `createInstallStep({ dryRun })`: DRY RUN; the same code path writes to a file and leaves a reboot marker.
 * - `simulatedInstallStep(...)`: SIMULATED; no machine at all, for simulated agents and fleets.
 */
import { stat } from 'node:fs/promises';
import { EXIT_VALIDATION_ERROR, type StepContext, type StepResult, type StepRunner } from '../contracts.js';
import { AbortedError } from './cluster-view.js';
import { sleep } from '../sleep.js';
import { DryRunHost, type DryRunConfig } from './dry-run.js';
import { RealHost } from './real-host.js';
import { parseInstallCmdRequest, type ValidatedInstallRequest } from './request.js';
import { runInstaller, type InstallerHost, type InstallOutcome, type RunInstallerOptions } from './runner.js';
import { SimulatedHost, type SimulatedNodeRegistry } from './simulated.js';
import { installFlow, isHostStage, type HostStage, type InstallFlow } from './stages.js';

export { runInstaller, type InstallerHost, type InstallOutcome, type RunInstallerOptions, type WaitContext } from './runner.js';
export { parseInstallCmdRequest, type InstallCmdRequest, type ValidatedInstallRequest } from './request.js';
export { parseInstallerArgs, validateInstallerArgs, ALLOWED_INSTALLER_FLAGS } from './installer-args.js';
export { parseCoreosInstallerProgress, WriteProgressTracker } from './progress.js';
export {
  installerStages,
  controllerStages,
  expectedStages,
  installFlow,
  HOST_STAGES,
  FINALIZING_STAGES,
  type HostStage,
  type InstallFlow,
  type FinalizingStage,
} from './stages.js';
export { DryRunHost, DRY_INSTALLER_SOURCE, type DryRunConfig } from './dry-run.js';
export { SimulatedHost, SimulatedNodeRegistry } from './simulated.js';

export interface InstallStepOptions {
  /** DRY RUN: write the image to `dryRun.bootDevicePath` and leave a reboot marker instead of rebooting. */
  readonly dryRun?: DryRunConfig;
  /** Poll interval of waits on the service (default 5 s, as upstream). */
  readonly pollMs?: number;
  /** Bound of each wait (default 60 min, the service's own stage timeout). */
  readonly waitTimeoutMs?: number;
}

function outcomeToResult(outcome: InstallOutcome): StepResult {
  return outcome.ok ? { exit_code: 0, output: '' } : { exit_code: 1, error: outcome.error ?? 'installation failed' };
}

function parseRequest(args: readonly string[] | undefined, context: StepContext): { request: ValidatedInstallRequest } | { result: StepResult } {
  if (args?.length !== 1) return { result: { exit_code: EXIT_VALIDATION_ERROR, error: `install: expected exactly 1 argument, got ${args?.length ?? 0}` } };
  const parsed = parseInstallCmdRequest(args[0]);
  if (!parsed.ok) {
    context.log.error('invalid install request', { error: parsed.error });
    return { result: { exit_code: EXIT_VALIDATION_ERROR, error: parsed.error } };
  }
  if (parsed.request.host_id !== context.hostId) {
    context.log.warn('install request names another host id than this agent polls with', { requested: parsed.request.host_id, agent: context.hostId });
  }
  return { request: parsed.request };
}

/** Runs the installer for this step's request on `host`, with the step's API, log and stop signal. */
function installOn(
  context: StepContext,
  request: ValidatedInstallRequest,
  host: InstallerHost,
  settings: Omit<RunInstallerOptions, 'request' | 'api' | 'log' | 'signal' | 'host'>,
): Promise<InstallOutcome> {
  return runInstaller({ request, api: context.api, log: context.log, signal: context.signal, host, ...settings });
}

export function createInstallStep(options: InstallStepOptions = {}): StepRunner {
  return async (step, context) => {
    try {
      const parsed = parseRequest(step.args, context);
      if ('result' in parsed) return parsed.result;
      const { request } = parsed;
      let host: InstallerHost;
      if (options.dryRun) {
        context.log.warn(
          `DRY RUN installation: the image goes to the file ${options.dryRun.bootDevicePath}, the reboot to ${options.dryRun.rebootMarkerPath}`,
          {
            boot_device: request.boot_device,
          },
        );
        host = new DryRunHost(options.dryRun, context.log);
      } else {
        for (const disk of [request.boot_device, ...(request.disks_to_format ?? [])]) {
          const found = await stat(disk).then(
            () => true,
            () => false,
          );
          if (!found) return { exit_code: EXIT_VALIDATION_ERROR, error: `install: disk ${disk} was not found on the host` };
        }
        host = new RealHost(context.exec, context.log, request.mco_image);
      }
      const outcome = await installOn(context, request, host, { pollMs: options.pollMs, waitTimeoutMs: options.waitTimeoutMs });
      return outcomeToResult(outcome);
    } catch (error) {
      return { exit_code: 1, error: `install: ${(error as Error).message}` };
    }
  };
}

/** The real install step: writes the boot disk with coreos-installer and reboots. */
export const installStep: StepRunner = createInstallStep();

export interface SimulatedRebootEvent {
  readonly hostId: string;
  readonly infraEnvId: string;
  readonly clusterId: string;
  readonly flow: InstallFlow;
  /** False when the simulated host was told to get stuck in Rebooting: it went down and never comes back. */
  readonly comesBack: boolean;
}

export interface SimulatedInstallOptions {
  /**
   * Per-stage durations in ms (default 200). `Writing image to disk` is the 0→100 % write (default
   * 1000); `Rebooting` is how long until the host is up as a node (default 200).
   */
  readonly durationsMs?: Partial<Record<string, number>>;
  /** Report this stage, then fail: Failed with `failReason` (at `Writing image to disk`, coreos-installer fails). */
  readonly failAt?: string;
  readonly failReason?: string;
  /** Report this stage, then report nothing more until the step is stopped. At `Rebooting`: the host never comes back. */
  readonly stuckAt?: string;
  /** Waits on other hosts (worker: masters Done; bootstrap: masters joined, controller). Default 250 ms / 10 min. */
  readonly pollMs?: number;
  readonly waitTimeoutMs?: number;
  /** Where rebooted hosts come up as nodes, for the simulated controller (see controller/index.ts). */
  readonly nodes?: SimulatedNodeRegistry;
  /**
   * Called when the simulated host has rebooted, just before the step returns success. From here on the
   * host no longer runs the discovery agent (the live ISO is gone): the runtime must stop polling for
   * this host once it has posted this step's reply.
   */
  readonly onRebooted?: (event: SimulatedRebootEvent) => void;
}

const DEFAULT_STAGE_MS = 200;
const DEFAULT_WRITE_MS = 1_000;

/** SIMULATED `install` step: the real stage sequence and reporting, without a machine. */
export function simulatedInstallStep(options: SimulatedInstallOptions = {}): StepRunner {
  for (const [name, stage] of [
    ['failAt', options.failAt],
    ['stuckAt', options.stuckAt],
  ] as const) {
    if (stage !== undefined && !isHostStage(stage)) throw new Error(`simulatedInstallStep: ${name} "${stage}" is not a host stage`);
  }
  const durationOf = (stage: HostStage, fallback: number) => options.durationsMs?.[stage] ?? fallback;

  return async (step, context) => {
    try {
      const parsed = parseRequest(step.args, context);
      if ('result' in parsed) return parsed.result;
      const { request } = parsed;
      const flow = installFlow(request.role, request.control_plane_count);
      context.log.info('SIMULATED installation starting', { flow, role: request.role });
      let comesBack = true;
      const host = new SimulatedHost(
        {
          writeImageMs: durationOf('Writing image to disk', DEFAULT_WRITE_MS),
          writeFailure:
            options.failAt === 'Writing image to disk' ? (options.failReason ?? 'Error: writing to device: Input/output error (os error 5)') : undefined,
        },
        context.log,
      );
      const onStage = async (stage: HostStage) => {
        if (stage === options.stuckAt) {
          if (stage === 'Rebooting') {
            context.log.warn('SIMULATED host goes down in Rebooting and will not come back');
            comesBack = false;
            return;
          }
          context.log.warn(`SIMULATED host is stuck at ${stage} until the step is stopped`);
          await new Promise<void>((resolve) => {
            if (context.signal.aborted) resolve();
            else context.signal.addEventListener('abort', () => resolve(), { once: true });
          });
          throw new AbortedError(`stuck at ${stage}`);
        }
        if (stage === options.failAt && stage !== 'Writing image to disk') {
          context.log.warn(`SIMULATED failure at ${stage}`);
          throw new Error(options.failReason ?? `installation failed at stage ${stage}`);
        }
        if (stage === 'Writing image to disk' || stage === 'Rebooting') return;
        await sleep(durationOf(stage, DEFAULT_STAGE_MS), context.signal);
      };
      const outcome = await installOn(context, request, host, {
        pollMs: options.pollMs ?? 250,
        waitTimeoutMs: options.waitTimeoutMs ?? 10 * 60_000,
        writeRetryPauseMs: 100,
        onStage,
      });
      if (!outcome.ok) return outcomeToResult(outcome);
      if (comesBack) options.nodes?.booting(request.host_id, durationOf('Rebooting', DEFAULT_STAGE_MS));
      context.log.info('SIMULATED host rebooted; its discovery agent stops here', { comesBack });
      options.onRebooted?.({ hostId: request.host_id, infraEnvId: request.infra_env_id, clusterId: request.cluster_id, flow, comesBack });
      return outcomeToResult(outcome);
    } catch (error) {
      return { exit_code: 1, error: `install: ${(error as Error).message}` };
    }
  };
}
