import { X509Certificate } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { runSimulatedController } from '../../../agent/src/controller/index.js';
import { SimulatedNodeRegistry } from '../../../agent/src/installer/index.js';
import { captureLog, distinctStages, FakeService, fetchTransport, type FakeCluster, type FakeHost } from './fake-service.js';

const CLUSTER_ID = '11111111-1111-1111-1111-111111111111';
const INFRA_ENV_ID = '22222222-2222-2222-2222-222222222222';
const id = (n: number) => `55555555-5555-5555-5555-55555555555${n}`;

function host(n: number, role: string, stage: string, extra: Partial<FakeHost> = {}): FakeHost {
  return {
    id: id(n),
    infra_env_id: INFRA_ENV_ID,
    role,
    status: 'installing-in-progress',
    requested_hostname: `host-${n}`,
    progress: { current_stage: stage },
    ...extra,
  };
}

let service: FakeService | undefined;
afterEach(async () => {
  await service?.stop();
  service = undefined;
});

async function start(cluster: FakeCluster, extra: Partial<ConstructorParameters<typeof FakeService>[0]> = {}): Promise<FakeService> {
  service = new FakeService({ cluster, finalizeWhenAllDone: true, ...extra });
  await service.start();
  return service;
}

const DURATIONS = { Rebooting: 10, Configuring: 10, Joined: 10, 'Waiting for ignition': 10, 'Waiting for cluster operators': 10, 'Adding router ca': 10 };

