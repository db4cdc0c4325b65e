import { updateHostIgnition } from '../../../usecases/installation-files.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

/** Upstream answers 201 without a body. */
export const v2UpdateHostIgnition: Operation<'v2UpdateHostIgnition'> = async ({ api, body, principal, ports }) => {
  await updateHostIgnition(ports, principal, pathParam(api, 'infra_env_id'), pathParam(api, 'host_id'), body.config);
  return { statusCode: 201, headers: {}, body: '' };
};
