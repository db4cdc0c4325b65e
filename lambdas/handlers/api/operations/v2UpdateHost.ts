import { json } from '../../../platform/http.js';
import { updateHost } from '../../../usecases/hosts.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

/** Upstream answers a host update with 201. */
export const v2UpdateHost: Operation<'v2UpdateHost'> = async ({ api, body, principal, ports }) => {
  return json(201, await updateHost(ports, principal, pathParam(api, 'infra_env_id'), pathParam(api, 'host_id'), body));
};