describe('SIMULATED controller', () => {
  it('takes a 3+2 cluster from Rebooting to installed: host stages, finalizing stages, operators, ingress CA, complete-installation', async () => {
    const fake = await start(
      {
        id: CLUSTER_ID,
        status: 'installing',
        openshift_version: '4.16.3',
        control_plane_count: 3,
        hosts: [
          host(1, 'master', 'Rebooting', { bootstrap: true }),
          host(2, 'master', 'Rebooting'),
          host(3, 'master', 'Configuring'),
          host(4, 'worker', 'Rebooting'),
          host(5, 'worker', 'Waiting for control plane'),
        ],
      },
      {
        monitoredOperators: [
          { name: 'console', operator_type: 'builtin', status: 'progressing' },
          { name: 'cvo', operator_type: 'builtin' },
          { name: 'lvm', operator_type: 'olm', version: '4.16.0' },
        ],
      },
    );
    // The last worker is still installing: the controller only picks it up once it reboots.
    setTimeout(() => (fake.cluster.hosts[4]!.progress = { current_stage: 'Rebooting' }), 300);
    const log = captureLog();
    const outcome = await runSimulatedController({
      api: fetchTransport(fake.baseUrl),
      clusterId: CLUSTER_ID,
      log,
      signal: new AbortController().signal,
      durationsMs: DURATIONS,
      pollMs: 20,
      timeoutMs: 20_000,
    });
    expect(outcome).toEqual({ exit: 'installed', completed: true });

    for (const n of [1, 2]) expect(fake.progressOf(id(n)).map((p) => p.current_stage)).toEqual(['Configuring', 'Joined', 'Done']);
    expect(fake.progressOf(id(3)).map((p) => p.current_stage)).toEqual(['Joined', 'Done']);
    for (const n of [4, 5]) expect(fake.progressOf(id(n)).map((p) => p.current_stage)).toEqual(['Waiting for ignition', 'Configuring', 'Joined', 'Done']);
    for (const call of fake.calls.filter((c) => c.path.endsWith('/progress') && c.path.includes('/hosts/'))) {
      expect(call.path).toMatch(new RegExp(`^/v2/infra-envs/${INFRA_ENV_ID}/hosts/[0-9a-f-]{36}/progress$`));
    }

    const finalizing = fake.callsTo('PUT', `/v2/clusters/${CLUSTER_ID}/progress`).map((call) => (call.body as { finalizing_stage: string }).finalizing_stage);
    expect(finalizing).toEqual([
      'Waiting for cluster operators',
      'Adding router ca',
      'Waiting for olm operators csv initialization',
      'Applying olm manifests',
      'Waiting for olm operators csv',
      'Waiting for OLM operator setup jobs',
      'Done',
    ]);
    const finalizingStartedAt = fake.callsTo('PUT', `/v2/clusters/${CLUSTER_ID}/progress`)[0]!.at;
    const lastHostDoneAt = Math.max(...fake.calls.filter((c) => (c.body as { current_stage?: string } | undefined)?.current_stage === 'Done').map((c) => c.at));
    expect(finalizingStartedAt).toBeGreaterThanOrEqual(lastHostDoneAt);

    expect(fake.callsTo('PUT', '/monitored-operators').map((call) => call.body)).toEqual([
      { name: 'console', status: 'available', status_info: 'All is well', version: '4.16.3' },
      { name: 'cvo', status: 'available', status_info: 'All is well', version: '4.16.3' },
      { name: 'lvm', status: 'available', status_info: 'All is well', version: '4.16.0' },
    ]);

    const uploads = fake.callsTo('POST', `/v2/clusters/${CLUSTER_ID}/uploads/ingress-cert`);
    expect(uploads).toHaveLength(1);
    expect(typeof uploads[0]!.body).toBe('string');
    const certificate = new X509Certificate(uploads[0]!.body as string);
    expect(certificate.ca).toBe(true);
    expect(certificate.subject).toMatch(/^CN=ingress-operator@\d+$/);
    expect(certificate.verify(certificate.publicKey)).toBe(true);

    const completions = fake.callsTo('POST', `/v2/clusters/${CLUSTER_ID}/actions/complete-installation`);
    expect(completions.map((call) => call.body)).toEqual([{ is_success: true, error_info: '' }]);
    const routerCaAt = fake.calls.find((c) => (c.body as { finalizing_stage?: string } | undefined)?.finalizing_stage === 'Adding router ca')!.at;
    expect(uploads[0]!.at).toBeGreaterThanOrEqual(routerCaAt);
    expect(completions[0]!.at).toBeGreaterThanOrEqual(uploads[0]!.at);
    expect(log.lines.some((line) => line.message.includes('SIMULATED'))).toBe(true);
  });

  it('SNO: Rebooting goes straight to Done; without OLM operators the OLM stages are skipped', async () => {
    const fake = await start({
      id: CLUSTER_ID,
      status: 'installing',
      control_plane_count: 1,
      openshift_version: '4.16.3',
      hosts: [host(1, 'master', 'Rebooting', { bootstrap: true })],
    });
    const outcome = await runSimulatedController({
      api: fetchTransport(fake.baseUrl),
      clusterId: CLUSTER_ID,
      log: captureLog(),
      signal: new AbortController().signal,
      durationsMs: DURATIONS,
      pollMs: 20,
      timeoutMs: 20_000,
    });
    expect(outcome).toEqual({ exit: 'installed', completed: true });
    expect(fake.progressOf(id(1)).map((p) => p.current_stage)).toEqual(['Done']);
    expect(fake.callsTo('PUT', `/v2/clusters/${CLUSTER_ID}/progress`).map((call) => (call.body as { finalizing_stage: string }).finalizing_stage)).toEqual([
      'Waiting for cluster operators',
      'Adding router ca',
      'Waiting for olm operators csv initialization',
      'Done',
    ]);
  });

  it('a host that never comes up as a node stays in Rebooting; the controller is stopped by its bound', async () => {
    const nodes = new SimulatedNodeRegistry();
    nodes.booting(id(1), 0);
    nodes.booting(id(2), 0);
    const fake = await start({
      id: CLUSTER_ID,
      status: 'installing',
      control_plane_count: 3,
      hosts: [host(1, 'master', 'Rebooting'), host(2, 'master', 'Rebooting'), host(3, 'master', 'Rebooting')],
    });
    const outcome = await runSimulatedController({
      api: fetchTransport(fake.baseUrl),
      clusterId: CLUSTER_ID,
      log: captureLog(),
      signal: new AbortController().signal,
      durationsMs: DURATIONS,
      pollMs: 20,
      timeoutMs: 1_000,
      nodes,
    });
    expect(outcome).toEqual({ exit: 'timeout', completed: false });
    expect(distinctStages(fake.progressOf(id(1)))).toEqual(['Configuring', 'Joined', 'Done']);
    expect(fake.progressOf(id(3))).toEqual([]);
    expect(fake.cluster.hosts[2]!.progress.current_stage).toBe('Rebooting');
  });

  it('exits on cancelled and error clusters, and after one 404 (which counts as 3 errors)', async () => {
    for (const status of ['cancelled', 'error']) {
      const fake = await start({ id: CLUSTER_ID, status, hosts: [] });
      const outcome = await runSimulatedController({
        api: fetchTransport(fake.baseUrl),
        clusterId: CLUSTER_ID,
        log: captureLog(),
        signal: new AbortController().signal,
        pollMs: 20,
        timeoutMs: 5_000,
      });
      expect(outcome).toEqual({ exit: status, completed: false });
      await fake.stop();
      service = undefined;
    }
    const missing = await start({ id: CLUSTER_ID, status: 'installing', hosts: [] }, { clusterStatusCode: 404 });
    const outcome = await runSimulatedController({
      api: fetchTransport(missing.baseUrl),
      clusterId: CLUSTER_ID,
      log: captureLog(),
      signal: new AbortController().signal,
      pollMs: 20,
      timeoutMs: 5_000,
    });
    expect(outcome).toEqual({ exit: 'cluster-unreachable', completed: false });
    expect(missing.callsTo('GET', `/v2/clusters/${CLUSTER_ID}`)).toHaveLength(1);
  });

  it('401 counts as one error: three in a row before exiting', async () => {
    const fake = await start({ id: CLUSTER_ID, status: 'installing', hosts: [] }, { clusterStatusCode: 401 });
    const outcome = await runSimulatedController({
      api: fetchTransport(fake.baseUrl),
      clusterId: CLUSTER_ID,
      log: captureLog(),
      signal: new AbortController().signal,
      pollMs: 20,
      timeoutMs: 5_000,
    });
    expect(outcome).toEqual({ exit: 'cluster-unreachable', completed: false });
    expect(fake.callsTo('GET', `/v2/clusters/${CLUSTER_ID}`)).toHaveLength(3);
  });

  it('a finalizing report refused while its owner stops it ends quietly as stopped, not as a failure to finalize', async () => {
    const fake = await start({ id: CLUSTER_ID, status: 'installing', control_plane_count: 1, hosts: [host(1, 'master', 'Rebooting', { bootstrap: true })] });
    const controller = new AbortController();
    const base = fetchTransport(fake.baseUrl);
    // The service has declared the cluster installed and refuses the late stage; the hosts' owner
    // saw it installed too and stops the controller while it reads the cluster again.
    let refused = false;
    const api: typeof base = {
      async call(method, path, options) {
        if (refused && method === 'GET') controller.abort();
        if (method !== 'PUT' || path !== `/v2/clusters/${CLUSTER_ID}/progress`) return base.call(method, path, options);
        refused = true;
        const body = JSON.stringify({
          code: '400',
          reason: 'cluster is installed, not in one of allowed statuses: [installing finalizing installing-pending-user-action]',
        });
        return {
          status: 400,
          headers: new Headers(),
          text: async () => body,
          json: async <T>() => JSON.parse(body) as T,
          bytes: async () => new TextEncoder().encode(body),
        };
      },
    };
    const log = captureLog();
    const outcome = await runSimulatedController({
      api,
      clusterId: CLUSTER_ID,
      log,
      signal: controller.signal,
      durationsMs: DURATIONS,
      pollMs: 20,
      timeoutMs: 10_000,
    });
    expect(outcome).toEqual({ exit: 'stopped', completed: false });
    expect(log.lines.filter((line) => line.level === 'error')).toEqual([]);
    expect(log.lines.some((line) => line.level === 'info' && line.message.includes('stopped before finalizing ended'))).toBe(true);
  });

  it('stops when its signal aborts', async () => {
    const fake = await start({ id: CLUSTER_ID, status: 'installing', hosts: [] });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    const outcome = await runSimulatedController({
      api: fetchTransport(fake.baseUrl),
      clusterId: CLUSTER_ID,
      log: captureLog(),
      signal: controller.signal,
      pollMs: 20,
      timeoutMs: 10_000,
    });
    expect(outcome).toEqual({ exit: 'stopped', completed: false });
  });
});

