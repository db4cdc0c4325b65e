import { notFound } from '../../../domain/core/errors.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

/** No bundles are offered (see V2ListBundles): every id is unknown. */
export const V2GetBundle: Operation = async ({ api }) => {
  throw notFound(`Bundle ${pathParam(api, 'id')} is not offered: operators are selected individually (GET /v2/supported-operators)`);
};
