/**
 * The agent token's lifetime and scope through the local runtime (docs/api.md, "Agent tokens"):
 * a discovery.ign's token expires the configured lifetime after the download, an image's a
 * lifetime after its renewal window began (images are re-made with a fresh token when the window
 * passes or the key is regenerated); expired, superseded and deleted infra-envs' tokens are refused
 * with what to do, except for the installation under way; an installed cluster's installation
 * material is closed to agents at once and its reports after the controller's wrap-up.
 *
 * The runtime runs with every local cache off, so each request sees the store as it is (the
 * infra-env cache's bound across instances is tested in test/unit/agent-token.test.ts).
 */
import { gunzipSync } from 'node:zlib';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imageTokenRenewalSeconds } from '../../lambdas/domain/auth/agent-token.js';
import { container } from '../../lambdas/platform/container.js';
import { issueAgentToken } from '../../lambdas/usecases/agent-tokens.js';
import { ensureDiscoveryImage, imageReleaseOf, loadBaseImage } from '../../lambdas/usecases/discovery-image.js';
import { apiClient } from '../support/cluster-lab.js';
import { PULL_SECRET, AGENT_VERSION_HEADER } from '../support/fixtures.js';
import { testRuntime } from '../support/runtime.js';
import { captureTemplates, secretMarker, seedCluster, seedInstallationFiles, type Templates } from '../support/seeded-worlds.js';

const TTL_SECONDS = 7_200;
type Reply = { status: number; body: any; text: string };

