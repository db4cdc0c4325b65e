import { json } from '../../../platform/http.js';
import { getInstallConfig } from '../../../usecases/install-config.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

/** 200 with the install-config text as a JSON string; it holds the pull secret, so nothing here logs it. */
export const v2GetClusterInstallConfig: Operation<'v2GetClusterInstallConfig'> = async ({ api, principal, ports }) => {
  return json(200, await getInstallConfig(ports, principal, pathParam(api, 'cluster_id')));
};
