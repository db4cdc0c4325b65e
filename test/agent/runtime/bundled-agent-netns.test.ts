/**
 * The bundled agent (dist/agent.mjs, built here) in REAL mode on this machine, against the local
 * stack, inside a network namespace that has nothing but loopback: its probes read this machine's
 * real /proc and /sys and run the real tools, and no packet can leave for a real network.
 *
 * The stack stays in the test process (root namespace, with the file's own DynamoDB Local). The
 * namespace reaches it through a filesystem (not abstract) Unix socket, which network namespaces do
 * not separate: inside, a forwarder on 127.0.0.1 pipes each connection to that socket; outside, the
 * test pipes the socket to the stack's loopback port.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type net from 'node:net';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAgent } from '../../../agent/build.js';
import { container } from '../../../lambdas/platform/container.js';
import { issueAgentToken } from '../../../lambdas/usecases/agent-tokens.js';
import { PULL_SECRET, sshPublicKey } from '../../support/fixtures.js';
import { until } from '../../support/net.js';
import { expectMatchesSchema } from '../../support/response-schema.js';
import { testRuntime } from '../../support/runtime.js';
import { spawnAgentInNetns, startBridge, type NetnsAgent } from '../../../bench/support/netns-agent.js';

type Json = Record<string, any>;
const isRoot = process.getuid?.() === 0;

describe.skipIf(!isRoot)('bundled agent, real mode, in a loopback-only network namespace', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  let bridge: net.Server;
  let workDir: string;
  let bundle: string;
  let infraEnvId: string;
  let agent: NetnsAgent | undefined;
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
    workDir = mkdtempSync(path.join(tmpdir(), 'agent-netns-'));
    bundle = (await buildAgent({ outfile: path.join(workDir, 'agent.mjs') })).outfile;
    // Real-time flows: requests answer before their follow-ups, as in AWS.
    env = await testRuntime({ settleFollowUps: false });
    bridge = await startBridge(path.join(workDir, 'bridge.sock'), env.runtime.url);

    const versions = (await call('GET', '/openshift-versions')).body as Record<string, { default?: boolean }>;
    const version = Object.entries(versions).find(([, v]) => v.default)![0];
    const cluster = await call('POST', '/clusters', {
      name: 'real',
      openshift_version: version,
      pull_secret: PULL_SECRET,
      base_dns_domain: 'example.com',
      ssh_public_key: sshPublicKey(),
    });
    expect(cluster.status, JSON.stringify(cluster.body)).toBe(201);
    infraEnvId = (await call('POST', '/infra-envs', { name: 'real', pull_secret: PULL_SECRET, cluster_id: cluster.body.id })).body.id;
    const token = await issueAgentToken(container().config.agentSigningKeyPem, { orgId: 'default', infraEnvId });

    agent = spawnAgentInNetns({
      bundle,
      socketPath: path.join(workDir, 'bridge.sock'),
      env: { PULL_SECRET_TOKEN: token },
      args: [
        '--infra-env-id',
        infraEnvId,
        '--agent-version',
        'quay.io/edge-infrastructure/assisted-installer-agent:latest',
        '--interval',
        '2',
        '--max-poll-interval',
        '2',
        '--insecure=false',
        '--with-journal-logging=false',
        '--with-stdout-logging',
        '--log-level',
        'debug',
      ],
    });
  }, 120_000);

  afterAll(async () => {
    await agent?.stop(1_000);
    await new Promise<void>((resolve) => (bridge ? bridge.close(() => resolve()) : resolve()));
    await env?.close();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it("registers, stores this machine's real inventory (schema-valid), runs the service's steps or fails them clearly, and stops on SIGTERM", async () => {
    const output = agent!.output;
    const log = () => output.join('\n');
    const hosts = await until(
      async () => {
        const list = (await call('GET', `/infra-envs/${infraEnvId}/hosts`)).body as Json[];
        return list.length === 1 && list[0]!.inventory ? list : undefined;
      },
      90_000,
      `the agent's inventory to be stored; agent output:\n${log()}`,
    );
    const host = await call('GET', `/infra-envs/${infraEnvId}/hosts/${hosts[0]!.id}`);
    expect(host.status).toBe(200);
    expectMatchesSchema('v2GetHost', 200, host.body);

    const inventory = JSON.parse(host.body.inventory) as Json;
    expect(inventory.cpu.count).toBe(cpus().length);
    expect(inventory.cpu.architecture).toBe(process.arch === 'x64' ? 'x86_64' : process.arch);
    expect(inventory.memory.usable_bytes).toBeGreaterThan(0);
    expect(Array.isArray(inventory.disks)).toBe(true);
    expect(inventory.system_vendor?.manufacturer ?? '').not.toMatch(/Simulated/);
    expect(log()).toMatch(/assisted-agent starting .*host_id_from=/);
    expect(log()).not.toMatch(/SIMULATED/);

    // After the inventory the service asks for its checks; each is answered, successfully or with a reason.
    const answered = await until(
      () => {
        const lines = output.filter((l) => /step (done|failed)/.test(l) && !/step_type=inventory/.test(l));
        return lines.length >= 2 ? lines : undefined;
      },
      60_000,
      `check steps to be answered; agent output:\n${log()}`,
    );
    for (const line of answered.filter((l) => /step failed/.test(l))) expect(line).toMatch(/step failed: \S.{5,}/);

    // The agent's whole log, for a person looking into a run: DEBUG_AGENT_OUTPUT=/tmp/agent.log.
    if (process.env.DEBUG_AGENT_OUTPUT) writeFileSync(process.env.DEBUG_AGENT_OUTPUT, log());
    const stoppedAt = Date.now();
    expect(await agent!.stop()).toBe(0);
    expect(Date.now() - stoppedAt).toBeLessThan(15_000);
    expect(log()).toMatch(/SIGTERM: stopping/);
  }, 200_000);
});
