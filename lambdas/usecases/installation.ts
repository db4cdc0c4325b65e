/**
 * The user's installation actions: install, cancel and reset a cluster; install (day-2) and reset
 * a host. Install decides roles and the bootstrap host, moves the cluster to
 * preparing-for-installation and starts the install workflow, which prepares the files and follows
 * the installation to its end. Every status change is a conditional write on the status read.
 */
import type { EventProps } from '../domain/events/events.js';
import type { AgentSettings } from '../domain/agent/agent-protocol.js';
import { isNotAllowed, transitionCluster } from '../domain/cluster/cluster-state-machine.js';
import { applyClusterEffects } from '../domain/cluster/cluster-effects.js';
import { disconnectedClusterRefusal } from '../domain/cluster/cluster.js';
import { parseClusterValidationsInfo } from '../domain/cluster/validations/cluster-validations.js';
import type { Cluster, Host } from '../domain/core/entities.js';
import { badRequest, conflict } from '../domain/core/errors.js';
import { hostDisplayName, requestContext } from '../domain/host/host.js';
import { transitionHost, type HostTrigger } from '../domain/host/host-state-machine.js';
import { judgedRole } from '../domain/host/validations/host-validations.js';
import { installationDisk, INSTALLABLE_HOST_STATUS, planInstallation, type InstallWorkflowInput } from '../domain/install/installation.js';
import { withoutInstallationReports } from '../domain/install/installation-progress.js';
import { clusterObjectPrefix } from '../domain/core/object-keys.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import type { Workflows } from '../ports/workflows.js';
import { findCluster, findHost, stillThere } from './access.js';
import { summaryOf } from '../domain/cluster/cluster-hosts.js';
import { installationContext } from '../domain/judgement/cluster-judgement.js';
import { refreshCluster } from './cluster-refresh.js';
import { describeCluster } from './cluster-view.js';
import { causedBy, clusterWrite, hostWrite, recordEvent, recordEvents } from './events.js';
import { forgetPeers } from './cluster-peer-listings.js';
import { refreshHost } from './host-refresh.js';
import type { Principal } from './principal.js';

export interface InstallationDeps {
  store: Store;
  clock: Clock;
  workflows: Workflows;
  /** How often the install workflow re-judges the cluster while it installs; the agent settings hosts are refreshed with. */
  config: { installPollSeconds: number; agent: AgentSettings };
}

export const INSTALL_WORKFLOW = 'install-cluster';

function failingValidations(cluster: Cluster): string {
  const failing = parseClusterValidationsInfo(cluster.attributes.validations_info).filter(
    (validation) => validation.status === 'failure' || validation.status === 'pending',
  );
  return failing
    .map((validation) => `${validation.id}: ${validation.message}`)
    .slice(0, 5)
    .join('; ');
}

/** The events of the write that produced `written`, in the order given. */
async function emitClusterEvents(deps: InstallationDeps, written: Cluster, events: readonly { name: string; props: EventProps }[]) {
  const subject = { orgId: written.orgId, clusterId: written.clusterId };
  await recordEvents(
    deps,
    causedBy(
      clusterWrite(written),
      events.map((event) => ({ name: event.name, subject, props: event.props })),
    ),
  );
}

