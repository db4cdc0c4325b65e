/**
 * The hub controller end to end: a real kube-apiserver + etcd with upstream's CRDs, the local
 * stack, and two controllers (`npm run hub`'s entry point as processes) electing a leader through a
 * Lease. Upstream's example resources are applied with kubectl (the ClusterImageSet reference and
 * the machine network adjusted), one SIMULATED host boots from the InfraEnv's discovery ignition,
 * its Agent is approved with `kubectl patch`, and the AgentClusterInstall's conditions are followed
 * to Completed, through the loss of the leading controller mid-install. Then a bad spec, and the
 * teardown through the finalizers.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { agentSettingsFromIgnition } from '../../cli/commands/hosts.js';
import { createLog } from '../../agent/src/log.js';
import { Fleet } from '../../agent/src/simulate/fleet.js';
import { loadProfile } from '../../agent/src/simulate/profile.js';
import { PULL_SECRET } from '../support/fixtures.js';
import { testRuntime } from '../support/runtime.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** A kube-apiserver + etcd kit (start.sh WORKDIR / stop.sh WORKDIR) and upstream's CRDs with their examples, unchanged. */
const KUBE_TOOLS = process.env.KUBE_APISERVER_TOOLS ?? '/work/shared/tools/kube-apiserver';
const CRDS = process.env.UPSTREAM_CRDS ?? '/work/shared/reference/upstream/crds';
const AVAILABLE = existsSync(path.join(KUBE_TOOLS, 'start.sh')) && existsSync(path.join(CRDS, 'examples')) && spawnSync('kubectl', ['version', '--client'], { timeout: 10_000 }).status === 0;
const EXAMPLES = path.join(CRDS, 'examples');
const NS = 'spoke-cluster';
const STAGES = ['Starting installation', 'Installing', 'Writing image to disk', 'Waiting for control plane', 'Waiting for bootkube', 'Waiting for controller', 'Rebooting', 'Configuring', 'Joined', 'Done', 'Waiting for ignition'];

const work = mkdtempSync(path.join(tmpdir(), 'assisted-hub-'));
const kubeDir = path.join(work, 'kube');
const manifests = path.join(work, 'manifests');
let kubeconfig = '';
/** The controllers' kubeconfig: the ServiceAccount of hub/rbac.yaml, so the RBAC manifest is what is tested. */
let controllerKubeconfig = '';
let stack: Awaited<ReturnType<typeof testRuntime>>;
const controllers: { name: string; child: ChildProcess; log: string[] }[] = [];
const stopFleets: (() => Promise<void>)[] = [];

const run = promisify(execFile);

/** kubectl, asynchronously: the service runs in this process and must keep answering. */
async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await run('kubectl', ['--kubeconfig', kubeconfig, ...args], { timeout: 30_000 });
  return stdout;
}

async function getJson(...args: string[]): Promise<any> {
  return JSON.parse(await kubectl('get', '-o', 'json', ...args));
}

/** Polls `read` until `done` holds, for at most `ms`; returns the last value read. */
async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, ms: number, logs = () => ''): Promise<T> {
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
  throw new Error(`timed out after ${ms} ms waiting for ${what}; last: ${JSON.stringify(last)?.slice(0, 2_000)} ${lastError ? String(lastError) : ''}\n${logs()}`);
}

const conditionsOf = (object: any) => Object.fromEntries(((object?.status?.conditions ?? []) as { type: string; status: string; reason: string; message: string }[]).map((c) => [c.type, c]));
const controllerLogs = () => controllers.map((c) => `--- ${c.name}\n${c.log.join('').slice(-4_000)}`).join('\n');

function startController(name: string): { name: string; child: ChildProcess; log: string[] } {
  const log: string[] = [];
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'hub/main.ts'), '--kubeconfig', controllerKubeconfig, '--token-secret', 'assisted-hub/assisted-token', '--lease-namespace', 'assisted-hub', '--resync-seconds', '1', '--lease-duration', '4', '--identity', name], {
    cwd: ROOT,
    env: { ...process.env, ASSISTED_URL: stack.runtime.url, ASSISTED_TOKEN: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk: Buffer) => log.push(chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => log.push(chunk.toString()));
  const entry = { name, child, log };
  controllers.push(entry);
  return entry;
}

