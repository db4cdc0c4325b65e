/**
 * Example ZTP manifest sets, written the way users write them (multi-document YAML files): a highly
 * available cluster with static networking from NMStateConfigs, a single-node cluster and a
 * dual-stack cluster. docs/cli.md shows them; the ZTP tests apply them.
 */
import YAML from 'yaml';
import type { ManifestFile } from './manifests.js';

export type ExampleKind = 'ha' | 'sno' | 'dual-stack';

export interface ExampleOptions {
  pullSecret: string;
  sshPublicKey: string;
  /** Cluster name (default: the kind). */
  name?: string;
  namespace?: string;
  releaseImage?: string;
}

const multiDocument = (documents: object[]) => documents.map((document) => YAML.stringify(document)).join('---\n');

/** One NMStateConfig: eth0 with a static IPv4 address, a default route and DNS. */
export function nmStateConfig(name: string, namespace: string, labels: Record<string, string>, mac: string, address: string, gateway: string) {
  return {
    apiVersion: 'agent-install.openshift.io/v1beta1',
    kind: 'NMStateConfig',
    metadata: { name, namespace, labels },
    spec: {
      config: {
        interfaces: [
          {
            name: 'eth0',
            type: 'ethernet',
            state: 'up',
            'mac-address': mac,
            ipv4: { enabled: true, dhcp: false, address: [{ ip: address, 'prefix-length': 24 }] },
          },
        ],
        'dns-resolver': { config: { server: [gateway] } },
        routes: { config: [{ destination: '0.0.0.0/0', 'next-hop-address': gateway, 'next-hop-interface': 'eth0', 'table-id': 254 }] },
      },
      interfaces: [{ name: 'eth0', macAddress: mac }],
    },
  };
}

export function exampleManifests(kind: ExampleKind, options: ExampleOptions): ManifestFile[] {
  const name = options.name ?? kind;
  const namespace = options.namespace ?? name;
  const imageSetName = 'openshift-4.18';
  const secretName = `${name}-pull-secret`;
  const networks = {
    ha: {
      machine: ['192.168.111.0/24'],
      cluster: [{ cidr: '10.128.0.0/14', hostPrefix: 23 }],
      service: ['172.30.0.0/16'],
      api: ['192.168.111.5'],
      ingress: ['192.168.111.4'],
    },
    sno: { machine: ['192.168.112.0/24'], cluster: [{ cidr: '10.128.0.0/14', hostPrefix: 23 }], service: ['172.30.0.0/16'], api: [], ingress: [] },
    'dual-stack': {
      machine: ['192.168.113.0/24', 'fd2e:6f44:5dd8:c956::/120'],
      cluster: [
        { cidr: '10.128.0.0/14', hostPrefix: 23 },
        { cidr: 'fd01::/48', hostPrefix: 64 },
      ],
      service: ['172.30.0.0/16', 'fd02::/112'],
      api: ['192.168.113.5', 'fd2e:6f44:5dd8:c956::5'],
      ingress: ['192.168.113.4', 'fd2e:6f44:5dd8:c956::4'],
    },
  }[kind];
  const counts = { ha: [3, 2], sno: [1, 0], 'dual-stack': [3, 0] }[kind] as [number, number];

  const clusterDeployment = {
    apiVersion: 'hive.openshift.io/v1',
    kind: 'ClusterDeployment',
    metadata: { name, namespace },
    spec: {
      baseDomain: 'example.com',
      clusterName: name,
      clusterInstallRef: { group: 'extensions.hive.openshift.io', kind: 'AgentClusterInstall', name: `${name}-install`, version: 'v1beta1' },
      platform: { agentBareMetal: { agentSelector: { matchLabels: { cluster: name } } } },
      pullSecretRef: { name: secretName },
    },
  };
  const agentClusterInstall = {
    apiVersion: 'extensions.hive.openshift.io/v1beta1',
    kind: 'AgentClusterInstall',
    metadata: {
      name: `${name}-install`,
      namespace,
      ...(kind === 'ha' ? { annotations: { 'agent-install.openshift.io/install-config-overrides': '{"fips":true}' } } : {}),
    },
    spec: {
      clusterDeploymentRef: { name },
      imageSetRef: { name: imageSetName },
      ...(networks.api.length ? { apiVIPs: networks.api, ingressVIPs: networks.ingress } : {}),
      ...(kind === 'sno' ? {} : { platformType: 'BareMetal' }),
      networking: {
        clusterNetwork: networks.cluster,
        serviceNetwork: networks.service,
        machineNetwork: networks.machine.map((cidr) => ({ cidr })),
        networkType: 'OVNKubernetes',
        ...(kind === 'sno' ? { userManagedNetworking: true } : {}),
      },
      provisionRequirements: { controlPlaneAgents: counts[0], workerAgents: counts[1] },
      sshPublicKey: options.sshPublicKey,
      ...(kind === 'ha'
        ? { proxy: { httpProxy: 'http://proxy.example.com:3128', httpsProxy: 'http://proxy.example.com:3128', noProxy: '.example.com,192.168.111.0/24' } }
        : {}),
    },
  };
  const clusterImageSet = {
    apiVersion: 'hive.openshift.io/v1',
    kind: 'ClusterImageSet',
    metadata: { name: imageSetName },
    spec: { releaseImage: options.releaseImage ?? 'quay.io/openshift-release-dev/ocp-release:4.18.52-x86_64' },
  };
  const secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/dockerconfigjson',
    metadata: { name: secretName, namespace },
    // data (base64), as `oc create secret` writes it.
    data: { '.dockerconfigjson': Buffer.from(options.pullSecret).toString('base64') },
  };
  const labels = { 'cluster0-nmstate-label-name': `${name}-nmstate` };
  const infraEnv = {
    apiVersion: 'agent-install.openshift.io/v1beta1',
    kind: 'InfraEnv',
    metadata: { name, namespace },
    spec: {
      clusterRef: { name, namespace },
      pullSecretRef: { name: secretName },
      sshAuthorizedKey: options.sshPublicKey,
      ...(kind === 'ha' ? { nmStateConfigLabelSelector: { matchLabels: labels }, additionalNTPSources: ['clock.example.com'] } : {}),
    },
  };
  const files: ManifestFile[] = [
    { file: 'cluster.yaml', text: multiDocument([clusterDeployment, agentClusterInstall, clusterImageSet]) },
    { file: 'infraenv.yaml', text: multiDocument([infraEnv]) },
    { file: 'pull-secret.yaml', text: multiDocument([secret]) },
  ];
  if (kind === 'ha') {
    const hosts = ['master-0', 'master-1', 'master-2', 'worker-0', 'worker-1'];
    files.push({
      file: 'nmstate.yaml',
      text: multiDocument(
        hosts.map((host, i) => nmStateConfig(`${name}-${host}`, namespace, labels, `52:54:00:aa:00:0${i + 1}`, `192.168.111.${20 + i}`, '192.168.111.1')),
      ),
    });
  }
  return files;
}
