/**
 * The user's installation actions through REST: cancel while preparing (back to ready), cancel while
 * installing (cancelled), reset (hosts wait for a reboot into discovery, then rediscover), install
 * again; and day-2: an installed cluster takes a new worker, installed on its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectMatchesSchema } from '../support/response-schema.js';
import { testRuntime } from '../support/runtime.js';
import { withRaceBeforeFirstClusterWrite } from '../support/store-races.js';
import { apiClient, eventually, inventoryFixture, readyCluster, type ApiClient, type Json, type LabCluster } from '../support/cluster-lab.js';
import { randomUUID } from 'node:crypto';

/** The cluster of `lab` as the API shows it now. */
const clusterOf = async (api: ApiClient, lab: LabCluster) => (await api.call('GET', `/clusters/${lab.clusterId}`, undefined, api.user())).body as Json;
/** The hosts of `lab`'s cluster as the API shows them now. */
const hostsOf = async (api: ApiClient, lab: LabCluster) => (await api.call('GET', `/clusters/${lab.clusterId}/hosts`, undefined, api.user())).body as Json[];

/**
 * Answers each host's preparation checks: a fast disk where the speed check is asked for, and the
 * release image pulled, except by the hosts `cannotPull` names. Returns the release image.
 */
async function answerPreparation(api: ApiClient, lab: LabCluster, cannotPull: (host: number) => boolean = () => false): Promise<string> {
  const image = (await clusterOf(api, lab)).ocp_release_image as string;
  for (const [i] of lab.hostIds.entries()) {
    const steps = await lab.poll(i);
    const speed = (steps.instructions as Json[]).find((s) => s.step_type === 'installation-disk-speed-check');
    if (speed) await lab.reply(i, 'installation-disk-speed-check', { path: JSON.parse(speed.args[0]).path, io_sync_duration: 2 });
    await lab.reply(i, 'container-image-availability', {
      images: [{ name: image, result: cannotPull(i) ? 'failure' : 'success', time: 1, size_bytes: 0, download_rate: 0 }],
    });
  }
  return image;
}