async function stopController(entry: { child: ChildProcess }, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (entry.child.exitCode !== null || entry.child.signalCode !== null) return;
  const exited = new Promise((resolve) => entry.child.once('exit', resolve));
  entry.child.kill(signal);
  const timer = setTimeout(() => entry.child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** Upstream's examples, with the two references a user fixes (see the CRDs' README) and a machine network for the simulated hosts. */
function writeExamples(): void {
  for (const file of ['namespace.yaml', 'pullsecret.yaml', 'clusterImageSet.yaml', 'clusterDeployment.yaml', 'infraEnv.yaml', 'nmstate.yaml']) copyFileSync(path.join(EXAMPLES, file), path.join(manifests, file));
  const aci = readFileSync(path.join(EXAMPLES, 'agentClusterInstall-SNO.yaml'), 'utf8').replace('openshift-v4.9.0', 'openshift-v5.0.0');
  writeFileSync(path.join(manifests, 'agentClusterInstall-SNO.yaml'), aci);
  // The example's pull secret is not one the service accepts: the fixtures' one, same shape.
  const secret = YAML.parse(readFileSync(path.join(EXAMPLES, 'pullsecret.yaml'), 'utf8'));
  secret.stringData['.dockerconfigjson'] = PULL_SECRET;
  writeFileSync(path.join(manifests, 'pullsecret.yaml'), YAML.stringify(secret));
}

beforeAll(async () => {
  if (!AVAILABLE) return;
  process.env.INSTALL_POLL_SECONDS = '1';
  const started = spawnSync(path.join(KUBE_TOOLS, 'start.sh'), [kubeDir], { encoding: 'utf8', timeout: 60_000 });
  kubeconfig = /^KUBECONFIG=(.*)$/m.exec(started.stdout)?.[1] ?? '';
  expect(kubeconfig, `${started.stdout}\n${started.stderr}`).not.toBe('');
  const crds = spawnSync('kubectl', ['--kubeconfig', kubeconfig, 'apply', '-f', CRDS], { encoding: 'utf8', timeout: 60_000 });
  expect(crds.status, crds.stderr).toBe(0);
  spawnSync('mkdir', ['-p', manifests]);
  writeExamples();
  stack = await testRuntime({ settleFollowUps: false });
  // As docs/kube-api.md says: the RBAC manifest, a token for its ServiceAccount, the service's token in a Secret.
  await kubectl('apply', '-f', path.join(ROOT, 'hub/rbac.yaml'));
  const request = path.join(work, 'token-request.json');
  writeFileSync(request, JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 7200 } }));
  const token = JSON.parse(await kubectl('create', '--raw', '/api/v1/namespaces/assisted-hub/serviceaccounts/assisted-hub-controller/token', '-f', request)).status.token as string;
  const admin = YAML.parse(readFileSync(kubeconfig, 'utf8'));
  admin.users = [{ name: 'assisted-hub-controller', user: { token } }];
  admin.contexts = [{ name: 'controller', context: { cluster: admin.clusters[0].name, user: 'assisted-hub-controller' } }];
  admin['current-context'] = 'controller';
  controllerKubeconfig = path.join(work, 'controller.kubeconfig');
  writeFileSync(controllerKubeconfig, YAML.stringify(admin), { mode: 0o600 });
  await kubectl('create', 'secret', 'generic', 'assisted-token', '-n', 'assisted-hub', `--from-literal=token=${stack.adminToken}`);
}, 180_000);

afterAll(async () => {
  if (!AVAILABLE) return;
  for (const stopFleet of stopFleets) await stopFleet();
  for (const controller of controllers) await stopController(controller);
  await stack?.close();
  spawnSync(path.join(KUBE_TOOLS, 'stop.sh'), [kubeDir], { timeout: 30_000 });
  delete process.env.INSTALL_POLL_SECONDS;
  rmSync(work, { recursive: true, force: true });
}, 60_000);

