import { updateInstallConfig } from '../../../usecases/install-config.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

/** The body is a JSON string holding the overrides (openapi.yaml validated its type); upstream answers 201 with no body. */
export const v2UpdateClusterInstallConfig: Operation<'v2UpdateClusterInstallConfig'> = async ({ api, body, principal, ports }) => {
  await updateInstallConfig(ports, principal, pathParam(api, 'cluster_id'), body);
  return { statusCode: 201, headers: {}, body: '' };
};
