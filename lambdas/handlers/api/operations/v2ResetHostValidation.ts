import { json } from '../../../platform/http.js';
import { resetHostValidation } from '../../../usecases/hosts.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const v2ResetHostValidation: Operation<'v2ResetHostValidation'> = async ({ api, principal, ports }) => {
  return json(200, await resetHostValidation(ports, principal, pathParam(api, 'infra_env_id'), pathParam(api, 'host_id'), pathParam(api, 'validation_id')));
};
