import { json } from '../../../platform/http.js';
import { updateInfraEnv } from '../../../usecases/infra-envs.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

/** Upstream answers an infra-env update with 201. */
export const UpdateInfraEnv: Operation<'UpdateInfraEnv'> = async ({ api, body, principal, ports }) => {
  return json(201, await updateInfraEnv(ports, principal, pathParam(api, 'infra_env_id'), body));
};
