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

  it('stores the UI settings as the opaque text it was given', async () => {
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
    // What upstream's UI library really sends: text that is not JSON, labelled application/json.
    const raw = await fetch(`${env.runtime.url}/api/assisted-install/v2/clusters/${lab.clusterId}/ui-settings`, {
      method: 'PUT',
      headers: { ...api.user(), 'Content-Type': 'application/json' },
      body: 'AI_UI:{"addCustomManifests":true}',
    });
    expect(raw.status, await raw.text()).toBe(200);
    expect((await api.call('GET', `/clusters/${lab.clusterId}/ui-settings`, undefined, api.user())).body).toBe('AI_UI:{"addCustomManifests":true}');
    // The operation declares a text/plain body too: that is where the opaque text is allowed from.
    const text = await fetch(`${env.runtime.url}/api/assisted-install/v2/clusters/${lab.clusterId}/ui-settings`, {
      method: 'PUT',
      headers: { ...api.user(), 'Content-Type': 'text/plain' },
      body: 'AI_UI:{"addCustomManifests":false}',
    });
    expect(text.status, await text.text()).toBe(200);
    expect((await api.call('GET', `/clusters/${lab.clusterId}/ui-settings`, undefined, api.user())).body).toBe('AI_UI:{"addCustomManifests":false}');
    const tooLarge = await api.call('PUT', `/clusters/${lab.clusterId}/ui-settings`, 'x'.repeat(70_000), api.user());
    expect(tooLarge.status).toBe(400);
    expect(tooLarge.body.reason).toMatch(/limited to/);
  });

  it("offers upstream's operator bundles, and answers an unknown bundle id with a 404", async () => {
    const list = await api.call('GET', '/operators/bundles', undefined, api.user());
    expect(list.status).toBe(200);
    expectMatchesSchema('V2ListBundles', 200, list.body);
    expect((list.body as unknown as { id: string }[]).map((bundle) => bundle.id)).toEqual(['virtualization', 'openshift-ai']);
    const one = await api.call('GET', '/operators/bundles/virtualization', undefined, api.user());
    expect(one.status).toBe(200);
    expectMatchesSchema('V2GetBundle', 200, one.body);
    const unknown = await api.call('GET', '/operators/bundles/no-such-bundle', undefined, api.user());
    expect(unknown.status).toBe(404);
    expectMatchesSchema('V2GetBundle', 404, unknown.body);
  });

  it('shows the networks the hosts are on, and feature usage, on the cluster', async () => {
    const cluster = (await api.call('GET', `/clusters/${lab.clusterId}`, undefined, api.user())).body;
    // Upstream's usage tracking: at least the defaults every cluster registers with.
    expect(Object.keys(JSON.parse(cluster.feature_usage as string))).toEqual(expect.arrayContaining(['Hyperthreading', 'OVN network type']));
    const v4 = (cluster.host_networks as { cidr: string; host_ids: string[] }[]).find((n) => n.cidr === '192.168.111.0/24');
    expect(v4?.host_ids.sort()).toEqual([...lab.hostIds].sort());
  });

  it('routes a path with a doubled slash as upstream does', async () => {
    const response = await fetch(`${env.runtime.url}/api/assisted-install/v2/clusters//${lab.clusterId}`, { headers: api.user() });
    expect(response.status).toBe(200);
  });
});