/** Runs `trigger` on one host and writes it if the host is still in the status it was judged in. */
async function transitionHostRecord(
  deps: InstallationDeps,
  host: Host,
  trigger: HostTrigger,
  context: { reason?: string; resetByUser?: boolean },
  extra?: (next: Host) => void,
): Promise<Host | undefined> {
  const now = deps.clock.now();
  const transition = transitionHost(
    { status: host.status },
    trigger,
    requestContext(host, now, {
      role: host.attributes.role ?? 'auto-assign',
      bootstrap: !!host.attributes.bootstrap,
      ...context,
    }),
  );
  if (isNotAllowed(transition)) return undefined;
  const key = { orgId: host.orgId, infraEnvId: host.infraEnvId, hostId: host.hostId };
  const updated = await deps.store.hosts.mutate(key, (current) => {
    if (current.status !== host.status) return undefined;
    const next = structuredClone(current);
    next.status = transition.status;
    next.attributes.status_info = transition.statusInfo;
    if (transition.status !== host.status) next.attributes.status_updated_at = now.toISOString();
    extra?.(next);
    next.updatedAt = now.toISOString();
    return next;
  });
  if (!updated || updated.status !== transition.status) return updated;
  const subject = { orgId: host.orgId, infraEnvId: host.infraEnvId, hostId: host.hostId, ...(host.clusterId ? { clusterId: host.clusterId } : {}) };
  await recordEvents(
    deps,
    causedBy(
      hostWrite(updated),
      transition.events.map((event) => ({ name: event.name, subject, props: event.props })),
    ),
  );
  return updated;
}

/** POST /v2/clusters/{id}/actions/install. */
export async function installCluster(deps: InstallationDeps, principal: Principal, clusterId: string): Promise<Record<string, unknown>> {
  const disconnected = disconnectedClusterRefusal(await findCluster(deps.store, principal, clusterId), 'installed');
  if (disconnected) throw conflict(disconnected);
  const key = { orgId: principal.orgId, clusterId };
  // Judged afresh: what the user last saw may be a minute old.
  const cluster = stillThere(await refreshCluster(deps, key), `Cluster ${clusterId}`);
  if (cluster.status !== 'ready') {
    const why = failingValidations(cluster);
    throw conflict(`Cluster ${clusterId} is ${cluster.status}, not ready to install${why ? `: ${why}` : ` (${String(cluster.attributes.status_info ?? '')})`}`);
  }
  const hosts = await deps.store.hosts.listByCluster(key);
  const waiting = hosts.filter((host) => host.status !== INSTALLABLE_HOST_STATUS);
  if (waiting.length > 0) {
    throw conflict(
      `Hosts ${waiting.map((host) => `${hostDisplayName(host)} (${host.status})`).join(', ')} are not ready to install; wait for them or remove them`,
    );
  }
  const now = deps.clock.now();
  const roles = new Map(hosts.map((host) => [host.hostId, judgedRole({ host, cluster, clusterHosts: hosts, now })]));
  const plan = planInstallation(cluster, hosts, roles);

  const transition = transitionCluster({ status: cluster.status }, 'PrepareForInstallation', {
    now,
    controlPlaneCount: cluster.attributes.control_plane_count ?? 3,
    hosts: hosts.map(summaryOf),
    ...installationContext(cluster),
  });
  if (isNotAllowed(transition)) throw conflict(transition.reason);

  const attempt = ((cluster.attributes.install_attempt as number | undefined) ?? 0) + 1;
  const stamp = now.toISOString();
  const prepared = await deps.store.clusters.mutate(key, (current) => {
    if (current.status !== 'ready') throw conflict(`Cluster ${clusterId} changed to ${current.status} meanwhile; try again`);
    const next = structuredClone(current);
    next.status = transition.status;
    next.attributes.status_info = transition.statusInfo;
    next.attributes.status_updated_at = stamp;
    next.attributes.install_attempt = attempt;
    next.attributes = withoutInstallationReports(next.attributes);
    applyClusterEffects(next, [...transition.effects, 'progress-reset'], stamp);
    next.updatedAt = stamp;
    return next;
  });
  const preparedCluster = stillThere(prepared, `Cluster ${clusterId}`);

  for (const host of hosts) {
    const role = plan.roles.get(host.hostId)!;
    const bootstrap = host.hostId === plan.bootstrapHostId;
    const disk = installationDisk(host);
    await deps.store.hosts.mutate({ orgId: host.orgId, infraEnvId: host.infraEnvId, hostId: host.hostId }, (current) => {
      const next = structuredClone(current);
      next.attributes.role = role;
      if ((current.attributes.role ?? 'auto-assign') === 'auto-assign') next.attributes.suggested_role = role;
      next.attributes.bootstrap = bootstrap;
      if (disk && !current.attributes.installation_disk_path) {
        if (disk.id) next.attributes.installation_disk_id = disk.id;
        if (disk.path) next.attributes.installation_disk_path = disk.path;
      }
      for (const field of ['progress', 'install_step_sent_at', 'installation_percentage']) delete next.attributes[field];
      next.updatedAt = stamp;
      return next;
    });
    if (bootstrap) {
      await recordEvent(deps, {
        name: 'host_bootstrap_set',
        subject: { orgId: host.orgId, infraEnvId: host.infraEnvId, hostId: host.hostId, clusterId },
        props: { host_name: hostDisplayName(host) },
      });
    }
  }
  forgetPeers(principal.orgId, clusterId);
  await emitClusterEvents(deps, preparedCluster, [...transition.events, { name: 'cluster_prepare_installation_started', props: {} }]);

  const input: InstallWorkflowInput = { orgId: principal.orgId, clusterId, attempt, pollSeconds: deps.config.installPollSeconds };
  const executionArn = await deps.workflows.start(INSTALL_WORKFLOW, `install-${clusterId}-${attempt}`, input);
  await deps.store.clusters.mutate(key, (current) => ({ ...current, attributes: { ...current.attributes, install_workflow_arn: executionArn } }));

  // Known hosts of a preparing cluster start their preparation checks (disk speed, image pull).
  for (const host of hosts) await refreshHost(deps, { orgId: host.orgId, infraEnvId: host.infraEnvId, hostId: host.hostId });
  return describeCluster(deps.store, stillThere(await deps.store.clusters.get(key), `Cluster ${clusterId}`), { withHosts: true, hostStages: false });
}

