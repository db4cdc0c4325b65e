import { json } from '../../../platform/http.js';
import { bindHostToCluster } from '../../../usecases/hosts.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const BindHost: Operation<'BindHost'> = async ({ api, body, principal, ports }) => {
  return json(200, await bindHostToCluster(ports, principal, pathParam(api, 'infra_env_id'), pathParam(api, 'host_id'), body.cluster_id));
};
