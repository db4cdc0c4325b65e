/**
 * Seeds one cluster of N post-inventory hosts straight through the Store port, in a table of its
 * own, for the monitor's scaling measurement: 10,000 hosts through the API would take longer than
 * the whole bench may. Each host is what the agent endpoints would have stored (newHost, then
 * applyStepReply for the inventory and the usual replies), watched by the monitor like a newly
 * registered host, in `discovering` until a pass judges it.
 */
import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDynamoStore } from '../../lambdas/adapters/dynamodb/store.js';
import { ensureTable } from '../../lambdas/adapters/dynamodb/schema.js';
import { newHost, type StepReply } from '../../lambdas/domain/agent/agent-protocol.js';
import { applyStepReply } from '../../lambdas/domain/agent/step-replies.js';
import type { Cluster, Host, InfraEnv } from '../../lambdas/domain/core/entities.js';
import type { Clock } from '../../lambdas/ports/clock.js';
import type { Store } from '../../lambdas/ports/store.js';
import { monitorShardOf } from '../../lambdas/usecases/host-refresh.js';
import { eachBounded } from './agents.js';
import { inventoryOf, repliesAfterInventory } from './fleet.js';

export interface SeededCluster {
  store: Store;
  /** The copy's key: its ids are new, so the service's per-process memory never mixes it with the original. */
  clusterKey: { orgId: string; clusterId: string };
  seconds: number;
  hosts: number;
}

/**
 * A copy of `cluster` and `infraEnv` (a real cluster made through the API) with `count` hosts, in
 * table `tableName`, under new ids.
 */
export async function seedCluster(options: {
  client: DynamoDBClient;
  tableName: string;
  cluster: Cluster;
  infraEnv: InfraEnv;
  count: number;
  neighbours: number;
  clock: Clock;
  concurrency?: number;
}): Promise<SeededCluster> {
  await ensureTable(options.client, options.tableName);
  const store = createDynamoStore({ tableName: options.tableName, client: options.client });
  const clusterId = randomUUID();
  const { version: _clusterVersion, ...cluster } = { ...options.cluster, clusterId };
  const { version: _infraEnvVersion, ...infraEnv } = { ...options.infraEnv, infraEnvId: randomUUID(), clusterId };
  await store.clusters.create(cluster);
  await store.infraEnvs.create(infraEnv);

  const ids = Array.from({ length: options.count }, () => randomUUID());
  const started = performance.now();
  const result = await eachBounded(ids, options.concurrency ?? 32, async (hostId, index) => {
    const now = options.clock.now().toISOString();
    let host: Host = {
      ...newHost({ orgId: cluster.orgId, infraEnv: { ...infraEnv, version: 0 }, cluster: { ...cluster, version: 0 }, hostId, agentVersion: 'bench', now }),
      version: 1,
    };
    const replies: StepReply[] = [
      { step_type: 'inventory', output: JSON.stringify(inventoryOf(index)) },
      ...repliesAfterInventory(index, ids, cluster.name, options.neighbours).map((r) => ({
        step_type: r.step_type as StepReply['step_type'],
        output: JSON.stringify(r.output),
      })),
    ];
    for (const reply of replies) host = applyStepReply(host, reply, { now, disks: { cluster: { attributes: { openshift_version: '4.18.52' } } } }) ?? host;
    host.attributes.timestamp = Math.floor(options.clock.now().getTime() / 1000);
    const { version: _hostVersion, ...record } = { ...host, monitorShard: monitorShardOf(hostId, store.activeShards) };
    await store.hosts.create(record);
    return true;
  });
  if (result.errors > 0) throw new Error(`seeding ${options.tableName}: ${result.errors} of ${options.count} hosts failed`);
  return { store, clusterKey: { orgId: cluster.orgId, clusterId }, seconds: (performance.now() - started) / 1000, hosts: options.count };
}
