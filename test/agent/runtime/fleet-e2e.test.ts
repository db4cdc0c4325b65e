/**
 * A fleet of 5 SIMULATED hosts (3 master profiles, 2 worker) against the real local stack: every
 * host registers through the real API, answers the service's steps from its profile and the fleet's
 * shared network, and reaches `known`; the cluster reaches `ready`. Nothing is scripted on the
 * service side: it hands out the steps it decides on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { container } from '../../../lambdas/platform/container.js';
import { issueAgentToken } from '../../../lambdas/usecases/agent-tokens.js';
import { createLog } from '../../../agent/src/log.js';
import { Fleet } from '../../../agent/src/simulate/fleet.js';
import { agentVersionOfInfraEnv } from '../../../agent/src/cli.js';
import { catalogueAgentImages } from '../../../lambdas/domain/catalogues/catalogues.js';
import { loadProfile } from '../../../agent/src/simulate/profile.js';
import { PULL_SECRET, sshPublicKey } from '../../support/fixtures.js';
import { expectMatchesSchema } from '../../support/response-schema.js';
import { testRuntime } from '../../support/runtime.js';
import { sleep } from '../../support/net.js';

type Json = Record<string, any>;
const API_VIP = '192.168.111.5';
const INGRESS_VIP = '192.168.111.4';

describe('simulated fleet against the local stack', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  let clusterId: string;
  let infraEnvId: string;
  let token: string;
  const user = () => ({ Authorization: `Bearer ${env.adminToken}` });
  const call = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(`${env.runtime.url}/api/assisted-install/v2${route}`, {
      method,
      headers: { ...user(), ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };

  beforeAll(async () => {
    // Real-time flows: requests answer before their follow-ups, as in AWS.
    env = await testRuntime({ settleFollowUps: false });
    const versions = (await call('GET', '/openshift-versions')).body as Record<string, { default?: boolean }>;
    const version = Object.entries(versions).find(([, v]) => v.default)![0];
    const cluster = await call('POST', '/clusters', {
      name: 'sim',
      openshift_version: version,
      pull_secret: PULL_SECRET,
      base_dns_domain: 'example.com',
      ssh_public_key: sshPublicKey(),
      api_vips: [{ ip: API_VIP }],
      ingress_vips: [{ ip: INGRESS_VIP }],
    });
    expect(cluster.status, JSON.stringify(cluster.body)).toBe(201);
    clusterId = cluster.body.id;
    infraEnvId = (await call('POST', '/infra-envs', { name: 'sim', pull_secret: PULL_SECRET, cluster_id: clusterId })).body.id;
    token = await issueAgentToken(container().config.agentSigningKeyPem, { orgId: 'default', infraEnvId });
  }, 180_000);
  afterAll(async () => env?.close());

  it("reports, without --agent-version, the agent image the infra-env's discovery ignition names, so the service does not tell it to upgrade", async () => {
    const log = createLog({ level: 'error', sink: () => undefined });
    expect(await agentVersionOfInfraEnv({ url: env.runtime.url, infraEnvId, token, log })).toBe(catalogueAgentImages().agent);
    // Without the agent token nothing is learnt (the fleet then warns and reports its own default).
    expect(await agentVersionOfInfraEnv({ url: env.runtime.url, infraEnvId, log })).toBeUndefined();
  });

  it('registers 3 masters and 2 workers; all reach known and the cluster ready', async () => {
    const lines: string[] = [];
    const fleet = new Fleet({
      url: env.runtime.url,
      infraEnvId,
      token,
      agentVersion: 'quay.io/edge-infrastructure/assisted-installer-agent:latest',
      profiles: [...Array(3).fill(loadProfile('master')), ...Array(2).fill(loadProfile('worker'))],
      staggerMs: 20,
      // The service asks for a poll every 60 s; the test polls every 3 s instead: long enough for
      // every host's inventory to be in before the first connectivity check lists the peers.
      timing: { maxPollIntervalMs: 3_000 },
      controller: false,
      log: createLog({ level: 'info', sink: (line) => lines.push(line) }),
    });
    const stop = new AbortController();
    const running = fleet.run(stop.signal);
    let hosts: Json[] = [];
    let cluster: Json = {};
    try {
      // A connectivity check that ran before every peer had reported is refreshed only after the
      // service's 120 s connectivity interval; the bound allows for one such round.
      const deadline = Date.now() + 170_000;
      while (Date.now() < deadline) {
        hosts = (await call('GET', `/clusters/${clusterId}/hosts?with-inventory=true&with-connectivity=true`)).body as Json[];
        cluster = (await call('GET', `/clusters/${clusterId}`)).body as Json;
        // A host's status may be judged before its newest peer reached it: wait for the reports to agree too.
        const agreed = hosts.every((h) => ((JSON.parse(h.connectivity ?? '{}') as Json).remote_hosts ?? []).length === hosts.length - 1);
        if (hosts.length === 5 && hosts.every((h) => h.status === 'known') && cluster.status === 'ready' && agreed) break;
        await sleep(500);
      }
    } finally {
      stop.abort();
      await running;
    }
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
    expect(hosts).toHaveLength(5);
    expect(cluster.status, cluster.status_info).toBe('ready');
    expect(cluster.machine_network_cidr ?? cluster.machine_networks?.[0]?.cidr).toBe('192.168.111.0/24');

    // Each host is its own machine, and says it is simulated.
    const inventories = hosts.map((h) => JSON.parse(h.inventory) as Json);
    expect(new Set(hosts.map((h) => h.id)).size).toBe(5);
    expect(new Set(inventories.map((i) => i.interfaces[0].mac_address)).size).toBe(5);
    expect(inventories.map((i) => i.hostname).sort()).toEqual(['master-0', 'master-1', 'master-2', 'worker-0', 'worker-1']);
    for (const inventory of inventories) {
      expect(inventory.system_vendor.manufacturer).toBe('Simulated');
      expect(inventory.system_vendor.product_name).toMatch(/^Simulated host \(profile (master|worker)\)$/);
    }
    for (const host of hosts) expectMatchesSchema('v2GetHost', 200, host);
    expect(lines.filter((l) => /SIMULATED HOST \(profile (master|worker)\): inventory and step results are not from this machine/.test(l))).toHaveLength(5);

    // Connectivity agrees across the fleet: every host reached every other at L2 and L3.
    for (const host of hosts) {
      const report = JSON.parse(host.connectivity ?? '{"remote_hosts":[]}') as Json;
      const remotes = report.remote_hosts as Json[];
      expect(remotes.map((r) => r.host_id).sort()).toEqual(
        hosts
          .filter((h) => h.id !== host.id)
          .map((h) => h.id)
          .sort(),
      );
      for (const remote of remotes) {
        expect(remote.l3_connectivity.every((c: Json) => c.successful)).toBe(true);
        expect(remote.l2_connectivity.every((c: Json) => c.successful)).toBe(true);
      }
    }
  }, 200_000);
});
