import { json } from '../../../platform/http.js';
import { listInfraEnvHosts } from '../../../usecases/hosts.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const v2ListHosts: Operation<'v2ListHosts'> = async ({ api, principal, ports }) => {
  return json(200, await listInfraEnvHosts(ports, principal, pathParam(api, 'infra_env_id')));
};
