/**
 * The unconfigured ignition of a disconnected-iso infra-env, for its discovery.ign download and for
 * the ISO its image URL serves: the installer's inputs made from the infra-env and its
 * DisconnectedCluster, then openshift-install or the SIMULATED generator (the UnconfiguredIgnitions
 * port decides, and a simulated one is announced by a warning event and the log).
 */
import { createHash } from 'node:crypto';
import { unconfiguredIgnitionInputs, withInteractiveUi, type InstallerDirectory } from '../domain/image/disconnected-ignition.js';
import type { InfraEnv } from '../domain/core/entities.js';
import { notFound } from '../domain/core/errors.js';
import { DISCONNECTED_CLUSTER_NAME } from '../domain/image/infra-env.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import type { UnconfiguredIgnitionGenerator, UnconfiguredIgnitions } from '../ports/unconfigured-ignitions.js';
import { recordEvent } from './events.js';

export interface DisconnectedIgnitionDeps {
  store: Store;
  clock: Clock;
  unconfiguredIgnitions: UnconfiguredIgnitions;
}

export interface DisconnectedIgnitionPlan {
  directory: InstallerDirectory;
  openshiftVersion: string;
  generator: UnconfiguredIgnitionGenerator;
  /** Changes exactly when the inputs or the generator do (the generator's output is not reproducible). */
  fingerprint: string;
}

/** What the ignition will be made of; 404 without a cluster (upstream's "Failed to get cluster"), 409 when no generator is allowed. */
export async function planDisconnectedIgnition(deps: DisconnectedIgnitionDeps, infraEnv: InfraEnv): Promise<DisconnectedIgnitionPlan> {
  // A DisconnectedCluster's infra-env knows its name (kept at creation): its ISO is made without
  // reading the cluster, which the console deletes as soon as the download has started.
  const kept = infraEnv.attributes[DISCONNECTED_CLUSTER_NAME] as string | undefined;
  const cluster =
    kept === undefined && infraEnv.clusterId ? await deps.store.clusters.get({ orgId: infraEnv.orgId, clusterId: infraEnv.clusterId }) : undefined;
  const clusterName = kept ?? cluster?.name;
  if (!clusterName) {
    throw notFound(
      `Failed to get cluster of disconnected-iso infra-env ${infraEnv.infraEnvId}: it has none; create a DisconnectedCluster (POST /v2/clusters/disconnected) and an infra-env for it`,
    );
  }
  const openshiftVersion = (infraEnv.attributes.openshift_version ?? cluster?.attributes.openshift_version) as string;
  const directory = unconfiguredIgnitionInputs({ infraEnv, clusterName });
  const generator = deps.unconfiguredIgnitions.generator(openshiftVersion);
  const fingerprint = createHash('sha256').update(JSON.stringify({ directory, openshiftVersion, generator })).digest('hex').slice(0, 32);
  return { directory, openshiftVersion, generator, fingerprint };
}

/** The ignition (JSON text) with the interactive-UI sentinel; records which generator made it. */
export async function disconnectedIgnitionText(
  deps: DisconnectedIgnitionDeps,
  infraEnv: InfraEnv,
  plan?: DisconnectedIgnitionPlan,
): Promise<{ text: string; generator: UnconfiguredIgnitionGenerator }> {
  const { directory, openshiftVersion } = plan ?? (await planDisconnectedIgnition(deps, infraEnv));
  const made = await deps.unconfiguredIgnitions.generate({ directory, openshiftVersion, pullSecret: infraEnv.pullSecret });
  const subject = { orgId: infraEnv.orgId, infraEnvId: infraEnv.infraEnvId };
  if (made.generator === 'simulated') {
    await recordEvent(deps, { name: 'unconfigured_ignition_simulated', subject, props: { openshift_version: openshiftVersion } });
  } else {
    await recordEvent(deps, {
      name: 'unconfigured_ignition_generated',
      subject,
      props: { openshift_version: openshiftVersion, installer_version: made.installerVersion ?? 'unknown' },
    });
  }
  return { text: withInteractiveUi(made.ignition), generator: made.generator };
}
