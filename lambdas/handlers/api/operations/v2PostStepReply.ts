import type { StepReply } from '../../../domain/agent/agent-protocol.js';
import { noContent } from '../../../platform/http.js';
import { postStepReply } from '../../../usecases/agent.js';
import { requireAgent } from '../../../usecases/principal.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const v2PostStepReply: Operation<'v2PostStepReply'> = async ({ api, body, principal, ports }) => {
  requireAgent(principal);
  await postStepReply(ports, principal, pathParam(api, 'infra_env_id'), pathParam(api, 'host_id'), body as StepReply);
  return noContent();
};
