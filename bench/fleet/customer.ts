/**
 * The customer side of `bench fleet`, in a process of its own so that its CPU is not the service's:
 * automation creating clusters (half through the REST API, half through `assisted ztp apply` with
 * the built CLI), SIMULATED hosts booted with the agent token of their own infra-env's discovery
 * ignition (many infra-envs in one fleet process, on one connection pool), each install started
 * as soon as its cluster reads `ready`, and followed to `installed` and a kubeconfig download.
 *
 * A closed loop: at most `inFlight` clusters are between creation and their end at once; each
 * finished cluster makes room for the next. Every answer the service gives is timed here, on the
 * client side, by the class of call. Started by bench/fleet.ts, which sends its settings as the
 * first message over the IPC channel; reports to it over the same channel (see CustomerReport).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { createLog } from '../../agent/src/log.js';
import { Fleet } from '../../agent/src/simulate/fleet.js';
import { FINALIZING_STAGES, HOST_STAGES } from '../../agent/src/installer/index.js';
import { loadProfile } from '../../agent/src/simulate/profile.js';
import { createConnectionPool } from '../../agent/src/transport.js';
import { exampleManifests } from '../../cli/ztp/examples.js';
import { agentUnitOf } from '../support/agent-unit.js';
import { LatencyBook, callClass, type CustomerReport, type CustomerSettings, type ClusterOutcome, type ClusterKind } from './contract.js';
import { counter, createClusterThroughRest, expectStatus, Failure, MACHINE_NETWORKS, pathTemplate, sleep, userClient } from './rest.js';

const settings = await new Promise<CustomerSettings>((resolve) =>
  process.once('message', (message: { settings: CustomerSettings }) => resolve(message.settings)),
);
const report = (message: CustomerReport) => process.send?.(message);

const latencies = new LatencyBook(settings.startedAt);
const pool = createConnectionPool({ connections: settings.connections });
const stopAll = new AbortController();
process.on('message', (message: { type: string }) => {
  if (message.type === 'stop') stopAll.abort();
});
process.on('disconnect', () => stopAll.abort());
// Ctrl-C (or kill -INT of the run's process group) reaches this process too, but the bench decides
// how a run stops: it says 'stop' over IPC and then waits for this process's latencies. Dying on the
// signal instead would lose the report; a bench that is gone disconnects, which stops this process.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => undefined);

/** Calls the agents, controllers and automation made, by method and path template. */
const agentCalls = new Map<string, number>();
const countCall = counter(agentCalls);
const user = userClient(settings, latencies, countCall, report);

/** The kinds of the mix (`sno:90,compact:10`), spread evenly over the cluster indexes. */
function kindsOf(mix: string, count: number): ClusterKind[] {
  const weights = mix.split(',').map((part) => {
    const [kind, weight] = part.split(':');
    if (kind !== 'sno' && kind !== 'compact') throw new RangeError(`FLEET_MIX: unknown kind ${kind} (sno, compact)`);
    return { kind: kind as ClusterKind, weight: Number(weight) };
  });
  const total = weights.reduce((sum, w) => sum + w.weight, 0);
  const given = new Map<ClusterKind, number>();
  return Array.from({ length: count }, (_, index) => {
    // The kind furthest behind its share so far: any prefix of the run has the mix's proportions.
    const pick = weights.reduce((best, w) =>
      (given.get(w.kind) ?? 0) - (w.weight / total) * (index + 1) < (given.get(best.kind) ?? 0) - (best.weight / total) * (index + 1) ? w : best,
    );
    given.set(pick.kind, (given.get(pick.kind) ?? 0) + 1);
    return pick.kind;
  });
}

const NETWORKS: Record<ClusterKind, { machine: string; profiles: string[] }> = {
  sno: { machine: MACHINE_NETWORKS.singleNode, profiles: ['sno'] },
  compact: { machine: MACHINE_NETWORKS.compact, profiles: ['master', 'master', 'master'] },
};

/**
 * ZTP: clusters wanting manifests wait a moment for others, then one `assisted ztp apply` registers
 * the batch (one process per batch, as a GitOps pipeline applies a commit's manifests at once).
 */
class ZtpBatches {
  private waiting: { name: string; kind: ClusterKind; done: (ids: { clusterId: string; infraEnvId: string }) => void; fail: (error: Error) => void }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private batch = 0;

  create(name: string, kind: ClusterKind): Promise<{ clusterId: string; infraEnvId: string }> {
    return new Promise((done, fail) => {
      this.waiting.push({ name, kind, done, fail });
      if (this.waiting.length >= settings.ztpBatch) void this.flush();
      else this.timer ??= setTimeout(() => void this.flush(), settings.ztpBatchWaitMs);
    });
  }

