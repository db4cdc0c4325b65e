/**
 * Logs as upstream's agent (logs_sender) and installer controller send them and users fetch them:
 * progress reports, multipart uploads of real tar.gz archives, downloads checked with `tar`.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tarArchive } from '../../lambdas/domain/image/tar-archive.js';
import { container } from '../../lambdas/platform/container.js';
import { issueAgentToken } from '../../lambdas/usecases/agent-tokens.js';
import { createApiToken } from '../../lambdas/usecases/api-tokens.js';
import { ensureOrganisation } from '../../lambdas/usecases/organisations.js';
import { PULL_SECRET, AGENT_VERSION_HEADER } from '../support/fixtures.js';
import { expectMatchesSchema } from '../support/response-schema.js';
import { testRuntime } from '../support/runtime.js';

type Json = Record<string, any>;
const fixture = (name: string) => readFileSync(path.join(import.meta.dirname, '../fixtures/inventories', `${name}.json`), 'utf8');

/** A log archive shaped like logs_sender's: `logs_host_<id>/` with a few files, gzipped tar. */
function hostArchive(hostId: string): Buffer {
  return gzipSync(
    tarArchive([
      { path: `logs_host_${hostId}/agent.logs`, contents: `agent log of ${hostId}\n`, mode: 0o644 },
      { path: `logs_host_${hostId}/installer.logs`, contents: randomBytes(40_000).toString('base64'), mode: 0o644 },
      { path: `logs_host_${hostId}/mount.logs`, contents: 'NAME MAJ:MIN SIZE\nvda 252:0 120G\n', mode: 0o644 },
    ]),
  );
}

const controllerArchive = () =>
  gzipSync(tarArchive([{ path: 'controller_logs/assisted-installer-controller.logs', contents: 'controller ready\n', mode: 0o644 }]));

