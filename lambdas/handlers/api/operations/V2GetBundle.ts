import { getBundle, bundleFeatures } from '../../../domain/catalogues/catalogues.js';
import { json } from '../../../platform/http.js';
import type { Operation } from '../context.js';
import { pathParam, queryList } from '../params.js';

/**
 * One bundle with its operators for the features named. An unknown id is a 404, as openapi.yaml
 * declares (upstream's service answers 500 with the same reason).
 */
export const V2GetBundle: Operation<'V2GetBundle'> = async ({ api }) => {
  const features = bundleFeatures(queryList(api, 'feature_ids'));
  return json(200, getBundle(pathParam(api, 'id'), features));
};
