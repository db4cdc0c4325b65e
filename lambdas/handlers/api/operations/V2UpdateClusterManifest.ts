import { json } from '../../../platform/http.js';
import { requireRole } from '../../../usecases/api-tokens.js';
import { updateManifest } from '../../../usecases/manifests.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const V2UpdateClusterManifest: Operation<'V2UpdateClusterManifest'> = async ({ api, body, principal, ports }) => {
  requireRole(principal, 'write');
  return json(200, await updateManifest(ports, principal, pathParam(api, 'cluster_id'), body));
};
