/**
 * A lab for the hub controller's end-to-end tests: a real kube-apiserver + etcd with upstream's
 * CRDs, the RBAC manifest's ServiceAccount (so hub/rbac.yaml is what is tested), the local stack,
 * controllers as processes (`npm run hub`'s entry point), kubectl, and SIMULATED hosts booted from
 * an InfraEnv's discovery ignition.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import YAML from 'yaml';
import { createLog } from '../../agent/src/log.js';
import { Fleet } from '../../agent/src/simulate/fleet.js';
import { everyStageTaking } from '../../agent/src/simulate/durations.js';
import { loadProfile } from '../../agent/src/simulate/profile.js';
import { agentSettingsFromIgnition } from '../../cli/commands/hosts.js';
import { freePort } from './net.js';
import { testRuntime } from './runtime.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** A kube-apiserver + etcd kit (start.sh WORKDIR / stop.sh WORKDIR) and upstream's CRDs with their examples, unchanged. */
/** shared/ beside the project (developer machines and CI), or beside the folder holding it (a git worktree in a folder of worktrees). */
const besideProject = (relative: string) =>
  [path.resolve(ROOT, '../shared', relative), path.resolve(ROOT, '../../shared', relative)].find((candidate) => existsSync(candidate)) ??
  path.resolve(ROOT, '../shared', relative);
export const KUBE_TOOLS = process.env.KUBE_APISERVER_TOOLS ?? besideProject('tools/kube-apiserver');
export const CRDS = process.env.UPSTREAM_CRDS ?? besideProject('reference/upstream/crds');
export const EXAMPLES = path.join(CRDS, 'examples');
export const HUB_LAB_AVAILABLE =
  existsSync(path.join(KUBE_TOOLS, 'start.sh')) && existsSync(EXAMPLES) && spawnSync('kubectl', ['version', '--client'], { timeout: 10_000 }).status === 0;
const run = promisify(execFile);

export interface Controller {
  name: string;
  child: ChildProcess;
  log: string[];
}

export const conditionsOf = (object: any): Record<string, { type: string; status: string; reason: string; message: string } | undefined> =>
  Object.fromEntries(((object?.status?.conditions ?? []) as { type: string; status: string; reason: string; message: string }[]).map((c) => [c.type, c]));

export class HubLab {
  readonly work = mkdtempSync(path.join(tmpdir(), 'assisted-hub-'));
  kubeconfig = '';
  /** The controllers' kubeconfig: the ServiceAccount of hub/rbac.yaml. */
  controllerKubeconfig = '';
  stack!: Awaited<ReturnType<typeof testRuntime>>;
  readonly controllers: Controller[] = [];
  private readonly stops: (() => Promise<void>)[] = [];

