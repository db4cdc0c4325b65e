import { noContent } from '../../../platform/http.js';
import { deregisterHost } from '../../../usecases/hosts.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const v2DeregisterHost: Operation<'v2DeregisterHost'> = async ({ api, principal, ports }) => {
  await deregisterHost(ports, principal, pathParam(api, 'infra_env_id'), pathParam(api, 'host_id'));
  return noContent();
};
