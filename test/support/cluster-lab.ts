/**
 * A cluster brought to `ready` through the REST API the way agents would: registrations, recorded
 * inventories (test/fixtures/inventories) and the replies a healthy lab gives. Shared by the
 * lifecycle, installation and day-2 suites, which go on from there.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { container } from '../../lambdas/platform/container.js';
import { issueAgentToken } from '../../lambdas/usecases/agent-tokens.js';
import { PULL_SECRET, sshPublicKey, AGENT_VERSION_HEADER } from './fixtures.js';
import { setTimeout as sleep } from 'node:timers/promises';

export type Json = Record<string, any>;
export const API_VIP = '192.168.111.5';
export const INGRESS_VIP = '192.168.111.4';
export const FIVE_HOSTS = ['master-0', 'master-1', 'master-2', 'worker-0', 'worker-1'];

export const inventoryFixture = (name: string): Json =>
  JSON.parse(readFileSync(path.join(import.meta.dirname, '../fixtures/inventories', `${name}.json`), 'utf8')) as Json;

export interface ApiClient {
  call(method: string, route: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; text: string; headers: Headers }>;
  user(): Record<string, string>;
}

export function apiClient(url: string, adminToken: string): ApiClient {
  return {
    user: () => ({ Authorization: `Bearer ${adminToken}` }),
    async call(method, route, body, headers = {}) {
      const response = await fetch(`${url}/api/assisted-install/v2${route}`, {
        method,
        headers: { ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: response.status, body: parsed, text, headers: response.headers };
    },
  };
}

export interface LabCluster {
  clusterId: string;
  infraEnvId: string;
  agent: Record<string, string>;
  hostIds: string[];
  names: string[];
  /** Posts one step reply for host `i` (a failed one with `failure`'s exit code and error). */
  reply(i: number, stepType: string, output: unknown, failure?: { exit_code: number; error: string }): Promise<{ status: number }>;
  poll(i: number): Promise<Json>;
  /** Sends host `i`'s recorded inventory and the replies a healthy lab gives (again, after a reset). */
  rediscover(i: number): Promise<void>;
}

/** The OpenShift version the service offers by default. */
export async function defaultVersion(api: ApiClient): Promise<string> {
  const versions = (await api.call('GET', '/openshift-versions', undefined, api.user())).body as Record<string, { default?: boolean }>;
  return Object.entries(versions).find(([, v]) => v.default)![0];
}

/** A new cluster of `version` with `cluster`'s settings (none when null: a pool infra-env), its infra-env, and an agent token for that. */
export async function infraEnvWithAgent(
  api: ApiClient,
  version: string,
  cluster: Json | null,
): Promise<{ clusterId?: string; infraEnvId: string; agent: Record<string, string> }> {
  let clusterId: string | undefined;
  if (cluster) {
    const created = await api.call(
      'POST',
      '/clusters',
      { name: `c${randomUUID().slice(0, 6)}`, openshift_version: version, pull_secret: PULL_SECRET, base_dns_domain: 'example.com', ...cluster },
      api.user(),
    );
    expect(created.status, created.text).toBe(201);
    clusterId = created.body.id;
  }
  const infraEnv = await api.call(
    'POST',
    '/infra-envs',
    { name: `ie${randomUUID().slice(0, 6)}`, pull_secret: PULL_SECRET, ...(clusterId ? { cluster_id: clusterId } : {}) },
    api.user(),
  );
  expect(infraEnv.status, infraEnv.text).toBe(201);
  const infraEnvId = infraEnv.body.id as string;
  const agent = { ...AGENT_VERSION_HEADER, 'X-Secret-Key': await issueAgentToken(container().config.agentSigningKeyPem, { orgId: 'default', infraEnvId }) };
  return { ...(clusterId ? { clusterId } : {}), infraEnvId, agent };
}

/**
 * A cluster named `name` in example.com with the given recorded hosts, all `known`, the cluster
 * `ready`; `settings` are more fields of its registration (a single node's machine network, say).
 */
