/**
 * The pure rules of an installation's reports and files: host stages per role with upstream's
 * percentages and refusals, finalizing stages, operator reports, the ingress CA merged into the
 * kubeconfig (with real certificates), download rules, installer arguments and ignition overrides.
 */
import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import type { Cluster, Host } from '../../lambdas/domain/core/entities.js';
import { DomainError } from '../../lambdas/domain/core/errors.js';
import { BOOTSTRAP_STAGES, MASTER_STAGES, SNO_STAGES, WORKER_STAGES, type HostStage } from '../../lambdas/domain/host/host-states.js';
import {
  applyFinalizingStage,
  applyHostProgress,
  applyOperatorReport,
  consoleUrl,
  downloadRefusal,
  failedOperatorNames,
  hostIgnitionDownloadName,
  hostIgnitionOverrideProblem,
  installationTransitionContext,
  KubeconfigUnusable,
  mergeIngressCaIntoKubeconfig,
  monitoredOperatorsView,
  roleIgnitionFileName,
  storedPercentage,
  withoutInstallationReports,
  type StoredHostProgress,
} from '../../lambdas/domain/install/installation-progress.js';
import { installerArgsProblem } from '../../contracts/installer-args.js';
import type { HostStatus } from '../../lambdas/domain/host/host-states.js';
import { clusterWireView } from '../../lambdas/domain/cluster/cluster-document.js';
import { UNSET_TIME } from '../../lambdas/domain/core/entities.js';
import type { ClusterStatus } from '../../lambdas/domain/cluster/cluster-facts.js';
import { selfSignedCa } from '../../agent/src/controller/ingress-ca.js';

const NOW = new Date('2025-03-01T12:00:00.000Z');
const later = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);
const CLUSTER_ID = '11111111-1111-4111-8111-111111111111';
const INSTALLING = { status: 'installing', singleNode: false };

function host(attributes: Record<string, unknown> = {}, status: HostStatus = 'installing'): Host {
  return {
    orgId: 'org',
    infraEnvId: '22222222-2222-4222-8222-222222222222',
    hostId: '33333333-3333-4333-8333-333333333333',
    clusterId: CLUSTER_ID,
    status,
    createdAt: NOW.toISOString(),
    updatedAt: NOW.toISOString(),
    version: 3,
    monitorShard: 2,
    attributes: { role: 'master', requested_hostname: 'master-0', status_info: 'Installation in progress', ...attributes },
  };
}

function cluster(status: ClusterStatus, attributes: Record<string, unknown> = {}): Cluster {
  return {
    orgId: 'org',
    clusterId: CLUSTER_ID,
    name: 'ocp',
    status,
    createdAt: NOW.toISOString(),
    updatedAt: NOW.toISOString(),
    version: 1,
    attributes: {
      base_dns_domain: 'example.com',
      monitored_operators: [
        { name: 'console', operator_type: 'builtin', timeout_seconds: 3600 },
        { name: 'cvo', operator_type: 'builtin', timeout_seconds: 3600 },
        { name: 'lvm', operator_type: 'olm', timeout_seconds: 1800 },
      ],
      ...attributes,
    },
  };
}

const progressOf = (h: Host) => h.attributes.progress as StoredHostProgress;

