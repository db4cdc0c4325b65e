import { json } from '../../../platform/http.js';
import { getCluster } from '../../../usecases/clusters.js';
import type { Operation } from '../context.js';
import { pathParam, queryFlag } from '../params.js';

export const v2GetCluster: Operation<'v2GetCluster'> = async ({ api, principal, ports }) => {
  return json(200, await getCluster(ports, principal, pathParam(api, 'cluster_id'), { excludeHosts: queryFlag(api, 'exclude-hosts') }));
};