describe('agent token lifetime and scope', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  let templates: Templates;
  const user = () => ({ Authorization: `Bearer ${env.adminToken}` });
  const asAgent = (token: string) => ({ ...AGENT_VERSION_HEADER, 'X-Secret-Key': token });
  /** A call through the API (as the admin unless told), or to a URL the service handed out (pre-signed). */
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = user()): Promise<Reply> => {
    if (!path.startsWith('http')) return apiClient(env.runtime.url, env.adminToken).call(method, path, body, headers);
    const response = await fetch(path, { method, headers });
    const text = await response.text();
    return { status: response.status, body: text.startsWith('{') ? JSON.parse(text) : undefined, text };
  };
  const discoveryToken = async (infraEnvId: string): Promise<string> => {
    const ignition = await call('GET', `/infra-envs/${infraEnvId}/downloads/files?file_name=discovery.ign`);
    expect(ignition.status, ignition.text).toBe(200);
    return /PULL_SECRET_TOKEN=([A-Za-z0-9_.-]+)/.exec(ignition.text)![1]!;
  };
  const newInfraEnv = async (): Promise<string> => {
    const created = await call('POST', '/infra-envs', { name: 'lifetime', pull_secret: PULL_SECRET });
    expect(created.status, created.text).toBe(201);
    return created.body.id as string;
  };
  /** A 401/403 in upstream's infra_error shape, with a reason that says what to do and no token in it. */
  const expectRefusal = (reply: Reply, status: 401 | 403, reason: RegExp, token?: string) => {
    expect(reply.status, reply.text).toBe(status);
    expect(reply.body).toEqual({ code: status, message: expect.stringMatching(reason) });
    if (token) expect(reply.text).not.toContain(token.split('.')[2]!);
  };

  beforeAll(async () => {
    process.env.AGENT_TOKEN_TTL_SECONDS = String(TTL_SECONDS);
    process.env.ASSISTED_LOCAL_CACHES = 'off';
    env = await testRuntime();
    templates = await captureTemplates((method, path, body) => call(method, path, body));
  }, 180_000);
  afterAll(async () => {
    delete process.env.AGENT_TOKEN_TTL_SECONDS;
    delete process.env.ASSISTED_LOCAL_CACHES;
    await env?.close();
  });

  it('hands a fresh token with each discovery.ign that expires the configured lifetime later, and refuses it expired with what to do', async () => {
    const infraEnvId = await newInfraEnv();
    const before = Math.floor(Date.now() / 1000);
    const token = await discoveryToken(infraEnvId);
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({ infra_env_id: infraEnvId, org_id: 'default', epoch: 0 });
    expect(claims.exp! - before).toBeGreaterThanOrEqual(TTL_SECONDS - 1);
    expect(claims.exp! - before).toBeLessThanOrEqual(TTL_SECONDS + 60);
    expect((await call('GET', `/infra-envs/${infraEnvId}`, undefined, asAgent(token))).status).toBe(200);
    const again = await discoveryToken(infraEnvId);
    expect(again).not.toBe(token);
    expect(decodeJwt(again).exp!).toBeGreaterThanOrEqual(claims.exp!);

    // The same token once its lifetime has passed.
    const expiredAt = new Date(Date.now() - 1_000);
    const expired = await issueAgentToken(container().config.agentSigningKeyPem, { orgId: 'default', infraEnvId, expiresAt: expiredAt });
    for (const [method, path, body] of [
      ['GET', `/infra-envs/${infraEnvId}`],
      ['POST', `/infra-envs/${infraEnvId}/hosts`, { host_id: '5d6d7f0e-0000-4000-8000-000000000001' }],
    ] as const) {
      expectRefusal(
        await call(method, path, body, asAgent(expired)),
        401,
        new RegExp(
          `^The agent token expired at ${expiredAt.toISOString().slice(0, 19)}.*: the discovery image or ignition it came in is too old\\. Download a new discovery image \\(or discovery\\.ign\\) for the infra-env and boot the host from it$`,
        ),
        expired,
      );
    }
  });

  it('bakes into each image a token of its renewal window, and makes the image anew with a fresh token when the window passes or the key is regenerated', async () => {
    const infraEnvId = await newInfraEnv();
    const ports = container();
    const renewal = imageTokenRenewalSeconds(TTL_SECONDS);
    const windowStart = Math.ceil(Date.now() / 1000 / renewal) * renewal;
    let clock = new Date(windowStart * 1000 + 1_000);
    const deps = { ...ports, clock: { now: () => clock } };
    const bakedToken = async (): Promise<{ key: string; created: boolean; token: string }> => {
      const infraEnv = (await ports.store.infraEnvs.get({ orgId: 'default', infraEnvId }))!;
      const { version, arch } = imageReleaseOf(infraEnv);
      const image = await ensureDiscoveryImage(deps, infraEnv, { type: 'full-iso', version, arch });
      const { ignition } = (await loadBaseImage(ports.blobs, version, arch, 'full-iso'))!.layout;
      const iso = Buffer.from((await ports.blobs.get('images', image.key))!);
      const embedded = gunzipSync(iso.subarray(ignition.offset, ignition.offset + ignition.length)).toString('latin1');
      return { key: image.key, created: image.created, token: /PULL_SECRET_TOKEN=([A-Za-z0-9_.-]+)/.exec(embedded)![1]! };
    };

    const first = await bakedToken();
    expect(decodeJwt(first.token)).toMatchObject({ infra_env_id: infraEnvId, epoch: 0, exp: windowStart + TTL_SECONDS });
    expect((await call('GET', `/infra-envs/${infraEnvId}`, undefined, asAgent(first.token))).status).toBe(200);
    // Later in the same window: the same image, the same token.
    clock = new Date((windowStart + renewal - 1) * 1000);
    expect(await bakedToken()).toEqual({ ...first, created: false });
    // The next window: a new image whose token lives a window longer.
    clock = new Date((windowStart + renewal) * 1000);
    const renewed = await bakedToken();
    expect(renewed.created).toBe(true);
    expect(renewed.key).not.toBe(first.key);
    expect(decodeJwt(renewed.token)).toMatchObject({ epoch: 0, exp: windowStart + renewal + TTL_SECONDS });

    // Regenerating the key: the image is made anew with a token of the new epoch; the old one is refused.
    expect((await call('POST', `/infra-envs/${infraEnvId}/regenerate-signing-key`)).status).toBe(204);
    const regenerated = await bakedToken();
    expect(regenerated.created).toBe(true);
    expect(decodeJwt(regenerated.token)).toMatchObject({ epoch: 1 });
    expectRefusal(
      await call('GET', `/infra-envs/${infraEnvId}`, undefined, asAgent(renewed.token)),
      401,
      /superseded when the infra-env's signing key was regenerated\. Download a new discovery image/,
      renewed.token,
    );
    expect((await call('GET', `/infra-envs/${infraEnvId}`, undefined, asAgent(regenerated.token))).status).toBe(200);
  }, 120_000);

  it('supersedes every token and URL of an infra-env when its signing key is regenerated, and issues working ones after', async () => {
    const infraEnvId = await newInfraEnv();
    const token = await discoveryToken(infraEnvId);
    const presigned = (await call('GET', `/infra-envs/${infraEnvId}/downloads/files-presigned?file_name=discovery.ign`)).body.url as string;
    const imageUrl = (await call('GET', `/infra-envs/${infraEnvId}/downloads/image-url`)).body.url as string;
    expect((await call('GET', presigned, undefined, {})).status).toBe(200);
    expect((await call('GET', `/infra-envs/${infraEnvId}/hosts`, undefined, asAgent(token))).status).toBe(200);

    expect((await call('POST', `/infra-envs/${infraEnvId}/regenerate-signing-key`)).status).toBe(204);
    for (const path of [`/infra-envs/${infraEnvId}`, `/infra-envs/${infraEnvId}/hosts`, `/infra-envs/${infraEnvId}/downloads/files?file_name=discovery.ign`]) {
      expectRefusal(
        await call('GET', path, undefined, asAgent(token)),
        401,
        /^The agent token was superseded when the infra-env's signing key was regenerated\. Download a new discovery image/,
        token,
      );
    }
    expectRefusal(
      await call('GET', presigned, undefined, {}),
      401,
      /^This pre-signed URL was superseded when the infra-env's signing key was regenerated; ask for a new one$/,
    );
    // Image URLs are signed with the key itself (upstream's regeneration).
    const image = await fetch(imageUrl, { redirect: 'manual' });
    expect(image.status).toBe(401);
    const fresh = await discoveryToken(infraEnvId);
    expect(decodeJwt(fresh)).toMatchObject({ epoch: 1 });
    expect((await call('GET', `/infra-envs/${infraEnvId}/hosts`, undefined, asAgent(fresh))).status).toBe(200);
    expect(
      (await call('GET', (await call('GET', `/infra-envs/${infraEnvId}/downloads/files-presigned?file_name=discovery.ign`)).body.url, undefined, {})).status,
    ).toBe(200);
  });

  it('refuses the token of a deleted infra-env (401), even one a host used a moment before', async () => {
    const infraEnvId = await newInfraEnv();
    const token = await discoveryToken(infraEnvId);
    expect((await call('GET', `/infra-envs/${infraEnvId}`, undefined, asAgent(token))).status).toBe(200);
    expect((await call('DELETE', `/infra-envs/${infraEnvId}`)).status).toBe(204);
    for (let i = 0; i < 3; i++) {
      expectRefusal(
        await call('GET', `/infra-envs/${infraEnvId}`, undefined, asAgent(token)),
        401,
        /^The agent token names an infra-env that no longer exists$/,
        token,
      );
    }
  });

  it('keeps an expired or superseded token serving the installation under way, and nothing else', async () => {
    // A worker still joining while the cluster finalizes (a seeded 'installing' cluster without its
    // workflow is failed by its next judgement).
    await env.runtime.streams.pause();
    const seeded = await seedCluster(templates, { clusterStatus: 'finalizing', hostStatus: 'installing-in-progress', hostStage: 'Rebooting' });
    await seedInstallationFiles(seeded.clusterId);
    const key = container().config.agentSigningKeyPem;
    const expired = await issueAgentToken(key, { orgId: 'default', infraEnvId: seeded.infraEnvId, expiresAt: new Date(Date.now() - 60_000) });
    const hostPath = `/infra-envs/${seeded.infraEnvId}/hosts/${seeded.hostId}`;

    const progress = await call('PUT', `${hostPath}/progress`, { current_stage: 'Configuring', progress_info: '' }, asAgent(expired));
    expect(progress.status, progress.text).toBeLessThan(300);
    expect((await call('GET', `${hostPath}/instructions`, undefined, asAgent(expired))).status).toBe(200);
    expect((await call('GET', `/clusters/${seeded.clusterId}`, undefined, asAgent(expired))).status).toBe(200);
    const kubeconfig = await call('GET', `/clusters/${seeded.clusterId}/downloads/credentials?file_name=kubeconfig-noingress`, undefined, asAgent(expired));
    expect(kubeconfig.status, kubeconfig.text).toBe(200);
    expect(kubeconfig.text).toContain(secretMarker(seeded.clusterId, 'kubeconfig-noingress'));
    // Not a new host, nor the infra-env's discovery material.
    expectRefusal(
      await call('POST', `/infra-envs/${seeded.infraEnvId}/hosts`, { host_id: '5d6d7f0e-0000-4000-8000-000000000002' }, asAgent(expired)),
      401,
      /^The agent token expired at /,
    );
    expectRefusal(
      await call('GET', `/infra-envs/${seeded.infraEnvId}/downloads/files?file_name=discovery.ign`, undefined, asAgent(expired)),
      401,
      /^The agent token expired at /,
    );

    // Regenerating the key while the host installs: its token still serves the installation.
    const current = await issueAgentToken(key, { orgId: 'default', infraEnvId: seeded.infraEnvId });
    expect((await call('POST', `/infra-envs/${seeded.infraEnvId}/regenerate-signing-key`)).status).toBe(204);
    const more = await call('PUT', `${hostPath}/progress`, { current_stage: 'Joined', progress_info: '' }, asAgent(current));
    expect(more.status, more.text).toBeLessThan(300);
    expectRefusal(await call('GET', `/infra-envs/${seeded.infraEnvId}`, undefined, asAgent(current)), 401, /^The agent token was superseded/);
  });

  it("closes an installed cluster's material to agents at once, and its reports and logs after the controller's wrap-up; users keep everything", async () => {
    const seeded = await seedCluster(templates, { clusterStatus: 'finalizing', hostStatus: 'installed', hostStage: 'Done' });
    await seedInstallationFiles(seeded.clusterId);
    const agent = asAgent(await issueAgentToken(container().config.agentSigningKeyPem, { orgId: 'default', infraEnvId: seeded.infraEnvId }));
    const cluster = `/clusters/${seeded.clusterId}`;
    const material = [
      `${cluster}/downloads/credentials?file_name=kubeconfig-noingress`,
      `${cluster}/downloads/files?file_name=master.ign`,
      `/infra-env/${seeded.infraEnvId}/hosts/${seeded.hostId}/downloads/ignition`,
    ];
    // While finalizing, the installer's material is the agent's.
    expect((await call('GET', material[0]!, undefined, agent)).text).toContain(secretMarker(seeded.clusterId, 'kubeconfig-noingress'));
    expect((await call('GET', material[1]!, undefined, agent)).text).toContain(secretMarker(seeded.clusterId, 'master.ign'));

    const installedAt = async (at: Date) =>
      container().store.clusters.mutate({ orgId: 'default', clusterId: seeded.clusterId }, (current) => ({
        ...current,
        status: 'installed',
        attributes: { ...current.attributes, install_completed_at: at.toISOString() },
      }));
    await installedAt(new Date(Date.now() - 10 * 60_000));
    for (const path of material) {
      expectRefusal(
        await call('GET', path, undefined, agent),
        403,
        new RegExp(
          `^Cluster ${seeded.clusterId} is installed: agent tokens may no longer fetch its installation files, credentials or ignitions\\. Its files and credentials are for users`,
        ),
      );
    }
    // The controller's wrap-up: its last reports and its logs.
    expect((await call('GET', cluster, undefined, agent)).status).toBe(200);
    expect((await call('PUT', `${cluster}/logs-progress`, { logs_state: 'requested' }, agent)).status).toBe(204);
    const form = new FormData();
    form.set('upfile', new Blob([Buffer.from('controller logs')]), 'controller_logs.tar.gz');
    const upload = await fetch(`${env.runtime.url}/api/assisted-install/v2${cluster}/logs?logs_type=controller`, {
      method: 'POST',
      headers: agent,
      body: form,
    });
    expect(upload.status, await upload.text()).toBe(204);
    expect((await call('POST', `${cluster}/actions/complete-installation`, { is_success: true }, agent)).status).toBe(202);
    // Users keep the cluster's credentials.
    expect((await call('GET', `${cluster}/downloads/credentials?file_name=kubeconfig`)).text).toContain(secretMarker(seeded.clusterId, 'kubeconfig-noingress'));

    await installedAt(new Date(Date.now() - 3 * 3_600_000));
    for (const [method, path, body] of [
      ['PUT', `${cluster}/logs-progress`, { logs_state: 'completed' }],
      ['POST', `${cluster}/actions/complete-installation`, { is_success: true }],
      ['PUT', `${cluster}/progress`, { finalizing_stage: 'Done' }],
      ['PUT', `${cluster}/monitored-operators`, { name: 'console', status: 'available', status_info: 'ok', version: '4.18.0' }],
      ['PUT', `/infra-envs/${seeded.infraEnvId}/hosts/${seeded.hostId}/progress`, { current_stage: 'Done' }],
    ] as const) {
      expectRefusal(
        await call(method, path, body, agent),
        403,
        new RegExp(
          `^Cluster ${seeded.clusterId} is installed: its installation completed more than 2 hours ago, and agent tokens may no longer report on it or upload its logs`,
        ),
      );
    }
    expect((await call('GET', cluster, undefined, agent)).status).toBe(200);
    expect((await call('GET', `${cluster}/downloads/credentials?file_name=kubeadmin-password`)).text).toBe(
      secretMarker(seeded.clusterId, 'kubeadmin-password'),
    );
  });
});
