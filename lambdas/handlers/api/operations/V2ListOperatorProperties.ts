import { operatorProperties } from '../../../domain/catalogues/catalogues.js';
import { json } from '../../../platform/http.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const V2ListOperatorProperties: Operation<'V2ListOperatorProperties'> = async ({ api }) => {
  return json(200, operatorProperties(pathParam(api, 'operator_name')));
};
