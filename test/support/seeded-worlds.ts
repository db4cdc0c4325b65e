/**
 * Clusters, infra-envs and hosts written straight to the store in a chosen state, cloned from
 * records the API made (so every field a real record has is there): for tests of who may do what
 * to a cluster that is finalizing or installed, without installing one first.
 */
import { randomUUID } from 'node:crypto';
import type { Cluster, Host, InfraEnv } from '../../lambdas/domain/core/entities.js';
import { createIngressCa } from '../../agent/src/controller/ingress-ca.js';
import { INSTALLATION_BUCKET, installationObjectKey } from '../../lambdas/domain/core/object-keys.js';
import { container } from '../../lambdas/platform/container.js';
import { inventory, PULL_SECRET } from './fixtures.js';
import type { HostStatus } from '../../lambdas/domain/host/host-states.js';
import type { ClusterStatus } from '../../lambdas/domain/cluster/cluster-facts.js';

type Call = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;

export interface Templates {
  cluster: Cluster;
  infraEnv: InfraEnv;
}

/** A cluster and an infra-env made through the API (as `call`'s caller, in org `default`), to clone. */
/** A proxy whose password only those who may see credentials may read (docs/api.md, read-only tokens). */
export const PROXY_PASSWORD = 'proxy-secret-for-tests';
const PROXY_WITH_CREDENTIALS = `http://proxyuser:${PROXY_PASSWORD}@proxy.example.com:3128`;

export async function captureTemplates(call: Call): Promise<Templates> {
  const versions = (await call('GET', '/openshift-versions')).body as Record<string, { default?: boolean }>;
  const version = Object.entries(versions).find(([, v]) => v.default)?.[0] ?? Object.keys(versions)[0]!;
  const cluster = await call('POST', '/clusters', {
    name: 'template',
    openshift_version: version,
    pull_secret: PULL_SECRET,
    base_dns_domain: 'example.com',
    http_proxy: PROXY_WITH_CREDENTIALS,
  });
  if (cluster.status !== 201) throw new Error(`template cluster: ${cluster.status} ${JSON.stringify(cluster.body)}`);
  const infraEnv = await call('POST', '/infra-envs', {
    name: 'template',
    pull_secret: PULL_SECRET,
    cluster_id: cluster.body.id,
    proxy: { https_proxy: PROXY_WITH_CREDENTIALS },
  });
  if (infraEnv.status !== 201) throw new Error(`template infra-env: ${infraEnv.status} ${JSON.stringify(infraEnv.body)}`);
  const store = container().store;
  return {
    cluster: (await store.clusters.get({ orgId: 'default', clusterId: cluster.body.id }))!,
    infraEnv: (await store.infraEnvs.get({ orgId: 'default', infraEnvId: infraEnv.body.id }))!,
  };
}

const withoutVersion = <T extends { version: number }>(record: T): Omit<T, 'version'> => {
  const { version: _version, ...rest } = record;
  return rest;
};

export interface SeededCluster {
  clusterId: string;
  infraEnvId: string;
  hostId: string;
}

/**
 * A cluster in `clusterStatus` with one infra-env bound to it and one host (a worker) in
 * `hostStatus`. `installCompletedAt` stamps the installation's end (installed clusters).
 */
export async function seedCluster(
  templates: Templates,
  options: { clusterStatus: ClusterStatus; hostStatus: HostStatus; installCompletedAt?: Date; hostStage?: string; name?: string },
): Promise<SeededCluster> {
  const store = container().store;
  const now = new Date().toISOString();
  const clusterId = randomUUID();
  const infraEnvId = randomUUID();
  const hostId = randomUUID();
  const attributes: Record<string, unknown> = { ...templates.cluster.attributes, status_info: `seeded ${options.clusterStatus}` };
  if (options.installCompletedAt) attributes.install_completed_at = options.installCompletedAt.toISOString();
  await store.clusters.create({
    ...withoutVersion(templates.cluster),
    clusterId,
    name: options.name ?? 'seeded',
    status: options.clusterStatus,
    createdAt: now,
    updatedAt: now,
    attributes,
  });
  await store.infraEnvs.create({
    ...withoutVersion(templates.infraEnv),
    infraEnvId,
    clusterId,
    imageTokenKey: randomUUID(),
    createdAt: now,
    updatedAt: now,
    attributes: { ...templates.infraEnv.attributes },
  });
  await store.hosts.create({
    orgId: 'default',
    infraEnvId,
    hostId,
    clusterId,
    status: options.hostStatus,
    createdAt: now,
    updatedAt: now,
    attributes: {
      inventory: inventory(`host-${hostId.slice(0, 4)}`),
      role: 'worker',
      cpu_architecture: 'x86_64',
      status_info: `seeded ${options.hostStatus}`,
      ...(options.hostStage ? { progress: { current_stage: options.hostStage, progress_info: '', stage_started_at: now, stage_updated_at: now } } : {}),
    },
  } as Omit<Host, 'version'>);
  return { clusterId, infraEnvId, hostId };
}

/** The installation's files of a cluster, each holding a marker naming it (to find it where it must not be). */
export const INSTALLATION_FILES = [
  'kubeconfig',
  'kubeconfig-noingress',
  'kubeadmin-password',
  'bootstrap.ign',
  'master.ign',
  'worker.ign',
  'metadata.json',
  'install-config.yaml',
] as const;

export const secretMarker = (clusterId: string, fileName: string) => `SECRET-${fileName}-${clusterId}`;

/** The cluster's CA in the seeded kubeconfigs: one for all, made when the module loads. */
const clusterCa = (await createIngressCa()).certificatePem;

/** A kubeconfig as the installer writes one (the ingress CA can be merged into it), marked. */
function kubeconfig(marker: string): string {
  const data = (text: string) => Buffer.from(text).toString('base64');
  return [
    `# ${marker}`,
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: seeded',
    '  cluster:',
    '    server: https://api.seeded.example.com:6443',
    `    certificate-authority-data: ${data(clusterCa)}`,
    'contexts:',
    '- name: admin',
    '  context:',
    '    cluster: seeded',
    '    user: admin',
    'current-context: admin',
    'users:',
    '- name: admin',
    '  user:',
    `    client-certificate-data: ${data('certificate')}`,
    `    client-key-data: ${data(marker)}`,
    '',
  ].join('\n');
}

export async function seedInstallationFiles(clusterId: string): Promise<void> {
  const blobs = container().blobs;
  await Promise.all(
    INSTALLATION_FILES.map((fileName) => {
      const marker = secretMarker(clusterId, fileName);
      const content = fileName.startsWith('kubeconfig')
        ? kubeconfig(marker)
        : fileName === 'install-config.yaml'
          ? `apiVersion: v1\nmetadata:\n  name: seeded\npullSecret: '${PULL_SECRET}'\n`
          : fileName === 'metadata.json'
            ? JSON.stringify({ clusterName: 'seeded', infraID: 'seeded-x' })
            : fileName.endsWith('.ign')
              ? JSON.stringify({ ignition: { version: '3.2.0' }, storage: { files: [{ path: '/etc/marker', contents: { source: `data:,${marker}` } }] } })
              : marker;
      return blobs.put(INSTALLATION_BUCKET, installationObjectKey('default', clusterId, fileName), content, 'application/octet-stream');
    }),
  );
}
