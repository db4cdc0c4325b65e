import type { StepReply } from '../../../domain/agent/agent-protocol.js';
import { noContent } from '../../../platform/http.js';
import { postStepReply } from '../../../usecases/agent.js';
import { requireAgent } from '../../../usecases/principal.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const v2PostStepReply: Operation = async ({ api, event, principal, ports }) => {
  requireAgent(principal);
  await postStepReply(ports, principal, pathParam(api, 'infra_env_id'), pathParam(api, 'host_id'), event.body as StepReply);
  return noContent();
};
