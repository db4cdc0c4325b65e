import { json } from '../../../platform/http.js';
import { registerCluster } from '../../../usecases/clusters.js';
import type { Operation } from '../context.js';

export const v2RegisterCluster: Operation<'v2RegisterCluster'> = async ({ body, principal, ports }) => {
  return json(201, await registerCluster(ports, principal, body));
};
