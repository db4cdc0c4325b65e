import { json } from '../../../platform/http.js';
import { importCluster } from '../../../usecases/imported-clusters.js';
import type { Operation } from '../context.js';

export const v2ImportCluster: Operation<'v2ImportCluster'> = async ({ body, principal, ports }) => {
  return json(201, await importCluster(ports, principal, body));
};