describe('cancel, reset and install again', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  let api: ApiClient;
  let lab: LabCluster;
  const cluster = () => clusterOf(api, lab);
  const hosts = () => hostsOf(api, lab);
  const prepareHosts = () => answerPreparation(api, lab);

  beforeAll(async () => {
    process.env.INSTALL_POLL_SECONDS = '1';
    env = await testRuntime();
    api = apiClient(env.runtime.url, env.adminToken);
    lab = await readyCluster(api, { hosts: ['master-0', 'master-1', 'master-2'] });
  }, 120_000);
  afterAll(async () => {
    delete process.env.INSTALL_POLL_SECONDS;
    await env?.close();
  });

  it('cancels a preparation back to ready, then an installation to cancelled, resets it and installs again', async () => {
    expect((await api.call('POST', `/clusters/${lab.clusterId}/actions/install`, undefined, api.user())).status).toBe(202);
    const cancelled = await api.call('POST', `/clusters/${lab.clusterId}/actions/cancel`, undefined, api.user());
    expect(cancelled.status, cancelled.text).toBe(202);
    expectMatchesSchema('V2CancelInstallation', 202, cancelled.body);
    expect(cancelled.body.status).toBe('ready');
    expect((cancelled.body.hosts as Json[]).map((h) => h.status)).toEqual(['known', 'known', 'known']);

    // Second attempt: through preparation into installing, then cancelled mid-install.
    expect((await api.call('POST', `/clusters/${lab.clusterId}/actions/install`, undefined, api.user())).status).toBe(202);
    await prepareHosts();
    const installing = await eventually(cluster, (c) => c.status === 'installing', 60_000, 250);
    expect(installing.status, installing.status_info).toBe('installing');
    await eventually(hosts, (list) => list.every((h) => h.status === 'installing'), 10_000);
    const midway = await api.call(
      'PUT',
      `/infra-envs/${lab.infraEnvId}/hosts/${lab.hostIds[0]}/progress`,
      { current_stage: 'Starting installation', progress_info: 'master' },
      lab.agent,
    );
    expect(midway.status, midway.text).toBe(200);
    const stopped = await api.call('POST', `/clusters/${lab.clusterId}/actions/cancel`, undefined, api.user());
    expect(stopped.status, stopped.text).toBe(202);
    expect(stopped.body.status).toBe('cancelled');
    expect((stopped.body.hosts as Json[]).map((h) => h.status)).toEqual(['cancelled', 'cancelled', 'cancelled']);
    // The cancelled host is told to stop its installer (and to send its logs).
    const steps = (await lab.poll(0)).instructions as Json[];
    expect(steps.map((s) => s.step_type)).toEqual(expect.arrayContaining(['stop-installation']));

    const reset = await api.call('POST', `/clusters/${lab.clusterId}/actions/reset`, undefined, api.user());
    expect(reset.status, reset.text).toBe(202);
    expectMatchesSchema('v2ResetCluster', 202, reset.body);
    expect(reset.body.status).toBe('insufficient');
    expect((reset.body.hosts as Json[]).map((h) => h.status)).toEqual(Array(3).fill('resetting-pending-user-action'));
    expect((await api.call('GET', `/clusters/${lab.clusterId}/downloads/files?file_name=master.ign`, undefined, api.user())).status).not.toBe(200);

    // The user boots the hosts from the discovery image: they register and are rediscovered.
    for (const id of lab.hostIds) expect((await api.call('POST', `/infra-envs/${lab.infraEnvId}/hosts`, { host_id: id }, lab.agent)).status).toBe(201);
    // Rediscovered from what they report; the recorded inventory stands until a new one arrives.
    for (const status of (await hosts()).map((h) => h.status)) expect(['discovering', 'known']).toContain(status);
    // They report again; the cluster is ready and installs from scratch (a new attempt, new files).
    for (const [i] of lab.hostIds.entries()) await lab.rediscover(i);
    for (const [i] of lab.hostIds.entries()) await lab.rediscover(i);
    expect((await eventually(cluster, (c) => c.status === 'ready', 15_000)).status).toBe('ready');
    const again = await api.call('POST', `/clusters/${lab.clusterId}/actions/install`, undefined, api.user());
    expect(again.status, again.text).toBe(202);
    await prepareHosts();
    expect((await eventually(cluster, (c) => c.status === 'installing', 60_000, 250)).status).toBe('installing');
    expect((await api.call('GET', `/clusters/${lab.clusterId}/downloads/files?file_name=master.ign`, undefined, api.user())).status).toBe(200);
    const events = ((await api.call('GET', `/events?cluster_id=${lab.clusterId}`, undefined, api.user())).body as Json[]).map((e) => e.message as string);
    expect(events).toEqual(expect.arrayContaining(['Canceled cluster installation', 'Reset cluster installation']));
    expect(events.filter((m) => /Installation reset for host/.test(m))).toHaveLength(3);
  }, 150_000);
});