describe('SIMULATED installers and controller together', () => {
  it('a 3-master + 2-worker cluster reaches installed with every host walking the full upstream sequence', async () => {
    const { simulatedInstallStep, expectedStages } = await import('../../../agent/src/installer/index.js');
    const { stepContext } = await import('./fake-service.js');
    const roles = ['bootstrap', 'master', 'master', 'worker', 'worker'] as const;
    const fake = await start({
      id: CLUSTER_ID,
      status: 'installing',
      openshift_version: '4.16.3',
      control_plane_count: 3,
      hosts: roles.map((role, index) => ({
        ...host(index + 1, role === 'bootstrap' ? 'master' : role, 'Starting installation'),
        bootstrap: role === 'bootstrap',
        progress: {},
      })),
    });
    const nodes = new SimulatedNodeRegistry();
    const durationsMs = {
      'Starting installation': 20,
      Installing: 20,
      'Writing image to disk': 200,
      'Waiting for control plane': 20,
      'Waiting for bootkube': 20,
      'Waiting for controller': 20,
      Rebooting: 50,
    };
    const stop = new AbortController();
    const controller = runSimulatedController({
      api: fetchTransport(fake.baseUrl),
      clusterId: CLUSTER_ID,
      log: captureLog(),
      signal: stop.signal,
      durationsMs: DURATIONS,
      pollMs: 20,
      timeoutMs: 25_000,
      nodes,
    });
    const installs = roles.map((role, index) =>
      simulatedInstallStep({ durationsMs, pollMs: 20, waitTimeoutMs: 20_000, nodes })(
        {
          step_type: 'install',
          step_id: `install-${index}`,
          args: [
            JSON.stringify({
              cluster_id: CLUSTER_ID,
              infra_env_id: INFRA_ENV_ID,
              host_id: id(index + 1),
              role,
              boot_device: '/dev/vda',
              controller_image: 'quay.io/edge-infrastructure/assisted-installer-controller:latest',
              installer_image: 'quay.io/edge-infrastructure/assisted-installer:latest',
              control_plane_count: role === 'worker' ? 0 : 3,
            }),
          ],
        },
        stepContext(fake, id(index + 1), INFRA_ENV_ID, stop.signal),
      ),
    );
    const results = await Promise.all(installs);
    expect(results.map((result) => result.exit_code)).toEqual([0, 0, 0, 0, 0]);
    expect(await controller).toEqual({ exit: 'installed', completed: true });
    for (const [index, role] of roles.entries()) expect(distinctStages(fake.progressOf(id(index + 1)))).toEqual(expectedStages(role));
  }, 30_000);
});
