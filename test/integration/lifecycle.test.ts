/**
 * Five hosts (3 masters, 2 workers) registering and reporting through the agent endpoints, with
 * recorded inventories and the replies a healthy lab gives: each host reaches `known` and the
 * cluster `ready`, with the events telling the story. Statuses advance on the replies themselves.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { container } from '../../lambdas/platform/container.js';
import { issueAgentToken } from '../../lambdas/usecases/agent-tokens.js';
import { PULL_SECRET, sshPublicKey, AGENT_VERSION_HEADER } from '../support/fixtures.js';
import { testRuntime } from '../support/runtime.js';

type Json = Record<string, any>;
const fixture = (name: string) => readFileSync(path.join(import.meta.dirname, '../fixtures/inventories', `${name}.json`), 'utf8');
const NAMES = ['master-0', 'master-1', 'master-2', 'worker-0', 'worker-1'];
const API_VIP = '192.168.111.5';
const INGRESS_VIP = '192.168.111.4';

describe('host and cluster lifecycle through the agent endpoints', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  let clusterId: string;
  let infraEnvId: string;
  let agent: Record<string, string>;
  const user = () => ({ Authorization: `Bearer ${env.adminToken}` });
  const call = async (method: string, route: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${env.runtime.url}/api/assisted-install/v2${route}`, {
      method,
      headers: { ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };

  beforeAll(async () => {
    env = await testRuntime();
    const versions = (await call('GET', '/openshift-versions', undefined, user())).body as Record<string, { default?: boolean }>;
    const version = Object.entries(versions).find(([, v]) => v.default)![0];
    const cluster = await call(
      'POST',
      '/clusters',
      {
        name: 'ocp',
        openshift_version: version,
        pull_secret: PULL_SECRET,
        base_dns_domain: 'example.com',
        ssh_public_key: sshPublicKey(),
        api_vips: [{ ip: API_VIP }],
        ingress_vips: [{ ip: INGRESS_VIP }],
        additional_ntp_source: 'clock.example.com',
      },
      user(),
    );
    expect(cluster.status, JSON.stringify(cluster.body)).toBe(201);
    clusterId = cluster.body.id;
    infraEnvId = (await call('POST', '/infra-envs', { name: 'ocp', pull_secret: PULL_SECRET, cluster_id: clusterId }, user())).body.id;
    agent = { ...AGENT_VERSION_HEADER, 'X-Secret-Key': await issueAgentToken(container().config.agentSigningKeyPem, { orgId: 'default', infraEnvId }) };
  }, 180_000);
  afterAll(async () => env?.close());

  it('takes 3 masters and 2 workers to known and the cluster to ready', async () => {
    const ids = NAMES.map(() => randomUUID());
    const inventories = NAMES.map((name) => JSON.parse(fixture(name)) as Json);
    const ips = inventories.map((inv) => (inv.interfaces[0].ipv4_addresses[0] as string).split('/')[0]!);
    const reply = (i: number, step_type: string, output: unknown) =>
      call(
        'POST',
        `/infra-envs/${infraEnvId}/hosts/${ids[i]}/instructions`,
        { step_type, step_id: `${step_type}-0000000${i}`, output: JSON.stringify(output) },
        agent,
      );

    for (const id of ids) expect((await call('POST', `/infra-envs/${infraEnvId}/hosts`, { host_id: id }, agent)).status).toBe(201);
    for (const [i, id] of ids.entries()) {
      await call('GET', `/infra-envs/${infraEnvId}/hosts/${id}/instructions?timestamp=${Math.floor(Date.now() / 1000)}`, undefined, agent);
      expect((await reply(i, 'inventory', inventories[i])).status).toBe(204);
    }
    for (const [i] of ids.entries()) {
      const others = ids.map((id, j) => ({ id, j })).filter(({ j }) => j !== i);
      await reply(i, 'connectivity-check', {
        remote_hosts: others.map(({ id, j }) => ({
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
          mtu_report: [{ outgoing_nic: 'enp1s0', remote_ip_address: ips[j], mtu_successful: true }],
        })),
      });
      await reply(i, 'ntp-synchronizer', { ntp_sources: [{ source_name: 'clock.example.com', source_state: 'synced' }] });
      await reply(i, 'free-network-addresses', [{ network: '192.168.111.0/24', free_addresses: [API_VIP, INGRESS_VIP, '192.168.111.100'] }]);
      await reply(i, 'domain-resolution', {
        resolutions: [
          { domain_name: 'quay.io', ipv4_addresses: ['203.0.113.10'], ipv6_addresses: [], cnames: [] },
          { domain_name: 'api.ocp.example.com', ipv4_addresses: [API_VIP], ipv6_addresses: [], cnames: [] },
          { domain_name: 'api-int.ocp.example.com', ipv4_addresses: [API_VIP], ipv6_addresses: [], cnames: [] },
          { domain_name: 'console-openshift-console.apps.ocp.example.com', ipv4_addresses: [INGRESS_VIP], ipv6_addresses: [], cnames: [] },
          { domain_name: 'validateNoWildcardDNS.ocp.example.com', ipv4_addresses: [], ipv6_addresses: [], cnames: [] },
          { domain_name: 'validateNoWildcardDNS.ocp.example.com.', ipv4_addresses: [], ipv6_addresses: [], cnames: [] },
        ],
      });
    }
    // Peers reported after a host's own refresh: one more round lets every host see the full mesh.
    for (const [i] of ids.entries())
      await reply(i, 'ntp-synchronizer', {
        ntp_sources: [
          { source_name: 'clock.example.com', source_state: 'synced' },
          { source_name: 'backup.example.com', source_state: 'combined' },
        ],
      });

    const hosts = (await call('GET', `/clusters/${clusterId}/hosts`, undefined, user())).body as Json[];
    const failing = hosts
      .filter((h) => h.status !== 'known')
      .map((h) => {
        const info = JSON.parse(h.validations_info ?? '{}') as Record<string, { id: string; status: string; message: string }[]>;
        return `${h.requested_hostname ?? h.id} ${h.status}: ${Object.values(info)
          .flat()
          .filter((v) => v.status !== 'success')
          .map((v) => `${v.id}=${v.status} (${v.message})`)
          .join('; ')}`;
      });
    expect(failing).toEqual([]);

    const cluster = (await call('GET', `/clusters/${clusterId}`, undefined, user())).body as Json;
    const clusterInfo = JSON.parse(cluster.validations_info) as Record<string, { id: string; status: string; message: string }[]>;
    const clusterFailing = Object.values(clusterInfo)
      .flat()
      .filter((v) => v.status !== 'success')
      .map((v) => `${v.id}=${v.status} (${v.message})`);
    expect({ status: cluster.status, failing: clusterFailing }).toEqual({ status: 'ready', failing: [] });
    expect(cluster.machine_networks).toMatchObject([{ cidr: '192.168.111.0/24' }]);
    expect(cluster.ready_host_count).toBe(5);

    const events = ((await call('GET', `/events?cluster_id=${clusterId}`, undefined, user())).body as Json[]).map((e) => e.message as string);
    expect(events[0]).toBe('Successfully registered cluster');
    expect(events.filter((m) => /Successfully registered$/.test(m))).toHaveLength(5);
    expect(events.some((m) => /updated status from .* to known/.test(m))).toBe(true);
    expect(events.at(-1)).toMatch(/Updated status of the cluster to ready/);
  }, 120_000);
});