/** A judgement moved the cluster between a user action's plan and its write. */
class ClusterMovedMeanwhile extends Error {
  constructor(readonly status: string) {
    super(`cluster moved to ${status}`);
  }
}

/** How often a user's cancel or reset is planned again when judgements keep moving its cluster. */
const USER_ACTION_PLANS = 4;

/**
 * Writes a user's cluster action (cancel, reset) as a transition from the status the cluster has
 * when it is written. The stream's judgements move clusters at any time (a host failing turns an
 * installation to error); the user asked to cancel or reset whatever it is now, so a move between
 * the plan and the conditional write means planning again, and a refusal only when the status the
 * cluster moved to does not allow the action.
 */
async function writeUserClusterAction(
  deps: InstallationDeps,
  principal: Principal,
  clusterId: string,
  trigger: 'CancelInstallation' | 'ResetCluster',
  options: { refusal: (status: string) => string; amend: (next: Cluster) => void },
) {
  const key = { orgId: principal.orgId, clusterId };
  for (let plan = 1; ; plan++) {
    const cluster = await findCluster(deps.store, principal, clusterId);
    const hosts = await deps.store.hosts.listByCluster(key);
    const now = deps.clock.now();
    const transition = transitionCluster({ status: cluster.status }, trigger, {
      now,
      controlPlaneCount: cluster.attributes.control_plane_count ?? 3,
      hosts: hosts.map(summaryOf),
      ...installationContext(cluster),
    });
    if (isNotAllowed(transition)) throw conflict(options.refusal(cluster.status));
    const stamp = now.toISOString();
    try {
      const updated = await deps.store.clusters.mutate(key, (current) => {
        if (current.status !== cluster.status) throw new ClusterMovedMeanwhile(current.status);
        const next = structuredClone(current);
        next.status = transition.status;
        next.attributes.status_info = transition.statusInfo;
        next.attributes.status_updated_at = stamp;
        applyClusterEffects(next, transition.effects, stamp);
        options.amend(next);
        next.updatedAt = stamp;
        return next;
      });
      return { cluster, hosts, transition, stamp, written: stillThere(updated, `Cluster ${clusterId}`) };
    } catch (error) {
      if (!(error instanceof ClusterMovedMeanwhile)) throw error;
      if (plan >= USER_ACTION_PLANS) throw conflict(`Cluster ${clusterId} keeps changing (now ${error.status}); try again`);
    }
  }
}

