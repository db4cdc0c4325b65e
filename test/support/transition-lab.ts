/**
 * The harness of the transition-coverage suites (test/integration/transitions-*.test.ts): labs
 * made through the REST API, hosts and clusters seeded into a source status in the store, and the
 * bookkeeping that proves every (rule, source status) pair of the host and cluster tables was
 * driven. Each suite owns a part of the tables (see OWNERS) and checks that part at its end.
 * Module state (the API client, the pairs answered) is per test file: vitest isolates files.
 * Importing it wraps the host and cluster state machines (vi.mock below, hoisted above the imports),
 * recording into rule-recorder's `answered`: a suite imports it before anything that loads them.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, vi } from 'vitest';
import { CLUSTER_RULES } from '../../lambdas/domain/cluster/cluster-state-machine.js';
import { HOST_RULES } from '../../lambdas/domain/host/host-state-machine.js';
import { isWatchedHost } from '../../lambdas/domain/install/installation-progress.js';
import type { Cluster, Host } from '../../lambdas/domain/core/entities.js';
import { container } from '../../lambdas/platform/container.js';
import { refreshCluster } from '../../lambdas/usecases/cluster-refresh.js';
import { monitorHosts } from '../../lambdas/usecases/host-monitor.js';
import { monitorShardOf } from '../../lambdas/usecases/host-refresh.js';
import type { StreamPoller } from '../../bin/local/streams-local.js';
import {
  API_VIP,
  apiClient,
  defaultVersion,
  INGRESS_VIP,
  infraEnvWithAgent,
  inventoryFixture,
  type ApiClient,
  type Json,
  type LabCluster,
} from './cluster-lab.js';
import { answered, collectReportedRules, RULE_RECORDING_INSTRUMENTATION } from './rule-recorder.js';
import { testRuntime } from './runtime.js';
import type { HostStatus } from '../../lambdas/domain/host/host-states.js';
import type { ClusterStatus } from '../../lambdas/domain/cluster/cluster-facts.js';
import { setTimeout as sleep } from 'node:timers/promises';

vi.mock('../../lambdas/domain/host/host-state-machine.js', async (importOriginal) => {
  const recorder = await import('./rule-recorder.js');
  return recorder.recordingHostMachine(await importOriginal(), recorder.answered);
});
vi.mock('../../lambdas/domain/cluster/cluster-state-machine.js', async (importOriginal) => {
  const recorder = await import('./rule-recorder.js');
  return recorder.recordingClusterMachine(await importOriginal(), recorder.answered);
});

/**
 * Pairs no request or timer of this service raises, and why. Everything else must be driven below.
 */
export const NEVER_RAISED: Record<string, string> = {
  'host:reclaim-installed':
    "ReclaimHost is raised by upstream's kube-api controllers only (an Agent CR unbound from an installed cluster); the REST API unbinds instead",
  'host:reclaim-pre-install': 'ReclaimHost: kube-api only',
  'host:reclaim-after-failure': 'ReclaimHost: kube-api only',
  'host:reclaim-rebooting': 'RebootingForReclaim: kube-api only (the reclaim agent reports it)',
  'host:reclaim-failed': 'ReclaimHostFailed: kube-api only',
  'host:progress-ignored':
    "the progress endpoint refuses reports from installed and resetting-pending-user-action hosts (409) before the machine runs, as upstream's checkHostProgress",
  'host:progress-day2-rebooting':
    "kube-api only: through the REST API a day-2 host's Rebooting is recorded as Done (nothing is heard from it after the reboot), as upstream",
  'cluster:refresh-ams-console-url': 'SaaS AMS subscriptions: this service has no AMS to update',
};

const ruleOf = (pair: string) => pair.slice(0, pair.lastIndexOf('@'));
const ALL_PAIRS = [
  ...HOST_RULES.flatMap((rule) => rule.from.map((from) => `host:${rule.id}@${from}`)),
  ...CLUSTER_RULES.flatMap((rule) => rule.from.map((from) => `cluster:${rule.id}@${from}`)),
];

export const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

/** Which suite drives which rules: requests (agent and user), the host monitor, the cluster refresh. */
export const OWNERS = {
  requests: (pair: string) =>
    (pair.startsWith('host:') && !HOST_REFRESH_IDS.has(ruleOf(pair))) || (pair.startsWith('cluster:') && !CLUSTER_REFRESH_IDS.has(ruleOf(pair))),
  hostMonitor: (pair: string) => pair.startsWith('host:') && HOST_REFRESH_IDS.has(ruleOf(pair)),
  clusterRefresh: (pair: string) => pair.startsWith('cluster:') && CLUSTER_REFRESH_IDS.has(ruleOf(pair)),
} as const;
const HOST_REFRESH_IDS = new Set(HOST_RULES.filter((rule) => rule.trigger === 'RefreshHost').map((rule) => `host:${rule.id}`));
const CLUSTER_REFRESH_IDS = new Set(CLUSTER_RULES.filter((rule) => rule.trigger === 'RefreshStatus').map((rule) => `cluster:${rule.id}`));

