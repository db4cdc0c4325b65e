import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createInstallStep, installStep, simulatedInstallStep, SimulatedNodeRegistry, type SimulatedRebootEvent } from '../../../agent/src/installer/index.js';
import { captureLog, distinctStages, FakeService, IGNITION, stepContext, VALID_REQUEST, type FakeCluster, type FakeHost } from './fake-service.js';

const CLUSTER_ID = VALID_REQUEST.cluster_id;
const INFRA_ENV_ID = VALID_REQUEST.infra_env_id;
const ME = VALID_REQUEST.host_id;
const M1 = '44444444-4444-4444-4444-444444444441';
const M2 = '44444444-4444-4444-4444-444444444442';
const M3 = '44444444-4444-4444-4444-444444444443';

function host(id: string, role: string, stage?: string, extra: Partial<FakeHost> = {}): FakeHost {
  return { id, infra_env_id: INFRA_ENV_ID, role, status: 'installing-in-progress', progress: stage ? { current_stage: stage } : {}, ...extra };
}

function cluster(hosts: FakeHost[], extra: Partial<FakeCluster> = {}): FakeCluster {
  return { id: CLUSTER_ID, status: 'installing', openshift_version: '4.16.3', control_plane_count: 3, hosts, ...extra };
}

function installArgs(overrides: Record<string, unknown> = {}): string[] {
  const request: Record<string, unknown> = { ...VALID_REQUEST, disks_to_format: [], ...overrides };
  return [JSON.stringify(request)];
}

const FAST = { durationsMs: { 'Writing image to disk': 200 }, pollMs: 20 } as const;
const FAST_DURATIONS: Record<string, number> = {
  'Starting installation': 5,
  Installing: 5,
  'Writing image to disk': 200,
  'Waiting for control plane': 5,
  'Waiting for bootkube': 5,
  'Waiting for controller': 5,
  Rebooting: 5,
};

let service: FakeService;
let workDir: string;

beforeEach(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'installer-test-'));
});

afterEach(async () => {
  await service?.stop();
  await rm(workDir, { recursive: true, force: true });
});

async function startService(fakeCluster: FakeCluster, extra: Partial<ConstructorParameters<typeof FakeService>[0]> = {}): Promise<FakeService> {
  service = new FakeService({ cluster: fakeCluster, ...extra });
  await service.start();
  return service;
}

function expectProgressSteps(progress: { current_stage: string; progress_info: string }[]): number[] {
  const percents = progress
    .filter((p) => p.current_stage === 'Writing image to disk' && p.progress_info.endsWith('%'))
    .map((p) => Number.parseInt(p.progress_info, 10));
  expect(percents.length).toBeGreaterThanOrEqual(2);
  for (let i = 1; i < percents.length; i++) expect(percents[i]! - percents[i - 1]!).toBeGreaterThanOrEqual(5);
  expect(percents[0]).toBeGreaterThanOrEqual(5);
  expect(percents.at(-1)).toBe(100);
  return percents;
}

describe('install step: bad input', () => {
  it('answers -1 with a clear error on a bad InstallCmdRequest, before touching anything', async () => {
    await startService(cluster([host(ME, 'master')]));
    const context = stepContext(service, ME, INFRA_ENV_ID, new AbortController().signal);
    const noArgs = await installStep({ step_type: 'install', step_id: 'install-1' }, context);
    expect(noArgs).toMatchObject({ exit_code: -1, error: expect.stringContaining('expected exactly 1 argument') });
    const badJson = await installStep({ step_type: 'install', step_id: 'install-1', args: ['{oops'] }, context);
    expect(badJson).toMatchObject({ exit_code: -1, error: expect.stringContaining('not valid JSON') });
    const badArgs = await installStep(
      { step_type: 'install', step_id: 'install-1', args: installArgs({ installer_args: '["--ignition-url","http://x"]' }) },
      context,
    );
    expect(badArgs).toMatchObject({ exit_code: -1, error: expect.stringContaining('unexpected flag --ignition-url') });
    const missingDisk = await installStep(
      { step_type: 'install', step_id: 'install-1', args: installArgs({ boot_device: '/dev/assisted-test-no-such-disk' }) },
      context,
    );
    expect(missingDisk).toMatchObject({ exit_code: -1, error: 'install: disk /dev/assisted-test-no-such-disk was not found on the host' });
    const simulated = await simulatedInstallStep()({ step_type: 'install', step_id: 'install-1', args: installArgs({ role: 'auto-assign' }) }, context);
    expect(simulated.exit_code).toBe(-1);
    expect(service.calls).toEqual([]);
  });
});

