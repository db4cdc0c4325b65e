/**
 * Conformance with the client every booted host runs: upstream's discovery agent (built from
 * openshift/assisted-installer-agent, in ../shared/tools/upstream-agent) against the local stack.
 * Our own agent and simulated fleet share the service's assumptions; this one does not.
 *
 * The agents run in a network namespace holding only loopback: lo has 127.0.0.1/24 rather than /8
 * (a network a free-addresses scan may be asked for) and 127.1.0.1/16 (one it must not be); each
 * agent has a sparse file as its only disk, podman and
 * nsenter shims, and an nmap guard (see test/support/upstream-agent.ts). The stack runs in the test
 * process and is reached through a Unix socket.
 *
 * What such a sandbox cannot pass, upstream could not either, and the cluster ignores exactly that:
 * - ntp-synced: no NTP server (the agent asks chronyc);
 * - has-default-route and release-domain-name-resolved-correctly: no route, no DNS;
 * - belongs-to-majority-group: the hosts share only loopback, where no L2 (arping) check is made,
 *   and upstream decides the group of an IPv4 machine network by L2;
 * - has-cpu-cores-for-role: this machine has 2 cores, a control-plane node needs 4. For the same
 *   reason the hosts are suggested as workers and the test assigns the master role by hand.
 */
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import type net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PULL_SECRET, sshPublicKey } from '../support/fixtures.js';
import { freePort, until } from '../support/net.js';
import { testRuntime } from '../support/runtime.js';
import {
  agentUnitOf,
  startLoopbackNamespace,
  startStandInTang,
  startUpstreamAgent,
  stepLines,
  type LoopbackNamespace,
  type UpstreamAgent,
} from '../support/upstream-agent.js';
import { startBridge } from '../../bench/support/netns-agent.js';

type Json = Record<string, any>;

const SANDBOX_FAILURES = ['ntp-synced', 'has-default-route', 'release-domain-name-resolved-correctly', 'belongs-to-majority-group', 'has-cpu-cores-for-role'];
const API_VIP = '127.0.0.100';
const INGRESS_VIP = '127.0.0.101';

