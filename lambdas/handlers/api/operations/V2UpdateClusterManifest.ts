import { json } from '../../../platform/http.js';
import { requireRole } from '../../../usecases/api-tokens.js';
import { updateManifest, type UpdateManifestRequest } from '../../../usecases/manifests.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const V2UpdateClusterManifest: Operation = async ({ api, event, principal, ports }) => {
  requireRole(principal, 'write');
  return json(200, await updateManifest(ports, principal, pathParam(api, 'cluster_id'), event.body as UpdateManifestRequest));
};
