/**
 * POST /v2/events (upstream's V2TriggerEvent): an agent records an event of its own. The
 * operation admits agent tokens only (its security is upstream's: agentAuth), and the in-cluster
 * assisted-installer-controller is the client that calls it. An agent may name only what its
 * token reaches: its infra-env, that infra-env's hosts and the cluster the infra-env is bound to;
 * anything else is not found (404), as for every resource outside a caller's reach. An event that
 * names nothing is recorded about the agent's infra-env: upstream keeps such an event where no
 * user can list it, and an event nobody can read is not kept here.
 */
import { randomUUID } from 'node:crypto';
import { buildTriggeredEvent, type TriggerEventParams } from '../domain/events/triggered-event.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { findCluster, findHost, findInfraEnv } from './access.js';
import { requireAgent, type Principal } from './principal.js';

export async function triggerEvent(deps: { store: Store; clock: Clock }, principal: Principal, params: TriggerEventParams): Promise<void> {
  requireAgent(principal);
  const clusterId = params.cluster_id ?? undefined;
  const hostId = params.host_id ?? undefined;
  const infraEnvId = params.infra_env_id ?? undefined;
  // Scope first, so that an id out of reach is a 404 whatever else is wrong with the body.
  if (clusterId) await findCluster(deps.store, principal, clusterId);
  if (infraEnvId) await findInfraEnv(deps.store, principal, infraEnvId);
  if (hostId) await findHost(deps.store, principal, principal.infraEnvId, hostId);
  const namesNothing = !clusterId && !hostId && !infraEnvId;
  const event = buildTriggeredEvent(params, {
    orgId: principal.orgId,
    eventId: randomUUID(),
    at: deps.clock.now(),
    subject: { clusterId, hostId, infraEnvId: namesNothing ? principal.infraEnvId : infraEnvId },
  });
  await deps.store.events.append(event);
}
