import { hostView } from '../../../domain/host/host.js';
import { json } from '../../../platform/http.js';
import { installDay2Host } from '../../../usecases/installation.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

/** Upstream answers host actions with 202 and the host. */
export const v2InstallHost: Operation<'v2InstallHost'> = async ({ api, principal, ports }) => {
  return json(202, hostView(await installDay2Host(ports, principal, pathParam(api, 'infra_env_id'), pathParam(api, 'host_id')), 'not-listed'));
};
