/**
 * The installer container task: makes a cluster's installation files. It reads install-config.yaml
 * (written by the workflow's Prepare task) and the custom manifests from S3, runs
 * `openshift-install create manifests` and `create ignition-configs`, and writes the outputs and a
 * report back to S3. In AWS it is an ECS Fargate task; the embedded runtime runs it as a process.
 *
 * Which installer: $OPENSHIFT_INSTALL or `openshift-install` on PATH. Without one, the SIMULATED
 * installer runs only if ALLOW_SIMULATED_INSTALLER=true (the embedded runtime sets it and says so);
 * otherwise the task fails with a message naming what is missing.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { clusterObjectPrefix, installationObjectKey } from '../domain/core/object-keys.js';
import { blobStore } from '../platform/blob-store.js';
import { configFromEnvironment } from '../platform/config.js';
import { INSTALLER_OUTPUTS, INSTALLER_REPORT, type InstallerOutputs, type InstallerReport } from '../domain/install/installer-outputs.js';

const log = (message: string) => process.stdout.write(`${new Date().toISOString()} ${message}\n`);

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`environment variable ${name} is not set`);
  return value;
}

/** The openshift-install to run, if this machine has one. */
function findOpenshiftInstall(): { path: string; version: string } | undefined {
  const candidate = process.env.OPENSHIFT_INSTALL || 'openshift-install';
  const probe = spawnSync(candidate, ['version'], { encoding: 'utf8', timeout: 60_000 });
  if (probe.error || probe.status !== 0) return undefined;
  return {
    path: candidate,
    version:
      probe.stdout
        .split('\n')[0]
        ?.replace(/^openshift-install\s*/, '')
        .trim() ?? '',
  };
}

function runInstaller(binary: string, args: string[], dir: string): void {
  log(`running ${binary} ${args.join(' ')}`);
  // The installer's own log carries no secrets at info level; its files do and stay in `dir`.
  const result = spawnSync(binary, [...args, '--dir', dir, '--log-level', 'info'], {
    encoding: 'utf8',
    timeout: 45 * 60_000,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.error) throw new Error(`${binary} ${args.join(' ')} could not run: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`${binary} ${args.join(' ')} failed with exit code ${result.status}; its log above says why`);
}

async function realInstaller(binary: string, installConfig: string, manifests: Record<string, string>): Promise<InstallerOutputs> {
  const dir = mkdtempSync(path.join(tmpdir(), 'openshift-install-'));
  try {
    writeFileSync(path.join(dir, 'install-config.yaml'), installConfig, { mode: 0o600 });
    runInstaller(binary, ['create', 'manifests'], dir);
    for (const [relative, contents] of Object.entries(manifests)) {
      const target = path.join(dir, relative);
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, contents);
    }
    runInstaller(binary, ['create', 'ignition-configs'], dir);
    const read = (relative: string) => {
      const file = path.join(dir, relative);
      if (!existsSync(file)) throw new Error(`openshift-install did not produce ${relative}`);
      return readFileSync(file, 'utf8');
    };
    return {
      'bootstrap.ign': read('bootstrap.ign'),
      'master.ign': read('master.ign'),
      'worker.ign': read('worker.ign'),
      'metadata.json': read('metadata.json'),
      'kubeconfig-noingress': read('auth/kubeconfig'),
      'kubeadmin-password': read('auth/kubeadmin-password'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const orgId = required('ORG_ID');
  const clusterId = required('CLUSTER_ID');
  const version = process.env.OPENSHIFT_VERSION ?? '';
  // The blob store alone, not container(): the task uses no other port, and so bundles no table client.
  const blobs = blobStore(configFromEnvironment());
  const started = performance.now();

  const configBytes = await blobs.get('files', installationObjectKey(orgId, clusterId, 'install-config.yaml'));
  if (!configBytes) throw new Error('install-config.yaml is missing: the Prepare task did not run for this attempt');
  const installConfig = Buffer.from(configBytes).toString('utf8');

  // Custom manifests as the API stores them: <prefix>manifests/<folder>/<file>.
  const manifestPrefix = `${clusterObjectPrefix(orgId, clusterId)}manifests/`;
  const manifests: Record<string, string> = {};
  for (const key of await blobs.list('files', manifestPrefix)) {
    const bytes = await blobs.get('files', key);
    if (bytes) manifests[key.slice(manifestPrefix.length)] = Buffer.from(bytes).toString('utf8');
  }
  log(`cluster ${clusterId}: install-config.yaml and ${Object.keys(manifests).length} custom manifest(s) read`);

  const installer = findOpenshiftInstall();
  let outputs: InstallerOutputs;
  let report: Omit<InstallerReport, 'seconds' | 'files'>;
  if (installer) {
    log(`using openshift-install ${installer.version} (${installer.path}) for OpenShift ${version}`);
    outputs = await realInstaller(installer.path, installConfig, manifests);
    report = { installer: 'openshift-install', installerVersion: installer.version };
  } else if (process.env.ALLOW_SIMULATED_INSTALLER === 'true') {
    // Loaded only when selected: the production image is built without it (lib/installer-task.ts).
    const simulated = await import('./simulated-installer.js');
    log(
      `no openshift-install found (set OPENSHIFT_INSTALL or put it on PATH): using the ${simulated.SIMULATED_INSTALLER_NAME}, whose files cannot bring up a real cluster`,
    );
    outputs = await simulated.simulateInstaller({ installConfigYaml: installConfig, manifests });
    report = { installer: 'simulated' };
  } else {
    throw new Error(
      `no openshift-install for OpenShift ${version} is available in this task (set OPENSHIFT_INSTALL or put it on PATH), and the simulated installer is not allowed here`,
    );
  }

  for (const name of INSTALLER_OUTPUTS) {
    await blobs.put(
      'files',
      installationObjectKey(orgId, clusterId, name),
      outputs[name],
      name.endsWith('.ign') || name.endsWith('.json') ? 'application/json' : 'text/plain',
    );
  }
  const seconds = (performance.now() - started) / 1000;
  // Written last: its presence says every output above is complete.
  const full: InstallerReport = { ...report, seconds, files: [...INSTALLER_OUTPUTS] };
  await blobs.put('files', installationObjectKey(orgId, clusterId, INSTALLER_REPORT), JSON.stringify(full), 'application/json');
  log(`cluster ${clusterId}: ${INSTALLER_OUTPUTS.length} files written in ${seconds.toFixed(1)} s`);
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    log(`failed: ${error.message}`);
    process.exit(1);
  },
);
