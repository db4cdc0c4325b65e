import type { ClusterCreateParams } from './wire.js';

/**
 * The REST API's hyperthreading setting from an install-config's (or an AgentClusterInstall's)
 * per-pool modes, Enabled or Disabled; a pool that names none keeps it enabled, as the installer does.
 * Shared by the hub controller and `assisted ztp`, which read the same custom resource.
 */
export function hyperthreadingOfModes(masters: string | undefined, workers: string | undefined): ClusterCreateParams['hyperthreading'] | undefined {
  if (masters === undefined && workers === undefined) return undefined;
  const onMasters = masters !== 'Disabled';
  const onWorkers = workers !== 'Disabled';
  return onMasters && onWorkers ? 'all' : onMasters ? 'masters' : onWorkers ? 'workers' : 'none';
}
