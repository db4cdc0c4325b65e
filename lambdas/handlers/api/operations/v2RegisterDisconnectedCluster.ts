import { json } from '../../../platform/http.js';
import { registerDisconnectedCluster } from '../../../usecases/clusters.js';
import type { Operation } from '../context.js';

export const v2RegisterDisconnectedCluster: Operation<'v2RegisterDisconnectedCluster'> = async ({ body, principal, ports }) => {
  return json(201, await registerDisconnectedCluster(ports, principal, body));
};