describe.skipIf(!AVAILABLE)('the hub controller', () => {
  it('installs a single-node cluster from upstream\'s examples, through a change of leader mid-install', async () => {
    const first = startController('hub-a');
    await until('hub-a to lead', async () => first.log.join(''), (log) => log.includes('leading as hub-a'), 30_000, controllerLogs);
    const second = startController('hub-b');
    await until('hub-b to wait', async () => second.log.join(''), (log) => log.includes('waiting for lease'), 30_000, controllerLogs);
    const lease = await getJson('lease', '-n', 'assisted-hub', 'assisted-hub-controller');
    expect(lease.spec.holderIdentity).toBe('hub-a');

    await kubectl('apply', '-f', path.join(manifests, 'namespace.yaml'));
    await kubectl('apply', '-f', manifests);

    const infraEnv = await until('the InfraEnv\'s image', () => getJson('infraenv', '-n', NS, 'myinfraenv'), (ie) => conditionsOf(ie).ImageCreated?.status === 'True' && Boolean(ie.status?.isoDownloadURL), 60_000, controllerLogs);
    expect(conditionsOf(infraEnv).ImageCreated).toMatchObject({ reason: 'ImageCreated', message: 'Image has been created' });
    expect(infraEnv.status.bootArtifacts).toMatchObject({ ipxeScript: expect.stringContaining('ipxe-script'), kernel: expect.stringContaining('kernel'), rootfs: expect.stringContaining('rootfs'), initrd: expect.stringContaining('initrd') });
    const iso = await fetch(infraEnv.status.isoDownloadURL, { method: 'HEAD' });
    expect(iso.status).toBe(200);
    // The example's proxy and ignition override reached the infra-env.
    const infraEnvId = infraEnv.metadata.annotations['agent-install.openshift.io/infra-env-id'] as string;
    const registered = (await (await fetch(`${stack.runtime.url}/api/assisted-install/v2/infra-envs/${infraEnvId}`, { headers: { Authorization: `Bearer ${stack.adminToken}` } })).json()) as any;
    expect(registered.proxy).toMatchObject({ http_proxy: 'http://11.11.11.33', https_proxy: 'http://22.22.22.55' });
    expect(JSON.parse(registered.ignition_config_override).storage.files[0].path).toBe('/etc/someconfig');

    // The example's NMStateConfig is the infra-env's static network config; a second one re-makes the image.
    const macsOf = (infra: any) => (JSON.parse(infra.static_network_config || '[]') as { mac_interface_map: { mac_address: string }[] }[]).flatMap((entry) => entry.mac_interface_map.map((m) => m.mac_address));
    expect(macsOf(registered)).toEqual(['02:00:00:80:12:14', '02:00:00:80:12:15']);
    const secondConfig = YAML.parse(readFileSync(path.join(EXAMPLES, 'nmstate.yaml'), 'utf8'));
    secondConfig.metadata.name = 'second';
    secondConfig.spec.config.interfaces = [{ name: 'eth0', type: 'ethernet', state: 'up', 'mac-address': '02:00:00:80:12:16', ipv4: { enabled: true, dhcp: true } }];
    secondConfig.spec.config.routes = { config: [] };
    secondConfig.spec.interfaces = [{ name: 'eth0', macAddress: '02:00:00:80:12:16' }];
    writeFileSync(path.join(work, 'second-nmstate.yaml'), YAML.stringify(secondConfig));
    await kubectl('apply', '-f', path.join(work, 'second-nmstate.yaml'));
    const infraEnvAfter = async () => (await (await fetch(`${stack.runtime.url}/api/assisted-install/v2/infra-envs/${infraEnvId}`, { headers: { Authorization: `Bearer ${stack.adminToken}` } })).json()) as any;
    await until('the second NMStateConfig in the image', infraEnvAfter, (infra) => macsOf(infra).includes('02:00:00:80:12:16'), 30_000, controllerLogs);
    await until('a re-made image in the InfraEnv\'s status', () => getJson('infraenv', '-n', NS, 'myinfraenv'), (ie) => ie.status.createdTime !== infraEnv.status.createdTime, 30_000, controllerLogs);

    const aci = await getJson('agentclusterinstall', '-n', NS, 'test-agent-cluster-install');
    expect(conditionsOf(aci).SpecSynced).toMatchObject({ status: 'True', reason: 'SyncOK' });
    expect(conditionsOf(aci).RequirementsMet).toMatchObject({ status: 'False', reason: 'InsufficientAgents', message: 'The cluster currently requires 1 agents but only 0 have registered' });
    expect(aci.status.debugInfo.eventsURL).toMatch(/\/v2\/events\?cluster_id=/);

    // One SIMULATED host boots from the image: its service URL and token are the discovery ignition's.
    const ignition = await (await fetch(infraEnv.status.bootArtifacts.discoveryIgnitionURL)).text();
    const settings = agentSettingsFromIgnition(ignition);
    const fleetLog: string[] = [];
    const fleet = new Fleet({
      ...settings, infraEnvId, profiles: [loadProfile('sno')], network: '192.168.126.0/24',
      timing: { maxPollIntervalMs: 1_000 },
      installDurationsMs: Object.fromEntries(STAGES.map((stage) => [stage, 400])),
      log: createLog({ level: 'info', sink: (line) => fleetLog.push(line) }),
    });
    const stop = new AbortController();
    const running = fleet.run(stop.signal);
    stopFleets.push(async () => { stop.abort(); await running.catch(() => undefined); });

    const agents = await until('an Agent for the host', () => getJson('agents', '-n', NS), (list) => list.items.length === 1 && conditionsOf(list.items[0]).RequirementsMet?.reason === 'AgentIsNotApproved', 60_000, () => `${controllerLogs()}\n${fleetLog.slice(-20).join('\n')}`);
    const agent = agents.items[0];
    expect(agent.metadata.labels['infraenvs.agent-install.openshift.io']).toBe('myinfraenv');
    expect(agent.spec.clusterDeploymentName).toEqual({ name: 'single-node', namespace: NS });
    expect(agent.status.inventory.interfaces[0].macAddress).toMatch(/^02:/);
    expect(conditionsOf(agent).Bound?.status).toBe('True');
    const waiting = await until('the approval to be asked for', () => getJson('agentclusterinstall', '-n', NS, 'test-agent-cluster-install'), (a) => conditionsOf(a).RequirementsMet?.reason === 'UnapprovedAgents', 30_000, controllerLogs);
    expect(conditionsOf(waiting).RequirementsMet?.message).toBe('The installation is pending on the approval of 1 agents');

    // Approving the Agent, as upstream's guide does, starts the installation by itself.
    await kubectl('-n', NS, 'patch', 'agents.agent-install.openshift.io', agent.metadata.name, '-p', '{"spec":{"approved":true,"hostname":"sno-hub"}}', '--type', 'merge');
    await until('the installation to start', () => getJson('agentclusterinstall', '-n', NS, 'test-agent-cluster-install'), (a) => conditionsOf(a).Completed?.reason === 'InstallationInProgress', 60_000, controllerLogs);

    // The leader goes away mid-install; the standby takes the Lease over and converges.
    await stopController(first, 'SIGKILL');
    await until('hub-b to lead', async () => second.log.join(''), (log) => log.includes('leading as hub-b'), 30_000, controllerLogs);

    const done = await until('Completed', () => getJson('agentclusterinstall', '-n', NS, 'test-agent-cluster-install'), (a) => conditionsOf(a).Completed?.status === 'True', 120_000, () => `${controllerLogs()}\n${fleetLog.slice(-20).join('\n')}`);
    const conditions = conditionsOf(done);
    expect(conditions.Completed).toMatchObject({ reason: 'InstallationCompleted', message: 'The installation has completed: Cluster is installed' });
    expect(conditions.Stopped).toMatchObject({ status: 'True', reason: 'InstallationCompleted' });
    expect(conditions.Failed).toMatchObject({ status: 'False', reason: 'InstallationNotFailed' });
    expect(done.status.progress.totalPercentage).toBe(100);

    const cd = await until('the ClusterDeployment marked installed', () => getJson('clusterdeployment', '-n', NS, 'single-node'), (c) => c.spec.installed === true, 30_000, controllerLogs);
    expect(cd.spec.clusterMetadata).toMatchObject({ adminKubeconfigSecretRef: { name: 'single-node-admin-kubeconfig' }, adminPasswordSecretRef: { name: 'single-node-admin-password' } });
    const kubeconfigSecret = await getJson('secret', '-n', NS, 'single-node-admin-kubeconfig');
    expect(Buffer.from(kubeconfigSecret.data.kubeconfig, 'base64').toString()).toMatch(/clusters:/);
    const password = await getJson('secret', '-n', NS, 'single-node-admin-password');
    expect(Buffer.from(password.data.username, 'base64').toString()).toBe('kubeadmin');

    const installedAgent = await until('the Agent installed', () => getJson('agent', '-n', NS, agent.metadata.name), (a) => conditionsOf(a).Installed?.status === 'True', 30_000, controllerLogs);
    expect(installedAgent.status.progress.currentStage).toBe('Done');
    expect(installedAgent.status.inventory.hostname).toBeTruthy();
    const host = (await (await fetch(`${stack.runtime.url}/api/assisted-install/v2/infra-envs/${infraEnvId}/hosts/${agent.metadata.name}`, { headers: { Authorization: `Bearer ${stack.adminToken}` } })).json()) as any;
    expect(host.requested_hostname).toBe('sno-hub');
  }, 400_000);

  it('says what is wrong with a bad spec in SpecSynced, and takes the fix', async () => {
    const bad = {
      apiVersion: 'hive.openshift.io/v1', kind: 'ClusterImageSet', metadata: { name: 'untagged' }, spec: { releaseImage: 'quay.io/openshift-release-dev/ocp-release@sha256:0123' },
    };
    const cd = { apiVersion: 'hive.openshift.io/v1', kind: 'ClusterDeployment', metadata: { name: 'bad', namespace: NS }, spec: { baseDomain: 'hive.example.com', clusterName: 'bad', clusterInstallRef: { group: 'extensions.hive.openshift.io', kind: 'AgentClusterInstall', name: 'bad', version: 'v1beta1' }, platform: { agentBareMetal: { agentSelector: {} } }, pullSecretRef: { name: 'pull-secret' } } };
    const aci = { apiVersion: 'extensions.hive.openshift.io/v1beta1', kind: 'AgentClusterInstall', metadata: { name: 'bad', namespace: NS }, spec: { clusterDeploymentRef: { name: 'bad' }, imageSetRef: { name: 'untagged' }, networking: {}, provisionRequirements: { controlPlaneAgents: 1 } } };
    const file = path.join(work, 'bad.yaml');
    writeFileSync(file, [bad, cd, aci].map((doc) => YAML.stringify(doc)).join('---\n'));
    await kubectl('apply', '-f', file);
    const refused = await until('SpecSynced=False', () => getJson('agentclusterinstall', '-n', NS, 'bad'), (a) => conditionsOf(a).SpecSynced?.status === 'False', 30_000, controllerLogs);
    expect(conditionsOf(refused).SpecSynced).toMatchObject({ reason: 'InputError', message: expect.stringMatching(/^The Spec could not be synced due to an input error: ClusterImageSet untagged: cannot tell the OpenShift version/) });
    await kubectl('patch', 'clusterimageset', 'untagged', '-p', '{"spec":{"releaseImage":"quay.io/openshift-release-dev/ocp-release:4.18.52-x86_64"}}', '--type', 'merge');
    const fixed = await until('SpecSynced=True', () => getJson('agentclusterinstall', '-n', NS, 'bad'), (a) => conditionsOf(a).SpecSynced?.status === 'True', 30_000, controllerLogs);
    expect(fixed.metadata.annotations['agent-install.openshift.io/cluster-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(controllers.every((c) => !/fatal|TypeError|ReferenceError|forbidden/i.test(c.log.join(''))), controllerLogs()).toBe(true);
  }, 120_000);

  it('deregisters the cluster and removes its Agents when the ClusterDeployment is deleted', async () => {
    const aci = await getJson('agentclusterinstall', '-n', NS, 'test-agent-cluster-install');
    const clusterId = aci.metadata.annotations['agent-install.openshift.io/cluster-id'] as string;
    expect(aci.metadata.finalizers).toContain('agentclusterinstall.agent-install.openshift.io/ai-deprovision');
    await kubectl('-n', NS, 'delete', 'clusterdeployment', 'single-node', '--wait=false');
    await until('the AgentClusterInstall gone', () => kubectl('get', 'agentclusterinstalls', '-n', NS, '-o', 'name'), (names) => !names.includes('test-agent-cluster-install'), 60_000, controllerLogs);
    await until('the ClusterDeployment gone', () => kubectl('get', 'clusterdeployments', '-n', NS, '-o', 'name'), (names) => !names.includes('single-node'), 30_000, controllerLogs);
    const agents = await getJson('agents', '-n', NS);
    expect(agents.items.filter((a: any) => a.spec.clusterDeploymentName?.name === 'single-node')).toEqual([]);
    const gone = await fetch(`${stack.runtime.url}/api/assisted-install/v2/clusters/${clusterId}`, { headers: { Authorization: `Bearer ${stack.adminToken}` } });
    expect(gone.status).toBe(404);
  }, 120_000);
});
