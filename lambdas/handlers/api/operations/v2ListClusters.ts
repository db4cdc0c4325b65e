import { json } from '../../../platform/http.js';
import { requireRole } from '../../../usecases/api-tokens.js';
import { listClusters } from '../../../usecases/clusters.js';
import type { Operation } from '../context.js';

export const v2ListClusters: Operation = async ({ principal, ports }) => {
  requireRole(principal, 'read');
  return json(200, await listClusters(ports, principal));
};