  async start(): Promise<void> {
    process.env.INSTALL_POLL_SECONDS = '1';
    const started = spawnSync(path.join(KUBE_TOOLS, 'start.sh'), [path.join(this.work, 'kube')], { encoding: 'utf8', timeout: 60_000 });
    this.kubeconfig = /^KUBECONFIG=(.*)$/m.exec(started.stdout)?.[1] ?? '';
    if (!this.kubeconfig) throw new Error(`kube-apiserver did not start: ${started.stdout}\n${started.stderr}`);
    const crds = spawnSync('kubectl', ['--kubeconfig', this.kubeconfig, 'apply', '-f', CRDS], { encoding: 'utf8', timeout: 60_000 });
    if (crds.status !== 0) throw new Error(`applying the CRDs: ${crds.stderr}`);
    this.stack = await testRuntime({ settleFollowUps: false });
    // As docs/kube-api.md says: the RBAC manifest, a token for its ServiceAccount, the service's token in a Secret.
    await this.kubectl('apply', '-f', path.join(ROOT, 'hub/rbac.yaml'));
    const request = path.join(this.work, 'token-request.json');
    writeFileSync(request, JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 7200 } }));
    const token = JSON.parse(
      await this.kubectl('create', '--raw', '/api/v1/namespaces/assisted-hub/serviceaccounts/assisted-hub-controller/token', '-f', request),
    ).status.token as string;
    const config = YAML.parse(readFileSync(this.kubeconfig, 'utf8'));
    config.users = [{ name: 'assisted-hub-controller', user: { token } }];
    config.contexts = [{ name: 'controller', context: { cluster: config.clusters[0].name, user: 'assisted-hub-controller' } }];
    config['current-context'] = 'controller';
    this.controllerKubeconfig = path.join(this.work, 'controller.kubeconfig');
    writeFileSync(this.controllerKubeconfig, YAML.stringify(config), { mode: 0o600 });
    await this.kubectl('create', 'secret', 'generic', 'assisted-token', '-n', 'assisted-hub', `--from-literal=token=${this.stack.adminToken}`);
  }

  async close(): Promise<void> {
    for (const stop of this.stops) await stop();
    for (const controller of this.controllers) await this.stopController(controller);
    await this.stack?.close();
    spawnSync(path.join(KUBE_TOOLS, 'stop.sh'), [path.join(this.work, 'kube')], { timeout: 30_000 });
    delete process.env.INSTALL_POLL_SECONDS;
    rmSync(this.work, { recursive: true, force: true });
  }

  /** kubectl, asynchronously: the service runs in this process and must keep answering. */
  async kubectl(...args: string[]): Promise<string> {
    const { stdout } = await run('kubectl', ['--kubeconfig', this.kubeconfig, ...args], { timeout: 30_000 });
    return stdout;
  }

  async get(...args: string[]): Promise<any> {
    return JSON.parse(await this.kubectl('get', '-o', 'json', ...args));
  }

  /** Applies YAML documents written to a file of the lab. */
  async apply(name: string, documents: unknown[]): Promise<void> {
    const file = path.join(this.work, 'applied', name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, documents.map((document) => YAML.stringify(document)).join('---\n'));
    await this.kubectl('apply', '-f', file);
  }

  /** The service's REST API as the admin. */
  async rest(pathname: string): Promise<any> {
    const response = await fetch(`${this.stack.runtime.url}/api/assisted-install/v2${pathname}`, {
      headers: { Authorization: `Bearer ${this.stack.adminToken}` },
    });
    return { status: response.status, body: response.status === 204 ? undefined : await response.json().catch(() => undefined) };
  }

  logs = () => this.controllers.map((c) => `--- ${c.name}\n${c.log.join('').slice(-4_000)}`).join('\n');

  startController(name: string): Controller {
    const log: string[] = [];
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(ROOT, 'hub/main.ts'),
        '--kubeconfig',
        this.controllerKubeconfig,
        '--token-secret',
        'assisted-hub/assisted-token',
        '--lease-namespace',
        'assisted-hub',
        '--resync-seconds',
        '1',
        '--lease-duration',
        '4',
        '--identity',
        name,
      ],
      {
        cwd: ROOT,
        env: { ...process.env, ASSISTED_URL: this.stack.runtime.url, ASSISTED_TOKEN: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stdout!.on('data', (chunk: Buffer) => log.push(chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => log.push(chunk.toString()));
    const entry = { name, child, log };
    this.controllers.push(entry);
    return entry;
  }

  async stopController(entry: Controller, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    if (entry.child.exitCode !== null || entry.child.signalCode !== null) return;
    const exited = new Promise((resolve) => entry.child.once('exit', resolve));
    entry.child.kill(signal);
    const timer = setTimeout(() => entry.child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }

  /**
   * A stand-in for an installed cluster's API: the kit's kube-apiserver (beside the hub's, on the
   * hub's etcd under its own prefix) serving the certificate and key of the cluster's bootstrap
   * ignition and trusting client certificates of the cluster's root CA, as the real one would. It
   * listens on 127.0.0.1 only; a client reaches it under the cluster's API name with
   * `--tls-server-name` (or `--server` pointing at the port it answers).
   */
  async startStandInApi(name: string, tls: { servingCertPem: string; servingKeyPem: string; clientCaPem: string }): Promise<{ url: string }> {
    const kube = path.join(this.work, 'kube');
    const dir = path.join(this.work, `stand-in-${name}`);
    mkdirSync(dir, { recursive: true });
    const write = (file: string, text: string) => {
      writeFileSync(path.join(dir, file), text, { mode: 0o600 });
      return path.join(dir, file);
    };
    // The hub's etcd, as its API server was told it (start.sh records no other trace of the port).
    const hubArgs = readFileSync(`/proc/${readFileSync(path.join(kube, 'kube-apiserver.pid'), 'utf8').trim()}/cmdline`, 'utf8').split('\0');
    const etcd = hubArgs.find((arg) => arg.startsWith('--etcd-servers='));
    if (!etcd) throw new Error("the hub's kube-apiserver names no --etcd-servers");
    const port = await freePort();
    const child = spawn(
      path.join(kube, 'bin/kube-apiserver'),
      [
        etcd,
        `--etcd-prefix=/stand-in-${name}`,
        '--bind-address=127.0.0.1',
        '--advertise-address=127.0.0.1',
        `--secure-port=${port}`,
        `--tls-cert-file=${write('serving.crt', tls.servingCertPem)}`,
        `--tls-private-key-file=${write('serving.key', tls.servingKeyPem)}`,
        `--client-ca-file=${write('client-ca.crt', tls.clientCaPem)}`,
        '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
        `--service-account-key-file=${path.join(kube, 'pki/sa.pub')}`,
        `--service-account-signing-key-file=${path.join(kube, 'pki/sa.key')}`,
        '--authorization-mode=RBAC',
        '--service-cluster-ip-range=10.96.0.0/12',
        '--endpoint-reconciler-type=none',
        `--cert-dir=${path.join(dir, 'certs')}`,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const log: string[] = [];
    child.stderr!.on('data', (chunk: Buffer) => log.push(chunk.toString()));
    this.stops.push(async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    });
    // Ready once it answers TLS on its port at all (any status: the anonymous request is refused).
    const url = `https://127.0.0.1:${port}`;
    await until(
      `the stand-in API of ${name} listening`,
      async () => {
        if (child.exitCode !== null) throw new Error(`kube-apiserver exited ${child.exitCode}: ${log.join('').slice(-2_000)}`);
        return spawnSync('curl', ['-sk', '-o', '/dev/null', '-w', '%{http_code}', `${url}/readyz`], { encoding: 'utf8', timeout: 5_000 }).stdout;
      },
      (code) => /^[1-5]\d\d$/.test(code),
      60_000,
      () => log.join('').slice(-2_000),
    );
    return { url };
  }

  /** SIMULATED hosts booted from the InfraEnv's image: the service URL and token are its discovery ignition's. */
  async bootHosts(
    infraEnv: any,
    profiles: string[],
    network: string,
    stageMs = 400,
    identities: { seed?: string; firstHostOffset?: number } = {},
  ): Promise<{ lines: string[] }> {
    const infraEnvId = infraEnv.metadata.annotations['agent-install.openshift.io/infra-env-id'] as string;
    const ignition = await (await fetch(infraEnv.status.bootArtifacts.discoveryIgnitionURL)).text();
    const lines: string[] = [];
    const fleet = new Fleet({
      ...agentSettingsFromIgnition(ignition),
      infraEnvId,
      profiles: profiles.map((profile) => loadProfile(profile)),
      network,
      // A later boot on the same InfraEnv needs other seeds and addresses, or its hosts would be the first boot's.
      ...identities,
      timing: { maxPollIntervalMs: 1_000 },
      staggerMs: 20,
      installDurationsMs: everyStageTaking(stageMs),
      log: createLog({ level: 'info', sink: (line) => lines.push(line) }),
    });
    const stop = new AbortController();
    const running = fleet.run(stop.signal);
    this.stops.push(async () => {
      stop.abort();
      await running.catch(() => undefined);
    });
    return { lines };
  }
}

/** Polls `read` until `done` holds, for at most `ms`; returns the last value read. */
export async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, ms: number, logs = () => ''): Promise<T> {
  const deadline = Date.now() + ms;
  let last: T | undefined;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      last = await read();
      if (done(last)) return last;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const shown = last && typeof last === 'object' && 'status' in last ? (last as { status: unknown }).status : last;
  throw new Error(
    `timed out after ${ms} ms waiting for ${what}; last: ${JSON.stringify(shown)?.slice(0, 3_000)} ${lastError ? String(lastError) : ''}\n${logs()}`,
  );
}