let api: ApiClient;
let version: string;
let streams: Pick<StreamPoller, 'pause' | 'resume' | 'drained'>;
const driven = new Set<string>();

/**
 * Call in the suite's describe. Before its tests: a runtime whose function instances report the
 * rules they answer into `answered`, and the helpers below bound to its API; after them, both
 * stopped. Returns the admin's API client, usable from the first test on.
 */
export function transitionSuiteRuntime(): ApiClient {
  let env: Awaited<ReturnType<typeof testRuntime>> | undefined;
  // The rules answered in the runtime's function instances, reported across threads.
  let reported: { close(): void } | undefined;
  beforeAll(async () => {
    env = await testRuntime({ instrumentation: RULE_RECORDING_INSTRUMENTATION });
    reported = collectReportedRules(answered);
    await bindTransitionLab(apiClient(env.runtime.url, env.adminToken), env.runtime);
  }, 180_000);
  afterAll(async () => {
    reported?.close();
    await env?.close();
  });
  return { call: (...args) => api.call(...args), user: () => api.user() };
}

/** The API and the stream poller the helpers use. */
async function bindTransitionLab(client: ApiClient, runtime: { streams: typeof streams }): Promise<void> {
  api = client;
  streams = runtime.streams;
  version = await defaultVersion(api);
}

/** Runs a scene and returns the pairs the machines answered during it; all of them count as driven. */
export async function scene(body: () => Promise<void>): Promise<Set<string>> {
  const start = answered.length;
  await body();
  // Instances report their rules over a channel: what they answered before the last reply arrives just after it.
  await streams.drained();
  await sleep(50);
  const seen = new Set(answered.slice(start));
  for (const pair of seen) driven.add(pair);
  return seen;
}
export const expectAnswered = (seen: Set<string>, pairs: string[]) =>
  expect(
    pairs.filter((pair) => !seen.has(pair)),
    `answered: ${[...seen].join(', ')}`,
  ).toEqual([]);

/** The owner's pairs not driven (exclusions aside), and exclusions of the owner driven after all (stale). */
export function coverage(owner: keyof typeof OWNERS): { missing: string[]; staleExclusions: string[] } {
  const owned = OWNERS[owner];
  const excluded = (pair: string) => Object.hasOwn(NEVER_RAISED, ruleOf(pair));
  return {
    missing: ALL_PAIRS.filter((pair) => owned(pair) && !excluded(pair) && !driven.has(pair)),
    staleExclusions: [...driven].filter((pair) => owned(pair) && excluded(pair)),
  };
}

// ---------------------------------------------------------------- labs and seeding

export interface Lab {
  clusterId?: string;
  infraEnvId: string;
  agent: Record<string, string>;
}

/** A cluster (unless `cluster` is null: a pool infra-env) with its infra-env and an agent token. */
export const lab = (cluster: Json | null = { api_vips: [{ ip: API_VIP }], ingress_vips: [{ ip: INGRESS_VIP }] }): Promise<Lab> =>
  infraEnvWithAgent(api, version, cluster);
export const asLab = (ready: LabCluster): Lab => ({ clusterId: ready.clusterId, infraEnvId: ready.infraEnvId, agent: ready.agent });

export const hostRoute = (l: Lab, hostId: string) => `/infra-envs/${l.infraEnvId}/hosts/${hostId}`;
export const register = (l: Lab, hostId: string) => api.call('POST', `/infra-envs/${l.infraEnvId}/hosts`, { host_id: hostId }, l.agent);
export const poll = (l: Lab, hostId: string) =>
  api.call('GET', `${hostRoute(l, hostId)}/instructions?timestamp=${Math.floor(Date.now() / 1000)}`, undefined, l.agent);
export const reply = (l: Lab, hostId: string, stepType: string, fields: Json) =>
  api.call(
    'POST',
    `${hostRoute(l, hostId)}/instructions`,
    { step_type: stepType, step_id: `${stepType}-${randomUUID().slice(0, 6)}`, exit_code: 0, ...fields },
    l.agent,
  );
export const progress = (l: Lab, hostId: string, stage: string, info?: string) =>
  api.call('PUT', `${hostRoute(l, hostId)}/progress`, { current_stage: stage, ...(info ? { progress_info: info } : {}) }, l.agent);