describe('upstream agent against the local stack (loopback-only namespace, sparse-file disks)', () => {
  if (process.getuid?.() !== 0) throw new Error('this suite runs the upstream agent in namespaces and on loop devices: run it as root (CI does)');

  let env: Awaited<ReturnType<typeof testRuntime>>;
  let bridge: net.Server;
  let namespace: LoopbackNamespace;
  let workDir: string;
  const agents: UpstreamAgent[] = [];
  let clusterId: string;
  let infraEnvId: string;
  let unit: { token: string; image: string };
  let tang: { url: string; stop(): void } | undefined;

  const call = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(`${env.runtime.url}/api/assisted-install/v2${route}`, {
      method,
      headers: { Authorization: `Bearer ${env.adminToken}`, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: any = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // a file download
    }
    return { status: response.status, body: parsed };
  };
  /** The agent token and image an infra-env's discovery ignition gives its hosts. */
  const agentUnitFor = async (id: string) => {
    const ignition = await call('GET', `/infra-envs/${id}/downloads/files?file_name=discovery.ign`);
    expect(ignition.status).toBe(200);
    return agentUnitOf(typeof ignition.body === 'string' ? ignition.body : JSON.stringify(ignition.body));
  };
  const hosts = async (id = infraEnvId) => (await call('GET', `/infra-envs/${id}/hosts`)).body as Json[];
  const cluster = async () => (await call('GET', `/clusters/${clusterId}`)).body as Json;
  const failing = (validationsInfo: string) =>
    Object.values(JSON.parse(validationsInfo ?? '{}') as Record<string, { id: string; status: string }[]>)
      .flat()
      .filter((v) => v.status !== 'success')
      .map((v) => v.id);
  const events = async (query: string) => (await call('GET', `/events?${query}`)).body as Json[];
  /** until(), and on a timeout what the hosts and the cluster looked like. */
  const waitFor = async <T>(
    probe: () => Promise<T | undefined | false> | T | undefined | false,
    timeoutMs: number,
    what: string,
    of = { infraEnv: () => infraEnvId, cluster: () => clusterId },
  ): Promise<T> => {
    try {
      return await until(probe, timeoutMs, what);
    } catch (error) {
      // The agents' latest steps, as they were when the wait gave up.
      if (process.env.UPSTREAM_AGENT_LOGS !== 'quiet') console.error(diagnostics());
      const listed = await hosts(of.infraEnv()).catch(() => []);
      const state = listed.map(
        (host) =>
          `${host.id} ${host.status} (${host.status_info}) role=${host.role}/${host.suggested_role} failing=${failing(host.validations_info).join(',')}`,
      );
      const current: Json = of.cluster() ? (await call('GET', `/clusters/${of.cluster()}`).catch(() => ({ body: {} }))).body : {};
      throw new Error(
        `${(error as Error).message}\ncluster: ${current.status} (${current.status_info}) failing=${current.validations_info ? failing(current.validations_info).join(',') : ''}\n${state.join('\n')}`,
      );
    }
  };
  const diagnostics = () => agents.map((agent) => `--- agent ${agent.n} steps (tail)\n${agent.stepLog().split('\n').slice(-15).join('\n')}`).join('\n');
  const disk = (n: number) => {
    const file = path.join(workDir, `disk${n}.img`);
    writeFileSync(file, '');
    truncateSync(file, 130 * 1024 ** 3);
    return file;
  };

  beforeAll(async () => {
    workDir = mkdtempSync(path.join(tmpdir(), 'upstream-agent-'));
    // Upstream's 60 s between polls would make this suite take many minutes; the cap is a service setting.
    process.env.AGENT_MAX_NEXT_INSTRUCTION_SECONDS = '2';
    // Real-time flows: requests answer before their follow-ups, as in AWS.
    env = await testRuntime({ settleFollowUps: false });
    const socketPath = path.join(workDir, 'bridge.sock');
    bridge = await startBridge(socketPath, env.runtime.url);
    namespace = await startLoopbackNamespace({ socketPath, port: await freePort(), loopbackCidr: '127.0.0.1/24', extraLoopbackCidrs: ['127.1.0.1/16'] });

    const created = await call('POST', '/clusters', {
      name: 'ua',
      openshift_version: '4.18',
      pull_secret: PULL_SECRET,
      base_dns_domain: 'example.com',
      ssh_public_key: sshPublicKey(),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    clusterId = created.body.id;
    infraEnvId = (await call('POST', '/infra-envs', { name: 'ua', pull_secret: PULL_SECRET, cluster_id: clusterId, openshift_version: '4.18' })).body.id;
    unit = await agentUnitFor(infraEnvId);
    for (const n of [1, 2, 3]) agents.push(startUpstreamAgent({ namespace, n, infraEnvId, token: unit.token, image: unit.image, workDir, diskImage: disk(n) }));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(agents.map((agent) => agent.stop()));
    tang?.stop();
    await namespace?.stop();
    await new Promise<void>((resolve) => (bridge ? bridge.close(() => resolve()) : resolve()));
    await env?.close();
    delete process.env.AGENT_MAX_NEXT_INSTRUCTION_SECONDS;
    delete process.env.AGENT_DOCKER_IMAGE;
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  }, 90_000);

  it('registers three agents whose inventories show their fake disks, and suggests roles from their hardware', async () => {
    const listed = await waitFor(
      async () => {
        const all = await hosts();
        return all.length === 3 && all.every((host) => host.inventory && host.suggested_role !== 'auto-assign') ? all : undefined;
      },
      90_000,
      `three hosts with inventories and suggested roles`,
    );
    for (const host of listed) {
      const inventory = JSON.parse(host.inventory) as Json;
      // The sparse file is the agent's only disk: /dev/vdb, 130 GiB, eligible.
      expect(inventory.disks.map((d: Json) => [d.path, d.size_bytes, d.installation_eligibility.eligible])).toEqual([['/dev/vdb', 130 * 1024 ** 3, true]]);
      expect(inventory.hostname).toMatch(/^ua-agent-[123]$/);
      // 2 cores are not a control-plane node's 4: upstream's role selection makes such a host a worker.
      expect(inventory.cpu.count).toBeLessThan(4);
      expect(host.suggested_role).toBe('worker');
    }
    const roleEvents = await events(`cluster_id=${clusterId}`);
    expect(roleEvents.filter((event) => /calculated role is worker/.test(event.message)).length).toBeGreaterThanOrEqual(3);
    const counted = failing((await cluster()).validations_info);
    expect(counted).toContain('sufficient-masters-count');
  }, 120_000);

  it('asks for free addresses only on networks no wider than /22, and the real agent answers them', async () => {
    await waitFor(
      () => agents.every((agent) => stepLines(agent.stepLog(), 'free-network-addresses').replies.length > 0),
      60_000,
      `free-network-addresses replies`,
    );
    for (const agent of agents) {
      const { created } = stepLines(agent.stepLog(), 'free-network-addresses');
      for (const line of created) {
        const requested = JSON.parse(JSON.parse(`"${/args <\[(.*)\]>/.exec(line)![1]!}"`)) as string[];
        // The /24 is scanned; the /16 (64 nmap runs of a /22 each, at every request) is not asked for.
        expect(requested).toEqual(['127.0.0.0/24']);
      }
      // nmap was never asked for anything wider.
      expect(agent.nmapLog()).not.toMatch(/\/([0-9]|1[0-9]|2[01])\b/);
    }
    const stored = (await hosts()).map((host) => host.free_addresses);
    expect(stored.every((value) => value === undefined || value === '' || /127\.0\.0\.0\/24/.test(value))).toBe(true);
  }, 90_000);

  it("takes the agents' VIP verdicts: the VIPs verify and the cluster becomes ready with only the sandbox's failures ignored", async () => {
    // Masters' disks encrypted by tang: the agents check the (stand-in) tang server from the namespace.
    tang = await startStandInTang(namespace, 7500);
    const tangServers = JSON.stringify([{ url: tang.url, thumbprint: 'standInThumbprint' }]);
    const patched = await call('PATCH', `/clusters/${clusterId}`, {
      api_vips: [{ ip: API_VIP }],
      ingress_vips: [{ ip: INGRESS_VIP }],
      disk_encryption: { enable_on: 'masters', mode: 'tang', tang_servers: tangServers },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(201);
    expect(
      (
        await call('PUT', `/clusters/${clusterId}/ignored-validations`, {
          'host-validation-ids': JSON.stringify(SANDBOX_FAILURES),
          'cluster-validation-ids': '[]',
        })
      ).status,
    ).toBe(201);
    for (const host of await hosts()) {
      const updated = await call('PATCH', `/infra-envs/${infraEnvId}/hosts/${host.id}`, { host_role: 'master' });
      expect(updated.status, JSON.stringify(updated.body)).toBe(201);
    }
    const ready = await waitFor(
      async () => {
        const current = await cluster();
        return current.status === 'ready' ? current : undefined;
      },
      90_000,
      `the cluster to be ready`,
    );
    // The verdicts came from verify-vips replies (nmap found nobody on the addresses), not from free addresses.
    expect(ready.api_vips.map((vip: Json) => [vip.ip, vip.verification])).toEqual([[API_VIP, 'succeeded']]);
    expect(ready.ingress_vips.map((vip: Json) => [vip.ip, vip.verification])).toEqual([[INGRESS_VIP, 'succeeded']]);
    for (const agent of agents) expect(stepLines(agent.stepLog(), 'verify-vips').replies.join('\n')).toMatch(/succeeded/);
    // The tang check was handed with the cluster's servers, and its success stored.
    for (const agent of agents) expect(stepLines(agent.stepLog(), 'tang-connectivity-check').replies.join('\n')).toMatch(/\\"is_success\\":true/);
    for (const host of await hosts()) {
      expect(JSON.parse(host.tang_connectivity)).toMatchObject({ is_success: true, tang_server_response: [{ tang_url: `${tang.url}/adv/standInThumbprint` }] });
      const encryption = Object.values(JSON.parse(host.validations_info) as Record<string, Json[]>)
        .flat()
        .find((v) => v.id === 'disk-encryption-requirements-satisfied')!;
      expect(encryption).toMatchObject({ status: 'success', message: 'Installation disk can be encrypted using tang' });
    }
    // Each host's connectivity report names its two peers, reached over L3 (loopback has no L2 to check);
    // a report made before a peer registered (upstream's agent says "remote_hosts": null) is made again once it has.
    const ids = (await hosts()).map((h) => h.id);
    const peersListed = (host: Json) =>
      JSON.stringify(((JSON.parse(host.connectivity ?? '{}').remote_hosts ?? []) as Json[]).map((r) => r.host_id).sort()) ===
      JSON.stringify(ids.filter((id) => id !== host.id).sort());
    await waitFor(async () => (await hosts()).every(peersListed), 60_000, 'every connectivity report to name both peers');
    for (const host of await hosts()) {
      const report = JSON.parse(host.connectivity) as { remote_hosts: { host_id: string; l3_connectivity: { successful: boolean }[] }[] };
      expect(report.remote_hosts.map((remote) => remote.host_id).sort()).toEqual(
        (await hosts())
          .map((h) => h.id)
          .filter((id) => id !== host.id)
          .sort(),
      );
      expect(report.remote_hosts.every((remote) => remote.l3_connectivity.some((l3) => l3.successful))).toBe(true);
      // The names the DNS validations read, in upstream's order; nothing resolves without a DNS server here.
      const resolutions = (JSON.parse(host.domain_name_resolutions) as { resolutions: { domain_name: string }[] }).resolutions.map((r) => r.domain_name);
      expect(resolutions).toEqual([
        'api.ua.example.com',
        'api-int.ua.example.com',
        'console-openshift-console.apps.ua.example.com',
        'validateNoWildcardDNS.ua.example.com.',
        'validateNoWildcardDNS.ua.example.com',
        'quay.io',
      ]);
    }
    // Every validation but the sandbox's own failures passes, on every host.
    for (const host of await hosts()) {
      expect(host.status).toBe('known');
      expect(failing(host.validations_info).filter((id) => !SANDBOX_FAILURES.includes(id))).toEqual([]);
    }
  }, 120_000);

  it("on install, each host measures its fake disk, checks its images, and starts the installer with upstream's arguments for its role", async () => {
    const installed = await call('POST', `/clusters/${clusterId}/actions/install`);
    expect(installed.status, JSON.stringify(installed.body)).toBe(202);
    await waitFor(
      async () => {
        const all = await hosts();
        return all.every((host) => host.status === 'installing') || undefined;
      },
      120_000,
      `every host installing`,
    );
    const installerRuns = await waitFor(
      () => {
        const runs = agents.map((agent) => agent.podmanCalls().find((call) => /^run .*quay\.io\/edge-infrastructure\/assisted-installer:/.test(call)));
        return runs.every(Boolean) ? (runs as string[]) : undefined;
      },
      60_000,
      `the installer started on every host`,
    );

    const all = await hosts();
    const statusChanges = (await events(`cluster_id=${clusterId}`)).map((event) => event.message as string);
    for (const [index, agent] of agents.entries()) {
      const log = agent.stepLog();
      // The disk speed check: two arguments, as the agent requires, fio run on the fake disk.
      const disk = stepLines(log, 'installation-disk-speed-check');
      expect(disk.created.length).toBeGreaterThan(0);
      expect(disk.created[0]).toContain('args <[{\\"path\\":\\"/dev/vdb\\"} 480.00]>');
      expect(log).not.toMatch(/accepts 2 params/);
      expect(agent.podmanCalls().some((call) => / disk_speed_check \{"path":"\/dev\/vdb"\}$/.test(call))).toBe(true);
      // Images: the release image and the installer pulled (the shim says they are present).
      expect(agent.podmanCalls().filter((call) => call.startsWith('pull ')).length).toBeGreaterThanOrEqual(2);
      const host = all.find((h) => JSON.parse(h.inventory).hostname === `ua-agent-${agent.n}`)!;
      expect(JSON.parse(host.disks_info)['/dev/vdb'].disk_speed.tested).toBe(true);
      const images = Object.values(JSON.parse(host.images_status) as Record<string, Json>);
      expect(images.map((image) => image.result)).toEqual(['success', 'success']);

      // The installer's run, with the arguments upstream's agent builds from our install request.
      const run = installerRuns[index]!;
      const role = host.bootstrap ? 'bootstrap' : 'master';
      expect(run).toMatch(/^run --privileged --pid=host --net=host --name=assisted-installer /);
      expect(run).toContain(
        ` --role ${role} --infra-env-id ${infraEnvId} --cluster-id ${clusterId} --host-id ${host.id} --boot-device /dev/vdb --url ${namespace.url} `,
      );
      expect(run).toContain(
        ` --controller-image quay.io/edge-infrastructure/assisted-installer-controller:latest --agent-image ${unit.image} --control-plane-count 3 --openshift-version ${(await cluster()).openshift_version}`,
      );
      expect(run).toMatch(/ --check-cluster-version/);
    }
    expect(installerRuns.filter((run) => / --role bootstrap /.test(run))).toHaveLength(1);
    // Entering preparation says so, rather than upstream's "finished" before anything ran; finishing says finished.
    expect(
      statusChanges.filter((message) => /updated status from known to preparing-for-installation \(Host is preparing for installation\)/.test(message)),
    ).toHaveLength(3);
    expect(statusChanges.filter((message) => /to preparing-successful \(Host finished successfully to prepare for installation\)/.test(message))).toHaveLength(
      3,
    );
  }, 240_000);

  it("on cancel, each host stops its installer and uploads its logs once, through upstream's logs_sender", async () => {
    expect((await call('POST', `/clusters/${clusterId}/actions/cancel`)).status).toBe(202);
    const collected = await waitFor(
      async () => {
        const all = await hosts();
        return all.every((host) => host.status === 'cancelled' && host.logs_info === 'completed') ? all : undefined;
      },
      120_000,
      `every host cancelled with its logs uploaded`,
    );
    for (const agent of agents.slice(0, 3)) {
      const calls = agent.podmanCalls();
      expect(calls).toContain('stop -i -t 5 assisted-installer');
      const senders = calls.filter((call) => call.startsWith('run ') && / logs_sender /.test(call));
      // Once: the upload stamps logs_collected_at and the step is not handed again.
      expect(senders).toHaveLength(1);
      expect(senders[0]).toMatch(new RegExp(` logs_sender -url ${namespace.url} -cluster-id ${clusterId} -host-id [0-9a-f-]{36} -infra-env-id ${infraEnvId} `));
    }
    for (const host of collected) {
      expect(host.logs_collected_at).toBeTruthy();
      const download = await fetch(`${env.runtime.url}/api/assisted-install/v2/clusters/${clusterId}/logs?logs_type=host&host_id=${host.id}`, {
        headers: { Authorization: `Bearer ${env.adminToken}` },
      });
      expect(download.status).toBe(200);
      const bytes = new Uint8Array(await download.arrayBuffer());
      // A gzip made by the agent's own tar of logs_host_<id>/.
      expect([bytes[0], bytes[1]]).toEqual([0x1f, 0x8b]);
      expect(gunzipSync(bytes).toString('latin1')).toContain(`logs_host_${host.id}/`);
    }
  }, 180_000);

  it('stores the image check of a host whose registry is unreachable (exit code 2, its output listing the failures), and fails its preparation', async () => {
    const sno = await call('POST', '/clusters', {
      name: 'ua-sno',
      openshift_version: '4.18',
      pull_secret: PULL_SECRET,
      base_dns_domain: 'example.com',
      ssh_public_key: sshPublicKey(),
      control_plane_count: 1,
      high_availability_mode: 'None',
      user_managed_networking: true,
    });
    expect(sno.status, JSON.stringify(sno.body)).toBe(201);
    const snoId = sno.body.id as string;
    const snoEnv = (await call('POST', '/infra-envs', { name: 'ua-sno', pull_secret: PULL_SECRET, cluster_id: snoId, openshift_version: '4.18' })).body
      .id as string;
    const snoUnit = await agentUnitFor(snoEnv);
    // The podman shim answers every pull of this host with a failure, as a host with no way to its registry.
    const agent = startUpstreamAgent({
      namespace,
      n: 5,
      infraEnvId: snoEnv,
      token: snoUnit.token,
      image: snoUnit.image,
      workDir,
      diskImage: disk(5),
      env: { SHIM_IMAGES: 'absent' },
    });
    agents.push(agent);
    try {
      await waitFor(async () => (await hosts(snoEnv)).length === 1 && (await hosts(snoEnv))[0]!.inventory, 60_000, `the single node's inventory`);
      // The machine network is the host's; a single node needs no VIPs (upstream's SNO rules).
      expect((await call('PATCH', `/clusters/${snoId}`, { machine_networks: [{ cidr: '127.0.0.0/24' }] })).status).toBe(201);
      // A single node needs 8 cores (this machine has 2) and, with no DNS here, its names cannot resolve: upstream fails those too.
      const snoIgnored = [
        ...SANDBOX_FAILURES,
        'api-domain-name-resolved-correctly',
        'api-int-domain-name-resolved-correctly',
        'apps-domain-name-resolved-correctly',
      ];
      expect(
        (await call('PUT', `/clusters/${snoId}/ignored-validations`, { 'host-validation-ids': JSON.stringify(snoIgnored), 'cluster-validation-ids': '[]' }))
          .status,
      ).toBe(201);
      const snoCluster = async () => (await call('GET', `/clusters/${snoId}`)).body as Json;
      await waitFor(async () => (await snoCluster()).status === 'ready', 60_000, 'the single-node cluster to be ready', {
        infraEnv: () => snoEnv,
        cluster: () => snoId,
      });
      expect((await call('POST', `/clusters/${snoId}/actions/install`)).status).toBe(202);

      const failed = await waitFor(
        async () => {
          const [host] = await hosts(snoEnv);
          return host?.status === 'preparing-failed' ? host : undefined;
        },
        90_000,
        'the single node to fail its preparation',
        { infraEnv: () => snoEnv, cluster: () => snoId },
      );
      const reply = stepLines(agent.stepLog(), 'container-image-availability').replies.join('\n');
      expect(reply).toMatch(/exit-code <2>/);
      const images = Object.values(JSON.parse(failed.images_status) as Record<string, Json>);
      expect(images.length).toBeGreaterThanOrEqual(2);
      expect(images.every((image) => image.result === 'failure')).toBe(true);
      expect(failed.status_info).toMatch(
        /^Host failed to prepare for installation due to following failing validation\(s\): .*Failed to fetch container images needed for installation from quay\.io\/openshift-release-dev\/ocp-release:[^,]+,quay\.io\/edge-infrastructure\/assisted-installer:latest\. /,
      );
      const messages = (await events(`host_id=${failed.id}`)).map((event) => event.message as string);
      expect(messages.some((m) => /New image status .* result: failure/.test(m))).toBe(true);
      // The cluster stops preparing and waits for the user.
      await waitFor(async () => (await snoCluster()).status !== 'preparing-for-installation', 30_000, 'the single-node cluster to stop preparing');
    } finally {
      await agent.stop();
    }
  }, 240_000);

  it("tells a host whose agent is not the service's to upgrade, and its agent pulls the new image and restarts with it", async () => {
    // A pool infra-env: hosts wait there with no cluster, in statuses where upgrades happen.
    const pool = (await call('POST', '/infra-envs', { name: 'ua-pool', pull_secret: PULL_SECRET, openshift_version: '4.18' })).body.id as string;
    const poolUnit = await agentUnitFor(pool);
    const agent = startUpstreamAgent({ namespace, n: 4, infraEnvId: pool, token: poolUnit.token, image: poolUnit.image, workDir, diskImage: disk(4) });
    agents.push(agent);
    const [host] = await waitFor(
      async () => {
        const listed = await hosts(pool);
        return listed.length === 1 && listed[0]!.inventory ? listed : undefined;
      },
      60_000,
      `the pool host's inventory`,
    );
    expect(failing(host!.validations_info)).not.toContain('compatible-agent');

    // The service is redeployed with a newer agent image (AGENT_DOCKER_IMAGE): the host now runs an old one.
    const newer = 'quay.io/edge-infrastructure/assisted-installer-agent:v9.9.9-upgraded';
    process.env.AGENT_DOCKER_IMAGE = newer;
    env.runtime.functions.redeploy();
    try {
      await waitFor(() => stepLines(agent.stepLog(), 'upgrade-agent').replies.length > 0, 60_000, `an upgrade-agent reply`);
      const upgrade = stepLines(agent.stepLog(), 'upgrade-agent');
      expect(upgrade.created[0]).toContain(`args <[{\\"agent_image\\":\\"${newer}\\"}]>`);
      expect(upgrade.replies[0]).toMatch(/\\"result\\":\\"success\\"/);
      expect(agent.podmanCalls()).toContain(`pull ${newer}`);
      // The runner restarts and registers again: the service hands it a step runner of the new image.
      await waitFor(
        () =>
          agent
            .podmanCalls()
            .some((call) => call.startsWith('run ') && call.includes(` ${newer} next_step_runner `) && call.includes(`--agent-version ${newer}`)),
        60_000,
        'a step runner of the new image',
      );
      const messages = (await events(`infra_env_id=${pool}`)).map((event) => event.message as string);
      expect(messages.some((m) => m.includes(`Agent has been instructed to download image '${newer}' and restart`))).toBe(true);
      expect(messages.some((m) => m.includes(`Agent has downloaded image '${newer}' and will now restart`))).toBe(true);
      // Until the host runs the new agent it is not judged compatible.
      const [after] = await hosts(pool);
      expect(failing(after!.validations_info)).toContain('compatible-agent');
    } finally {
      await agent.stop();
      delete process.env.AGENT_DOCKER_IMAGE;
      env.runtime.functions.redeploy();
    }
  }, 180_000);
});
