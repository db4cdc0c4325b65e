/**
 * The on-host installer (upstream assisted-installer's InstallNode), run in-process by the agent's
 * `install` step. Upstream starts a separate `assisted-installer` container with podman; our agent is a
 * single Node program, so the same sequence runs here, and what touches the machine goes through an
 * InstallerHost: the real one (coreos-installer, systemctl, oc), the dry-run one (writes to a file)
 * or the simulated one (no machine at all). Stage reports, ignition downloads, progress percentages
 * and waits on other hosts are the same code for all three.
 */
import type { AgentLog, ApiTransport } from '../contracts.js';
import { isAddHostsInstall, isControlPlane, readCluster, stageOf, waitFor, type ClusterView } from './cluster-view.js';
import { WriteProgressTracker } from './progress.js';
import type { ValidatedInstallRequest } from './request.js';
import { installFlow, type HostStage, type InstallFlow } from './stages.js';
import { setTimeout as sleep } from 'node:timers/promises';

/** Everything that waits on other hosts or on the new cluster gets these. */
export interface WaitContext {
  readonly api: ApiTransport;
  readonly clusterId: string;
  readonly hostId: string;
  readonly pollMs: number;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
  readonly log: AgentLog;
}

export interface WriteImageInput {
  readonly ignitionPath: string;
  readonly device: string;
  readonly installerArgs: readonly string[];
  /** Raw coreos-installer output as it arrives; progress lines are picked out of it. */
  readonly onOutput: (chunk: string) => void;
  readonly signal: AbortSignal;
}

/** The machine the installer works on. Methods throw an Error whose message can be shown to a person. */
export interface InstallerHost {
  readonly mode: 'real' | 'dry-run' | 'simulated';
  formatDisk(disk: string): Promise<void>;
  resolveBootDevice(device: string): Promise<string>;
  cleanupInstallDevice(device: string): Promise<void>;
  /** Keeps a downloaded ignition (it holds the pull secret: never logged) and returns its path. */
  saveIgnition(fileName: string, content: Uint8Array): Promise<string>;
  /** One coreos-installer run; the runner retries. */
  writeImage(input: WriteImageInput): Promise<void>;
  /** Bootstrap control plane: lay down bootstrap.ign and start bootkube and friends. */
  startBootstrap(bootstrapIgnitionPath: string, flow: InstallFlow): Promise<void>;
  waitForMasterNodes(context: WaitContext): Promise<void>;
  waitForBootkube(context: WaitContext): Promise<void>;
  waitForEtcdBootstrap(context: WaitContext): Promise<void>;
  waitForController(context: WaitContext): Promise<void>;
  /** SNO: the ignition to write, produced by bootkube from the host's own bootstrap run. */
  singleNodeIgnition(hostIgnitionPath: string): Promise<string>;
  /** Best effort, as upstream: errors are logged, not fatal. */
  setBootOrder(device: string): Promise<void>;
  reboot(when: 'now' | '+1'): Promise<void>;
}

export interface RunInstallerOptions {
  readonly request: ValidatedInstallRequest;
  readonly api: ApiTransport;
  readonly log: AgentLog;
  readonly signal: AbortSignal;
  readonly host: InstallerHost;
  /** Poll interval of waits on the service and the cluster (upstream: 5 s). */
  readonly pollMs?: number;
  /** Bound of every wait (the service fails a stage after 60 min anyway). */
  readonly waitTimeoutMs?: number;
  /** coreos-installer attempts and the pause between them (upstream: 3, 1 s). */
  readonly writeAttempts?: number;
  readonly writeRetryPauseMs?: number;
  /**
   * Called each time a new stage has been reported. The simulation paces itself, fails or gets stuck
   * here; throwing fails the installation with the error's message.
   */
  readonly onStage?: (stage: HostStage) => Promise<void>;
}

export interface InstallOutcome {
  readonly ok: boolean;
  readonly flow: InstallFlow;
  /** Why it failed; also sent as the Failed stage's progress_info. */
  readonly error?: string;
}

const MIN_READY_MASTERS = 2;
const WAITING_FOR_BOOTSTRAP_TO_PREPARE = 'Waiting for bootstrap node preparation';
const WAITING_FOR_MASTERS = 'Waiting for masters to join bootstrap control plane';

