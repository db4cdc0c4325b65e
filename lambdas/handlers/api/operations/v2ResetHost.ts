import { hostView } from '../../../domain/host/host.js';
import { json } from '../../../platform/http.js';
import { ownStagesSource } from '../../../usecases/hosts.js';
import { resetDay2Host } from '../../../usecases/installation.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

/** Upstream answers a host reset with 200 and the host. */
export const v2ResetHost: Operation<'v2ResetHost'> = async ({ api, principal, ports }) => {
  const host = await resetDay2Host(ports, principal, pathParam(api, 'infra_env_id'), pathParam(api, 'host_id'));
  return json(200, hostView(host, await ownStagesSource(ports.store, host)));
};
