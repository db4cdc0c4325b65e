import { json } from '../../../platform/http.js';
import { unbindHostFromCluster } from '../../../usecases/hosts.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const UnbindHost: Operation<'UnbindHost'> = async ({ api, principal, ports }) => {
  return json(200, await unbindHostFromCluster(ports, principal, pathParam(api, 'infra_env_id'), pathParam(api, 'host_id')));
};
