import { json } from '../../../platform/http.js';
import { allowAddingHosts } from '../../../usecases/installation.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const TransformClusterToAddingHosts: Operation<'TransformClusterToAddingHosts'> = async ({ api, principal, ports }) => {
  return json(202, await allowAddingHosts(ports, principal, pathParam(api, 'cluster_id')));
};
