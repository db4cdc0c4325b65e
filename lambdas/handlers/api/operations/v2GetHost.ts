import { json } from '../../../platform/http.js';
import { getHost } from '../../../usecases/hosts.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const v2GetHost: Operation<'v2GetHost'> = async ({ api, principal, ports }) => {
  return json(200, await getHost(ports, principal, pathParam(api, 'infra_env_id'), pathParam(api, 'host_id')));
};