  private async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.waiting.splice(0);
    if (batch.length === 0) return;
    const dir = path.join(settings.workDir, `ztp-${this.batch++}`);
    mkdirSync(dir, { recursive: true });
    let imageSetWritten = false;
    for (const { name, kind } of batch) {
      for (const file of exampleManifests(kind === 'sno' ? 'sno' : 'ha', { name, pullSecret: settings.pullSecret, sshPublicKey: settings.sshPublicKey })) {
        if (file.file === 'nmstate.yaml') continue; // static addresses for the example's MACs, not the simulated hosts'
        // One ClusterImageSet serves every cluster of the batch (it is cluster-scoped: two of one name are an error).
        const documents = YAML.parseAllDocuments(file.text)
          .map((document) => document.toJSON() as Record<string, any>)
          .filter((document) => document.kind !== 'ClusterImageSet' || !imageSetWritten);
        imageSetWritten ||= documents.some((document) => document.kind === 'ClusterImageSet');
        for (const document of documents) {
          if (document.kind === 'AgentClusterInstall' && kind === 'compact') {
            document.spec.provisionRequirements = { controlPlaneAgents: 3, workerAgents: 0 };
            delete document.spec.proxy;
          }
          if (document.kind === 'InfraEnv') delete document.spec.nmStateConfigLabelSelector;
        }
        writeFileSync(path.join(dir, `${name}-${file.file}`), documents.map((document) => YAML.stringify(document)).join('---\n'));
      }
    }
    try {
      const started = performance.now();
      const output = await runCli(['-o', 'json', 'ztp', 'apply', dir]);
      latencies.add('ztp apply (one CLI run)', performance.now() - started);
      const resources = (JSON.parse(output) as { resources: { kind: string; name: string; id?: string; action: string }[] }).resources;
      for (const waiting of batch) {
        const cluster = resources.find((r) => r.kind === 'cluster' && r.name === waiting.name);
        const infraEnv = resources.find((r) => r.kind === 'infra-env' && r.name === waiting.name);
        if (cluster?.id && infraEnv?.id) waiting.done({ clusterId: cluster.id, infraEnvId: infraEnv.id });
        else waiting.fail(new Failure('ztp apply: no cluster or infra-env in its report', JSON.stringify(resources).slice(0, 300)));
      }
    } catch (error) {
      for (const waiting of batch) waiting.fail(error instanceof Failure ? error : new Failure('ztp apply failed', (error as Error).message));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

function runCli(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    // The token in the environment, not argv: the process list shows every process's arguments.
    // A process group of its own: a Ctrl-C to the run's group would kill an apply midway, and its
    // clusters would count as failed installs rather than as stopped.
    const child = spawn(process.execPath, [settings.cliBundle, '--url', settings.url, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      env: { PATH: process.env.PATH ?? '', HOME: settings.workDir, ASSISTED_TOKEN: settings.adminToken },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else reject(new Failure(`ztp apply exited ${code}`, stderr.slice(-300)));
    });
  });
}

const ztp = new ZtpBatches();
/** Every stage of the SIMULATED installer and controller takes FLEET_STAGE_MS; writing the image five times that. */
const STAGE_DURATIONS: Record<string, number> = {
  ...Object.fromEntries([...HOST_STAGES, ...FINALIZING_STAGES].map((stage) => [stage, settings.stageMs])),
  'Writing image to disk': settings.stageMs * 5,
};
const fleets = new Set<Fleet>();
const agentLog = createLog({ level: 'error', sink: (line) => report({ type: 'agent-error', line: line.slice(0, 500) }) });
const TERMINAL = new Set(['installed', 'error', 'cancelled']);

/** fetch's own message is "fetch failed"; what failed (a reset, a closed socket) is its cause. */
function describeError(error: unknown): string {
  const { message, cause } = error as Error & { cause?: { code?: string; message?: string } };
  return cause ? `${message}: ${[cause.code, cause.message].filter(Boolean).join(' ')}` : message;
}

