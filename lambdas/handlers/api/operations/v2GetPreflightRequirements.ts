import { json } from '../../../platform/http.js';
import { requireRole } from '../../../usecases/api-tokens.js';
import { getPreflightRequirements } from '../../../usecases/cluster-settings.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const v2GetPreflightRequirements: Operation = async ({ api, principal, ports }) => {
  requireRole(principal, 'read');
  return json(200, await getPreflightRequirements(ports, principal, pathParam(api, 'cluster_id')));
};
