import { noContent } from '../../../platform/http.js';
import { requireRole, revokeApiToken } from '../../../usecases/api-tokens.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const RevokeApiToken: Operation = async ({ api, principal, ports }) => {
  requireRole(principal, 'manage-tokens');
  await revokeApiToken(ports, principal.orgId, pathParam(api, 'token_id'));
  return noContent();
};
