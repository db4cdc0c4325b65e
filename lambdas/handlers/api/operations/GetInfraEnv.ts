import { json } from '../../../platform/http.js';
import { getInfraEnv } from '../../../usecases/infra-envs.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const GetInfraEnv: Operation<'GetInfraEnv'> = async ({ api, principal, ports }) => {
  return json(200, await getInfraEnv(ports, principal, pathParam(api, 'infra_env_id')));
};
