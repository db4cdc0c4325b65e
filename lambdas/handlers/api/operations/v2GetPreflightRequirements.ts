import { json } from '../../../platform/http.js';
import { getPreflightRequirements } from '../../../usecases/cluster-settings.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const v2GetPreflightRequirements: Operation<'v2GetPreflightRequirements'> = async ({ api, principal, ports }) => {
  return json(200, await getPreflightRequirements(ports, principal, pathParam(api, 'cluster_id')));
};
