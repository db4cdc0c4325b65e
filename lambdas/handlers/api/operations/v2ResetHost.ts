import { hostView } from '../../../domain/host/host.js';
import { json } from '../../../platform/http.js';
import { requireRole } from '../../../usecases/api-tokens.js';
import { resetDay2Host } from '../../../usecases/installation.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

/** Upstream answers a host reset with 200 and the host. */
export const v2ResetHost: Operation = async ({ api, principal, ports }) => {
  requireRole(principal, 'write');
  return json(200, hostView(await resetDay2Host(ports, principal, pathParam(api, 'infra_env_id'), pathParam(api, 'host_id'))));
};
