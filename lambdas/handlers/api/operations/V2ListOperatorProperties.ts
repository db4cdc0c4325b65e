import { operatorProperties } from '../../../domain/catalogues/catalogues.js';
import { json } from '../../../platform/http.js';
import { requireRole } from '../../../usecases/api-tokens.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const V2ListOperatorProperties: Operation = async ({ api, principal }) => {
  requireRole(principal, 'read');
  return json(200, operatorProperties(pathParam(api, 'operator_name')));
};