export async function runInstaller(options: RunInstallerOptions): Promise<InstallOutcome> {
  const { request, api, log, host, signal } = options;
  const flow = installFlow(request.role, request.control_plane_count);
  const pollMs = options.pollMs ?? 5_000;
  const timeoutMs = options.waitTimeoutMs ?? 60 * 60_000;
  const waitContext: WaitContext = { api, clusterId: request.cluster_id, hostId: request.host_id, pollMs, timeoutMs, signal, log };
  const progressPath = `/v2/infra-envs/${request.infra_env_id}/hosts/${request.host_id}/progress`;
  let currentStage: HostStage | undefined;

  const sendProgress = async (stage: HostStage, info: string) => {
    log.info(`installation stage: ${stage}${info ? ` - ${info}` : ''}`, { mode: host.mode });
    try {
      const response = await api.call('PUT', progressPath, { json: { current_stage: stage, progress_info: info }, retry: 'installer', signal });
      await response.text().catch(() => '');
      if (response.status >= 300) log.error('the service refused the installation stage', { stage, status: response.status });
    } catch (error) {
      // Upstream only logs a failed progress update; the installation itself goes on.
      log.error('failed to report the installation stage', { stage, error: (error as Error).message });
    }
  };
  const report = async (stage: HostStage, info = '') => {
    await sendProgress(stage, info);
    if (stage !== currentStage) {
      currentStage = stage;
      await options.onStage?.(stage);
    }
  };

  const downloadIgnition = async (path: string, query: Record<string, string> | undefined, fileName: string, what: string) => {
    const response = await api.call('GET', path, { query, retry: 'installer', signal });
    if (response.status !== 200) {
      const body = await response.text().catch(() => '');
      throw new Error(`failed to download ${what}: HTTP ${response.status}${body ? ` ${body.slice(0, 200)}` : ''}`);
    }
    const content = await response.bytes();
    assertIgnition(content, what);
    return host.saveIgnition(fileName, content);
  };
  const downloadHostIgnition = () =>
    downloadIgnition(
      `/v2/infra-env/${request.infra_env_id}/hosts/${request.host_id}/downloads/ignition`,
      undefined,
      `${request.role === 'bootstrap' ? 'master' : request.role}-${request.host_id}.ign`,
      'host ignition',
    );
  const downloadBootstrapIgnition = () =>
    downloadIgnition(`/v2/clusters/${request.cluster_id}/downloads/files`, { file_name: 'bootstrap.ign' }, 'bootstrap.ign', 'bootstrap.ign');

  try {
    for (const disk of request.disks_to_format ?? []) {
      await host.formatDisk(disk).catch((error: Error) => log.warn(`failed to format disk ${disk}, continuing`, { error: error.message }));
    }
    log.info(`installing node with role ${request.role}`, { flow, mode: host.mode });
    await report('Starting installation', request.role);
    const device = await host.resolveBootDevice(request.boot_device);
    if (!request.skip_installation_disk_cleanup && !request.coreos_image) {
      try {
        await host.cleanupInstallDevice(device);
      } catch (error) {
        log.error(`failed to prepare install device ${device}`, { error: (error as Error).message });
        await sendProgress(
          'Starting installation',
          `Could not clean install device ${device}. The installation will continue. If the installation fails, clean the disk and try again`,
        );
      }
    }

    if (flow === 'bootstrap') await host.startBootstrap(await downloadBootstrapIgnition(), flow);
    await report('Installing', flow === 'bootstrap' ? 'master' : request.role);

    let ignitionPath: string;
    if (flow === 'sno') {
      log.info('installing single node openshift');
      await host.startBootstrap(await downloadBootstrapIgnition(), flow);
      await report('Waiting for bootkube');
      await host.waitForBootkube(waitContext);
      ignitionPath = await host.singleNodeIgnition(await downloadHostIgnition());
    } else {
      ignitionPath = await downloadHostIgnition();
    }

    await writeImageToDisk(options, report, sendProgress, ignitionPath, device);

    if (flow === 'worker') await waitForReadyMasters(waitContext, report);

    if (!request.coreos_image) {
      await host.setBootOrder(device).catch((error: Error) => log.warn('failed to set boot order', { error: error.message }));
    }

    if (flow === 'bootstrap') {
      await report('Waiting for control plane', WAITING_FOR_BOOTSTRAP_TO_PREPARE);
      await sendProgress('Waiting for control plane', WAITING_FOR_MASTERS);
      await host.waitForMasterNodes(waitContext);
      await report('Waiting for bootkube');
      await host.waitForBootkube(waitContext);
      await sendProgress('Waiting for bootkube', 'waiting for ETCD bootstrap to be complete');
      await host.waitForEtcdBootstrap(waitContext);
      await report('Waiting for controller', 'waiting for controller pod ready event');
      await host.waitForController(waitContext);
    }

    await report('Rebooting');
    await host.reboot(flow === 'sno' ? 'now' : '+1');
    return { ok: true, flow };
  } catch (error) {
    const reason = (error as Error).message || String(error);
    if (signal.aborted) {
      // Stopped from outside (step timeout, agent shutdown): like a killed installer, it reports nothing more.
      log.warn('installation stopped', { error: reason, stage: currentStage });
      return { ok: false, flow, error: reason };
    }
    log.error('installation failed', { error: reason, stage: currentStage });
    await sendProgress('Failed', reason);
    return { ok: false, flow, error: reason };
  }
}

