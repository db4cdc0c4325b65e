/**
 * GET /v2/infra-envs/{id}/downloads/files through the local HTTP server: users and the
 * infra-env's agent download the discovery ignition (valid for Ignition, pointing agents at this
 * service with a working agent token), iPXE scripts and static network files; other callers get
 * 404, bad parameters 400.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { container } from '../../lambdas/platform/container.js';
import { issueAgentToken } from '../../lambdas/usecases/agent-tokens.js';
import { createApiToken } from '../../lambdas/usecases/api-tokens.js';
import { ensureOrganisation } from '../../lambdas/usecases/organisations.js';
import { PULL_SECRET, inventory, sshPublicKey, NETWORK_YAML } from '../support/fixtures.js';
import { expectMatchesSchema } from '../support/response-schema.js';
import { testRuntime } from '../support/runtime.js';
import { upstreamError } from '../support/upstream-errors.js';

type Reply = { status: number; body: any; text: string; bytes: Buffer; headers: Headers };

describe('infra-env file downloads API', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  let workDir: string;

  const call = async (
    method: string,
    urlPath: string,
    body?: unknown,
    headers: Record<string, string> = { Authorization: `Bearer ${env.adminToken}` },
  ): Promise<Reply> => {
    const response = await fetch(`${env.runtime.url}/api/assisted-install/v2${urlPath}`, {
      method,
      headers: { ...headers, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
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
  const files = (infraEnvId: string, query: string) => `/infra-envs/${infraEnvId}/downloads/files?${query}`;
  const newInfraEnv = async (extra: Record<string, unknown> = {}, headers?: Record<string, string>): Promise<string> => {
    const created = await call('POST', '/infra-envs', { name: 'files', pull_secret: PULL_SECRET, ...extra }, headers);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.id;
  };
  const ignitionValidate = (text: string) => {
    const file = path.join(workDir, `${randomUUID()}.ign`);
    writeFileSync(file, text);
    return spawnSync('/usr/bin/ignition-validate', [file], { encoding: 'utf8' });
  };

  beforeAll(async () => {
    env = await testRuntime();
    workDir = mkdtempSync(path.join(tmpdir(), 'infra-env-files-'));
  }, 180_000);
  afterAll(async () => {
    rmSync(workDir, { recursive: true, force: true });
    await env?.close();
  });

  it('gives read-only tokens nothing that carries the agent or image token, and users all of it', async () => {
    const bearer = async (role: 'read-only' | 'user') => ({
      Authorization: `Bearer ${(await createApiToken(container(), { orgId: 'default', name: `files-${role}`, role })).token}`,
    });
    const [readOnly, user] = [await bearer('read-only'), await bearer('user')];
    const infraEnvId = await newInfraEnv({
      static_network_config: [{ network_yaml: NETWORK_YAML, mac_interface_map: [{ mac_address: '52:54:00:00:00:01', logical_nic_name: 'eth0' }] }],
    });
    const secretBearing = [
      files(infraEnvId, 'file_name=discovery.ign'),
      files(infraEnvId, 'file_name=ipxe-script'),
      `/infra-envs/${infraEnvId}/downloads/image-url`,
      `/infra-envs/${infraEnvId}/downloads/files-presigned?file_name=discovery.ign`,
      `/infra-envs/${infraEnvId}/downloads/files-presigned?file_name=ipxe-script`,
    ];
    for (const urlPath of secretBearing) {
      const refused = await call('GET', urlPath, undefined, readOnly);
      expect(refused.status, urlPath).toBe(403);
      expect(refused.body.message, urlPath).toMatch(/carries credentials; a read-only token may not fetch it/);
      expect((await call('GET', urlPath, undefined, user)).status, urlPath).toBe(200);
    }
    expect((await call('GET', files(infraEnvId, 'file_name=static-network-config'), undefined, readOnly)).status).toBe(200);
    // The infra-env itself, listed or read: without its image URL for read-only tokens.
    const seenByUser = await call('GET', `/infra-envs/${infraEnvId}`, undefined, user);
    expect(seenByUser.body.download_url).toMatch(/^http/);
    const seenByReadOnly = await call('GET', `/infra-envs/${infraEnvId}`, undefined, readOnly);
    expect(seenByReadOnly.status).toBe(200);
    expect(seenByReadOnly.body).not.toHaveProperty('download_url');
    expect(seenByReadOnly.body.id).toBe(infraEnvId);
    const listed = ((await call('GET', '/infra-envs', undefined, readOnly)).body as { id: string; download_url?: string }[]).find((i) => i.id === infraEnvId);
    expect(listed).toBeDefined();
    expect(listed).not.toHaveProperty('download_url');
  });

  it("serves the discovery ignition to users and to the infra-env's agent", async () => {
    const id = await newInfraEnv({ ssh_authorized_key: sshPublicKey(), additional_ntp_sources: 'ntp.example.com' });
    const asUser = await call('GET', files(id, 'file_name=discovery.ign'));
    expect(asUser.status, asUser.text).toBe(200);
    expect(asUser.headers.get('content-type')).toBe('application/octet-stream');
    expect(asUser.headers.get('content-disposition')).toBe('attachment; filename="discovery.ign"');
    expect(asUser.headers.get('last-modified')).toMatch(/GMT$/);
    const validation = ignitionValidate(asUser.text);
    expect(`${validation.stdout}${validation.stderr}`).toBe('');
    expect(validation.status).toBe(0);

    const ignition = JSON.parse(asUser.text);
    const agentUnit: string = ignition.systemd.units.find((u: { name: string }) => u.name === 'agent.service').contents;
    expect(agentUnit).toContain(`--url ${env.runtime.url} --infra-env-id ${id} `);
    // The token baked into the image opens this infra-env for the agent.
    const token = /^Environment=PULL_SECRET_TOKEN=(.+)$/m.exec(agentUnit)![1]!;
    expect((await call('GET', `/infra-envs/${id}`, undefined, { 'X-Secret-Key': token })).status).toBe(200);

    const agent = await issueAgentToken(container().config.agentSigningKeyPem, { orgId: 'default', infraEnvId: id });
    const asAgent = await call('GET', files(id, 'file_name=discovery.ign&discovery_iso_type=minimal-iso'), undefined, { 'X-Secret-Key': agent });
    expect(asAgent.status, asAgent.text).toBe(200);
    expect(ignitionValidate(asAgent.text).status).toBe(0);
  });

  it("answers 404 to other organisations and to another infra-env's agent", async () => {
    const id = await newInfraEnv();
    const other = await newInfraEnv();
    await ensureOrganisation(container(), 'org-files', 'Files B');
    const { token: orgB } = await createApiToken(container(), { orgId: 'org-files', name: 'b', role: 'admin' });
    for (const query of ['file_name=discovery.ign', 'file_name=ipxe-script', 'file_name=static-network-config']) {
      const response = await call('GET', files(id, query), undefined, { Authorization: `Bearer ${orgB}` });
      expect(response.status, query).toBe(404);
      expect(response.body).toMatchObject({ kind: 'Error', id: 404 });
    }
    const otherAgent = await issueAgentToken(container().config.agentSigningKeyPem, { orgId: 'default', infraEnvId: other });
    expect((await call('GET', files(id, 'file_name=discovery.ign'), undefined, { 'X-Secret-Key': otherAgent })).status).toBe(404);
    expect((await call('GET', files(randomUUID(), 'file_name=discovery.ign'))).status).toBe(404);
    expect((await call('GET', files(id, 'file_name=discovery.ign'), undefined, {})).status).toBe(401);
  });

  it('refuses unknown files and misplaced parameters with 400', async () => {
    const id = await newInfraEnv();
    for (const query of [
      'file_name=kubeconfig',
      '',
      'file_name=discovery.ign&ipxe_script_type=boot-order-control',
      'file_name=ipxe-script&mac=nope',
      'file_name=discovery.ign&discovery_iso_type=dvd',
    ]) {
      const response = await call('GET', files(id, query));
      expect(response.status, query).toBe(400);
      expect(upstreamError(response.body), query).toMatchObject({ code: '400' });
    }
  });

  it('serves iPXE scripts and sends installed hosts to their disk', async () => {
    const id = await newInfraEnv({ kernel_arguments: [{ operation: 'append', value: 'rd.net.timeout.carrier=30' }] });
    const script = await call('GET', files(id, 'file_name=ipxe-script'));
    expect(script.status, script.text).toBe(200);
    expect(script.headers.get('content-disposition')).toBe(`attachment; filename="${id}-ipxe-script"`);
    expect(script.text).toMatch(
      new RegExp(
        `^#!ipxe\ninitrd --name initrd ${env.runtime.url}/api/assisted-images/images/${id}/pxe-initrd\\?arch=x86_64&image_token=[^&\\s]+&version=\\d+\\.\\d+\n`,
      ),
    );
    expect(script.text).toMatch(/ rd\.net\.timeout\.carrier=30\nboot\n$/);

    const chain = await call('GET', files(id, 'file_name=ipxe-script&ipxe_script_type=boot-order-control'));
    expect(chain.text).toMatch(
      new RegExp(
        `^#!ipxe\nchain ${env.runtime.url}/api/assisted-install/v2/infra-envs/${id}/downloads/files\\?file_name=ipxe-script&image_token=[^&]+&mac=\\$\\{net0/mac\\}\n$`,
      ),
    );

    const now = new Date().toISOString();
    await container().store.hosts.create({
      orgId: 'default',
      infraEnvId: id,
      hostId: randomUUID(),
      status: 'installed',
      createdAt: now,
      updatedAt: now,
      attributes: { inventory: inventory('done') },
    });
    const installedMac = '52:54:00:AA:BB:01'; // the fixture inventory's NIC
    const skipped = await call('GET', files(id, `file_name=ipxe-script&ipxe_script_type=boot-order-control&mac=${installedMac}`));
    expect(skipped.status).toBe(404);
    expect(skipped.body.reason).toMatch(/already installed/);
    const unknownHost = await call('GET', files(id, 'file_name=ipxe-script&ipxe_script_type=boot-order-control&mac=52:54:00:00:00:99'));
    expect(unknownHost.status).toBe(200);
    expect(unknownHost.text).toMatch(/^#!ipxe\ninitrd /);
  });

  it("follows the boot-order-control script's chain as iPXE firmware would: no headers, only its image token", async () => {
    const id = await newInfraEnv();
    const chain = await call('GET', files(id, 'file_name=ipxe-script&ipxe_script_type=boot-order-control'));
    const chained = /^chain (\S+)$/m.exec(chain.text)![1]!.replace('${net0/mac}', '52:54:00:00:00:42');
    const followed = await fetch(chained);
    expect(followed.status, await followed.clone().text()).toBe(200);
    expect(await followed.text()).toMatch(/^#!ipxe\ninitrd /);
    // The image token opens only its own infra-env.
    const elsewhere = await fetch(chained.replace(`/infra-envs/${id}/`, `/infra-envs/${await newInfraEnv()}/`));
    expect(elsewhere.status).toBe(404);
  });

  it('hands out pre-signed URLs for the iPXE script and the discovery ignition that need no other credential', async () => {
    const id = await newInfraEnv();
    const presigned = await call('GET', `/infra-envs/${id}/downloads/files-presigned?file_name=ipxe-script`);
    expect(presigned.status, presigned.text).toBe(200);
    expectMatchesSchema('GetInfraEnvPresignedFileURL', 200, presigned.body);
    expect(Date.parse(presigned.body.expires_at)).toBeGreaterThan(Date.now() + 3_600_000);
    const script = await fetch(presigned.body.url);
    expect(script.status).toBe(200);
    expect(await script.text()).toMatch(/^#!ipxe\ninitrd /);
    const ignition = await call('GET', `/infra-envs/${id}/downloads/files-presigned?file_name=discovery.ign`);
    const ignitionText = await (await fetch(ignition.body.url)).text();
    expect(JSON.parse(ignitionText).ignition.version).toMatch(/^3\./);

    const apiKey = new URL(presigned.body.url).searchParams.get('api_key')!;
    // For downloads only: not an agent's credential, and only for its own infra-env.
    expect((await call('POST', `/infra-envs/${id}/hosts`, { host_id: randomUUID() }, { 'X-Secret-Key': apiKey })).status).toBe(401);
    const other = await newInfraEnv();
    const misused = await fetch(presigned.body.url.replace(`/infra-envs/${id}/`, `/infra-envs/${other}/`));
    expect(misused.status).toBe(401);
    expect(((await misused.json()) as { message: string }).message).toMatch(/another infra-env/);
    const forged = await fetch(presigned.body.url.replace(/api_key=[^&]+/, `api_key=${apiKey.slice(0, -4)}AAAA`));
    expect(forged.status).toBe(401);

    await ensureOrganisation(container(), 'org-presign', 'Presign B');
    const { token: orgB } = await createApiToken(container(), { orgId: 'org-presign', name: 'b', role: 'admin' });
    expect(
      (await call('GET', `/infra-envs/${id}/downloads/files-presigned?file_name=ipxe-script`, undefined, { Authorization: `Bearer ${orgB}` })).status,
    ).toBe(404);
    for (const query of ['file_name=static-network-config', 'file_name=discovery.ign&ipxe_script_type=boot-order-control']) {
      const refused = await call('GET', `/infra-envs/${id}/downloads/files-presigned?${query}`);
      expect(refused.status, query).toBe(400);
    }
  });

  it('packs static network files in a tar, and answers empty without them', async () => {
    const id = await newInfraEnv({
      static_network_config: [{ network_yaml: NETWORK_YAML, mac_interface_map: [{ mac_address: '52:54:00:aa:bb:01', logical_nic_name: 'eth0' }] }],
    });
    const archive = await call('GET', files(id, 'file_name=static-network-config'));
    expect(archive.status, archive.text).toBe(200);
    expect(archive.headers.get('content-disposition')).toBe(`attachment; filename="${id}-static-network-config.tar"`);
    const tarFile = path.join(workDir, `${id}.tar`);
    writeFileSync(tarFile, archive.bytes);
    // Absolute member names, as upstream's archive has them.
    const listing = execFileSync('tar', ['-tf', tarFile], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .split('\n')
      .filter(Boolean);
    expect(listing).toContain('/etc/assisted/network/host0/mac_interface.ini');
    expect(listing.some((entry) => entry.endsWith('.nmconnection'))).toBe(true);
    expect(listing.every((entry) => entry.startsWith('/etc/assisted/network/host0/'))).toBe(true);

    const none = await call('GET', files(await newInfraEnv(), 'file_name=static-network-config'));
    expect(none.status).toBe(200);
    expect(none.bytes.length).toBe(0);
  });
});
