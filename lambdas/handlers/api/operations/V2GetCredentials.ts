import { json } from '../../../platform/http.js';
import { getCredentials } from '../../../usecases/installation-files.js';
import type { Operation } from '../context.js';
import { pathParam } from '../params.js';

export const V2GetCredentials: Operation<'V2GetCredentials'> = async ({ api, principal, ports }) =>
  json(200, await getCredentials(ports, principal, pathParam(api, 'cluster_id')));
