/**
 * A 3-master + 2-worker cluster installed through the REST API alone, playing the agents, the
 * on-host installer and the in-cluster controller by hand: install → preparation checks → the
 * install workflow runs the (simulated) installer as a container task → installing → stage reports
 * → finalizing → controller reports → installed; then kubeconfig, credentials, ignition files that
 * ignition-validate accepts, DNS records on the local DNS server, and the events in order; a
 * webhook receiver on loopback gets each of the install's cluster status changes and `installed`,
 * signed; the audit log lists the person's actions.
 */
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Resolver } from 'node:dns/promises';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { expectMatchesSchema } from '../support/response-schema.js';
import { testRuntime } from '../support/runtime.js';
import { apiClient, API_VIP, eventually, INGRESS_VIP, readyCluster, type ApiClient, type Json, type LabCluster } from '../support/cluster-lab.js';
import { createIngressCa } from '../../agent/src/controller/ingress-ca.js';
import { verifyWebhookSignature } from '../../lambdas/domain/events/webhooks.js';

const STAGES: Record<string, string[]> = {
  bootstrap: [
    'Starting installation',
    'Installing',
    'Writing image to disk',
    'Waiting for control plane',
    'Waiting for bootkube',
    'Waiting for controller',
    'Rebooting',
    'Configuring',
    'Joined',
    'Done',
  ],
  master: ['Starting installation', 'Installing', 'Writing image to disk', 'Rebooting', 'Configuring', 'Joined', 'Done'],
  worker: [
    'Starting installation',
    'Installing',
    'Writing image to disk',
    'Waiting for control plane',
    'Rebooting',
    'Waiting for ignition',
    'Configuring',
    'Joined',
    'Done',
  ],
};

