import { featureSupportLevels, SUPPORT_FILTER_PARAMETERS, supportFilters } from '../../../domain/catalogues/catalogues.js';
import { json } from '../../../platform/http.js';
import type { Operation } from '../context.js';
import { queryStrings } from '../params.js';

export const GetSupportedFeatures: Operation<'GetSupportedFeatures'> = async ({ api }) => {
  return json(200, { features: featureSupportLevels(supportFilters(queryStrings(api, SUPPORT_FILTER_PARAMETERS), 'compared-with-nothing')) });
};
