/**
 * Upstream's stage vocabulary, read from stages.json so the lists live in one place that tests (and the
 * service side, if it wants) can compare with assisted-service's expectations.
 */
import stageData from './stages.json' with { type: 'json' };

export const HOST_STAGES = stageData.hostStages;

export type HostStage =
  | 'Starting installation'
  | 'Waiting for control plane'
  | 'Waiting for bootkube'
  | 'Waiting for controller'
  | 'Installing'
  | 'Writing image to disk'
  | 'Copying registry data to disk'
  | 'Rebooting'
  | 'Waiting for ignition'
  | 'Configuring'
  | 'Joined'
  | 'Done'
  | 'Failed';

export type FinalizingStage =
  | 'Waiting for cluster operators'
  | 'Adding router ca'
  | 'Waiting for olm operators csv initialization'
  | 'Applying olm manifests'
  | 'Waiting for olm operators csv'
  | 'Waiting for OLM operator setup jobs'
  | 'Done';

/**
 * How a host installs, which is not always its API role: an SNO host arrives with role `bootstrap` (or
 * master) and control_plane_count 1, and an arbiter installs like a master.
 */
export type InstallFlow = 'bootstrap' | 'master' | 'worker' | 'sno';

export const INSTALL_FLOWS: readonly InstallFlow[] = ['bootstrap', 'master', 'worker', 'sno'];

export function isHostStage(value: unknown): value is HostStage {
  return typeof value === 'string' && (HOST_STAGES as readonly string[]).includes(value);
}

function asStages(list: readonly string[]): readonly HostStage[] {
  for (const stage of list) if (!isHostStage(stage)) throw new Error(`stages.json: unknown host stage "${stage}"`);
  return list as readonly HostStage[];
}

/** Stages the on-host installer itself reports for a flow, in order (Failed aside). */
export function installerStages(flow: InstallFlow): readonly HostStage[] {
  return asStages(stageData.roles[flow].installer);
}

/** Stages the in-cluster controller reports for a host of this flow after it rebooted, in order. */
export function controllerStages(flow: InstallFlow): readonly HostStage[] {
  return asStages(stageData.roles[flow].controller);
}

/** The whole sequence assisted-service expects for a flow. */
export function expectedStages(flow: InstallFlow): readonly HostStage[] {
  return [...installerStages(flow), ...controllerStages(flow)];
}

export const FINALIZING_STAGES = stageData.finalizingStages as readonly FinalizingStage[];

export function installFlow(role: string, controlPlaneCount: number | undefined): InstallFlow {
  if (controlPlaneCount === 1 && (role === 'bootstrap' || role === 'master')) return 'sno';
  if (role === 'bootstrap') return 'bootstrap';
  if (role === 'worker') return 'worker';
  return 'master';
}

/**
 * The flow of a host as the service lists it in a cluster (`role` plus the `bootstrap` flag), used by
 * the controller and by waits that look at other hosts.
 */
export function hostFlow(host: { role?: string; bootstrap?: boolean }, controlPlaneCount: number | undefined): InstallFlow {
  const role = host.bootstrap === true ? 'bootstrap' : (host.role ?? 'master');
  return installFlow(role, controlPlaneCount);
}
