import { updateHostInstallProgress, type HostProgressRequest } from '../../../usecases/installation-progress.js';
import { requireAgent } from '../../../usecases/principal.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

/** The on-host installer and the controller report stages; upstream answers 200 with no body. */
export const v2UpdateHostInstallProgress: Operation = async ({ api, event, principal, ports }) => {
  requireAgent(principal);
  await updateHostInstallProgress(ports, principal, pathParam(api, 'infra_env_id'), pathParam(api, 'host_id'), (event.body ?? {}) as HostProgressRequest);
  return { statusCode: 200, headers: {}, body: '' };
};
