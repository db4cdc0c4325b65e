import { detailedFeatureSupport, SUPPORT_FILTER_PARAMETERS, supportFilters } from '../../../domain/catalogues/catalogues.js';
import { json } from '../../../platform/http.js';
import type { Operation } from '../context.js';
import { queryStrings } from '../params.js';

export const GetDetailedSupportedFeatures: Operation<'GetDetailedSupportedFeatures'> = async ({ api }) => {
  return json(200, detailedFeatureSupport(supportFilters(queryStrings(api, SUPPORT_FILTER_PARAMETERS))));
};
