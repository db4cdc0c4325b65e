/**
 * The hub controller end to end: a real kube-apiserver + etcd with upstream's CRDs, the local
 * stack, and two controllers (`npm run hub`'s entry point as processes) electing a leader through a
 * Lease. Upstream's example resources are applied with kubectl (the ClusterImageSet reference fixed,
 * a pull secret the service accepts), one SIMULATED host boots from the InfraEnv's discovery ignition,
 * its Agent is approved with `kubectl patch`, and the AgentClusterInstall's conditions are followed
 * to Completed, through the loss of the leading controller mid-install. Then a bad spec, and the
 * teardown through the finalizers.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { PULL_SECRET } from '../support/fixtures.js';
import { conditionsOf, EXAMPLES, HUB_LAB_AVAILABLE, HubLab, until } from '../support/hub-lab.js';

const NS = 'spoke-cluster';
const lab = new HubLab();
const kubectl = (...args: string[]) => lab.kubectl(...args);
const getJson = (...args: string[]) => lab.get(...args);
const controllerLogs = () => lab.logs();
const execFileAsync = promisify(execFile);
const bearer = () => ({ headers: { Authorization: `Bearer ${lab.stack.adminToken}` } });

/** Upstream's examples, with the two references a user fixes (see the CRDs' README) and a pull secret the service accepts. */
function writeExamples(manifests: string): void {
  mkdirSync(manifests, { recursive: true });
  for (const file of ['namespace.yaml', 'clusterImageSet.yaml', 'clusterDeployment.yaml', 'infraEnv.yaml', 'nmstate.yaml'])
    copyFileSync(path.join(EXAMPLES, file), path.join(manifests, file));
  const aci = readFileSync(path.join(EXAMPLES, 'agentClusterInstall-SNO.yaml'), 'utf8').replace('openshift-v4.9.0', 'openshift-v5.0.0');
  writeFileSync(path.join(manifests, 'agentClusterInstall-SNO.yaml'), aci);
  // The example's pull secret is not one the service accepts: the fixtures' one, same shape.
  const secret = YAML.parse(readFileSync(path.join(EXAMPLES, 'pullsecret.yaml'), 'utf8'));
  secret.stringData['.dockerconfigjson'] = PULL_SECRET;
  writeFileSync(path.join(manifests, 'pullsecret.yaml'), YAML.stringify(secret));
}

beforeAll(async () => {
  if (HUB_LAB_AVAILABLE) await lab.start();
}, 180_000);
afterAll(async () => {
  if (HUB_LAB_AVAILABLE) await lab.close();
}, 60_000);

