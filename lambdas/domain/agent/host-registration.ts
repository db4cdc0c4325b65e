/**
 * A host registering (upstream's RegisterHost): whether its cluster takes it, the record of a new
 * host, and what registering again means for a known one. Pure.
 */
import { conflict, forbidden } from '../core/errors.js';
import type { Cluster, Host, InfraEnv } from '../core/entities.js';
import { CLUSTER_ACCEPTING_HOSTS, requestContext, withTransition } from '../host/host.js';
import type { InstallationDisk } from '../host/host-facts.js';
import { isNotAllowed, transitionHost, type HostTransition } from '../host/host-state-machine.js';
import { installationDisk } from '../install/installation.js';

/** The role a host bound to `cluster` registers with. */
function registrationRole(cluster: Cluster): {
  role: 'master' | 'worker' | 'auto-assign';
  suggested_role: 'master' | 'worker' | 'auto-assign';
  bootstrap?: true;
} {
  if (cluster.status === 'adding-hosts') return { role: 'worker', suggested_role: 'worker' };
  if (cluster.attributes.control_plane_count === 1) return { role: 'master', suggested_role: 'master', bootstrap: true };
  return { role: 'auto-assign', suggested_role: 'auto-assign' };
}

/** Upstream's AcceptRegistration: a cluster takes hosts only before installation, or while adding hosts. */
export function registrationProblem(cluster: Cluster | undefined): void {
  if (!cluster) return;
  if (CLUSTER_ACCEPTING_HOSTS.has(cluster.status)) return;
  if (cluster.status === 'installed') {
    throw conflict(`Cluster ${cluster.clusterId} is installed: boot new hosts from the discovery ISO of its "Add hosts" infra-env to add them`);
  }
  throw conflict(`Cluster ${cluster.clusterId} is ${cluster.status} and accepts new hosts only in ${[...CLUSTER_ACCEPTING_HOSTS].join(', ')}`);
}

export function newHost(context: {
  orgId: string;
  infraEnv: InfraEnv;
  cluster?: Cluster;
  hostId: string;
  agentVersion?: string;
  now: string;
}): Omit<Host, 'version'> {
  const bound = !!context.cluster;
  // The table's first registration rules decide where a new host starts (bound or in the pool).
  const transition = transitionHost({ status: '' }, 'RegisterHost', { now: new Date(context.now), hostName: context.hostId, bound });
  if (isNotAllowed(transition)) throw conflict(transition.reason);
  return {
    orgId: context.orgId,
    infraEnvId: context.infraEnv.infraEnvId,
    hostId: context.hostId,
    ...(context.cluster ? { clusterId: context.cluster.clusterId } : {}),
    status: transition.status,
    createdAt: context.now,
    updatedAt: context.now,
    attributes: {
      kind: context.cluster?.status === 'adding-hosts' ? 'AddToExistingClusterHost' : 'Host',
      status_info: transition.statusInfo,
      status_updated_at: context.now,
      // A single-node cluster's own host can only be its control plane: upstream makes it master and
      // bootstrap on registration. A host added to an installed (or imported) cluster registers as a
      // worker, as upstream's do.
      // A pool host (no cluster yet) is auto-assign too, as upstream's column defaults make it.
      ...(context.cluster ? registrationRole(context.cluster) : { role: 'auto-assign', suggested_role: 'auto-assign' }),
      registered_at: context.now,
      checked_in_at: context.now,
      discovery_agent_version: context.agentVersion,
      // The agent registers on behalf of whoever made its infra-env: upstream names them on the host.
      ...(typeof context.infraEnv.attributes.user_name === 'string' ? { user_name: context.infraEnv.attributes.user_name } : {}),
      cpu_architecture: context.infraEnv.attributes.cpu_architecture,
    },
  };
}

/** The host's installation disk as the table's messages name it (wrong boot order). */
function installationDiskOf(host: Host): InstallationDisk | undefined {
  const disk = installationDisk(host);
  const path = host.attributes.installation_disk_path ?? disk?.path;
  if (!disk && !path) return undefined;
  return { name: disk?.name ?? path ?? '', path, identifier: disk?.id ?? path ?? '', model: disk?.model, serial: disk?.serial };
}

/**
 * A host registering again restarted its agent; the RegisterHost rules of the host table decide
 * what that means: rebooted while preparing (back to known), booted the discovery image again
 * after writing its disk (the boot order is wrong: installing-pending-user-action), restarted
 * mid-installation (error), already installed (refused: the agent must stop), otherwise
 * discovered anew. Refusals carry the rule's status (403 or 409), which parks the agent.
 */
export function reRegister(host: Host, agentVersion: string | undefined, now: string): { host: Host; transition: HostTransition } {
  const progress = host.attributes.progress;
  const transition = transitionHost(
    { status: host.status },
    'RegisterHost',
    requestContext(host, now, {
      ...(progress
        ? { progress: { currentStage: progress.current_stage, progressInfo: progress.progress_info, stageUpdatedAt: progress.stage_updated_at } }
        : {}),
      installationDisk: installationDiskOf(host),
    }),
  );
  if (isNotAllowed(transition)) throw transition.httpStatus === 403 ? forbidden(transition.reason) : conflict(transition.reason);
  const next = withTransition(host, transition, now);
  Object.assign(next.attributes, { checked_in_at: now, registered_at: now, discovery_agent_version: agentVersion ?? host.attributes.discovery_agent_version });
  return { host: next, transition };
}

export function nextStepRunnerCommand(host: Pick<Host, 'hostId' | 'infraEnvId'>, agentVersion: string) {
  // Upstream answers only the arguments: an empty command and a zero retry are omitted (omitempty).
  return { args: [JSON.stringify({ infra_env_id: host.infraEnvId, host_id: host.hostId, agent_version: agentVersion })] };
}
