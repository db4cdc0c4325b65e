import { json } from '../../../platform/http.js';
import { installCluster } from '../../../usecases/installation.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

/** Upstream answers cluster actions with 202 and the cluster. */
export const v2InstallCluster: Operation<'v2InstallCluster'> = async ({ api, principal, ports }) => {
  return json(202, await installCluster(ports, principal, pathParam(api, 'cluster_id')));
};