describe('install step: DRY RUN', () => {
  it('runs the real code path into a file: stages, NN% progress, image bytes, ignition copy, reboot marker', async () => {
    const hostIgnition = JSON.stringify({
      ignition: { version: '3.2.0' },
      passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['ssh-ed25519 AAAA test'] }] },
    });
    await startService(cluster([host(ME, 'master')]), { hostIgnition });
    const bootDevicePath = join(workDir, 'disk.img');
    const rebootMarkerPath = join(workDir, 'rebooted');
    const log = captureLog();
    const step = createInstallStep({ dryRun: { bootDevicePath, rebootMarkerPath, workDir: join(workDir, 'install-dir'), imageBytes: 3 * 1024 * 1024 } });
    const result = await step(
      { step_type: 'install', step_id: 'install-1', args: installArgs() },
      stepContext(service, ME, INFRA_ENV_ID, new AbortController().signal, log),
    );
    expect(result).toEqual({ exit_code: 0, output: '' });

    const progress = service.progressOf(ME);
    expect(distinctStages(progress)).toEqual(['Starting installation', 'Installing', 'Writing image to disk', 'Rebooting']);
    expect(progress[0]).toEqual({ current_stage: 'Starting installation', progress_info: 'master' });
    expectProgressSteps(progress);
    expect(service.callsTo('GET', `/v2/infra-env/${INFRA_ENV_ID}/hosts/${ME}/downloads/ignition`)).toHaveLength(1);

    const image = await readFile(bootDevicePath);
    expect(image.length).toBe(3 * 1024 * 1024);
    for (const offset of [0, 1, 250, 251, 4096, image.length - 1]) expect(image[offset]).toBe(offset % 251);
    expect(await readFile(`${bootDevicePath}.ign`, 'utf8')).toBe(hostIgnition);
    expect((await stat(join(workDir, 'install-dir', `master-${ME}.ign`))).mode & 0o777).toBe(0o600);
    expect(await readFile(rebootMarkerPath, 'utf8')).toMatch(/reboot \+1/);
    expect(log.lines.some((line) => line.message.includes('DRY RUN'))).toBe(true);
    expect(log.lines.map((line) => line.message).join('\n')).not.toContain('ssh-ed25519');
  });

  it('passes the installer args through and fails after 3 attempts with the reason in Failed', async () => {
    await startService(cluster([host(ME, 'master')]));
    const failing = join(workDir, 'failing-installer');
    const { writeFile } = await import('node:fs/promises');
    await writeFile(
      failing,
      `#!/bin/sh\necho "$@" >> "${workDir}/invocations"\necho "Error: checking for exclusive access to $# args: Device or resource busy" >&2\nexit 1\n`,
      { mode: 0o755 },
    );
    const step = createInstallStep({
      dryRun: { bootDevicePath: join(workDir, 'disk.img'), rebootMarkerPath: join(workDir, 'rebooted'), workDir, coreosInstallerCommand: failing },
    });
    const result = await step(
      { step_type: 'install', step_id: 'install-1', args: installArgs() },
      stepContext(service, ME, INFRA_ENV_ID, new AbortController().signal),
    );
    expect(result.exit_code).toBe(1);
    expect(result.error).toContain('failed to write image to disk: dry-installer exited with code 1: Error: checking for exclusive access');
    const invocations = (await readFile(join(workDir, 'invocations'), 'utf8')).trim().split('\n');
    expect(invocations).toHaveLength(3);
    expect(invocations[0]).toBe(
      `install --insecure -i ${join(workDir, `master-${ME}.ign`)} --append-karg ip=192.0.2.2::192.0.2.254:255.255.255.0:core0.example.com:enp1s0:none --save-partindex 1 -n ${join(workDir, 'disk.img')}`,
    );
    const progress = service.progressOf(ME);
    expect(progress.at(-1)).toEqual({ current_stage: 'Failed', progress_info: result.error });
    expect(distinctStages(progress)).toEqual(['Starting installation', 'Installing', 'Writing image to disk', 'Failed']);
    await expect(stat(join(workDir, 'rebooted'))).rejects.toThrow();
  }, 20_000);
});

