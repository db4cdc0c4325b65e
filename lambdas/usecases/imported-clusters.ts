/**
 * POST /v2/clusters/import: a day-2 cluster for an OpenShift cluster installed elsewhere
 * (domain/cluster/imported-cluster.ts says what it holds). Hosts join it as they join any cluster
 * adding hosts: through an infra-env bound to it, registering as AddToExistingClusterHost and
 * installed one by one (POST /v2/infra-envs/{id}/hosts/{host_id}/actions/install).
 */
import { randomUUID } from 'node:crypto';
import { ADD_HOSTS_CLUSTER_KIND, createImportedClusterRecord, importAnswer, type ImportClusterParams } from '../domain/cluster/imported-cluster.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { describeCluster } from './cluster-view.js';
import { recordEvent } from './events.js';
import { actorName, type Principal } from './principal.js';

export async function importCluster(deps: { store: Store; clock: Clock }, principal: Principal, params: ImportClusterParams): Promise<Record<string, unknown>> {
  const created = await deps.store.clusters.create(
    createImportedClusterRecord(params, {
      orgId: principal.orgId,
      clusterId: randomUUID(),
      now: deps.clock.now().toISOString(),
      userName: actorName(principal),
    }),
  );
  await recordEvent(deps, {
    name: 'cluster_registration_succeeded',
    subject: { orgId: created.orgId, clusterId: created.clusterId },
    props: { cluster_kind: ADD_HOSTS_CLUSTER_KIND },
  });
  // Not judged now: an adding-hosts cluster stays so whatever its hosts, and its monitor judges them.
  return importAnswer(await describeCluster(deps.store, created, { withHosts: true, hostStages: false }), created.createdAt);
}