/** One cluster from creation to its end. */
async function oneCluster(index: number, kind: ClusterKind): Promise<ClusterOutcome> {
  const name = `${settings.namePrefix}-${index}`;
  const channel = index % 2 === 0 ? 'rest' : 'ztp';
  const times: ClusterOutcome['times'] = { created: 0 };
  const t0 = Date.now();
  const signal = AbortSignal.any([stopAll.signal, AbortSignal.timeout(settings.clusterTimeoutMs)]);
  let fleet: Fleet | undefined;
  let fleetRun: Promise<void> | undefined;
  const hostStop = new AbortController();
  try {
    const { clusterId, infraEnvId } = channel === 'rest' ? await createClusterThroughRest(user, settings, name, kind === 'sno') : await ztp.create(name, kind);
    times.created = Date.now() - t0;
    const ignition = await user.call('GET', `/infra-envs/${infraEnvId}/downloads/files?file_name=discovery.ign`);
    expectStatus(ignition, 200, 'downloading discovery.ign');
    const { token, image } = agentUnitOf(ignition.text);
    fleet = new Fleet({
      url: settings.url,
      infraEnvId,
      token,
      agentVersion: image,
      profiles: NETWORKS[kind].profiles.map((profile) => loadProfile(profile)),
      network: NETWORKS[kind].machine,
      staggerMs: 50,
      timing: { maxPollIntervalMs: settings.pollSeconds * 1000 },
      installDurationsMs: STAGE_DURATIONS,
      controllerPollMs: settings.controllerPollSeconds * 1000,
      dispatcher: pool,
      onResponse: ({ method, path: route, status, ms }) => {
        latencies.add(callClass(method, route), ms);
        countCall(`${method} ${pathTemplate(route)}`);
        if (status >= 500) report({ type: 'server-error', status, call: `${method} ${pathTemplate(route)}` });
      },
      log: agentLog,
    });
    fleets.add(fleet);
    const started = fleet;
    fleetRun = fleet.run(AbortSignal.any([signal, hostStop.signal])).finally(() => fleets.delete(started));
    for (let cluster: any; ; ) {
      if (signal.aborted)
        throw new Failure(
          stopAll.signal.aborted ? 'stopped' : `not installed within ${settings.clusterTimeoutMs / 1000} s`,
          `last status ${cluster?.status}: ${cluster?.status_info}`,
        );
      await sleep(settings.watchSeconds * 1000 * (0.75 + Math.random() / 2), signal);
      const answer = await user.call('GET', `/clusters/${clusterId}`);
      expectStatus(answer, 200, 'reading the cluster');
      cluster = answer.body;
      if (cluster.status === 'ready' && times.ready === undefined) {
        times.ready = Date.now() - t0;
        const install = await user.call('POST', `/clusters/${clusterId}/actions/install`);
        expectStatus(install, 202, 'starting the install');
        times.installStarted = Date.now() - t0;
      }
      if (TERMINAL.has(cluster.status)) {
        if (cluster.status !== 'installed') throw new Failure(`cluster ${cluster.status}`, String(cluster.status_info));
        times.installed = Date.now() - t0;
        break;
      }
    }
    const kubeconfig = await user.call('GET', `/clusters/${clusterId}/downloads/credentials?file_name=kubeconfig`);
    expectStatus(kubeconfig, 200, 'downloading the kubeconfig');
    if (!kubeconfig.text.includes(`https://api.${name}.example.com:6443`)) throw new Failure('kubeconfig names another server', kubeconfig.text.slice(0, 200));
    return { index, kind, channel, startedAt: t0, times, hosts: NETWORKS[kind].profiles.length };
  } catch (error) {
    const failure = error instanceof Failure ? error : new Failure('unexpected', describeError(error));
    return { index, kind, channel, startedAt: t0, times, hosts: NETWORKS[kind].profiles.length, failure: { cause: failure.reason, detail: failure.message } };
  } finally {
    // Hosts of an installed cluster have rebooted and stopped; what is left (a failure) stops now.
    hostStop.abort();
    // Told directly too: in a 3,500-cluster run 4 fleets never saw their composite signal abort
    // (AbortSignal.any), kept polling, and the run waited on them for good.
    fleet?.stop();
    await fleetRun?.catch(() => undefined);
  }
}

async function main(): Promise<void> {
  const kinds = kindsOf(settings.mix, settings.clusters);
  let next = 0;
  const sampler = setInterval(() => {
    const connected = [...fleets].reduce((sum, fleet) => sum + fleet.hosts.filter((host) => host.state === 'running').length, 0);
    report({ type: 'sample', at: Date.now(), connected });
  }, 1_000);
  const worker = async () => {
    while (next < kinds.length && !stopAll.signal.aborted) {
      const index = next++;
      // New clusters arrive spread out, as automation creates them, rather than in one burst at the start.
      if (index < settings.inFlight) await sleep((index * settings.rampMs) / settings.inFlight, stopAll.signal);
      report({ type: 'outcome', outcome: await oneCluster(index, kinds[index]!) });
    }
  };
  await Promise.all(Array.from({ length: Math.min(settings.inFlight, kinds.length) }, worker));
  clearInterval(sampler);
  report({ type: 'done', latencies: latencies.summary(), calls: Object.fromEntries([...agentCalls].sort((a, b) => b[1] - a[1])) });
  await pool.close().catch(() => undefined);
}

await main();
process.disconnect?.();
