import { json } from '../../../platform/http.js';
import { completeInstallation } from '../../../usecases/installation-progress.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const v2CompleteInstallation: Operation<'v2CompleteInstallation'> = async ({ api, body, principal, ports }) => {
  return json(202, await completeInstallation(ports, principal, pathParam(api, 'cluster_id'), body));
};
