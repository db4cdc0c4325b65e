/**
 * Bootstrap waits answered from the service's view of the other hosts, for hosts that have no
 * Kubernetes API to ask (dry-run and simulation). Upstream's own dry-run mode does the same with a
 * mocked Kubernetes client fed from the service's host list.
 */
import { isControlPlane, readCluster, stageOf, waitFor } from './cluster-view.js';
import type { WaitContext } from './runner.js';

/** A master that fetched its ignition from the bootstrap's machine-config server has joined. */
const JOINED_CONTROL_PLANE_STAGES = ['Configuring', 'Joined', 'Done'];
/** Only the in-cluster controller reports these, so seeing one means the controller runs. */
const CONTROLLER_REPORTED_STAGES = ['Joined', 'Done'];

export function waitForMastersViaService(context: WaitContext): Promise<void> {
  return waitFor(
    async () => {
      const read = await readCluster(context.api, context.clusterId, 'installer', context.signal);
      if (!read.cluster) return false;
      const others = (read.cluster.hosts ?? []).filter((host) => host.id !== context.hostId && isControlPlane(host));
      const needed = Math.min(2, others.length);
      return others.filter((host) => JOINED_CONTROL_PLANE_STAGES.includes(stageOf(host) ?? '')).length >= needed;
    },
    { ...context, what: 'masters to join the bootstrap control plane' },
  );
}

export function waitForControllerViaService(context: WaitContext): Promise<void> {
  return waitFor(
    async () => {
      const read = await readCluster(context.api, context.clusterId, 'installer', context.signal);
      return (read.cluster?.hosts ?? []).some((host) => CONTROLLER_REPORTED_STAGES.includes(stageOf(host) ?? ''));
    },
    { ...context, what: 'the assisted-installer controller to report' },
  );
}
