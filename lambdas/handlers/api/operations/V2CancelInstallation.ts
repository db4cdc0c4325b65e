import { json } from '../../../platform/http.js';
import { cancelInstallation } from '../../../usecases/installation.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

/** Upstream answers cluster actions with 202 and the cluster. */
export const V2CancelInstallation: Operation<'V2CancelInstallation'> = async ({ api, principal, ports }) => {
  return json(202, await cancelInstallation(ports, principal, pathParam(api, 'cluster_id')));
};
