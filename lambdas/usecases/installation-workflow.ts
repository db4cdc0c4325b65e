/**
 * The install workflow's tasks (statemachines/install-cluster.asl.json): prepare the inputs, take
 * in what the installer produced, publish DNS, and re-judge the cluster until the installation
 * ends. Each task is idempotent and checks that its attempt is still the cluster's current one, so
 * a retried or late task of a cancelled attempt changes nothing.
 */
import type { Cluster } from '../domain/core/entities.js';
import { isJsonObject, text as stringOf } from '../../contracts/json-shapes.js';
import { mergeIgnitionOverride } from '../domain/image/ignition-merge.js';
import { clusterDnsRecords, installRoleOf } from '../domain/install/installation.js';
import { clusterObjectPrefix, hostIgnitionObjectKey, installationObjectKey } from '../domain/core/object-keys.js';
import type { BlobStore } from '../ports/blobs.js';
import type { Clock } from '../ports/clock.js';
import type { DnsZones } from '../ports/dns.js';
import type { Store } from '../ports/store.js';
import { refreshCluster } from './cluster-refresh.js';
import { recordEvent, type EventCause } from './events.js';
import { renderClusterInstallConfigYaml } from './install-config.js';
import type { InstallWorkflowInput } from '../domain/install/installation.js';
import { INSTALLER_OUTPUTS, INSTALLER_REPORT, type InstallerReport } from '../domain/install/installer-outputs.js';

export interface InstallWorkflowDeps {
  store: Store;
  clock: Clock;
  blobs: BlobStore;
  dns: DnsZones;
  config: { hostedZones: Record<string, string> };
}

/** Statuses in which the workflow has nothing more to follow. */
const ENDED = new Set(['installed', 'error', 'cancelled', 'ready', 'insufficient', 'pending-for-input']);

async function currentAttempt(deps: InstallWorkflowDeps, input: InstallWorkflowInput): Promise<Cluster | undefined> {
  const cluster = await deps.store.clusters.get({ orgId: input.orgId, clusterId: input.clusterId });
  if (!cluster || cluster.attributes.install_attempt !== input.attempt) return undefined;
  return cluster;
}

const subjectOf = (input: InstallWorkflowInput) => ({ orgId: input.orgId, clusterId: input.clusterId });
/** A task of the workflow runs at least once: its events are those of the attempt, recorded once however often it runs. */
const attemptOf = (input: InstallWorkflowInput): EventCause => ({ record: `installation/${input.clusterId}`, version: input.attempt });

/** Writes install-config.yaml for the installer; manifests are read by it from where the API keeps them. */
export async function prepareInstallation(deps: InstallWorkflowDeps, input: InstallWorkflowInput) {
  const cluster = await currentAttempt(deps, input);
  if (cluster?.status !== 'preparing-for-installation') return { ...input, proceed: false };
  await recordEvent(deps, {
    name: 'installation_step_started',
    subject: subjectOf(input),
    cause: attemptOf(input),
    props: { step: 'rendering install-config.yaml and collecting the custom manifests' },
  });
  const yaml = await renderClusterInstallConfigYaml(deps.store, cluster);
  await deps.blobs.put('files', installationObjectKey(input.orgId, input.clusterId, 'install-config.yaml'), yaml, 'application/yaml');
  // Outputs of an earlier attempt must not pass for this one's.
  await Promise.all(
    [...INSTALLER_OUTPUTS, INSTALLER_REPORT, 'kubeconfig'].map((name) => deps.blobs.remove('files', installationObjectKey(input.orgId, input.clusterId, name))),
  );
  await recordEvent(deps, {
    name: 'installation_step_started',
    subject: subjectOf(input),
    cause: attemptOf(input),
    props: { step: 'generating the ignition files with openshift-install' },
  });
  return {
    ...input,
    proceed: true,
    openshiftVersion: String(cluster.attributes.openshift_version ?? ''),
    releaseImage: String(cluster.attributes.ocp_release_image ?? ''),
    inputPrefix: clusterObjectPrefix(input.orgId, input.clusterId),
  };
}

