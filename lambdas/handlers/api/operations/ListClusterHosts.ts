import { json } from '../../../platform/http.js';
import { listClusterHosts } from '../../../usecases/hosts.js';
import type { Operation } from '../context.js';
import { pathParam, queryFlag, queryString } from '../params.js';

export const ListClusterHosts: Operation<'ListClusterHosts'> = async ({ api, principal, ports }) => {
  return json(
    200,
    await listClusterHosts(ports, principal, pathParam(api, 'cluster_id'), {
      role: queryString(api, 'role'),
      status: queryString(api, 'status'),
      // Upstream lists neither unless asked (both flags default to false).
      withInventory: queryFlag(api, 'with-inventory') ?? false,
      withConnectivity: queryFlag(api, 'with-connectivity') ?? false,
    }),
  );
};