describe.skipIf(!HUB_LAB_AVAILABLE)('the hub controller', () => {
  it("installs a single-node cluster from upstream's examples, through a change of leader mid-install", async () => {
    const manifests = path.join(lab.work, 'manifests');
    writeExamples(manifests);
    const first = lab.startController('hub-a');
    await until(
      'hub-a to lead',
      async () => first.log.join(''),
      (log) => log.includes('leading as hub-a'),
      30_000,
      controllerLogs,
    );
    const second = lab.startController('hub-b');
    await until(
      'hub-b to wait',
      async () => second.log.join(''),
      (log) => log.includes('waiting for lease'),
      30_000,
      controllerLogs,
    );
    const lease = await getJson('lease', '-n', 'assisted-hub', 'assisted-hub-controller');
    expect(lease.spec.holderIdentity).toBe('hub-a');

    await kubectl('apply', '-f', path.join(manifests, 'namespace.yaml'));
    await kubectl('apply', '-f', manifests);

    const infraEnv = await until(
      "the InfraEnv's image",
      () => getJson('infraenv', '-n', NS, 'myinfraenv'),
      (ie) => conditionsOf(ie).ImageCreated?.status === 'True' && Boolean(ie.status?.isoDownloadURL),
      60_000,
      controllerLogs,
    );
    expect(conditionsOf(infraEnv).ImageCreated).toMatchObject({ reason: 'ImageCreated', message: 'Image has been created' });
    expect(infraEnv.status.bootArtifacts).toMatchObject({
      ipxeScript: expect.stringContaining('ipxe-script'),
      kernel: expect.stringContaining('kernel'),
      rootfs: expect.stringContaining('rootfs'),
      initrd: expect.stringContaining('initrd'),
    });
    const iso = await fetch(infraEnv.status.isoDownloadURL, { method: 'HEAD' });
    expect(iso.status).toBe(200);
    // The example's proxy and ignition override reached the infra-env.
    const infraEnvId = infraEnv.metadata.annotations['agent-install.openshift.io/infra-env-id'] as string;
    const registered = (await (await fetch(`${lab.stack.runtime.url}/api/assisted-install/v2/infra-envs/${infraEnvId}`, bearer())).json()) as any;
    expect(registered.proxy).toMatchObject({ http_proxy: 'http://11.11.11.33', https_proxy: 'http://22.22.22.55' });
    expect(JSON.parse(registered.ignition_config_override).storage.files[0].path).toBe('/etc/someconfig');

    // The example's NMStateConfig is the infra-env's static network config; a second one re-makes the image.
    const macsOf = (infra: any) =>
      (JSON.parse(infra.static_network_config || '[]') as { mac_interface_map: { mac_address: string }[] }[]).flatMap((entry) =>
        entry.mac_interface_map.map((m) => m.mac_address),
      );
    expect(macsOf(registered)).toEqual(['02:00:00:80:12:14', '02:00:00:80:12:15']);
    const secondConfig = YAML.parse(readFileSync(path.join(EXAMPLES, 'nmstate.yaml'), 'utf8'));
    secondConfig.metadata.name = 'second';
    secondConfig.spec.config.interfaces = [
      { name: 'eth0', type: 'ethernet', state: 'up', 'mac-address': '02:00:00:80:12:16', ipv4: { enabled: true, dhcp: true } },
    ];
    secondConfig.spec.config.routes = { config: [] };
    secondConfig.spec.interfaces = [{ name: 'eth0', macAddress: '02:00:00:80:12:16' }];
    writeFileSync(path.join(lab.work, 'second-nmstate.yaml'), YAML.stringify(secondConfig));
    await kubectl('apply', '-f', path.join(lab.work, 'second-nmstate.yaml'));
    const infraEnvAfter = async () =>
      (await (await fetch(`${lab.stack.runtime.url}/api/assisted-install/v2/infra-envs/${infraEnvId}`, bearer())).json()) as any;
    await until('the second NMStateConfig in the image', infraEnvAfter, (infra) => macsOf(infra).includes('02:00:00:80:12:16'), 30_000, controllerLogs);
    await until(
      "a re-made image in the InfraEnv's status",
      () => getJson('infraenv', '-n', NS, 'myinfraenv'),
      (ie) => ie.status.createdTime !== infraEnv.status.createdTime,
      30_000,
      controllerLogs,
    );

    const aci = await getJson('agentclusterinstall', '-n', NS, 'test-agent-cluster-install');
    expect(conditionsOf(aci).SpecSynced).toMatchObject({ status: 'True', reason: 'SyncOK' });
    expect(conditionsOf(aci).RequirementsMet).toMatchObject({
      status: 'False',
      reason: 'InsufficientAgents',
      message: 'The cluster currently requires 1 agents but only 0 have registered',
    });
    expect(aci.status.debugInfo.eventsURL).toMatch(/\/v2\/events\?cluster_id=/);

    // One SIMULATED host boots from the image: its service URL and token are the discovery ignition's.
    const { lines: fleetLog } = await lab.bootHosts(infraEnv, ['sno'], '192.168.126.0/24');

    const agents = await until(
      'an Agent for the host',
      () => getJson('agents', '-n', NS),
      (list) => list.items.length === 1 && conditionsOf(list.items[0]).RequirementsMet?.reason === 'AgentIsNotApproved',
      60_000,
      () => `${controllerLogs()}\n${fleetLog.slice(-20).join('\n')}`,
    );
    const agent = agents.items[0];
    expect(agent.metadata.labels['infraenvs.agent-install.openshift.io']).toBe('myinfraenv');
    expect(agent.spec.clusterDeploymentName).toEqual({ name: 'single-node', namespace: NS });
    expect(agent.status.inventory.interfaces[0].macAddress).toMatch(/^02:/);
    expect(conditionsOf(agent).Bound?.status).toBe('True');
    const waiting = await until(
      'the approval to be asked for',
      () => getJson('agentclusterinstall', '-n', NS, 'test-agent-cluster-install'),
      (a) => conditionsOf(a).RequirementsMet?.reason === 'UnapprovedAgents',
      30_000,
      controllerLogs,
    );
    expect(conditionsOf(waiting).RequirementsMet?.message).toBe('The installation is pending on the approval of 1 agents');

    // Approving the Agent, as upstream's guide does, starts the installation by itself.
    await kubectl(
      '-n',
      NS,
      'patch',
      'agents.agent-install.openshift.io',
      agent.metadata.name,
      '-p',
      '{"spec":{"approved":true,"hostname":"sno-hub"}}',
      '--type',
      'merge',
    );
    await until(
      'the installation to start',
      () => getJson('agentclusterinstall', '-n', NS, 'test-agent-cluster-install'),
      (a) => conditionsOf(a).Completed?.reason === 'InstallationInProgress',
      60_000,
      controllerLogs,
    );

    // The leader goes away mid-install; the standby takes the Lease over and converges.
    await lab.stopController(first, 'SIGKILL');
    await until(
      'hub-b to lead',
      async () => second.log.join(''),
      (log) => log.includes('leading as hub-b'),
      30_000,
      controllerLogs,
    );

    const done = await until(
      'Completed',
      () => getJson('agentclusterinstall', '-n', NS, 'test-agent-cluster-install'),
      (a) => conditionsOf(a).Completed?.status === 'True',
      120_000,
      () => `${controllerLogs()}\n${fleetLog.slice(-20).join('\n')}`,
    );
    const conditions = conditionsOf(done);
    expect(conditions.Completed).toMatchObject({ reason: 'InstallationCompleted', message: 'The installation has completed: Cluster is installed' });
    expect(conditions.Stopped).toMatchObject({ status: 'True', reason: 'InstallationCompleted' });
    expect(conditions.Failed).toMatchObject({ status: 'False', reason: 'InstallationNotFailed' });
    expect(done.status.progress.totalPercentage).toBe(100);

    const cd = await until(
      'the ClusterDeployment marked installed',
      () => getJson('clusterdeployment', '-n', NS, 'single-node'),
      (c) => c.spec.installed === true,
      30_000,
      controllerLogs,
    );
    expect(cd.spec.clusterMetadata).toMatchObject({
      adminKubeconfigSecretRef: { name: 'single-node-admin-kubeconfig' },
      adminPasswordSecretRef: { name: 'single-node-admin-password' },
    });
    const kubeconfigSecret = await getJson('secret', '-n', NS, 'single-node-admin-kubeconfig');
    expect(Buffer.from(kubeconfigSecret.data.kubeconfig, 'base64').toString()).toMatch(/clusters:/);
    // The kubeconfig Secret works with kubectl against a stand-in for the cluster's API: a real
    // kube-apiserver serving the certificate the cluster's bootstrap ignition carries for
    // api.<cluster domain>, trusting the cluster's root CA for client certificates.
    const kubeconfigFile = path.join(lab.work, 'spoke.kubeconfig');
    writeFileSync(kubeconfigFile, Buffer.from(kubeconfigSecret.data.kubeconfig, 'base64'), { mode: 0o600 });
    const clusterId = done.metadata.annotations['agent-install.openshift.io/cluster-id'] as string;
    const ignition = (await (
      await fetch(`${lab.stack.runtime.url}/api/assisted-install/v2/clusters/${clusterId}/downloads/files?file_name=bootstrap.ign`, bearer())
    ).json()) as { storage: { files: { path: string; contents: { source: string } }[] } };
    const ignitionFile = (file: string) => {
      const source = ignition.storage.files.find((f) => f.path === file)?.contents.source ?? '';
      return Buffer.from(source.slice(source.indexOf('base64,') + 'base64,'.length), 'base64').toString('utf8');
    };
    const standIn = await lab.startStandInApi('single-node', {
      servingCertPem: ignitionFile('/opt/openshift/tls/kube-apiserver-lb-server.crt'),
      servingKeyPem: ignitionFile('/opt/openshift/tls/kube-apiserver-lb-server.key'),
      clientCaPem: ignitionFile('/opt/openshift/tls/root-ca.crt'),
    });
    const apiName = new URL(YAML.parse(readFileSync(kubeconfigFile, 'utf8')).clusters[0].cluster.server).hostname;
    expect(apiName).toBe('api.test-cluster.hive.example.com');
    const spokeKubectl = (...args: string[]) =>
      execFileAsync('kubectl', ['--kubeconfig', kubeconfigFile, '--server', standIn.url, '--tls-server-name', apiName, ...args], { timeout: 30_000 });
    const ready = await until(
      "the stand-in API ready through the Secret's kubeconfig",
      () => spokeKubectl('get', '--raw', '/readyz').then((r) => r.stdout),
      (out) => out.trim() === 'ok',
      60_000,
    );
    expect(ready.trim()).toBe('ok');
    const whoami = JSON.parse((await spokeKubectl('auth', 'whoami', '-o', 'json')).stdout);
    expect(whoami.status.userInfo).toMatchObject({ username: 'system:admin', groups: expect.arrayContaining(['system:masters']) });
    expect((await spokeKubectl('get', 'namespaces', '-o', 'name')).stdout).toContain('namespace/default');
    // The server name is checked: without it, 127.0.0.1 is not a name the certificate was issued for.
    await expect(
      execFileAsync('kubectl', ['--kubeconfig', kubeconfigFile, '--server', standIn.url, 'get', '--raw', '/readyz'], { timeout: 30_000 }),
    ).rejects.toThrow(/x509: cannot validate certificate for 127\.0\.0\.1 because it doesn't contain any IP SANs/);

    const password = await getJson('secret', '-n', NS, 'single-node-admin-password');
    expect(Buffer.from(password.data.username, 'base64').toString()).toBe('kubeadmin');

    // As upstream's controller does for every installed cluster, the single-node one too becomes a
    // day-2 cluster that later hosts of the InfraEnv can join.
    const day2 = await until(
      'the cluster open for day-2 hosts',
      () => lab.rest(`/clusters/${clusterId}`),
      (r) => r.body?.status === 'adding-hosts',
      30_000,
      controllerLogs,
    );
    expect(day2.body.kind).toBe('AddHostsCluster');
    expect(conditionsOf(await getJson('agentclusterinstall', '-n', NS, 'test-agent-cluster-install')).Completed).toMatchObject({
      status: 'True',
      reason: 'InstallationCompleted',
    });

    const installedAgent = await until(
      'the Agent installed',
      () => getJson('agent', '-n', NS, agent.metadata.name),
      (a) => conditionsOf(a).Installed?.status === 'True',
      30_000,
      controllerLogs,
    );
    expect(installedAgent.status.progress.currentStage).toBe('Done');
    expect(installedAgent.status.inventory.hostname).toBeTruthy();
    const host = (await (
      await fetch(`${lab.stack.runtime.url}/api/assisted-install/v2/infra-envs/${infraEnvId}/hosts/${agent.metadata.name}`, bearer())
    ).json()) as any;
    expect(host.requested_hostname).toBe('sno-hub');
  }, 400_000);

  it('says what is wrong with a bad spec in SpecSynced, and takes the fix', async () => {
    const bad = {
      apiVersion: 'hive.openshift.io/v1',
      kind: 'ClusterImageSet',
      metadata: { name: 'untagged' },
      spec: { releaseImage: 'quay.io/openshift-release-dev/ocp-release@sha256:0123' },
    };
    const cd = {
      apiVersion: 'hive.openshift.io/v1',
      kind: 'ClusterDeployment',
      metadata: { name: 'bad', namespace: NS },
      spec: {
        baseDomain: 'hive.example.com',
        clusterName: 'bad',
        clusterInstallRef: { group: 'extensions.hive.openshift.io', kind: 'AgentClusterInstall', name: 'bad', version: 'v1beta1' },
        platform: { agentBareMetal: { agentSelector: {} } },
        pullSecretRef: { name: 'pull-secret' },
      },
    };
    const aci = {
      apiVersion: 'extensions.hive.openshift.io/v1beta1',
      kind: 'AgentClusterInstall',
      metadata: { name: 'bad', namespace: NS },
      spec: { clusterDeploymentRef: { name: 'bad' }, imageSetRef: { name: 'untagged' }, networking: {}, provisionRequirements: { controlPlaneAgents: 1 } },
    };
    const file = path.join(lab.work, 'bad.yaml');
    writeFileSync(file, [bad, cd, aci].map((doc) => YAML.stringify(doc)).join('---\n'));
    await kubectl('apply', '-f', file);
    const refused = await until(
      'SpecSynced=False',
      () => getJson('agentclusterinstall', '-n', NS, 'bad'),
      (a) => conditionsOf(a).SpecSynced?.status === 'False',
      30_000,
      controllerLogs,
    );
    expect(conditionsOf(refused).SpecSynced).toMatchObject({
      reason: 'InputError',
      message: expect.stringMatching(/^The Spec could not be synced due to an input error: ClusterImageSet untagged: cannot tell the OpenShift version/),
    });
    await kubectl(
      'patch',
      'clusterimageset',
      'untagged',
      '-p',
      '{"spec":{"releaseImage":"quay.io/openshift-release-dev/ocp-release:4.18.52-x86_64"}}',
      '--type',
      'merge',
    );
    const fixed = await until(
      'SpecSynced=True',
      () => getJson('agentclusterinstall', '-n', NS, 'bad'),
      (a) => conditionsOf(a).SpecSynced?.status === 'True',
      30_000,
      controllerLogs,
    );
    expect(fixed.metadata.annotations['agent-install.openshift.io/cluster-id']).toMatch(/^[0-9a-f-]{36}$/);

    // A ClusterImageSet that does not exist, and networking the service refuses (an API VIP without
    // an ingress VIP): each says which resource and field to fix, and the fix is taken.
    const vipsCd = {
      ...cd,
      metadata: { name: 'bad-vips', namespace: NS },
      spec: { ...cd.spec, clusterName: 'bad-vips', clusterInstallRef: { ...cd.spec.clusterInstallRef, name: 'bad-vips' } },
    };
    const vipsAci = {
      ...aci,
      metadata: { name: 'bad-vips', namespace: NS },
      spec: {
        clusterDeploymentRef: { name: 'bad-vips' },
        imageSetRef: { name: 'no-such-image-set' },
        apiVIPs: ['192.168.126.100'],
        networking: { machineNetwork: [{ cidr: '192.168.126.0/24' }] },
        provisionRequirements: { controlPlaneAgents: 3 },
      },
    };
    await lab.apply('bad-vips.yaml', [vipsCd, vipsAci]);
    const noImageSet = await until(
      'SpecSynced=False for the missing ClusterImageSet',
      () => getJson('agentclusterinstall', '-n', NS, 'bad-vips'),
      (a) => conditionsOf(a).SpecSynced?.status === 'False',
      30_000,
      controllerLogs,
    );
    expect(conditionsOf(noImageSet).SpecSynced).toMatchObject({
      reason: 'InputError',
      message: 'The Spec could not be synced due to an input error: ClusterImageSet no-such-image-set (spec.imageSetRef) does not exist',
    });
    await kubectl('-n', NS, 'patch', 'agentclusterinstall', 'bad-vips', '-p', '{"spec":{"imageSetRef":{"name":"untagged"}}}', '--type', 'merge');
    const refusedVips = await until(
      'SpecSynced=False for the VIPs',
      () => getJson('agentclusterinstall', '-n', NS, 'bad-vips'),
      (a) => /apiVIPs/.test(conditionsOf(a).SpecSynced?.message ?? ''),
      30_000,
      controllerLogs,
    );
    expect(conditionsOf(refusedVips).SpecSynced).toMatchObject({ status: 'False', reason: 'InputError' });
    expect(conditionsOf(refusedVips).SpecSynced?.message).toMatch(
      /^The Spec could not be synced due to an input error: registering cluster bad-vips: 400 [\s\S]*configuration must include the same number of apiVIPs \(got 1\) and ingressVIPs \(got 0\)/,
    );
    expect(refusedVips.metadata.annotations?.['agent-install.openshift.io/cluster-id']).toBeUndefined();
    // Not a crash loop: the controllers keep running, and a spec that stays bad is looked at again
    // only at the slower pace for input errors, not at once after each failure.
    const logged = () =>
      lab.controllers
        .map((c) => c.log.join(''))
        .join('')
        .split('\n')
        .filter((line) => line.includes(`${NS}/bad-vips: registering cluster`)).length;
    const before = logged();
    await new Promise((resolve) => setTimeout(resolve, 8_000));
    expect(logged() - before).toBeLessThanOrEqual(2);
    expect(lab.controllers.filter((c) => c.child.exitCode === null && c.child.signalCode === null).length).toBeGreaterThan(0);
    await kubectl('-n', NS, 'patch', 'agentclusterinstall', 'bad-vips', '-p', '{"spec":{"ingressVIPs":["192.168.126.101"]}}', '--type', 'merge');
    const fixedVips = await until(
      'SpecSynced=True once the ingress VIP is there',
      () => getJson('agentclusterinstall', '-n', NS, 'bad-vips'),
      (a) => conditionsOf(a).SpecSynced?.status === 'True',
      30_000,
      controllerLogs,
    );
    const registeredVips = await lab.rest(`/clusters/${fixedVips.metadata.annotations['agent-install.openshift.io/cluster-id']}`);
    expect(registeredVips.body).toMatchObject({ api_vips: [{ ip: '192.168.126.100' }], ingress_vips: [{ ip: '192.168.126.101' }] });
    expect(
      lab.controllers.every((c) => !/fatal|TypeError|ReferenceError|forbidden/i.test(c.log.join(''))),
      controllerLogs(),
    ).toBe(true);
  }, 150_000);

  it('deregisters the cluster and removes its Agents when the ClusterDeployment is deleted', async () => {
    const aci = await getJson('agentclusterinstall', '-n', NS, 'test-agent-cluster-install');
    const clusterId = aci.metadata.annotations['agent-install.openshift.io/cluster-id'] as string;
    expect(aci.metadata.finalizers).toContain('agentclusterinstall.agent-install.openshift.io/ai-deprovision');
    await kubectl('-n', NS, 'delete', 'clusterdeployment', 'single-node', '--wait=false');
    await until(
      'the AgentClusterInstall gone',
      () => kubectl('get', 'agentclusterinstalls', '-n', NS, '-o', 'name'),
      (names) => !names.includes('test-agent-cluster-install'),
      60_000,
      controllerLogs,
    );
    await until(
      'the ClusterDeployment gone',
      () => kubectl('get', 'clusterdeployments', '-n', NS, '-o', 'name'),
      (names) => !names.includes('single-node'),
      30_000,
      controllerLogs,
    );
    const agents = await getJson('agents', '-n', NS);
    expect(agents.items.filter((a: any) => a.spec.clusterDeploymentName?.name === 'single-node')).toEqual([]);
    const gone = await fetch(`${lab.stack.runtime.url}/api/assisted-install/v2/clusters/${clusterId}`, bearer());
    expect(gone.status).toBe(404);
  }, 120_000);
});
