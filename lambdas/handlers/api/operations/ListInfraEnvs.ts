import { json } from '../../../platform/http.js';
import { listInfraEnvs } from '../../../usecases/infra-envs.js';
import type { Operation } from '../context.js';
import { queryString } from '../params.js';

export const ListInfraEnvs: Operation<'ListInfraEnvs'> = async ({ api, principal, ports }) => {
  return json(200, await listInfraEnvs(ports, principal, { clusterId: queryString(api, 'cluster_id') }));
};
