import { json } from '../../../platform/http.js';
import { listApiTokens, requireRole, tokenView } from '../../../usecases/api-tokens.js';
import type { Operation } from '../context.js';

export const ListApiTokens: Operation = async ({ principal, ports }) => {
  requireRole(principal, 'manage-tokens');
  return json(200, (await listApiTokens(ports, principal.orgId)).map(tokenView));
};
