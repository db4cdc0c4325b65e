/**
 * The hub controller with a three-node cluster: upstream's multi-node AgentClusterInstall example
 * (VIPs, BareMetal platform, hyperthreading; its references fixed), three SIMULATED masters booted
 * from the InfraEnv's image and approved with `kubectl patch`, Completed through a kill of the
 * only controller mid-install and the start of a new one (nothing registered twice); then
 * BareMetalHosts labelled with the InfraEnv: one matching an installed Agent by MAC is detached, a
 * spare one gets the ISO; then a day-2 worker booted later from the InfraEnv, installed by
 * approving its Agent.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { PULL_SECRET } from '../support/fixtures.js';
import { conditionsOf, EXAMPLES, HUB_LAB_AVAILABLE, HubLab, until } from '../support/hub-lab.js';

const NS = 'ha-cluster';
const lab = new HubLab();

beforeAll(async () => {
  if (HUB_LAB_AVAILABLE) await lab.start();
}, 180_000);
afterAll(async () => {
  if (HUB_LAB_AVAILABLE) await lab.close();
}, 60_000);

const example = (file: string) => YAML.parse(readFileSync(path.join(EXAMPLES, file), 'utf8'));

describe.skipIf(!HUB_LAB_AVAILABLE)('the hub controller, three nodes', () => {
  it('installs a three-node cluster through a restart of its controller, adds a day-2 worker and drives BareMetalHosts', async () => {
    const first = lab.startController('hub-ha');
    const aci = example('agentClusterInstall.yaml');
    aci.metadata.namespace = NS;
    aci.spec.imageSetRef.name = 'openshift-v5.0.0';
    aci.spec.clusterDeploymentRef.name = 'ha';
    aci.spec.networking.machineNetwork = [{ cidr: '1.2.3.0/24' }];
    const cd = example('clusterDeployment.yaml');
    Object.assign(cd.metadata, { name: 'ha', namespace: NS });
    cd.spec.clusterName = 'ha';
    cd.spec.clusterInstallRef.name = aci.metadata.name;
    const infraEnv = example('infraEnv.yaml');
    infraEnv.metadata.namespace = NS;
    infraEnv.spec.clusterRef = { name: 'ha', namespace: NS };
    delete infraEnv.spec.proxy;
    const secret = example('pullsecret.yaml');
    secret.metadata.namespace = NS;
    secret.stringData['.dockerconfigjson'] = PULL_SECRET;
    await lab.apply('ha.yaml', [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }]);
    await lab.apply('ha-resources.yaml', [secret, example('clusterImageSet.yaml'), cd, aci, infraEnv]);

    const image = await until(
      "the InfraEnv's image",
      () => lab.get('infraenv', '-n', NS, 'myinfraenv'),
      (ie) => conditionsOf(ie).ImageCreated?.status === 'True' && Boolean(ie.status?.bootArtifacts?.discoveryIgnitionURL),
      60_000,
      lab.logs,
    );
    const clusterId = (await lab.get('agentclusterinstall', '-n', NS, aci.metadata.name)).metadata.annotations[
      'agent-install.openshift.io/cluster-id'
    ] as string;
    const cluster = (await lab.rest(`/clusters/${clusterId}`)).body;
    expect(cluster).toMatchObject({
      control_plane_count: 3,
      high_availability_mode: 'Full',
      platform: { type: 'baremetal' },
      api_vips: [{ ip: '1.2.3.8' }],
      ingress_vips: [{ ip: '1.2.3.9' }],
    });

    const fleet = await lab.bootHosts(image, ['master', 'master', 'master'], '1.2.3.0/24');
    const agents = await until(
      'three Agents',
      () => lab.get('agents', '-n', NS),
      (list) => list.items.length === 3,
      60_000,
      () => `${lab.logs()}\n${fleet.lines.slice(-10).join('\n')}`,
    );
    for (const agent of agents.items)
      await lab.kubectl(
        '-n',
        NS,
        'patch',
        'agents.agent-install.openshift.io',
        agent.metadata.name,
        '-p',
        '{"spec":{"approved":true,"role":"master"}}',
        '--type',
        'merge',
      );

    // The only controller is killed mid-install and a new one is started: it converges from what
    // the resources and the service say, with nothing registered twice.
    await until(
      'the installation to start',
      () => lab.get('agentclusterinstall', '-n', NS, aci.metadata.name),
      (a) => conditionsOf(a).Completed?.reason === 'InstallationInProgress',
      60_000,
      lab.logs,
    );
    await lab.stopController(first, 'SIGKILL');
    const restarted = lab.startController('hub-ha-restarted');
    await until(
      'the new controller to lead',
      async () => restarted.log.join(''),
      (log) => log.includes('leading as hub-ha-restarted'),
      30_000,
      lab.logs,
    );

    const done = await until(
      'Completed',
      () => lab.get('agentclusterinstall', '-n', NS, aci.metadata.name),
      (a) => conditionsOf(a).Completed?.status === 'True',
      300_000,
      () => `${lab.logs()}\n${fleet.lines.slice(-10).join('\n')}`,
    );
    expect(done.status.controlPlaneAgentsDiscovered).toBe(3);
    expect(await lab.get('clusterdeployment', '-n', NS, 'ha')).toMatchObject({ spec: { installed: true } });
    const bootstrap = (await lab.get('agents', '-n', NS)).items.filter((agent: any) => agent.status.bootstrap === true);
    expect(bootstrap).toHaveLength(1);
    // Nothing duplicated by the restart: one cluster, one infra-env, three hosts and three Agents.
    const clusters = (await lab.rest('/clusters')).body.filter((c: any) => c.name === 'ha');
    expect(clusters.map((c: any) => c.id)).toEqual([clusterId]);
    const infraEnvs = (await lab.rest(`/infra-envs?cluster_id=${clusterId}`)).body;
    expect(infraEnvs).toHaveLength(1);
    const infraEnvId = image.metadata.annotations['agent-install.openshift.io/infra-env-id'] as string;
    expect((await lab.rest(`/infra-envs/${infraEnvId}/hosts`)).body).toHaveLength(3);
    expect((await lab.get('agents', '-n', NS)).items).toHaveLength(3);
    const joined = await until(
      'a master installed',
      () => lab.get('agent', '-n', NS, agents.items[0].metadata.name),
      (a) => conditionsOf(a).Installed?.status === 'True',
      60_000,
      lab.logs,
    );
    expect(joined.status.role).toBe('master');

    // A BareMetalHost for an installed Agent: matched by MAC, labelled, detached.
    const mac = joined.status.inventory.interfaces[0].macAddress as string;
    await lab.apply('bmh.yaml', [
      {
        apiVersion: 'metal3.io/v1alpha1',
        kind: 'BareMetalHost',
        metadata: { name: 'worker-0', namespace: NS, labels: { 'infraenvs.agent-install.openshift.io': 'myinfraenv' } },
        spec: { bootMACAddress: mac, online: false },
      },
      {
        apiVersion: 'metal3.io/v1alpha1',
        kind: 'BareMetalHost',
        metadata: {
          name: 'spare',
          namespace: NS,
          labels: { 'infraenvs.agent-install.openshift.io': 'myinfraenv' },
          annotations: { 'bmac.agent-install.openshift.io/role': 'worker' },
        },
        spec: { bootMACAddress: '02:aa:bb:cc:dd:ee', online: false },
      },
    ]);
    const detached = await until(
      "the installed host's BareMetalHost detached",
      () => lab.get('bmh', '-n', NS, 'worker-0'),
      (b) => b.metadata.annotations?.['baremetalhost.metal3.io/detached'] !== undefined,
      30_000,
      lab.logs,
    );
    expect(detached.metadata.annotations['baremetalhost.metal3.io/detached']).toBe('assisted-service-controller');
    const spare = await until(
      'the spare BareMetalHost booting the ISO',
      () => lab.get('bmh', '-n', NS, 'spare'),
      (b) => Boolean(b.spec.image?.url),
      30_000,
      lab.logs,
    );
    expect(spare.spec).toMatchObject({ online: true, image: { url: expect.stringContaining('/images/'), format: 'live-iso' } });
    expect(spare.metadata.annotations['inspect.metal3.io']).toBe('disabled');

    // Day 2: as upstream does, the installed cluster became an AddHostsCluster; a host booted later
    // from the same InfraEnv registers to it, and approving its Agent installs it as a worker.
    const day2 = await until(
      'the cluster open for day-2 hosts',
      () => lab.rest(`/clusters/${clusterId}`),
      (r) => r.body?.status === 'adding-hosts',
      30_000,
      lab.logs,
    );
    expect(day2.body.kind).toBe('AddHostsCluster');
    const late = await lab.bootHosts(image, ['worker'], '1.2.3.0/24', 400, { seed: `${infraEnvId}/day-2`, firstHostOffset: 20 });
    const withWorker = await until(
      'a fourth Agent',
      () => lab.get('agents', '-n', NS),
      (list) => list.items.length === 4,
      60_000,
      () => `${lab.logs()}\n${late.lines.slice(-10).join('\n')}`,
    );
    const worker = withWorker.items.find((agent: any) => !agents.items.some((first: any) => first.metadata.name === agent.metadata.name));
    expect(worker.spec.clusterDeploymentName).toEqual({ name: 'ha', namespace: NS });
    const workerHost = (await lab.rest(`/infra-envs/${infraEnvId}/hosts/${worker.metadata.name}`)).body;
    expect(workerHost).toMatchObject({ kind: 'AddToExistingClusterHost', role: 'worker', cluster_id: clusterId });
    await until(
      'the day-2 Agent waiting for approval',
      () => lab.get('agent', '-n', NS, worker.metadata.name),
      (a) => conditionsOf(a).RequirementsMet?.reason === 'AgentIsNotApproved',
      60_000,
      () => `${lab.logs()}\n${late.lines.slice(-10).join('\n')}`,
    );
    await lab.kubectl('-n', NS, 'patch', 'agents.agent-install.openshift.io', worker.metadata.name, '-p', '{"spec":{"approved":true}}', '--type', 'merge');
    const added = await until(
      'the day-2 worker installed',
      () => lab.get('agent', '-n', NS, worker.metadata.name),
      (a) => conditionsOf(a).Installed?.status === 'True',
      120_000,
      () => `${lab.logs()}\n${late.lines.slice(-10).join('\n')}`,
    );
    expect(added.status).toMatchObject({ role: 'worker', debugInfo: { state: 'added-to-existing-cluster' } });
    const stillInstalled = await lab.get('agentclusterinstall', '-n', NS, aci.metadata.name);
    expect(conditionsOf(stillInstalled).Completed).toMatchObject({ status: 'True', reason: 'InstallationCompleted' });
    expect(
      lab.controllers.every((c) => !/fatal|TypeError|ReferenceError|forbidden/i.test(c.log.join(''))),
      lab.logs(),
    ).toBe(true);
  }, 700_000);
});
