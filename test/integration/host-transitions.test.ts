/**
 * Host transitions driven through the REST endpoints with recorded inventories, beyond the healthy
 * path of lifecycle.test.ts: hosts that cannot be used (too small, no eligible disk, IPv6-only in an
 * IPv4 network), a host waiting for input, a user's change moving a known host out of known and
 * back, and a pool host through binding and unbinding. Each status is what upstream would show, with
 * the validation that explains it.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { container } from '../../lambdas/platform/container.js';
import { issueAgentToken } from '../../lambdas/usecases/agent-tokens.js';
import { monitorHosts } from '../../lambdas/usecases/host-monitor.js';
import { forgetPeers } from '../../lambdas/usecases/cluster-peer-listings.js';
import {
  apiClient,
  API_VIP,
  defaultVersion,
  eventually,
  infraEnvWithAgent,
  INGRESS_VIP,
  inventoryFixture,
  readyCluster,
  type ApiClient,
  type Json,
} from '../support/cluster-lab.js';
import { testRuntime } from '../support/runtime.js';
import { AGENT_VERSION_HEADER } from '../support/fixtures.js';

type Validation = { id: string; status: string; message: string };
const validationsOf = (host: Json): Map<string, Validation> =>
  new Map(
    Object.values(JSON.parse(host.validations_info ?? '{}') as Record<string, Validation[]>)
      .flat()
      .map((v) => [v.id, v]),
  );

describe('host transitions through the REST endpoints', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  let api: ApiClient;
  let version: string;

  beforeAll(async () => {
    env = await testRuntime();
    api = apiClient(env.runtime.url, env.adminToken);
    version = await defaultVersion(api);
  }, 180_000);
  afterAll(async () => env?.close());

  /** An infra-env (bound to a new cluster unless `cluster` is null) and an agent for it. */
  async function lab(cluster: Json | null) {
    const { clusterId, infraEnvId, agent } = await infraEnvWithAgent(api, version, cluster);
    const hostRoute = (hostId: string) => `/infra-envs/${infraEnvId}/hosts/${hostId}`;
    return {
      clusterId,
      infraEnvId,
      async discover(fixture: string) {
        const hostId = randomUUID();
        expect((await api.call('POST', `/infra-envs/${infraEnvId}/hosts`, { host_id: hostId }, agent)).status).toBe(201);
        await this.sendInventory(hostId, fixture);
        return hostId;
      },
      async sendInventory(hostId: string, fixture: string) {
        expect((await api.call('GET', `${hostRoute(hostId)}/instructions`, undefined, agent)).status).toBe(200);
        const reply = await api.call(
          'POST',
          `${hostRoute(hostId)}/instructions`,
          { step_type: 'inventory', step_id: `inventory-${randomUUID().slice(0, 6)}`, output: JSON.stringify(inventoryFixture(fixture)) },
          agent,
        );
        expect(reply.status, reply.text).toBe(204);
      },
      register: async (hostId: string) => (await api.call('POST', `/infra-envs/${infraEnvId}/hosts`, { host_id: hostId }, agent)).status,
      host: async (hostId: string) => (await api.call('GET', hostRoute(hostId), undefined, api.user())).body as Json,
      hostRoute,
    };
  }

  it('keeps an undersized host, one with no eligible disk and an IPv6-only one in an IPv4 network insufficient, each saying why', async () => {
    const cluster = await lab({ api_vips: [{ ip: API_VIP }], ingress_vips: [{ ip: INGRESS_VIP }] });
    // A healthy master puts the cluster's machine network at 192.168.111.0/24.
    await cluster.discover('master-0');
    const undersized = await cluster.host(await cluster.discover('undersized'));
    const noDisk = await cluster.host(await cluster.discover('no-eligible-disk'));
    const ipv6 = await cluster.host(await cluster.discover('ipv6-only'));

    expect(undersized.status).toBe('insufficient');
    expect(validationsOf(undersized).get('has-min-cpu-cores')).toMatchObject({
      status: 'failure',
      message: expect.stringMatching(/minimum required CPU cores for any role is 2, found only 1/),
    });
    expect(validationsOf(undersized).get('has-min-memory')).toMatchObject({ status: 'failure' });

    expect(noDisk.status).toBe('insufficient');
    expect(validationsOf(noDisk).get('has-min-valid-disks')).toMatchObject({ status: 'failure', message: expect.stringMatching(/No eligible disks/) });

    expect(ipv6.status).toBe('insufficient');
    expect(validationsOf(ipv6).get('belongs-to-machine-cidr')).toMatchObject({
      status: 'failure',
      message: expect.stringMatching(/does not belong to machine network/),
    });
  });

  it('judges the hosts again when the user ignores their hardware checks: undersized hosts become control-plane candidates at once, as upstream', async () => {
    const cluster = await lab({ api_vips: [{ ip: API_VIP }], ingress_vips: [{ ip: INGRESS_VIP }] });
    const hostIds = [await cluster.discover('undersized'), await cluster.discover('undersized'), await cluster.discover('undersized')];
    for (const hostId of hostIds) {
      const host = await cluster.host(hostId);
      expect(host).toMatchObject({ status: 'insufficient', suggested_role: 'worker' });
      expect(host.status_info).toMatch(/^Host does not meet the minimum hardware requirements/);
    }
    const ignored = await api.call(
      'PUT',
      `/clusters/${cluster.clusterId}/ignored-validations`,
      { 'host-validation-ids': '["has-min-cpu-cores","has-min-memory","has-cpu-cores-for-role","has-memory-for-role"]' },
      api.user(),
    );
    expect(ignored.status, ignored.text).toBe(201);
    // No monitor pass and no agent news in between: the ignore itself judged them.
    for (const hostId of hostIds) {
      const host = await cluster.host(hostId);
      expect(host).toMatchObject({ status: 'insufficient', suggested_role: 'master' });
      expect(host.status_info).toMatch(/^Host cannot be installed due to following failing validation\(s\): .*for role master/);
    }
  });

  it('waits for input while the cluster lacks its network, and goes on once the user gives it (the monitor re-judges the changed cluster)', async () => {
    const cluster = await lab({});
    const hostId = await cluster.discover('master-0');
    const waiting = await cluster.host(hostId);
    expect(waiting.status).toBe('pending-for-input');
    expect(validationsOf(waiting).get('machine-cidr-defined')?.status).not.toBe('success');

    const patched = await api.call('PATCH', `/clusters/${cluster.clusterId}`, { api_vips: [{ ip: API_VIP }], ingress_vips: [{ ip: INGRESS_VIP }] }, api.user());
    expect(patched.status, patched.text).toBe(201);
    await monitorHosts(container());
    const moved = await cluster.host(hostId);
    expect(validationsOf(moved).get('machine-cidr-defined')?.status).toBe('success');
    expect(moved.status).not.toBe('pending-for-input');
  });

  it('moves a known host to insufficient when the user gives it a hostname another host has, and back to known when it is fixed', async () => {
    const ready = await readyCluster(api, { name: 'renamed' });
    const hostId = ready.hostIds[3]!;
    const route = `/infra-envs/${ready.infraEnvId}/hosts/${hostId}`;
    const taken = inventoryFixture('master-0').hostname as string;
    const renamed = await api.call('PATCH', route, { host_name: taken }, api.user());
    expect(renamed.status, renamed.text).toBe(201);
    expect(renamed.body.status).toBe('insufficient');
    expect(validationsOf(renamed.body).get('hostname-unique')?.status).toBe('failure');
    expect((await api.call('GET', `/clusters/${ready.clusterId}`, undefined, api.user())).body.status).toBe('insufficient');

    const fixed = await api.call('PATCH', route, { host_name: 'worker-0-renamed' }, api.user());
    expect(fixed.status, fixed.text).toBe(201);
    expect(fixed.body.status).toBe('known');
    expect((await api.call('GET', `/clusters/${ready.clusterId}`, undefined, api.user())).body.status).toBe('ready');
  });

  it('takes a pool host from discovery to known-unbound, binds it to a cluster (binding, then a host of that cluster once it registers again) and unbinds it (unbinding, then back in the pool)', async () => {
    const pool = await lab(null);
    const hostId = await pool.discover('master-1');
    const pooled = await pool.host(hostId);
    expect(pooled.status).toBe('known-unbound');
    expect(pooled.cluster_id ?? undefined).toBeUndefined();

    const target = await lab({ api_vips: [{ ip: API_VIP }], ingress_vips: [{ ip: INGRESS_VIP }] });
    const bound = await api.call('POST', `${pool.hostRoute(hostId)}/actions/bind`, { cluster_id: target.clusterId }, api.user());
    expect(bound.status, bound.text).toBe(200);
    expect(bound.body).toMatchObject({ status: 'binding', cluster_id: target.clusterId });

    // The agent restarts against the cluster: discovered anew (upstream forgets the inventory of a
    // host registering again, the hardware may have changed), then judged as that cluster's host once
    // its inventory is in again: the cluster derives its machine network from that inventory and its
    // API VIP (the follow-up of the write, through the table's stream), and the host, judged again
    // against it, waits on what it still lacks.
    expect(await pool.register(hostId)).toBe(201);
    expect(await pool.host(hostId)).toMatchObject({ cluster_id: target.clusterId, status: 'discovering' });
    await pool.sendInventory(hostId, 'master-1');
    const rejoined = await pool.host(hostId);
    expect(rejoined).toMatchObject({ cluster_id: target.clusterId, status: 'insufficient' });
    expect((await api.call('GET', `/clusters/${target.clusterId}`, undefined, api.user())).body.machine_networks).toEqual([
      expect.objectContaining({ cidr: expect.any(String) }),
    ]);

    const unbound = await api.call('POST', `${pool.hostRoute(hostId)}/actions/unbind`, undefined, api.user());
    expect(unbound.status, unbound.text).toBe(200);
    expect(unbound.body.status).toBe('unbinding');
    expect(unbound.body.cluster_id ?? undefined).toBeUndefined();
    // Back in the pool when it registers again, and known-unbound once its inventory is in again.
    expect(await pool.register(hostId)).toBe(201);
    expect((await pool.host(hostId)).status).toBe('discovering-unbound');
    await pool.sendInventory(hostId, 'master-1');
    const back = await pool.host(hostId);
    expect(back.status).toBe('known-unbound');
    expect(back.cluster_id ?? undefined).toBeUndefined();
  });

  it('lifts a host that reported its connectivity before its peers did as soon as they report, without the monitor and without it reporting again', async () => {
    const cluster = await lab({ api_vips: [{ ip: API_VIP }], ingress_vips: [{ ip: INGRESS_VIP }] });
    const names = ['master-0', 'master-1', 'master-2'];
    const ids: string[] = [];
    for (const name of names) ids.push(await cluster.discover(name));
    const agent = {
      ...AGENT_VERSION_HEADER,
      'X-Secret-Key': await issueAgentToken(container().config.agentSigningKeyPem, { orgId: 'default', infraEnvId: cluster.infraEnvId }),
    };
    const inventories = names.map((name) => inventoryFixture(name));
    const ips = inventories.map((inventory) => (inventory.interfaces[0].ipv4_addresses[0] as string).split('/')[0]!);
    const majority = async (i: number) => validationsOf(await cluster.host(ids[i]!)).get('belongs-to-majority-group')?.status;
    const report = async (i: number) => {
      const remote_hosts = ids.flatMap((id, j) =>
        j === i
          ? []
          : [
              {
                host_id: id,
                l2_connectivity: [
                  {
                    outgoing_nic: 'enp1s0',
                    outgoing_ip_address: ips[i],
                    remote_ip_address: ips[j],
                    remote_mac: inventories[j]!.interfaces[0].mac_address,
                    successful: true,
                  },
                ],
                l3_connectivity: [{ outgoing_nic: 'enp1s0', remote_ip_address: ips[j], successful: true, average_rtt_ms: 0.4, packet_loss_percentage: 0 }],
              },
            ],
      );
      const reply = await api.call(
        'POST',
        `${cluster.hostRoute(ids[i]!)}/instructions`,
        { step_type: 'connectivity-check', step_id: `connectivity-check-${i}`, output: JSON.stringify({ remote_hosts }) },
        agent,
      );
      expect(reply.status, reply.text).toBe(204);
    };
    // The cluster derives its machine network from the VIPs once the hosts' inventories are in.
    await eventually(
      () => api.call('GET', `/clusters/${cluster.clusterId}`, undefined, api.user()).then((r) => r.body as Json),
      (c) => (c.machine_networks ?? []).length > 0,
      15_000,
      200,
    );
    await report(0);
    // Nobody reached master-0 yet: it is alone, and stays so until its peers report.
    expect(await majority(0)).toBe('failure');
    await report(1);
    await report(2);
    // master-0's own report did not change (an agent does not send it again), and no monitor ran:
    // the peers' reports alone lift it into the majority group.
    expect(await majority(0)).toBe('success');
    expect(await majority(1)).toBe('success');
    expect(await majority(2)).toBe('success');
  });

  it("judges the master whose fencing credentials complete a two-node fencing cluster against the groups of the topology before, as upstream's update answers, and lifts both once the cluster is judged", async () => {
    const cluster = await lab({ control_plane_count: 2, api_vips: [{ ip: API_VIP }], ingress_vips: [{ ip: INGRESS_VIP }] });
    const names = ['master-0', 'master-1'];
    const ids: string[] = [];
    for (const name of names) ids.push(await cluster.discover(name));
    const agent = { 'X-Secret-Key': await issueAgentToken(container().config.agentSigningKeyPem, { orgId: 'default', infraEnvId: cluster.infraEnvId }) };
    const inventories = names.map((name) => inventoryFixture(name));
    const ips = inventories.map((inventory) => (inventory.interfaces[0].ipv4_addresses[0] as string).split('/')[0]!);
    const majority = (host: Json) => validationsOf(host).get('belongs-to-majority-group');
    for (const [i, id] of ids.entries()) {
      const set = await api.call('PATCH', cluster.hostRoute(id), { host_role: 'master' }, api.user());
      expect(set.status, set.text).toBe(201);
      const j = 1 - i;
      const remote_hosts = [
        {
          host_id: ids[j],
          l2_connectivity: [
            {
              outgoing_nic: 'enp1s0',
              outgoing_ip_address: ips[i],
              remote_ip_address: ips[j],
              remote_mac: inventories[j]!.interfaces[0].mac_address,
              successful: true,
            },
          ],
          l3_connectivity: [{ outgoing_nic: 'enp1s0', remote_ip_address: ips[j], successful: true, average_rtt_ms: 0.4, packet_loss_percentage: 0 }],
        },
      ];
      const reply = await api.call(
        'POST',
        `${cluster.hostRoute(id)}/instructions`,
        { step_type: 'connectivity-check', step_id: `connectivity-check-${i}`, output: JSON.stringify({ remote_hosts }) },
        agent,
      );
      expect(reply.status, reply.text).toBe(204);
    }
    // Two masters without fencing: no majority of 3 to judge yet.
    const before = await eventually(
      () => cluster.host(ids[1]!),
      (host) => majority(host)?.status === 'pending',
      15_000,
    );
    expect(majority(before)?.message).toBe('Not enough hosts in cluster to calculate connectivity groups');
    const fencing = (i: number) =>
      api.call(
        'PATCH',
        cluster.hostRoute(ids[i]!),
        { fencing_credentials: { address: `https://bmc${i}.example.com`, username: 'admin', password: 'secret', certificate_verification: 'Disabled' } },
        api.user(),
      );
    expect((await fencing(0)).status).toBe(201);
    const second = await fencing(1);
    expect(second.status, second.text).toBe(201);
    // Two-node fencing now (2 hosts are enough), judged against the groups of a majority of 3 (none).
    expect(majority(second.body as Json)).toMatchObject({ status: 'failure', message: 'No connectivity to the majority of hosts in the cluster' });
    // The cluster's judgement that follows computes the groups of a majority of 2, and its hosts are judged again.
    for (const id of ids)
      await eventually(
        () => cluster.host(id),
        (host) => majority(host)?.status === 'success',
        15_000,
      );
  });

  it('hands out connectivity checks naming every other inventoried host of the cluster with its NICs, never the host itself, and not again until answered', async () => {
    const cluster = await lab({ api_vips: [{ ip: API_VIP }], ingress_vips: [{ ip: INGRESS_VIP }] });
    const a = await cluster.discover('master-0');
    const b = await cluster.discover('master-1');
    const c = await cluster.discover('master-2');
    const agent = {
      ...AGENT_VERSION_HEADER,
      'X-Secret-Key': await issueAgentToken(container().config.agentSigningKeyPem, { orgId: 'default', infraEnvId: cluster.infraEnvId }),
    };
    type Peer = { host_id: string; nics: { mac: string; ip_addresses: string[] }[] };
    const peersOfCheck = async (): Promise<Peer[]> => {
      const steps = (await api.call('GET', `${cluster.hostRoute(a)}/instructions`, undefined, agent)).body as Json;
      const check = (steps.instructions as Json[]).find((step) => step.step_type === 'connectivity-check');
      return check ? (JSON.parse(check.args[0]) as Peer[]) : [];
    };
    // A report that reached no peer yet: the host still has peers to check.
    const answer = async () => {
      const reply = await api.call(
        'POST',
        `${cluster.hostRoute(a)}/instructions`,
        { step_type: 'connectivity-check', step_id: 'connectivity-check-1', output: JSON.stringify({ remote_hosts: [] }) },
        agent,
      );
      expect(reply.status, reply.text).toBe(204);
    };
    // Checks name the peers as listed within the last few seconds: the newest host joins them shortly.
    const peers = await eventually(
      async () => {
        const named = await peersOfCheck();
        if (named.length > 0 && named.length < 2) await answer();
        return named;
      },
      (list) => list.length === 2,
      15_000,
      500,
    );
    expect(peers.map((peer) => peer.host_id).sort()).toEqual([b, c].sort());
    const master1 = inventoryFixture('master-1');
    expect(peers.find((peer) => peer.host_id === b)!.nics[0]).toMatchObject({
      mac: master1.interfaces[0].mac_address,
      ip_addresses: expect.arrayContaining([master1.interfaces[0].ipv4_addresses[0].split('/')[0]]),
    });
    // While the agent runs that check, its polls do not hand it the whole peer list again...
    expect(await peersOfCheck()).toEqual([]);
    // ...and once it answered, the next poll does.
    await answer();
    expect((await peersOfCheck()).map((peer) => peer.host_id).sort()).toEqual([b, c].sort());
  });

  it("does not leave a host out of its majority group on a peer listing older than its peers' reports (written by another process)", async () => {
    const ready = await readyCluster(api, { hosts: ['master-0', 'master-1', 'master-2'], name: 'stale-peers' });
    const [x, p, q] = ready.hostIds as [string, string, string];
    const key = (hostId: string) => ({ orgId: 'default', infraEnvId: ready.infraEnvId, hostId });
    const withoutX = (connectivity: string) => {
      const report = JSON.parse(connectivity) as { remote_hosts: { host_id: string }[] };
      return JSON.stringify({ ...report, remote_hosts: report.remote_hosts.filter((remote) => remote.host_id !== x) });
    };
    const reports = new Map<string, string>();
    for (const peer of [p, q]) reports.set(peer, (await container().store.hosts.get(key(peer)))!.attributes.connectivity as string);
    // The peers' reports as they were before they reached x...
    for (const peer of [p, q])
      await container().store.hosts.mutate(key(peer), (h) => ({ ...h, attributes: { ...h.attributes, connectivity: withoutX(reports.get(peer)!) } }));
    forgetPeers('default', ready.clusterId);
    // ...are what this process lists when q's NTP report is judged (the listing is then shared for a few seconds)...
    expect(
      (
        await ready.reply(2, 'ntp-synchronizer', {
          ntp_sources: [
            { source_name: 'clock.example.com', source_state: 'synced' },
            { source_name: 'q.example.com', source_state: 'unreachable' },
          ],
        })
      ).status,
    ).toBe(204);
    // ...while another process writes their reports as they are now.
    for (const peer of [p, q])
      await container().store.hosts.mutate(key(peer), (h) => ({ ...h, attributes: { ...h.attributes, connectivity: reports.get(peer) } }));
    // x's NTP report, judged on the shared listing, would find x alone: the verdict is checked anew before it stands.
    expect(
      (
        await ready.reply(0, 'ntp-synchronizer', {
          ntp_sources: [
            { source_name: 'clock.example.com', source_state: 'synced' },
            { source_name: 'x.example.com', source_state: 'unreachable' },
          ],
        })
      ).status,
    ).toBe(204);
    const host = (await api.call('GET', `/infra-envs/${ready.infraEnvId}/hosts/${x}`, undefined, api.user())).body as Json;
    expect(validationsOf(host).get('belongs-to-majority-group')?.status).toBe('success');
    expect(host.status).toBe('known');
  });
});
