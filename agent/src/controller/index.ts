/**
 * SIMULATED assisted-installer-controller. Upstream's controller is a Job inside the new OpenShift
 * cluster: it watches Kubernetes nodes, approves CSRs, reads cluster operators and OLM CSVs, and
 * reports all of it to the service. There is no cluster here, so this one reports what a healthy
 * cluster would, through the same service calls in upstream's order:
 * - hosts that rebooted move through the stages the controller owns (Configuring, Joined, Done; workers
 *   first Waiting for ignition; SNO straight to Done), via PUT .../hosts/{id}/progress;
 * - once the cluster is `finalizing`: finalizing stages (PUT /v2/clusters/{id}/progress), monitored
 *   operators available (PUT /v2/clusters/{id}/monitored-operators), the router CA
 *   (POST .../uploads/ingress-cert, a freshly made real CA) and complete-installation;
 * - it exits when the cluster is installed, error, cancelled or adding-hosts, after 3 "errors" reading
 *   the cluster (404 counts 3, 401 counts 1, as upstream), on timeout or when stopped.
 * A real (non-simulated) controller is not part of this project: it runs in OpenShift, from the
 * controller image the install step names.
 */
import type { AgentLog, ApiTransport } from '../contracts.js';
import { readCluster, type ClusterHostView, type ClusterView } from '../installer/cluster-view.js';
import { sleep } from '../sleep.js';
import type { SimulatedNodeRegistry } from '../installer/simulated.js';
import { controllerStages, hostFlow, type FinalizingStage, type HostStage } from '../installer/stages.js';
import { createIngressCa } from './ingress-ca.js';

export interface SimulatedControllerOptions {
  readonly api: ApiTransport;
  readonly clusterId: string;
  readonly log: AgentLog;
  readonly signal: AbortSignal;
  /**
   * How long each host stage and each finalizing stage lasts before the next is reported, in ms,
   * keyed by stage name (default 200). `Rebooting` is the time from a host's Rebooting to its first
   * controller stage when no node registry is given.
   */
  readonly durationsMs?: Partial<Record<string, number>>;
  /** How often the cluster is read (upstream: 30 s for nodes, 1 min for the install status). Default 500 ms. */
  readonly pollMs?: number;
  /** Overall bound (default 3 h). */
  readonly timeoutMs?: number;
  /** When given, a host joins only once it is up in this registry (see simulatedInstallStep's `nodes`). */
  readonly nodes?: SimulatedNodeRegistry;
}

export type ControllerExit = 'installed' | 'error' | 'cancelled' | 'adding-hosts' | 'cluster-unreachable' | 'timeout' | 'stopped';

export interface ControllerOutcome {
  readonly exit: ControllerExit;
  /** complete-installation was accepted (202). */
  readonly completed: boolean;
}

interface MonitoredOperator {
  readonly name: string;
  readonly operator_type?: string;
  readonly status?: string;
  readonly version?: string;
}

const DEFAULT_STAGE_MS = 200;
const TERMINAL_STATUSES: Record<string, ControllerExit> = { installed: 'installed', error: 'error', cancelled: 'cancelled', 'adding-hosts': 'adding-hosts' };
const ERRORS_BEFORE_EXIT = 3;
const CALL_ATTEMPTS = 10;

