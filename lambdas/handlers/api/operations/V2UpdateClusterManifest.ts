import { json } from '../../../platform/http.js';
import { updateManifest } from '../../../usecases/manifests.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const V2UpdateClusterManifest: Operation<'V2UpdateClusterManifest'> = async ({ api, body, principal, ports }) => {
  return json(200, await updateManifest(ports, principal, pathParam(api, 'cluster_id'), body));
};