describe('SIMULATED installer: per-role stage sequences', () => {
  it('master', async () => {
    await startService(cluster([host(ME, 'master'), host(M1, 'master'), host(M2, 'bootstrap', undefined, { bootstrap: true })]));
    const rebooted: SimulatedRebootEvent[] = [];
    const nodes = new SimulatedNodeRegistry();
    const step = simulatedInstallStep({ durationsMs: FAST_DURATIONS, pollMs: 20, nodes, onRebooted: (event) => rebooted.push(event) });
    const result = await step(
      { step_type: 'install', step_id: 'i', args: installArgs() },
      stepContext(service, ME, INFRA_ENV_ID, new AbortController().signal),
    );
    expect(result).toEqual({ exit_code: 0, output: '' });
    expect(distinctStages(service.progressOf(ME))).toEqual(['Starting installation', 'Installing', 'Writing image to disk', 'Rebooting']);
    expectProgressSteps(service.progressOf(ME));
    expect(rebooted).toEqual([{ hostId: ME, infraEnvId: INFRA_ENV_ID, clusterId: CLUSTER_ID, flow: 'master', comesBack: true }]);
    await sleep(20);
    expect(nodes.isUp(ME)).toBe(true);
  });

  it('bootstrap: waits for the masters to join and for the controller, then reboots', async () => {
    await startService(cluster([host(ME, 'master', undefined, { bootstrap: true }), host(M1, 'master', 'Rebooting'), host(M2, 'master', 'Rebooting')]));
    let mastersJoinedAt = 0;
    setTimeout(() => {
      service.cluster.hosts[1]!.progress = { current_stage: 'Configuring' };
      service.cluster.hosts[2]!.progress = { current_stage: 'Configuring' };
      mastersJoinedAt = Date.now();
    }, 400);
    let controllerReportedAt = 0;
    setTimeout(() => {
      service.cluster.hosts[1]!.progress = { current_stage: 'Joined' };
      controllerReportedAt = Date.now();
    }, 800);
    const step = simulatedInstallStep({ durationsMs: FAST_DURATIONS, pollMs: 20 });
    const result = await step(
      { step_type: 'install', step_id: 'i', args: installArgs({ role: 'bootstrap' }) },
      stepContext(service, ME, INFRA_ENV_ID, new AbortController().signal),
    );
    expect(result.exit_code).toBe(0);
    const progress = service.progressOf(ME);
    expect(distinctStages(progress)).toEqual([
      'Starting installation',
      'Installing',
      'Writing image to disk',
      'Waiting for control plane',
      'Waiting for bootkube',
      'Waiting for controller',
      'Rebooting',
    ]);
    expect(progress).toContainEqual({ current_stage: 'Installing', progress_info: 'master' });
    expect(progress).toContainEqual({ current_stage: 'Waiting for control plane', progress_info: 'Waiting for masters to join bootstrap control plane' });
    expect(progress).toContainEqual({ current_stage: 'Waiting for bootkube', progress_info: 'waiting for ETCD bootstrap to be complete' });
    expect(service.callsTo('GET', `/v2/clusters/${CLUSTER_ID}/downloads/files`).map((call) => call.query)).toEqual([{ file_name: 'bootstrap.ign' }]);
    const rebootingAt = service.calls.find((call) => (call.body as { current_stage?: string } | undefined)?.current_stage === 'Rebooting')!.at;
    const bootkubeAt = service.calls.find((call) => (call.body as { current_stage?: string } | undefined)?.current_stage === 'Waiting for bootkube')!.at;
    expect(mastersJoinedAt).toBeGreaterThan(0);
    expect(controllerReportedAt).toBeGreaterThan(0);
    expect(bootkubeAt).toBeGreaterThanOrEqual(mastersJoinedAt);
    expect(rebootingAt).toBeGreaterThanOrEqual(controllerReportedAt);
  });

  it('worker: waits (bounded) until two masters are Done', async () => {
    await startService(
      cluster([host(ME, 'worker'), host(M1, 'master', 'Configuring'), host(M2, 'master', 'Configuring'), host(M3, 'master', 'Joined', { bootstrap: true })]),
    );
    let mastersDoneAt = 0;
    setTimeout(() => (service.cluster.hosts[1]!.progress = { current_stage: 'Done' }), 300);
    setTimeout(() => {
      service.cluster.hosts[3]!.progress = { current_stage: 'Done' };
      mastersDoneAt = Date.now();
    }, 600);
    const step = simulatedInstallStep({ durationsMs: FAST_DURATIONS, pollMs: 20, waitTimeoutMs: 10_000 });
    const result = await step(
      { step_type: 'install', step_id: 'i', args: installArgs({ role: 'worker', control_plane_count: 0 }) },
      stepContext(service, ME, INFRA_ENV_ID, new AbortController().signal),
    );
    expect(result.exit_code).toBe(0);
    const progress = service.progressOf(ME);
    expect(distinctStages(progress)).toEqual(['Starting installation', 'Installing', 'Writing image to disk', 'Waiting for control plane', 'Rebooting']);
    const rebootingCall = service.calls.find((call) => (call.body as { current_stage?: string } | undefined)?.current_stage === 'Rebooting')!;
    expect(mastersDoneAt).toBeGreaterThan(0);
    expect(rebootingCall.at).toBeGreaterThanOrEqual(mastersDoneAt);
  });

  it('worker: the wait for masters is bounded and ends in Failed', async () => {
    await startService(cluster([host(ME, 'worker'), host(M1, 'master', 'Configuring'), host(M2, 'master', 'Configuring')]));
    const step = simulatedInstallStep({ durationsMs: FAST_DURATIONS, pollMs: 20, waitTimeoutMs: 300 });
    const result = await step(
      { step_type: 'install', step_id: 'i', args: installArgs({ role: 'worker' }) },
      stepContext(service, ME, INFRA_ENV_ID, new AbortController().signal),
    );
    expect(result).toMatchObject({ exit_code: 1, error: expect.stringContaining('timed out after 0 s waiting for control plane hosts to be Done') });
    expect(service.progressOf(ME).at(-1)).toEqual({ current_stage: 'Failed', progress_info: result.error });
  });

  it('day-2 worker: no wait for the control plane in an adding-hosts cluster', async () => {
    await startService(cluster([host(ME, 'worker', undefined, { kind: 'AddToExistingClusterHost' })], { status: 'adding-hosts', kind: 'AddHostsCluster' }));
    const step = simulatedInstallStep({ durationsMs: FAST_DURATIONS, pollMs: 20, waitTimeoutMs: 2_000 });
    const result = await step(
      { step_type: 'install', step_id: 'i', args: installArgs({ role: 'worker' }) },
      stepContext(service, ME, INFRA_ENV_ID, new AbortController().signal),
    );
    expect(result.exit_code).toBe(0);
    expect(distinctStages(service.progressOf(ME))).toEqual([
      'Starting installation',
      'Installing',
      'Writing image to disk',
      'Waiting for control plane',
      'Rebooting',
    ]);
  });

  it('SNO: bootstrap in place, Waiting for bootkube before writing, reboot now', async () => {
    await startService(cluster([host(ME, 'master', undefined, { bootstrap: true })], { control_plane_count: 1 }));
    const step = simulatedInstallStep({ durationsMs: FAST_DURATIONS, pollMs: 20 });
    const result = await step(
      { step_type: 'install', step_id: 'i', args: installArgs({ role: 'bootstrap', control_plane_count: 1 }) },
      stepContext(service, ME, INFRA_ENV_ID, new AbortController().signal),
    );
    expect(result.exit_code).toBe(0);
    expect(distinctStages(service.progressOf(ME))).toEqual([
      'Starting installation',
      'Installing',
      'Waiting for bootkube',
      'Writing image to disk',
      'Rebooting',
    ]);
    expect(service.callsTo('GET', '/downloads/files')).toHaveLength(1);
    expect(service.callsTo('GET', '/downloads/ignition')).toHaveLength(1);
  });

  it('refuses an ignition that is not Ignition', async () => {
    await startService(cluster([host(ME, 'master')]), { hostIgnition: '{"not":"ignition"}' });
    const result = await simulatedInstallStep(FAST)(
      { step_type: 'install', step_id: 'i', args: installArgs() },
      stepContext(service, ME, INFRA_ENV_ID, new AbortController().signal),
    );
    expect(result).toMatchObject({ exit_code: 1, error: 'host ignition has no ignition.version' });
    expect(distinctStages(service.progressOf(ME))).toEqual(['Starting installation', 'Installing', 'Failed']);
    expect(IGNITION).toContain('version');
  });
});

