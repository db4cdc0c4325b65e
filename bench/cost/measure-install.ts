/**
 * The installed scenario's measurement (bench/cost.ts): one three-node cluster from creation to
 * installed with SIMULATED hosts through the local runtime, every invocation counted by the meter
 * (bench/cost/meter.ts), the local S3 server's requests by price class, and the install workflow's
 * states.
 */
import { serviceAgentImage } from '../support/agent-image.js';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { handler as apiHandler } from '../../lambdas/handlers/api/index.js';
import { handler as hostChangesHandler } from '../../lambdas/handlers/streams/host-changes.js';
import { follow, preparationFailed, prepare, publishDns, recordFiles } from '../../lambdas/handlers/workflow/installation.js';
import { createLog } from '../../agent/src/log.js';
import { Fleet } from '../../agent/src/simulate/fleet.js';
import { everyStageTaking } from '../../agent/src/simulate/durations.js';
import { loadProfile } from '../../agent/src/simulate/profile.js';
import { systemClock } from '../../lambdas/ports/clock.js';
import { container, provide } from '../../lambdas/platform/container.js';
import { logger } from '../../lambdas/platform/observability.js';
import { issueAgentToken } from '../../lambdas/usecases/agent-tokens.js';
import { agentClient } from '../lifecycle/agents.js';
import { monitorBenchRuntime } from '../lifecycle/runtime.js';
import { defaultOpenshiftVersion, registerCluster } from '../lifecycle/fleet.js';
import { BENCH_PULL_SECRET } from '../support/fixtures.js';
import type { InstallRequestKind, InstallRun } from './model.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { apiKind, countLogBytes, type Handler, measured, provideMeteredPorts, Recorder } from './meter.js';

/** The simulated fleet's network (agent/src/simulate's default, 192.168.111.0/24) and the VIPs in it. */
const FLEET_API_VIP = '192.168.111.5';
const FLEET_INGRESS_VIP = '192.168.111.4';
const FLEET_BASE_DOMAIN = 'example.com';

/**
 * The kind of a request during the measured install: the bench's observer (excluded), a person's
 * (bearer token: the install's user actions), an agent's step traffic as apiKind names it, or
 * another call of the agents' installer and controller by method and route.
 */
