import { json } from '../../../platform/http.js';
import { getHostIgnition } from '../../../usecases/installation-files.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const v2GetHostIgnition: Operation<'v2GetHostIgnition'> = async ({ api, principal, ports }) => {
  return json(200, await getHostIgnition(ports, principal, pathParam(api, 'infra_env_id'), pathParam(api, 'host_id')));
};