async function stopWorkflow(deps: InstallationDeps, cluster: Cluster, cause: string): Promise<void> {
  const arn = cluster.attributes.install_workflow_arn as string | undefined;
  if (!arn) return;
  const execution = await deps.workflows.describe(arn).catch(() => undefined);
  if (execution?.status === 'RUNNING') await deps.workflows.stop(arn, cause);
}

/** POST /v2/clusters/{id}/actions/cancel. */
export async function cancelInstallation(deps: InstallationDeps, principal: Principal, clusterId: string): Promise<Record<string, unknown>> {
  const key = { orgId: principal.orgId, clusterId };
  const { cluster, hosts, transition, written } = await writeUserClusterAction(deps, principal, clusterId, 'CancelInstallation', {
    refusal: (status) => `Cluster ${clusterId} is ${status}: there is no installation to cancel`,
    amend: () => undefined,
  });
  await stopWorkflow(deps, cluster, 'installation cancelled by the user');
  for (const host of hosts) {
    await transitionHostRecord(deps, host, 'CancelInstallation', {}, (next) => {
      delete next.attributes.install_step_sent_at;
    });
  }
  forgetPeers(principal.orgId, clusterId);
  await emitClusterEvents(deps, written, transition.events);
  return describeCluster(deps.store, stillThere(await deps.store.clusters.get(key), `Cluster ${clusterId}`), { withHosts: true, hostStages: true });
}

/**
 * POST /v2/clusters/{id}/actions/reset: the cluster goes back to being configured; its hosts wait
 * for the user to boot them from the discovery image again (the service cannot reboot them), and
 * the files of the attempt are deleted.
 */
export async function resetCluster(deps: InstallationDeps, principal: Principal, clusterId: string): Promise<Record<string, unknown>> {
  const key = { orgId: principal.orgId, clusterId };
  const { cluster, hosts, transition, written, stamp } = await writeUserClusterAction(deps, principal, clusterId, 'ResetCluster', {
    refusal: (status) => `Cluster ${clusterId} is ${status}: only an installation that started can be reset`,
    amend: (next) => {
      next.attributes = withoutInstallationReports(next.attributes);
      for (const field of ['install_started_at', 'install_completed_at', 'installation_started_at', 'install_workflow_arn']) delete next.attributes[field];
    },
  });
  await stopWorkflow(deps, cluster, 'installation reset by the user');
  for (const host of hosts) {
    await transitionHostRecord(deps, host, 'ResettingPendingUserAction', { resetByUser: true }, (next) => {
      for (const field of ['progress', 'install_step_sent_at', 'bootstrap', 'images_status', 'logs_info', 'logs_started_at', 'logs_collected_at'])
        delete next.attributes[field];
    });
  }
  forgetPeers(principal.orgId, clusterId);
  await emitClusterEvents(deps, written, transition.events);
  // The attempt's install-config, ignition and credentials go; user manifests stay. Only files
  // written before the reset: the user may install again before the purge runs, and the next
  // attempt writes its own files under the same keys.
  await deps.workflows.start('purge-objects', `purge-installation-${clusterId}-${String(cluster.attributes.install_attempt ?? 0)}`, {
    bucket: 'files',
    prefix: `${clusterObjectPrefix(principal.orgId, clusterId)}installation/`,
    modifiedBefore: stamp,
  });
  return describeCluster(deps.store, stillThere(await deps.store.clusters.get(key), `Cluster ${clusterId}`), { withHosts: true, hostStages: true });
}

