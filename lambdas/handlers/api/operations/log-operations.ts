import type { Operation } from '../context.js';
import { V2DownloadClusterLogs } from './V2DownloadClusterLogs.js';
import { V2UploadLogs } from './V2UploadLogs.js';
import { v2UpdateClusterLogsProgress } from './v2UpdateClusterLogsProgress.js';
import { v2UpdateHostLogsProgress } from './v2UpdateHostLogsProgress.js';

/** Log upload, progress and download, merged into the operations map by operations/index.ts. */
export const logOperations: Record<string, Operation> = { V2UploadLogs, V2DownloadClusterLogs, v2UpdateHostLogsProgress, v2UpdateClusterLogsProgress };
