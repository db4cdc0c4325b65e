import { updateClusterFinalizingProgress } from '../../../usecases/installation-progress.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const v2UpdateClusterFinalizingProgress: Operation<'v2UpdateClusterFinalizingProgress'> = async ({ api, body, principal, ports }) => {
  await updateClusterFinalizingProgress(ports, principal, pathParam(api, 'cluster_id'), body.finalizing_stage);
  return { statusCode: 200, headers: {}, body: '' };
};
