import type { Operation } from '../context.js';
import { V2DownloadClusterCredentials } from './V2DownloadClusterCredentials.js';
import { V2DownloadClusterFiles } from './V2DownloadClusterFiles.js';
import { V2GetCredentials } from './V2GetCredentials.js';
import { V2GetPresignedForClusterCredentials } from './V2GetPresignedForClusterCredentials.js';
import { V2GetPresignedForClusterFiles } from './V2GetPresignedForClusterFiles.js';
import { V2ListOfClusterOperators } from './V2ListOfClusterOperators.js';
import { v2CompleteInstallation } from './v2CompleteInstallation.js';
import { v2DownloadHostIgnition } from './v2DownloadHostIgnition.js';
import { v2GetHostIgnition } from './v2GetHostIgnition.js';
import { v2ReportMonitoredOperatorStatus } from './v2ReportMonitoredOperatorStatus.js';
import { v2UpdateClusterFinalizingProgress } from './v2UpdateClusterFinalizingProgress.js';
import { v2UpdateHostIgnition } from './v2UpdateHostIgnition.js';
import { v2UpdateHostInstallProgress } from './v2UpdateHostInstallProgress.js';
import { v2UpdateHostInstallerArgs } from './v2UpdateHostInstallerArgs.js';
import { v2UploadClusterIngressCert } from './v2UploadClusterIngressCert.js';

/**
 * What the on-host installer and the controller report during an installation, the files it
 * produces, and the per-host installation settings; merged into the operations map by operations/index.ts.
 */
export const installationOperations: Record<string, Operation> = {
  // installer and controller
  v2UpdateHostInstallProgress, v2UpdateClusterFinalizingProgress, V2ListOfClusterOperators, v2ReportMonitoredOperatorStatus,
  v2UploadClusterIngressCert, v2CompleteInstallation,
  // downloads
  V2DownloadClusterFiles, V2DownloadClusterCredentials, V2GetCredentials, V2GetPresignedForClusterFiles,
  V2GetPresignedForClusterCredentials, v2DownloadHostIgnition,
  // per-host installation settings
  v2GetHostIgnition, v2UpdateHostIgnition, v2UpdateHostInstallerArgs,
};