export const hostOf = async (l: Lab, hostId: string) => (await api.call('GET', hostRoute(l, hostId), undefined, api.user())).body as Json;
export const clusterOf = async (l: Lab) => (await api.call('GET', `/clusters/${l.clusterId}`, undefined, api.user())).body as Json;
export const eventNames = async (l: Lab, hostId?: string) => {
  const query = l.clusterId ? `cluster_id=${l.clusterId}${hostId ? `&host_ids=${hostId}` : ''}` : `infra_env_id=${l.infraEnvId}&host_ids=${hostId}`;
  return ((await api.call('GET', `/events?${query}`, undefined, api.user())).body as { name: string }[]).map((event) => event.name);
};

/** A host registered (and, with a fixture, inventoried) through the agent API. */
export async function addHost(l: Lab, fixture?: string): Promise<string> {
  const hostId = randomUUID();
  const registered = await register(l, hostId);
  expect(registered.status, registered.text).toBe(201);
  if (fixture) {
    expect((await poll(l, hostId)).status).toBe(200);
    const inventory = await reply(l, hostId, 'inventory', { output: JSON.stringify(inventoryFixture(fixture)) });
    expect(inventory.status, inventory.text).toBe(204);
  }
  return hostId;
}

export const hostKey = (l: Lab, hostId: string) => ({ orgId: 'default', infraEnvId: l.infraEnvId, hostId });
/**
 * Puts a host into `status` as if it had got there: polling now, entered just now, watched by
 * the monitor as such a host is; `attributes` overrides (undefined removes) stored fields.
 */
export async function seedHost(l: Lab, hostId: string, status: string, attributes: Json = {}): Promise<Host> {
  await pauseFollowUps();
  const now = new Date().toISOString();
  return (await container().store.hosts.mutate(hostKey(l, hostId), (host) => {
    const next = structuredClone(host);
    next.status = status as HostStatus;
    next.attributes = { ...next.attributes, status_updated_at: now, checked_in_at: now, ...attributes };
    for (const [field, value] of Object.entries(attributes)) if (value === undefined) delete next.attributes[field];
    if (isWatchedHost(status, next.attributes)) next.monitorShard = monitorShardOf(hostId, container().store.activeShards);
    else delete next.monitorShard;
    next.updatedAt = now;
    return next;
  }))!;
}
export async function seedCluster(l: Lab, status: string, attributes: Json = {}): Promise<Cluster> {
  await pauseFollowUps();
  const now = new Date().toISOString();
  return (await container().store.clusters.mutate({ orgId: 'default', clusterId: l.clusterId! }, (cluster) => {
    const next = structuredClone(cluster);
    next.status = status as ClusterStatus;
    next.attributes = { ...next.attributes, status_updated_at: now, ...attributes };
    for (const [field, value] of Object.entries(attributes)) if (value === undefined) delete next.attributes[field];
    next.updatedAt = now;
    return next;
  }))!;
}
/**
 * A seeded scene is written past the service: the table's stream must not follow it (a cluster
 * judged between two seeds would move). Delivery pauses while seeding and resumes past the seeds
 * at the next action (the runtime does so itself before a request; see settleFollowUps).
 */
export async function pauseFollowUps(): Promise<void> {
  await streams.pause();
}
async function act<T>(action: () => Promise<T>): Promise<T> {
  await streams.resume({ skipWritten: true });
  const result = await action();
  await streams.drained();
  return result;
}
export const monitor = async () => expect((await act(() => monitorHosts(container()))).failed).toBe(0);
export const judgeCluster = (l: Lab) => act(() => refreshCluster(container(), { orgId: 'default', clusterId: l.clusterId! }));

/** A host seeded into each status, one per status: returns status → host id. */
export async function hostsIn(l: Lab, statuses: readonly string[], fixture: string | undefined, attributes: (status: string) => Json = () => ({})) {
  const ids = new Map<string, string>();
  // All registered before any is seeded: a later host's inventory re-judges peers waiting on it.
  for (const status of statuses) ids.set(status, await addHost(l, fixture));
  for (const [status, hostId] of ids) await seedHost(l, hostId, status, attributes(status));
  return ids;
}
export const statusesOf = async (l: Lab, ids: Map<string, string>) =>
  Object.fromEntries(await Promise.all([...ids].map(async ([from, hostId]) => [from, (await hostOf(l, hostId)).status as string])));
export const all = (ids: Map<string, string>, status: string) => Object.fromEntries([...ids.keys()].map((from) => [from, status]));
export const pairs = (rule: string, froms: Iterable<string>) => [...froms].map((from) => `${rule}@${from}`);
