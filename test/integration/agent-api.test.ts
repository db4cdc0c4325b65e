/**
 * The agent-facing endpoints as the upstream agent uses them: register, poll for steps, reply.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { catalogueAgentImages } from '../../lambdas/domain/catalogues/catalogues.js';
import { CONNECTIVITY_FIGURES_REFRESH_MS } from '../../lambdas/domain/agent/step-replies.js';
import { container } from '../../lambdas/platform/container.js';
import { issueAgentToken } from '../../lambdas/usecases/agent-tokens.js';
import { postStepReply } from '../../lambdas/usecases/agent.js';
import { inventory, PULL_SECRET } from '../support/fixtures.js';
import { expectMatchesSchema } from '../support/response-schema.js';
import { testRuntime } from '../support/runtime.js';
import type { HostStatus } from '../../lambdas/domain/host/host-states.js';

type Json = Record<string, any>;

describe('agent endpoints', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  let clusterId: string;
  let infraEnvId: string;
  let agentToken: string;

  const request = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${env.runtime.url}/api/assisted-install/v2${path}`, {
      method,
      headers: { ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
  // The agent the service's hosts run (an agent reporting another version is told to upgrade).
  const AGENT_IMAGE = catalogueAgentImages().agent;
  const asAgent = (token = agentToken) => ({ 'X-Secret-Key': token, discovery_agent_version: AGENT_IMAGE });
  const asUser = () => ({ Authorization: `Bearer ${env.adminToken}` });

  beforeAll(async () => {
    env = await testRuntime();
    const versions = (await request('GET', '/openshift-versions', undefined, asUser())).body;
    const version = Object.keys(versions)[0]!;
    clusterId = (
      await request('POST', '/clusters', { name: 'agents', openshift_version: version, pull_secret: PULL_SECRET, base_dns_domain: 'example.com' }, asUser())
    ).body.id;
    infraEnvId = (await request('POST', '/infra-envs', { name: 'agents', pull_secret: PULL_SECRET, cluster_id: clusterId }, asUser())).body.id;
    agentToken = await issueAgentToken(container().config.agentSigningKeyPem, { orgId: 'default', infraEnvId });
  }, 180_000);
  afterAll(async () => env?.close());

  it('registers a host (201) with the next step runner command the agent expects', async () => {
    const hostId = randomUUID();
    // An agent booted from an older image registers: its step runner is started from the service's image, as upstream.
    const registered = await request(
      'POST',
      `/infra-envs/${infraEnvId}/hosts`,
      { host_id: hostId, discovery_agent_version: 'quay.io/edge-infrastructure/assisted-installer-agent:test' },
      asAgent(),
    );
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    expectMatchesSchema('v2RegisterHost', 201, registered.body);
    expect(registered.body).toMatchObject({ id: hostId, infra_env_id: infraEnvId, cluster_id: clusterId, status: 'discovering', role: 'auto-assign' });
    const runner = registered.body.next_step_runner_command;
    expect(JSON.parse(runner.args[0])).toEqual({ infra_env_id: infraEnvId, host_id: hostId, agent_version: AGENT_IMAGE });

    const steps = await request(
      'GET',
      `/infra-envs/${infraEnvId}/hosts/${hostId}/instructions?timestamp=${Math.floor(Date.now() / 1000)}`,
      undefined,
      asAgent(),
    );
    expect(steps.status).toBe(200);
    expectMatchesSchema('v2GetNextSteps', 200, steps.body);
    expect(steps.body).toMatchObject({ next_instruction_seconds: 60, post_step_action: 'continue' });
    expect(steps.body.instructions).toEqual([{ step_type: 'inventory', step_id: expect.stringMatching(/^inventory-[0-9a-f]{8}$/), args: [hostId] }]);
  });

  it('answers a registration as upstream builds the host (no progress, no installation disk), and stores the disk upstream picks from the inventory', async () => {
    const hostId = randomUUID();
    const registered = await request('POST', `/infra-envs/${infraEnvId}/hosts`, { host_id: hostId }, asAgent());
    expect(registered.body).not.toHaveProperty('progress');
    // The name the host goes by: its id until it reports one.
    expect(registered.body.requested_hostname).toBe(hostId);
    expect(
      (
        await request(
          'POST',
          `/infra-envs/${infraEnvId}/hosts/${hostId}/instructions`,
          { step_type: 'inventory', step_id: 'inventory-00000001', output: inventory('master-9') },
          asAgent(),
        )
      ).status,
    ).toBe(204);
    const stored = (await request('GET', `/infra-envs/${infraEnvId}/hosts/${hostId}`, undefined, asUser())).body;
    const reported = JSON.parse(inventory('master-9'));
    expect(stored.requested_hostname).toBe(reported.hostname);
    expect(stored.installation_disk_path).toMatch(/^\/dev\//);
    expect(stored.installation_disk_id).toBeTruthy();
    // Only bootable disks are formatted by default: this inventory reports none.
    expect(stored).not.toHaveProperty('disks_to_be_formatted');
    const again = await request('POST', `/infra-envs/${infraEnvId}/hosts`, { host_id: hostId }, asAgent());
    expect(again.body).not.toHaveProperty('installation_disk_id');
    expect(again.body).not.toHaveProperty('progress');
  });

  it("writes the role a host's judgement suggests (upstream's role selection), and the agent's VIP verdicts on the cluster", async () => {
    const hostId = randomUUID();
    await request('POST', `/infra-envs/${infraEnvId}/hosts`, { host_id: hostId }, asAgent());
    expect((await request('GET', `/infra-envs/${infraEnvId}/hosts/${hostId}`, undefined, asUser())).body.suggested_role).toBe('auto-assign');
    // 8 cores and 32 GiB meet a control-plane node's needs, and the cluster has fewer than 3.
    expect(
      (
        await request(
          'POST',
          `/infra-envs/${infraEnvId}/hosts/${hostId}/instructions`,
          { step_type: 'inventory', step_id: 'inventory-00000001', output: inventory('master-9') },
          asAgent(),
        )
      ).status,
    ).toBe(204);
    expect((await request('GET', `/infra-envs/${infraEnvId}/hosts/${hostId}`, undefined, asUser())).body.suggested_role).toBe('master');
    const messages = ((await request('GET', `/events?host_id=${hostId}`, undefined, asUser())).body as Json[]).map((event) => event.message as string);
    expect(messages.some((message) => /calculated role is master$/.test(message))).toBe(true);

    const vips = await request(
      'PATCH',
      `/clusters/${clusterId}`,
      { api_vips: [{ ip: '192.168.127.100' }], ingress_vips: [{ ip: '192.168.127.101' }] },
      asUser(),
    );
    expect(vips.status, JSON.stringify(vips.body)).toBe(201);
    expect(vips.body.api_vips[0].verification).toBe('unverified');
    const verdicts = [
      { vip: '192.168.127.100', vip_type: 'api', verification: 'succeeded' },
      { vip: '192.168.127.101', vip_type: 'ingress', verification: 'failed' },
    ];
    expect(
      (
        await request(
          'POST',
          `/infra-envs/${infraEnvId}/hosts/${hostId}/instructions`,
          { step_type: 'verify-vips', step_id: 'verify-vips-00000001', output: JSON.stringify(verdicts) },
          asAgent(),
        )
      ).status,
    ).toBe(204);
    const cluster = (await request('GET', `/clusters/${clusterId}`, undefined, asUser())).body;
    expect([cluster.api_vips[0].verification, cluster.ingress_vips[0].verification]).toEqual(['succeeded', 'failed']);
    const ingressValid = Object.values(JSON.parse(cluster.validations_info) as Record<string, Json[]>)
      .flat()
      .find((v) => v.id === 'ingress-vips-valid')!;
    expect(ingressValid).toMatchObject({ status: 'failure', message: expect.stringContaining('127.101> is already in use') });
    // Back as it was for the tests after this one.
    expect((await request('PATCH', `/clusters/${clusterId}`, { api_vips: [], ingress_vips: [] }, asUser())).status).toBe(201);
    expect((await request('DELETE', `/infra-envs/${infraEnvId}/hosts/${hostId}`, undefined, asUser())).status).toBe(204);
  });

  it('stores an inventory reply, deciding disk eligibility itself; the same reply twice changes nothing', async () => {
    const hostId = randomUUID();
    await request('POST', `/infra-envs/${infraEnvId}/hosts`, { host_id: hostId }, asAgent());
    const reply = { step_type: 'inventory', step_id: 'inventory-0000abcd', output: inventory('worker-7') };
    expect((await request('POST', `/infra-envs/${infraEnvId}/hosts/${hostId}/instructions`, reply, asAgent())).status).toBe(204);
    const key = { orgId: 'default', infraEnvId, hostId };
    const stored = (await container().store.hosts.get(key))!;
    const disks = JSON.parse(stored.attributes.inventory as string).disks as Json[];
    // Stored as Go re-serializes it: a false `eligible` is left out, the reasons say why.
    expect(disks.map((d) => d.installation_eligibility.eligible ?? false)).toEqual([true, false]);
    expect(disks[1]!.installation_eligibility.not_eligible_reasons.length).toBeGreaterThan(0);
    expect((await request('GET', `/infra-envs/${infraEnvId}/hosts/${hostId}`, undefined, asUser())).body.inventory).toBe(stored.attributes.inventory);

    expect((await request('POST', `/infra-envs/${infraEnvId}/hosts/${hostId}/instructions`, reply, asAgent())).status).toBe(204);
    expect((await container().store.hosts.get(key))!.version).toBe(stored.version);

    const bad = await request('POST', `/infra-envs/${infraEnvId}/hosts/${hostId}/instructions`, { step_type: 'inventory', output: 'not json' }, asAgent());
    expect(bad.status).toBe(400);
    expect(bad.body.reason).toMatch(/inventory/);
  });

  it('refuses a step reply without a body and a clock reading no 64-bit integer holds, with a 400 that says why', async () => {
    const hostId = randomUUID();
    await request('POST', `/infra-envs/${infraEnvId}/hosts`, { host_id: hostId }, asAgent());
    const empty = await fetch(`${env.runtime.url}/api/assisted-install/v2/infra-envs/${infraEnvId}/hosts/${hostId}/instructions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...asAgent() },
    });
    expect(empty.status).toBe(400);
    const emptyBody = (await empty.json()) as Json;
    expect(emptyBody.reason).toMatch(/step reply is missing/);
    for (const timestamp of ['1e308', '1'.repeat(30), String(2 ** 53 + 2)]) {
      const polled = await request('GET', `/infra-envs/${infraEnvId}/hosts/${hostId}/instructions?timestamp=${timestamp}`, undefined, asAgent());
      expect(polled.status, `timestamp=${timestamp}: ${JSON.stringify(polled.body)}`).toBe(400);
      // Refused for its form (the query's schema), in the shape upstream's framework gives those: {code, message}.
      expect(polled.body.message).toMatch(/timestamp/);
    }
    expect(
      (await request('GET', `/infra-envs/${infraEnvId}/hosts/${hostId}/instructions?timestamp=${Math.floor(Date.now() / 1000)}`, undefined, asAgent())).status,
    ).toBe(200);
  });

  it('keeps liveness from polls without a write per poll', async () => {
    const hostId = randomUUID();
    await request('POST', `/infra-envs/${infraEnvId}/hosts`, { host_id: hostId }, asAgent());
    const key = { orgId: 'default', infraEnvId, hostId };
    const before = (await container().store.hosts.get(key))!;
    for (let i = 0; i < 5; i++) await request('GET', `/infra-envs/${infraEnvId}/hosts/${hostId}/instructions`, undefined, asAgent());
    expect((await container().store.hosts.get(key))!.version).toBe(before.version);
  });

  it('records a connectivity report that moves neither who answered nor a verdict as answered, without rewriting the host; a moved answer or verdict, or old figures, rewrite it', async () => {
    const version = Object.keys((await request('GET', '/openshift-versions', undefined, asUser())).body)[0]!;
    // User-managed networking: the MTU check reads every path, whatever the machine network.
    const umn = (
      await request(
        'POST',
        '/clusters',
        {
          name: 'answers',
          openshift_version: version,
          pull_secret: PULL_SECRET,
          base_dns_domain: 'example.com',
          user_managed_networking: true,
          platform: { type: 'none' },
        },
        asUser(),
      )
    ).body.id;
    const envId = (await request('POST', '/infra-envs', { name: 'answers', pull_secret: PULL_SECRET, cluster_id: umn }, asUser())).body.id;
    const token = await issueAgentToken(container().config.agentSigningKeyPem, { orgId: 'default', infraEnvId: envId });
    const [hostId, peerId] = [randomUUID(), randomUUID()];
    for (const [id, name] of [
      [hostId, 'answers-0'],
      [peerId, 'answers-1'],
    ] as const) {
      await request('POST', `/infra-envs/${envId}/hosts`, { host_id: id }, asAgent(token));
      await request(
        'POST',
        `/infra-envs/${envId}/hosts/${id}/instructions`,
        { step_type: 'inventory', step_id: 'inventory-00000001', output: inventory(name) },
        asAgent(token),
      );
    }
    const report = (rtt: number, peer: { l3?: boolean; mtu?: boolean } = {}) =>
      JSON.stringify({
        remote_hosts: [
          {
            host_id: peerId,
            l2_connectivity: [{ outgoing_nic: 'eth0', remote_ip_address: '192.168.127.11', remote_mac: '52:54:00:aa:bb:02', successful: true }],
            l3_connectivity: [
              { outgoing_nic: 'eth0', remote_ip_address: '192.168.127.11', successful: peer.l3 ?? true, average_rtt_ms: rtt, packet_loss_percentage: 0 },
            ],
            mtu_report: [{ outgoing_nic: 'eth0', remote_ip_address: '192.168.127.11', mtu_successful: peer.mtu ?? true }],
          },
        ],
      });
    const reply = async (output: string) =>
      expect(
        (
          await request(
            'POST',
            `/infra-envs/${envId}/hosts/${hostId}/instructions`,
            { step_type: 'connectivity-check', step_id: 'connectivity-check-00000001', output },
            asAgent(token),
          )
        ).status,
      ).toBe(204);
    const key = { orgId: 'default', infraEnvId: envId, hostId };
    const stored = async () => (await container().store.hosts.get(key))!;
    const view = async () => (await request('GET', `/infra-envs/${envId}/hosts/${hostId}`, undefined, asUser())).body;
    const mtuStatus = (host: { attributes: Record<string, unknown> }) =>
      Object.values(JSON.parse(host.attributes.validations_info as string) as Record<string, Json[]>)
        .flat()
        .find((v) => v.id === 'mtu-valid')?.status;
    // What follows a host write through the stream (its cluster, peers waiting on it) settles first.
    const settled = async () => {
      await sleep(1_500);
      return stored();
    };

    await reply(report(0.4));
    const first = await settled();
    expect(first.attributes).toMatchObject({ connectivity: report(0.4), connectivity_stored_at: first.attributes.connectivity_checked_at });
    expect(mtuStatus(first)).toBe('success');

    // Round-trip times moved: answered, the host item as it was (the answer's time is the service's
    // bookkeeping, which upstream's host document does not show).
    await reply(report(0.9));
    const second = await stored();
    expect(second.version).toBe(first.version);
    expect(second.attributes.connectivity).toBe(report(0.4));
    expect(Date.parse(second.attributes.connectivity_checked_at as string)).toBeGreaterThan(Date.parse(first.attributes.connectivity_checked_at as string));
    expect((await view()).connectivity_checked_at).toBeUndefined();
    // The same report delivered twice: still nothing written to the host.
    await reply(report(0.9));
    expect((await stored()).version).toBe(first.version);
    // Such a report is judged against eventually consistent copies of its cluster and infra-env
    // (half the read units): no strongly consistent read of either. Made in this process, whose
    // store the spies watch.
    const { store } = container();
    const spies = [
      vi.spyOn(store.clusters, 'get'),
      vi.spyOn(store.infraEnvs, 'get'),
      vi.spyOn(store.clusters, 'getEventually'),
      vi.spyOn(store.infraEnvs, 'getEventually'),
    ] as const;
    try {
      await postStepReply(container(), { kind: 'agent', orgId: 'default', infraEnvId: envId }, envId, hostId, {
        step_type: 'connectivity-check',
        step_id: 'connectivity-check-00000002',
        exit_code: 0,
        output: report(1.1),
      });
      expect(spies.map((spy) => spy.mock.calls.length)).toEqual([0, 0, 1, 1]);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect((await stored()).version).toBe(first.version);

    // The figures move a verdict (the MTU check fails): written, judged.
    await reply(report(0.9, { mtu: false }));
    const third = await settled();
    expect(third.version).toBeGreaterThan(first.version);
    expect(third.attributes.connectivity).toBe(report(0.9, { mtu: false }));
    expect(mtuStatus(third)).toBe('failure');

    // Who answered changed: written.
    await reply(report(0.9, { mtu: false, l3: false }));
    const fourth = await settled();
    expect(fourth.version).toBeGreaterThan(third.version);
    expect(fourth.attributes.connectivity).toBe(report(0.9, { mtu: false, l3: false }));

    // Figures stored long enough ago are refreshed with the next report.
    await container().store.hosts.mutate(key, (h) => ({
      ...h,
      attributes: { ...h.attributes, connectivity_stored_at: new Date(Date.now() - CONNECTIVITY_FIGURES_REFRESH_MS).toISOString() },
    }));
    const aged = await settled();
    await reply(report(1.3, { mtu: false, l3: false }));
    const fifth = await stored();
    expect(fifth.version).toBeGreaterThan(aged.version);
    expect(fifth.attributes.connectivity).toBe(report(1.3, { mtu: false, l3: false }));
  });

  it('answers the codes that park an agent only when meant, and keeps agents to their infra-env', async () => {
    const hostId = randomUUID();
    const other = (await request('POST', '/infra-envs', { name: 'other', pull_secret: PULL_SECRET }, asUser())).body.id;
    expect((await request('POST', `/infra-envs/${other}/hosts`, { host_id: hostId }, asAgent())).status).toBe(404);
    expect((await request('POST', `/infra-envs/${infraEnvId}/hosts`, { host_id: hostId }, asUser())).status).toBe(401);
    expect((await request('GET', `/infra-envs/${infraEnvId}/hosts/${randomUUID()}/instructions`, undefined, asAgent())).status).toBe(404);
    expect((await request('POST', `/infra-envs/${infraEnvId}/hosts`, { host_id: 'not-a-uuid' }, asAgent())).status).toBe(400);

    await container().store.clusters.mutate({ orgId: 'default', clusterId }, (c) => ({ ...c, status: 'installed' }));
    const refused = await request('POST', `/infra-envs/${infraEnvId}/hosts`, { host_id: randomUUID() }, asAgent());
    expect(refused.status).toBe(409);
    expect(refused.body.reason).toMatch(/Add hosts/);
    await container().store.clusters.mutate({ orgId: 'default', clusterId }, (c) => ({ ...c, status: 'insufficient' }));
  });

  it('moves a host that re-registers during installation to error', async () => {
    const hostId = randomUUID();
    await request('POST', `/infra-envs/${infraEnvId}/hosts`, { host_id: hostId }, asAgent());
    await container().store.hosts.mutate({ orgId: 'default', infraEnvId, hostId }, (h) => ({ ...h, status: 'installing-in-progress' }));
    const again = await request('POST', `/infra-envs/${infraEnvId}/hosts`, { host_id: hostId }, asAgent());
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ status: 'error', status_info: 'The host unexpectedly restarted during the installation' });
  });

  it('registers a host again as the host table says: wrong boot order waits for the user (then 403), installed is refused (409), rebooted while preparing is known again', async () => {
    const register = (hostId: string) => request('POST', `/infra-envs/${infraEnvId}/hosts`, { host_id: hostId }, asAgent());
    const seeded = async (status: HostStatus, attributes: Record<string, unknown>) => {
      const hostId = randomUUID();
      expect((await register(hostId)).status).toBe(201);
      await container().store.hosts.mutate({ orgId: 'default', infraEnvId, hostId }, (h) => ({ ...h, status, attributes: { ...h.attributes, ...attributes } }));
      return hostId;
    };
    // Booted the discovery image again after the installer wrote the disk and rebooted.
    const rebooted = await seeded('installing-in-progress', { progress: { current_stage: 'Rebooting' }, installation_disk_path: '/dev/vda' });
    const wrongBootOrder = await register(rebooted);
    expect(wrongBootOrder.status).toBe(201);
    expect(wrongBootOrder.body).toMatchObject({ status: 'installing-pending-user-action' });
    expect(wrongBootOrder.body.status_info).toContain('fix boot order');
    const again = await register(rebooted);
    expect(again.status).toBe(403);
    expect(again.body.message).toContain('/dev/vda');

    const installed = await seeded('installed', {});
    const refused = await register(installed);
    expect(refused.status).toBe(409);
    expect((await container().store.hosts.get({ orgId: 'default', infraEnvId, hostId: installed }))!.status).toBe('installed');

    const preparing = await seeded('preparing-successful', {});
    const back = await register(preparing);
    expect(back.status).toBe(201);
    expect(back.body.status).not.toMatch(/^preparing|^discovering/);
  });

  it('fails an installing host whose step says the discovery media is gone (exit code 256) or whose install step failed, and only disconnects one not installing yet', async () => {
    const register = (hostId: string) => request('POST', `/infra-envs/${infraEnvId}/hosts`, { host_id: hostId }, asAgent());
    const lostMedia = (hostId: string) =>
      request(
        'POST',
        `/infra-envs/${infraEnvId}/hosts/${hostId}/instructions`,
        { step_type: 'inventory', step_id: 'inventory-256', exit_code: 256, error: 'media disconnected' },
        asAgent(),
      );
    const installing = randomUUID();
    expect((await register(installing)).status).toBe(201);
    await container().store.hosts.mutate({ orgId: 'default', infraEnvId, hostId: installing }, (h) => ({
      ...h,
      status: 'installing-in-progress',
      attributes: { ...h.attributes, progress: { current_stage: 'Writing image to disk' } },
    }));
    expect((await lostMedia(installing)).status).toBe(204);
    const failed = (await container().store.hosts.get({ orgId: 'default', infraEnvId, hostId: installing }))!;
    expect(failed.status).toBe('error');
    expect(failed.attributes.media_status).toBe('disconnected');
    const events = (await request('GET', `/events?host_ids=${installing}&infra_env_id=${infraEnvId}`, undefined, asUser())).body as { name: string }[];
    expect(events.map((event) => event.name)).toEqual(expect.arrayContaining(['host_status_updated', 'host_media_disconnected']));

    // An install step failing with the same words as a failure of an earlier attempt still fails the host.
    const again = randomUUID();
    expect((await register(again)).status).toBe(201);
    await container().store.hosts.mutate({ orgId: 'default', infraEnvId, hostId: again }, (h) => ({
      ...h,
      status: 'installing',
      attributes: { ...h.attributes, step_errors: { install: 'exit code 1' } },
    }));
    expect(
      (await request('POST', `/infra-envs/${infraEnvId}/hosts/${again}/instructions`, { step_type: 'install', step_id: 'install-2', exit_code: 1 }, asAgent()))
        .status,
    ).toBe(204);
    const stillFailed = (await container().store.hosts.get({ orgId: 'default', infraEnvId, hostId: again }))!;
    expect([stillFailed.status, stillFailed.attributes.status_info]).toEqual(['error', 'installation command failed']);

    const discovering = randomUUID();
    expect((await register(discovering)).status).toBe(201);
    expect((await lostMedia(discovering)).status).toBe(204);
    expect((await container().store.hosts.get({ orgId: 'default', infraEnvId, hostId: discovering }))!.status).toBe('disconnected');
  });

  it('loses no update when 500 agents register and reply at once against one cluster', async () => {
    const hostIds: string[] = Array.from({ length: 500 }, () => randomUUID());
    const results = await Promise.all(
      hostIds.map(async (hostId, index) => {
        const registered = await request('POST', `/infra-envs/${infraEnvId}/hosts`, { host_id: hostId }, asAgent());
        const replied = await request(
          'POST',
          `/infra-envs/${infraEnvId}/hosts/${hostId}/instructions`,
          { step_type: 'inventory', step_id: 'inventory-1', output: inventory(`node-${index}`) },
          asAgent(),
        );
        return [registered.status, replied.status];
      }),
    );
    expect(results.filter(([r, p]) => r !== 201 || p !== 204)).toEqual([]);
    const hosts = await container().store.hosts.listByCluster({ orgId: 'default', clusterId });
    const ours = hosts.filter((h) => hostIds.includes(h.hostId));
    expect(ours).toHaveLength(500);
    expect(ours.filter((h) => !h.attributes.inventory)).toEqual([]);
    expect(new Set(ours.map((h) => JSON.parse(h.attributes.inventory as string).hostname)).size).toBe(500);
  }, 360_000); // ~85 s alone; shares 2 cores with another suite in CI
});
