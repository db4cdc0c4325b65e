import { json } from '../../../platform/http.js';
import { getIgnoredValidations } from '../../../usecases/cluster-settings.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const v2GetIgnoredValidations: Operation<'v2GetIgnoredValidations'> = async ({ api, principal, ports }) => {
  return json(200, await getIgnoredValidations(ports, principal, pathParam(api, 'cluster_id')));
};
