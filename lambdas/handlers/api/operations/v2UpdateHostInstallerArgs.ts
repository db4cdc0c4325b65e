import { json } from '../../../platform/http.js';
import { updateHostInstallerArgs } from '../../../usecases/installation-files.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const v2UpdateHostInstallerArgs: Operation<'v2UpdateHostInstallerArgs'> = async ({ api, body, principal, ports }) => {
  return json(201, await updateHostInstallerArgs(ports, principal, pathParam(api, 'infra_env_id'), pathParam(api, 'host_id'), body.args));
};
