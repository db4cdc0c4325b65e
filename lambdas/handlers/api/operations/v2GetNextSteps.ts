import { json } from '../../../platform/http.js';
import { getNextSteps } from '../../../usecases/agent.js';
import type { Operation } from '../context.js';
import { header, pathParam, queryString } from '../params.js';

export const v2GetNextSteps: Operation<'v2GetNextSteps'> = async ({ api, principal, ports }) => {
  const timestamp = queryString(api, 'timestamp');
  return json(
    200,
    await getNextSteps(ports, principal, pathParam(api, 'infra_env_id'), pathParam(api, 'host_id'), {
      timestamp: timestamp === undefined ? undefined : Number(timestamp),
      agentVersion: header(api, 'discovery_agent_version'),
    }),
  );
};
