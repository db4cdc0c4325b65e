/**
 * The disconnected (air-gapped) flow through the local HTTP server, as the console's wizard drives
 * it: POST /v2/clusters/disconnected makes an unmonitored DisconnectedCluster; its infra-env
 * defaults to disconnected-iso and alone takes a rendezvous IP; hosts cannot register to it; the
 * cluster refuses updates and installation with 409. Its discovery.ign is the unconfigured
 * ignition (here SIMULATED: no openshift-install on this machine), checked with ignition-validate;
 * its ISO (on a SYNTHETIC base) carries it and still downloads after the cluster was deleted.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { setTimeout as sleep } from 'node:timers/promises';
import YAML from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { infraEnvImagesPrefix } from '../../lambdas/domain/core/object-keys.js';
import { container } from '../../lambdas/platform/container.js';
import { issueAgentToken } from '../../lambdas/usecases/agent-tokens.js';
import { createApiToken } from '../../lambdas/usecases/api-tokens.js';
import { ensureOrganisation } from '../../lambdas/usecases/organisations.js';
import { expectMatchesSchema } from '../support/response-schema.js';
import { PULL_SECRET, sshPublicKey } from '../support/fixtures.js';
import { testRuntime } from '../support/runtime.js';
import { upstreamError } from '../support/upstream-errors.js';

type Reply = { status: number; body: any; text: string; bytes: Buffer; headers: Headers };

describe('disconnected clusters', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;

  const call = async (
    method: string,
    url: string,
    body?: unknown,
    headers: Record<string, string> = { Authorization: `Bearer ${env.adminToken}` },
  ): Promise<Reply> => {
    const response = await fetch(url.startsWith('http') ? url : `${env.runtime.url}/api/assisted-install/v2${url}`, {
      method,
      redirect: 'manual',
      headers: { ...headers, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    const isJson = (response.headers.get('content-type') ?? '').includes('json');
    return {
      status: response.status,
      body: isJson && bytes.length ? JSON.parse(bytes.toString()) : undefined,
      text: bytes.toString(),
      bytes,
      headers: response.headers,
    };
  };
  /** What the console's wizard sends: the cluster, then its infra-env without an image type. */
  const disconnectedCluster = async (name = 'disconnected-cluster') => {
    const created = await call('POST', '/clusters/disconnected', { name, openshift_version: '4.20' });
    expect(created.status, created.text).toBe(201);
    expectMatchesSchema('v2RegisterDisconnectedCluster', 201, created.body);
    return created.body;
  };
  const infraEnvFor = async (clusterId: string, extra: Record<string, unknown> = {}) => {
    const created = await call('POST', '/infra-envs', {
      name: 'disconnected-cluster_infra-env',
      pull_secret: PULL_SECRET,
      cluster_id: clusterId,
      openshift_version: '4.20',
      cpu_architecture: 'x86_64',
      ...extra,
    });
    expect(created.status, created.text).toBe(201);
    expectMatchesSchema('RegisterInfraEnv', 201, created.body);
    return created.body;
  };
  const expectError = (reply: Reply, status: number, reason: RegExp) => {
    expect(reply.status, reply.text).toBe(status);
    expect(upstreamError(reply.body)).toMatchObject({ code: String(status), reason: expect.stringMatching(reason) });
  };

  let work: string;
  const decode = (source: string) => (source === 'data:,' ? '' : Buffer.from(source.slice(source.indexOf(',') + 1), 'base64').toString('utf8'));
  const filesOf = (text: string): Record<string, string> =>
    Object.fromEntries(
      (JSON.parse(text).storage.files as { path: string; contents: { source: string } }[]).map((file) => [file.path, decode(file.contents.source)]),
    );
  const ignitionValidate = (text: string) => {
    const file = path.join(work, `${randomUUID()}.ign`);
    writeFileSync(file, text);
    return spawnSync('/usr/bin/ignition-validate', [file], { encoding: 'utf8' });
  };
  /** Follows the image service's redirect to S3 and downloads the object. */
  const download = async (url: string) => {
    const redirect = await call('GET', url, undefined, {});
    expect(redirect.status, redirect.text).toBe(302);
    const object = await fetch(redirect.headers.get('location')!, { signal: AbortSignal.timeout(60_000) });
    expect(object.status).toBe(200);
    return { redirect, bytes: Buffer.from(await object.arrayBuffer()) };
  };
  /** The Ignition config inside an ISO's embed area (a gzip'd cpio archive holding config.ign). */
  const embeddedIgnition = (iso: Buffer): string => {
    const isoFile = path.join(work, `${randomUUID()}.iso`);
    writeFileSync(isoFile, iso);
    const area = execFileSync('isoinfo', ['-i', isoFile, '-x', '/IMAGES/IGNITION.IMG;1'], { maxBuffer: 64 * 1024 * 1024 });
    const into = mkdtempSync(path.join(work, 'area-'));
    execFileSync('cpio', ['-i', '-d', '--quiet', '--no-absolute-filenames'], { cwd: into, input: gunzipSync(area) });
    expect(readdirSync(into)).toContain('config.ign');
    return readFileSync(path.join(into, 'config.ign'), 'utf8');
  };

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'disconnected-'));
    env = await testRuntime();
  }, 120_000);
  afterAll(async () => {
    await env?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  }, 60_000);

  it('registers an unmonitored DisconnectedCluster with only its name and release', async () => {
    const cluster = await disconnectedCluster();
    expect(cluster).toMatchObject({
      kind: 'DisconnectedCluster',
      status: 'unmonitored',
      status_info: 'Cluster created for offline installation',
      name: 'disconnected-cluster',
      org_id: 'default',
      href: `/api/assisted-install/v2/clusters/${cluster.id}`,
    });
    // 4.20 resolves to a release of the catalogue, as every other version given as x.y does.
    expect(cluster.openshift_version).toMatch(/^4\.20\.\d+$/);
    expect(cluster).not.toHaveProperty('pull_secret_set');
    for (const absent of ['base_dns_domain', 'api_vips', 'machine_networks', 'control_plane_count', 'platform']) expect(cluster).not.toHaveProperty(absent);
    const read = await call('GET', `/clusters/${cluster.id}`);
    expect(read.body).toMatchObject({ kind: 'DisconnectedCluster', status: 'unmonitored' });
    // Both answers as upstream's: the registration holds the row as inserted (its creation time as
    // image_info's), the read the zero values of a cluster nobody configured; neither names the
    // payload or architecture we keep for its ISO.
    expect(cluster).toMatchObject({ load_balancer: { type: 'cluster-managed' }, email_domain: 'Unknown', image_info: { created_at: cluster.created_at } });
    for (const absent of ['hosts', 'progress', 'ignition_endpoint', 'monitored_operators', 'total_host_count']) expect(cluster).not.toHaveProperty(absent);
    expect(read.body).toMatchObject({
      api_vips: [],
      ingress_vips: [],
      cluster_networks: [],
      service_networks: [],
      machine_networks: [],
      monitored_operators: [],
      disk_encryption: {},
      platform: { type: null, external: {} },
      load_balancer: { type: 'cluster-managed' },
    });
    for (const body of [cluster, read.body]) for (const absent of ['ocp_release_image', 'cpu_architecture']) expect(body).not.toHaveProperty(absent);
    const events = await call('GET', `/events?cluster_id=${cluster.id}`);
    expect(events.body.map((event: { message: string }) => event.message)).toContain('Successfully registered cluster');
  });

  it('refuses a disconnected cluster without a name or version, or with a version not offered (400)', async () => {
    expectError(await call('POST', '/clusters/disconnected', { openshift_version: '4.20' }), 400, /name/);
    expectError(await call('POST', '/clusters/disconnected', { name: 'x' }), 400, /openshift_version/);
    expectError(await call('POST', '/clusters/disconnected', { name: '', openshift_version: '4.20' }), 400, /name/);
    expectError(await call('POST', '/clusters/disconnected', { name: 'x', openshift_version: '' }), 400, /version/i);
    expectError(await call('POST', '/clusters/disconnected', { name: 'x'.repeat(55), openshift_version: '4.20' }), 400, /name/);
    expectError(await call('POST', '/clusters/disconnected', { name: 'x', openshift_version: '3.11' }), 400, /3\.11.*not offered/);
  });

  it('refuses to update or install a DisconnectedCluster (409, saying what to do instead)', async () => {
    const cluster = await disconnectedCluster();
    const patched = await call('PATCH', `/clusters/${cluster.id}`, { name: 'renamed' });
    expectError(patched, 409, /DisconnectedCluster.*cannot be updated.*PATCH \/v2\/infra-envs/);
    const installed = await call('POST', `/clusters/${cluster.id}/actions/install`);
    expectError(installed, 409, /DisconnectedCluster.*cannot be installed.*POST \/v2\/clusters/);
    expect((await call('GET', `/clusters/${cluster.id}`)).body).toMatchObject({ name: 'disconnected-cluster', status: 'unmonitored' });
  });

  it('gives its infra-env the disconnected-iso type, which refuses host registration (400)', async () => {
    const cluster = await disconnectedCluster();
    const infraEnv = await infraEnvFor(cluster.id);
    expect(infraEnv).toMatchObject({ type: 'disconnected-iso', cluster_id: cluster.id, openshift_version: '4.20' });
    const agent = await issueAgentToken(container().config.agentSigningKeyPem, { orgId: 'default', infraEnvId: infraEnv.id });
    const registered = await call(
      'POST',
      `/infra-envs/${infraEnv.id}/hosts`,
      { host_id: randomUUID(), discovery_agent_version: 'test' },
      { 'X-Secret-Key': agent },
    );
    expectError(registered, 400, /^Cannot register a host to an InfraEnv with disconnected-iso type/);
    expect((await call('GET', `/infra-envs/${infraEnv.id}/hosts`)).body).toEqual([]);
    // Other image types are refused for a DisconnectedCluster.
    expectError(
      await call('POST', '/infra-envs', { name: 'x', pull_secret: PULL_SECRET, cluster_id: cluster.id, image_type: 'full-iso' }),
      400,
      /DisconnectedCluster.*disconnected-iso.*not full-iso/,
    );
    expectError(await call('PATCH', `/infra-envs/${infraEnv.id}`, { image_type: 'minimal-iso' }), 400, /DisconnectedCluster.*not minimal-iso/);
    // Without a cluster the type is taken, as upstream takes it; its ignition cannot be made (404, as upstream's).
    const clusterless = await call('POST', '/infra-envs', { name: 'x', pull_secret: PULL_SECRET, openshift_version: '4.20', image_type: 'disconnected-iso' });
    expect(clusterless.status, clusterless.text).toBe(201);
    expect(clusterless.body).toMatchObject({ type: 'disconnected-iso', openshift_version: '4.20' });
    expect(clusterless.body.cluster_id ?? undefined).toBeUndefined();
    expectError(
      await call('GET', `/infra-envs/${clusterless.body.id}/downloads/files?file_name=discovery.ign`),
      404,
      /Failed to get cluster.*POST \/v2\/clusters\/disconnected/,
    );
  });

  it('takes a rendezvous IP only on a disconnected-iso infra-env, and only an IP address', async () => {
    const cluster = await disconnectedCluster();
    const infraEnv = await infraEnvFor(cluster.id, { rendezvous_ip: '192.168.122.80' });
    expect(infraEnv.rendezvous_ip).toBe('192.168.122.80');
    const v6 = await call('PATCH', `/infra-envs/${infraEnv.id}`, { rendezvous_ip: 'fd00::80' });
    expect(v6.status, v6.text).toBe(201);
    expect(v6.body.rendezvous_ip).toBe('fd00::80');
    // The contract's pattern refuses these before any code runs.
    expectError(await call('PATCH', `/infra-envs/${infraEnv.id}`, { rendezvous_ip: '192.168.122.300' }), 400, /rendezvous_ip.*IPv4 or IPv6 address/);
    expectError(
      await call('POST', '/infra-envs', { name: 'x', pull_secret: PULL_SECRET, cluster_id: cluster.id, rendezvous_ip: 'host.example.com' }),
      400,
      /rendezvous_ip.*IPv4 or IPv6 address/,
    );
    // An empty one clears it.
    const cleared = await call('PATCH', `/infra-envs/${infraEnv.id}`, { rendezvous_ip: '' });
    expect(cleared.status, cleared.text).toBe(201);
    expect(cleared.body).not.toHaveProperty('rendezvous_ip');

    const connected = await call('POST', '/infra-envs', { name: 'connected', pull_secret: PULL_SECRET, openshift_version: '4.20' });
    expect(connected.status).toBe(201);
    expectError(
      await call('PATCH', `/infra-envs/${connected.body.id}`, { rendezvous_ip: '192.168.122.80' }),
      400,
      /^RendezvousIP is only supported for disconnected ISO infra-envs/,
    );
    expectError(
      await call('POST', '/infra-envs', {
        name: 'x',
        pull_secret: PULL_SECRET,
        openshift_version: '4.20',
        image_type: 'full-iso',
        rendezvous_ip: '192.168.122.80',
      }),
      400,
      /^RendezvousIP is only supported for disconnected ISO infra-envs/,
    );
    // An empty one is no rendezvous IP, on any type.
    expect((await call('PATCH', `/infra-envs/${connected.body.id}`, { rendezvous_ip: '' })).status).toBe(201);
  });

  it('serves the unconfigured ignition as its discovery.ign: valid, with the installer inputs and the interactive UI, SIMULATED and said so', async () => {
    const cluster = await disconnectedCluster('air-gapped');
    const key = sshPublicKey();
    const infraEnv = await infraEnvFor(cluster.id, { rendezvous_ip: '192.168.122.80', ssh_authorized_key: key });
    const ignition = await call('GET', `/infra-envs/${infraEnv.id}/downloads/files?file_name=discovery.ign`);
    expect(ignition.status, ignition.text).toBe(200);
    const validated = ignitionValidate(ignition.text);
    expect(`${validated.stdout}${validated.stderr}`.trim()).toBe('');
    expect(validated.status).toBe(0);
    const files = filesOf(ignition.text);
    expect(YAML.parse(files['/etc/assisted/manifests/infraenv.yaml']!)).toMatchObject({
      kind: 'InfraEnv',
      metadata: { name: 'disconnected-cluster_infra-env' },
      spec: { sshAuthorizedKey: key, pullSecretRef: { name: 'pull-secret' } },
    });
    expect(YAML.parse(files['/etc/assisted/manifests/pull-secret.yaml']!).stringData['.dockerconfigjson']).toBe(PULL_SECRET);
    expect(files['/etc/containers/registries.conf']).toContain('registry.appliance.openshift.com:5000');
    expect(files['/etc/assisted/rendezvous-host.env']).toBe('NODE_ZERO_IP=192.168.122.80\n');
    expect(files['/etc/assisted/interactive-ui']).toBe('');
    expect(files['/etc/assisted/SIMULATED-unconfigured-ignition.txt']).toMatch(/SIMULATED/);
    // No agent: nothing in it calls this service or carries an agent token.
    expect(ignition.text).not.toContain('PULL_SECRET_TOKEN');
    expect(ignition.text).not.toContain(env.runtime.url);
    const events = await call('GET', `/events?infra_env_id=${infraEnv.id}`);
    const simulated = events.body.filter((event: { message: string }) => event.message.startsWith('SIMULATED unconfigured ignition'));
    expect(simulated.length).toBeGreaterThan(0);
    expect(simulated[0]).toMatchObject({ severity: 'warning' });
    expect(JSON.stringify(events.body)).not.toContain(JSON.parse(PULL_SECRET).auths['quay.io'].auth);
  });

  it('downloads its ISO (SYNTHETIC base, the unconfigured ignition inside) from the URL it was created with, also after the cluster was deleted', async () => {
    const cluster = await disconnectedCluster();
    const infraEnv = await infraEnvFor(cluster.id);
    // As the console: the URL comes with the infra-env; the cluster is deleted right after.
    expect(infraEnv.download_url).toMatch(new RegExp(`/api/assisted-images/images/${infraEnv.id}\\?.*type=disconnected-iso`));
    const before = await download(infraEnv.download_url);
    expect(before.bytes.subarray(0x8001, 0x8006).toString('latin1')).toBe('CD001');
    expect(before.redirect.headers.get('x-assisted-base-image')).toMatch(/^SYNTHETIC/);
    expect(before.redirect.headers.get('content-disposition')).toMatch(/disconnected-iso-SIMULATED-ignition-SYNTHETIC\.iso/);
    const inside = embeddedIgnition(before.bytes);
    expect(ignitionValidate(inside).status).toBe(0);
    expect(Object.keys(filesOf(inside))).toEqual(
      expect.arrayContaining(['/etc/assisted/interactive-ui', '/etc/assisted/manifests/infraenv.yaml', '/etc/assisted/manifests/pull-secret.yaml']),
    );

    const deleted = await call('DELETE', `/clusters/${cluster.id}`);
    expect(deleted.status, deleted.text).toBe(204);
    expect((await call('GET', `/clusters/${cluster.id}`)).status).toBe(404);
    const after = await download(infraEnv.download_url);
    expect(after.bytes.equals(before.bytes)).toBe(true);
    // The infra-env stays, detached from the deleted cluster; deleting it removes it.
    const kept = await call('GET', `/infra-envs/${infraEnv.id}`);
    expect(kept.body).toMatchObject({ type: 'disconnected-iso' });
    expect(kept.body).not.toHaveProperty('cluster_id');
    expect(kept.body).not.toHaveProperty('disconnected_cluster_name');
    expect((await call('DELETE', `/infra-envs/${infraEnv.id}`)).status).toBe(204);
    expect((await call('GET', `/infra-envs/${infraEnv.id}`)).status).toBe(404);
  });

  it('makes the ISO of a cluster deleted before its first download, and its discovery.ign, from what the infra-env kept', async () => {
    const cluster = await disconnectedCluster('gone-already');
    const infraEnv = await infraEnvFor(cluster.id, { rendezvous_ip: '10.1.2.3' });
    expect((await call('DELETE', `/clusters/${cluster.id}`)).status).toBe(204);
    const iso = await download(infraEnv.download_url);
    expect(iso.bytes.subarray(0x8001, 0x8006).toString('latin1')).toBe('CD001');
    const ignition = await call('GET', `/infra-envs/${infraEnv.id}/downloads/files?file_name=discovery.ign`);
    expect(ignition.status, ignition.text).toBe(200);
    expect(filesOf(ignition.text)['/etc/assisted/rendezvous-host.env']).toBe('NODE_ZERO_IP=10.1.2.3\n');
    // Still a disconnected-iso infra-env: no hosts, no other type.
    expectError(await call('PATCH', `/infra-envs/${infraEnv.id}`, { image_type: 'full-iso' }), 400, /DisconnectedCluster/);
  });

  it('as the console does, deletes the infra-env and the cluster as the download starts: the download completes, the images go later', async () => {
    // The download may reach the image service (or be composing) after both deletions.
    const cluster = await disconnectedCluster();
    const infraEnv = await infraEnvFor(cluster.id);
    // ClustersService.remove: the cluster's infra-envs first, then the cluster.
    expect((await call('DELETE', `/infra-envs/${infraEnv.id}`)).status).toBe(204);
    expect((await call('DELETE', `/clusters/${cluster.id}`)).status).toBe(204);
    expect((await call('GET', `/infra-envs/${infraEnv.id}`)).status).toBe(404);
    const late = await download(infraEnv.download_url);
    expect(late.bytes.subarray(0x8001, 0x8006).toString('latin1')).toBe('CD001');
    expect(ignitionValidate(embeddedIgnition(late.bytes)).status).toBe(0);
    // The ISO and the kept record wait for the delayed purge; the API knows nothing of them.
    const kept = await container().blobs.list('images', infraEnvImagesPrefix('default', infraEnv.id));
    expect(kept.map((key) => key.split('/').pop()).sort()).toEqual([expect.stringMatching(/^disconnected-iso-[0-9a-f]+\.iso$/), 'retained-infra-env.json']);
    // Another infra-env's token, or a forged one, opens nothing of it.
    const other = await infraEnvFor((await disconnectedCluster('other')).id);
    const foreign = new URL(infraEnv.download_url);
    foreign.searchParams.set('image_token', new URL(other.download_url).searchParams.get('image_token')!);
    expect((await call('GET', foreign.toString(), undefined, {})).status).toBe(404);
    const forged = new URL(infraEnv.download_url);
    forged.searchParams.set('image_token', `${forged.searchParams.get('image_token')!.slice(0, -4)}AAAA`);
    expect((await call('GET', forged.toString(), undefined, {})).status).toBe(401);
  });

  it('purges after the wait it is given (the delayed purge of a deleted disconnected ISO)', async () => {
    const { blobs, workflows } = container();
    const prefix = `infra-envs/${randomUUID()}/images/`;
    await blobs.put('images', `${prefix}disconnected-iso-x.iso`, 'iso');
    const started = Date.now();
    const executionArn = await workflows.start('purge-objects', `purge-images-${randomUUID()}`, { bucket: 'images', prefix, waitSeconds: 2 });
    expect(await blobs.list('images', prefix)).toHaveLength(1);
    let done = await workflows.describe(executionArn);
    while (done.status === 'RUNNING' && Date.now() - started < 30_000) {
      await sleep(200);
      done = await workflows.describe(executionArn);
    }
    expect(done.status).toBe('SUCCEEDED');
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
    expect(await blobs.list('images', prefix)).toEqual([]);
  });

  it("is another organisation's 404, as its infra-env and their files", async () => {
    const cluster = await disconnectedCluster();
    const infraEnv = await infraEnvFor(cluster.id);
    await ensureOrganisation(container(), 'org-disconnected', 'Disconnected B');
    const { token } = await createApiToken(container(), { orgId: 'org-disconnected', name: 'b', role: 'admin' });
    const asB = { Authorization: `Bearer ${token}` };
    expectError(await call('GET', `/clusters/${cluster.id}`, undefined, asB), 404, /not found/);
    expectError(await call('PATCH', `/clusters/${cluster.id}`, { name: 'mine' }, asB), 404, /not found/);
    expectError(await call('DELETE', `/clusters/${cluster.id}`, undefined, asB), 404, /not found/);
    expectError(await call('POST', '/infra-envs', { name: 'x', pull_secret: PULL_SECRET, cluster_id: cluster.id }, asB), 404, /not found/);
    expectError(await call('GET', `/infra-envs/${infraEnv.id}/downloads/files?file_name=discovery.ign`, undefined, asB), 404, /not found/);
    expect((await call('GET', '/clusters', undefined, asB)).body).toEqual([]);
    expect((await call('GET', `/clusters/${cluster.id}`)).status).toBe(200);
  });
});
