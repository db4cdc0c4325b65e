import { json } from '../../../platform/http.js';
import { resetCluster } from '../../../usecases/installation.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

/** Upstream answers cluster actions with 202 and the cluster. */
export const v2ResetCluster: Operation<'v2ResetCluster'> = async ({ api, principal, ports }) => {
  return json(202, await resetCluster(ports, principal, pathParam(api, 'cluster_id')));
};
