import { json } from '../../../platform/http.js';
import { registerHost } from '../../../usecases/agent.js';
import type { Operation } from '../context.js';
import { header, pathParam } from '../params.js';

/** An agent registering a host; answers 201 with the host and the step runner command. */
export const v2RegisterHost: Operation<'v2RegisterHost'> = async ({ api, body, principal, ports }) => {
  return json(201, await registerHost(ports, principal, pathParam(api, 'infra_env_id'), body, header(api, 'discovery_agent_version')));
};
