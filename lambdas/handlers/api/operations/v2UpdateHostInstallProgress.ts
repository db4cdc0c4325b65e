import { updateHostInstallProgress } from '../../../usecases/installation-progress.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

/** The on-host installer and the controller report stages; upstream answers 200 with no body. */
export const v2UpdateHostInstallProgress: Operation<'v2UpdateHostInstallProgress'> = async ({ api, body, principal, ports }) => {
  await updateHostInstallProgress(ports, principal, pathParam(api, 'infra_env_id'), pathParam(api, 'host_id'), body);
  return { statusCode: 200, headers: {}, body: '' };
};
