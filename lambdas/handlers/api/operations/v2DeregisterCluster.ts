import { noContent } from '../../../platform/http.js';
import { deregisterCluster } from '../../../usecases/clusters.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const v2DeregisterCluster: Operation<'v2DeregisterCluster'> = async ({ api, principal, ports }) => {
  await deregisterCluster(ports, principal, pathParam(api, 'cluster_id'));
  return noContent();
};
