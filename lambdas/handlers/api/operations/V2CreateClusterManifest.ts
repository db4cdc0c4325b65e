import { json } from '../../../platform/http.js';
import { createManifest } from '../../../usecases/manifests.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const V2CreateClusterManifest: Operation<'V2CreateClusterManifest'> = async ({ api, body, principal, ports }) => {
  return json(201, await createManifest(ports, principal, pathParam(api, 'cluster_id'), body));
};