describe('day-2: adding a worker to an installed cluster', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  let api: ApiClient;

  beforeAll(async () => {
    env = await testRuntime();
    api = apiClient(env.runtime.url, env.adminToken);
  }, 180_000);
  afterAll(async () => env?.close());

  it('installs a new worker on its own until it is added to the existing cluster', async () => {
    const lab = await readyCluster(api, { hosts: ['master-0', 'master-1', 'master-2'], name: 'day2' });
    // Refused before the cluster is installed: 400, as upstream answers.
    expect((await api.call('POST', `/clusters/${lab.clusterId}/actions/allow-add-workers`, undefined, api.user())).status).toBe(400);
    // The cluster's installation is not this test's subject: it is marked installed in the store.
    const { container } = await import('../../lambdas/platform/container.js');
    await container().store.clusters.mutate({ orgId: 'default', clusterId: lab.clusterId }, (c) => ({ ...c, status: 'installed' }));
    const opened = await api.call('POST', `/clusters/${lab.clusterId}/actions/allow-add-workers`, undefined, api.user());
    expect(opened.status, opened.text).toBe(202);
    expectMatchesSchema('TransformClusterToDay2', 202, opened.body);
    expect(opened.body.status).toBe('adding-hosts');
    const again = await api.call('POST', `/clusters/${lab.clusterId}/actions/allow-add-hosts`, undefined, api.user());
    expect(again.status, again.text).toBe(202);
    expectMatchesSchema('TransformClusterToAddingHosts', 202, again.body);

    const hostId = randomUUID();
    const register = await api.call('POST', `/infra-envs/${lab.infraEnvId}/hosts`, { host_id: hostId }, lab.agent);
    expect(register.status, register.text).toBe(201);
    expect(register.body.kind).toBe('AddToExistingClusterHost');
    const reply = (type: string, output: unknown) =>
      api.call(
        'POST',
        `/infra-envs/${lab.infraEnvId}/hosts/${hostId}/instructions`,
        { step_type: type, step_id: `${type}-1`, output: JSON.stringify(output) },
        lab.agent,
      );
    expect((await reply('inventory', inventoryFixture('worker-0'))).status).toBe(204);
    const steps = (
      await api.call('GET', `/infra-envs/${lab.infraEnvId}/hosts/${hostId}/instructions?timestamp=${Math.floor(Date.now() / 1000)}`, undefined, lab.agent)
    ).body as Json;
    expect((steps.instructions as Json[]).map((s) => s.step_type)).toEqual(expect.arrayContaining(['api-vip-connectivity-check']));
    await reply('api-vip-connectivity-check', {
      is_success: true,
      url: 'http://api.day2.example.com:22624/config/worker',
      ignition: '{"ignition":{"version":"3.2.0"}}',
    });
    await reply('ntp-synchronizer', { ntp_sources: [{ source_name: 'clock.example.com', source_state: 'synced' }] });
    await reply('domain-resolution', {
      resolutions: [
        { domain_name: 'quay.io', ipv4_addresses: ['203.0.113.10'], ipv6_addresses: [], cnames: [] },
        { domain_name: 'api.day2.example.com', ipv4_addresses: ['192.168.111.5'], ipv6_addresses: [], cnames: [] },
        { domain_name: 'api-int.day2.example.com', ipv4_addresses: ['192.168.111.5'], ipv6_addresses: [], cnames: [] },
        { domain_name: 'console-openshift-console.apps.day2.example.com', ipv4_addresses: ['192.168.111.4'], ipv6_addresses: [], cnames: [] },
        { domain_name: 'validateNoWildcardDNS.day2.example.com', ipv4_addresses: [], ipv6_addresses: [], cnames: [] },
        { domain_name: 'validateNoWildcardDNS.day2.example.com.', ipv4_addresses: [], ipv6_addresses: [], cnames: [] },
      ],
    });
    const host = async () => (await api.call('GET', `/infra-envs/${lab.infraEnvId}/hosts/${hostId}`, undefined, api.user())).body as Json;
    const known = await eventually(host, (h) => h.status === 'known', 5_000);
    const info = JSON.parse(known.validations_info ?? '{}') as Record<string, { id: string; status: string; message: string }[]>;
    expect(
      known.status,
      Object.values(info)
        .flat()
        .filter((v) => v.status !== 'success')
        .map((v) => `${v.id}: ${v.message}`)
        .join('; '),
    ).toBe('known');

    const install = await api.call('POST', `/infra-envs/${lab.infraEnvId}/hosts/${hostId}/actions/install`, undefined, api.user());
    expect(install.status, install.text).toBe(202);
    expectMatchesSchema('v2InstallHost', 202, install.body);
    expect(install.body.status).toBe('installing');
    const installSteps = (await api.call('GET', `/infra-envs/${lab.infraEnvId}/hosts/${hostId}/instructions`, undefined, lab.agent)).body as Json;
    const installStep = (installSteps.instructions as Json[]).find((s) => s.step_type === 'install');
    expect(installStep, JSON.stringify(installSteps)).toBeDefined();
    expect(JSON.parse(installStep!.args[0]).role).toBe('worker');
    for (const stage of ['Starting installation', 'Installing', 'Writing image to disk', 'Rebooting', 'Done']) {
      const put = await api.call('PUT', `/infra-envs/${lab.infraEnvId}/hosts/${hostId}/progress`, { current_stage: stage }, lab.agent);
      expect(put.status, `${stage}: ${put.text}`).toBe(200);
    }
    expect((await host()).status).toBe('added-to-existing-cluster');

    // A reset of a day-2 host that is done is refused; one that failed can be reset.
    const second = randomUUID();
    expect((await api.call('POST', `/infra-envs/${lab.infraEnvId}/hosts`, { host_id: second }, lab.agent)).status).toBe(201);
    await container().store.hosts.mutate({ orgId: 'default', infraEnvId: lab.infraEnvId, hostId: second }, (h) => ({ ...h, status: 'error' }));
    const reset = await api.call('POST', `/infra-envs/${lab.infraEnvId}/hosts/${second}/actions/reset`, undefined, api.user());
    expect(reset.status, reset.text).toBe(200);
    expectMatchesSchema('v2ResetHost', 200, reset.body);
    expect(reset.body.status).toBe('resetting-pending-user-action');
  }, 150_000);
});

