import { parseLogsState } from '../../../domain/install/logs.js';
import { noContent } from '../../../platform/http.js';
import { updateClusterLogsProgress } from '../../../usecases/logs.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

/** The installer controller reports its own log collection for the cluster. */
export const v2UpdateClusterLogsProgress: Operation<'v2UpdateClusterLogsProgress'> = async ({ api, body, principal, ports }) => {
  const state = parseLogsState(body.logs_state);
  await updateClusterLogsProgress(ports, principal, pathParam(api, 'cluster_id'), state);
  return noContent();
};
