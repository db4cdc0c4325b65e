import { supportedOperatorNames } from '../../../domain/catalogues/catalogues.js';
import { json } from '../../../platform/http.js';
import { requireRole } from '../../../usecases/api-tokens.js';
import type { Operation } from '../context.js';

export const V2ListSupportedOperators: Operation = async ({ principal }) => {
  requireRole(principal, 'read');
  return json(200, supportedOperatorNames());
};
