import type { Operation } from '../context.js';
import { V2CancelInstallation } from './V2CancelInstallation.js';
import { v2InstallCluster } from './v2InstallCluster.js';
import { v2InstallHost } from './v2InstallHost.js';
import { v2ResetCluster } from './v2ResetCluster.js';
import { v2ResetHost } from './v2ResetHost.js';
import { TransformClusterToAddingHosts } from './TransformClusterToAddingHosts.js';
import { TransformClusterToDay2 } from './TransformClusterToDay2.js';
import { V2GetBundle } from './V2GetBundle.js';
import { V2GetClusterUISettings } from './V2GetClusterUISettings.js';
import { V2ListBundles } from './V2ListBundles.js';
import { V2UpdateClusterUISettings } from './V2UpdateClusterUISettings.js';

/** The user's installation actions on clusters and (day-2) hosts. */
export const actionOperations: Record<string, Operation> = {
  v2InstallCluster, V2CancelInstallation, v2ResetCluster, v2InstallHost, v2ResetHost,
  TransformClusterToDay2, TransformClusterToAddingHosts,
  // what the console asks for besides
  V2GetClusterUISettings, V2UpdateClusterUISettings, V2ListBundles, V2GetBundle,
};
