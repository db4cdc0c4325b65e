/**
 * One cluster of PROFILE_HOSTS (200) store-seeded hosts and PROFILE_PASSES (2) monitor passes, for
 * profiling the pass alone: `node --import tsx --cpu-prof bench/lifecycle/profile-monitor.ts`.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { defaultOpenshiftVersion } from '../../lambdas/domain/catalogues/catalogues.js';
import { container, provide } from '../../lambdas/platform/container.js';
import { registerCluster } from '../../lambdas/usecases/clusters.js';
import { monitorHosts } from '../../lambdas/usecases/host-monitor.js';
import { registerInfraEnv } from '../../lambdas/usecases/infra-envs.js';
import { CompressibleClock } from './agents.js';
import { monitorBenchRuntime } from './runtime.js';
import { API_VIP, BASE_DOMAIN, INGRESS_VIP } from './fleet.js';
import { seedCluster } from './seed.js';
import { BENCH_PULL_SECRET } from '../support/fixtures.js';

const count = Number(process.env.PROFILE_HOSTS ?? 200);
const clock = new CompressibleClock();
provide({ clock });
const { runtime, close } = await monitorBenchRuntime('assisted-profile-');
try {
  const ports = container();
  const principal = { kind: 'user' as const, orgId: runtime.orgId, tokenId: 'profile', role: 'admin' as const };
  const created = await registerCluster(ports, principal, {
    name: 'bench',
    openshift_version: defaultOpenshiftVersion(),
    pull_secret: BENCH_PULL_SECRET,
    base_dns_domain: BASE_DOMAIN,
    api_vips: [{ ip: API_VIP }],
    ingress_vips: [{ ip: INGRESS_VIP }],
  });
  const clusterId = created.id as string;
  const infraEnvId = (await registerInfraEnv(ports, principal, { name: 'bench', pull_secret: BENCH_PULL_SECRET, cluster_id: clusterId })).id as string;
  const cluster = (await ports.store.clusters.get({ orgId: runtime.orgId, clusterId }))!;
  const infraEnv = (await ports.store.infraEnvs.get({ orgId: runtime.orgId, infraEnvId }))!;
  const dynamo = new DynamoDBClient({ endpoint: runtime.endpoints.dynamodb, region: 'us-east-1' });
  const seeded = await seedCluster({ client: dynamo, tableName: 'profile', cluster, infraEnv, count, neighbours: 8, clock });
  console.log(`seeded ${count} hosts in ${seeded.seconds.toFixed(2)} s`);
  for (let i = 0; i < Number(process.env.PROFILE_PASSES ?? 2); i++) {
    const started = performance.now();
    const pass = await monitorHosts({ store: seeded.store, clock });
    console.log(`pass ${i}: ${((performance.now() - started) / 1000).toFixed(2)} s ${JSON.stringify(pass)}`);
  }
  dynamo.destroy();
} finally {
  await close();
}
process.exit(0);