/** Thrown DomainError kind and message, for asserting refusals literally. */
function refusal(run: () => unknown): { kind: string; message: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return { kind: error.kind, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

/** Reports every stage of `stages` in order, returning the host after each and the statuses seen. */
function walk(start: Host, stages: readonly HostStage[], clusterFacts = INSTALLING) {
  let current = start;
  const seen: { stage: HostStage; status: string; percentage: number | undefined; events: string[] }[] = [];
  stages.forEach((stage, index) => {
    const outcome = applyHostProgress(current, clusterFacts, { stage, info: index === 0 ? 'master' : '' }, later(index));
    expect(outcome.changed).toBe(true);
    current = outcome.host;
    seen.push({
      stage,
      status: current.status,
      percentage: progressOf(current).installation_percentage,
      events: [...(outcome.transition?.events ?? []).map((e) => e.name), outcome.progressEvent!.name],
    });
  });
  return { host: current, seen };
}

describe('host install progress', () => {
  it('cuts percentages to integers as upstream answers them (37 for 3 of 8 stages, 54 for 6 of 11)', () => {
    expect([12.5, 37.5, 62.5, 87.5, 9.0909, 54.5454, 66.6667, 77.7778, 33.3333, 100].map(storedPercentage)).toEqual([12, 37, 62, 87, 9, 54, 66, 77, 33, 100]);
  });

  it('takes a master through every stage to installed, with upstream percentages', () => {
    const { host: done, seen } = walk(host(), MASTER_STAGES);
    expect(seen.map((s) => s.percentage)).toEqual([12, 25, 37, 50, 62, 75, 87, 100]);
    expect(seen.map((s) => s.status)).toEqual([...Array(7).fill('installing-in-progress'), 'installed']);
    expect(seen[0]!.events).toEqual(['host_status_updated', 'host_install_progress_updated']);
    expect(seen[1]!.events).toEqual(['host_install_progress_updated']);
    expect(seen.at(-1)!.events).toEqual(['host_status_updated', 'host_install_progress_updated']);
    expect(done.attributes.status_info).toBe('Done');
    expect(done.monitorShard).toBeUndefined();
    expect(progressOf(done)).toMatchObject({ current_stage: 'Done', stage_started_at: later(7).toISOString(), stage_updated_at: later(7).toISOString() });
    expect(progressOf(done)).not.toHaveProperty('stage_timed_out');
  });

  it('takes the bootstrap host, a worker and a single node through their own stage lists', () => {
    const bootstrap = walk(host({ bootstrap: true }), BOOTSTRAP_STAGES);
    expect(bootstrap.seen.map((s) => s.percentage)).toEqual(BOOTSTRAP_STAGES.map((_, i) => storedPercentage(((i + 1) / 11) * 100)));
    expect(bootstrap.host.status).toBe('installed');

    const worker = walk(host({ role: 'worker', requested_hostname: 'worker-0' }), WORKER_STAGES);
    expect(worker.seen.map((s) => s.percentage)).toEqual([11, 22, 33, 44, 55, 66, 77, 88, 100]);
    expect(worker.host.status).toBe('installed');

    const single = walk(host({ bootstrap: true }), SNO_STAGES, { status: 'installing', singleNode: true });
    expect(single.seen.map((s) => s.stage)).toEqual(SNO_STAGES);
    expect(single.seen.map((s) => s.percentage)).toEqual([12, 25, 37, 50, 62, 75, 87, 100]);
    expect(single.host.status).toBe('installed');

    // As the installation plan leaves it: the single node is not marked bootstrap, and still bootstraps itself.
    const unmarked = walk(host({}), SNO_STAGES, { status: 'installing', singleNode: true });
    expect(unmarked.seen.map((s) => s.stage)).toEqual(SNO_STAGES);
    expect(unmarked.host.status).toBe('installed');
  });

  it('records a day-2 host reporting Rebooting as Done and adds it to the existing cluster', () => {
    const day2 = host({ role: 'worker', kind: 'AddToExistingClusterHost' });
    const { host: rebooting, seen } = walk(day2, ['Starting installation', 'Installing', 'Writing image to disk', 'Waiting for control plane', 'Rebooting'], {
      status: 'adding-hosts',
      singleNode: false,
    });
    expect(seen.map((s) => s.percentage)).toEqual([20, 40, 60, 80, 100]);
    expect(rebooting.status).toBe('added-to-existing-cluster');
    expect(progressOf(rebooting).current_stage).toBe('Done');
  });

  it('changes nothing for the same stage and info twice, and records new info on the same stage', () => {
    const first = applyHostProgress(host(), INSTALLING, { stage: 'Writing image to disk', info: '5%' }, NOW).host;
    const again = applyHostProgress(first, INSTALLING, { stage: 'Writing image to disk', info: '5%' }, later(5));
    expect(again).toEqual({ host: first, changed: false, stageChanged: false });

    const more = applyHostProgress(first, INSTALLING, { stage: 'Writing image to disk', info: '45%' }, later(10));
    expect(more.stageChanged).toBe(false);
    expect(more.transition).toBeUndefined();
    expect(progressOf(more.host)).toMatchObject({ progress_info: '45%', stage_started_at: NOW.toISOString(), stage_updated_at: later(10).toISOString() });
    expect(more.progressEvent!.props.event).toBe('reached installation stage Writing image to disk: 45%');
  });

  it('refuses going back, stages of another role, and hosts that are not installing, with upstream texts', () => {
    const configuring = walk(host(), MASTER_STAGES.slice(0, 6)).host;
    expect(refusal(() => applyHostProgress(configuring, INSTALLING, { stage: 'Installing' }, NOW))).toEqual({
      kind: 'conflict',
      message: 'Can\'t assign lower stage "Installing" after host has been in stage "Configuring"',
    });
    expect(refusal(() => applyHostProgress(configuring, INSTALLING, { stage: 'Waiting for ignition' }, NOW))).toEqual({
      kind: 'conflict',
      message: "Stages Waiting for ignition isn't available for host role master bootstrap false",
    });
    expect(refusal(() => applyHostProgress(host({}, 'known'), INSTALLING, { stage: 'Installing' }, NOW))).toEqual({
      kind: 'conflict',
      message: "Can't set progress <Installing> to host in status <known>",
    });
    const unbound = { ...host() };
    delete unbound.clusterId;
    expect(refusal(() => applyHostProgress(unbound, INSTALLING, { stage: 'Installing' }, NOW)).kind).toBe('bad-request');
  });

  it('fails a host on Failed, keeping its last progress, and refuses further reports', () => {
    const writing = walk(host(), MASTER_STAGES.slice(0, 3)).host;
    const failed = applyHostProgress(writing, INSTALLING, { stage: 'Failed', info: 'coreos-installer exited 1' }, later(60));
    expect(failed.host.status).toBe('error');
    expect(failed.host.attributes.status_info).toBe('Failed - coreos-installer exited 1');
    expect(progressOf(failed.host)).toEqual(progressOf(writing));
    expect(failed.transition?.events.map((e) => e.name)).toEqual(['host_status_updated']);
    expect(failed.progressEvent!.props.event).toBe('reached installation stage Failed: coreos-installer exited 1');
    expect(refusal(() => applyHostProgress(failed.host, INSTALLING, { stage: 'Rebooting' }, NOW)).kind).toBe('conflict');
  });

  it('lets a host pending user action resume when it reports again', () => {
    const pending = host({ progress: { current_stage: 'Rebooting' } }, 'installing-pending-user-action');
    const outcome = applyHostProgress(pending, { status: 'installing-pending-user-action', singleNode: false }, { stage: 'Configuring' }, NOW);
    expect(outcome.host.status).toBe('installing-in-progress');
  });
});

describe('finalizing stages and monitored operators', () => {
  it('records a new finalizing stage with a fresh clock, once', () => {
    const timedOut = cluster('finalizing', {
      progress: { total_percentage: 80, finalizing_stage: 'Waiting for cluster operators', finalizing_stage_timed_out: true },
    });
    const next = applyFinalizingStage(timedOut, 'Adding router ca', NOW)!;
    expect(next.attributes.progress).toEqual({
      total_percentage: 80,
      finalizing_stage: 'Adding router ca',
      finalizing_stage_started_at: NOW.toISOString(),
      finalizing_stage_timed_out: false,
    });
    expect(applyFinalizingStage(next, 'Adding router ca', later(5))).toBeUndefined();
    expect(refusal(() => applyFinalizingStage(cluster('ready'), 'Done', NOW))).toEqual({
      kind: 'bad-request',
      message: 'cluster is ready, not in one of allowed statuses: [installing finalizing installing-pending-user-action]',
    });
    expect(refusal(() => applyFinalizingStage(timedOut, 'Sleeping', NOW)).kind).toBe('bad-request');
  });

  it('updates one operator from a report, keeps what an empty field leaves, and ignores a repeat', () => {
    const first = applyOperatorReport(cluster('finalizing'), { name: 'console', status: 'progressing', status_info: 'rolling out', version: '4.18.3' }, NOW)!;
    const second = applyOperatorReport(first, { name: 'console', status: 'available' }, later(30))!;
    const consoleView = monitoredOperatorsView(second, 'console');
    expect(consoleView).toEqual([
      {
        name: 'console',
        operator_type: 'builtin',
        timeout_seconds: 3600,
        cluster_id: CLUSTER_ID,
        status: 'available',
        status_info: 'rolling out',
        version: '4.18.3',
        status_updated_at: later(30).toISOString(),
      },
    ]);
    expect(applyOperatorReport(second, { name: 'console', status: 'available' }, later(60))).toBeUndefined();
    expect(monitoredOperatorsView(second)).toHaveLength(3);
    expect(refusal(() => applyOperatorReport(second, { name: 'odf', status: 'available' }, NOW)).kind).toBe('not-found');
    expect(refusal(() => applyOperatorReport(second, { status: 'available' }, NOW)).kind).toBe('bad-request');
    expect(refusal(() => monitoredOperatorsView(second, 'odf')).kind).toBe('not-found');
  });

  it("answers an operator never reported with its cluster and Go's zero time, as upstream does", () => {
    const [unreported] = monitoredOperatorsView(cluster('ready'), 'console');
    expect(unreported).toMatchObject({ name: 'console', cluster_id: CLUSTER_ID, status_updated_at: UNSET_TIME });
    const wire = clusterWireView(cluster('ready'));
    expect(wire.monitored_operators).toEqual(monitoredOperatorsView(cluster('ready')));
  });

  it('gives the cluster machine its finalizing stage, operators and kubeconfig from the attributes', () => {
    const before = cluster('finalizing');
    expect(installationTransitionContext(before)).toEqual({
      monitoredOperators: [
        { name: 'console', type: 'builtin', timeoutSeconds: 3600 },
        { name: 'cvo', type: 'builtin', timeoutSeconds: 3600 },
        { name: 'lvm', type: 'olm', timeoutSeconds: 1800 },
      ],
      kubeconfigExists: false,
    });
    let after = applyFinalizingStage(before, 'Waiting for cluster operators', NOW)!;
    after = applyOperatorReport(after, { name: 'lvm', status: 'failed' }, NOW)!;
    after.attributes.kubeconfig_created_at = NOW.toISOString();
    expect(installationTransitionContext(after)).toMatchObject({
      finalizing: { stage: 'Waiting for cluster operators', stageStartedAt: NOW.toISOString(), stageTimedOut: false },
      monitoredOperators: expect.arrayContaining([{ name: 'lvm', type: 'olm', status: 'failed', timeoutSeconds: 1800 }]),
      kubeconfigExists: true,
    });
    const reset = withoutInstallationReports(after.attributes);
    expect(installationTransitionContext({ ...after, attributes: reset })).toEqual(installationTransitionContext(before));
  });

  it('names the operators a failed completion reports', () => {
    expect(
      failedOperatorNames({
        CLUSTER_OPERATORS_REPORT: [
          { name: 'console', status: 'available' },
          { name: 'lvm', status: 'failed' },
          { name: 'odf', status: 'failed' },
        ],
      }),
    ).toEqual(['lvm', 'odf']);
    expect(failedOperatorNames({})).toBeUndefined();
    expect(failedOperatorNames(undefined)).toBeUndefined();
  });
});

/** A self-signed CA certificate, as openshift-install and the ingress operator make them. */
const caCertificate = async (commonName: string): Promise<string> => (await selfSignedCa(commonName)).certificatePem;
const [apiCa, ingressCa] = await Promise.all([caCertificate('kube-apiserver-lb-signer'), caCertificate('ingress-operator@1700000000')]);

describe('ingress CA into the kubeconfig', () => {
  const kubeconfig = stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'ocp', cluster: { server: 'https://api.ocp.example.com:6443', 'certificate-authority-data': Buffer.from(apiCa).toString('base64') } }],
    contexts: [{ name: 'admin', context: { cluster: 'ocp', user: 'admin' } }],
    'current-context': 'admin',
    users: [{ name: 'admin', user: { 'client-certificate-data': 'Y2VydA==', 'client-key-data': 'a2V5' } }],
  });

  it('puts the ingress CA in front of the API CA and keeps everything else', () => {
    const merged = parse(mergeIngressCaIntoKubeconfig(kubeconfig, ingressCa));
    const bundle = Buffer.from(merged.clusters[0].cluster['certificate-authority-data'], 'base64').toString('utf8');
    const certs = bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)!.map((pem) => new X509Certificate(pem).subject);
    expect(certs).toEqual(['CN=ingress-operator@1700000000', 'CN=kube-apiserver-lb-signer']);
    expect(merged.users).toEqual(parse(kubeconfig).users);
    expect(merged.clusters[0].cluster.server).toBe('https://api.ocp.example.com:6443');
  });

  it("refuses a bad ingress PEM as the caller's fault and a broken kubeconfig as ours", () => {
    expect(refusal(() => mergeIngressCaIntoKubeconfig(kubeconfig, 'not a certificate')).kind).toBe('bad-request');
    expect(refusal(() => mergeIngressCaIntoKubeconfig(kubeconfig, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----')).kind).toBe('bad-request');
    expect(() => mergeIngressCaIntoKubeconfig(stringify({ clusters: [] }), ingressCa)).toThrow(KubeconfigUnusable);
    const secretKey = 'client-key-data: c2VjcmV0';
    expect(() => mergeIngressCaIntoKubeconfig(`clusters: [\n${secretKey}\n  - : :`, ingressCa)).toThrow(new KubeconfigUnusable('it is not YAML'));
    expect(() => mergeIngressCaIntoKubeconfig(stringify({ clusters: [{ cluster: { server: 'x' } }] }), ingressCa)).toThrow(KubeconfigUnusable);
  });
});

describe('download rules', () => {
  it('allows files from installing on and the final kubeconfig from finalizing on', () => {
    const statuses: ClusterStatus[] = [
      'ready',
      'preparing-for-installation',
      'installing',
      'installing-pending-user-action',
      'finalizing',
      'installed',
      'error',
      'cancelled',
      'adding-hosts',
    ];
    const allowed = (fileName: string) => statuses.filter((status) => !downloadRefusal({ clusterId: CLUSTER_ID, status }, fileName));
    expect(allowed('master.ign')).toEqual(['installing', 'installing-pending-user-action', 'finalizing', 'installed', 'error', 'cancelled', 'adding-hosts']);
    expect(allowed('kubeconfig-noingress')).toEqual(allowed('master.ign'));
    expect(allowed('kubeconfig')).toEqual(['installing-pending-user-action', 'finalizing', 'installed', 'error', 'cancelled', 'adding-hosts']);
    expect(downloadRefusal({ clusterId: CLUSTER_ID, status: 'ready' }, 'kubeconfig')).toBe(
      `cluster ${CLUSTER_ID} is in ready state, kubeconfig can be downloaded only when status is one of: [finalizing installed error adding-hosts cancelled installing-pending-user-action]`,
    );
  });

  it('names host ignitions and the console as upstream', () => {
    expect(roleIgnitionFileName(host({ bootstrap: true }))).toBe('master.ign');
    expect(roleIgnitionFileName(host({ role: 'auto-assign', suggested_role: 'worker' }))).toBe('worker.ign');
    expect(roleIgnitionFileName(host({ role: 'arbiter' }))).toBe('arbiter.ign');
    expect(roleIgnitionFileName(host({ role: 'auto-assign' }))).toBeUndefined();
    expect(hostIgnitionDownloadName(host({ bootstrap: true }))).toBe('master-33333333-3333-4333-8333-333333333333.ign');
    expect(consoleUrl('ocp', 'example.com')).toBe('https://console-openshift-console.apps.ocp.example.com');
  });
});

describe('per-host installation settings', () => {
  it("allows only upstream's coreos-installer flags, with values of its character set", () => {
    expect(
      installerArgsProblem(['--append-karg', 'ip=192.0.2.2::192.0.2.254:255.255.255.0:core0.example.com:enp1s0:none', '--save-partindex', '1', '-n']),
    ).toBeUndefined();
    expect(
      installerArgsProblem(['--delete-karg', 'console=ttyS0,115200n8', '--copy-network', '--network-dir', '/etc/NetworkManager/system-connections/']),
    ).toBeUndefined();
    expect(installerArgsProblem(['--image-url', 'https://mirror.example.com/rhcos.raw.gz', '--save-partlabel', 'data*'])).toBeUndefined();
    expect(installerArgsProblem(['--insecure'])).toBe(
      'found unexpected flag --insecure for installer - allowed flags are [--append-karg --delete-karg -n --copy-network --network-dir --save-partlabel --save-partindex --image-url --image-file]',
    );
    expect(installerArgsProblem(['--append-karg', 'tab\tx'])).toBe('found unexpected chars in value tab\tx for installer');
    expect(installerArgsProblem(['--append-karg', 'a b'])).toBe('found unexpected chars in value a b for installer');
    expect(installerArgsProblem(['--append-karg', 'pipe|d'])).toBe('found unexpected chars in value pipe|d for installer');
    expect(installerArgsProblem(['--append-karg', 'back`tick`'])).toBe('found unexpected chars in value back`tick` for installer');
    expect(installerArgsProblem(['--append-karg', 'amp&'])).toBe('found unexpected chars in value amp& for installer');
  });

  it('takes an Ignition 3.1/3.2 config as a host override, or nothing', () => {
    expect(hostIgnitionOverrideProblem('')).toBeUndefined();
    expect(
      hostIgnitionOverrideProblem(
        JSON.stringify({ ignition: { version: '3.2.0' }, storage: { files: [{ path: '/etc/x', contents: { source: 'data:,x' } }] } }),
      ),
    ).toBeUndefined();
    expect(hostIgnitionOverrideProblem(JSON.stringify({ ignition: { version: '3.1.0' } }))).toBeUndefined();
    expect(hostIgnitionOverrideProblem('{"ignition":')).toMatch(/^error parsing ignition: /);
    expect(hostIgnitionOverrideProblem('[]')).toBe('error parsing ignition: the config must be a JSON object');
    expect(hostIgnitionOverrideProblem(JSON.stringify({ ignition: { version: '2.2.0' } }))).toMatch(/unsupported config version "2.2.0"/);
    expect(hostIgnitionOverrideProblem(JSON.stringify({ ignition: { version: '3.2.0' }, storage: [] }))).toBe(
      'error parsing ignition: storage must be an object',
    );
  });
});