export async function runSimulatedController(options: SimulatedControllerOptions): Promise<ControllerOutcome> {
  const { api, clusterId, log, signal } = options;
  const pollMs = options.pollMs ?? 500;
  const deadline = Date.now() + (options.timeoutMs ?? 3 * 3_600_000);
  const durationOf = (stage: string) => options.durationsMs?.[stage] ?? DEFAULT_STAGE_MS;
  const seen = new Map<string, { stage: string; since: number }>();
  let errors = 0;
  let finalizing: Promise<boolean> | undefined;
  let completed = false;
  log.info('SIMULATED assisted-installer-controller started', { clusterId });

  const exitWith = async (exit: ControllerExit): Promise<ControllerOutcome> => {
    if (finalizing) completed = await finalizing;
    log.info('SIMULATED assisted-installer-controller exits', { exit, completed });
    return { exit, completed };
  };

  for (;;) {
    if (signal.aborted) return exitWith('stopped');
    if (Date.now() >= deadline) return exitWith('timeout');
    let read: Awaited<ReturnType<typeof readCluster>> | undefined;
    try {
      read = await readCluster(api, clusterId, 'agent', signal);
    } catch (error) {
      log.warn('SIMULATED controller could not read the cluster', { error: (error as Error).message });
    }
    if (read?.cluster) {
      errors = 0;
      const cluster = read.cluster;
      const terminal = cluster.status ? TERMINAL_STATUSES[cluster.status] : undefined;
      if (terminal) return exitWith(terminal);
      await advanceHosts(cluster);
      if (cluster.status === 'finalizing' && !finalizing) {
        finalizing = finalize(cluster).catch(async (error: Error) => {
          if (signal.aborted) {
            log.info('SIMULATED controller stopped before finalizing ended', { reason: error.message });
            return false;
          }
          // The service declares the cluster installed once its hosts, operators and kubeconfig
          // say so, which may come before the controller's last reports: nothing is left to do then.
          const now = await readCluster(api, clusterId, 'agent', signal).catch(() => undefined);
          if (now?.cluster?.status === 'installed') {
            log.info('SIMULATED controller: the service declared the cluster installed before finalizing ended', { refused: error.message });
            return true;
          }
          // Stopped while reading it again (its hosts' owner saw the cluster installed first).
          if (signal.aborted) {
            log.info('SIMULATED controller stopped before finalizing ended', { reason: error.message });
            return false;
          }
          log.error('SIMULATED controller failed to finalize', { error: error.message });
          return false;
        });
      }
    } else if (read) {
      errors += read.status === 404 ? 3 : 1;
      log.warn('SIMULATED controller: reading the cluster failed', { status: read.status, errors });
      if (errors >= ERRORS_BEFORE_EXIT) return exitWith('cluster-unreachable');
    }
    await sleep(pollMs, signal);
  }

  async function advanceHosts(cluster: ClusterView): Promise<void> {
    const controlPlaneCount = cluster.control_plane_count ?? (cluster.high_availability_mode === 'None' ? 1 : undefined);
    for (const host of cluster.hosts ?? []) {
      const stage = host.progress?.current_stage;
      if (!stage || !host.infra_env_id || host.kind === 'AddToExistingClusterHost' || host.status === 'error' || host.status === 'cancelled') continue;
      const now = Date.now();
      const previous = seen.get(host.id);
      if (previous?.stage !== stage) seen.set(host.id, { stage, since: now });
      const since = previous?.stage === stage ? previous.since : now;
      const owned = controllerStages(hostFlow(host, controlPlaneCount));
      const next = nextStage(stage, owned);
      if (!next) continue;
      if (stage === 'Rebooting' && options.nodes && !options.nodes.isUp(host.id)) continue;
      const dwell = stage === 'Rebooting' && options.nodes ? 0 : durationOf(stage);
      if (now - since < dwell) continue;
      if (await reportHostStage(host, next)) seen.set(host.id, { stage: next, since: Date.now() });
    }
  }

  async function reportHostStage(host: ClusterHostView, stage: HostStage): Promise<boolean> {
    log.info(`SIMULATED controller: host ${host.requested_hostname ?? host.id} is ${stage}`);
    const response = await api.call('PUT', `/v2/infra-envs/${host.infra_env_id}/hosts/${host.id}/progress`, {
      json: { current_stage: stage, progress_info: '' },
      retry: 'agent',
      signal,
    });
    await response.text().catch(() => '');
    if (response.status >= 300) log.warn('the service refused the host stage', { host: host.id, stage, status: response.status });
    return response.status < 300;
  }

  /** Upstream's PostInstallConfigs, with everything healthy. Resolves true when complete-installation was accepted. */
  async function finalize(cluster: ClusterView): Promise<boolean> {
    const reportStage = async (stage: FinalizingStage) => {
      log.info(`SIMULATED controller: finalizing stage ${stage}`);
      await expectStatus('PUT', `/v2/clusters/${clusterId}/progress`, { finalizing_stage: stage }, [200, 201, 204], `finalizing stage ${stage}`);
    };
    const pause = (stage: string) => sleep(durationOf(stage), signal);

    await reportStage('Waiting for cluster operators');
    const operators = await monitoredOperators();
    await reportOperatorsAvailable(
      operators.filter((operator) => operator.operator_type !== 'olm'),
      cluster,
    );
    await pause('Waiting for cluster operators');

    await reportStage('Adding router ca');
    const ca = await createIngressCa();
    await expectStatus('POST', `/v2/clusters/${clusterId}/uploads/ingress-cert`, ca.certificatePem, [201, 200, 204], 'ingress certificate upload');
    await pause('Adding router ca');

    await reportStage('Waiting for olm operators csv initialization');
    const olm = operators.filter((operator) => operator.operator_type === 'olm');
    await pause('Waiting for olm operators csv initialization');
    if (olm.length > 0) {
      await reportStage('Applying olm manifests');
      await pause('Applying olm manifests');
      await reportStage('Waiting for olm operators csv');
      await reportOperatorsAvailable(olm, cluster);
      await pause('Waiting for olm operators csv');
      await reportStage('Waiting for OLM operator setup jobs');
      await pause('Waiting for OLM operator setup jobs');
    }
    await reportStage('Done');
    await expectStatus('POST', `/v2/clusters/${clusterId}/actions/complete-installation`, { is_success: true, error_info: '' }, [202], 'complete-installation');
    log.info('SIMULATED controller: installation completed');
    return true;
  }

  async function monitoredOperators(): Promise<MonitoredOperator[]> {
    const response = await api.call('GET', `/v2/clusters/${clusterId}/monitored-operators`, { retry: 'agent', signal });
    if (response.status !== 200) {
      await response.text().catch(() => '');
      log.warn('SIMULATED controller could not list monitored operators', { status: response.status });
      return [];
    }
    const list = await response.json<unknown>();
    return Array.isArray(list) ? (list as MonitoredOperator[]).filter((operator) => typeof operator?.name === 'string') : [];
  }

  async function reportOperatorsAvailable(operators: readonly MonitoredOperator[], cluster: ClusterView): Promise<void> {
    for (const operator of operators) {
      // Upstream reports only what differs from the service's copy.
      if (operator.status === 'available') continue;
      const version = operator.version || cluster.openshift_version || '';
      log.info(`SIMULATED controller: operator ${operator.name} is available`);
      await expectStatus(
        'PUT',
        `/v2/clusters/${clusterId}/monitored-operators`,
        { name: operator.name, status: 'available', status_info: 'All is well', version },
        [200, 201, 204],
        `operator ${operator.name} status`,
      );
    }
  }

  /** A bounded retry: the service may answer 5xx for a moment; upstream retries these calls too. */
  async function expectStatus(method: 'PUT' | 'POST', path: string, json: unknown, accepted: readonly number[], what: string): Promise<void> {
    let last = 0;
    for (let attempt = 1; attempt <= CALL_ATTEMPTS; attempt++) {
      if (signal.aborted) throw new Error(`stopped during ${what}`);
      const response = await api.call(method, path, { json, retry: 'agent', signal });
      const body = await response.text().catch(() => '');
      if (accepted.includes(response.status)) return;
      last = response.status;
      log.warn(`SIMULATED controller: ${what} answered ${response.status}`, { attempt, body: body.slice(0, 200) });
      if (response.status >= 400 && response.status < 500 && response.status !== 404 && response.status !== 409) break;
      await sleep(pollMs, signal);
    }
    throw new Error(`${what} failed with HTTP ${last}`);
  }
}

/** The controller's next stage for a host at `stage`: the first one it owns after Rebooting, or the one after the current. */
function nextStage(stage: string, owned: readonly HostStage[]): HostStage | undefined {
  if (stage === 'Rebooting') return owned[0];
  const index = owned.indexOf(stage as HostStage);
  return index >= 0 ? owned[index + 1] : undefined;
}
