import { json } from '../../../platform/http.js';
import { registerInfraEnv } from '../../../usecases/infra-envs.js';
import type { Operation } from '../context.js';

export const RegisterInfraEnv: Operation<'RegisterInfraEnv'> = async ({ body, principal, ports }) => {
  return json(201, await registerInfraEnv(ports, principal, body));
};