function hostIgnition(base: string, host: { attributes: Record<string, unknown> }): string {
  const parsed: unknown = JSON.parse(base);
  if (!isJsonObject(parsed)) throw new Error('the installer made an ignition that is not a JSON object');
  let ignition = parsed;
  const hostname = (host.attributes.requested_hostname as string | undefined) || undefined;
  if (hostname) {
    const storage = isJsonObject(ignition.storage) ? ignition.storage : {};
    const files = Array.isArray(storage.files) ? storage.files : [];
    ignition = {
      ...ignition,
      storage: {
        ...storage,
        files: [...files, { path: '/etc/hostname', mode: 0o644, overwrite: true, contents: { source: `data:,${encodeURIComponent(hostname)}` } }],
      },
    };
  }
  const override = host.attributes.ignition_config_overrides as string | undefined;
  if (override) ignition = mergeIgnitionOverride(ignition, override);
  return JSON.stringify(ignition);
}

/** The installer's report, checked: a report in another shape means the installer and this workflow disagree. */
function installerReport(text: string): InstallerReport {
  const report: unknown = JSON.parse(text);
  if (!isJsonObject(report)) throw new Error('the installer report is not a JSON object');
  const { installer, installerVersion, seconds, files } = report;
  if (installer !== 'openshift-install' && installer !== 'simulated') throw new Error(`the installer report names an unknown installer: ${String(installer)}`);
  if (typeof seconds !== 'number' || !Array.isArray(files) || !files.every((file) => typeof file === 'string')) {
    throw new Error('the installer report lacks its seconds or files');
  }
  return { installer, ...(typeof installerVersion === 'string' ? { installerVersion } : {}), seconds, files };
}

/**
 * After the installer ran: check its outputs, make each host's ignition (its role's plus its
 * hostname and overrides), and record the preparation as done — the cluster refresh then moves the
 * cluster to installing once every host passed its preparation checks.
 */
export async function recordInstallationFiles(deps: InstallWorkflowDeps, input: InstallWorkflowInput) {
  const cluster = await currentAttempt(deps, input);
  if (cluster?.status !== 'preparing-for-installation') return { ...input, proceed: false };
  const reportBytes = await deps.blobs.get('files', installationObjectKey(input.orgId, input.clusterId, INSTALLER_REPORT));
  if (!reportBytes) throw new Error('the installer finished without leaving its report: the installation files are incomplete');
  const report = installerReport(Buffer.from(reportBytes).toString('utf8'));
  const outputs = new Map<string, string>();
  for (const name of ['bootstrap.ign', 'master.ign', 'worker.ign'] as const) {
    const bytes = await deps.blobs.get('files', installationObjectKey(input.orgId, input.clusterId, name));
    if (!bytes) throw new Error(`the installer did not produce ${name}`);
    outputs.set(name, Buffer.from(bytes).toString('utf8'));
  }
  const version = String(cluster.attributes.openshift_version ?? '');
  if (report.installer === 'simulated') {
    await recordEvent(deps, {
      name: 'installation_files_simulated',
      subject: subjectOf(input),
      cause: attemptOf(input),
      props: { openshift_version: version },
    });
  }
  await recordEvent(deps, {
    name: 'installation_files_generated',
    subject: subjectOf(input),
    cause: attemptOf(input),
    props: {
      installer: report.installer === 'simulated' ? 'The SIMULATED installer' : `openshift-install ${report.installerVersion ?? ''}`.trim(),
      files: report.files.join(', '),
      openshift_version: version,
      seconds: Math.round(report.seconds),
    },
  });

  const hosts = await deps.store.hosts.listByCluster(subjectOf(input));
  for (const host of hosts) {
    const role = installRoleOf(host);
    // The bootstrap host boots as a control-plane node once the bootstrap control plane is up.
    const base = outputs.get(role === 'worker' ? 'worker.ign' : 'master.ign')!;
    await deps.blobs.put('files', hostIgnitionObjectKey(input.orgId, input.clusterId, host.hostId), hostIgnition(base, host), 'application/json');
  }

  const now = deps.clock.now().toISOString();
  await deps.store.clusters.mutate(subjectOf(input), (current) => {
    if (current.attributes.install_attempt !== input.attempt) return undefined;
    return {
      ...current,
      attributes: {
        ...current.attributes,
        last_installation_preparation: { status: 'success', reason: '' },
        installer_simulated: report.installer === 'simulated',
      },
      updatedAt: now,
    };
  });
  await refreshCluster(deps, subjectOf(input));
  return { ...input, proceed: true };
}