describe('hosts that stall or go silent mid-install', () => {
  let env: Awaited<ReturnType<typeof testRuntime>>;
  let api: ApiClient;

  /**
   * A ready three-master cluster named `name`, its installation started and each host's preparation
   * checks answered well: the cluster is installing, and its hosts (as listed then) too.
   */
  async function installingCluster(name: string): Promise<{ lab: LabCluster; members: Json[] }> {
    const lab = await readyCluster(api, { hosts: ['master-0', 'master-1', 'master-2'], name });
    expect((await api.call('POST', `/clusters/${lab.clusterId}/actions/install`, undefined, api.user())).status).toBe(202);
    await answerPreparation(api, lab);
    expect(
      (
        await eventually(
          () => clusterOf(api, lab),
          (c) => c.status === 'installing',
          60_000,
          250,
        )
      ).status,
    ).toBe('installing');
    // The hosts follow the cluster a moment later; an agent reports stages only once its host is installing.
    const members = await eventually(
      () => hostsOf(api, lab),
      (list) => list.every((h) => h.status === 'installing'),
      10_000,
      100,
    );
    return { lab, members };
  }

  beforeAll(async () => {
    process.env.INSTALL_POLL_SECONDS = '1';
    env = await testRuntime();
    api = apiClient(env.runtime.url, env.adminToken);
  }, 180_000);
  afterAll(async () => {
    delete process.env.INSTALL_POLL_SECONDS;
    await env?.close();
  });

  it('waits for the user (wrong boot order) after the Rebooting timeout, and resumes when the host reports again', async () => {
    const { lab, members } = await installingCluster('stuck');
    const cluster = () => clusterOf(api, lab);
    const stuck = members.find((h) => !h.bootstrap)!.id as string;
    for (const stage of ['Starting installation', 'Installing', 'Writing image to disk', 'Rebooting']) {
      const put = await api.call('PUT', `/infra-envs/${lab.infraEnvId}/hosts/${stuck}/progress`, { current_stage: stage }, lab.agent);
      expect(put.status, `${stage}: ${put.text}`).toBe(200);
    }
    // Time passes: the stage started 45 minutes ago (Rebooting allows 40).
    const { container } = await import('../../lambdas/platform/container.js');
    const { monitorHosts } = await import('../../lambdas/usecases/host-monitor.js');
    const ports = container();
    const longAgo = new Date(Date.now() - 45 * 60_000).toISOString();
    await ports.store.hosts.mutate({ orgId: 'default', infraEnvId: lab.infraEnvId, hostId: stuck }, (h) => ({
      ...h,
      attributes: { ...h.attributes, progress: { ...(h.attributes.progress as object), stage_updated_at: longAgo, stage_started_at: longAgo } },
    }));
    await monitorHosts(ports);
    const host = (await api.call('GET', `/infra-envs/${lab.infraEnvId}/hosts/${stuck}`, undefined, api.user())).body as Json;
    expect(host.status).toBe('installing-pending-user-action');
    expect(host.status_info).toMatch(/boot/i);
    expect((await eventually(cluster, (c) => c.status === 'installing-pending-user-action', 10_000)).status).toBe('installing-pending-user-action');

    // The user fixes the boot order: the host boots from disk and goes on.
    expect((await api.call('PUT', `/infra-envs/${lab.infraEnvId}/hosts/${stuck}/progress`, { current_stage: 'Configuring' }, lab.agent)).status).toBe(200);
    expect((await eventually(cluster, (c) => c.status === 'installing', 10_000)).status).toBe('installing');
  }, 150_000);

  it('cancels an installation waiting for the user, whatever its hosts are doing: failed, waiting or still installing', async () => {
    const { lab } = await installingCluster('cancelwait');
    const listHosts = () => hostsOf(api, lab);
    const { container } = await import('../../lambdas/platform/container.js');
    const ports = container();
    for (const [i, status] of (['error', 'installing-pending-user-action', 'installing-in-progress'] as const).entries()) {
      await ports.store.hosts.mutate({ orgId: 'default', infraEnvId: lab.infraEnvId, hostId: lab.hostIds[i]! }, (h) => ({ ...h, status }));
    }
    await ports.store.clusters.mutate({ orgId: 'default', clusterId: lab.clusterId }, (c) => ({ ...c, status: 'installing-pending-user-action' }));
    const cancelled = await api.call('POST', `/clusters/${lab.clusterId}/actions/cancel`, undefined, api.user());
    expect(cancelled.status, cancelled.text).toBe(202);
    expect(cancelled.body.status).toBe('cancelled');
    expect((await listHosts()).map((h) => h.status)).toEqual(['cancelled', 'cancelled', 'cancelled']);
  }, 150_000);

  it('cancels an installation that a judgement moves to error between the user asking and the write', async () => {
    const { lab } = await installingCluster('cancelmoved');
    const listHosts = () => hostsOf(api, lab);
    const { container } = await import('../../lambdas/platform/container.js');
    const { cancelInstallation } = await import('../../lambdas/usecases/installation.js');
    const ports = container();
    // A judgement (a host failed) lands after the cancel read the cluster and before it writes.
    const raced = withRaceBeforeFirstClusterWrite(ports.store, () =>
      ports.store.clusters.mutate({ orgId: 'default', clusterId: lab.clusterId }, (c) => ({ ...c, status: 'error' })),
    );
    const principal = { kind: 'user', orgId: 'default', tokenId: 'test', role: 'admin' } as const;
    const cancelled = await cancelInstallation({ ...ports, store: raced.store }, principal, lab.clusterId);
    expect(raced.mutates()).toBe(2);
    expect(cancelled.status).toBe('cancelled');
    expect((await listHosts()).map((h) => h.status)).toEqual(['cancelled', 'cancelled', 'cancelled']);
  }, 150_000);

  it('fails a host whose image write stopped progressing past the stage limit (30 minutes)', async () => {
    const { lab, members } = await installingCluster('slowdisk');
    const slow = members.find((h) => !h.bootstrap)!.id as string;
    for (const stage of ['Starting installation', 'Installing', 'Writing image to disk']) {
      expect(
        (
          await api.call(
            'PUT',
            `/infra-envs/${lab.infraEnvId}/hosts/${slow}/progress`,
            { current_stage: stage, progress_info: stage === 'Writing image to disk' ? '12%' : undefined },
            lab.agent,
          )
        ).status,
      ).toBe(200);
    }
    const { container } = await import('../../lambdas/platform/container.js');
    const { monitorHosts } = await import('../../lambdas/usecases/host-monitor.js');
    const ports = container();
    // 29 minutes at 12%: still within the limit.
    const aged = (minutes: number) =>
      ports.store.hosts.mutate({ orgId: 'default', infraEnvId: lab.infraEnvId, hostId: slow }, (h) => {
        const at = new Date(Date.now() - minutes * 60_000).toISOString();
        return { ...h, attributes: { ...h.attributes, progress: { ...(h.attributes.progress as object), stage_updated_at: at, stage_started_at: at } } };
      });
    const statusOf = async () => (await api.call('GET', `/infra-envs/${lab.infraEnvId}/hosts/${slow}`, undefined, api.user())).body as Json;
    await aged(29);
    await monitorHosts(ports);
    expect((await statusOf()).status).toBe('installing-in-progress');
    await aged(31);
    await monitorHosts(ports);
    const failed = await statusOf();
    expect(failed.status).toBe('error');
    expect(failed.status_info).toContain('Writing image to disk did not sufficiently progress');
  }, 150_000);

  it("stops preparing when a host's disk speed check fails (the host is insufficient, the cluster stops preparing), and only warns of a slow disk, as upstream", async () => {
    const lab = await readyCluster(api, { hosts: ['master-0', 'master-1', 'master-2'], name: 'slowsync' });
    const cluster = () => clusterOf(api, lab);
    expect((await api.call('POST', `/clusters/${lab.clusterId}/actions/install`, undefined, api.user())).status).toBe(202);
    const image = (await cluster()).ocp_release_image as string;
    for (const [i] of lab.hostIds.entries()) {
      const steps = await lab.poll(i);
      const speed = (steps.instructions as Json[]).find((s) => s.step_type === 'installation-disk-speed-check');
      expect(speed?.args).toHaveLength(2);
      const path = JSON.parse(speed!.args[0]).path as string;
      // The first host's fio could not run (upstream's agent answers -1 naming the disk); the second's disk takes 50 ms per fdatasync.
      if (i === 0) await lab.reply(i, 'installation-disk-speed-check', { path }, { exit_code: -1, error: 'fio: failed to open /dev/sda' });
      else await lab.reply(i, 'installation-disk-speed-check', { path, io_sync_duration: i === 1 ? 50 : 2 });
      for (const name of JSON.parse((steps.instructions as Json[]).find((s) => s.step_type === 'container-image-availability')!.args[0]).images as string[]) {
        await lab.reply(i, 'container-image-availability', { images: [{ name, result: 'success', time: 1, size_bytes: 0, download_rate: 0 }] });
      }
    }
    expect(image).toBeTruthy();
    const failed = await eventually(
      async () => (await api.call('GET', `/infra-envs/${lab.infraEnvId}/hosts/${lab.hostIds[0]}`, undefined, api.user())).body as Json,
      (h) => h.status === 'insufficient',
      30_000,
      250,
    );
    expect(failed.status).toBe('insufficient');
    const speedCheck = Object.values(JSON.parse(failed.validations_info) as Record<string, Json[]>)
      .flat()
      .find((v) => v.id === 'sufficient-installation-disk-speed')!;
    expect(speedCheck).toMatchObject({
      status: 'failure',
      message: 'While preparing the previous installation the installation disk speed measurement failed or was found to be insufficient',
    });
    const left = await eventually(cluster, (c) => c.status !== 'preparing-for-installation', 30_000, 250);
    expect(left.status).toBe('insufficient');
    // The slow disk was measured: a warning, and its check passes.
    const messages = ((await api.call('GET', `/events?host_id=${lab.hostIds[1]}`, undefined, api.user())).body as Json[]).map((e) => e.message as string);
    expect(
      messages.some((m) => /slower than the supported speed.*fdatasync duration: 50 ms/.test(m)),
      messages.join('\n'),
    ).toBe(true);
    const slow = (await api.call('GET', `/infra-envs/${lab.infraEnvId}/hosts/${lab.hostIds[1]}`, undefined, api.user())).body as Json;
    expect(
      Object.values(JSON.parse(slow.validations_info) as Record<string, Json[]>)
        .flat()
        .find((v) => v.id === 'sufficient-installation-disk-speed')!.status,
    ).toBe('success');
  }, 150_000);

  it('stops preparing when a host cannot pull the release image, and installs again once the user resets the failed check', async () => {
    const lab = await readyCluster(api, { hosts: ['master-0', 'master-1', 'master-2'], name: 'nopull' });
    const cluster = () => clusterOf(api, lab);
    expect((await api.call('POST', `/clusters/${lab.clusterId}/actions/install`, undefined, api.user())).status).toBe(202);
    // The first host's registry is unreachable.
    const image = await answerPreparation(api, lab, (i) => i === 0);
    const events = async () =>
      ((await api.call('GET', `/events?cluster_id=${lab.clusterId}&order=ascending`, undefined, api.user())).body as Json[]).map((e) => e.message as string);
    await eventually(events, (messages) => messages.some((m) => m.includes('to preparing-failed')), 30_000, 250);
    const story = await events();
    const failedAt = story.findIndex((m) => m.includes('to preparing-failed'));
    expect(story[failedAt], story.join('\n')).toContain(image);
    // The cluster stops preparing (ready again, saying why) and releases its hosts: the one that
    // could not pull goes back to known by upstream's refresh-preparation-failed-released, judged
    // again at once through the table's stream (it used to wait there for the monitor's minute).
    expect(
      story.slice(failedAt).some((m) => m === 'Updated status of the cluster to ready'),
      story.join('\n'),
    ).toBe(true);
    const released = await eventually(cluster, (c) => c.status !== 'preparing-for-installation', 20_000, 250);
    expect(['ready', 'insufficient']).toContain(released.status);
    const failedHost = lab.hostIds[0]!;
    expect((await events()).some((m) => m.startsWith('Host master-0.ocp.example.com: updated status from preparing-failed to'))).toBe(true);
    // The user fixed the registry and resets the check: the host is known at once and the cluster ready to retry.
    const reset = await api.call(
      'PATCH',
      `/infra-envs/${lab.infraEnvId}/hosts/${failedHost}/actions/reset-validation/container-images-available`,
      undefined,
      api.user(),
    );
    expect(reset.status, reset.text).toBe(200);
    expect(reset.body.status).toBe('known');
    expect((await eventually(cluster, (c) => c.status === 'ready', 10_000, 100)).status).toBe('ready');
  }, 150_000);

  it('fails a master whose agent went silent mid-install, then the cluster, then the hosts still installing; a reset brings them back to discovery', async () => {
    const { lab, members } = await installingCluster('silent');
    const cluster = () => clusterOf(api, lab);
    const listHosts = () => hostsOf(api, lab);
    for (const member of members) {
      expect(
        (await api.call('PUT', `/infra-envs/${lab.infraEnvId}/hosts/${member.id}/progress`, { current_stage: 'Starting installation' }, lab.agent)).status,
      ).toBe(200);
    }
    const silent = members.find((h) => !h.bootstrap)!.id as string;
    // Its agent's last poll was four minutes ago (the limit is three); the others keep polling.
    const { container } = await import('../../lambdas/platform/container.js');
    const { monitorHosts } = await import('../../lambdas/usecases/host-monitor.js');
    const ports = container();
    await ports.store.hosts.mutate({ orgId: 'default', infraEnvId: lab.infraEnvId, hostId: silent }, (h) => ({
      ...h,
      attributes: { ...h.attributes, checked_in_at: new Date(Date.now() - 4 * 60_000).toISOString() },
    }));
    for (const [i, id] of lab.hostIds.entries()) if (id !== silent) await lab.poll(i);
    await monitorHosts(ports);
    const failed = (await api.call('GET', `/infra-envs/${lab.infraEnvId}/hosts/${silent}`, undefined, api.user())).body as Json;
    expect(failed.status).toBe('error');
    expect(failed.status_info).toMatch(/timeout while connecting to host/);
    // Two masters cannot make the cluster: it fails, and its hosts still installing are stopped.
    expect((await eventually(cluster, (c) => c.status === 'error', 10_000, 200)).status).toBe('error');
    const after = await eventually(
      async () => {
        await monitorHosts(ports);
        return listHosts();
      },
      (list) => list.every((h) => h.status === 'error'),
      20_000,
      500,
    );
    expect(after.map((h) => h.status)).toEqual(['error', 'error', 'error']);
    const events = ((await api.call('GET', `/events?cluster_id=${lab.clusterId}`, undefined, api.user())).body as Json[]).map((e) => e.message as string);
    expect(events.some((m) => /to error/.test(m))).toBe(true);

    // The user resets the failed installation: the hosts wait to be booted from the discovery
    // image again, and each registration brings one back to discovery.
    const reset = await api.call('POST', `/clusters/${lab.clusterId}/actions/reset`, undefined, api.user());
    expect(reset.status, reset.text).toBe(202);
    expect((await listHosts()).map((h) => h.status)).toEqual(Array(3).fill('resetting-pending-user-action'));
    const again = await api.call('POST', `/infra-envs/${lab.infraEnvId}/hosts`, { host_id: silent }, lab.agent);
    expect(again.status, again.text).toBe(201);
    expect(again.body.status).toMatch(/^(discovering|known|insufficient|pending-for-input)$/);
  }, 150_000);
});