describe('installing a cluster through the REST API', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  let api: ApiClient;
  let lab: LabCluster;
  /** Webhook deliveries as the receiver got them, each with whether its signature checked out with the endpoint's secret. */
  const deliveries: { event: string; status?: string; clusterId: string; signed: boolean }[] = [];
  let webhookSecret = '';
  const receiver = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const parsed = JSON.parse(body) as Json;
      const [timestamp, signature] = [request.headers['x-assisted-timestamp'], request.headers['x-assisted-signature']].map(String);
      deliveries.push({
        event: parsed.event,
        status: parsed.status,
        clusterId: parsed.resource?.id,
        signed: verifyWebhookSignature(webhookSecret, timestamp!, body, signature!),
      });
      response.writeHead(204).end();
    });
  });
  const cluster = async () => (await api.call('GET', `/clusters/${lab.clusterId}`, undefined, api.user())).body as Json;
  const hosts = async () => (await api.call('GET', `/clusters/${lab.clusterId}/hosts`, undefined, api.user())).body as Json[];

  beforeAll(async () => {
    process.env.INSTALL_POLL_SECONDS = '1';
    env = await testRuntime({ baseDomains: ['example.com'] });
    api = apiClient(env.runtime.url, env.adminToken);
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const webhook = await api.call(
      'POST',
      '/webhooks',
      { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, events: ['cluster-status', 'installed', 'failed'] },
      api.user(),
    );
    expect(webhook.status, webhook.text).toBe(201);
    webhookSecret = webhook.body.secret;
    lab = await readyCluster(api);
  }, 120_000);
  afterAll(async () => {
    delete process.env.INSTALL_POLL_SECONDS;
    await env?.close();
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  it('takes a ready cluster through preparation, installation and finalizing to installed', async () => {
    const refused = await api.call('POST', `/clusters/${lab.clusterId}/actions/cancel`, undefined, api.user());
    expect(refused.status).toBe(409);

    const started = await api.call('POST', `/clusters/${lab.clusterId}/actions/install`, undefined, api.user());
    expect(started.status, started.text).toBe(202);
    expectMatchesSchema('v2InstallCluster', 202, started.body);
    expect(started.body.status).toBe('preparing-for-installation');
    const installing = started.body.hosts as Json[];
    expect(installing.map((h) => h.status).sort()).toEqual(Array(5).fill('preparing-for-installation'));
    expect(installing.filter((h) => h.bootstrap)).toHaveLength(1);
    expect(installing.filter((h) => h.role === 'master')).toHaveLength(3);
    expect(installing.filter((h) => h.role === 'worker')).toHaveLength(2);
    expect((await api.call('POST', `/clusters/${lab.clusterId}/actions/install`, undefined, api.user())).status).toBe(409);

    // Preparation checks: each agent is asked to measure its disk and pull the release image.
    const releaseImage = (await cluster()).ocp_release_image as string;
    for (const [i] of lab.hostIds.entries()) {
      const steps = await lab.poll(i);
      const types = (steps.instructions as Json[]).map((s) => s.step_type);
      expect(types).toEqual(expect.arrayContaining(['installation-disk-speed-check', 'container-image-availability']));
      const disk = JSON.parse((steps.instructions as Json[]).find((s) => s.step_type === 'installation-disk-speed-check')!.args[0]) as { path: string };
      expect((await lab.reply(i, 'installation-disk-speed-check', { path: disk.path, io_sync_duration: 3 })).status).toBe(204);
      expect(
        (
          await lab.reply(i, 'container-image-availability', {
            images: [{ name: releaseImage, result: 'success', time: 2.5, size_bytes: 0, download_rate: 0 }],
          })
        ).status,
      ).toBe(204);
    }

    // The workflow runs the installer task; once the files are in and the hosts prepared, installing.
    const afterPreparation = await eventually(cluster, (c) => c.status !== 'preparing-for-installation', 60_000, 250);
    expect(afterPreparation.status, afterPreparation.status_info).toBe('installing');
    const installingHosts = await eventually(hosts, (list) => list.every((h) => h.status === 'installing'), 10_000);
    expect(installingHosts.map((h) => h.status)).toEqual(Array(5).fill('installing'));

    // Each host gets its install step once.
    const roles: string[] = [];
    for (const [i, id] of lab.hostIds.entries()) {
      const steps = await lab.poll(i);
      const install = (steps.instructions as Json[]).find((s) => s.step_type === 'install');
      expect(install, JSON.stringify(steps)).toBeDefined();
      const request = JSON.parse(install!.args[0]) as Json;
      expect(request).toMatchObject({ cluster_id: lab.clusterId, infra_env_id: lab.infraEnvId, host_id: id, control_plane_count: 3 });
      expect(request.boot_device).toMatch(/^\/dev\//);
      roles.push(request.role as string);
      const again = await lab.poll(i);
      expect((again.instructions as Json[]).some((s) => s.step_type === 'install')).toBe(false);
    }
    expect([...roles].sort()).toEqual(['bootstrap', 'master', 'master', 'worker', 'worker']);

    // The hosts' ignition is served from what the installer made; every file is valid Ignition.
    const dir = mkdtempSync(path.join(tmpdir(), 'ign-'));
    for (const name of ['bootstrap.ign', 'master.ign', 'worker.ign']) {
      const file = await api.call('GET', `/clusters/${lab.clusterId}/downloads/files?file_name=${name}`, undefined, api.user());
      expect(file.status, file.text).toBe(200);
      writeFileSync(path.join(dir, name), file.text);
      const check = spawnSync('ignition-validate', [path.join(dir, name)], { encoding: 'utf8' });
      expect(check.status, `${name}: ${check.stdout}${check.stderr}`).toBe(0);
    }
    const hostIgnition = await fetch(`${env.runtime.url}/api/assisted-install/v2/infra-env/${lab.infraEnvId}/hosts/${lab.hostIds[0]}/downloads/ignition`, {
      headers: lab.agent,
    });
    expect(hostIgnition.status).toBe(200);
    expect(JSON.parse(await hostIgnition.text()).ignition.version).toBe('3.2.0');

    // The installer reports its stages, role by role.
    for (const [i, id] of lab.hostIds.entries()) {
      for (const stage of STAGES[roles[i]!]!.slice(0, STAGES[roles[i]!]!.indexOf('Rebooting') + 1)) {
        const put = await api.call(
          'PUT',
          `/infra-envs/${lab.infraEnvId}/hosts/${id}/progress`,
          { current_stage: stage, progress_info: stage === 'Writing image to disk' ? '100%' : '' },
          lab.agent,
        );
        expect(put.status, `${stage}: ${put.text}`).toBe(200);
      }
    }
    // What the controller reports for the hosts once they joined.
    for (const [i, id] of lab.hostIds.entries()) {
      const stages = STAGES[roles[i]!]!;
      for (const stage of stages.slice(stages.indexOf('Rebooting') + 1)) {
        const put = await api.call('PUT', `/infra-envs/${lab.infraEnvId}/hosts/${id}/progress`, { current_stage: stage }, lab.agent);
        expect(put.status, `${stage}: ${put.text}`).toBe(200);
      }
    }
    const finalizing = await eventually(cluster, (c) => c.status === 'finalizing', 15_000);
    expect(finalizing.status, finalizing.status_info).toBe('finalizing');
    expect((await hosts()).map((h) => h.status)).toEqual(Array(5).fill('installed'));

    // The controller: finalizing stages, operators, the ingress CA, completion.
    for (const stage of ['Waiting for cluster operators', 'Adding router ca', 'Done']) {
      expect((await api.call('PUT', `/clusters/${lab.clusterId}/progress`, { finalizing_stage: stage }, lab.agent)).status).toBe(200);
    }
    const operators = (await api.call('GET', `/clusters/${lab.clusterId}/monitored-operators`, undefined, lab.agent)).body as Json[];
    for (const operator of operators) {
      const put = await api.call(
        'PUT',
        `/clusters/${lab.clusterId}/monitored-operators`,
        { name: operator.name, status: 'available', status_info: 'ok', version: '4.x' },
        lab.agent,
      );
      expect(put.status, put.text).toBe(200);
    }
    const cert = await fetch(`${env.runtime.url}/api/assisted-install/v2/clusters/${lab.clusterId}/uploads/ingress-cert`, {
      method: 'POST',
      headers: { ...lab.agent, 'Content-Type': 'application/json' },
      body: JSON.stringify((await createIngressCa()).certificatePem),
    });
    expect(cert.status, await cert.text()).toBe(201);
    const complete = await api.call('POST', `/clusters/${lab.clusterId}/actions/complete-installation`, { is_success: true }, lab.agent);
    expect(complete.status, complete.text).toBe(202);
    const installed = await eventually(cluster, (c) => c.status === 'installed', 15_000);
    expect(installed.status, installed.status_info).toBe('installed');
    expect(installed.progress.total_percentage).toBe(100);

    // What the user takes away.
    const kubeconfig = await api.call('GET', `/clusters/${lab.clusterId}/downloads/credentials?file_name=kubeconfig`, undefined, api.user());
    expect(kubeconfig.status, kubeconfig.text).toBe(200);
    const parsed = YAML.parse(kubeconfig.text) as Json;
    expect(parsed.clusters[0].cluster.server).toBe('https://api.ocp.example.com:6443');
    const caBundle = Buffer.from(parsed.clusters[0].cluster['certificate-authority-data'], 'base64').toString('utf8');
    expect(caBundle.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
    const credentials = (await api.call('GET', `/clusters/${lab.clusterId}/credentials`, undefined, api.user())).body as Json;
    expect(credentials.username).toBe('kubeadmin');
    expect(credentials.password).toMatch(/^\w{5}-\w{5}-\w{5}-\w{5}$/);
    expect(credentials.console_url).toBe('https://console-openshift-console.apps.ocp.example.com');

    // The webhook receiver got each status the install went through, in order, and `installed`, all signed.
    const installPath = ['preparing-for-installation', 'installing', 'finalizing', 'installed'];
    const statusesDelivered = () => deliveries.filter((d) => d.clusterId === lab.clusterId && d.event === 'cluster-status').map((d) => d.status!);
    await eventually(
      async () => statusesDelivered(),
      (statuses) => statuses.includes('installed') && deliveries.some((d) => d.event === 'installed'),
      15_000,
    );
    expect(statusesDelivered().filter((status) => installPath.includes(status))).toEqual(installPath);
    expect(deliveries.filter((d) => d.clusterId === lab.clusterId && d.event === 'installed')).toHaveLength(1);
    expect(deliveries.filter((d) => !d.signed)).toEqual([]);

    // The audit log lists the person's actions of this install (issue 48), the refused ones too; the
    // agents' and the controller's reports are not people's actions and are not on record.
    const audit = await api.call('GET', `/audit-events?resource=clusters/${lab.clusterId}&limit=100`, undefined, api.user());
    expect(audit.status, audit.text).toBe(200);
    const records = (audit.body.audit_events as Json[]).slice().reverse();
    const actions = records.map((record) => `${record.operation_id} ${record.outcome.status}`);
    expect(actions, actions.join(', ')).toEqual(
      expect.arrayContaining(['v2RegisterCluster 201', 'V2CancelInstallation 409', 'v2InstallCluster 202', 'v2InstallCluster 409']),
    );
    expect(actions.indexOf('v2InstallCluster 202')).toBeLessThan(actions.indexOf('v2InstallCluster 409'));
    expect(new Set(records.map((record) => `${record.actor.kind} ${record.actor.role}`))).toEqual(new Set(['token admin']));
    expect(actions.filter((action) => /CompleteInstallation|UpdateHostInstallProgress|V2UpdateClusterInstallProgress/i.test(action))).toEqual([]);

    // DNS: the managed domain answers the cluster's names.
    const resolver = new Resolver();
    resolver.setServers([`127.0.0.1:${env.runtime.endpoints.dns.port}`]);
    expect(await resolver.resolve4('api.ocp.example.com')).toEqual([API_VIP]);
    expect(await resolver.resolve4('console-openshift-console.apps.ocp.example.com')).toEqual([INGRESS_VIP]);

    // The story, in order, and no secret in it.
    const events = ((await api.call('GET', `/events?cluster_id=${lab.clusterId}&order=ascending`, undefined, api.user())).body as Json[]).map(
      (e) => e.message as string,
    );
    const story = [
      /Updated status of the cluster to preparing-for-installation/,
      /Cluster starting to prepare for installation/,
      /DNS records created in the managed domain example.com/,
      /SIMULATED installer/,
      /generated the installation files/,
      /Updated status of the cluster to installing/,
      /Updated status of the cluster to finalizing/,
      /Updated status of the cluster to installed|Successfully completed installing cluster/,
    ];
    let at = 0;
    for (const pattern of story) {
      const found = events.findIndex((message, index) => index >= at && pattern.test(message));
      expect(found, `${pattern} after event ${at}:\n${events.join('\n')}`).toBeGreaterThanOrEqual(0);
      at = found;
    }
    // Written in the same millisecond: either order.
    expect(events.slice(at)).toEqual(expect.arrayContaining(['Updated status of the cluster to installed', 'Successfully completed installing cluster']));
    expect(events.join('\n')).not.toContain(credentials.password);
  }, 180_000);
});
