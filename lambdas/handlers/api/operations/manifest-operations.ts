import type { Operation } from '../context.js';
import { V2CreateClusterManifest } from './V2CreateClusterManifest.js';
import { V2DeleteClusterManifest } from './V2DeleteClusterManifest.js';
import { V2ListClusterManifests } from './V2ListClusterManifests.js';
import { V2UpdateClusterManifest } from './V2UpdateClusterManifest.js';
import { v2DownloadClusterManifest } from './v2DownloadClusterManifest.js';

/** The manifests tag's operations, merged into the operations map by operations/index.ts. */
export const manifestOperations: Record<string, Operation> = {
  V2ListClusterManifests,
  V2CreateClusterManifest,
  V2UpdateClusterManifest,
  V2DeleteClusterManifest,
  v2DownloadClusterManifest,
};
