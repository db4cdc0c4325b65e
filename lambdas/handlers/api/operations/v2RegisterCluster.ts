import { json } from '../../../platform/http.js';
import { requireRole } from '../../../usecases/api-tokens.js';
import { registerCluster } from '../../../usecases/clusters.js';
import type { Operation } from '../context.js';

export const v2RegisterCluster: Operation<'v2RegisterCluster'> = async ({ body, principal, ports }) => {
  requireRole(principal, 'write');
  return json(201, await registerCluster(ports, principal, body));
};
