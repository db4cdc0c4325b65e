import { updateClusterFinalizingProgress } from '../../../usecases/installation-progress.js';
import { requireAgent } from '../../../usecases/principal.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const v2UpdateClusterFinalizingProgress: Operation = async ({ api, event, principal, ports }) => {
  requireAgent(principal);
  const body = (event.body ?? {}) as { finalizing_stage?: string };
  await updateClusterFinalizingProgress(ports, principal, pathParam(api, 'cluster_id'), body.finalizing_stage);
  return { statusCode: 200, headers: {}, body: '' };
};
