import { json } from '../../../platform/http.js';
import { listMonitoredOperators } from '../../../usecases/installation-progress.js';
import type { Operation } from '../context.js';
import { pathParam, queryString } from '../params.js';

export const V2ListOfClusterOperators: Operation<'V2ListOfClusterOperators'> = async ({ api, principal, ports }) => {
  return json(200, await listMonitoredOperators(ports, principal, pathParam(api, 'cluster_id'), queryString(api, 'operator_name')));
};
