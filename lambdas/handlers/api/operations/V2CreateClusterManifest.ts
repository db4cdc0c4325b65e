import { json } from '../../../platform/http.js';
import { requireRole } from '../../../usecases/api-tokens.js';
import { createManifest, type CreateManifestRequest } from '../../../usecases/manifests.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const V2CreateClusterManifest: Operation = async ({ api, event, principal, ports }) => {
  requireRole(principal, 'write');
  return json(201, await createManifest(ports, principal, pathParam(api, 'cluster_id'), event.body as CreateManifestRequest));
};
