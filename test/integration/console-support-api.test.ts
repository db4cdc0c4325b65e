/**
 * What the console's UI library asks for besides the install flow: its per-cluster UI settings,
 * operator bundles (none offered), host networks and feature usage on the cluster, and paths with
 * a doubled slash (the library builds /v2/clusters//default-config).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectMatchesSchema } from '../support/response-schema.js';
import { testRuntime } from '../support/runtime.js';
import { apiClient, readyCluster, type ApiClient, type LabCluster } from '../support/cluster-lab.js';

describe('console support endpoints', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  let api: ApiClient;
  let lab: LabCluster;

  beforeAll(async () => {
    env = await testRuntime();
    api = apiClient(env.runtime.url, env.adminToken);
    lab = await readyCluster(api, { hosts: ['master-0', 'master-1', 'master-2'] });
  }, 120_000);
  afterAll(async () => env?.close());

  it('stores the UI settings as the opaque JSON text it was given', async () => {
    const empty = await api.call('GET', `/clusters/${lab.clusterId}/ui-settings`, undefined, api.user());
    expect(empty.status).toBe(200);
    expectMatchesSchema('V2GetClusterUISettings', 200, empty.body);
    expect(empty.body).toBe('');
    const settings = JSON.stringify({ addCustomManifests: true });
    const put = await api.call('PUT', `/clusters/${lab.clusterId}/ui-settings`, settings, api.user());
    expect(put.status, put.text).toBe(200);
    expectMatchesSchema('V2UpdateClusterUISettings', 200, put.body);
    expect((await api.call('GET', `/clusters/${lab.clusterId}/ui-settings`, undefined, api.user())).body).toBe(settings);
    // The UI library sends the document itself rather than a string holding it.
    const object = await api.call('PUT', `/clusters/${lab.clusterId}/ui-settings`, { addCustomManifests: false }, api.user());
    expect(object.status, object.text).toBe(200);
    expect((await api.call('GET', `/clusters/${lab.clusterId}/ui-settings`, undefined, api.user())).body).toBe('{"addCustomManifests":false}');
    const bad = await api.call('PUT', `/clusters/${lab.clusterId}/ui-settings`, '{not json', api.user());
    expect(bad.status).toBe(400);
    expect(bad.body.reason).toMatch(/valid JSON/);
  });

  it('offers no operator bundles, and says so for any bundle id', async () => {
    const list = await api.call('GET', '/operators/bundles', undefined, api.user());
    expect(list.status).toBe(200);
    expectMatchesSchema('V2ListBundles', 200, list.body);
    expect(list.body).toEqual([]);
    const one = await api.call('GET', '/operators/bundles/virtualization', undefined, api.user());
    expect(one.status).toBe(404);
    expectMatchesSchema('V2GetBundle', 404, one.body);
    expect(one.body.reason).toMatch(/not offered/);
  });

  it('shows the networks the hosts are on, and feature usage, on the cluster', async () => {
    const cluster = (await api.call('GET', `/clusters/${lab.clusterId}`, undefined, api.user())).body;
    expect(cluster.feature_usage).toBe('{}');
    const v4 = (cluster.host_networks as { cidr: string; host_ids: string[] }[]).find((n) => n.cidr === '192.168.111.0/24');
    expect(v4?.host_ids.sort()).toEqual([...lab.hostIds].sort());
  });

  it('routes a path with a doubled slash as upstream does', async () => {
    const response = await fetch(`${env.runtime.url}/api/assisted-install/v2/clusters//${lab.clusterId}`, { headers: api.user() });
    expect(response.status).toBe(200);
  });
});
