import { json } from '../../../platform/http.js';
import { requireRole } from '../../../usecases/api-tokens.js';
import { bindHostToCluster } from '../../../usecases/hosts.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const BindHost: Operation = async ({ api, event, principal, ports }) => {
  requireRole(principal, 'write');
  const { cluster_id } = event.body as { cluster_id: string };
  return json(200, await bindHostToCluster(ports, principal, pathParam(api, 'infra_env_id'), pathParam(api, 'host_id'), cluster_id));
};
