import { parseLogsState } from '../../../domain/install/logs.js';
import { noContent } from '../../../platform/http.js';
import { updateHostLogsProgress } from '../../../usecases/logs.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

/** logs_sender reports `requested`, `collecting`, `completed` as it gathers and uploads a host's logs. */
export const v2UpdateHostLogsProgress: Operation<'v2UpdateHostLogsProgress'> = async ({ api, body, principal, ports }) => {
  const state = parseLogsState(body.logs_state);
  await updateHostLogsProgress(ports, principal, pathParam(api, 'infra_env_id'), pathParam(api, 'host_id'), state);
  return noContent();
};