function installKind(event: {
  httpMethod?: string;
  path?: string;
  headers?: Record<string, string> | null;
  queryStringParameters?: Record<string, string> | null;
  body?: string | null;
  isBase64Encoded?: boolean;
}): string {
  const headers = Object.fromEntries(Object.entries(event.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
  if (headers[OBSERVER_HEADER]) return 'observer';
  const route = (event.path ?? '').replace(/^\/api\/assisted-install/, '').replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '{id}');
  const file = event.queryStringParameters?.file_name ? `?file_name=${event.queryStringParameters.file_name}` : '';
  if (headers.authorization) return `user ${event.httpMethod} ${route}${file}`;
  const kind = apiKind(event);
  return kind === 'other API call' ? `agent ${event.httpMethod} ${route}${file}` : kind;
}

const OBSERVER_HEADER = 'x-bench-observer';
const INSTALL_FUNCTIONS = {
  InstallPrepare: prepare,
  InstallRecordFiles: recordFiles,
  InstallPreparationFailed: preparationFailed,
  InstallPublishDns: publishDns,
  InstallFollow: follow,
};

/**
 * S3 requests by price class as the local S3 server answered them: those signed in a header (the
 * functions' and the installer task's SDK calls) apart from those made with a pre-signed URL (a
 * host or a person downloading), and the bytes the latter were sent.
 */
function countS3Server(port: number) {
  const state = { signed: { puts: 0, gets: 0 }, presigned: { gets: 0, bytes: 0 }, counting: false, restore: (): void => undefined };
  const original = http.Server.prototype.emit;
  http.Server.prototype.emit = function (this: http.Server, event: string, ...args: unknown[]) {
    if (event === 'request' && state.counting && (this.address() as AddressInfo | null)?.port === port) {
      const [request, response] = args as [http.IncomingMessage, http.ServerResponse];
      const url = new URL(request.url ?? '/', 'http://s3');
      if (url.searchParams.has('X-Amz-Signature')) {
        state.presigned.gets += 1;
        response.on('finish', () => (state.presigned.bytes += Number(response.getHeader('content-length') ?? 0)));
      } else {
        const listing = url.searchParams.has('list-type') || url.pathname.split('/').filter(Boolean).length <= 1;
        if (request.method === 'GET' || request.method === 'HEAD') state.signed[listing ? 'puts' : 'gets'] += 1;
        else if ((request.method === 'PUT' || request.method === 'POST') && !url.searchParams.has('delete')) state.signed.puts += 1;
      }
    }
    return original.apply(this, [event, ...args] as never);
  } as typeof original;
  state.restore = () => {
    http.Server.prototype.emit = original;
  };
  return state;
}

export interface InstallMeasurement {
  run: InstallRun;
  /** The simulated install: wall seconds from the fleet's start to `installed`, polls the agents made, the workflow's states in order. */
  simulated: {
    seconds: number;
    polls: number;
    hosts: number;
    workflowHistory: string[];
    serverS3: { puts: number; gets: number };
    functionsS3: { puts: number; gets: number };
    presigned: { gets: number; bytes: number };
  };
}

/**
 * One three-node cluster's life from creation to `installed`, through the local runtime with a
 * fleet of SIMULATED agents (agent/src/simulate: the agent protocol, the simulated installer's
 * progress reports, the simulated controller's calls): every Api, HostChanges and install
 * workflow invocation counted as the connected scenario counts them (the workflow's functions run
 * in this thread), the workflow's states read from the Step Functions stand-in's execution record
 * (it persists each state entered; it has no GetExecutionHistory), and the S3 requests the
 * installer task made as those the local S3 server answered less those the functions made.
 */
export async function measureInstall(): Promise<InstallMeasurement> {
  const recorder = new Recorder();
  const previousPoll = process.env.INSTALL_POLL_SECONDS;
  // The workflow re-judges the simulated install every second; a real one's passes are counted from installMinutes.
  process.env.INSTALL_POLL_SECONDS = '1';
  const extraFunctions: Record<string, Handler> = {
    Api: measured(recorder, apiHandler as Handler, (event) => installKind(event as never)),
    HostChanges: measured(recorder, hostChangesHandler as Handler, () => 'stream batch (HostChanges)'),
  };
  for (const [name, handler] of Object.entries(INSTALL_FUNCTIONS)) extraFunctions[name] = measured(recorder, handler as Handler, () => `workflow ${name}`);
  // The connected scenario's metered store and blobs point at its stopped runtime: this runtime's own, until the metered ones below.
  provide({ store: undefined, blobs: undefined, clock: systemClock });
  const { runtime, close } = await monitorBenchRuntime('assisted-cost-install-', {
    baseDomains: [FLEET_BASE_DOMAIN],
    apiInstances: 1,
    extraFunctions: extraFunctions as never,
  });
  const s3Server = countS3Server(Number(new URL(runtime.endpoints.s3).port));
  const restoreOutput = countLogBytes();
  const previousLevel = logger.getLevelName();
  logger.setLogLevel('INFO');
  const clients: { close(): void }[] = [];
  let stopFleet: (() => Promise<void>) | undefined;
  const fleetLines: string[] = [];
  try {
    clients.push(...provideMeteredPorts(runtime.endpoints.dynamodb));

    const adminToken = readFileSync(runtime.adminTokenFile, 'utf8').trim();
    const user = agentClient(runtime.url, { Authorization: `Bearer ${adminToken}` }, 2);
    const observer = agentClient(runtime.url, { Authorization: `Bearer ${adminToken}`, [OBSERVER_HEADER]: '1' }, 2);
    clients.push(user, observer);
    const version = await defaultOpenshiftVersion(observer);

    // Not counted: the release's base ISO, made once (imported in AWS; the SYNTHETIC one is built here on first use).
    const warmEnv = await observer.call('POST', '/infra-envs', {
      name: 'cost-warm',
      pull_secret: BENCH_PULL_SECRET,
      openshift_version: version,
      cpu_architecture: 'x86_64',
    });
    if (warmEnv.status !== 201) throw new Error(`warm-up infra-env: ${warmEnv.status} ${warmEnv.body}`);
    await observer.call('GET', `/infra-envs/${(JSON.parse(warmEnv.body) as { id: string }).id}/downloads/image-url`);

    // ---- counted from here: the user's actions, the agents, the workflow, the stream
    recorder.recording = true;
    s3Server.counting = true;
    const { clusterId, infraEnvId } = await registerCluster(user, 'cost-install', version, {
      base_dns_domain: FLEET_BASE_DOMAIN,
      api_vips: [{ ip: FLEET_API_VIP }],
      ingress_vips: [{ ip: FLEET_INGRESS_VIP }],
      additional_ntp_source: undefined,
    });
    // The user asks for the discovery image's URL once (the download itself is priced from install-assumptions.json).
    const imageUrl = await user.call('GET', `/infra-envs/${infraEnvId}/downloads/image-url`);
    if (imageUrl.status !== 200) throw new Error(`image url: ${imageUrl.status} ${imageUrl.body}`);
    const token = await issueAgentToken(container().config.agentSigningKeyPem, { orgId: runtime.orgId, infraEnvId });
    const started = performance.now();
    const stageMs = 150;
    const fleet = new Fleet({
      url: runtime.url,
      infraEnvId,
      token,
      agentVersion: serviceAgentImage(),
      profiles: ['master', 'master', 'master'].map((name) => loadProfile(name)),
      staggerMs: 20,
      timing: { maxPollIntervalMs: 1_000 },
      installDurationsMs: everyStageTaking(stageMs),
      log: createLog({ level: 'info', sink: (line) => fleetLines.push(line) }),
    });
    const stop = new AbortController();
    const running = fleet.run(stop.signal);
    stopFleet = async () => {
      stop.abort();
      await running.catch(() => undefined);
    };
    const statusOf = async () => JSON.parse((await observer.call('GET', `/clusters/${clusterId}`)).body) as { status: string; status_info?: string };
    const waitFor = async (wanted: (status: string) => boolean, seconds: number) => {
      const deadline = Date.now() + seconds * 1000;
      for (;;) {
        const cluster = await statusOf();
        if (wanted(cluster.status)) return cluster;
        if (Date.now() > deadline)
          throw new Error(
            `the measured install is ${cluster.status} (${cluster.status_info}) after ${seconds} s; the fleet's last lines:\n${fleetLines.slice(-5).join('\n')}`,
          );
        await sleep(500);
      }
    };
    await waitFor((status) => status === 'ready', 120);
    const install = await user.call('POST', `/clusters/${clusterId}/actions/install`);
    if (install.status !== 202) throw new Error(`install: ${install.status} ${install.body}`);
    const ended = await waitFor((status) => ['installed', 'error', 'cancelled'].includes(status), 240);
    if (ended.status !== 'installed') throw new Error(`the measured install ended ${ended.status}: ${ended.status_info}`);
    const seconds = (performance.now() - started) / 1000;
    const kubeconfig = await user.call('GET', `/clusters/${clusterId}/downloads/credentials?file_name=kubeconfig`);
    if (kubeconfig.status !== 200) throw new Error(`kubeconfig: ${kubeconfig.status}`);
    // The workflow's last pass sees the cluster installed and ends.
    const executions = path.join(runtime.dataDir, 'stepfunctions');
    const record = async () => {
      for (let i = 0; i < 60; i++) {
        const records = readdirSync(executions)
          .filter((name) => name.endsWith('.json'))
          .map(
            (name) =>
              JSON.parse(readFileSync(path.join(executions, name), 'utf8')) as { stateMachineArn: string; status: string; history: { state: string }[] },
          );
        const installs = records.filter((r) => r.stateMachineArn.endsWith(':install-cluster'));
        if (installs.length > 0 && installs.every((r) => r.status !== 'RUNNING')) return installs;
        await sleep(500);
      }
      throw new Error('the install workflow did not end');
    };
    const installs = await record();
    await stopFleet();
    stopFleet = undefined;
    // What the stream still delivers for the install's last writes.
    await sleep(2_000);
    recorder.recording = false;
    s3Server.counting = false;

    const kinds: InstallRequestKind[] = recorder
      .kinds()
      .filter((kind) => kind !== 'observer')
      .map((kind) => ({
        label: kind,
        caller: kind.startsWith('user ') ? 'user' : kind.startsWith('workflow ') ? 'workflow' : kind.startsWith('stream batch') ? 'stream' : 'agent',
        cost: recorder.cost(kind)!,
        measuredCount: recorder.count(kind),
        drivenBy: kind === 'poll' ? 'agent-poll' : kind === 'workflow InstallFollow' ? 'follow' : 'event',
      }));
    const functionsS3 = kinds.reduce(
      (sum, kind) => ({ puts: sum.puts + kind.cost.s3Puts * kind.measuredCount, gets: sum.gets + kind.cost.s3Gets * kind.measuredCount }),
      { puts: 0, gets: 0 },
    );
    // The stand-in records a state as it is entered, but the run can end before the last one (Finished) is recorded: AWS counts it.
    const history = installs.flatMap((r) => [
      ...r.history.map((entry) => entry.state),
      ...(r.status === 'SUCCEEDED' && r.history.at(-1)?.state !== 'Finished' ? ['Finished'] : []),
    ]);
    return {
      run: {
        kinds,
        workflowStates: history.length,
        workflowFollows: history.filter((state) => state === 'Follow').length,
        taskS3Puts: Math.max(0, Math.round(s3Server.signed.puts - functionsS3.puts)),
        taskS3Gets: Math.max(0, Math.round(s3Server.signed.gets - functionsS3.gets)),
        downloadS3Gets: s3Server.presigned.gets,
        downloadBytes: s3Server.presigned.bytes,
      },
      simulated: {
        seconds,
        polls: fleet.metrics.polls,
        hosts: 3,
        workflowHistory: history,
        serverS3: { ...s3Server.signed },
        functionsS3,
        presigned: { ...s3Server.presigned },
      },
    };
  } finally {
    await stopFleet?.();
    logger.setLogLevel(previousLevel as never);
    restoreOutput();
    s3Server.restore();
    for (const client of clients) client.close();
    await close();
    provide({ store: undefined, blobs: undefined });
    if (previousPoll === undefined) delete process.env.INSTALL_POLL_SECONDS;
    else process.env.INSTALL_POLL_SECONDS = previousPoll;
  }
}