/** The installer or a task failed: the attempt is over, the user may try again from ready. */
export async function recordPreparationFailure(deps: InstallWorkflowDeps, input: InstallWorkflowInput & { failure?: { Error?: string; Cause?: string } }) {
  const cluster = await currentAttempt(deps, input);
  if (cluster?.status !== 'preparing-for-installation') return { ...input, proceed: false };
  const reason = summarizeFailure(input.failure);
  const now = deps.clock.now().toISOString();
  await deps.store.clusters.mutate(subjectOf(input), (current) => {
    if (current.attributes.install_attempt !== input.attempt) return undefined;
    return { ...current, attributes: { ...current.attributes, last_installation_preparation: { status: 'failed', reason } }, updatedAt: now };
  });
  await recordEvent(deps, { name: 'prepare_installation_failed', subject: subjectOf(input), cause: attemptOf(input), props: { error: reason } });
  await refreshCluster(deps, subjectOf(input));
  return { ...input, proceed: false };
}

/** Step Functions hands over `{Error, Cause}`; the cause may be JSON (ECS task descriptions) or text. */
function summarizeFailure(failure: { Error?: string; Cause?: string } | undefined): string {
  const cause = failure?.Cause ?? '';
  let text = cause;
  try {
    const parsed: unknown = JSON.parse(cause);
    if (isJsonObject(parsed)) text = stringOf(parsed.errorMessage) ?? stringOf(parsed.StoppedReason) ?? cause;
  } catch {
    // Plain text already.
  }
  return (text || failure?.Error || 'the installation files could not be generated').slice(0, 400);
}

/** The managed domain a cluster's base domain falls in, if any. */
function managedZoneOf(baseDomain: string, zones: Record<string, string>): string | undefined {
  return Object.keys(zones)
    .filter((zone) => baseDomain === zone || baseDomain.endsWith(`.${zone}`))
    .sort((a, b) => b.length - a.length)[0];
}

export async function publishDnsRecords(deps: InstallWorkflowDeps, input: InstallWorkflowInput) {
  const cluster = await currentAttempt(deps, input);
  if (!cluster) return { ...input, proceed: false };
  const zone = managedZoneOf(String(cluster.attributes.base_dns_domain ?? ''), deps.config.hostedZones);
  if (!zone) return { ...input, proceed: true, dns: 'unmanaged' };
  const records = clusterDnsRecords(cluster, await deps.store.hosts.listByCluster(subjectOf(input)));
  await deps.dns.upsert(zone, records);
  await deps.store.clusters.mutate(subjectOf(input), (current) => ({
    ...current,
    attributes: { ...current.attributes, dns_zone: zone, dns_records: records.map((r) => ({ name: r.name, type: r.type })) },
  }));
  await recordEvent(deps, {
    name: 'cluster_dns_records_created',
    subject: subjectOf(input),
    cause: attemptOf(input),
    props: { zone, names: [...new Set(records.map((r) => r.name))].join(', ') },
  });
  return { ...input, proceed: true, dns: zone };
}

/** One look at the installation: re-judges the cluster (time-based transitions) and says whether it ended. */
export async function followInstallation(deps: InstallWorkflowDeps, input: InstallWorkflowInput) {
  const cluster = await currentAttempt(deps, input);
  if (!cluster) return { ...input, done: true, status: 'superseded' };
  const refreshed = (await refreshCluster(deps, subjectOf(input))) ?? cluster;
  return { ...input, done: ENDED.has(refreshed.status), status: refreshed.status };
}
