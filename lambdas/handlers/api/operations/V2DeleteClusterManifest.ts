import { deleteManifest } from '../../../usecases/manifests.js';
import type { Operation } from '../context.js';
import { pathParam, queryString } from '../params.js';

/** Upstream answers 200 with an empty body (openapi.yaml declares no 204 here). */
export const V2DeleteClusterManifest: Operation<'V2DeleteClusterManifest'> = async ({ api, principal, ports }) => {
  await deleteManifest(ports, principal, pathParam(api, 'cluster_id'), {
    folder: queryString(api, 'folder'),
    fileName: queryString(api, 'file_name') ?? '',
  });
  return { statusCode: 200, headers: {}, body: '' };
};
