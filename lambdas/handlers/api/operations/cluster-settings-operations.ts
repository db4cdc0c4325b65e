import type { Operation } from '../context.js';
import { v2GetClusterInstallConfig } from './v2GetClusterInstallConfig.js';
import { v2GetIgnoredValidations } from './v2GetIgnoredValidations.js';
import { v2GetPreflightRequirements } from './v2GetPreflightRequirements.js';
import { v2SetIgnoredValidations } from './v2SetIgnoredValidations.js';
import { v2UpdateClusterInstallConfig } from './v2UpdateClusterInstallConfig.js';

/** Cluster settings beside the cluster document, merged into the operations map by operations/index.ts. */
export const clusterSettingsOperations: Record<string, Operation> = {
  v2GetClusterInstallConfig,
  v2UpdateClusterInstallConfig,
  v2GetIgnoredValidations,
  v2SetIgnoredValidations,
  v2GetPreflightRequirements,
};
