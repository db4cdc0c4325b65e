/**
 * The hub controller with a three-node cluster: upstream's multi-node AgentClusterInstall example
 * (VIPs, BareMetal platform, hyperthreading; its references fixed), three SIMULATED masters booted
 * from the InfraEnv's image and approved with `kubectl patch`, Completed; then BareMetalHosts
 * labelled with the InfraEnv: one matching an installed Agent by MAC is detached, a spare one gets
 * the ISO.
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
  it('installs a three-node cluster and drives BareMetalHosts', async () => {
    lab.startController('hub-ha');
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

    const image = await until('the InfraEnv\'s image', () => lab.get('infraenv', '-n', NS, 'myinfraenv'), (ie) => conditionsOf(ie).ImageCreated?.status === 'True' && Boolean(ie.status?.bootArtifacts?.discoveryIgnitionURL), 60_000, lab.logs);
    const clusterId = (await lab.get('agentclusterinstall', '-n', NS, aci.metadata.name)).metadata.annotations['agent-install.openshift.io/cluster-id'] as string;
    const cluster = (await lab.rest(`/clusters/${clusterId}`)).body;
    expect(cluster).toMatchObject({ control_plane_count: 3, high_availability_mode: 'Full', platform: { type: 'baremetal' }, api_vips: [{ ip: '1.2.3.8' }], ingress_vips: [{ ip: '1.2.3.9' }] });

    const fleet = await lab.bootHosts(image, ['master', 'master', 'master'], '1.2.3.0/24');
    const agents = await until('three Agents', () => lab.get('agents', '-n', NS), (list) => list.items.length === 3, 60_000, () => `${lab.logs()}\n${fleet.lines.slice(-10).join('\n')}`);
    for (const agent of agents.items) await lab.kubectl('-n', NS, 'patch', 'agents.agent-install.openshift.io', agent.metadata.name, '-p', '{"spec":{"approved":true,"role":"master"}}', '--type', 'merge');

    const done = await until('Completed', () => lab.get('agentclusterinstall', '-n', NS, aci.metadata.name), (a) => conditionsOf(a).Completed?.status === 'True', 300_000, () => `${lab.logs()}\n${fleet.lines.slice(-10).join('\n')}`);
    expect(done.status.controlPlaneAgentsDiscovered).toBe(3);
    expect(await lab.get('clusterdeployment', '-n', NS, 'ha')).toMatchObject({ spec: { installed: true } });
    const bootstrap = (await lab.get('agents', '-n', NS)).items.filter((agent: any) => agent.status.bootstrap === true);
    expect(bootstrap).toHaveLength(1);

    // Day 2 is not exercised: after allow-add-workers the service still refuses a new host of the
    // day-1 infra-env ("Host is trying to register after the cluster has already been installed");
    // see docs/kube-api.md.
    const joined = await until('a master installed', () => lab.get('agent', '-n', NS, agents.items[0].metadata.name), (a) => conditionsOf(a).Installed?.status === 'True', 60_000, lab.logs);
    expect(joined.status.role).toBe('master');

    // A BareMetalHost for an installed Agent: matched by MAC, labelled, detached.
    const mac = joined.status.inventory.interfaces[0].macAddress as string;
    await lab.apply('bmh.yaml', [{
      apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost',
      metadata: { name: 'worker-0', namespace: NS, labels: { 'infraenvs.agent-install.openshift.io': 'myinfraenv' } },
      spec: { bootMACAddress: mac, online: false },
    }, {
      apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost',
      metadata: { name: 'spare', namespace: NS, labels: { 'infraenvs.agent-install.openshift.io': 'myinfraenv' }, annotations: { 'bmac.agent-install.openshift.io/role': 'worker' } },
      spec: { bootMACAddress: '02:aa:bb:cc:dd:ee', online: false },
    }]);
    const detached = await until('the installed host\'s BareMetalHost detached', () => lab.get('bmh', '-n', NS, 'worker-0'), (b) => b.metadata.annotations?.['baremetalhost.metal3.io/detached'] !== undefined, 30_000, lab.logs);
    expect(detached.metadata.annotations['baremetalhost.metal3.io/detached']).toBe('assisted-service-controller');
    const spare = await until('the spare BareMetalHost booting the ISO', () => lab.get('bmh', '-n', NS, 'spare'), (b) => Boolean(b.spec.image?.url), 30_000, lab.logs);
    expect(spare.spec).toMatchObject({ online: true, image: { url: expect.stringContaining('/images/'), format: 'live-iso' } });
    expect(spare.metadata.annotations['inspect.metal3.io']).toBe('disabled');
  }, 700_000);
});