/** POST /v2/infra-envs/{id}/hosts/{host_id}/actions/install: a day-2 host joins an installed cluster. */
export async function installDay2Host(deps: InstallationDeps, principal: Principal, infraEnvId: string, hostId: string): Promise<Host> {
  const host = await findHost(deps.store, principal, infraEnvId, hostId);
  // Refused before the refresh, which would write the host: a refused request changes nothing.
  if (host.attributes.kind !== 'AddToExistingClusterHost') {
    throw conflict(`Host ${hostId} belongs to a cluster being created: install the cluster instead`);
  }
  const refreshed = (await refreshHost(deps, { orgId: principal.orgId, infraEnvId, hostId })) ?? host;
  if (refreshed.status !== 'known') throw conflict(`Host ${hostId} is ${refreshed.status}; only a known host can be installed`);
  const updated = await transitionHostRecord(deps, refreshed, 'InstallHost', {}, (next) => {
    next.attributes.role = 'worker';
    delete next.attributes.install_step_sent_at;
    delete next.attributes.progress;
    const disk = installationDisk(refreshed);
    if (disk && !refreshed.attributes.installation_disk_path) {
      if (disk.id) next.attributes.installation_disk_id = disk.id;
      if (disk.path) next.attributes.installation_disk_path = disk.path;
    }
  });
  if (updated?.status !== 'installing') throw conflict(`Host ${hostId} changed meanwhile; try again`);
  return updated;
}

/** POST /v2/infra-envs/{id}/hosts/{host_id}/actions/reset: a day-2 host that failed is rebooted into discovery by the user. */
export async function resetDay2Host(deps: InstallationDeps, principal: Principal, infraEnvId: string, hostId: string): Promise<Host> {
  const host = await findHost(deps.store, principal, infraEnvId, hostId);
  if (host.attributes.kind !== 'AddToExistingClusterHost') {
    throw conflict(`Host ${hostId} belongs to a cluster being created: reset the cluster instead`);
  }
  const updated = await transitionHostRecord(deps, host, 'ResettingPendingUserAction', { resetByUser: true }, (next) => {
    for (const field of ['progress', 'install_step_sent_at']) delete next.attributes[field];
  });
  if (updated?.status !== 'resetting-pending-user-action') throw conflict(`Host ${hostId} is ${host.status}; it cannot be reset now`);
  return updated;
}

/**
 * POST /v2/clusters/{id}/actions/allow-add-workers (and allow-add-hosts): an installed cluster
 * starts taking day-2 hosts. Its hosts keep their history; new hosts register as
 * AddToExistingClusterHost and are installed one by one.
 */
export async function allowAddingHosts(deps: InstallationDeps, principal: Principal, clusterId: string): Promise<Record<string, unknown>> {
  const cluster = await findCluster(deps.store, principal, clusterId);
  // Upstream answers 400 (not 409) to a cluster that is not installed yet.
  if (cluster.status !== 'installed' && cluster.status !== 'adding-hosts') {
    throw badRequest(`Cluster ${clusterId} is ${cluster.status}: hosts can be added only to an installed cluster`);
  }
  const key = { orgId: principal.orgId, clusterId };
  const stamp = deps.clock.now().toISOString();
  const updated = await deps.store.clusters.mutate(key, (current) => {
    if (current.status === 'adding-hosts') return undefined;
    if (current.status !== 'installed') throw conflict(`Cluster ${clusterId} changed to ${current.status} meanwhile; try again`);
    const next = structuredClone(current);
    next.status = 'adding-hosts';
    next.attributes.kind = 'AddHostsCluster';
    next.attributes.status_info = 'cluster is adding hosts to existing OCP cluster';
    next.attributes.status_updated_at = stamp;
    const baseDomain = String(current.attributes.base_dns_domain ?? '');
    if (!next.attributes.api_vip_dns_name && baseDomain) next.attributes.api_vip_dns_name = `api.${current.name}.${baseDomain}`;
    next.updatedAt = stamp;
    return next;
  });
  if (updated?.status === 'adding-hosts' && cluster.status !== 'adding-hosts') {
    await recordEvent(deps, {
      name: 'cluster_status_updated',
      subject: key,
      props: { cluster_status: 'adding-hosts', status_info: 'cluster is adding hosts to existing OCP cluster' },
    });
  }
  return describeCluster(deps.store, stillThere(await deps.store.clusters.get(key), `Cluster ${clusterId}`), { withHosts: true, hostStages: false });
}
