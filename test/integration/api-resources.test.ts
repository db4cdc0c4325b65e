/**
 * Clusters, infra-envs, hosts and API tokens through the local HTTP server with the real
 * DynamoDB Local, each response checked against the upstream response schema.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { container } from '../../lambdas/platform/container.js';
import { issueAgentToken } from '../../lambdas/usecases/agent-tokens.js';
import { createApiToken } from '../../lambdas/usecases/api-tokens.js';
import { inventory, PULL_SECRET, sshPublicKey } from '../support/fixtures.js';
import { expectMatchesSchema } from '../support/response-schema.js';
import { until } from '../support/net.js';
import { testRuntime } from '../support/runtime.js';
import type { HostStatus } from '../../lambdas/domain/host/host-states.js';
import { osImageVersionFor } from '../../lambdas/domain/catalogues/catalogues.js';

type Json = Record<string, any>;

describe('REST API v2 resources', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  let call: (
    method: string,
    path: string,
    body?: unknown,
    token?: string,
    headers?: Record<string, string>,
  ) => Promise<{ status: number; body: any; headers: Headers }>;

  beforeAll(async () => {
    env = await testRuntime();
    call = async (method, path, body, token = env.adminToken, headers = {}) => {
      const response = await fetch(`${env.runtime.url}/api/assisted-install/v2${path}`, {
        method,
        headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...headers },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
    };
  }, 180_000);
  afterAll(async () => env?.close());

  const version = async () => {
    const versions = (await call('GET', '/openshift-versions')).body as Record<string, { default?: boolean }>;
    return Object.entries(versions).find(([, v]) => v.default)?.[0] ?? Object.keys(versions)[0]!;
  };

  async function newCluster(extra: Json = {}): Promise<Json> {
    const created = await call('POST', '/clusters', { name: 'demo', openshift_version: await version(), pull_secret: PULL_SECRET, ...extra });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body;
  }

  it('registers a cluster with upstream defaults and never returns its pull secret', async () => {
    const cluster = await newCluster({ base_dns_domain: 'example.com' });
    expectMatchesSchema('v2RegisterCluster', 201, cluster);
    expect(cluster).toMatchObject({
      kind: 'Cluster',
      name: 'demo',
      // The cluster as registered, as upstream answers it; judged right after (upstream: by its monitor).
      status: 'insufficient',
      status_info: 'Cluster is not ready for install',
      pull_secret_set: true,
      control_plane_count: 3,
      high_availability_mode: 'Full',
      cpu_architecture: 'x86_64',
      network_type: 'OVNKubernetes',
      cluster_networks: [{ cidr: '10.128.0.0/14', host_prefix: 23 }],
      service_networks: [{ cidr: '172.30.0.0/16' }],
      platform: { type: 'baremetal', external: {} },
      user_managed_networking: false,
      schedulable_masters_forced_true: true,
      host_networks: [],
    });
    // Upstream never fills the deprecated singular network fields.
    for (const field of ['cluster_network_cidr', 'cluster_network_host_prefix', 'service_network_cidr', 'machine_network_cidr'])
      expect(cluster).not.toHaveProperty(field);

    const judged = (await call('GET', `/clusters/${cluster.id}`)).body;
    expect(judged).toMatchObject({ status: 'pending-for-input' });
    expect(judged.status_info).toMatch(/^User input required/);
    const validations = JSON.parse(judged.validations_info) as Record<string, { id: string; status: string }[]>;
    expect(validations.network!.find((v) => v.id === 'api-vips-defined')!.status).toBe('failure');
    expect(validations.configuration!.find((v) => v.id === 'pull-secret-set')!.status).toBe('success');
    expect(JSON.stringify(cluster)).not.toContain('not-a-real-password');
    expect(JSON.stringify(cluster)).not.toContain(Buffer.from('tester:not-a-real-password').toString('base64'));

    const fetched = await call('GET', `/clusters/${cluster.id}`);
    expect(fetched.status).toBe(200);
    expectMatchesSchema('v2GetCluster', 200, fetched.body);
    const listed = await call('GET', '/clusters');
    expectMatchesSchema('v2ListClusters', 200, listed.body);
    expect(listed.body.map((c: Json) => c.id)).toContain(cluster.id);
  });

  it('lists only the clusters asked for by name (an assisted-cloud filter) or OpenShift id, described as the full listing describes them', async () => {
    const first = await newCluster({ name: 'named-twice' });
    const second = await newCluster({ name: 'named-twice' });
    const other = await newCluster({ name: 'named-once' });
    const named = await call('GET', '/clusters?name=named-twice');
    expect(named.status).toBe(200);
    expectMatchesSchema('v2ListClusters', 200, named.body);
    expect(named.body.map((c: Json) => c.id)).toEqual([first.id, second.id]);
    const all = await call('GET', '/clusters');
    const describedInFull = all.body.filter((c: Json) => c.name === 'named-twice');
    expect(named.body.map((c: Json) => Object.keys(c).sort())).toEqual(describedInFull.map((c: Json) => Object.keys(c).sort()));
    expect(named.body.map((c: Json) => [c.id, c.status, c.total_host_count, c.base_dns_domain])).toEqual(
      describedInFull.map((c: Json) => [c.id, c.status, c.total_host_count, c.base_dns_domain]),
    );
    expect(all.body.map((c: Json) => c.id)).toContain(other.id);
    expect((await call('GET', '/clusters?name=nobody-is-called-this')).body).toEqual([]);
    expect((await call('GET', `/clusters?openshift_cluster_id=${randomUUID()}`)).body).toEqual([]);
  });

  it('registers a single-node cluster with user-managed networking, keeping the VIPs it is sent as upstream does', async () => {
    const sno = await newCluster({ name: 'sno', control_plane_count: 1, api_vips: [{ ip: '192.168.1.5' }], ingress_vips: [{ ip: '192.168.1.6' }] });
    expect(sno).toMatchObject({
      control_plane_count: 1,
      high_availability_mode: 'None',
      user_managed_networking: true,
      platform: { type: 'none' },
      schedulable_masters_forced_true: true,
      api_vips: [{ ip: '192.168.1.5' }],
      ingress_vips: [{ ip: '192.168.1.6' }],
    });
  });

  it('refuses what upstream refuses at registration, with its reasons', async () => {
    const refusals: [Json, RegExp][] = [
      [{ disk_encryption: { enable_on: 'all', mode: 'tang' } }, /^Setting Tang mode but tang_servers isn't set$/],
      [{ network_type: 'OpenShiftSDN', openshift_version: '4.18' }, /^Openshift version 4\.18\.\d+ is not supported for OpenShiftSDN NetworkType$/],
      [
        { vip_dhcp_allocation: true, platform: { type: 'none' } },
        /VIP Automatic Allocation.*None Platform Integration|None Platform Integration.*VIP Automatic Allocation/,
      ],
    ];
    for (const [extra, reason] of refusals) {
      const refused = await call('POST', '/clusters', { name: 'refused', openshift_version: await version(), pull_secret: PULL_SECRET, ...extra });
      expect(refused.status, JSON.stringify(extra)).toBe(400);
      expect(refused.body.reason).toMatch(reason);
    }
  });

  it("installs a bundle's operators with their dependencies, tells the bundles back, and refuses what upstream refuses", async () => {
    const cluster = await newCluster({ operator_bundles: [{ id: 'openshift-ai', optional_operators: ['nvidia-gpu'] }] });
    expectMatchesSchema('v2RegisterCluster', 201, cluster);
    const olm = (body: Json) => (body.monitored_operators as Json[]).filter((o) => o.operator_type === 'olm');
    expect(olm(cluster).map((o) => o.name)).toEqual([
      'authorino',
      'odf',
      'openshift-ai',
      'pipelines',
      'serverless',
      'servicemesh',
      'nvidia-gpu',
      'lso',
      'node-feature-discovery',
    ]);
    expect(olm(cluster).find((o) => o.name === 'odf')).toEqual({
      name: 'odf',
      operator_type: 'olm',
      namespace: 'openshift-storage',
      subscription_name: 'odf-operator',
      timeout_seconds: 1800,
      source_bundles: ['openshift-ai'],
      // As upstream answers a monitored operator: its cluster, and Go's zero time until it reports.
      cluster_id: cluster.id,
      status_updated_at: '0001-01-01T00:00:00.000Z',
    });
    expect(olm(cluster).find((o) => o.name === 'lso')).toMatchObject({ dependency_only: true, namespace: 'openshift-local-storage' });
    expect(cluster.operator_bundles).toEqual([{ id: 'openshift-ai', optional_operators: ['nvidia-gpu'] }]);
    expect((await call('GET', `/clusters/${cluster.id}`)).body.operator_bundles).toEqual(cluster.operator_bundles);
    // Upstream's listing leaves the derived field out.
    expect((await call('GET', '/clusters')).body.find((c: Json) => c.id === cluster.id)).not.toHaveProperty('operator_bundles');

    const standalone = await call('PATCH', `/clusters/${cluster.id}`, { olm_operators: [{ name: 'mtv' }] });
    expect(standalone.status, JSON.stringify(standalone.body)).toBe(201);
    expect(olm(standalone.body).map((o) => [o.name, o.dependency_only ?? false])).toEqual([
      ['mtv', false],
      ['cnv', true],
    ]);
    expect(standalone.body.operator_bundles).toEqual([]);

    for (const [body, reason] of [
      [{ olm_operators: [{ name: 'foo' }] }, "operator foo isn't supported"],
      [{ operator_bundles: [{ id: 'nope' }] }, "bundle 'nope' is not supported"],
      [{ platform: { type: 'vsphere' } }, /OpenShift Virtualization.*vSphere Platform Integration/],
    ] as const) {
      const refused = await call('PATCH', `/clusters/${cluster.id}`, body);
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
      expect(refused.body).toMatchObject({ kind: 'Error', code: '400' });
      expect(refused.body.reason).toMatch(reason);
    }
    const singleNode = await call('POST', '/clusters', {
      name: 'sno-odf',
      openshift_version: await version(),
      pull_secret: PULL_SECRET,
      control_plane_count: 1,
      olm_operators: [{ name: 'odf' }],
    });
    expect(singleNode.status).toBe(400);
    expect(singleNode.body.reason).toBe("cannot use Single Node OpenShift because it's not compatible with OpenShift Data Foundation");
  });

  it('updates a cluster (201), validating networking, and refuses updates once installing (409)', async () => {
    const cluster = await newCluster({
      machine_networks: [{ cidr: '192.168.127.0/24' }],
      api_vips: [{ ip: '192.168.127.100' }],
      ingress_vips: [{ ip: '192.168.127.101' }],
    });
    const key = sshPublicKey();
    const updated = await call('PATCH', `/clusters/${cluster.id}`, { name: 'renamed', base_dns_domain: 'lab.example.com', ssh_public_key: key });
    expect(updated.status, JSON.stringify(updated.body)).toBe(201);
    expectMatchesSchema('V2UpdateCluster', 201, updated.body);
    // The machine network it was created with is dropped by the cluster's judgement until a host on it
    // is discovered, as upstream's monitor drops it (its answer to the same update: machine_networks []).
    expect(updated.body).toMatchObject({
      name: 'renamed',
      base_dns_domain: 'lab.example.com',
      ssh_public_key: key,
      machine_networks: [],
      api_vips: [{ ip: '192.168.127.100' }],
    });

    const outside = await call('PATCH', `/clusters/${cluster.id}`, { api_vips: [{ ip: '10.0.0.5' }] });
    expect(outside.status).toBe(400);
    expect(outside.body.reason).toBe('Calculate machine network CIDR: No suitable matching CIDR found for VIP 10.0.0.5');
    // No host has reported yet and the machine network is gone: any new VIP is outside every network,
    // as upstream answers the same update.
    const noHosts = await call('PATCH', `/clusters/${cluster.id}`, { api_vips: [{ ip: '192.168.127.102' }], ingress_vips: [{ ip: '192.168.127.103' }] });
    expect(noHosts.status, JSON.stringify(noHosts.body)).toBe(400);
    expect(noHosts.body.reason).toBe('Calculate machine network CIDR: No suitable matching CIDR found for VIP 192.168.127.102');

    await container().store.clusters.mutate({ orgId: 'default', clusterId: cluster.id }, (c) => ({ ...c, status: 'installing' }));
    const refused = await call('PATCH', `/clusters/${cluster.id}`, { name: 'late' });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ kind: 'Error', id: 409, code: '409' });
    const deleteRefused = await call('DELETE', `/clusters/${cluster.id}`);
    expect(deleteRefused.status).toBe(409);
  });

  it('creates infra-envs, signs expiring image URLs and invalidates them on key regeneration', async () => {
    const cluster = await newCluster();
    const created = await call('POST', '/infra-envs', {
      name: 'demo-infra',
      pull_secret: PULL_SECRET,
      cluster_id: cluster.id,
      proxy: { http_proxy: 'http://proxy.example.com:3128', no_proxy: '.example.com,10.0.0.0/8' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expectMatchesSchema('RegisterInfraEnv', 201, created.body);
    const infraEnv = created.body;
    // Its RHCOS image's minor, upstream's latest when none is asked for, whatever the cluster's release.
    expect(infraEnv).toMatchObject({
      kind: 'InfraEnv',
      cluster_id: cluster.id,
      openshift_version: osImageVersionFor(undefined, 'x86_64'),
      cpu_architecture: 'x86_64',
      pull_secret_set: true,
    });

    expectMatchesSchema('GetInfraEnv', 200, (await call('GET', `/infra-envs/${infraEnv.id}`)).body);
    const byCluster = await call('GET', `/infra-envs?cluster_id=${cluster.id}`);
    expectMatchesSchema('ListInfraEnvs', 200, byCluster.body);
    expect(byCluster.body.map((i: Json) => i.id)).toEqual([infraEnv.id]);

    const image = await call('GET', `/infra-envs/${infraEnv.id}/downloads/image-url`);
    expect(image.status).toBe(200);
    expectMatchesSchema('GetInfraEnvDownloadURL', 200, image.body);
    const url = new URL(image.body.url);
    expect(url.searchParams.get('image_token')).toMatch(/^ey/);
    const ttl = Date.parse(image.body.expires_at) - Date.now();
    expect(ttl).toBeGreaterThan(3.9 * 3600_000);
    expect(ttl).toBeLessThanOrEqual(4 * 3600_000);

    const update = await call('PATCH', `/infra-envs/${infraEnv.id}`, { ssh_authorized_key: sshPublicKey() });
    expect(update.status).toBe(201);
    expectMatchesSchema('UpdateInfraEnv', 201, update.body);

    const again = await call('GET', `/infra-envs/${infraEnv.id}/downloads/image-url`);
    expect((await call('POST', `/infra-envs/${infraEnv.id}/regenerate-signing-key`)).status).toBe(204);
    const { imageTokenKey } = (await container().store.infraEnvs.get({ orgId: 'default', infraEnvId: infraEnv.id }))!;
    const { jwtVerify } = await import('jose');
    await expect(jwtVerify(new URL(again.body.url).searchParams.get('image_token')!, Buffer.from(imageTokenKey, 'base64url'))).rejects.toThrow();

    expect((await call('DELETE', `/infra-envs/${infraEnv.id}`)).status).toBe(204);
    expect((await call('GET', `/infra-envs/${infraEnv.id}`)).status).toBe(404);
  });

  async function seedHost(infraEnvId: string, status: HostStatus, clusterId?: string): Promise<string> {
    const hostId = randomUUID();
    const now = new Date().toISOString();
    await container().store.hosts.create({
      orgId: 'default',
      infraEnvId,
      hostId,
      status,
      createdAt: now,
      updatedAt: now,
      ...(clusterId ? { clusterId } : {}),
      attributes: {
        inventory: inventory(`host-${hostId.slice(0, 4)}`),
        role: 'auto-assign',
        cpu_architecture: 'x86_64',
        status_info: 'Host is ready to be installed',
      },
    });
    return hostId;
  }

  it('lists, updates and deletes hosts on the user side', async () => {
    const cluster = await newCluster();
    const infraEnv = (await call('POST', '/infra-envs', { name: 'ie', pull_secret: PULL_SECRET, cluster_id: cluster.id })).body;
    const hostId = await seedHost(infraEnv.id, 'known', cluster.id);

    const list = await call('GET', `/infra-envs/${infraEnv.id}/hosts`);
    expectMatchesSchema('v2ListHosts', 200, list.body);
    expect(list.body.map((h: Json) => h.id)).toEqual([hostId]);
    const clusterHosts = await call('GET', `/clusters/${cluster.id}/hosts`);
    expectMatchesSchema('ListClusterHosts', 200, clusterHosts.body);
    // As upstream: the inventory and the connectivity only when asked for (both flags default to false).
    expect(clusterHosts.body[0]).not.toHaveProperty('inventory');
    expect(clusterHosts.body[0]).not.toHaveProperty('connectivity');
    expect((await call('GET', `/clusters/${cluster.id}/hosts?with-inventory=true`)).body[0]).toHaveProperty('inventory');
    expect((await call('GET', `/clusters/${cluster.id}`)).body.total_host_count).toBe(1);
    // exclude-hosts (upstream's spelling) leaves the hosts out: null, as upstream answers; the counts stay.
    const withoutHosts = (await call('GET', `/clusters/${cluster.id}?exclude-hosts=true`)).body;
    expect({ hosts: withoutHosts.hosts, total: withoutHosts.total_host_count }).toEqual({ hosts: null, total: 1 });
    expect((await call('GET', `/clusters/${cluster.id}?exclude-hosts=false`)).body.hosts.map((h: Json) => h.id)).toEqual([hostId]);

    const updated = await call('PATCH', `/infra-envs/${infraEnv.id}/hosts/${hostId}`, {
      host_name: 'master-0.lab',
      host_role: 'master',
      disks_selected_config: [{ id: '/dev/disk/by-id/wwn-0x5000c500a1b2c3d4', role: 'install' }],
      node_labels: [{ key: 'topology.kubernetes.io/zone', value: 'rack-1' }],
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(201);
    expectMatchesSchema('v2UpdateHost', 201, updated.body);
    expect(updated.body).toMatchObject({
      requested_hostname: 'master-0.lab',
      role: 'master',
      installation_disk_id: '/dev/disk/by-id/wwn-0x5000c500a1b2c3d4',
      installation_disk_path: '/dev/sda',
    });

    const small = await call('PATCH', `/infra-envs/${infraEnv.id}/hosts/${hostId}`, {
      disks_selected_config: [{ id: '/dev/disk/by-id/usb-boot', role: 'install' }],
    });
    expect(small.status).toBe(409);
    expect(small.body.reason).toBe("Requested installation disk is not part of the host's valid disks");

    const reset = await call('PATCH', `/infra-envs/${infraEnv.id}/hosts/${hostId}/actions/reset-validation/container-images-available`);
    expect(reset.status).toBe(200);
    expectMatchesSchema('v2ResetHostValidation', 200, reset.body);
    expect((await call('PATCH', `/infra-envs/${infraEnv.id}/hosts/${hostId}/actions/reset-validation/connected`)).status).toBe(400);

    expectMatchesSchema('v2GetHost', 200, (await call('GET', `/infra-envs/${infraEnv.id}/hosts/${hostId}`)).body);
    expect((await call('DELETE', `/infra-envs/${infraEnv.id}/hosts/${hostId}`)).status).toBe(204);
    expect((await call('GET', `/infra-envs/${infraEnv.id}/hosts/${hostId}`)).status).toBe(404);
    const events = (await call('GET', `/events?cluster_id=${cluster.id}`)).body as Json[];
    const messages = events.map((e) => e.message);
    expect(messages[0]).toBe('Successfully registered cluster');
    // The last about the host; the cluster's judgement of its departure follows it (the table's stream).
    expect(messages.filter((m) => m.startsWith('Host ')).at(-1)).toBe('Host master-0.lab deregistered');
    // The update re-validated the host: it was short of NTP, a default route and a machine network.
    expect(messages.some((m) => m.startsWith('Host master-0.lab: updated status from known to pending-for-input'))).toBe(true);
  });

  it('binds a late-binding host to a cluster and unbinds it', async () => {
    const cluster = await newCluster();
    const pool = (await call('POST', '/infra-envs', { name: 'pool', pull_secret: PULL_SECRET })).body;
    const hostId = await seedHost(pool.id, 'known-unbound');
    const bound = await call('POST', `/infra-envs/${pool.id}/hosts/${hostId}/actions/bind`, { cluster_id: cluster.id });
    expect(bound.status, JSON.stringify(bound.body)).toBe(200);
    expectMatchesSchema('BindHost', 200, bound.body);
    expect(bound.body).toMatchObject({ cluster_id: cluster.id, status: 'binding' });
    expect((await call('POST', `/infra-envs/${pool.id}/hosts/${hostId}/actions/bind`, { cluster_id: cluster.id })).status).toBe(409);
    // As upstream's host table: a binding host is unbound once it registered with its cluster.
    const early = await call('POST', `/infra-envs/${pool.id}/hosts/${hostId}/actions/unbind`);
    expect(early.status).toBe(409);
    expect(early.body.reason).toContain('binding');
    await container().store.hosts.mutate({ orgId: 'default', infraEnvId: pool.id, hostId }, (h) => ({ ...h, status: 'known' }));
    const unbound = await call('POST', `/infra-envs/${pool.id}/hosts/${hostId}/actions/unbind`);
    expect(unbound.status).toBe(200);
    expectMatchesSchema('UnbindHost', 200, unbound.body);
    expect(unbound.body.status).toBe('unbinding');
    expect(unbound.body.cluster_id).toBeUndefined();
    const hostEvents = (await call('GET', `/events?host_ids=${hostId}&infra_env_id=${pool.id}`)).body as Json[];
    expect(hostEvents.map((e) => e.name)).toEqual(['host_status_updated', 'host_bind_succeeded', 'host_status_updated', 'host_unbind_succeeded']);
    // A host unbound after its installation started may hold an installed OS: the user boots it again.
    const installed = await seedHost(pool.id, 'known-unbound');
    await container().store.hosts.mutate({ orgId: 'default', infraEnvId: pool.id, hostId: installed }, (h) => ({
      ...h,
      clusterId: cluster.id,
      status: 'installed',
    }));
    const afterInstall = await call('POST', `/infra-envs/${pool.id}/hosts/${installed}/actions/unbind`);
    expect(afterInstall.status).toBe(200);
    expect(afterInstall.body.status).toBe('unbinding-pending-user-action');
    expect(afterInstall.body.cluster_id).toBeUndefined();
    const poolEvents = (await call('GET', `/events?infra_env_id=${pool.id}`)).body as Json[];
    expect(poolEvents.map((e) => e.name)).toContain('infra_env_registered');
  });

  it('deregisters a cluster with the infra-envs and hosts created for it', async () => {
    const cluster = await newCluster();
    const infraEnv = (await call('POST', '/infra-envs', { name: 'ie', pull_secret: PULL_SECRET, cluster_id: cluster.id })).body;
    await seedHost(infraEnv.id, 'known', cluster.id);
    const manifest = Buffer.from('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n').toString('base64');
    expect((await call('POST', `/clusters/${cluster.id}/manifests`, { file_name: 'cm.yaml', content: manifest })).status).toBe(201);
    const prefix = `orgs/default/clusters/${cluster.id}/`;
    expect(await container().blobs.list('files', prefix)).toHaveLength(1);
    expect((await call('DELETE', `/clusters/${cluster.id}`)).status).toBe(204);
    await until(async () => (await container().blobs.list('files', prefix)).length === 0, 15_000, 'cluster objects purged');
    expect(await container().store.manifests.listByCluster({ orgId: 'default', clusterId: cluster.id })).toEqual([]);
    expect((await call('GET', `/clusters/${cluster.id}`)).status).toBe(404);
    expect((await call('GET', `/infra-envs/${infraEnv.id}`)).status).toBe(404);
    expect(await container().store.hosts.listByInfraEnv({ orgId: 'default', infraEnvId: infraEnv.id })).toEqual([]);
  });

  it('manages API tokens by role: created once, listed without secrets, revoked for good', async () => {
    const created = await call('POST', '/api-tokens', { name: 'ci', role: 'read-only' });
    expect(created.status).toBe(201);
    expectMatchesSchema('CreateApiToken', 201, created.body);
    const readOnly = created.body.token as string;
    const listed = await call('GET', '/api-tokens');
    expectMatchesSchema('ListApiTokens', 200, listed.body);
    expect(JSON.stringify(listed.body)).not.toContain(readOnly.split('.')[3]);

    expect((await call('GET', '/clusters', undefined, readOnly)).status).toBe(200);
    const forbidden = await call('POST', '/clusters', { name: 'x', openshift_version: await version(), pull_secret: PULL_SECRET }, readOnly);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toMatchObject({ code: 403 });
    const user = (await call('POST', '/api-tokens', { name: 'dev', role: 'user' })).body.token as string;
    expect((await call('GET', '/api-tokens', undefined, user)).status).toBe(403);

    expect((await call('DELETE', `/api-tokens/${created.body.id}`)).status).toBe(204);
    expect((await call('GET', '/clusters', undefined, readOnly)).status).toBe(401);
    expect((await call('DELETE', `/api-tokens/${'0'.repeat(32)}`)).status).toBe(404);
  });

  it('lets an agent token read its own infra-env and cluster only', async () => {
    const cluster = await newCluster();
    const own = (await call('POST', '/infra-envs', { name: 'own', pull_secret: PULL_SECRET, cluster_id: cluster.id })).body;
    const other = (await call('POST', '/infra-envs', { name: 'other', pull_secret: PULL_SECRET })).body;
    const agent = await issueAgentToken(container().config.agentSigningKeyPem, { orgId: 'default', infraEnvId: own.id });
    const asAgent = { 'X-Secret-Key': agent };
    expect((await call('GET', `/infra-envs/${own.id}`, undefined, '', asAgent)).status).toBe(200);
    expect((await call('GET', `/infra-envs/${other.id}`, undefined, '', asAgent)).status).toBe(404);
    expect((await call('GET', `/clusters/${cluster.id}`, undefined, '', asAgent)).status).toBe(200);
    expect((await call('GET', `/infra-envs/${own.id}/hosts`, undefined, '', asAgent)).status).toBe(200);
    // Operations that admit only users refuse the agent token.
    expect((await call('DELETE', `/clusters/${cluster.id}`, undefined, '', asAgent)).status).toBe(401);
    expect((await call('GET', '/clusters', undefined, '', asAgent)).status).toBe(401);
    // A forged or foreign token is refused.
    expect((await call('GET', `/infra-envs/${own.id}`, undefined, '', { 'X-Secret-Key': `${agent.slice(0, -4)}AAAA` })).status).toBe(401);
  });

  it("answers every operation on another organisation's resources with 404", async () => {
    const cluster = await newCluster();
    const infraEnv = (await call('POST', '/infra-envs', { name: 'a', pull_secret: PULL_SECRET, cluster_id: cluster.id })).body;
    const pool = (await call('POST', '/infra-envs', { name: 'a-pool', pull_secret: PULL_SECRET })).body;
    const hostId = await seedHost(infraEnv.id, 'known', cluster.id);
    const poolHost = await seedHost(pool.id, 'known-unbound');
    const { ensureOrganisation } = await import('../../lambdas/usecases/organisations.js');
    await ensureOrganisation(container(), 'org-b', 'B');
    const orgB = (await createApiToken(container(), { orgId: 'org-b', name: 'b-admin', role: 'admin' })).token;
    const orgBCluster = (await call('POST', '/clusters', { name: 'b', openshift_version: await version(), pull_secret: PULL_SECRET }, orgB)).body;

    const attempts: [string, string, unknown?][] = [
      ['GET', `/clusters/${cluster.id}`],
      ['PATCH', `/clusters/${cluster.id}`, { name: 'stolen' }],
      ['DELETE', `/clusters/${cluster.id}`],
      ['GET', `/clusters/${cluster.id}/hosts`],
      ['GET', `/infra-envs/${infraEnv.id}`],
      ['PATCH', `/infra-envs/${infraEnv.id}`, { additional_ntp_sources: 'ntp.example.com' }],
      ['DELETE', `/infra-envs/${infraEnv.id}`],
      ['GET', `/infra-envs/${infraEnv.id}/downloads/image-url`],
      ['POST', `/infra-envs/${infraEnv.id}/regenerate-signing-key`],
      ['GET', `/infra-envs/${infraEnv.id}/hosts`],
      ['GET', `/infra-envs/${infraEnv.id}/hosts/${hostId}`],
      ['PATCH', `/infra-envs/${infraEnv.id}/hosts/${hostId}`, { host_name: 'stolen' }],
      ['DELETE', `/infra-envs/${infraEnv.id}/hosts/${hostId}`],
      ['PATCH', `/infra-envs/${infraEnv.id}/hosts/${hostId}/actions/reset-validation/container-images-available`],
      ['POST', `/infra-envs/${pool.id}/hosts/${poolHost}/actions/bind`, { cluster_id: orgBCluster.id }],
      ['POST', `/infra-envs/${infraEnv.id}/hosts/${hostId}/actions/unbind`],
      ['POST', '/infra-envs', { name: 'b', pull_secret: PULL_SECRET, cluster_id: cluster.id }],
      ['DELETE', `/api-tokens/${env.adminToken.split('.')[2]}`],
      ['GET', `/events?cluster_id=${cluster.id}`],
      ['GET', `/events?infra_env_id=${infraEnv.id}`],
      ['GET', `/clusters/${cluster.id}/install-config`],
      ['PATCH', `/clusters/${cluster.id}/install-config`, JSON.stringify(JSON.stringify({ fips: true }))],
      ['GET', `/clusters/${cluster.id}/ignored-validations`],
      ['PUT', `/clusters/${cluster.id}/ignored-validations`, { 'host-validation-ids': '["has-cpu-cores-for-role"]' }],
      ['GET', `/clusters/${cluster.id}/preflight-requirements`],
      ['GET', `/clusters/${cluster.id}/manifests`],
      ['POST', `/clusters/${cluster.id}/manifests`, { file_name: 'x.yaml', content: Buffer.from('a: 1\n').toString('base64') }],
      ['PATCH', `/clusters/${cluster.id}/manifests`, { folder: 'manifests', file_name: 'x.yaml', updated_content: Buffer.from('a: 2\n').toString('base64') }],
      ['DELETE', `/clusters/${cluster.id}/manifests?file_name=x.yaml`],
      ['GET', `/clusters/${cluster.id}/manifests/files?file_name=x.yaml`],
      ['GET', `/infra-envs/${infraEnv.id}/downloads/files?file_name=discovery.ign`],
    ];
    for (const [method, path, body] of attempts) {
      // A body given as a string is sent as is (install-config takes a JSON string).
      const response = await call(method, path, body, orgB);
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body).toMatchObject({ kind: 'Error', id: 404 });
    }
    expect((await call('GET', '/clusters', undefined, orgB)).body.map((c: Json) => c.id)).toEqual([orgBCluster.id]);
    expect((await call('GET', '/infra-envs', undefined, orgB)).body).toEqual([]);
    // Nothing changed on org A's side.
    expect((await call('GET', `/clusters/${cluster.id}`)).body.name).toBe('demo');
    expect((await call('GET', `/infra-envs/${infraEnv.id}/hosts/${hostId}`)).status).toBe(200);
  });
});
