import { json } from '../../../platform/http.js';
import { setIgnoredValidations } from '../../../usecases/cluster-settings.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

/** Upstream answers 201 with the lists as stored. */
export const v2SetIgnoredValidations: Operation<'v2SetIgnoredValidations'> = async ({ api, body, principal, ports }) => {
  return json(201, await setIgnoredValidations(ports, principal, pathParam(api, 'cluster_id'), body));
};
