import { noContent } from '../../../platform/http.js';
import { deregisterInfraEnv } from '../../../usecases/infra-envs.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const DeregisterInfraEnv: Operation<'DeregisterInfraEnv'> = async ({ api, principal, ports }) => {
  await deregisterInfraEnv(ports, principal, pathParam(api, 'infra_env_id'));
  return noContent();
};