export async function readyCluster(
  api: ApiClient,
  options: { name?: string; hosts?: string[]; baseDomain?: string; settings?: Json } = {},
): Promise<LabCluster> {
  const names = options.hosts ?? FIVE_HOSTS;
  const clusterName = options.name ?? 'ocp';
  const baseDomain = options.baseDomain ?? 'example.com';
  const singleNode = names.length === 1;
  const version = await defaultVersion(api);
  const cluster = await api.call(
    'POST',
    '/clusters',
    {
      name: clusterName,
      openshift_version: version,
      pull_secret: PULL_SECRET,
      base_dns_domain: baseDomain,
      ssh_public_key: sshPublicKey(),
      additional_ntp_source: 'clock.example.com',
      ...(singleNode
        ? { control_plane_count: 1, high_availability_mode: 'None', user_managed_networking: true }
        : { api_vips: [{ ip: API_VIP }], ingress_vips: [{ ip: INGRESS_VIP }] }),
      ...options.settings,
    },
    api.user(),
  );
  expect(cluster.status, JSON.stringify(cluster.body)).toBe(201);
  const clusterId = cluster.body.id as string;
  const infraEnv = await api.call('POST', '/infra-envs', { name: clusterName, pull_secret: PULL_SECRET, cluster_id: clusterId }, api.user());
  expect(infraEnv.status, JSON.stringify(infraEnv.body)).toBe(201);
  const infraEnvId = infraEnv.body.id as string;
  const agent = { ...AGENT_VERSION_HEADER, 'X-Secret-Key': await issueAgentToken(container().config.agentSigningKeyPem, { orgId: 'default', infraEnvId }) };
  const hostIds = names.map(() => randomUUID());
  const inventories = names.map((name) => inventoryFixture(name));
  const ips = inventories.map((inv) => (inv.interfaces[0].ipv4_addresses[0] as string).split('/')[0]!);
  const base = `${clusterName}.${baseDomain}`;
  const apiIp = singleNode ? ips[0]! : API_VIP;
  const ingressIp = singleNode ? ips[0]! : INGRESS_VIP;

  const reply = (i: number, step_type: string, output: unknown, failure?: { exit_code: number; error: string }) =>
    api.call(
      'POST',
      `/infra-envs/${infraEnvId}/hosts/${hostIds[i]}/instructions`,
      { step_type, step_id: `${step_type}-${randomUUID().slice(0, 8)}`, output: JSON.stringify(output), ...failure },
      agent,
    );
  const poll = async (i: number) =>
    (await api.call('GET', `/infra-envs/${infraEnvId}/hosts/${hostIds[i]}/instructions?timestamp=${Math.floor(Date.now() / 1000)}`, undefined, agent))
      .body as Json;

  for (const id of hostIds) expect((await api.call('POST', `/infra-envs/${infraEnvId}/hosts`, { host_id: id }, agent)).status).toBe(201);
  for (const [i] of hostIds.entries()) {
    await poll(i);
    expect((await reply(i, 'inventory', inventories[i])).status).toBe(204);
  }
  const healthyReplies = async (i: number) => {
    const others = hostIds.map((id, j) => ({ id, j })).filter(({ j }) => j !== i);
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
    await reply(i, 'free-network-addresses', [{ network: '192.168.111.0/24', free_addresses: [API_VIP, INGRESS_VIP, '192.168.111.100'] }]);
    await reply(i, 'domain-resolution', {
      resolutions: [
        { domain_name: 'quay.io', ipv4_addresses: ['203.0.113.10'], ipv6_addresses: [], cnames: [] },
        { domain_name: `api.${base}`, ipv4_addresses: [apiIp], ipv6_addresses: [], cnames: [] },
        { domain_name: `api-int.${base}`, ipv4_addresses: [apiIp], ipv6_addresses: [], cnames: [] },
        { domain_name: `console-openshift-console.apps.${base}`, ipv4_addresses: [ingressIp], ipv6_addresses: [], cnames: [] },
        { domain_name: `validateNoWildcardDNS.${base}`, ipv4_addresses: [], ipv6_addresses: [], cnames: [] },
        { domain_name: `validateNoWildcardDNS.${base}.`, ipv4_addresses: [], ipv6_addresses: [], cnames: [] },
      ],
    });
    await reply(i, 'ntp-synchronizer', { ntp_sources: [{ source_name: 'clock.example.com', source_state: 'synced' }] });
  };
  // A host that reported before its peers did is judged again when they report: one round is enough.
  for (const [i] of hostIds.entries()) await healthyReplies(i);

  const hosts = (await api.call('GET', `/clusters/${clusterId}/hosts`, undefined, api.user())).body as Json[];
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
  const ready = (await api.call('GET', `/clusters/${clusterId}`, undefined, api.user())).body as Json;
  const clusterInfo = JSON.parse(ready.validations_info) as Record<string, { id: string; status: string; message: string }[]>;
  expect({
    status: ready.status,
    failing: Object.values(clusterInfo)
      .flat()
      .filter((v) => v.status !== 'success')
      .map((v) => `${v.id}=${v.status} (${v.message})`),
  }).toEqual({ status: 'ready', failing: [] });
  const rediscover = async (i: number) => {
    await poll(i);
    await reply(i, 'inventory', inventories[i]);
    await healthyReplies(i);
  };
  return { clusterId, infraEnvId, agent, hostIds, names, reply, poll, rediscover };
}

/** Polls `read` until `done` holds or `timeoutMs` passes; returns the last value read. */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number, intervalMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await sleep(intervalMs);
    value = await read();
  }
  return value;
}
