import { json } from '../../../platform/http.js';
import { listClusters } from '../../../usecases/clusters.js';
import type { Operation } from '../context.js';
import { queryFlag, queryString } from '../params.js';

export const v2ListClusters: Operation<'v2ListClusters'> = async ({ api, principal, ports }) => {
  return json(
    200,
    await listClusters(ports, principal, {
      withHosts: queryFlag(api, 'with_hosts'),
      openshiftClusterId: queryString(api, 'openshift_cluster_id'),
      name: queryString(api, 'name'),
    }),
  );
};
