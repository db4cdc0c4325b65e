import { supportedOperatorNames } from '../../../domain/catalogues/catalogues.js';
import { json } from '../../../platform/http.js';
import type { Operation } from '../context.js';

export const V2ListSupportedOperators: Operation<'V2ListSupportedOperators'> = async () => {
  return json(200, supportedOperatorNames());
};
