import { json } from '../../../platform/http.js';
import { getClusterSupportedPlatforms } from '../../../usecases/cluster-settings.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const GetClusterSupportedPlatforms: Operation<'GetClusterSupportedPlatforms'> = async ({ api, principal, ports }) => {
  return json(200, await getClusterSupportedPlatforms(ports, principal, pathParam(api, 'cluster_id')));
};