async function writeImageToDisk(
  options: RunInstallerOptions,
  report: (stage: HostStage, info?: string) => Promise<void>,
  sendProgress: (stage: HostStage, info: string) => Promise<void>,
  ignitionPath: string,
  device: string,
): Promise<void> {
  const { host, log, signal, request } = options;
  await report('Writing image to disk');
  const attempts = options.writeAttempts ?? 3;
  let lastError: Error | undefined;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    // Reports are chained so they reach the service in order even when output arrives in bursts.
    let pending: Promise<void> = Promise.resolve();
    const tracker = new WriteProgressTracker((percent) => {
      pending = pending.then(() => sendProgress('Writing image to disk', `${percent}%`));
    });
    try {
      await host.writeImage({ ignitionPath, device, installerArgs: request.installerArgs, onOutput: (chunk) => tracker.push(chunk), signal });
      tracker.end();
      await pending;
      log.info('done writing image to disk');
      return;
    } catch (error) {
      tracker.end();
      await pending;
      lastError = error as Error;
      log.warn(`writing image to disk failed (attempt ${attempt} of ${attempts})`, { error: lastError.message });
      if (signal.aborted) break;
      if (attempt < attempts) await sleep(options.writeRetryPauseMs ?? 1_000);
    }
  }
  throw new Error(`failed to write image to disk: ${lastError?.message ?? 'stopped'}`);
}

/**
 * Workers reboot into a cluster that can serve them: wait until at least two control-plane hosts are
 * Done in the service (fewer when the cluster has fewer). Day-2 hosts join a running cluster and skip it.
 */
async function waitForReadyMasters(context: WaitContext, report: (stage: HostStage, info?: string) => Promise<void>): Promise<void> {
  context.log.info('waiting for 2 ready masters');
  await report('Waiting for control plane');
  let addHosts = false;
  await waitFor(
    async () => {
      const read = await readCluster(context.api, context.clusterId, 'installer', context.signal);
      if (!read.cluster) return false;
      if (isAddHostsInstall(read.cluster, context.hostId)) {
        addHosts = true;
        return true;
      }
      return enoughMastersDone(read.cluster);
    },
    { ...context, what: 'control plane hosts to be Done' },
  );
  if (addHosts) context.log.info('day-2 installation: not waiting for the control plane');
}

export function enoughMastersDone(cluster: ClusterView): boolean {
  const controlPlane = (cluster.hosts ?? []).filter(isControlPlane);
  const needed = Math.min(MIN_READY_MASTERS, Math.max(1, controlPlane.length));
  return controlPlane.filter((host) => stageOf(host) === 'Done').length >= needed;
}

/** An ignition the service served must at least be JSON with `ignition.version`, or coreos-installer will write a host that never boots right. */
export function assertIgnition(content: Uint8Array, what: string): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(content));
  } catch {
    throw new Error(`${what} is not valid JSON`);
  }
  const version = (parsed as { ignition?: { version?: unknown } } | null)?.ignition?.version;
  if (typeof version !== 'string' || version === '') throw new Error(`${what} has no ignition.version`);
}
