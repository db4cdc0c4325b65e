import { json } from '../../../platform/http.js';
import { updateCluster } from '../../../usecases/clusters.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

/** Upstream answers a cluster update with 201. */
export const V2UpdateCluster: Operation<'V2UpdateCluster'> = async ({ api, body, principal, ports }) => {
  return json(201, await updateCluster(ports, principal, pathParam(api, 'cluster_id'), body));
};
