import { noContent } from '../../../platform/http.js';
import { regenerateSigningKey } from '../../../usecases/infra-envs.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const RegenerateInfraEnvSigningKey: Operation<'RegenerateInfraEnvSigningKey'> = async ({ api, principal, ports }) => {
  await regenerateSigningKey(ports, principal, pathParam(api, 'infra_env_id'));
  return noContent();
};
