import { json } from '../../../platform/http.js';
import { listManifests } from '../../../usecases/manifests.js';
import type { Operation } from '../context.js';
import { pathParam, queryFlag } from '../params.js';

export const V2ListClusterManifests: Operation<'V2ListClusterManifests'> = async ({ api, principal, ports }) => {
  const includeSystemGenerated = queryFlag(api, 'include_system_generated') ?? false;
  return json(200, await listManifests(ports, principal, pathParam(api, 'cluster_id'), { includeSystemGenerated }));
};
