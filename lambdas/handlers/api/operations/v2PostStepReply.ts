import type { StepReply } from '../../../domain/agent/agent-protocol.js';
import { badRequest } from '../../../domain/core/errors.js';
import { noContent } from '../../../platform/http.js';
import { postStepReply } from '../../../usecases/agent.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const v2PostStepReply: Operation<'v2PostStepReply'> = async ({ api, body, principal, ports }) => {
  // openapi.yaml makes the body optional, as upstream's swagger does; a reply without one says nothing.
  if (body === undefined || body === null) throw badRequest("The step reply is missing: send the step's result as a JSON step-reply");
  await postStepReply(ports, principal, pathParam(api, 'infra_env_id'), pathParam(api, 'host_id'), body as StepReply);
  return noContent();
};