describe('SIMULATED installer: failure paths', () => {
  it('fails writing the image: 3 coreos-installer attempts, then Failed with the reason', async () => {
    await startService(cluster([host(ME, 'master')]));
    const rebooted: SimulatedRebootEvent[] = [];
    const step = simulatedInstallStep({ ...FAST, failAt: 'Writing image to disk', onRebooted: (event) => rebooted.push(event) });
    const result = await step(
      { step_type: 'install', step_id: 'i', args: installArgs() },
      stepContext(service, ME, INFRA_ENV_ID, new AbortController().signal),
    );
    expect(result).toEqual({
      exit_code: 1,
      error: 'failed to write image to disk: coreos-installer exited with code 1: Error: writing to device: Input/output error (os error 5)',
    });
    const progress = service.progressOf(ME);
    expect(progress.at(-1)).toEqual({ current_stage: 'Failed', progress_info: result.error });
    expect(distinctStages(progress)).toEqual(['Starting installation', 'Installing', 'Writing image to disk', 'Failed']);
    expect(rebooted).toEqual([]);
  });

  it('fails at another stage with the given reason', async () => {
    await startService(cluster([host(ME, 'master')]));
    const step = simulatedInstallStep({ ...FAST, failAt: 'Installing', failReason: 'failed to fetch host ignition: connection reset' });
    const result = await step(
      { step_type: 'install', step_id: 'i', args: installArgs() },
      stepContext(service, ME, INFRA_ENV_ID, new AbortController().signal),
    );
    expect(result.exit_code).toBe(1);
    expect(service.progressOf(ME)).toEqual([
      { current_stage: 'Starting installation', progress_info: 'master' },
      { current_stage: 'Installing', progress_info: 'master' },
      { current_stage: 'Failed', progress_info: 'failed to fetch host ignition: connection reset' },
    ]);
  });

  it('gets stuck: reports nothing after the stage, not even Failed, until stopped', async () => {
    await startService(cluster([host(ME, 'master')]));
    const controller = new AbortController();
    const step = simulatedInstallStep({ ...FAST, stuckAt: 'Installing' });
    const running = step({ step_type: 'install', step_id: 'i', args: installArgs() }, stepContext(service, ME, INFRA_ENV_ID, controller.signal));
    await sleep(400);
    expect(distinctStages(service.progressOf(ME))).toEqual(['Starting installation', 'Installing']);
    controller.abort();
    const result = await running;
    expect(result.exit_code).toBe(1);
    expect(distinctStages(service.progressOf(ME))).toEqual(['Starting installation', 'Installing']);
  });

  it('stuck in Rebooting: the host goes down and never comes up as a node', async () => {
    await startService(cluster([host(ME, 'master')]));
    const nodes = new SimulatedNodeRegistry();
    const rebooted: SimulatedRebootEvent[] = [];
    const step = simulatedInstallStep({ ...FAST, stuckAt: 'Rebooting', nodes, onRebooted: (event) => rebooted.push(event) });
    const result = await step(
      { step_type: 'install', step_id: 'i', args: installArgs() },
      stepContext(service, ME, INFRA_ENV_ID, new AbortController().signal),
    );
    expect(result.exit_code).toBe(0);
    expect(rebooted).toMatchObject([{ hostId: ME, comesBack: false }]);
    expect(nodes.isUp(ME)).toBe(false);
  });

  it('refuses a failAt that is not a stage', () => {
    expect(() => simulatedInstallStep({ failAt: 'Exploding' })).toThrow('not a host stage');
  });
});
