import { noContent } from '../../../platform/http.js';
import { revokeCallersToken } from '../../../usecases/api-tokens.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const RevokeApiToken: Operation<'RevokeApiToken'> = async ({ api, principal, ports }) => {
  await revokeCallersToken(ports, principal, pathParam(api, 'token_id'));
  return noContent();
};
