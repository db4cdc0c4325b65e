import type { ClusterCreateParams } from '../../../domain/core/wire.js';
import { json } from '../../../platform/http.js';
import { requireRole } from '../../../usecases/api-tokens.js';
import { registerCluster } from '../../../usecases/clusters.js';
import type { Operation } from '../context.js';

export const v2RegisterCluster: Operation = async ({ event, principal, ports }) => {
  requireRole(principal, 'write');
  return json(201, await registerCluster(ports, principal, event.body as ClusterCreateParams));
};
