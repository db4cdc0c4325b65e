import { bundleFilters, listBundles, SUPPORT_FILTER_PARAMETERS, bundleFeatures } from '../../../domain/catalogues/catalogues.js';
import { json } from '../../../platform/http.js';
import type { Operation } from '../context.js';
import { queryList, queryStrings } from '../params.js';

/** Upstream's operator bundles (operators.json: bundles), filtered by what the version, architecture and platform offer. */
export const V2ListBundles: Operation<'V2ListBundles'> = async ({ api }) => {
  const features = bundleFeatures(queryList(api, 'feature_ids'));
  return json(200, listBundles(bundleFilters(queryStrings(api, SUPPORT_FILTER_PARAMETERS)), features));
};