describe('logs upload, progress and download', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  let work: string;
  let clusterId: string;
  let infraEnvId: string;
  let hostId: string;
  let agent: Record<string, string>;
  let otherAgent: Record<string, string>;
  let otherInfraEnvId: string;
  let otherHostId: string;
  let orgB: Record<string, string>;
  const user = () => ({ Authorization: `Bearer ${env.adminToken}` });
  const url = (route: string) => `${env.runtime.url}/api/assisted-install/v2${route}`;

  const call = async (method: string, route: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(url(route), {
      method,
      headers: { ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
  const upload = async (query: string, file: Buffer | undefined, headers: Record<string, string>, field = 'upfile') => {
    const form = new FormData();
    form.append('note', 'not the file');
    if (file) form.append(field, new Blob([file], { type: 'application/gzip' }), 'logs.tar.gz');
    const response = await fetch(url(`/clusters/${clusterId}/logs?${query}`), { method: 'POST', headers, body: form });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
  const download = async (query: string, headers: Record<string, string> = user()) => {
    const response = await fetch(url(`/clusters/${clusterId}/logs${query}`), { headers });
    const bytes = Buffer.from(await response.arrayBuffer());
    return { status: response.status, headers: response.headers, bytes, json: () => JSON.parse(bytes.toString()) as Json };
  };
  const getHost = async (id = hostId, ie = infraEnvId) => (await call('GET', `/infra-envs/${ie}/hosts/${id}`, undefined, user())).body as Json;
  const getCluster = async () => (await call('GET', `/clusters/${clusterId}`, undefined, user())).body as Json;
  const eventNames = async () => ((await call('GET', `/events?cluster_id=${clusterId}`, undefined, user())).body as Json[]).map((e) => e.name as string);
  const tarList = (file: string, gzip: boolean) =>
    execFileSync('tar', [gzip ? '-tzf' : '-tf', file], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .sort();
  const saved = (name: string, bytes: Buffer) => {
    const file = path.join(work, name);
    writeFileSync(file, bytes);
    return file;
  };
  const registerWithInventory = async (ie: string, headers: Record<string, string>, inventoryName: string) => {
    const id = randomUUID();
    const registered = await call('POST', `/infra-envs/${ie}/hosts`, { host_id: id }, headers);
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    await call('GET', `/infra-envs/${ie}/hosts/${id}/instructions?timestamp=${Math.floor(Date.now() / 1000)}`, undefined, headers);
    const reply = await call(
      'POST',
      `/infra-envs/${ie}/hosts/${id}/instructions`,
      { step_type: 'inventory', step_id: 'inventory-00000001', output: fixture(inventoryName) },
      headers,
    );
    expect(reply.status).toBe(204);
    return id;
  };

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'logs-api-'));
    env = await testRuntime();
    const versions = (await call('GET', '/openshift-versions', undefined, user())).body as Record<string, { default?: boolean }>;
    const version = Object.entries(versions).find(([, v]) => v.default)?.[0] ?? Object.keys(versions)[0]!;
    const key = container().config.agentSigningKeyPem;

    const created = await call(
      'POST',
      '/clusters',
      { name: 'lab-cluster', openshift_version: version, pull_secret: PULL_SECRET, base_dns_domain: 'example.com' },
      user(),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    clusterId = created.body.id;
    infraEnvId = (await call('POST', '/infra-envs', { name: 'lab', pull_secret: PULL_SECRET, cluster_id: clusterId }, user())).body.id;
    agent = { ...AGENT_VERSION_HEADER, 'X-Secret-Key': await issueAgentToken(key, { orgId: 'default', infraEnvId }) };
    hostId = await registerWithInventory(infraEnvId, agent, 'master-0');

    const otherClusterId = (
      await call('POST', '/clusters', { name: 'other', openshift_version: version, pull_secret: PULL_SECRET, base_dns_domain: 'example.com' }, user())
    ).body.id;
    otherInfraEnvId = (await call('POST', '/infra-envs', { name: 'other', pull_secret: PULL_SECRET, cluster_id: otherClusterId }, user())).body.id;
    otherAgent = { ...AGENT_VERSION_HEADER, 'X-Secret-Key': await issueAgentToken(key, { orgId: 'default', infraEnvId: otherInfraEnvId }) };
    otherHostId = await registerWithInventory(otherInfraEnvId, otherAgent, 'worker-0');

    await ensureOrganisation(container(), 'org-logs-b', 'Organisation B');
    orgB = { Authorization: `Bearer ${(await createApiToken(container(), { orgId: 'org-logs-b', name: 'b', role: 'admin' })).token}` };
  }, 120_000);
  afterAll(async () => {
    await env?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('follows a host through requested, an upload (collecting) and completed, and serves its archive as uploaded', async () => {
    expect((await call('PUT', `/infra-envs/${infraEnvId}/hosts/${hostId}/logs-progress`, { logs_state: 'requested' }, agent)).status).toBe(204);
    const requested = await getHost();
    expectMatchesSchema('v2GetHost', 200, requested);
    expect(requested.logs_info).toBe('requested');
    expect(Date.parse(requested.logs_started_at)).toBeGreaterThan(Date.now() - 60_000);
    // Not collected yet: Go's zero time, as upstream's host document answers a time never set.
    expect(requested.logs_collected_at).toBe('0001-01-01T00:00:00.000Z');

    const archive = hostArchive(hostId);
    const uploaded = await upload(`logs_type=host&host_id=${hostId}&infra_env_id=${infraEnvId}`, archive, agent);
    expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(204);
    const collecting = await getHost();
    expectMatchesSchema('v2GetHost', 200, collecting);
    expect(collecting).toMatchObject({ logs_info: 'collecting', logs_started_at: requested.logs_started_at });
    expect(Date.parse(collecting.logs_collected_at)).toBeGreaterThanOrEqual(Date.parse(requested.logs_started_at));

    expect((await call('PUT', `/infra-envs/${infraEnvId}/hosts/${hostId}/logs-progress`, { logs_state: 'completed' }, agent)).status).toBe(204);
    expect(await getHost()).toMatchObject({ logs_info: 'completed', logs_collected_at: collecting.logs_collected_at });

    const host = await getHost();
    const fetched = await download(`?logs_type=host&host_id=${hostId}`);
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get('content-type')).toBe('application/octet-stream');
    expect(fetched.headers.get('content-disposition')).toBe(`attachment; filename="lab-cluster_${host.role}_master-0.ocp.example.com.tar.gz"`);
    expect(fetched.bytes.equals(archive)).toBe(true);
    expect(tarList(saved('host.tar.gz', fetched.bytes), true)).toEqual(['agent.logs', 'installer.logs', 'mount.logs'].map((f) => `logs_host_${hostId}/${f}`));

    const events = await eventNames();
    expect(events.filter((name) => name === 'host_logs_uploaded')).toHaveLength(1);
    const message = ((await call('GET', `/events?cluster_id=${clusterId}`, undefined, user())).body as Json[]).find((e) => e.name === 'host_logs_uploaded')!;
    expect(message).toMatchObject({
      host_id: hostId,
      infra_env_id: infraEnvId,
      cluster_id: clusterId,
      message: `Uploaded logs for host master-0.ocp.example.com cluster ${clusterId}`,
    });
  });

  it("takes the host upload without infra_env_id (the agent's own) and replaces the previous archive", async () => {
    const second = hostArchive(hostId);
    expect((await upload(`logs_type=host&host_id=${hostId}`, second, agent)).status).toBe(204);
    expect((await download(`?logs_type=host&host_id=${hostId}`)).bytes.equals(second)).toBe(true);
    expect((await getHost()).logs_info).toBe('collecting');
  });

  it("records the controller's progress and uploads, telling of the first upload only", async () => {
    const before = await download('?logs_type=controller');
    expect(before.status).toBe(409);
    expect(before.json()).toMatchObject({ code: '409', reason: `Controller Logs for cluster ${clusterId} were not found` });

    expect((await call('PUT', `/clusters/${clusterId}/logs-progress`, { logs_state: 'requested' }, agent)).status).toBe(204);
    const requested = await getCluster();
    expectMatchesSchema('v2GetCluster', 200, requested);
    expect(requested.logs_info).toBe('requested');
    expect(Date.parse(requested.controller_logs_started_at)).toBeGreaterThan(Date.now() - 60_000);

    const first = controllerArchive();
    expect((await upload('logs_type=controller', first, agent)).status).toBe(204);
    const second = controllerArchive();
    expect((await upload('logs_type=controller', second, agent)).status).toBe(204);
    const collecting = await getCluster();
    expectMatchesSchema('v2GetCluster', 200, collecting);
    expect(collecting.logs_info).toBe('collecting');
    expect(Date.parse(collecting.controller_logs_collected_at)).toBeGreaterThanOrEqual(Date.parse(requested.controller_logs_started_at));
    expect((await eventNames()).filter((name) => name === 'cluster_logs_uploaded')).toHaveLength(1);

    expect((await call('PUT', `/clusters/${clusterId}/logs-progress`, { logs_state: 'completed' }, agent)).status).toBe(204);
    expect((await getCluster()).logs_info).toBe('completed');

    const fetched = await download('?logs_type=controller');
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get('content-disposition')).toBe(`attachment; filename="lab-cluster_${clusterId}_controller.tar.gz"`);
    expect(fetched.bytes.equals(second)).toBe(true);
    expect(tarList(saved('controller.tar.gz', fetched.bytes), true)).toEqual(['controller_logs/assisted-installer-controller.logs']);
  });

  it('bundles every upload with the cluster description and events for `all` (the default)', async () => {
    for (const query of ['', '?logs_type=all']) {
      const fetched = await download(query);
      expect(fetched.status).toBe(200);
      expect(fetched.headers.get('content-disposition')).toBe(`attachment; filename="lab-cluster_${clusterId}.tar"`);
      const bundle = saved('all.tar', fetched.bytes);
      const host = await getHost();
      const hostEntry = `lab-cluster_${host.role}_master-0.ocp.example.com.tar.gz`;
      expect(tarList(bundle, false)).toEqual(['cluster_events.json', 'cluster_metadata.json', 'controller_logs.tar.gz', hostEntry].sort());

      execFileSync('tar', ['-xf', bundle, '-C', work]);
      expect(tarList(path.join(work, hostEntry), true)).toHaveLength(3);
      expect(tarList(path.join(work, 'controller_logs.tar.gz'), true)).toEqual(['controller_logs/assisted-installer-controller.logs']);
      const metadata = JSON.parse(readFileSync(path.join(work, 'cluster_metadata.json'), 'utf8')) as Json;
      expectMatchesSchema('v2GetCluster', 200, metadata);
      expect(metadata).toMatchObject({ id: clusterId, pull_secret_set: true });
      const secretAuth = (JSON.parse(PULL_SECRET) as Json).auths['quay.io'].auth as string;
      expect(readFileSync(path.join(work, 'cluster_metadata.json'), 'utf8')).not.toContain(secretAuth);
      const events = JSON.parse(readFileSync(path.join(work, 'cluster_events.json'), 'utf8')) as Json[];
      expect(events.map((e) => e.name)).toContain('host_logs_uploaded');
    }
  });

  it('answers 409 for a host whose logs never came, and 400 without a host id', async () => {
    const quiet = await registerWithInventory(infraEnvId, agent, 'master-1');
    const missing = await download(`?logs_type=host&host_id=${quiet}`);
    expect(missing.status).toBe(409);
    expect(missing.json()).toMatchObject({ code: '409', reason: `Logs for host ${quiet} were not found` });
    const noHost = await download('?logs_type=host');
    expect(noHost.status).toBe(400);
    expect(noHost.json()).toMatchObject({ code: '400', reason: 'Host ID must be provided for downloading host logs' });
  });

  it('refuses an upload without upfile, without host_id, too large, or not multipart', async () => {
    const noFile = await upload(`logs_type=host&host_id=${hostId}`, hostArchive(hostId), agent, 'file');
    expect(noFile.status).toBe(400);
    expectMatchesSchema('V2UploadLogs', 400, noFile.body);
    expect(noFile.body.reason).toContain('"upfile"');

    const noHostId = await upload('logs_type=host', hostArchive(hostId), agent);
    expect(noHostId.status).toBe(400);
    expectMatchesSchema('V2UploadLogs', 400, noHostId.body);
    expect(noHostId.body.reason).toBe('cluster_id and host_id are required for upload host logs');

    const badType = await upload(`logs_type=all&host_id=${hostId}`, hostArchive(hostId), agent);
    expect(badType.status).toBe(400);

    // Past API Gateway's 10 MB: refused before the function runs, in upstream's error shape.
    const tooLarge = await upload(`logs_type=host&host_id=${hostId}`, randomBytes(10 * 1024 * 1024 + 1), agent);
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body).toMatchObject({ code: '413', kind: 'Error' });

    const json = await call('POST', `/clusters/${clusterId}/logs?logs_type=controller`, { upfile: 'x' }, agent);
    expect(json.status).toBe(415);

    const stamped = await getHost();
    expect(stamped.logs_info).toBe('collecting');
  }, 180_000);

  it('keeps an agent to its own infra-env and cluster, and users to their organisation', async () => {
    // Another infra-env's agent: this cluster, this host and this infra-env are not found.
    for (const query of [`logs_type=host&host_id=${hostId}`, `logs_type=host&host_id=${hostId}&infra_env_id=${infraEnvId}`, 'logs_type=controller']) {
      const refused = await upload(query, hostArchive(hostId), otherAgent);
      expect(refused.status, query).toBe(404);
      expectMatchesSchema('V2UploadLogs', 404, refused.body);
    }
    // Its own host, but named for a cluster it does not belong to.
    const wrongCluster = await upload(`logs_type=host&host_id=${otherHostId}&infra_env_id=${otherInfraEnvId}`, hostArchive(otherHostId), otherAgent);
    expect(wrongCluster.status).toBe(404);
    const hostProgress = await call('PUT', `/infra-envs/${infraEnvId}/hosts/${hostId}/logs-progress`, { logs_state: 'timeout' }, otherAgent);
    expect(hostProgress.status).toBe(404);
    expectMatchesSchema('v2UpdateHostLogsProgress', 404, hostProgress.body);
    const clusterProgress = await call('PUT', `/clusters/${clusterId}/logs-progress`, { logs_state: 'timeout' }, otherAgent);
    expect(clusterProgress.status).toBe(404);
    expectMatchesSchema('v2UpdateClusterLogsProgress', 404, clusterProgress.body);
    expect((await getHost()).logs_info).toBe('collecting');
    expect((await getCluster()).logs_info).toBe('completed');

    // A token for an infra-env that does not exist is not an agent at all.
    const ghost = { 'X-Secret-Key': await issueAgentToken(container().config.agentSigningKeyPem, { orgId: 'default', infraEnvId: randomUUID() }) };
    const unknown = await upload('logs_type=controller', controllerArchive(), ghost);
    expect(unknown.status).toBe(401);
    expectMatchesSchema('V2UploadLogs', 401, unknown.body);

    // Downloads are for users; another organisation's user finds nothing.
    expect((await download('', agent)).status).toBe(401);
    const foreign = await download(`?logs_type=host&host_id=${hostId}`, orgB);
    expect(foreign.status).toBe(404);
    expect(foreign.json()).toMatchObject({ code: '404' });
    expect((await download('', orgB)).status).toBe(404);
  });

  it('rejects a logs_state outside the enum', async () => {
    const bad = await call('PUT', `/infra-envs/${infraEnvId}/hosts/${hostId}/logs-progress`, { logs_state: 'finished' }, agent);
    expect(bad.status).toBe(400);
    expect((await call('PUT', `/infra-envs/${infraEnvId}/hosts/${hostId}/logs-progress`, { logs_state: '' }, agent)).status).toBe(204);
    expect((await getHost()).logs_info).toBe('');
  });
});
